package storage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/syndtr/goleveldb/leveldb/opt"
)

// The value-log collector. A sealed file whose garbage (its size minus the live bytes the
// '!vl' index gives it) reaches Options.ValueLogGCRatio of its size is collected: each live
// value is read (checked against its checksum), appended to the active file, and its key's
// pointer is swapped in a transaction that holds the key's lock only to check that the key
// still points at the old record; a key that was overwritten, deleted or renamed meanwhile
// keeps its new state and the copy is left as garbage. Once no live value is left in the file
// and the moves are on disk (value log, then journal), the file is deleted, unless a backup or
// a check is reading a snapshot, in which case a later pass deletes it.

const (
	vlogRecountEvery = 5 * time.Minute // the live-bytes estimates are recounted this often
	vlogMoveBatch    = 64 << 20        // bytes moved between two syncs and pointer swaps
	vlogGCBufMax     = 1 << 20         // the collector keeps a read buffer up to this size
)

func (l *valueLog) gcLoop() {
	defer l.s.wg.Done()
	for l.s.sleep(time.Second) {
		if !l.s.writable() {
			continue // disk.go: the disk refuses writes
		}
		if _, err := l.collect(false); err != nil {
			l.s.log.Warn("value log collector", "err", err)
		}
	}
}

// CollectValueLog runs one pass of the value-log collector at once, after an exact recount of
// the live bytes, and returns the number of files it deleted.
func (s *Store) CollectValueLog() (int, error) { return s.vlog.collect(true) }

func (l *valueLog) collect(force bool) (int, error) {
	l.gcMu.Lock()
	defer l.gcMu.Unlock()
	defer func() {
		if cap(l.gcBuf) > vlogGCBufMax {
			l.gcBuf = nil
		}
	}()
	if force || time.Since(l.lastRecount) > vlogRecountEvery || l.s.dbmapString() != l.lastDBMap {
		lost, err := l.recount()
		if err != nil {
			return 0, err
		}
		for _, e := range lost {
			l.s.log.Error("value log: a live pointer lies outside the files",
				"key", string(e.key), "file", vlogFileName(e.p.file), "offset", e.p.off)
		}
	}
	deleted := 0
	for _, num := range l.candidates() {
		start := time.Now()
		ok, err := l.collectFile(num)
		if err != nil {
			return deleted, err
		}
		if ok {
			deleted++
		}
		if force {
			continue
		}
		// Leave most of the disk to clients: idle twice as long as the work took.
		if !l.s.sleep(max(10*time.Millisecond, 2*time.Since(start))) {
			break
		}
	}
	return deleted, nil
}

// candidates returns the sealed files whose estimated garbage passes the ratio, most garbage
// first.
func (l *valueLog) candidates() []uint32 {
	act := l.actNum.Load()
	type cand struct {
		num     uint32
		garbage int64
	}
	var cs []cand
	l.mu.Lock()
	for num, f := range l.files {
		if num >= act || f.pending.Load() > 0 {
			continue
		}
		size := f.size.Load()
		garbage := size - l.live[num]
		if size == 0 || float64(garbage) >= l.ratio*float64(size) {
			cs = append(cs, cand{num, garbage})
		}
	}
	l.mu.Unlock()
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.garbage > b.garbage:
			return -1
		case a.garbage < b.garbage:
			return 1
		}
		return int(a.num) - int(b.num)
	})
	out := make([]uint32, len(cs))
	for i, c := range cs {
		out[i] = c.num
	}
	return out
}

type vlogMove struct {
	e  vliveEntry
	np vptr
}

// collectFile moves the live values out of file num and deletes it. It reports whether the
// file was deleted.
func (l *valueLog) collectFile(num uint32) (bool, error) {
	f := l.acquire(num)
	if f == nil {
		return false, nil
	}
	defer f.release()
	ents, err := l.vliveEntries(num)
	if err != nil {
		return false, err
	}
	var keep []vliveEntry
	var live int64
	for _, e := range ents {
		if l.s.logicalDB(e.phys) < 0 {
			// A key of a flushed database: nothing can reach it any more.
			if err := l.s.deleteRaw(vliveKey(e.p.file, e.p.off), nil); err != nil {
				return false, err
			}
			continue
		}
		keep = append(keep, e)
		live += e.p.n
	}
	size := f.size.Load()
	l.mu.Lock()
	if l.files[num] != nil {
		l.live[num] = live
	}
	l.mu.Unlock()
	if live > 0 && float64(size-live) < l.ratio*float64(size) {
		return false, nil
	}
	var moves []vlogMove
	var pending int64
	for i, e := range keep {
		np, err := l.copyValue(e)
		if err != nil {
			if errors.Is(err, ErrValueLog) {
				// The file is damaged: keep it, and every value in it, for an operator.
				l.s.log.Error("value log: cannot move a damaged value; keeping the file",
					"key", string(e.key), "err", err)
				return false, nil
			}
			return false, err
		}
		moves = append(moves, vlogMove{e, np})
		pending += e.p.n
		if pending >= vlogMoveBatch || i == len(keep)-1 {
			// The copies reach the disk before any pointer to them is committed.
			if err := l.syncNow(); err != nil {
				return false, err
			}
			for _, mv := range moves {
				if err := l.swap(mv); err != nil {
					return false, err
				}
			}
			moves, pending = moves[:0], 0
		}
	}
	if f.pending.Load() > 0 {
		return false, nil // a pointer into the file is about to be committed: the next pass retries
	}
	if left, err := l.vliveEntries(num); err != nil || len(left) > 0 {
		return false, err // renamed meanwhile, or a keyspace remapped: the next pass retries
	}
	// The swaps reach the disk before the file goes: value log first, then the journal.
	if err := l.syncNow(); err != nil {
		return false, err
	}
	if err := l.s.putRaw(sysSync, nil, &opt.WriteOptions{Sync: true}); err != nil {
		return false, err
	}
	return l.remove(f), nil
}

// copyValue appends a copy of e's value to the active file, a chunk at a time, and checks it
// against e's checksum on the way (ErrValueLog when it does not match, and the copy is
// dropped).
func (l *valueLog) copyValue(e vliveEntry) (vptr, error) {
	if cap(l.gcBuf) < int(min(e.p.n, vlogGCBufMax)) {
		l.gcBuf = make([]byte, min(e.p.n, vlogGCBufMax))
	}
	buf := l.gcBuf[:cap(l.gcBuf)]
	src := l.acquire(e.p.file)
	if src == nil {
		return vptr{}, fmt.Errorf("%w: file %s is missing", ErrValueLog, vlogFileName(e.p.file))
	}
	defer src.release()
	if e.p.off+e.p.n > src.size.Load() {
		return vptr{}, fmt.Errorf("%w: %d bytes at %d are past the end of %s", ErrValueLog, e.p.n, e.p.off, vlogFileName(e.p.file))
	}
	sv, err := l.stage(e.phys, e.key, e.p.n)
	if err != nil {
		return vptr{}, err
	}
	// Discard settles the file's pending count; the copy lands in a file that this pass of the
	// collector does not look at, and the next pass comes after the pointer swaps.
	defer sv.Discard()
	for pos := int64(0); pos < e.p.n; {
		chunk := buf[:min(int64(len(buf)), e.p.n-pos)]
		if _, err := src.f.ReadAt(chunk, e.p.off+pos); err != nil {
			return vptr{}, fmt.Errorf("%w: %s: %v", ErrValueLog, vlogFileName(e.p.file), err)
		}
		if _, err := sv.Write(chunk); err != nil {
			return vptr{}, err
		}
		pos += int64(len(chunk))
	}
	if e.p.n == 0 {
		sv.Write(nil)
	}
	if err := sv.Err(); err != nil {
		return vptr{}, err
	}
	if sv.p.crc != e.p.crc {
		// The copy stays as an unreferenced record: garbage.
		return vptr{}, fmt.Errorf("%w: checksum mismatch for %d bytes at %d in %s", ErrValueLog, e.p.n, e.p.off, vlogFileName(e.p.file))
	}
	return sv.p, nil
}

// swap points the key of mv.e at its copy mv.np if the key still holds the old record.
func (l *valueLog) swap(mv vlogMove) error {
	e := mv.e
	db := l.s.logicalDB(e.phys)
	if db < 0 {
		return nil
	}
	t := l.s.Begin(db, [][]byte{e.key}, true)
	if t.phys != e.phys {
		t.Abort()
		return nil
	}
	k := vliveKey(e.p.file, e.p.off)
	v, found, err := t.get(k)
	if err != nil || !found {
		t.Abort()
		return err
	}
	if cur, ok := decodeVLive(k, v); !ok || cur.phys != e.phys || !bytes.Equal(cur.key, e.key) {
		t.Abort() // renamed: the next pass moves it for its new owner
		return nil
	}
	m, err := t.rawMeta(e.phys, e.key)
	if err != nil {
		t.Abort()
		return err
	}
	if p, ok := vptrOf(m); !ok || p != e.p {
		t.del(k) // a stale index record
		return t.Commit()
	}
	nm := *m
	nm.Value = encodeVPtr(nil, mv.np)
	t.writeMeta(e.phys, e.key, m, &nm)
	return t.Commit()
}

// remove deletes file f unless a backup or a check holds the log, and reports whether it did.
func (l *valueLog) remove(f *vfile) bool {
	l.mu.Lock()
	if l.pins > 0 || l.files[f.num] != f {
		l.mu.Unlock()
		return false
	}
	delete(l.files, f.num)
	delete(l.live, f.num)
	l.mu.Unlock()
	f.removed.Store(true)
	if err := os.Remove(f.path); err != nil {
		l.s.log.Warn("value log: removing a collected file", "file", f.path, "err", err)
	}
	f.release() // the file table's reference
	return true
}
