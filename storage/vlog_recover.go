package storage

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"time"

	"github.com/syndtr/goleveldb/leveldb/util"
)

// Recovery of the value log after an unclean shutdown, and the recount of each file's live bytes.

// recoverFile checks every record of f and truncates f after the last good one. A staged
// record that is whole but whose value does not match its trailer (a transfer cut short) is
// skipped and remembered in l.bad, so that a pointer into it counts as lost.
func (l *valueLog) recoverFile(f *vfile) error {
	size := f.size.Load()
	valid := int64(0)
	hdr := make([]byte, vlogRecHeader)
	buf := make([]byte, 1<<20)
	var bad []vrange
	for valid < size {
		n, st := checkRecord(f.f, valid, size, hdr, buf)
		if st == recTorn {
			break
		}
		if st == recBad {
			bad = append(bad, vrange{f.num, valid, valid + n})
		}
		valid += n
	}
	// Incomplete staged records at the end go with the tail.
	for len(bad) > 0 && bad[len(bad)-1].end == valid {
		valid = bad[len(bad)-1].start
		bad = bad[:len(bad)-1]
	}
	for _, r := range bad {
		l.s.log.Warn("value log: skipping an incomplete staged value", "file", f.path, "offset", r.start)
	}
	l.bad = append(l.bad, bad...)
	if valid == size {
		return nil
	}
	l.s.log.Warn("value log: dropping a torn tail", "file", f.path, "size", size, "valid", valid)
	if err := f.f.Truncate(valid); err != nil {
		return err
	}
	if err := f.f.Sync(); err != nil {
		return err
	}
	f.size.Store(valid)
	return nil
}

// vrange is a byte range of a value-log file.
type vrange struct {
	file       uint32
	start, end int64
}

// Outcomes of checkRecord.
const (
	recOK   = iota
	recBad  // a whole staged record whose value fails its trailer: garbage, the file goes on
	recTorn // the file's valid data ends here
)

// checkRecord verifies the record at off (the file holding size bytes) and returns its length.
func checkRecord(r io.ReaderAt, off, size int64, hdr, buf []byte) (int64, int) {
	if size-off < vlogRecHeader {
		return 0, recTorn
	}
	if _, err := r.ReadAt(hdr, off); err != nil {
		return 0, recTorn
	}
	keyLen := int64(binary.BigEndian.Uint32(hdr[8:]))
	staged := keyLen&vlogStreamFlag != 0
	keyLen &^= vlogStreamFlag
	valLen := binary.BigEndian.Uint64(hdr[12:])
	trail := int64(0)
	if staged {
		trail = vlogStreamTrail
	}
	if keyLen > vlogMaxKey || valLen > uint64(size) || int64(valLen) > size-off-vlogRecHeader-keyLen-trail {
		return 0, recTorn
	}
	key := make([]byte, keyLen)
	if _, err := r.ReadAt(key, off+vlogRecHeader); err != nil {
		return 0, recTorn
	}
	h := crc32.Update(crc32.Checksum(hdr[4:], castagnoli), castagnoli, key)
	if h != binary.BigEndian.Uint32(hdr) {
		return 0, recTorn
	}
	var crc uint32
	pos, end := off+vlogRecHeader+keyLen, off+vlogRecHeader+keyLen+int64(valLen)
	for pos < end {
		chunk := buf[:min(int64(len(buf)), end-pos)]
		if _, err := r.ReadAt(chunk, pos); err != nil {
			return 0, recTorn
		}
		crc = crc32.Update(crc, castagnoli, chunk)
		pos += int64(len(chunk))
	}
	want := binary.BigEndian.Uint32(hdr[20:])
	if staged {
		var t [vlogStreamTrail]byte
		if _, err := r.ReadAt(t[:], end); err != nil {
			return 0, recTorn
		}
		want = binary.BigEndian.Uint32(t[:])
	}
	if crc != want {
		if staged {
			return end + trail - off, recBad
		}
		return 0, recTorn
	}
	return end + trail - off, recOK
}

// repairAndCount deletes the keys whose values are not in the files (lost in a crash) and
// counts each file's live bytes.
func (l *valueLog) repairAndCount() error {
	lost, err := l.recount()
	if err != nil {
		return err
	}
	if len(lost) > 0 && l.s.disk.readOnly.Load() {
		// Opened read-only (a full disk): the keys are deleted once the store is reopened.
		l.repairPending = true
		l.s.log.Warn("value log: keys whose values were lost in a crash are deleted once the disk has room", "keys", len(lost))
		return nil
	}
	l.repairPending = false
	for _, e := range lost {
		l.s.log.Warn("value log: a key's value was lost in a crash; deleting the key",
			"key", string(e.key), "file", vlogFileName(e.p.file), "offset", e.p.off)
		db := l.s.logicalDB(e.phys)
		if db < 0 {
			if err := l.s.deleteRaw(vliveKey(e.p.file, e.p.off), nil); err != nil {
				return err
			}
			continue
		}
		t := l.s.Begin(db, [][]byte{e.key}, true)
		m, err := t.rawMeta(e.phys, e.key)
		if err != nil {
			t.Abort()
			return err
		}
		if p, ok := vptrOf(m); ok && p == e.p {
			t.writeMeta(e.phys, e.key, m, nil)
		} else {
			t.del(vliveKey(e.p.file, e.p.off))
		}
		if err := t.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// recount walks the live index and sets each file's live bytes; values of flushed keyspaces
// count as garbage. It returns the records whose values lie outside the files.
func (l *valueLog) recount() ([]vliveEntry, error) {
	if err := l.s.Flush(); err != nil { // the index is read from LevelDB
		return nil, err
	}
	var lost []vliveEntry
	live := map[uint32]int64{}
	dbmap := l.s.dbmapString()
	it := l.s.db().NewIterator(util.BytesPrefix(sysVLive), nil)
	for it.Next() {
		e, ok := decodeVLive(it.Key(), it.Value())
		if !ok {
			continue
		}
		var size int64 = -1
		if f := l.acquire(e.p.file); f != nil {
			size = f.size.Load()
			f.release()
		}
		if e.p.off+e.p.n > size || l.inBad(e.p) {
			lost = append(lost, e)
			continue
		}
		if l.s.logicalDB(e.phys) >= 0 {
			live[e.p.file] += e.p.n
		}
	}
	it.Release()
	if err := it.Error(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.live = live
	l.mu.Unlock()
	l.lastRecount = time.Now()
	l.lastDBMap = dbmap
	return lost, nil
}

// inBad reports whether p lies in a staged record that recovery found incomplete.
func (l *valueLog) inBad(p vptr) bool {
	for _, r := range l.bad {
		if r.file == p.file && p.off >= r.start && p.off < r.end {
			return true
		}
	}
	return false
}

// finishRepair runs the repair that a read-only open left for later, if any.
func (l *valueLog) finishRepair() error {
	if !l.repairPending {
		return nil
	}
	l.gcMu.Lock()
	defer l.gcMu.Unlock()
	return l.repairAndCount()
}

// noteError records a failed write to the value log: write commands get MISCONF until a probe
// succeeds. Every append tries the disk again, so the probe needs no memtable flush for it.
func (l *valueLog) noteError(err error) { l.s.noteWriteError(&valueLogError{err}) }
