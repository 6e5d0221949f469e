package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestVLogRenameMovesOwnership(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	v := vlogValue("src", 1, 8000)
	vlogSet(t, s, 0, "src", v, 0)
	vlogSet(t, s, 0, "dst", vlogValue("dst", 1, 8000), 0) // replaced by the rename
	write(t, s, 0, "src", func(tx *Txn) error { _, err := tx.Rename([]byte("src"), []byte("dst")); return err })
	vlogExpect(t, s, 0, "dst", v)
	vlogExpect(t, s, 0, "src", nil)
	vlogCheck(t, s)
	// Make the file all garbage but dst, then collect: dst's value moves and stays readable.
	for i := 0; i < 30; i++ {
		vlogSet(t, s, 0, "churn", vlogValue("churn", i, 8000), 0)
	}
	files := len(vlogFiles(t, s.opts.Dir))
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	if n := len(vlogFiles(t, s.opts.Dir)); n >= files {
		t.Fatalf("%d files before collecting, %d after", files, n)
	}
	vlogExpect(t, s, 0, "dst", v)
	vlogCheck(t, s)
	// And across databases (MOVE).
	tx := s.BeginExclusive(0)
	if _, err := tx.RenameIn(0, []byte("dst"), 1, []byte("moved")); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	vlogExpect(t, s, 1, "moved", v)
	vlogCheck(t, s)
}

func TestVLogPointerHeldByAnotherKeyIsCopied(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	v := vlogValue("a", 1, 6000)
	vlogSet(t, s, 0, "a", v, 0)
	m := vlogMeta(t, s, 0, "a")
	write(t, s, 0, "b", func(tx *Txn) error { return tx.PutMeta([]byte("b"), m) })
	mb := vlogMeta(t, s, 0, "b")
	if bytes.Equal(mb.Value, m.Value) {
		t.Fatal("two keys share one value-log pointer")
	}
	vlogCheck(t, s)
	write(t, s, 0, "a", func(tx *Txn) error { _, err := tx.Delete([]byte("a")); return err })
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	vlogExpect(t, s, 0, "b", v)
	vlogCheck(t, s)
}

func TestVLogFlushedDatabaseIsCollected(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	for i := 0; i < 40; i++ {
		vlogSet(t, s, 0, fmt.Sprint("k", i), vlogValue("k", i, 8000), 0)
	}
	vlogSet(t, s, 1, "keep", vlogValue("keep", 1, 8000), 0)
	tx := s.BeginExclusive(0)
	tx.FlushDB(0)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Collect(); err != nil { // the keyspace's metadata
		t.Fatal(err)
	}
	// Seal the file the flushed values share with the first writes after the flush.
	for i := 0; i < 9; i++ {
		vlogSet(t, s, 1, fmt.Sprint("fill", i), vlogValue("fill", i, 8000), 0)
	}
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	st := s.ValueLogStats()
	// Each sealed file left is at most half garbage (the ratio); the active file may be more.
	if st.LiveBytes != 10*8000 || st.Bytes > 2*st.LiveBytes+(64<<10) {
		t.Fatalf("value log after FLUSHDB and collection: %+v", st)
	}
	vlogExpect(t, s, 1, "keep", vlogValue("keep", 1, 8000))
	vlogCheck(t, s)
}

// TestVLogCollectorWithConcurrentWriters runs writers (sets of every size, deletes, renames,
// short expiries) against the collector, and checks every key against a model.
func TestVLogCollectorWithConcurrentWriters(t *testing.T) {
	o := vlogOptions(t.TempDir())
	o.LargeValueThreshold = 256
	o.ValueLogFileSize = 32 << 10
	o.Fsync = "everysec"
	s := vlogOpen(t, o)
	defer s.Close()
	const writers, keys = 4, 12
	ops := 400
	if testing.Short() {
		ops = 100
	}
	models := make([]map[string][]byte, writers)
	stop := make(chan struct{})
	var gcRuns, gcDeleted int
	var gcErr error
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			n, err := s.CollectValueLog()
			if err != nil {
				gcErr = err
				return
			}
			gcRuns++
			gcDeleted += n
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		model := map[string][]byte{}
		models[w] = model
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			name := func(i int) string { return fmt.Sprintf("w%d-k%d", w, i) }
			for op := 0; op < ops; op++ {
				k := name(r.IntN(keys))
				switch x := r.IntN(10); {
				case x < 6:
					v := vlogValue(k, op, 100+r.IntN(3000))
					vlogSet(t, s, 0, k, v, 0)
					model[k] = v
				case x < 7:
					write(t, s, 0, k, func(tx *Txn) error { _, err := tx.Delete([]byte(k)); return err })
					delete(model, k)
				case x < 9:
					dst := name(r.IntN(keys))
					tx := s.Begin(0, [][]byte{[]byte(k), []byte(dst)}, true)
					ok, err := tx.Rename([]byte(k), []byte(dst))
					if err == nil {
						err = tx.Commit()
					} else {
						tx.Abort()
					}
					if err != nil {
						t.Error(err)
						return
					}
					if ok && k != dst {
						model[dst] = model[k]
						delete(model, k)
					}
				default:
					// Expires within the run; the model forgets it, reads must not see it later.
					vlogSet(t, s, 0, k, vlogValue(k, op, 2000), time.Now().UnixMilli()+1)
					delete(model, k)
				}
			}
		}()
	}
	wg.Wait()
	time.Sleep(5 * time.Millisecond) // every short expiry has passed
	close(stop)
	<-gcDone
	if gcErr != nil {
		t.Fatal(gcErr)
	}
	for w := 0; w < writers; w++ {
		for i := 0; i < keys; i++ {
			k := fmt.Sprintf("w%d-k%d", w, i)
			vlogExpect(t, s, 0, k, models[w][k])
		}
	}
	vlogCheck(t, s)
	if _, err := s.ExpireStep(10000); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	vlogCheck(t, s)
	var live int64
	for _, m := range models {
		for _, v := range m {
			if len(v) >= 256 {
				live += int64(len(v))
			}
		}
	}
	st := s.ValueLogStats()
	t.Logf("%d collector passes deleted %d files; value log now %+v, model's large values %d bytes",
		gcRuns, gcDeleted, st, live)
	if st.LiveBytes != live {
		t.Fatalf("live bytes %d, the model's large values %d", st.LiveBytes, live)
	}
	// What is left: live values, records of keys in files under the ratio, and the active file.
	if st.Bytes > 2*live+2*o.ValueLogFileSize+4096 {
		t.Fatalf("value log holds %d bytes for %d live", st.Bytes, live)
	}
	if gcDeleted == 0 {
		t.Fatal("the collector deleted no file")
	}
}

func TestVLogBackupIncludesTheValueLog(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	for i := 0; i < 30; i++ {
		vlogSet(t, s, 0, fmt.Sprint("before", i), vlogValue("before", i, 7000), 0)
	}
	dst := filepath.Join(t.TempDir(), "backup")
	done := make(chan error, 1)
	if err := s.StartBackup(dst, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	// Writes and a collection after the snapshot change nothing in the backup.
	for i := 0; i < 30; i++ {
		vlogSet(t, s, 0, fmt.Sprint("before", i), vlogValue("after", i, 7000), 0)
		vlogSet(t, s, 0, fmt.Sprint("after", i), vlogValue("after", i, 7000), 0)
	}
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b := vlogOpen(t, Options{Dir: dst, Databases: 4, DisableBackgrnd: true})
	defer b.Close()
	for i := 0; i < 30; i++ {
		vlogExpect(t, b, 0, fmt.Sprint("before", i), vlogValue("before", i, 7000))
		vlogExpect(t, b, 0, fmt.Sprint("after", i), nil)
	}
	vlogCheck(t, b)
	// The collector now deletes what the backup held on to.
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		vlogExpect(t, s, 0, fmt.Sprint("before", i), vlogValue("after", i, 7000))
	}
	vlogCheck(t, s)
}

func TestVLogPinHoldsFileDeletion(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	for i := 0; i < 20; i++ {
		vlogSet(t, s, 0, "k", vlogValue("k", i, 8000), 0)
	}
	files := len(vlogFiles(t, s.opts.Dir))
	s.vlog.pin()
	if n, err := s.CollectValueLog(); err != nil || n != 0 {
		t.Fatalf("pinned: CollectValueLog = %d, %v", n, err)
	}
	if n := len(vlogFiles(t, s.opts.Dir)); n != files {
		t.Fatalf("pinned: %d files, had %d", n, files)
	}
	s.vlog.unpin()
	if n, err := s.CollectValueLog(); err != nil || n == 0 {
		t.Fatalf("unpinned: CollectValueLog = %d, %v", n, err)
	}
	vlogExpect(t, s, 0, "k", vlogValue("k", 19, 8000))
}

func TestVLogInvariantsCatchABadChecksum(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	v := vlogValue("k", 1, 5000)
	vlogSet(t, s, 0, "k", v, 0)
	vlogCheck(t, s)
	path, _, p := vlogRecordOf(t, s, "k")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{^v[100]}, p.off+100)
	f.Close()
	err = CheckInvariants(s)
	if err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("CheckInvariants = %v, want a checksum violation", err)
	}
	tx := s.Begin(0, [][]byte{[]byte("k")}, false)
	_, _, err = tx.GetString([]byte("k"))
	tx.Abort()
	if !errors.Is(err, ErrValueLog) {
		t.Fatalf("GET of a damaged value: %v", err)
	}
	// A dangling index record and a pointer without one are caught too.
	if err := s.db().Put(vliveKey(99, 24), vliveValue(vptr{file: 99, off: 24, n: 5, crc: 1}, s.dbmap[0], []byte("ghost")), nil); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(s); err == nil || !strings.Contains(err.Error(), "ghost") {
		t.Fatalf("CheckInvariants = %v, want the stray index record", err)
	}
}

func TestVLogMissingFileDropsItsKeys(t *testing.T) {
	dir := t.TempDir()
	o := vlogOptions(dir)
	s := vlogOpen(t, o)
	for i := 0; i < 20; i++ {
		vlogSet(t, s, 0, fmt.Sprint("k", i), vlogValue("k", i, 8000), 0)
	}
	last, _, _ := vlogRecordOf(t, s, "k19")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A crash that lost the newest file altogether (its directory entry never reached the disk).
	os.Remove(filepath.Join(dir, vlogDirName, vlogCleanName))
	if err := os.Remove(last); err != nil {
		t.Fatal(err)
	}
	s = vlogOpen(t, o)
	defer s.Close()
	kept := 0
	for i := 0; i < 20; i++ {
		k := fmt.Sprint("k", i)
		if m := vlogMeta(t, s, 0, k); m != nil {
			vlogExpect(t, s, 0, k, vlogValue("k", i, 8000))
			kept++
		}
	}
	if kept == 0 || kept == 20 || s.DBSize(0) != int64(kept) {
		t.Fatalf("%d keys kept, DBSIZE %d", kept, s.DBSize(0))
	}
	vlogCheck(t, s)
	vlogSet(t, s, 0, "new", vlogValue("new", 1, 8000), 0)
	vlogExpect(t, s, 0, "new", vlogValue("new", 1, 8000))
}

// TestSetFsync switches appendfsync while the store runs: commits then sync the journal, and
// a value-log write syncs its file, covering what was written before under "no".
func TestSetFsync(t *testing.T) {
	o := vlogOptions(t.TempDir())
	o.Fsync = "no"
	s := vlogOpen(t, o)
	defer s.Close()
	for i := 0; i < 5; i++ {
		vlogSet(t, s, 0, fmt.Sprint("k", i), vlogValue("k", i, 9000), 0)
	}
	if s.vlog.unsynced() == 0 || s.fsync.writeOptions().Sync {
		t.Fatalf("appendfsync no: %d bytes unsynced, commit sync %v", s.vlog.unsynced(), s.fsync.writeOptions().Sync)
	}
	s.SetFsync("always")
	if s.Fsync() != "always" || !s.fsync.writeOptions().Sync {
		t.Fatalf("after SetFsync(always): policy %q, commit sync %v", s.Fsync(), s.fsync.writeOptions().Sync)
	}
	vlogSet(t, s, 0, "k5", vlogValue("k", 5, 9000), 0)
	if n := s.vlog.unsynced(); n != 0 {
		t.Fatalf("%d bytes unsynced after a write under appendfsync always", n)
	}
	s.SetFsync("everysec")
	if s.fsync.writeOptions().Sync {
		t.Fatal("commits still sync after SetFsync(everysec)")
	}
}
