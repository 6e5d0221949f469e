package storage

import (
	"errors"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"
)

// Errors of Reload.
var (
	ErrReloadReadOnly = errors.New("storage: the database is open read-only for want of disk space")
	errReloadClosed   = errors.New("storage: closed")
)

// Reload closes the LevelDB database and opens it again from its files, as a restart does,
// keeping the data: the journal is replayed by the open, the metadata cache is emptied, and
// the system records and key counters are read back from disk. The background work (expiry,
// the collectors, the syncs, a running backup or compaction) is waited for and stopped
// first and started again after; commands wait while it holds the store exclusively. DEBUG
// RELOAD calls it to show that what the store holds survives a close and an open.
func (s *Store) Reload() error {
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return errReloadClosed
	}
	if s.disk.readOnly.Load() {
		return ErrReloadReadOnly
	}
	close(s.stop)
	s.wg.Wait()
	s.global.Lock()
	err := s.reopenDB()
	s.global.Unlock()
	s.stop = make(chan struct{})
	s.startBackground()
	if err != nil {
		return err
	}
	s.log.Warn("DB reloaded by DEBUG RELOAD")
	return nil
}

// reopenDB closes and reopens the LevelDB database; the caller holds global exclusively and
// the background work is stopped.
func (s *Store) reopenDB() error {
	if err := s.Flush(); err != nil {
		return err
	}
	if err := s.vlog.syncNow(); err != nil {
		return err
	}
	if err := s.db().Close(); err != nil && !isSpaceError(err) {
		return fmt.Errorf("storage: closing for a reload: %w", err)
	}
	db, err := leveldb.Open(s.disk.stor, s.disk.lo)
	if err != nil {
		// The old handle is closed: every read and write fails until a restart.
		s.log.Error("leveldb: reopening the database for DEBUG RELOAD failed", "err", err)
		return fmt.Errorf("storage: reopening for a reload: %w", err)
	}
	s.ldb.Store(db)
	s.cache.clear()
	s.dbmap = nil
	return s.load()
}
