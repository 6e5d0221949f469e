package storage

import (
	"os"
	"path/filepath"
	"testing"
)

// stage writes v into a staged value in chunks of chunk bytes, stopping after upTo bytes.
func stage(t testing.TB, s *Store, db int, k string, v []byte, chunk, upTo int) *StagedValue {
	t.Helper()
	sv, err := s.StageValue(db, []byte(k), int64(len(v)))
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < upTo; off += chunk {
		if _, err := sv.Write(v[off:min(off+chunk, upTo)]); err != nil {
			t.Fatal(err)
		}
	}
	return sv
}

// stageStore opens a store for the value-log tests with files of fileSize bytes.
func stageStore(t *testing.T, fileSize int64) (string, Options, *Store) {
	t.Helper()
	dir := t.TempDir()
	o := vlogOptions(dir)
	o.ValueLogFileSize = fileSize
	return dir, o, vlogOpen(t, o)
}

func TestStagedValueIsStoredAndRead(t *testing.T) {
	for _, fsync := range []string{"always", "everysec", "no"} {
		t.Run(fsync, func(t *testing.T) {
			dir := t.TempDir()
			o := vlogOptions(dir)
			o.Fsync = fsync
			s := vlogOpen(t, o)
			defer s.Close()
			if s.CanStage(1023) || !s.CanStage(1024) {
				t.Fatal("CanStage does not follow the threshold")
			}
			v := vlogValue("k", 1, 100000)
			vlogSet(t, s, 0, "k", vlogValue("k", 0, 5000), 0) // an old value to replace
			sv := stage(t, s, 0, "k", v, 7000, len(v))
			if err := sv.Err(); err != nil {
				t.Fatal(err)
			}
			write(t, s, 0, "k", func(tx *Txn) error { return tx.SetStaged([]byte("k"), sv, 0) })
			sv.Discard() // after SetStaged: nothing
			vlogExpect(t, s, 0, "k", v)
			if m := vlogMeta(t, s, 0, "k"); m.StringLen() != len(v) {
				t.Fatalf("STRLEN %d", m.StringLen())
			}
			if n := vlogLiveRecords(t, s); n != 1 {
				t.Fatalf("%d live records, want 1", n)
			}
			vlogCheck(t, s)
			// The value survives a reopen, clean and unclean.
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(dir, vlogDirName, vlogCleanName))
			s = vlogOpen(t, o)
			vlogExpect(t, s, 0, "k", v)
			vlogCheck(t, s)
		})
	}
}

func TestStagedValueRefusesMisuse(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	if _, err := s.StageValue(0, []byte("k"), 10); err == nil {
		t.Fatal("a value under the threshold was staged")
	}
	v := vlogValue("k", 1, 4096)
	sv := stage(t, s, 0, "k", v, 1000, 3000) // incomplete
	tx := s.Begin(0, [][]byte{[]byte("k")}, true)
	if err := tx.SetStaged([]byte("k"), sv, 0); err != ErrStageAborted {
		t.Fatalf("SetStaged of an incomplete value: %v", err)
	}
	tx.Abort()
	if _, err := sv.Write(make([]byte, 2000)); err == nil {
		t.Fatal("a write past the value's length was accepted")
	}
	sv.Discard()
	sv.Discard()
	vlogExpect(t, s, 0, "k", nil)
	vlogCheck(t, s)
}

func TestStagedValueDiscardLeavesGarbageOrNothing(t *testing.T) {
	_, _, s := stageStore(t, 1<<20)
	defer s.Close()
	// At the file's tail, a dropped value is cut off.
	v := vlogValue("a", 1, 20000)
	sv := stage(t, s, 0, "a", v, 5000, 10000)
	f := s.vlog.active
	before := sv.rec
	sv.Discard()
	if f.size.Load() != before {
		t.Fatalf("file size %d after discarding its tail record, want %d", f.size.Load(), before)
	}
	if f.pending.Load() != 0 || f.writing.Load() != 0 {
		t.Fatalf("pending %d writing %d after Discard", f.pending.Load(), f.writing.Load())
	}
	// Complete but not stored: the record stays as garbage, and a value appended meanwhile
	// is unharmed.
	sv = stage(t, s, 0, "a", v, 5000, 10000)
	vlogSet(t, s, 0, "b", vlogValue("b", 1, 3000), 0)
	sv.Write(v[10000:])
	if sv.Err() != nil {
		t.Fatal(sv.Err())
	}
	sv.Discard()
	vlogExpect(t, s, 0, "a", nil)
	vlogExpect(t, s, 0, "b", vlogValue("b", 1, 3000))
	vlogCheck(t, s)
}

// A crash during a transfer leaves a staged record with a bad trailer: in the middle of a file
// recovery skips it and keeps the records after it; at the tail it is cut off.
func TestStagedValueCutByACrash(t *testing.T) {
	dir, o, s := stageStore(t, 1<<20)
	a, b := vlogValue("a", 1, 30000), vlogValue("b", 1, 8000)
	svA := stage(t, s, 0, "a", a, 4096, 12000) // cut short
	vlogSet(t, s, 0, "b", b, 0)                // lands after a's reserved extent
	svTail := stage(t, s, 0, "c", vlogValue("c", 1, 30000), 4096, 5000)
	path := filepath.Join(dir, vlogDirName, vlogFileName(svA.f.num))
	tailStart := svTail.rec
	// The crash: the transfers never end and the CLEAN marker is missing. (The file is not
	// marked sealed while transfers into it go on, so the recovery checks it.)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, vlogDirName, vlogCleanName))
	s = vlogOpen(t, o)
	defer s.Close()
	vlogExpect(t, s, 0, "b", b)
	vlogExpect(t, s, 0, "a", nil)
	st, err := os.Stat(path)
	if err != nil || st.Size() != tailStart {
		t.Fatalf("file after recovery: %v, size %d, want %d (the torn tail cut off)", err, st.Size(), tailStart)
	}
	if len(s.vlog.bad) != 1 {
		t.Fatalf("recovery found %d incomplete staged records, want 1", len(s.vlog.bad))
	}
	vlogCheck(t, s)
	// Writes go on after the good records, staged or not.
	c := vlogValue("c", 2, 30000)
	sv := stage(t, s, 0, "c", c, 9999, len(c))
	write(t, s, 0, "c", func(tx *Txn) error { return tx.SetStaged([]byte("c"), sv, 0) })
	vlogExpect(t, s, 0, "c", c)
	vlogCheck(t, s)
}

// The collector leaves alone a file holding a value whose pointer is not committed yet.
func TestStagedValueHoldsItsFileFromTheCollector(t *testing.T) {
	_, _, s := stageStore(t, 16<<10)
	defer s.Close()
	v := vlogValue("k", 1, 20000)
	sv := stage(t, s, 0, "k", v, 20000, len(v))
	num := sv.f.num
	// Seal the file (the next write starts another) and make the staged file look collectable.
	vlogSet(t, s, 0, "x", vlogValue("x", 1, 2000), 0)
	if s.vlog.actNum.Load() == num {
		t.Fatal("the staged file is still active")
	}
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	if s.vlog.acquire(num) == nil {
		t.Fatal("the collector deleted a file holding a staged value")
	}
	s.vlog.files[num].release()
	write(t, s, 0, "k", func(tx *Txn) error { return tx.SetStaged([]byte("k"), sv, 0) })
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	vlogExpect(t, s, 0, "k", v)
	vlogCheck(t, s)
}

// The collector copies values a chunk at a time, checking each against its pointer's checksum:
// a good value larger than the chunk moves intact; a damaged one keeps its file.
func TestVLogCollectorCopiesInChunksAndKeepsDamagedFiles(t *testing.T) {
	dir, _, s := stageStore(t, 4<<20)
	defer s.Close()
	big := vlogValue("big", 1, vlogGCBufMax*2+12345)
	vlogSet(t, s, 0, "big", big, 0)
	vlogSet(t, s, 0, "dead", vlogValue("dead", 1, 3<<20), 0)
	vlogSet(t, s, 0, "dead", nil, 0) // the file is now mostly garbage
	p0, _ := vptrOf(vlogMeta(t, s, 0, "big"))
	s.vlog.appendMu.Lock()
	s.vlog.rotate = true // seal the file
	s.vlog.appendMu.Unlock()
	vlogSet(t, s, 0, "x", vlogValue("x", 1, 2000), 0)
	if n, err := s.CollectValueLog(); err != nil || n != 1 {
		t.Fatalf("collector deleted %d files (%v), want 1", n, err)
	}
	p1, _ := vptrOf(vlogMeta(t, s, 0, "big"))
	if p1.file == p0.file {
		t.Fatal("the live value was not moved")
	}
	vlogExpect(t, s, 0, "big", big)
	vlogCheck(t, s)

	// Damage the moved value, make its file collectable, and collect: the file stays.
	vlogSet(t, s, 0, "dead2", vlogValue("dead2", 1, 3<<20), 0)
	vlogSet(t, s, 0, "dead2", nil, 0)
	path := filepath.Join(dir, vlogDirName, vlogFileName(p1.file))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{^big[vlogGCBufMax+7]}, p1.off+vlogGCBufMax+7)
	f.Close()
	s.vlog.appendMu.Lock()
	s.vlog.rotate = true
	s.vlog.appendMu.Unlock()
	vlogSet(t, s, 0, "y", vlogValue("y", 1, 2000), 0)
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the file holding a damaged value was deleted: %v", err)
	}
	if p2, _ := vptrOf(vlogMeta(t, s, 0, "big")); p2 != p1 {
		t.Fatal("a damaged value was moved")
	}
}
