package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// BackupStatus describes the current or last backup, for LASTSAVE and INFO persistence.
type BackupStatus struct {
	InProgress bool
	LastOK     bool
	LastTime   time.Time     // when the last successful backup's snapshot was taken
	Duration   time.Duration // how long the last backup took
	Size       int64         // bytes on disk of the last backup
	LastErr    string
}

type backupState struct {
	mu      sync.Mutex
	running atomic.Bool
	status  BackupStatus
	changes atomic.Int64 // changes since the last backup that succeeded (AddChanges)
}

// AddChanges counts n changes of the data, for Changes.
func (s *Store) AddChanges(n int64) { s.backup.changes.Add(n) }

// Changes returns the changes counted since the snapshot of the last backup that succeeded, or
// since the store was opened: INFO's rdb_changes_since_last_save.
func (s *Store) Changes() int64 { return s.backup.changes.Load() }

// ErrBackupRunning is returned when a backup is requested while one is in progress.
var ErrBackupRunning = errors.New("storage: a backup is already in progress")

// StartBackup takes a point-in-time snapshot of the whole database now and copies it to dir in
// the background while the server keeps serving. Every write committed before StartBackup
// returns is in the copy and none committed after it. done, if not nil, receives the result.
func (s *Store) StartBackup(dir string, done func(error)) error {
	if !s.backup.running.CompareAndSwap(false, true) {
		return ErrBackupRunning
	}
	// The value log is pinned before the snapshot, so that no file the snapshot points into is
	// collected, and its files' sizes are taken after it, so that they cover every pointer in it.
	s.vlog.pin()
	err := s.Flush() // the copy is LevelDB's: every commit must be in it
	var snap *leveldb.Snapshot
	if err == nil {
		snap, err = s.db().GetSnapshot()
	}
	if err != nil {
		s.vlog.unpin()
		s.backup.running.Store(false)
		return err
	}
	vc := s.vlog.capture()
	taken, changes := time.Now(), s.backup.changes.Load()
	s.backup.mu.Lock()
	s.backup.status.InProgress = true
	s.backup.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		size, err := copySnapshot(snap, dir, vc)
		snap.Release()
		vc.release()
		s.vlog.unpin()
		s.backup.mu.Lock()
		st := &s.backup.status
		st.InProgress, st.LastOK, st.Duration = false, err == nil, time.Since(taken)
		if err == nil {
			s.backup.changes.Add(-changes) // those are in the copy
			st.LastTime, st.Size, st.LastErr = taken, size, ""
			s.log.Info("backup finished", "dir", dir, "bytes", size, "duration", st.Duration)
		} else {
			st.LastErr = err.Error()
			s.log.Error("backup failed", "dir", dir, "err", err)
		}
		s.backup.mu.Unlock()
		s.backup.running.Store(false)
		if done != nil {
			done(err)
		}
	}()
	return nil
}

// Backup copies the whole database to dir and waits for the copy to finish.
func (s *Store) Backup(dir string) error {
	ch := make(chan error, 1)
	if err := s.StartBackup(dir, func(err error) { ch <- err }); err != nil {
		return err
	}
	return <-ch
}

// BackupInfo returns the state of the current or last backup. Before the first backup,
// LastTime is the time the store was opened, as Redis reports its start time for LASTSAVE.
func (s *Store) BackupInfo() BackupStatus {
	s.backup.mu.Lock()
	defer s.backup.mu.Unlock()
	st := s.backup.status
	if st.LastTime.IsZero() {
		st.LastTime = s.openedAt
	}
	return st
}

// copySnapshot writes every record of snap into a new LevelDB at dir, and the value-log files
// of vc beside it. It builds the copy in a temporary sibling directory and renames it into
// place, so dir always holds a complete backup.
func copySnapshot(snap *leveldb.Snapshot, dir string, vc *vlogCopy) (int64, error) {
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	out, err := leveldb.OpenFile(tmp, &opt.Options{ErrorIfExist: false})
	if err != nil {
		return 0, err
	}
	it := snap.NewIterator(nil, nil)
	var b leveldb.Batch
	for it.Next() {
		b.Put(it.Key(), it.Value())
		if len(b.Dump()) >= 4<<20 {
			if err := out.Write(&b, nil); err != nil {
				it.Release()
				out.Close()
				return 0, err
			}
			b.Reset()
		}
	}
	it.Release()
	if err := it.Error(); err != nil {
		out.Close()
		return 0, err
	}
	if err := out.Write(&b, &opt.WriteOptions{Sync: true}); err != nil {
		out.Close()
		return 0, err
	}
	if err := out.Close(); err != nil {
		return 0, err
	}
	if _, err := vc.copyTo(tmp); err != nil {
		return 0, err
	}
	size, err := DirSize(tmp)
	if err != nil {
		return 0, err
	}
	old := dir + ".old"
	os.RemoveAll(old)
	if _, err := os.Stat(dir); err == nil {
		if err := os.Rename(dir, old); err != nil {
			return 0, err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return 0, fmt.Errorf("install backup: %w", err)
	}
	os.RemoveAll(old)
	return size, nil
}

// DirSize returns the total size of the regular files under dir.
func DirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}
