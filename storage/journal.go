package storage

import (
	"sync"
	"sync/atomic"

	lstorage "github.com/syndtr/goleveldb/leveldb/storage"
)

// The journal's writes are held in memory until a reply depends on them. LevelDB appends each
// write's record to the journal under its write lock, with one write(2) per record; here the
// record is appended to a buffer instead, and the buffer goes to the file when the server is
// about to send a reply (Store.Flush, called by the connection writer, after it has written
// the pending commit group: group.go), when LevelDB syncs the journal (appendfsync always, the
// everysec loop) and when it switches journals. One write(2) then carries the records of every
// LevelDB write made since the last one, and the system call runs outside LevelDB's write lock.
//
// What a reply acknowledges is in the journal file before the reply is sent: a reply is sent
// only after Flush has written every commit made before it to LevelDB, and so appended its
// record, and written every record appended before it to the file. A crash of the
// process (SIGKILL) so loses no acknowledged write, as before; a crash of the machine loses
// what appendfsync allows.

// bufJournal is a journal file whose writes are buffered until flushed.
type bufJournal struct {
	w  lstorage.Writer
	pw *preallocWriter // w when the file system preallocates; its reservation (disk.go)

	mu       sync.Mutex // buf, err
	buf      []byte
	spare    []byte
	err      error
	appended atomic.Int64 // bytes appended, ever
	flushed  atomic.Int64 // bytes written to the file, ever

	flushMu sync.Mutex // one write(2) at a time, in order
}

func (j *bufJournal) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return 0, j.err
	}
	j.buf = append(j.buf, p...)
	j.appended.Add(int64(len(p)))
	return len(p), nil
}

// flush writes everything appended so far to the file.
func (j *bufJournal) flush() error {
	target := j.appended.Load()
	if j.flushed.Load() >= target {
		return nil
	}
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	if j.flushed.Load() >= target {
		return nil // written by another flush meanwhile
	}
	j.mu.Lock()
	b := j.buf
	j.buf, j.spare = j.spare[:0], nil
	n := j.appended.Load()
	err := j.err
	j.mu.Unlock()
	if err != nil {
		return err
	}
	_, err = j.w.Write(b)
	j.mu.Lock()
	if err != nil {
		// The file no longer holds what LevelDB believes it wrote: every later write fails,
		// and so does every reply that would acknowledge one of them.
		j.err = err
	} else if cap(b) <= 1<<20 {
		j.spare = b[:0]
	}
	j.mu.Unlock()
	if err != nil {
		return err
	}
	j.flushed.Store(n)
	return nil
}

// journalSyncHook, when set by a test, runs before a journal file is synced.
var journalSyncHook func()

func (j *bufJournal) Sync() error {
	if err := j.flush(); err != nil {
		return err
	}
	if journalSyncHook != nil {
		journalSyncHook()
	}
	return j.w.Sync()
}

func (j *bufJournal) Close() error {
	err := j.flush()
	if cerr := j.w.Close(); err == nil {
		err = cerr
	}
	return err
}

// flushJournal writes the journal records of every LevelDB write made so far to the journal
// file (not to stable storage: that is what appendfsync decides). Flush calls it before the
// server sends replies, which may acknowledge those writes.
func (s *Store) flushJournal() error {
	if s.disk.stor == nil {
		return nil
	}
	j := s.disk.stor.journal.Load()
	if j == nil {
		return nil
	}
	err := j.flush()
	if err != nil {
		s.noteWriteError(err) // write commands get MISCONF from now on
	}
	return err
}
