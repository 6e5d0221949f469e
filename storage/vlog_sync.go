package storage

import (
	"encoding/binary"
	"math"
)

// Durability of the value log: what is unsynced, the everysec budget and flusher, and the sync
// passes that move '!vsealed'.

// noteAppended counts n bytes written to f for the next sync pass, and wakes the flusher
// (everysec) once the unsynced bytes pass half the budget.
func (l *valueLog) noteAppended(f *vfile, n int64) {
	l.bmu.Lock()
	l.appended += n
	if l.dirty[f.num] == nil {
		f.refs.Add(1)
		l.dirty[f.num] = f
	}
	unsynced := l.appended - l.synced
	l.bmu.Unlock()
	if l.fsync.get() == "everysec" && unsynced >= vlogSyncBudget/2 {
		l.wakeFlusher()
	}
}

// waitBudget waits, with appendfsync everysec, until appending n bytes keeps the unsynced bytes
// within vlogSyncBudget (or nothing is unsynced).
func (l *valueLog) waitBudget(n int64) {
	l.bmu.Lock()
	for !l.closing && l.syncErr == nil && l.appended > l.synced && l.appended-l.synced+n > vlogSyncBudget {
		l.wakeFlusher()
		l.bcond.Wait()
	}
	l.bmu.Unlock()
}

func (l *valueLog) wakeFlusher() {
	select {
	case l.flushWake <- struct{}{}:
	default:
	}
}

func (l *valueLog) unsynced() int64 {
	l.bmu.Lock()
	defer l.bmu.Unlock()
	return l.appended - l.synced
}

// flushLoop syncs the value log whenever appends pass half the budget (everysec).
func (l *valueLog) flushLoop() {
	defer l.s.wg.Done()
	defer func() {
		l.bmu.Lock()
		l.closing = true
		l.bcond.Broadcast()
		l.bmu.Unlock()
	}()
	for {
		select {
		case <-l.s.stop:
			return
		case <-l.flushWake:
		}
		for l.unsynced() >= vlogSyncBudget/2 {
			if err := l.flush(); err != nil {
				l.s.log.Warn("value log sync", "err", err)
				break
			}
		}
	}
}

// syncNow fsyncs every file written since the last pass (and the directory, after a file was
// created) and, once the sealed files are on disk, moves '!vsealed' past them.
func (l *valueLog) syncNow() error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	act := l.actNum.Load() // every file below it is sealed: its writes are in this pass
	l.bmu.Lock()
	target := l.appended
	l.bmu.Unlock()
	return l.syncFiles(math.MaxUint32, target, l.sealCap(act-1)) // act 0 (no file yet): no mark to move
}

// flush is the flusher's pass: it seals the active file, so that appends go on in a new file
// while this one is synced (an fsync slows down writes to the file it syncs, by as much as the
// fsync takes), then syncs every file up to it.
func (l *valueLog) flush() error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	l.appendMu.Lock()
	limit, sealed := l.actNum.Load(), l.actNum.Load()-1
	if l.active != nil && l.active.size.Load() > 0 {
		l.rotate, sealed = true, limit
	}
	l.bmu.Lock()
	target := l.appended // every byte of it is in a file up to limit
	l.bmu.Unlock()
	l.appendMu.Unlock()
	return l.syncFiles(limit, target, l.sealCap(sealed))
}

// sealCap lowers a '!vsealed' candidate below the files that staged values are still being
// written to: such a file is not complete yet, and a recovery must check it.
func (l *valueLog) sealCap(sealed uint32) uint32 {
	if sealed == math.MaxUint32 {
		return sealed
	}
	l.mu.Lock()
	for num, f := range l.files {
		if num <= sealed && f.writing.Load() > 0 {
			sealed = num - 1
		}
	}
	l.mu.Unlock()
	return sealed
}

// syncFiles fsyncs the dirty files numbered up to limit and the directory if it changed; then
// the first target bytes ever appended are on disk, and so are the files up to sealedUpTo,
// which are complete. syncMu is held.
func (l *valueLog) syncFiles(limit uint32, target int64, sealedUpTo uint32) error {
	l.bmu.Lock()
	var todo []*vfile
	for num, f := range l.dirty {
		if num <= limit {
			todo = append(todo, f)
			delete(l.dirty, num)
		}
	}
	dir := l.dirDirty
	l.dirDirty = false
	l.bmu.Unlock()
	var err error
	var failed []*vfile
	for _, f := range todo {
		if e := f.f.Sync(); e != nil && !f.removed.Load() {
			err = e
			failed = append(failed, f) // stays dirty, with its reference, for the next pass
			continue
		}
		f.release()
	}
	if dir && err == nil {
		err = syncDir(l.dir)
	}
	if err != nil {
		l.noteError(err)
	}
	l.bmu.Lock()
	if err == nil {
		l.synced = max(l.synced, target)
	}
	for _, f := range failed {
		if l.dirty[f.num] == nil {
			l.dirty[f.num] = f
		} else {
			f.release()
		}
	}
	if err != nil && dir {
		l.dirDirty = true
	}
	l.syncErr = err
	l.bcond.Broadcast()
	l.bmu.Unlock()
	if err != nil {
		return err
	}
	if sealedUpTo != math.MaxUint32 && sealedUpTo > l.sealed && !l.s.disk.readOnly.Load() {
		if err := l.s.putRaw(sysVSealed, binary.BigEndian.AppendUint32(nil, sealedUpTo), nil); err != nil {
			return err
		}
		l.sealed = sealedUpTo
	}
	return nil
}

// sync is the everysec loop's hook: it runs before the journal sync.
func (l *valueLog) sync() {
	n := l.unsynced()
	if n == 0 {
		return
	}
	sync := l.syncNow
	if n >= vlogSyncBudget/2 {
		sync = l.flush // much to write: let appends go on in another file
	}
	if err := sync(); err != nil {
		l.s.log.Warn("value log sync", "err", err)
	}
}
