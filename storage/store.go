package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	lstorage "github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Options configures a Store.
type Options struct {
	Dir             string
	Databases       int
	BlockSize       int
	WriteBuffer     int
	BlockCache      int64
	Compression     string // "none" or "snappy"
	MaxOpenFiles    int
	BloomBits       int
	Fsync           string // "always": sync every commit; "everysec": sync once a second; "no"
	KeyCache        int64  // bytes of metadata kept in memory; 0 disables the cache
	ActiveExpireHz  int
	Logger          *slog.Logger
	DisableBackgrnd bool // tests only: no expiry cycle or collector

	// Value log (vlog.go): strings of at least LargeValueThreshold bytes are stored in
	// append-only files under Dir/vlog; 0 keeps every value inline. A file is collected once
	// ValueLogGCRatio of it is garbage (0: 0.5); a new file starts past ValueLogFileSize
	// bytes (0: 256 MiB).
	LargeValueThreshold int
	ValueLogGCRatio     float64
	ValueLogFileSize    int64
}

// Store is an open Strata database.
type Store struct {
	db     *leveldb.DB
	opts   Options
	log    *slog.Logger
	wo     *opt.WriteOptions
	locks  lockTable
	global sync.RWMutex // held shared by every Txn, exclusively by database-wide operations

	dbmap []uint32 // logical database -> physical keyspace; changed only under global

	counterMu sync.Mutex
	keys      map[uint32]int64 // per physical keyspace
	expires   map[uint32]int64

	idMu   sync.Mutex
	nextID uint64
	idHigh uint64

	unsynced  atomic.Bool // a commit happened since the last journal sync
	gcWake    chan struct{}
	stop      chan struct{}
	wg        sync.WaitGroup
	Stats     Stats
	backup    backupState
	compact   compactState
	vlog      *valueLog
	disk      diskState // the end of this file: crash recovery, full disk and I/O errors
	cache     *metaCache
	openedAt  time.Time
	closeOnce sync.Once

	onExpire   atomic.Pointer[func(db int, key []byte)] // SetOnExpire
	expiryHeld atomic.Int64                             // HoldExpiry: unix nanoseconds
}

// Stats counts background work; fields are updated atomically.
type Stats struct {
	ExpiredKeys    atomic.Int64
	ReclaimedKeys  atomic.Int64
	GarbagePending atomic.Int64
}

// ErrUnknownFormat means the data directory was written by an incompatible layout version.
var ErrUnknownFormat = errors.New("storage: unknown data format version")

var (
	sysFormat = []byte("!format")
	sysIDHigh = []byte("!idhigh")
	sysDBMap  = []byte("!dbmap")
)

// counterKey is the record holding phys's key and expiry counters: 16 bytes, both big-endian.
func counterKey(phys uint32) []byte { return appendCounterKey(nil, phys) }

func appendCounterKey(dst []byte, phys uint32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, tagSystem, 'c', 'n'), phys)
}

// decodeCounters splits a counter record into the key and expiry counts.
func decodeCounters(v []byte) (keys, expires int64) {
	if len(v) != 16 {
		return 0, 0
	}
	return int64(binary.BigEndian.Uint64(v)), int64(binary.BigEndian.Uint64(v[8:]))
}

const idBlock = 1 << 16

// Open opens or creates the database in o.Dir.
func Open(o Options) (*Store, error) {
	if o.Databases <= 0 {
		o.Databases = 16
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	lo := &opt.Options{
		BlockSize:              o.BlockSize,
		WriteBuffer:            o.WriteBuffer,
		BlockCacheCapacity:     int(o.BlockCache),
		OpenFilesCacheCapacity: o.MaxOpenFiles,
		// LevelDB's write merging hands each commit to the lock holder through channels; it
		// pays for itself only when commits wait on a journal fsync (appendfsync always,
		// where concurrent commits then share one). Otherwise the journal write is a copy
		// into memory (journal.go) and the lock is held briefly: each commit takes it itself.
		NoWriteMerge: o.Fsync != "always",
	}
	if o.Compression == "none" {
		lo.Compression = opt.NoCompression
	} else {
		lo.Compression = opt.SnappyCompression
	}
	if o.BloomBits > 0 {
		lo.Filter = filter.NewBloomFilter(o.BloomBits)
	}
	db, stor, err := openLevelDB(o.Dir, lo, o.Logger) // below: repairs a crash-damaged journal
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", o.Dir, err)
	}
	s := &Store{db: db, opts: o, log: o.Logger, wo: &opt.WriteOptions{Sync: o.Fsync == "always"},
		keys: map[uint32]int64{}, expires: map[uint32]int64{},
		gcWake: make(chan struct{}, 1), stop: make(chan struct{}), openedAt: time.Now()}
	s.disk.stor = stor
	s.cache = newMetaCache(o.KeyCache)
	if err := s.load(); err != nil {
		db.Close()
		stor.Close()
		return nil, err
	}
	if s.vlog, err = openValueLog(s); err != nil {
		db.Close()
		stor.Close()
		return nil, err
	}
	if !o.DisableBackgrnd {
		s.wg.Add(2)
		go s.expireLoop()
		go s.collectLoop()
	}
	if o.Fsync == "everysec" {
		s.wg.Add(1)
		go s.syncLoop()
	}
	s.vlog.start()
	s.wg.Add(1)
	go s.diskLoop()
	return s, nil
}

// load reads or writes the system records.
func (s *Store) load() error {
	v, err := s.db.Get(sysFormat, nil)
	switch {
	case err == leveldb.ErrNotFound:
		empty, err := s.isEmpty()
		if err != nil {
			return err
		}
		if !empty {
			return fmt.Errorf("%w: data directory %s has records but no format version", ErrUnknownFormat, s.opts.Dir)
		}
		if err := s.db.Put(sysFormat, []byte(strconv.Itoa(FormatVersion)), &opt.WriteOptions{Sync: true}); err != nil {
			return err
		}
	case err != nil:
		return err
	case string(v) != strconv.Itoa(FormatVersion):
		return fmt.Errorf("%w: data directory %s has format %q, this build reads %d", ErrUnknownFormat, s.opts.Dir, v, FormatVersion)
	}
	if v, err := s.db.Get(sysIDHigh, nil); err == nil && len(v) == 8 {
		s.nextID = binary.BigEndian.Uint64(v)
	}
	s.nextID++
	s.idHigh = s.nextID
	if v, err := s.db.Get(sysDBMap, nil); err == nil {
		for i := 0; i+4 <= len(v); i += 4 {
			s.dbmap = append(s.dbmap, binary.BigEndian.Uint32(v[i:]))
		}
	}
	maxPhys := uint32(0)
	for _, p := range s.dbmap {
		maxPhys = max(maxPhys, p)
	}
	for len(s.dbmap) < s.opts.Databases {
		maxPhys++
		s.dbmap = append(s.dbmap, maxPhys)
	}
	// A map longer than Databases is kept whole: lowering "databases" hides the extra databases
	// without losing them.
	if err := s.db.Put(sysDBMap, s.encodeDBMap(), nil); err != nil {
		return err
	}
	for _, p := range s.dbmap {
		v, _ := s.db.Get(counterKey(p), nil)
		s.keys[p], s.expires[p] = decodeCounters(v)
	}
	return nil
}

func (s *Store) isEmpty() (bool, error) {
	it := s.db.NewIterator(nil, nil)
	defer it.Release()
	return !it.First(), it.Error()
}

func (s *Store) encodeDBMap() []byte {
	b := make([]byte, 0, 4*len(s.dbmap))
	for _, p := range s.dbmap {
		b = binary.BigEndian.AppendUint32(b, p)
	}
	return b
}

// newID returns a fresh object ID. IDs are reserved on disk in blocks, so a crash never reuses one.
func (s *Store) newID() (uint64, error) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	if s.nextID >= s.idHigh {
		high := s.nextID + idBlock
		if err := s.db.Put(sysIDHigh, binary.BigEndian.AppendUint64(nil, high), &opt.WriteOptions{Sync: true}); err != nil {
			s.noteWriteError(err)
			return 0, err
		}
		s.idHigh = high
	}
	id := s.nextID
	s.nextID++
	return id, nil
}

// Databases returns the number of logical databases.
func (s *Store) Databases() int { return s.opts.Databases }

// DBSize returns the number of keys in logical database db, counting keys that have
// expired but are not yet reclaimed, as Redis does.
func (s *Store) DBSize(db int) int64 {
	s.global.RLock()
	defer s.global.RUnlock()
	s.counterMu.Lock()
	defer s.counterMu.Unlock()
	return s.keys[s.dbmap[db]]
}

// KeyCounts returns the number of keys and of keys with an expiry in db.
func (s *Store) KeyCounts(db int) (keys, expires int64) {
	s.global.RLock()
	defer s.global.RUnlock()
	s.counterMu.Lock()
	defer s.counterMu.Unlock()
	p := s.dbmap[db]
	return s.keys[p], s.expires[p]
}

// LevelDB returns the underlying database, for statistics and maintenance.
func (s *Store) LevelDB() *leveldb.DB { return s.db }

// CompactAll compacts the whole key range.
func (s *Store) CompactAll() error { return s.db.CompactRange(util.Range{}) }

// Close stops background work and closes the database.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.stop)
		s.wg.Wait()
		verr := s.vlog.close()
		err = s.db.Close()
		s.disk.stor.Close() // opened by openLevelDB; LevelDB does not close a storage it was given
		if err == nil && verr == nil {
			err = s.vlog.markClean() // the next open trusts the files as they are
		} else if err == nil {
			err = verr
		}
	})
	return err
}

// sleep waits for d or until the store closes; it reports false on close.
func (s *Store) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.stop:
		return false
	case <-t.C:
		return true
	}
}

var sysSync = []byte("!sync")

// syncLoop implements appendfsync everysec: once a second, if anything was committed since the
// last sync, it writes a tiny record with Sync set, which flushes the whole journal to stable
// storage. At most about one second of acknowledged writes can be lost in a crash.
func (s *Store) syncLoop() {
	defer s.wg.Done()
	for s.sleep(time.Second) {
		if s.unsynced.Swap(false) {
			s.vlog.sync() // values first: a pointer must not reach the disk before its value
			if err := s.db.Put(sysSync, nil, &opt.WriteOptions{Sync: true}); err != nil {
				s.log.Warn("journal sync", "err", err)
				s.noteWriteError(err)
			}
		}
	}
}

// SetOnExpire installs fn, which the active expiry cycle calls after it has committed the
// deletion of an expired key, with the key's logical database (the server publishes the
// "expired" keyspace event and fails the EXEC of clients that WATCH the key). nil removes it.
func (s *Store) SetOnExpire(fn func(db int, key []byte)) {
	if fn == nil {
		s.onExpire.Store(nil)
		return
	}
	s.onExpire.Store(&fn)
}

// Writes returns the number of puts and deletes staged in t so far, so that a caller can tell
// whether a command changed anything (a SET NX that found the key wrote nothing).
func (t *Txn) Writes() int { return t.batch.Len() }

// # Crash recovery, full disk and I/O errors
//
// Opening. LevelDB replays its journal leniently (Strata keeps goleveldb's default strictness:
// a torn or corrupt record, as a crash leaves at the tail of the last journal, is skipped rather
// than fatal), and a database that LevelDB reports corrupt is rebuilt from its readable tables by
// leveldb.Recover. LevelDB tells its storage's Log what it dropped; openLevelDB's storage passes
// those lines on as warnings, so the server log says what recovery cost.
//
// Writing. goleveldb keeps the error of a failed journal or manifest append for good (the writer
// is only reset when its file is rotated), so a single ENOSPC in the middle of an append would
// leave the database unwritable until a restart. Journal and manifest files are therefore
// preallocated when LevelDB creates them (fallocate with KEEP_SIZE: the space is reserved, the
// file size and so what recovery reads are unchanged), with room for the largest journal the
// write buffer allows. On a full disk the failures move to where goleveldb treats them as
// transient: creating (and preallocating) the next journal fails, and compactions fail and are
// retried. A failed commit records the error (WriteError; the server refuses write commands with
// a MISCONF error while it is set) and reads go on. Once a second, diskLoop probes the write
// path: a synced journal write, then a memtable flush, which rotates the journal and writes a
// table. When both succeed the error is cleared and writes resume, without a restart. A journal
// writer stuck on an earlier failure (a file system without fallocate) is unstuck by the same
// rotation.

const (
	manifestMaxSize  = 2 << 20 // LevelDB starts a new manifest past this size (its default is 64 MiB)
	manifestPrealloc = manifestMaxSize + 512<<10
	preallocChunk    = 1 << 20 // a preallocated file nearing its reserved size is extended by this
	preallocMargin   = 256 << 10
	diskProbeEvery   = time.Second
	fallocKeepSize   = 0x01 // FALLOC_FL_KEEP_SIZE
)

var (
	sysProbe    = []byte("!probe")
	sysProbeEnd = []byte("!probe\x00")
)

// diskState is the Store's view of its disk.
type diskState struct {
	stor *recoveringStorage
	err  atomic.Pointer[error] // why writes fail; nil while they work
}

// openLevelDB opens or creates the LevelDB database in dir, repairing crash damage as LevelDB
// allows. The caller closes the returned storage after the database.
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
	if err != nil {
		fs.Close()
		return nil, nil, err
	}
	if n := stor.dropped.Load(); n > 0 {
		log.Warn("leveldb: opened after dropping damaged records (see the warnings above)", "dir", dir, "drops", n)
	}
	return db, stor, nil
}

// recoveringStorage is LevelDB's file storage with two additions: the Log lines about damaged
// data go to the server log as warnings, and journal and manifest files are preallocated.
type recoveringStorage struct {
	lstorage.Storage
	log         *slog.Logger
	journalSize int64
	dropped     atomic.Int64
	lastErrLog  atomic.Int64 // unix nanoseconds of the last LevelDB error passed on
	noPrealloc  atomic.Bool
	journal     atomic.Pointer[bufJournal] // the journal LevelDB writes to (journal.go)
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
	w, err := r.create(fd)
	if err != nil || fd.Type != lstorage.TypeJournal {
		return w, err
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
	r.journal.Store(j)
	return j, nil
}

func (r *recoveringStorage) create(fd lstorage.FileDesc) (lstorage.Writer, error) {
	w, err := r.Storage.Create(fd)
	if err != nil || r.noPrealloc.Load() {
		return w, err
	}
	size := int64(0)
	switch fd.Type {
	case lstorage.TypeJournal:
		size = r.journalSize
	case lstorage.TypeManifest:
		size = manifestPrealloc
	default:
		return w, nil
	}
	sc, ok := w.(syscall.Conn)
	if !ok {
		return w, nil
	}
	pw := &preallocWriter{Writer: w, sc: sc, r: r}
	if err := pw.fallocate(0, size); err != nil {
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
	pw.alloc = size
	return pw, nil
}

// preallocWriter counts what is written to a preallocated file and reserves more space before
// the writes reach the end of the reservation.
type preallocWriter struct {
	lstorage.Writer
	sc             syscall.Conn
	r              *recoveringStorage
	written, alloc int64
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

func (w *preallocWriter) Write(p []byte) (int, error) {
	if w.written+int64(len(p)) > w.alloc-preallocMargin {
		// Best effort: on a full disk the margin still takes the writes in flight.
		if w.fallocate(w.alloc, preallocChunk) == nil {
			w.alloc += preallocChunk
		}
	}
	n, err := w.Writer.Write(p)
	w.written += int64(n)
	return n, err
}

// WriteError returns why writes fail, or nil while they work. It is set by a failed commit and
// cleared by diskLoop once a probe write succeeds.
func (s *Store) WriteError() error {
	if p := s.disk.err.Load(); p != nil {
		return *p
	}
	return nil
}

// noteWriteError records a failed write.
func (s *Store) noteWriteError(err error) {
	if err == nil || errors.Is(err, leveldb.ErrClosed) {
		return
	}
	if s.disk.err.Swap(&err) == nil {
		s.log.Error("writes fail; write commands are refused until a probe write succeeds", "err", err)
	}
}

// diskLoop probes the write path while writes fail, and clears the error once they work.
func (s *Store) diskLoop() {
	defer s.wg.Done()
	for s.sleep(diskProbeEvery) {
		if s.disk.err.Load() == nil {
			continue
		}
		if err := s.probeDisk(); err != nil {
			s.disk.err.Store(&err)
			continue
		}
		s.disk.err.Store(nil)
		s.log.Warn("writes work again")
	}
}

// probeDisk writes a synced journal record and flushes the memtable, which starts a new journal
// and writes a table: the steps that fail on a full disk.
func (s *Store) probeDisk() error {
	flush := util.Range{Start: sysProbe, Limit: sysProbeEnd}
	err := s.db.Delete(sysProbe, &opt.WriteOptions{Sync: true})
	if err != nil {
		// A journal writer stuck on an earlier error: flushing the system records, which most
		// commits write and so are in the memtable, rotates the journal.
		if s.db.CompactRange(*util.BytesPrefix([]byte{tagSystem})) != nil {
			return err
		}
		if err = s.db.Delete(sysProbe, &opt.WriteOptions{Sync: true}); err != nil {
			return err
		}
	}
	return s.db.CompactRange(flush)
}
