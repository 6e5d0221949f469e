package storage

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// copyFiles copies the files of dir into a new directory, as a process crash would leave them
// (no close, no sync).
func copyFiles(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || e.Name() == "LOCK" {
			continue
		}
		src, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
	return out
}

// A commit stays in memory, in the pending group and then as a journal record, until Flush
// (the server calls it before it sends replies); after it, a crash of the process keeps the
// write.
func TestJournalRecordsReachTheFileWhenFlushed(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, DisableBackgrnd: true, Fsync: "no"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	j := s.disk.stor.journal.Load()
	if j == nil {
		t.Fatal("no buffered journal")
	}
	before := j.appended.Load()
	write(t, s, 0, "k", func(tx *Txn) error { return tx.SetString([]byte("k"), []byte("v1"), 0) })
	if j.appended.Load() != before {
		t.Fatalf("appended %d, then %d: the commit went to LevelDB at once", before, j.appended.Load())
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if j.flushed.Load() != j.appended.Load() {
		t.Fatalf("appended %d, flushed %d after Flush", j.appended.Load(), j.flushed.Load())
	}
	write(t, s, 0, "k", func(tx *Txn) error { return tx.SetString([]byte("k"), []byte("v2"), 0) })

	// A crash now: the copy has the flushed write, not the later one.
	crashed := copyFiles(t, dir)
	c, err := Open(Options{Dir: crashed, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := getString(t, c, 0, "k"); !ok || v != "v1" {
		t.Fatalf("after the crash: %q %v, want the flushed v1", v, ok)
	}
	c.Close()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	crashed = copyFiles(t, dir)
	c, err = Open(Options{Dir: crashed, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v, ok := getString(t, c, 0, "k"); !ok || v != "v2" {
		t.Fatalf("after the second flush and crash: %q %v, want v2", v, ok)
	}
}

// TestJournalSyncLeavesWritesFree checks that the everysec sync of the journal does not hold
// LevelDB's write lock: while the sync waits on the disk (a hook holds it), another commit is
// written to LevelDB and its journal record reaches the file.
func TestJournalSyncLeavesWritesFree(t *testing.T) {
	s := openTest(t, false)
	write(t, s, 0, "a", func(tx *Txn) error { return tx.SetString([]byte("a"), []byte("1"), 0) })
	mustFlush(t, s)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	journalSyncHook = func() {
		once.Do(func() {
			close(entered)
			<-release
		})
	}
	defer func() { journalSyncHook = nil }()
	synced := make(chan error, 1)
	go func() { synced <- s.syncJournal() }()
	<-entered
	flushed := make(chan error, 1)
	go func() {
		tx := s.Begin(0, [][]byte{[]byte("b")}, true)
		if err := tx.SetString([]byte("b"), []byte("2"), 0); err != nil {
			flushed <- err
			return
		}
		if err := tx.Commit(); err != nil {
			flushed <- err
			return
		}
		flushed <- s.Flush()
	}()
	select {
	case err := <-flushed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("a commit waited for the journal sync")
	}
	close(release)
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	if v, ok := getString(t, s, 0, "b"); !ok || v != "2" {
		t.Fatalf("b = %q, %v", v, ok)
	}
}
