package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Staged values: a large string written to the value log while it arrives from the client,
// before the command that stores it runs. The server reads a large SET payload from the socket
// in chunks and writes each chunk to the log, so the value is never held in memory whole and
// its disk write overlaps its transfer; the command then commits a pointer to it (SetStaged)
// or drops it (Discard), which leaves the record as garbage.
//
// A staged record has the usual header, written first with the key and the value's length,
// but its keyLen carries vlogStreamFlag and its vcrc field is 0: the value's CRC-32C follows the
// value in a 4-byte trailer, written once the value is complete. A recovery that finds such a
// record whose trailer does not match (the client went away, or a crash cut the transfer) skips
// it as garbage when the file goes on after it, and truncates it when it is the file's tail.

const (
	vlogStreamFlag  = 1 << 31
	vlogStreamTrail = 4
	// stageWriteback: every this many bytes of a staged value, the kernel is asked to start
	// writing them out (unless appendfsync is no).
	stageWriteback = 2 << 20
)

// ErrStageAborted reports a staged value whose transfer did not complete.
var ErrStageAborted = errors.New("storage: staged value incomplete")

// StagedValue is a value being written to the value log as it arrives. It is used by one
// goroutine at a time.
type StagedValue struct {
	l       *valueLog
	f       *vfile
	rec     int64 // where the record starts
	p       vptr  // the value's pointer; p.crc is set once the value is complete
	written int64
	wb      int64 // bytes whose writeback was started
	crc     uint32
	err     error
	done    bool // the trailer is written: the record is complete
	owned   bool // a transaction or Discard has taken over the file's pending count
}

// CanStage reports whether a string of n bytes would be stored in the value log.
func (s *Store) CanStage(n int64) bool {
	l := s.vlog
	return l != nil && l.threshold > 0 && n >= int64(l.threshold)
}

// StageValue reserves room in the value log for an n-byte value of key in logical database db
// and returns the value to be written with Write. The caller ends it with SetStaged or Discard.
func (s *Store) StageValue(db int, key []byte, n int64) (*StagedValue, error) {
	l := s.vlog
	if !s.CanStage(n) || len(key) > vlogMaxKey {
		return nil, fmt.Errorf("storage: a value of %d bytes is not staged", n)
	}
	l.staged.Add(1)
	s.global.RLock()
	phys := uint32(0)
	if db >= 0 && db < len(s.dbmap) {
		phys = s.dbmap[db] // the header's owner is informational: a later SELECT may change it
	}
	s.global.RUnlock()
	return l.stage(phys, key, n)
}

// stage reserves room for an n-byte value of key in phys at the end of the active file.
func (l *valueLog) stage(phys uint32, key []byte, n int64) (*StagedValue, error) {
	hdr := make([]byte, vlogRecHeader, vlogRecHeader+len(key))
	binary.BigEndian.PutUint32(hdr[4:], phys)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(key))|vlogStreamFlag)
	binary.BigEndian.PutUint64(hdr[12:], uint64(n))
	hdr = append(hdr, key...)
	binary.BigEndian.PutUint32(hdr, crc32.Checksum(hdr[4:], castagnoli))
	total := int64(len(hdr)) + n + vlogStreamTrail

	l.appendMu.Lock()
	defer l.appendMu.Unlock()
	f, err := l.activeFor()
	if err != nil {
		return nil, err
	}
	off := f.size.Load()
	// The file is extended to the record's end at once, so that appends after it, backups and
	// recovery all see its whole extent (unwritten bytes read as zeros).
	if _, err = f.f.WriteAt(hdr, off); err == nil {
		err = f.f.Truncate(off + total)
	}
	if err != nil {
		l.noteError(err)
		f.f.Truncate(off)
		return nil, err
	}
	f.size.Store(off + total)
	f.pending.Add(1)
	f.writing.Add(1)
	f.refs.Add(1)
	return &StagedValue{l: l, f: f, rec: off,
		p: vptr{file: f.num, off: off + int64(len(hdr)), n: n}}, nil
}

// Len returns the value's length.
func (v *StagedValue) Len() int64 { return v.p.n }

// Write appends the next bytes of the value. Bytes past the value's length are an error. After
// a failed write the value can only be discarded; Write keeps reporting the error.
func (v *StagedValue) Write(b []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	if v.done || int64(len(b)) > v.p.n-v.written {
		v.err = errors.New("storage: staged value overrun")
		return 0, v.err
	}
	l := v.l
	if l.fsync.get() == "everysec" {
		l.waitBudget(int64(len(b)))
	}
	if _, err := v.f.f.WriteAt(b, v.p.off+v.written); err != nil {
		l.noteError(err)
		v.err = err
		return 0, err
	}
	v.crc = crc32.Update(v.crc, castagnoli, b)
	v.written += int64(len(b))
	if l.fsync.get() != "no" && (v.written-v.wb >= stageWriteback || v.written == v.p.n) {
		startWriteback(v.f.f, v.p.off+v.wb, v.written-v.wb)
		v.wb = v.written
	}
	l.noteAppended(v.f, int64(len(b)))
	if v.written == v.p.n {
		v.err = v.finish()
	}
	return len(b), v.err
}

// finish writes the trailer; with appendfsync always the record is then synced.
func (v *StagedValue) finish() error {
	l := v.l
	var trail [vlogStreamTrail]byte
	binary.BigEndian.PutUint32(trail[:], v.crc)
	if _, err := v.f.f.WriteAt(trail[:], v.p.off+v.p.n); err != nil {
		l.noteError(err)
		return err
	}
	v.p.crc = v.crc
	v.done = true
	v.f.writing.Add(-1)
	if vlogWriteHook != nil {
		if err := vlogWriteHook(v.p); err != nil {
			return err
		}
	}
	if l.fsync.get() == "always" {
		return l.syncNow()
	}
	return nil
}

// Err returns why the value cannot be stored: a write error, or ErrStageAborted when not all
// of it has arrived.
func (v *StagedValue) Err() error {
	if v.err != nil {
		return v.err
	}
	if !v.done {
		return ErrStageAborted
	}
	return nil
}

// Bytes reads the complete value back, for a command that needs it in memory (a SET queued in
// MULTI); the record stays garbage until Discard.
func (v *StagedValue) Bytes() ([]byte, error) {
	if err := v.Err(); err != nil {
		return nil, err
	}
	b := make([]byte, v.p.n)
	if err := v.l.read(v.p, b); err != nil {
		return nil, err
	}
	return b, nil
}

// Discard drops a value that no command stored. It may be called after SetStaged (it then does
// nothing) and more than once.
func (v *StagedValue) Discard() {
	if v.owned {
		return
	}
	v.owned = true
	l, f := v.l, v.f
	if !v.done {
		f.writing.Add(-1)
		// A record still at the file's tail is cut off; elsewhere it stays as garbage, with a
		// trailer that cannot match (recovery then skips it).
		l.appendMu.Lock()
		if f.size.Load() == v.p.off+v.p.n+vlogStreamTrail {
			if f.f.Truncate(v.rec) == nil {
				f.size.Store(v.rec)
			}
		} else {
			var trail [vlogStreamTrail]byte
			binary.BigEndian.PutUint32(trail[:], ^v.crc)
			f.f.WriteAt(trail[:], v.p.off+v.p.n)
		}
		l.appendMu.Unlock()
	}
	f.pending.Add(-1)
	f.release()
}

// SetStaged stores the staged value v as key's string value with expiry (unix ms, 0 for none),
// replacing any value of any type, like SetString. v must be complete (Err returns nil).
func (t *Txn) SetStaged(key []byte, v *StagedValue, expire int64) error {
	if err := v.Err(); err != nil {
		return err
	}
	if v.owned {
		return errors.New("storage: staged value used twice")
	}
	t.staged = v.p
	err := t.PutMeta(key, &Meta{Type: TypeString, Expire: expire, Enc: EncValueLog, Value: encodeVPtr(nil, v.p)})
	t.staged = vptr{}
	if err != nil {
		return err
	}
	// The transaction keeps the file from the collector until its pointer is committed.
	v.owned = true
	t.vpend = append(t.vpend, v.f)
	v.f.release()
	return nil
}
