package storage

import (
	"testing"
)

func shadowGet(t *testing.T, s *Store, db int, key string) string {
	t.Helper()
	tx := s.Begin(db, [][]byte{[]byte(key)}, false)
	defer tx.Abort()
	v, ok, err := tx.GetString([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "(none)"
	}
	return string(v)
}

func shadowSet(t *testing.T, tx *Txn, key, val string) {
	t.Helper()
	if err := tx.SetString([]byte(key), []byte(val), 0); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestShadowInstall loads a keyspace beside the live one, which reads the old data until
// Install replaces every database at once, with a record staged in the same batch.
func TestShadowInstall(t *testing.T) {
	s, err := Open(Options{Dir: t.TempDir(), Databases: 3, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	shadowSet(t, s.Begin(0, [][]byte{[]byte("old")}, true), "old", "1")
	shadowSet(t, s.Begin(2, [][]byte{[]byte("old2")}, true), "old2", "1")
	sh, err := s.NewShadow()
	if err != nil {
		t.Fatal(err)
	}
	shadowSet(t, sh.Begin(0), "new", "a")
	shadowSet(t, sh.Begin(1), "new1", "b")
	if got := shadowGet(t, s, 0, "new"); got != "(none)" || shadowGet(t, s, 0, "old") != "1" {
		t.Fatalf("the live keyspace sees the shadow: %q", got)
	}
	if err := sh.Install(func(tx *Txn) { tx.PutSystemRecord("test", []byte("x")) }); err != nil {
		t.Fatal(err)
	}
	if shadowGet(t, s, 0, "new") != "a" || shadowGet(t, s, 1, "new1") != "b" ||
		shadowGet(t, s, 0, "old") != "(none)" || shadowGet(t, s, 2, "old2") != "(none)" {
		t.Fatal("Install did not replace the keyspace")
	}
	if s.DBSize(0) != 1 || s.DBSize(1) != 1 || s.DBSize(2) != 0 {
		t.Fatalf("sizes %d %d %d", s.DBSize(0), s.DBSize(1), s.DBSize(2))
	}
	if v, _ := s.SystemRecord("test"); string(v) != "x" {
		t.Fatalf("staged record %q", v)
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
	if sh.Install(nil) != ErrShadowDone {
		t.Fatal("second Install")
	}
}

// TestShadowAbortAndCrash: an aborted load and one cut short by closing the store without
// Install (as a crash would) leave the live keyspace as it was and nothing unaccounted for.
func TestShadowAbortAndCrash(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, Databases: 2, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	shadowSet(t, s.Begin(0, [][]byte{[]byte("keep")}, true), "keep", "1")
	sh, _ := s.NewShadow()
	shadowSet(t, sh.Begin(0), "gone", "x")
	if err := sh.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
	sh, _ = s.NewShadow()
	shadowSet(t, sh.Begin(1), "gone", "y")
	s.Close()
	s, err = Open(Options{Dir: dir, Databases: 2, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SystemRecord(shadowRecord); v != nil {
		t.Fatal("shadow record left after reopening")
	}
	if shadowGet(t, s, 0, "keep") != "1" || shadowGet(t, s, 1, "gone") != "(none)" || s.DBSize(0) != 1 || s.DBSize(1) != 0 {
		t.Fatal("the live keyspace changed")
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}
