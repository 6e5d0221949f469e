package storage

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// journalFile returns the path, size and allocated bytes of the only journal in dir.
func journalFile(t *testing.T, dir string) (path string, size, alloc int64) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 1 {
		t.Fatalf("journals %v, want one", logs)
	}
	fi, err := os.Stat(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	return logs[0], fi.Size(), fi.Sys().(*syscall.Stat_t).Blocks * 512
}

// The journal reserves its room in steps as it grows, not the largest journal the write buffer
// allows at once (97 MiB under the default 64 MiB buffer), and a closed journal gives back what
// it did not use: after a full disk, writes need room for themselves.
func TestJournalReservedInSteps(t *testing.T) {
	dir := t.TempDir()
	probe, err := os.Create(filepath.Join(dir, "probe"))
	if err != nil {
		t.Fatal(err)
	}
	err = syscall.Fallocate(int(probe.Fd()), fallocKeepSize, 0, 4096)
	probe.Close()
	os.Remove(probe.Name())
	if err != nil {
		// CI (STRATA_REQUIRE_EXTERNAL=1) runs on a file system that preallocates: fail there.
		if os.Getenv("STRATA_REQUIRE_EXTERNAL") == "1" {
			t.Fatalf("the file system of %s cannot preallocate (%v)", dir, err)
		}
		t.Skipf("the file system of %s cannot preallocate (%v): Strata reserves nothing there", dir, err)
	}
	s, err := Open(Options{Dir: dir, DisableBackgrnd: true, WriteBuffer: 64 << 20, Compression: "none",
		Fsync: "no", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if path, _, alloc := journalFile(t, dir); alloc < journalFirst || alloc > journalFirst+preallocChunk {
		t.Fatalf("%s: a new journal holds %d bytes, want %d", path, alloc, journalFirst)
	}
	value := bytes.Repeat([]byte("v"), 4000)
	for i := 0; i < 4000; i++ { // about 16 MiB
		key := fmt.Sprintf("k%05d", i)
		write(t, s, 0, key, func(tx *Txn) error { return tx.SetString([]byte(key), value, 0) })
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	path, size, alloc := journalFile(t, dir)
	if size < 15<<20 || alloc < size+journalAhead/2 || alloc > size+journalAhead+2*preallocChunk {
		t.Errorf("%s: %d bytes long, %d allocated; want %d to %d reserved past its end", path, size, alloc, journalAhead/2, journalAhead)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if path, size, alloc := journalFile(t, dir); alloc > size+preallocChunk {
		t.Errorf("%s: closed, %d bytes long, still holds %d", path, size, alloc)
	}
}
