package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/opt"
	lstorage "github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// # Crash recovery, full disk and I/O errors
//
// Opening. LevelDB replays its journal leniently (Strata keeps goleveldb's default strictness:
// a torn or corrupt record, as a crash leaves at the tail of the last journal, is skipped rather
// than fatal), and a database that LevelDB reports corrupt is rebuilt from its readable tables by
// leveldb.Recover. LevelDB tells its storage's Log what it dropped; openLevelDB's storage passes
// those lines on as warnings, so the server log says what recovery cost.
//
// Opening on a full disk. A read-write open writes: LevelDB turns the journals it replays into
// a table, starts a new journal and writes a new manifest. When that fails for want of space
// (ENOSPC, EDQUOT), the database is opened read-only instead (openInMemory: the same open, with
// what it writes kept in memory), so every acknowledged write can be read, and the open error is
// recorded as the write error (write commands get MISCONF). Every
// diskProbeEvery, diskLoop looks at the free space; once the disk has room for a read-write open
// (the journals' size, a manifest and a journal's first reservation) it opens the database
// read-write beside the read-only one, under the store's global lock (which every transaction
// holds shared, so no command runs meanwhile), and swaps the two. A failed attempt doubles the
// wait before the next, up to reopenWaitMax. The read-only database is closed retiredGrace
// later (or once a backup reading it is done). Background writers (expiry, the collectors) skip
// their work while writes fail.
//
// Writing. goleveldb keeps the error of a failed journal or manifest append for good (the writer
// is only reset when its file is rotated), so a single ENOSPC in the middle of an append would
// leave the database unwritable until a restart. Journal and manifest files are therefore
// preallocated (fallocate with KEEP_SIZE: the space is reserved, the file size and so what
// recovery reads are unchanged). A manifest gets all the room it may use when it is created. A
// journal gets its room in steps: journalFirst bytes when it is created, and before every write
// to LevelDB (commitBatch, putRaw, deleteRaw) reserveJournal makes sure the reservation covers
// the write's record, and keeps up to journalAhead bytes more reserved when the disk allows. A
// write that the reservation cannot cover is refused before LevelDB sees it (errJournalFull):
// nothing is written and the journal stays usable. A closed journal gives back the room it did
// not use. Writes so need room for themselves, not for the largest journal the write buffer
// allows.
//
// On a full disk the failures so happen where they are transient: reserving journal room,
// creating the next journal, flushing a memtable or compacting (LevelDB retries compactions).
// A failed write records the error (WriteError; the server refuses write commands with MISCONF
// while it is set) and reads go on. Every diskProbeEvery, diskLoop probes: a synced journal write
// through the same reservation, which shows that a write can be made durable again. When the
// failure came from LevelDB itself (a journal it could not create, a memtable it could not
// flush), the memtable must be flushed before writes can go on, so the probe flushes it too.
// When the probe succeeds the error is cleared and writes resume, without a restart. A journal
// writer stuck on an earlier failure (a file system without fallocate) is unstuck by rotating
// the journal.

const (
	manifestMaxSize  = 2 << 20 // LevelDB starts a new manifest past this size (its default is 64 MiB)
	manifestPrealloc = manifestMaxSize + 512<<10
	preallocChunk    = 1 << 20 // reservations grow in multiples of this
	preallocMargin   = 256 << 10
	journalFirst     = 4 << 20 // a new journal's reservation (less if the write buffer is small)
	journalAhead     = 4 << 20 // room kept reserved past what commits need (at least half), when the disk has it
	aheadRetry       = 100 * time.Millisecond
	diskProbeEvery   = time.Second
	reopenWaitMax    = 30 * time.Second
	retiredGrace     = 5 * time.Second
	fallocKeepSize   = 0x01 // FALLOC_FL_KEEP_SIZE
)

var (
	sysProbe    = []byte("!probe")
	sysProbeEnd = []byte("!probe\x00")
	probeWrite  = &opt.WriteOptions{Sync: true}
)

// errJournalFull is the error of a write refused because the journal could not reserve room
// for it; it wraps the fallocate error (ENOSPC).
type errJournalFull struct{ err error }

func (e *errJournalFull) Error() string { return "reserve journal space: " + e.err.Error() }
func (e *errJournalFull) Unwrap() error { return e.err }

// writeFailure is why writes fail. flush is set when LevelDB itself failed (a journal it could
// not create, a memtable it could not flush): the probe then flushes the memtable.
type writeFailure struct {
	err   error
	flush bool
}

// diskState is the Store's view of its disk.
type diskState struct {
	stor     *recoveringStorage
	lo       *opt.Options                 // LevelDB's options, for a read-write reopen
	fail     atomic.Pointer[writeFailure] // nil while writes work
	readOnly atomic.Bool                  // opened read-only on a full disk; diskLoop reopens it

	// diskLoop's own state.
	nextReopen time.Time
	reopenWait time.Duration
	retired    *leveldb.DB // the read-only database, closed retiredGrace after the swap
	retiredAt  time.Time
	dbmapDirty bool // the database map grew while read-only and is not on disk yet
}

// isSpaceError reports whether err is the file system running out of room.
func isSpaceError(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// openLevelDB opens or creates the LevelDB database in dir, repairing crash damage as LevelDB
// allows. When the disk has no room for a read-write open it opens the database read-only and
// sets the storage's roErr to the error that prevented the read-write open. The caller closes
// the returned storage after the database.
func openLevelDB(dir string, lo *opt.Options, log *slog.Logger) (*leveldb.DB, *recoveringStorage, error) {
	fs, err := lstorage.OpenFile(dir, false)
	if err != nil {
		return nil, nil, err
	}
	wb := int64(lo.GetWriteBuffer())
	// A journal holds about as many bytes as the memtable; small batches cost it more per
	// record than the memtable (headers), hence the half again.
	stor := &recoveringStorage{Storage: fs, log: log, journalSize: wb + wb/2 + preallocChunk}
	lo.MaxManifestFileSize = manifestMaxSize
	db, err := leveldb.Open(stor, lo)
	if lerrors.IsCorrupted(err) {
		log.Warn("leveldb: the database is corrupt; rebuilding it from its readable tables", "dir", dir, "err", err)
		db, err = leveldb.Recover(stor, lo)
		if err == nil {
			log.Warn("leveldb: database rebuilt; records in unreadable table blocks are lost", "dir", dir)
		}
	}
	if isSpaceError(err) {
		stor.roErr = err
		stor.journal.Store(nil) // one the failed open may have created and closed
		db, err = openInMemory(stor, lo)
		if err == nil {
			log.Error("leveldb: no room on the disk to open the database for writing; opened it read-only, write commands are refused until the disk has room",
				"dir", dir, "err", stor.roErr)
		} else {
			err = fmt.Errorf("%w (and opening it read-only failed: %v)", stor.roErr, err)
		}
	}
	if err != nil {
		fs.Close()
		return nil, nil, err
	}
	if n := stor.dropped.Load(); n > 0 {
		log.Warn("leveldb: opened after dropping damaged records (see the warnings above)", "dir", dir, "drops", n)
	}
	return db, stor, nil
}

// openInMemory opens the database in stor for reading when the disk has no room for a
// read-write open. goleveldb's own read-only mode cannot replay more than one journal (its
// reader reports the first journal's end as an error), and a full disk often leaves two: the
// database is opened read-write over an overlayStorage instead, which keeps what the open
// writes (the journals turned into tables, a manifest, a journal) in memory, and then set
// read-only. Compactions, which would copy tables into memory, are turned off.
func openInMemory(stor *recoveringStorage, lo *opt.Options) (*leveldb.DB, error) {
	o := *lo
	o.ErrorIfMissing = true // a database that does not exist yet cannot be created in memory
	o.CompactionL0Trigger = math.MaxInt32
	o.CompactionTotalSize = 1 << 50
	o.CompactionTotalSizeMultiplier = 1
	o.DisableSeeksCompaction = true
	db, err := leveldb.Open(newOverlayStorage(stor), &o)
	if err != nil {
		return nil, err
	}
	if err := db.SetReadOnly(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// overlayStorage lets LevelDB open a database for writing without writing to the disk: files
// it creates live in memory, files it removes from the disk are only hidden, and the rest are
// read from the data directory. Its lock is a no-op, so that the database can be opened
// read-write on the disk beside it (the directory's file lock is held by the disk storage).
type overlayStorage struct {
	disk *recoveringStorage
	mem  lstorage.Storage

	mu      sync.Mutex
	hidden  map[lstorage.FileDesc]bool
	memMeta bool // the manifest in force is in memory
}

func newOverlayStorage(disk *recoveringStorage) *overlayStorage {
	return &overlayStorage{disk: disk, mem: lstorage.NewMemStorage(), hidden: map[lstorage.FileDesc]bool{}}
}

type noLock struct{}

func (noLock) Unlock() {}

func (o *overlayStorage) Lock() (lstorage.Locker, error) { return noLock{}, nil }
func (o *overlayStorage) Log(str string)                 { o.disk.Log(str) }

func (o *overlayStorage) SetMeta(fd lstorage.FileDesc) error {
	if err := o.mem.SetMeta(fd); err != nil {
		return err
	}
	o.mu.Lock()
	o.memMeta = true
	o.mu.Unlock()
	return nil
}

func (o *overlayStorage) GetMeta() (lstorage.FileDesc, error) {
	o.mu.Lock()
	inMem := o.memMeta
	o.mu.Unlock()
	if inMem {
		return o.mem.GetMeta()
	}
	return o.disk.Storage.GetMeta()
}

func (o *overlayStorage) List(ft lstorage.FileType) ([]lstorage.FileDesc, error) {
	onDisk, err := o.disk.Storage.List(ft)
	if err != nil {
		return nil, err
	}
	inMem, err := o.mem.List(ft)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	fds := inMem
	for _, fd := range onDisk {
		if !o.hidden[fd] && !slices.Contains(inMem, fd) {
			fds = append(fds, fd)
		}
	}
	return fds, nil
}

func (o *overlayStorage) Open(fd lstorage.FileDesc) (lstorage.Reader, error) {
	r, err := o.mem.Open(fd)
	if !errors.Is(err, os.ErrNotExist) {
		return r, err
	}
	o.mu.Lock()
	hidden := o.hidden[fd]
	o.mu.Unlock()
	if hidden {
		return nil, os.ErrNotExist
	}
	return o.disk.Storage.Open(fd)
}

func (o *overlayStorage) Create(fd lstorage.FileDesc) (lstorage.Writer, error) {
	o.mu.Lock()
	o.hidden[fd] = true // a file of the same name on the disk is replaced
	o.mu.Unlock()
	return o.mem.Create(fd)
}

func (o *overlayStorage) Remove(fd lstorage.FileDesc) error {
	if err := o.mem.Remove(fd); err == nil {
		return nil
	}
	o.mu.Lock()
	o.hidden[fd] = true
	o.mu.Unlock()
	return nil
}

func (o *overlayStorage) Rename(oldfd, newfd lstorage.FileDesc) error {
	return o.mem.Rename(oldfd, newfd)
}

func (o *overlayStorage) Close() error { return o.mem.Close() }

// recoveringStorage is LevelDB's file storage with additions: the Log lines about damaged data
// go to the server log as warnings, journal and manifest files are preallocated, and journal
// writes are buffered (journal.go).
type recoveringStorage struct {
	lstorage.Storage
	log         *slog.Logger
	journalSize int64 // the largest journal the write buffer allows
	roErr       error // why the database was opened read-only; set by openLevelDB
	dropped     atomic.Int64
	lastErrLog  atomic.Int64 // unix nanoseconds of the last LevelDB error passed on
	noPrealloc  atomic.Bool
	journal     atomic.Pointer[bufJournal] // the journal LevelDB writes to

	resMu     sync.Mutex   // raising promised, aheadFail; held while a journal is created
	promised  atomic.Int64 // journal bytes of the writes between reserveJournal and releaseJournal
	aheadFail time.Time    // when reserving room ahead last failed
}

func (r *recoveringStorage) Log(str string) {
	r.Storage.Log(str)
	switch {
	case strings.Contains(str, "@drop"), strings.Contains(str, "(skipped)"),
		strings.Contains(str, "corrupt"), strings.HasPrefix(str, "table@recovery"):
		r.dropped.Add(1)
		r.log.Warn("leveldb recovery: "+str, "dropped", true)
	case strings.Contains(str, " error "):
		// Failing compactions are retried with a backoff; one line per 10 s is enough.
		now := time.Now().UnixNano()
		if last := r.lastErrLog.Load(); now-last > int64(10*time.Second) && r.lastErrLog.CompareAndSwap(last, now) {
			r.log.Warn("leveldb: " + str)
		}
	}
}

// Create creates a file for LevelDB; a journal's writes are buffered (journal.go).
func (r *recoveringStorage) Create(fd lstorage.FileDesc) (lstorage.Writer, error) {
	if fd.Type != lstorage.TypeJournal {
		return r.create(fd, manifestPrealloc)
	}
	// The new journal must hold the writes that have reserved room and not finished: they
	// may land in it. reserveJournal waits meanwhile, so it sees one journal or the other.
	r.resMu.Lock()
	defer r.resMu.Unlock()
	w, err := r.create(fd, min(r.journalSize, journalFirst)+r.promised.Load())
	if err != nil {
		return nil, err
	}
	// LevelDB switches journals under its write lock: the old one's records are written before
	// the new one becomes the one that replies wait for.
	if prev := r.journal.Load(); prev != nil {
		if err := prev.flush(); err != nil {
			w.Close()
			r.Storage.Remove(fd)
			return nil, err
		}
	}
	j := &bufJournal{w: w}
	j.pw, _ = w.(*preallocWriter)
	r.journal.Store(j)
	return j, nil
}

// create creates fd and reserves size bytes for it (manifests and journals only).
func (r *recoveringStorage) create(fd lstorage.FileDesc, size int64) (lstorage.Writer, error) {
	w, err := r.Storage.Create(fd)
	if err != nil || r.noPrealloc.Load() {
		return w, err
	}
	if fd.Type != lstorage.TypeJournal && fd.Type != lstorage.TypeManifest {
		return w, nil
	}
	sc, ok := w.(syscall.Conn)
	if !ok {
		return w, nil
	}
	pw := &preallocWriter{Writer: w, sc: sc}
	if err := pw.reserve(size); err != nil {
		if errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) {
			r.noPrealloc.Store(true)
			r.log.Warn("leveldb: this file system cannot preallocate; a full disk may leave the database unwritable until a restart", "err", err)
			return w, nil
		}
		// No room for the file: LevelDB treats a failed creation as a transient error.
		w.Close()
		r.Storage.Remove(fd)
		return nil, fmt.Errorf("preallocate %s: %w", fd, err)
	}
	return pw, nil
}

// journalBytes bounds the journal bytes of a record holding n bytes of batch data: the batch
// header, and a chunk header and the padding of a block end per 32 KiB block.
func journalBytes(n int) int64 {
	return int64(n) + 12 + 13*int64(n/(32<<10)+2)
}

// reserveJournal makes sure the journal has room reserved for a record of n bytes on top of
// what it holds and what other writes have reserved, and counts n as reserved until
// releaseJournal. It fails with errJournalFull when the disk has no room for it.
func (r *recoveringStorage) reserveJournal(n int64) error {
	r.resMu.Lock()
	defer r.resMu.Unlock()
	if j := r.journal.Load(); j != nil && j.pw != nil {
		need := j.appended.Load() + r.promised.Load() + n
		alloc := j.pw.alloc.Load()
		// Room ahead is reserved when it can be, up to the largest journal: once less than half
		// of journalAhead is left, the reservation grows to journalAhead past need. So commits
		// rarely wait on fallocate, and a compaction taking the disk's last free space does not
		// stop writes at once.
		ahead := min(need+journalAhead, max(need, r.journalSize))
		low := min(need+journalAhead/2, ahead)
		if low > alloc && (need > alloc || time.Since(r.aheadFail) >= aheadRetry) {
			if err := j.pw.reserve(roundUp(ahead, preallocChunk)); err != nil {
				r.aheadFail = time.Now()
				if need > alloc {
					if err := j.pw.reserve(need); err != nil {
						return &errJournalFull{err}
					}
				}
			}
		}
	}
	r.promised.Add(n)
	return nil
}

// releaseJournal ends a reservation: the write is in the journal or failed. It needs no lock:
// a journal created meanwhile reserves a little more than it must.
func (r *recoveringStorage) releaseJournal(n int64) { r.promised.Add(-n) }

func roundUp(n, to int64) int64 { return (n + to - 1) / to * to }

// preallocWriter is a file with room reserved on disk: alloc bytes from its start.
type preallocWriter struct {
	lstorage.Writer
	sc      syscall.Conn
	mu      sync.Mutex   // one fallocate at a time
	alloc   atomic.Int64 // bytes reserved
	written int64        // bytes written; LevelDB writes a file from one goroutine at a time
}

func (w *preallocWriter) fallocate(off, n int64) error {
	raw, err := w.sc.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) {
		for {
			ferr = syscall.Fallocate(int(fd), fallocKeepSize, off, n)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}

// reserve makes sure the file's first size bytes are reserved.
func (w *preallocWriter) reserve(size int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	cur := w.alloc.Load()
	if size <= cur {
		return nil
	}
	if err := w.fallocate(cur, size-cur); err != nil {
		return err
	}
	w.alloc.Store(size)
	return nil
}

func (w *preallocWriter) Write(p []byte) (int, error) {
	if w.written+int64(len(p)) > w.alloc.Load()-preallocMargin {
		// Best effort (a manifest past its expected size): on a full disk the margin still
		// takes the writes in flight.
		w.reserve(w.alloc.Load() + preallocChunk)
	}
	n, err := w.Writer.Write(p)
	w.written += int64(n)
	return n, err
}

// Close gives back the room reserved past what was written: a closed journal waits for its
// memtable's flush before it is deleted, and a failed open leaves its new journal behind. A
// truncation to the file's own size drops the blocks reserved past its end (ext4, tmpfs).
func (w *preallocWriter) Close() error {
	w.mu.Lock()
	if t, ok := w.Writer.(interface{ Truncate(int64) error }); ok && w.alloc.Load() > w.written {
		t.Truncate(w.written)
	}
	w.mu.Unlock()
	return w.Writer.Close()
}

// commitBatch writes b to LevelDB after every pending commit (group.go), for writers that do
// not go through a Txn.
func (s *Store) commitBatch(b *leveldb.Batch, wo *opt.WriteOptions) error {
	if err := s.Flush(); err != nil {
		return err
	}
	return s.writeBatch(b, wo)
}

// writeBatch writes b to LevelDB once the journal has room for it.
func (s *Store) writeBatch(b *leveldb.Batch, wo *opt.WriteOptions) error {
	n := journalBytes(len(b.Dump()))
	if err := s.disk.stor.reserveJournal(n); err != nil {
		return err
	}
	err := s.db().Write(b, wo)
	s.disk.stor.releaseJournal(n)
	return err
}

// putRaw writes one record to LevelDB once the journal has room for it.
func (s *Store) putRaw(key, value []byte, wo *opt.WriteOptions) error {
	n := journalBytes(len(key) + len(value) + 16)
	if err := s.disk.stor.reserveJournal(n); err != nil {
		return err
	}
	err := s.db().Put(key, value, wo)
	s.disk.stor.releaseJournal(n)
	return err
}

// deleteRaw deletes one record from LevelDB once the journal has room for the deletion.
func (s *Store) deleteRaw(key []byte, wo *opt.WriteOptions) error {
	n := journalBytes(len(key) + 16)
	if err := s.disk.stor.reserveJournal(n); err != nil {
		return err
	}
	err := s.db().Delete(key, wo)
	s.disk.stor.releaseJournal(n)
	return err
}

// WriteError returns why writes fail, or nil while they work. It is set by a failed write (or
// an open that found no room on the disk) and cleared by diskLoop once a probe write succeeds.
func (s *Store) WriteError() error {
	if f := s.disk.fail.Load(); f != nil {
		return f.err
	}
	return nil
}

// writable reports whether writes work; background writers skip their work while they fail.
func (s *Store) writable() bool { return s.disk.fail.Load() == nil }

// noteWriteError records a failed write.
func (s *Store) noteWriteError(err error) {
	if err == nil || errors.Is(err, leveldb.ErrClosed) {
		return
	}
	if s.disk.readOnly.Load() {
		return // the open's error stays: it says why the store is read-only
	}
	var full *errJournalFull
	var vl *valueLogError
	f := &writeFailure{err: err, flush: !errors.As(err, &full) && !errors.As(err, &vl)}
	for {
		old := s.disk.fail.Load()
		if old != nil && old.flush {
			f.flush = true // a memtable that could not be flushed still needs the flush
		}
		if s.disk.fail.CompareAndSwap(old, f) {
			if old == nil {
				s.log.Error("writes fail; write commands are refused until a probe write succeeds", "err", err)
			}
			return
		}
	}
}

// valueLogError marks a failed value-log append: the value log retries every append, so the
// probe needs no memtable flush for it.
type valueLogError struct{ err error }

func (e *valueLogError) Error() string { return e.err.Error() }
func (e *valueLogError) Unwrap() error { return e.err }

// diskLoop reopens a store opened read-only once the disk has room, probes the write path
// while writes fail, and clears the error once they work. It runs every diskProbeEvery.
func (s *Store) diskLoop() {
	defer s.wg.Done()
	for s.sleep(diskProbeEvery) {
		if d := &s.disk; d.retired != nil && time.Since(d.retiredAt) >= retiredGrace && !s.backup.running.Load() {
			d.retired.Close()
			d.retired = nil
		}
		if s.disk.readOnly.Load() && !s.reopen() {
			continue
		}
		f := s.disk.fail.Load()
		if f == nil {
			continue
		}
		if err := s.probeDisk(f.flush); err != nil {
			s.disk.fail.CompareAndSwap(f, &writeFailure{err: err, flush: f.flush})
			continue
		}
		if s.disk.fail.CompareAndSwap(f, nil) {
			s.log.Warn("writes work again")
		}
	}
}

// probeDisk writes a synced journal record through the journal's reservation; with flush set
// it also flushes the memtable, which starts a new journal and writes a table.
func (s *Store) probeDisk(flush bool) error {
	if s.disk.dbmapDirty {
		if err := s.putRaw(sysDBMap, s.encodeDBMapShared(), probeWrite); err != nil {
			return err
		}
		s.disk.dbmapDirty = false
	}
	if err := s.vlog.finishRepair(); err != nil {
		return err
	}
	err := s.deleteRaw(sysProbe, probeWrite)
	var full *errJournalFull
	if err != nil && !errors.As(err, &full) {
		// A journal writer stuck on an earlier error: flushing the system records, which most
		// commits write and so are in the memtable, rotates the journal.
		if s.db().CompactRange(*util.BytesPrefix([]byte{tagSystem})) != nil {
			return err
		}
		err = s.deleteRaw(sysProbe, probeWrite)
		flush = false // done just now
	}
	if err != nil || !flush {
		return err
	}
	return s.db().CompactRange(util.Range{Start: sysProbe, Limit: sysProbeEnd})
}

func (s *Store) encodeDBMapShared() []byte {
	s.global.RLock()
	defer s.global.RUnlock()
	return s.encodeDBMap()
}

// reopen opens a store that was opened read-only for writing, once the disk has room for it,
// and reports whether it did.
func (s *Store) reopen() bool {
	d := &s.disk
	if time.Now().Before(d.nextReopen) || s.backup.running.Load() {
		return false // a backup reads a snapshot of the read-only database
	}
	if need, free, ok := s.reopenRoom(); ok && free < need {
		return false
	}
	s.global.Lock()
	db, err := leveldb.Open(d.stor, d.lo)
	if err == nil {
		d.retired, d.retiredAt = s.ldb.Swap(db), time.Now()
		d.readOnly.Store(false)
	}
	s.global.Unlock()
	if err != nil {
		d.stor.journal.Store(nil) // one the failed open may have created and closed
		d.reopenWait = min(max(2*d.reopenWait, diskProbeEvery), reopenWaitMax)
		d.nextReopen = time.Now().Add(d.reopenWait)
		s.log.Warn("leveldb: opening the database for writing failed; it stays read-only", "err", err, "retry_in", d.reopenWait)
		return false
	}
	s.log.Warn("leveldb: the disk has room again; the database is open for writing")
	return true
}

// reopenRoom returns the free space of the data directory's file system and what a read-write
// open needs of it: room for a table per journal it replays, a manifest and a journal.
func (s *Store) reopenRoom() (need, free int64, ok bool) {
	var st syscall.Statfs_t
	if syscall.Statfs(s.opts.Dir, &st) != nil {
		return 0, 0, false
	}
	fds, err := s.disk.stor.List(lstorage.TypeJournal)
	if err != nil {
		return 0, 0, false
	}
	for _, fd := range fds {
		r, err := s.disk.stor.Open(fd)
		if err != nil {
			return 0, 0, false
		}
		n, err := r.Seek(0, 2)
		r.Close()
		if err != nil {
			return 0, 0, false
		}
		need += n
	}
	need += manifestPrealloc + min(s.disk.stor.journalSize, journalFirst) + preallocChunk
	return need, int64(st.Bavail) * int64(st.Bsize), true
}
