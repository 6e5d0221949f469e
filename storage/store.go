package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
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
	ldb    atomic.Pointer[leveldb.DB] // swapped under global when a read-only open is reopened (disk.go)
	opts   Options
	log    *slog.Logger
	fsync  fsyncPolicy // appendfsync (fsync.go)
	locks  lockTable
	global sync.RWMutex // held shared by every Txn, exclusively by database-wide operations

	dbmap []uint32 // logical database -> physical keyspace; changed only under global

	counterMu sync.Mutex
	keys      map[uint32]int64 // per physical keyspace
	expires   map[uint32]int64

	idMu   sync.Mutex
	nextID uint64
	idHigh uint64

	onExpireCommit atomic.Pointer[func(db int, key []byte)] // SetOnExpireCommit (expired.go)
	onExpireCycle  atomic.Pointer[func(d time.Duration)]    // SetOnExpireCycle (reclaim.go)
	expireByMaster atomic.Bool                              // SetExpireByMaster (expired.go)

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
	fill      fillSetting                  // list-max-listpack-size (listnode.go)
	pack      packSetting                  // the thresholds of packed collections (packed.go)
	xlim      atomic.Pointer[StreamLimits] // stream-node-max-entries and -bytes (SetStreamLimits)
	group     groupCommit                  // commits not yet written to LevelDB (group.go)
	openedAt  time.Time
	closeOnce sync.Once
	life      sync.Mutex // serialises Reload and Close
	closed    bool       // set by Close, under life

	onExpire        atomic.Pointer[func(db int, key []byte)] // SetOnExpire
	expiryHeld      atomic.Int64                             // HoldExpiry: unix nanoseconds
	activeExpireOff atomic.Bool                              // SetActiveExpire(false)
	access          accessTable                              // access.go: last uses and LFU counters

	keyspaceHits, keyspaceMisses atomic.Int64 // lookups of read transactions (KeyspaceStats)
}

// Stats counts background work; fields are updated atomically.
type Stats struct {
	ExpiredKeys    atomic.Int64
	ReclaimedKeys  atomic.Int64
	GarbagePending atomic.Int64

	// Deleted collections: those committed to the garbage queue and not yet reclaimed
	// (LazyPending), and those reclaimed whose records numbered more than lazyfreeThreshold
	// (LazyFreed), the objects Redis would have freed in the background (INFO's
	// lazyfree_pending_objects and lazyfreed_objects).
	LazyPending atomic.Int64
	LazyFreed   atomic.Int64
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
	db, stor, err := openLevelDB(o.Dir, lo, o.Logger) // disk.go: repairs a crash-damaged journal
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", o.Dir, err)
	}
	s := &Store{opts: o, log: o.Logger,
		keys: map[uint32]int64{}, expires: map[uint32]int64{},
		gcWake: make(chan struct{}, 1), stop: make(chan struct{}), openedAt: time.Now()}
	s.fsync.set(o.Fsync)
	s.ldb.Store(db)
	s.access.init()
	s.group.pending = &s.Stats.LazyPending
	s.disk.stor, s.disk.lo = stor, lo
	if stor.roErr != nil {
		// No room to open for writing: read-only until diskLoop reopens it.
		s.disk.readOnly.Store(true)
		s.disk.fail.Store(&writeFailure{err: stor.roErr})
	}
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
	if !s.disk.readOnly.Load() {
		if err := s.dropCrashedShadow(); err != nil { // shadow.go
			s.log.Warn("could not drop the keyspace of a load cut short", "err", err)
		}
	}
	s.startBackground()
	return s, nil
}

// startBackground launches the background work that Close (and Reload) stops through s.stop.
func (s *Store) startBackground() {
	if !s.opts.DisableBackgrnd {
		s.wg.Add(2)
		go s.expireLoop()
		go s.collectLoop()
	}
	s.wg.Add(1)
	go s.syncLoop()
	s.vlog.start()
	s.wg.Add(1)
	go s.diskLoop()
}

// load reads or writes the system records.
func (s *Store) load() error {
	v, err := s.db().Get(sysFormat, nil)
	convert, upgrade := false, false
	switch {
	case err == leveldb.ErrNotFound:
		empty, err := s.isEmpty()
		if err != nil {
			return err
		}
		if !empty {
			return fmt.Errorf("%w: data directory %s has records but no format version", ErrUnknownFormat, s.opts.Dir)
		}
		if err := s.putRaw(sysFormat, []byte(strconv.Itoa(FormatVersion)), &opt.WriteOptions{Sync: true}); err != nil {
			return err
		}
	case err != nil:
		return err
	case string(v) == strconv.Itoa(formatElementLists):
		convert = true
	case string(v) == strconv.Itoa(formatUnpacked), string(v) == strconv.Itoa(formatUnchunked):
		// Readable as it is; recording the new version keeps older builds from opening a
		// directory that may then hold packed collections.
		upgrade = !s.disk.readOnly.Load()
	case string(v) != strconv.Itoa(FormatVersion):
		return fmt.Errorf("%w: data directory %s has format %q, this build reads %d to %d", ErrUnknownFormat, s.opts.Dir, v, formatElementLists, FormatVersion)
	}
	if v, err := s.db().Get(sysIDHigh, nil); err == nil && len(v) == 8 {
		s.nextID = binary.BigEndian.Uint64(v)
	}
	s.nextID++
	s.idHigh = s.nextID
	if v, err := s.db().Get(sysDBMap, nil); err == nil {
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
	// without losing them. A read-only store writes a grown map once it is reopened.
	if v, _ := s.db().Get(sysDBMap, nil); !bytes.Equal(v, s.encodeDBMap()) {
		if s.disk.readOnly.Load() {
			s.disk.dbmapDirty = true
		} else if err := s.putRaw(sysDBMap, s.encodeDBMap(), nil); err != nil {
			return err
		}
	}
	for _, p := range s.dbmap {
		v, _ := s.db().Get(counterKey(p), nil)
		s.keys[p], s.expires[p] = decodeCounters(v)
	}
	switch {
	case convert:
		return s.convertLists() // listconvert.go
	case upgrade:
		return s.putRaw(sysFormat, []byte(strconv.Itoa(FormatVersion)), &opt.WriteOptions{Sync: true})
	}
	return nil
}

func (s *Store) isEmpty() (bool, error) {
	it := s.db().NewIterator(nil, nil)
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
		if err := s.putRaw(sysIDHigh, binary.BigEndian.AppendUint64(nil, high), &opt.WriteOptions{Sync: true}); err != nil {
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
func (s *Store) LevelDB() *leveldb.DB { return s.db() }

// db returns the LevelDB database.
func (s *Store) db() *leveldb.DB { return s.ldb.Load() }

// CompactAll compacts the whole key range.
func (s *Store) CompactAll() error {
	if err := s.Flush(); err != nil {
		return err
	}
	return s.db().CompactRange(util.Range{})
}

// Close stops background work and closes the database.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.life.Lock()
		defer s.life.Unlock()
		s.closed = true
		close(s.stop)
		s.wg.Wait()
		if ferr := s.Flush(); ferr != nil { // pending commits were never acknowledged: kept if they can be
			s.log.Warn("group commit at close", "err", ferr)
		}
		verr := s.vlog.close()
		err = s.db().Close()
		if isSpaceError(err) {
			// LevelDB's Close reports the last compaction's error: a memtable or tables it could
			// not write for want of space. Their records are in the journal, which the next open
			// replays.
			s.log.Warn("leveldb: closed with a compaction unfinished for want of disk space; the journal keeps its writes", "err", err)
			err = nil
		}
		if s.disk.retired != nil {
			s.disk.retired.Close()
		}
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

// syncJournal makes every journal record written so far durable. It syncs the journal file
// itself, outside LevelDB's write lock, so that the commits of the event loop do not wait for
// the disk meanwhile (a sync through LevelDB, a record written with Sync set, holds the lock
// for the whole fsync: milliseconds, sometimes tens). When LevelDB has switched to a new
// journal meanwhile, or the store has no journal of its own, the sync goes through LevelDB.
func (s *Store) syncJournal() error {
	if s.disk.stor != nil {
		if j := s.disk.stor.journal.Load(); j != nil {
			err := j.Sync()
			if err == nil && s.disk.stor.journal.Load() == j {
				return nil
			}
			if err != nil && !errors.Is(err, os.ErrClosed) {
				return err
			}
		}
	}
	return s.putRaw(sysSync, nil, syncWrites)
}

// syncLoop implements appendfsync everysec (it runs under every policy, as CONFIG SET may
// switch to everysec): once a second, if anything was committed since the last sync, it
// writes the pending group and syncs the journal file (syncJournal). At most about one second
// of acknowledged writes can be lost in a crash.
func (s *Store) syncLoop() {
	defer s.wg.Done()
	for s.sleep(time.Second) {
		if err := s.Flush(); err != nil { // commits that no reply waited for
			s.log.Warn("group commit", "err", err)
		}
		if s.fsync.get() == "everysec" && s.unsynced.Swap(false) {
			s.vlog.sync() // values first: a pointer must not reach the disk before its value
			if err := s.syncJournal(); err != nil {
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
