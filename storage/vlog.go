package storage

// The value log: strings of at least Options.LargeValueThreshold bytes are appended to files
// under <dir>/vlog instead of being stored in their LevelDB metadata record, which then holds a
// small pointer (EncValueLog). LevelDB compactions so never rewrite a large value.
//
// # Files and records
//
// <dir>/vlog/NNNNNN.vlog files are append-only; one is active at a time and the next one starts
// once it passes Options.ValueLogFileSize. A record is
//
//	hcrc(4) phys(4) keyLen(4) valueLen(8) vcrc(4) key value
//
// hcrc is the CRC-32C of the header after it and the key, vcrc the CRC-32C of the value. The
// key's physical keyspace and name let a recovery or a debugging tool tell whose value it was.
//
// A pointer (the metadata's Value) is version(1)=1 file(4) offset(8) length(8) crc(4): offset
// is where the value itself starts, so a read is one ReadAt of exactly length bytes, checked
// against crc.
//
// # The live index
//
// Every pointer held by a key has a system record '!vl' file(4) offset(8) -> length(8) crc(4)
// phys(4) key, written or deleted by writeMeta in the same batch as the metadata that gains or
// loses the pointer. It names the current owner (RENAME moves the pointer to another key and
// rewrites the owner), it gives each file's live bytes (so a file's garbage is its size minus
// its live bytes: overwritten, deleted and expired values, and also records orphaned by a crash
// or by a command that failed after appending), and after a crash it finds the keys whose
// values did not reach the disk.
//
// A pointer is owned by exactly one key: PutMetaIn copies the value of a pointer that another
// key holds (COPY), and only RenameIn moves one.
//
// # Durability
//
// The value is written before the batch holding its pointer is committed. "always" fsyncs the
// value log before that commit. "everysec" fsyncs it in the journal's once-a-second loop, just
// before the journal sync; it also bounds the unsynced bytes (vlogSyncBudget): past half of it a
// background flusher seals the active file and syncs it while appends go on in a new file, and
// an append that would exceed the budget waits for that flush, which turns the kernel's bursty
// dirty-page throttling into steady back-pressure on large writes. "no" leaves it to the OS. Sealed files are synced before '!vsealed' (the highest file
// known complete on disk) moves past them. A clean close leaves a CLEAN marker; an open without
// it checks every record of the files after '!vsealed', truncates a torn tail, and deletes the
// keys whose pointers point past the valid data (LevelDB can make a pointer durable on its own,
// through a flush of its memtable or another synced write), so no key ever points at missing or
// torn data.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syndtr/goleveldb/leveldb/util"
)

const (
	vlogDirName         = "vlog"
	vlogCleanName       = "CLEAN"
	vlogRecHeader       = 24
	vlogPtrLen          = 25
	vlogPtrVersion      = 1
	vlogMaxKey          = 1 << 30
	defaultVLogFileSize = 256 << 20
	defaultVLogGCRatio  = 0.5
	vlogSyncBudget      = 64 << 20 // everysec: unsynced bytes an append may leave behind
)

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)

	sysVLive   = []byte("!vl")      // live index: '!vl' file(4) offset(8)
	sysVSealed = []byte("!vsealed") // files up to this number are sealed and synced

	// ErrValueLog reports a value-log value that is missing or fails its checksum.
	ErrValueLog = errors.New("storage: value log")
)

// vptr locates one value in the value log.
type vptr struct {
	file uint32
	off  int64 // of the value, after the record header and key
	n    int64
	crc  uint32
}

func encodeVPtr(dst []byte, p vptr) []byte {
	dst = append(dst, vlogPtrVersion)
	dst = binary.BigEndian.AppendUint32(dst, p.file)
	dst = binary.BigEndian.AppendUint64(dst, uint64(p.off))
	dst = binary.BigEndian.AppendUint64(dst, uint64(p.n))
	return binary.BigEndian.AppendUint32(dst, p.crc)
}

func decodeVPtr(b []byte) (vptr, error) {
	if len(b) != vlogPtrLen || b[0] != vlogPtrVersion {
		return vptr{}, errCorrupt
	}
	off, n := binary.BigEndian.Uint64(b[5:]), binary.BigEndian.Uint64(b[13:])
	if off > math.MaxInt64 || n > math.MaxInt64-off {
		return vptr{}, errCorrupt
	}
	return vptr{file: binary.BigEndian.Uint32(b[1:]), off: int64(off), n: int64(n),
		crc: binary.BigEndian.Uint32(b[21:])}, nil
}

// vptrOf returns the pointer of a value-log string.
func vptrOf(m *Meta) (vptr, bool) {
	if m == nil || m.Type != TypeString || m.Enc != EncValueLog {
		return vptr{}, false
	}
	p, err := decodeVPtr(m.Value)
	return p, err == nil
}

func vliveKey(file uint32, off int64) []byte {
	k := append(make([]byte, 0, len(sysVLive)+12), sysVLive...)
	k = binary.BigEndian.AppendUint32(k, file)
	return binary.BigEndian.AppendUint64(k, uint64(off))
}

func vliveFilePrefix(file uint32) []byte {
	return binary.BigEndian.AppendUint32(append([]byte(nil), sysVLive...), file)
}

func vliveValue(p vptr, phys uint32, key []byte) []byte {
	v := make([]byte, 0, 16+len(key))
	v = binary.BigEndian.AppendUint64(v, uint64(p.n))
	v = binary.BigEndian.AppendUint32(v, p.crc)
	v = binary.BigEndian.AppendUint32(v, phys)
	return append(v, key...)
}

// vliveEntry is a decoded live-index record.
type vliveEntry struct {
	p    vptr
	phys uint32
	key  []byte
}

func decodeVLive(k, v []byte) (vliveEntry, bool) {
	if len(k) != len(sysVLive)+12 || !bytes.HasPrefix(k, sysVLive) || len(v) < 16 {
		return vliveEntry{}, false
	}
	k = k[len(sysVLive):]
	n := binary.BigEndian.Uint64(v)
	off := binary.BigEndian.Uint64(k[4:])
	if n > math.MaxInt64 || off > math.MaxInt64-n {
		return vliveEntry{}, false
	}
	return vliveEntry{
		p: vptr{file: binary.BigEndian.Uint32(k), off: int64(off), n: int64(n),
			crc: binary.BigEndian.Uint32(v[8:])},
		phys: binary.BigEndian.Uint32(v[12:]),
		key:  append([]byte(nil), v[16:]...),
	}, true
}

// vfile is one open value-log file. It is closed when removed and no reader holds it.
type vfile struct {
	num     uint32
	path    string
	f       *os.File
	size    atomic.Int64 // bytes of complete records
	refs    atomic.Int32 // the file table's reference plus one per user
	removed atomic.Bool
	pending atomic.Int32 // records whose pointer is not committed yet: the collector waits
	writing atomic.Int32 // staged values still being written: the file is not complete
}

func (f *vfile) release() {
	if f.refs.Add(-1) == 0 {
		f.f.Close()
	}
}

// valueLog is the store's set of value-log files.
type valueLog struct {
	s         *Store
	dir       string
	threshold int
	fileSize  int64
	ratio     float64
	fsync     *fsyncPolicy // the store's appendfsync

	mu     sync.Mutex
	files  map[uint32]*vfile
	live   map[uint32]int64 // live bytes per file, kept by writeMeta, recounted by the collector
	pins   int              // backups and checks running: no file is deleted
	maxNum uint32
	bad    []vrange // incomplete staged records found by the last recovery
	staged atomic.Int64

	appendMu sync.Mutex // serializes appends
	active   *vfile
	rotate   bool          // the next append starts a new file (the flusher sealed the active one)
	actNum   atomic.Uint32 // number of the active file; lower numbers are sealed

	syncMu   sync.Mutex // one sync pass at a time
	bmu      sync.Mutex // appended, synced, dirty, syncErr, closing
	bcond    *sync.Cond
	appended int64
	synced   int64
	dirty    map[uint32]*vfile // files written since the last sync pass began; each holds a ref
	dirDirty bool              // a file was created since the directory was last synced
	syncErr  error
	closing  bool
	sealed   uint32 // persisted '!vsealed'

	flushWake chan struct{}

	gcMu          sync.Mutex
	repairPending bool // lost values found by a read-only open, deleted once it is reopened (disk.go)
	lastRecount   time.Time
	lastDBMap     string
	gcBuf         []byte
}

func vlogFileName(num uint32) string { return fmt.Sprintf("%06d.vlog", num) }

// openValueLog opens the value-log files of s and recovers them after an unclean shutdown.
// It runs after load, before any background work, and may fix up keys through transactions.
func openValueLog(s *Store) (*valueLog, error) {
	o := s.opts
	l := &valueLog{s: s, dir: filepath.Join(o.Dir, vlogDirName), threshold: o.LargeValueThreshold,
		fileSize: o.ValueLogFileSize, ratio: o.ValueLogGCRatio, fsync: &s.fsync,
		files: map[uint32]*vfile{}, live: map[uint32]int64{}, dirty: map[uint32]*vfile{},
		flushWake: make(chan struct{}, 1)}
	l.bcond = sync.NewCond(&l.bmu)
	if l.fileSize <= 0 {
		l.fileSize = defaultVLogFileSize
	}
	if l.ratio <= 0 || l.ratio > 1 {
		l.ratio = defaultVLogGCRatio
	}
	if v, err := s.db().Get(sysVSealed, nil); err == nil && len(v) == 4 {
		l.sealed = binary.BigEndian.Uint32(v)
	}
	ents, err := os.ReadDir(l.dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	clean := false
	var nums []uint32
	for _, e := range ents {
		name := e.Name()
		if name == vlogCleanName {
			clean = true
			continue
		}
		base, ok := strings.CutSuffix(name, ".vlog")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.ParseUint(base, 10, 32)
		if err != nil || n == 0 {
			continue
		}
		nums = append(nums, uint32(n))
	}
	slices.Sort(nums)
	for _, n := range nums {
		path := filepath.Join(l.dir, vlogFileName(n))
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			l.closeFiles()
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			l.closeFiles()
			return nil, err
		}
		vf := &vfile{num: n, path: path, f: f}
		vf.size.Store(st.Size())
		vf.refs.Store(1)
		l.files[n] = vf
		l.maxNum = max(l.maxNum, n)
	}
	if clean {
		// The marker vouches for the files as they were at the last close; it goes before
		// anything is appended, and its removal is made durable, so a later crash is seen.
		if err := os.Remove(filepath.Join(l.dir, vlogCleanName)); err != nil {
			l.closeFiles()
			return nil, err
		}
		if err := syncDir(l.dir); err != nil {
			l.closeFiles()
			return nil, err
		}
	} else {
		for _, n := range nums {
			if n <= l.sealed {
				continue
			}
			if err := l.recoverFile(l.files[n]); err != nil {
				l.closeFiles()
				return nil, err
			}
		}
	}
	l.maxNum = max(l.maxNum, l.sealed) // a new file never takes the number of a lost one
	s.vlog = l                         // the repair below writes through transactions, which keep the live index
	if err := l.repairAndCount(); err != nil {
		l.closeFiles()
		return nil, err
	}
	l.actNum.Store(l.maxNum)
	return l, nil
}

func (l *valueLog) closeFiles() {
	for _, f := range l.files {
		f.f.Close()
	}
}

func (s *Store) dbmapString() string {
	s.global.RLock()
	defer s.global.RUnlock()
	return fmt.Sprint(s.dbmap)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// start launches the value log's background work: the flusher (everysec) and the collector.
func (l *valueLog) start() {
	s := l.s
	if l.fsync.get() == "everysec" {
		s.wg.Add(1)
		go l.flushLoop()
	}
	if !s.opts.DisableBackgrnd {
		s.wg.Add(1)
		go l.gcLoop()
	}
}

// close syncs everything and closes the files; clean leaves the CLEAN marker for the next open.
// It runs after the background work has stopped.
func (l *valueLog) close() error {
	l.bmu.Lock()
	l.closing = true
	l.bcond.Broadcast()
	l.bmu.Unlock()
	err := l.syncNow()
	l.mu.Lock()
	for _, f := range l.files {
		f.release()
	}
	l.files = map[uint32]*vfile{}
	l.mu.Unlock()
	return err
}

// markClean writes the CLEAN marker once the store is closed and everything is on disk.
func (l *valueLog) markClean() error {
	if _, err := os.Stat(l.dir); err != nil {
		return nil // no value log was ever written
	}
	f, err := os.Create(filepath.Join(l.dir, vlogCleanName))
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(l.dir)
	}
	return err
}

// acquire returns file num with a reference the caller releases, or nil.
func (l *valueLog) acquire(num uint32) *vfile {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.files[num]
	if f != nil {
		f.refs.Add(1)
	}
	return f
}

// activeFor returns the file to append to, starting a new one when the active file is full or
// sealed. appendMu is held.
func (l *valueLog) activeFor() (*vfile, error) {
	if l.active == nil && l.maxNum > 0 {
		// After an open, appends continue in the last file.
		if f := l.acquire(l.maxNum); f != nil {
			f.release()
			l.active = f
		}
	}
	if f := l.active; f != nil && !l.rotate && f.size.Load() < l.fileSize {
		return f, nil
	}
	l.rotate = false
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return nil, err
	}
	l.mu.Lock()
	num := l.maxNum + 1
	l.mu.Unlock()
	path := filepath.Join(l.dir, vlogFileName(num))
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	// The directory is synced with the file's data, by the next sync pass: the pointers into
	// the file reach the disk after that (or a recovery drops them).
	l.bmu.Lock()
	l.dirDirty = true
	l.bmu.Unlock()
	f := &vfile{num: num, path: path, f: fh}
	f.refs.Store(1)
	l.mu.Lock()
	l.files[num] = f
	l.maxNum = num
	l.mu.Unlock()
	l.active = f
	l.actNum.Store(num)
	return f, nil
}

// vlogWriteHook, when set by a test, runs after a record is written and before the append
// returns; an error fails the append.
var vlogWriteHook func(p vptr) error

// append writes a record holding value for key in phys and returns the value's pointer and its
// file, whose pending count it raises: the caller lowers it once the pointer is committed or
// dropped (the collector leaves such a file alone). With appendfsync always the record is on
// disk when append returns.
func (l *valueLog) append(phys uint32, key, value []byte) (vptr, *vfile, error) {
	crc := crc32.Checksum(value, castagnoli)
	hdr := make([]byte, vlogRecHeader, vlogRecHeader+len(key))
	binary.BigEndian.PutUint32(hdr[4:], phys)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(key)))
	binary.BigEndian.PutUint64(hdr[12:], uint64(len(value)))
	binary.BigEndian.PutUint32(hdr[20:], crc)
	hdr = append(hdr, key...)
	binary.BigEndian.PutUint32(hdr, crc32.Checksum(hdr[4:], castagnoli))
	n := int64(len(hdr) + len(value))
	if l.fsync.get() == "everysec" {
		l.waitBudget(n)
	}
	l.appendMu.Lock()
	f, err := l.activeFor()
	if err != nil {
		l.appendMu.Unlock()
		return vptr{}, nil, err
	}
	off := f.size.Load()
	p := vptr{file: f.num, off: off + int64(len(hdr)), n: int64(len(value)), crc: crc}
	_, err = f.f.WriteAt(hdr, off)
	if err == nil {
		_, err = f.f.WriteAt(value, p.off)
	}
	if err != nil {
		l.noteError(err) // a full disk
	}
	if err == nil && vlogWriteHook != nil {
		err = vlogWriteHook(p)
	}
	if err != nil {
		f.f.Truncate(off) // best effort: the next record overwrites whatever is left anyway
		l.appendMu.Unlock()
		return vptr{}, nil, err
	}
	f.size.Store(off + n)
	f.pending.Add(1)
	l.noteAppended(f, n)
	l.appendMu.Unlock()
	if l.fsync.get() == "always" {
		if err := l.syncNow(); err != nil {
			f.pending.Add(-1)
			return vptr{}, nil, err
		}
	}
	return p, f, nil
}

// read fills dst with the value p points at and checks its checksum.
func (l *valueLog) read(p vptr, dst []byte) error {
	if int64(len(dst)) != p.n {
		return fmt.Errorf("%w: read of %d bytes into %d", ErrValueLog, p.n, len(dst))
	}
	f := l.acquire(p.file)
	if f == nil {
		return fmt.Errorf("%w: file %s is missing", ErrValueLog, vlogFileName(p.file))
	}
	defer f.release()
	if p.off+p.n > f.size.Load() {
		return fmt.Errorf("%w: %d bytes at %d are past the end of %s", ErrValueLog, p.n, p.off, vlogFileName(p.file))
	}
	if _, err := f.f.ReadAt(dst, p.off); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrValueLog, vlogFileName(p.file), err)
	}
	if crc32.Checksum(dst, castagnoli) != p.crc {
		return fmt.Errorf("%w: checksum mismatch for %d bytes at %d in %s", ErrValueLog, p.n, p.off, vlogFileName(p.file))
	}
	return nil
}

// addLive adjusts the live-bytes estimate of a file.
func (l *valueLog) addLive(file uint32, n int64) {
	l.mu.Lock()
	l.live[file] += n
	l.mu.Unlock()
}

// storeLarge prepares string metadata m for key in phys (which held old): a large inline value
// is appended to the value log and m is replaced by a copy holding the pointer; a pointer that
// another key holds is given its own copy of the value.
func (t *Txn) storeLarge(phys uint32, key []byte, old, m *Meta) (*Meta, error) {
	if m == nil || m.Type != TypeString {
		return m, nil
	}
	l := t.s.vlog
	var value []byte
	switch m.Enc {
	case EncInline:
		if l.threshold <= 0 || len(m.Value) < l.threshold {
			return m, nil
		}
		value = m.Value
	case EncValueLog:
		p, err := decodeVPtr(m.Value)
		if err != nil {
			return nil, err
		}
		if op, ok := vptrOf(old); ok && op == p {
			return m, nil // the key keeps its own value (EXPIRE, PERSIST, GETEX)
		}
		if p == t.staged {
			return m, nil // a staged value (vlog_stage.go): written for this key, owned by no one yet
		}
		v, found, err := t.get(vliveKey(p.file, p.off))
		if err != nil {
			return nil, err
		}
		if found {
			if e, ok := decodeVLive(vliveKey(p.file, p.off), v); ok && e.phys == phys && bytes.Equal(e.key, key) {
				return m, nil
			}
		}
		value = make([]byte, p.n)
		if err := l.read(p, value); err != nil {
			return nil, err
		}
	default:
		return m, nil
	}
	p, f, err := l.append(phys, key, value)
	if err != nil {
		return nil, err
	}
	t.vpend = append(t.vpend, f) // released after the commit (txn.go)
	nm := *m
	nm.Enc, nm.Value = EncValueLog, encodeVPtr(nil, p)
	return &nm, nil
}

// relinkValueLog keeps the live index in step when key's metadata goes from old to m; writeMeta
// calls it, so the index changes in the same batch as the metadata.
func (t *Txn) relinkValueLog(phys uint32, key []byte, old, m *Meta) {
	op, hadOld := vptrOf(old)
	np, hasNew := vptrOf(m)
	if hadOld && hasNew && op == np {
		return
	}
	l := t.s.vlog
	if hadOld {
		t.del(vliveKey(op.file, op.off))
		l.addLive(op.file, -op.n)
	}
	if hasNew {
		k := vliveKey(np.file, np.off)
		// A pointer that RENAME moves is already live: only its owner changes.
		if _, moved, err := t.get(k); err != nil || !moved {
			l.addLive(np.file, np.n)
		}
		t.put(k, vliveValue(np, phys, key))
	}
}

// StringLen returns the length of string m without reading a value-log value.
func (m *Meta) StringLen() int {
	if p, ok := vptrOf(m); ok {
		return int(p.n)
	}
	if m.Enc == EncValueLog {
		return 0
	}
	return len(m.Value)
}

// StringValue returns the bytes of string m, reading them from the value log when m holds a
// pointer (a fresh buffer the caller may keep). An inline value aliases the metadata record.
// The result must not be modified.
func (t *Txn) StringValue(m *Meta) ([]byte, error) {
	if m.Enc == EncInline {
		return m.Value, nil
	}
	p, err := decodeVPtr(m.Value)
	if err != nil {
		return nil, err
	}
	v := make([]byte, p.n)
	if err := t.s.vlog.read(p, v); err != nil {
		return nil, err
	}
	return v, nil
}

// ReadStringInto fills dst, which holds exactly m.StringLen() bytes, with the bytes of string m:
// a value-log value is read straight into dst, with no intermediate buffer.
func (t *Txn) ReadStringInto(m *Meta, dst []byte) error {
	if m.Enc == EncInline {
		if len(dst) != len(m.Value) {
			return fmt.Errorf("storage: string of %d bytes read into %d", len(m.Value), len(dst))
		}
		copy(dst, m.Value)
		return nil
	}
	p, err := decodeVPtr(m.Value)
	if err != nil {
		return err
	}
	return t.s.vlog.read(p, dst)
}

// ValueLogStats describes the value log.
type ValueLogStats struct {
	Files     int
	Bytes     int64 // on disk
	LiveBytes int64 // held by keys (estimate kept by writes, exact after a collector pass)
	Staged    int64 // values streamed in as they arrived (vlog_stage.go), since the start
}

// ValueLogStats returns the value log's size.
func (s *Store) ValueLogStats() ValueLogStats {
	l := s.vlog
	l.mu.Lock()
	defer l.mu.Unlock()
	st := ValueLogStats{Staged: l.staged.Load()}
	for num, f := range l.files {
		st.Files++
		st.Bytes += f.size.Load()
		st.LiveBytes += l.live[num]
	}
	return st
}

// vliveEntries returns the live-index records of one file.
func (l *valueLog) vliveEntries(file uint32) ([]vliveEntry, error) {
	if err := l.s.Flush(); err != nil { // the index is read from LevelDB
		return nil, err
	}
	var out []vliveEntry
	it := l.s.db().NewIterator(util.BytesPrefix(vliveFilePrefix(file)), nil)
	for it.Next() {
		if e, ok := decodeVLive(it.Key(), it.Value()); ok {
			out = append(out, e)
		}
	}
	it.Release()
	return out, it.Error()
}

// LargeValueThreshold returns the size from which a string's value goes to the value log (0
// when none does).
func (s *Store) LargeValueThreshold() int { return max(s.vlog.threshold, 0) }
