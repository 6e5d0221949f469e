package tests

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/strata-db/strata/storage"
)

// TestCorruptJournalTail damages the tail of the last journal of a stopped database in several
// ways and reopens it each time: the database opens without help, keeps every record before the
// damage, logs what was dropped, passes the invariant checks and takes writes.
func TestCorruptJournalTail(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, path string, size int64) // path: the last journal
		// dropLogged: LevelDB reports the damage (a cut inside a record header is a clean end).
		dropLogged bool
	}{
		{"truncated mid-record", func(t *testing.T, path string, size int64) {
			if err := os.Truncate(path, size-100); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"checksum mismatch in the last record", func(t *testing.T, path string, size int64) {
			flipByte(t, path, size-10)
		}, true},
		{"garbage appended", func(t *testing.T, path string, size int64) {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(bytes.Repeat([]byte{0xa5, 0x17, 0x00, 0xff}, 300))
			f.Close()
		}, true},
		{"zeroed tail", func(t *testing.T, path string, size int64) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt(make([]byte, 200), size-200)
			f.Close()
		}, true},
		{"manifest garbage (rebuilt by leveldb.Recover)", func(t *testing.T, path string, size int64) {
			manifests, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "MANIFEST-*"))
			if len(manifests) == 0 {
				t.Fatal("no manifest")
			}
			for _, m := range manifests {
				if err := os.WriteFile(m, bytes.Repeat([]byte("garbage!"), 64), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var logBuf syncBuf
			logger := slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelWarn}))
			open := func() *storage.Store {
				st, err := storage.Open(storage.Options{Dir: dir, DisableBackgrnd: true, Logger: logger})
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				return st
			}
			st := open()
			const n = 300
			for i := 0; i < n; i++ {
				key := fmt.Sprintf("k%03d", i)
				txn := st.Begin(0, [][]byte{[]byte(key)}, true)
				if err := txn.SetString([]byte(key), []byte(crashValue(key)), 0); err != nil {
					t.Fatal(err)
				}
				if err := txn.Commit(); err != nil {
					t.Fatal(err)
				}
				if err := st.Flush(); err != nil { // a record per write, as replies make them
					t.Fatal(err)
				}
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			journal, size := lastJournal(t, dir)
			tc.damage(t, journal, size)

			st = open()
			defer st.Close()
			if err := storage.CheckInvariants(st); err != nil {
				t.Fatalf("invariants after recovery: %v", err)
			}
			// A prefix of the writes survives: all but the last few.
			present := 0
			txn := st.Begin(0, nil, false)
			for i := 0; i < n; i++ {
				key := fmt.Sprintf("k%03d", i)
				v, ok, err := txn.GetString([]byte(key))
				if err != nil {
					t.Fatal(err)
				}
				if ok != (i == present) && ok {
					t.Fatalf("%s present after a lost earlier key (not a prefix)", key)
				}
				if ok {
					if string(v) != crashValue(key) {
						t.Fatalf("%s: wrong value after recovery", key)
					}
					present++
				}
			}
			txn.Abort()
			if present < n-10 {
				t.Errorf("only %d of %d records survived damage at the tail", present, n)
			}
			if got := st.DBSize(0); got != int64(present) {
				t.Errorf("DBSIZE %d, %d keys present", got, present)
			}
			logged := logBuf.String()
			if tc.dropLogged && !strings.Contains(logged, "leveldb recovery") {
				t.Errorf("recovery dropped records without a warning; log:\n%s", logged)
			}
			t.Logf("%d of %d records kept; log:\n%s", present, n, logged)
			// Writable.
			txn = st.Begin(0, [][]byte{[]byte("after")}, true)
			if err := txn.SetString([]byte("after"), []byte("x"), 0); err != nil {
				t.Fatal(err)
			}
			if err := txn.Commit(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// lastJournal returns the newest LevelDB journal (*.log) in dir and its size.
func lastJournal(t *testing.T, dir string) (string, int64) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	sort.Strings(logs)
	for i := len(logs) - 1; i >= 0; i-- {
		if fi, err := os.Stat(logs[i]); err == nil && fi.Size() > 1000 {
			return logs[i], fi.Size()
		}
	}
	t.Fatalf("no journal with data in %s: %v", dir, logs)
	return "", 0
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := []byte{0}
	f.ReadAt(b, off)
	b[0] ^= 0x5a
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestJournalPreallocated checks that LevelDB's journal and manifest get their space reserved
// when they are created (so that a full disk fails the creation of the next journal, which
// LevelDB retries, rather than an append, which it does not recover from), without a change to
// their size, which is what recovery reads.
func TestJournalPreallocated(t *testing.T) {
	dir := t.TempDir()
	probe, err := os.Create(filepath.Join(dir, "probe"))
	if err != nil {
		t.Fatal(err)
	}
	err = syscall.Fallocate(int(probe.Fd()), 1 /* KEEP_SIZE */, 0, 4096)
	probe.Close()
	os.Remove(probe.Name())
	if err != nil {
		t.Skipf("the file system of %s cannot preallocate (%v): Strata runs without preallocation there", dir, err)
	}
	st, err := storage.Open(storage.Options{Dir: dir, DisableBackgrnd: true, WriteBuffer: 1 << 20,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, glob := range []string{"*.log", "MANIFEST-*"} {
		files, _ := filepath.Glob(filepath.Join(dir, glob))
		if len(files) == 0 {
			t.Fatalf("no %s in %s", glob, dir)
		}
		sort.Strings(files)
		fi, err := os.Stat(files[len(files)-1])
		if err != nil {
			t.Fatal(err)
		}
		allocated := fi.Sys().(*syscall.Stat_t).Blocks * 512
		if allocated < 2<<20 || fi.Size() > 64<<10 {
			t.Errorf("%s: %d bytes long, %d allocated; want a short file with at least 2 MiB reserved",
				filepath.Base(files[len(files)-1]), fi.Size(), allocated)
		}
	}
}
