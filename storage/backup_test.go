package storage

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestBackupIsPointInTime(t *testing.T) {
	s := openTest(t, false)
	for i := 0; i < 2000; i++ {
		k := fmt.Sprint("before", i)
		write(t, s, 0, k, func(tx *Txn) error { return tx.SetString([]byte(k), []byte(k), 0) })
	}
	dst := filepath.Join(t.TempDir(), "backup")
	done := make(chan error, 1)
	if err := s.StartBackup(dst, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		k := fmt.Sprint("after", i)
		write(t, s, 0, k, func(tx *Txn) error { return tx.SetString([]byte(k), []byte(k), 0) })
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := s.BackupInfo(); !st.LastOK || st.InProgress || st.Size <= 0 {
		t.Fatalf("backup status %+v", st)
	}
	b, err := Open(Options{Dir: dst, Databases: 4, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if n := b.DBSize(0); n != 2000 {
		t.Fatalf("backup DBSIZE = %d, want 2000", n)
	}
	if v, ok := getString(t, b, 0, "before1999"); !ok || v != "before1999" {
		t.Fatalf("before1999 = %q %v", v, ok)
	}
	if _, ok := getString(t, b, 0, "after0"); ok {
		t.Fatal("a write committed after the snapshot is in the backup")
	}
}
