package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// ErrWrongType is returned when a key holds a value of another type than the command needs.
var ErrWrongType = errors.New("storage: wrong type")

// Txn is one command's view of the store: the locks of its keys, an overlay of its own pending
// writes, and the batch that Commit writes. A Txn is used by one goroutine.
type Txn struct {
	s      *Store
	db     int
	phys   uint32
	write  bool
	hits   int32 // keyspace hits and misses of a read transaction, added to the store's on release
	misses int32
	// lazy holds the keys of t's database that a read found expired: release deletes them
	// (expiry.go's lazy expiry), as a read in Redis deletes the expired key it finds.
	lazy      [][]byte
	exclusive bool
	now       int64
	stripes   []uint16

	batch       leveldb.Batch
	over        map[string][]byte // pending writes: value prefixed by opPut, or opDel alone
	deltas      []counterDelta
	garbage     bool
	garbageObjs int64  // objects queued for the collector (Stats.LazyPending once committed)
	buf         []byte // scratch for keys being read
	gbuf        []byte // values read from the pending groups (group.go), kept until release
	kbuf        []byte // scratch for keys and values being written (the batch copies them)
	vbuf        []byte
	oldMeta     Meta       // scratch for the metadata a write replaces
	lmeta       Meta       // scratch for the metadata of the list a push or a pop works on (endMeta)
	pmeta       Meta       // scratch for PeekMeta's result
	pxmeta      StreamMeta // scratch for PeekStreamMeta's stream state
	xpeek       bool       // the metadata being read decodes into pxmeta
	pops        [1][]byte  // room for the element ListPop returns when it pops one
	done        bool

	overOff int // bytes of the batch already indexed in over

	lbuf []byte   // scratch for a list node record being written (list.go)
	nbuf [20]byte // scratch for a decimal value being written (SetInt)

	// A stream chunk XADD wrote, staged until the metadata is written or a data record is read
	// (stream_node.go), so that PutMeta's read of the old metadata indexes nothing.
	xpendKey, xbuf []byte
	xpend          bool
	xscratch       []byte   // an entry's reply being built
	xfields        [][]byte // the field names of a compact chunk's first entry
	xmerge         []byte   // a closed node's chunks being merged (closeChunked)
	nocache        bool     // records read from LevelDB stay out of the key cache

	vpend  []*vfile // value-log files holding records this transaction points to (vlog.go)
	staged vptr     // a staged value being stored (vlog_stage.go)

	expired       []ExpiredKey // keys deleted on the way because they had expired (expired.go)
	expiredWrites int          // the batch records those deletions staged
	keepExpired   bool         // expired keys read as live (KeepExpired)

	// memo holds the last metadata record and the last other record read from below t's own
	// writes (get): a command usually reads a key's metadata, then a data record, then
	// rewrites the metadata, whose old value PutMeta reads again.
	memo [2]readMemo

	committed []func() // run after a successful commit, before the locks are released

	snap *leveldb.Snapshot // set for a transaction of a Snapshot: reads come from it, no lock is held
}

// readMemo is a record a transaction read, with its key: the value must not be modified.
type readMemo struct {
	key   []byte
	val   []byte
	found bool
	ok    bool
}

type counterDelta struct {
	phys          uint32
	keys, expires int64
}

const (
	opPut = 1
	opDel = 2
)

var delMark = []byte{opDel}

// txnPool recycles transactions. A transaction's batch grows by doubling: goleveldb's own
// growth adds a fixed number of records' room once a batch passes 3,000 records, which makes
// a script or EXEC that stages a million writes copy its batch quadratically.
var txnPool = sync.Pool{New: func() any {
	t := new(Txn)
	t.batch = *leveldb.MakeBatchWithConfig(&leveldb.BatchConfig{GrowLimit: math.MaxInt32})
	return t
}}

// Begin starts a transaction on logical database db that locks keys, for writing when write is set.
func (s *Store) Begin(db int, keys [][]byte, write bool) *Txn {
	return s.BeginAt(db, keys, write, time.Now().UnixMilli())
}

// BeginAt is Begin for a command that has read the clock already: now (Unix milliseconds) is
// the time against which the transaction judges expiry.
func (s *Store) BeginAt(db int, keys [][]byte, write bool, now int64) *Txn {
	s.global.RLock()
	t := txnPool.Get().(*Txn)
	t.s, t.db, t.write, t.exclusive = s, db, write, false
	t.phys = s.dbmap[db]
	t.now = now
	t.stripes = t.stripes[:0]
	for _, k := range keys {
		t.stripes = append(t.stripes, stripeOf(t.phys, k))
	}
	t.stripes = s.locks.lock(t.stripes, write)
	return t
}

// BeginExclusive starts a write transaction that excludes every other transaction, for
// operations that span databases (FLUSHALL, SWAPDB, MOVE).
func (s *Store) BeginExclusive(db int) *Txn {
	s.global.Lock()
	t := txnPool.Get().(*Txn)
	t.s, t.db, t.write, t.exclusive = s, db, true, true
	t.phys = s.dbmap[db]
	t.now = time.Now().UnixMilli()
	t.stripes = t.stripes[:0]
	return t
}

// UseDB switches t to logical database db, for SELECT inside EXEC or a script. Keys of other
// databases are not locked by a shared transaction, so t must be exclusive unless db is t's own.
func (t *Txn) UseDB(db int) {
	if db != t.db && !t.exclusive {
		panic("storage: UseDB across databases needs an exclusive transaction")
	}
	t.db, t.phys = db, t.s.dbmap[db]
}

// DB returns the logical database of t.
func (t *Txn) DB() int { return t.db }

// Now returns the time, in unix milliseconds, against which t checks expiry.
func (t *Txn) Now() int64 { return t.now }

// Abort releases t without writing anything.
func (t *Txn) Abort() { t.release() }

// Commit adds t's batch to the store's pending group (group.go) and releases t; Store.Flush
// writes it to LevelDB. Every later transaction reads what t wrote. An exclusive transaction,
// one whose records point into the value log, and one that leaves a large group pending
// write the group before they return, so that their error reaches the caller. After Commit or
// Abort, t must not be used.
func (t *Txn) Commit() error {
	if t.done {
		return nil
	}
	t.flushChunk()
	defer t.release()
	if t.batch.Len() == 0 {
		return nil
	}
	s := t.s
	if s.cache != nil {
		s.cache.applyBatch(t.batch.Dump()) // before the group: a failed group's write clears it
	}
	s.counterMu.Lock()
	for _, d := range t.deltas {
		s.keys[d.phys] += d.keys
		s.expires[d.phys] += d.expires
		t.kbuf = appendCounterKey(t.kbuf[:0], d.phys)
		t.vbuf = binary.BigEndian.AppendUint64(t.vbuf[:0], uint64(s.keys[d.phys]))
		t.vbuf = binary.BigEndian.AppendUint64(t.vbuf, uint64(s.expires[d.phys]))
		t.batch.Put(t.kbuf, t.vbuf)
	}
	size := s.group.add(t.batch.Dump(), t.deltas, t.garbage, t.garbageObjs)
	s.counterMu.Unlock()
	if t.exclusive || len(t.vpend) > 0 || size > maxPendingBytes {
		if err := s.Flush(); err != nil {
			return err
		}
	}
	for _, f := range t.committed {
		f()
	}
	return nil
}

// OnCommitted registers f to run once the transaction's writes have committed, before its keys
// are unlocked: what follows a write in the order of commits (a replication stream) is ordered
// as the writes of the same keys are. f does not run when the commit fails, when the
// transaction is aborted, or when it staged nothing.
func (t *Txn) OnCommitted(f func()) { t.committed = append(t.committed, f) }

func (t *Txn) release() {
	if t.done {
		return
	}
	if t.snap != nil {
		t.snap = nil
	} else if t.exclusive {
		t.s.global.Unlock()
	} else {
		t.s.locks.unlock(t.stripes, t.write)
		t.s.global.RUnlock()
	}
	if t.hits > 0 || t.misses > 0 {
		t.s.keyspaceHits.Add(int64(t.hits))
		t.s.keyspaceMisses.Add(int64(t.misses))
		t.hits, t.misses = 0, 0
	}
	t.batch.Reset()
	t.overOff = 0
	t.xpend = false
	if cap(t.gbuf) > 64<<10 {
		t.gbuf = nil
	} else {
		t.gbuf = t.gbuf[:0]
	}
	if len(t.over) > 1024 {
		t.over = nil // a big overlay is dropped rather than cleared bucket by bucket
	} else {
		clear(t.over)
	}
	t.deltas = t.deltas[:0]
	t.pops[0] = nil
	for i, f := range t.vpend {
		f.pending.Add(-1) // committed or dropped: the collector may look at the file again
		t.vpend[i] = nil
	}
	t.vpend = t.vpend[:0]
	t.garbage, t.garbageObjs = false, 0
	for i := range t.memo {
		t.memo[i].ok, t.memo[i].val = false, nil
	}
	clear(t.committed)
	t.committed = t.committed[:0]
	clear(t.expired)
	t.expired, t.expiredWrites, t.keepExpired = t.expired[:0], 0, false
	s, db, lazy := t.s, t.db, t.lazy
	t.s, t.lazy = nil, nil
	txnPool.Put(t)
	if len(lazy) > 0 {
		s.expireLazily(db, lazy) // the locks are released: it takes the keys' write locks
	}
}

func (t *Txn) addDelta(phys uint32, keys, expires int64) {
	if keys == 0 && expires == 0 {
		return
	}
	for i := range t.deltas {
		if t.deltas[i].phys == phys {
			t.deltas[i].keys += keys
			t.deltas[i].expires += expires
			return
		}
	}
	t.deltas = append(t.deltas, counterDelta{phys, keys, expires})
}

// get reads k through the overlay. The result must not be modified.
func (t *Txn) get(k []byte) ([]byte, bool, error) {
	if t.xpend && k[0] != tagMeta {
		t.flushChunk()
	}
	t.syncOverlay()
	if t.over != nil {
		if v, ok := t.over[string(k)]; ok {
			if v[0] == opDel {
				return nil, false, nil
			}
			return v[1:], true, nil
		}
	}
	if t.snap != nil {
		v, err := t.snap.Get(k, nil)
		if err == leveldb.ErrNotFound {
			return nil, false, nil
		}
		return v, err == nil, err
	}
	// The records read are remembered, the metadata apart from the others: a write goes to
	// the overlay, consulted first, and no other transaction writes a key t has locked.
	mm := &t.memo[1]
	if k[0] == tagMeta {
		mm = &t.memo[0]
	}
	if mm.ok && bytes.Equal(k, mm.key) {
		return mm.val, mm.found, nil
	}
	cache := t.s.cache
	cacheable := cache != nil && (k[0] == tagMeta || k[0] == tagData)
	if cacheable {
		if v, found, ok := cache.get(k); ok {
			mm.remember(k, v, found)
			return v, found, nil
		}
	}
	if t.s.group.busy.Load() {
		if v, found, ok := t.s.group.get(k, &t.gbuf); ok {
			mm.remember(k, v, found)
			return v, found, nil
		}
	}
	v, err := t.s.db().Get(k, nil)
	found := err == nil
	if err == leveldb.ErrNotFound {
		err = nil
	}
	if err != nil {
		return nil, false, err
	}
	if cacheable && !t.nocache {
		cache.set(k, v, found)
	}
	mm.remember(k, v, found)
	return v, found, nil
}

func (mm *readMemo) remember(k, v []byte, found bool) {
	mm.key, mm.val, mm.found, mm.ok = append(mm.key[:0], k...), v, found, true
}

func (t *Txn) overlay() map[string][]byte {
	if t.over == nil {
		t.over = make(map[string][]byte)
	}
	return t.over
}

// put stages k=v.
func (t *Txn) put(k, v []byte) { t.batch.Put(k, v) }

// del stages the deletion of k.
func (t *Txn) del(k []byte) { t.batch.Delete(k) }

// syncOverlay indexes the batch records staged since the last read, so reads see them. Most
// commands read before they write, so their writes are never indexed.
func (t *Txn) syncOverlay() {
	data := t.batch.Dump()
	if len(data) == t.overOff {
		return
	}
	m := t.overlay()
	walkBatch(data[t.overOff:], func(put bool, key, val []byte) {
		if !put {
			m[string(key)] = delMark
			return
		}
		e := make([]byte, 1+len(val))
		e[0] = opPut
		copy(e[1:], val)
		m[string(key)] = e
	})
	t.overOff = len(data)
}

// GetData reads a collection sub-key built by DataKey.
func (t *Txn) GetData(k []byte) ([]byte, bool, error) { return t.get(k) }

// PutData stages a collection sub-key.
func (t *Txn) PutData(k, v []byte) { t.put(k, v) }

// DeleteData stages the deletion of a collection sub-key.
func (t *Txn) DeleteData(k []byte) { t.del(k) }

// Iter walks [start, limit) in one direction, merging the layers of what is committed: LevelDB,
// the group being written, the pending group (group.go) and t's own pending writes, each over
// the ones before it. Key and Value are valid until the next call to Next.
type Iter struct {
	layers  []layer // oldest first; layers[0] is LevelDB, whose values carry no op byte
	ok      []bool
	step    []bool // advance the layer before the next step
	reverse bool
	key     []byte
	val     []byte
	lbuf    [4]layer
	okBuf   [4]bool
	stepBuf [4]bool
	gbuf    [2]*ovIter
}

// layer is one source of an Iter.
type layer interface {
	First() bool
	Last() bool
	Next() bool
	Prev() bool
	Key() []byte
	Value() []byte
}

// Iterate returns an iterator over [start, limit); limit nil means no upper bound.
func (t *Txn) Iterate(start, limit []byte, reverse bool) *Iter {
	t.flushChunk()
	r := &util.Range{Start: start, Limit: limit}
	it := &Iter{reverse: reverse}
	it.layers = it.lbuf[:1]
	var base iterator.Iterator
	if t.snap != nil {
		base = t.snap.NewIterator(r, nil)
	} else {
		for _, g := range t.s.group.iterators(start, limit, it.gbuf[:0]) { // before LevelDB's: group.go
			it.layers = append(it.layers, g)
		}
		base = t.s.db().NewIterator(r, nil)
	}
	it.layers[0] = base
	t.syncOverlay()
	if len(t.over) > 0 {
		it.layers = append(it.layers, newSliceIter(t.over, start, limit))
	}
	it.ok, it.step = it.okBuf[:len(it.layers)], it.stepBuf[:len(it.layers)]
	for i, l := range it.layers {
		if reverse {
			it.ok[i] = l.Last()
		} else {
			it.ok[i] = l.First()
		}
	}
	return it
}

// Next moves to the next entry and reports whether there is one.
func (it *Iter) Next() bool {
	for {
		for i, l := range it.layers {
			if it.step[i] {
				if it.reverse {
					it.ok[i] = l.Prev()
				} else {
					it.ok[i] = l.Next()
				}
				it.step[i] = false
			}
		}
		var first []byte // the next key in the walk's direction
		for i, l := range it.layers {
			if it.ok[i] && (first == nil || it.before(l.Key(), first)) {
				first = l.Key()
			}
		}
		if first == nil {
			return false
		}
		top := 0 // the newest layer holding first: its entry hides the older layers'
		for i, l := range it.layers {
			if it.ok[i] && bytes.Equal(l.Key(), first) {
				it.step[i], top = true, i
			}
		}
		l := it.layers[top]
		if top == 0 {
			it.key, it.val = l.Key(), l.Value()
			return true
		}
		if v := l.Value(); v[0] != opDel {
			it.key, it.val = l.Key(), v[1:]
			return true
		}
	}
}

// before reports whether a comes before b in the walk's direction.
func (it *Iter) before(a, b []byte) bool {
	if it.reverse {
		return bytes.Compare(a, b) > 0
	}
	return bytes.Compare(a, b) < 0
}

// Key returns the current LevelDB key.
func (it *Iter) Key() []byte { return it.key }

// Value returns the current value.
func (it *Iter) Value() []byte { return it.val }

// Close releases the iterator and returns its error, if any.
func (it *Iter) Close() error {
	base := it.layers[0].(iterator.Iterator)
	err := base.Error()
	base.Release()
	return err
}

// sliceIter walks a sorted copy of the overlay entries in [start, limit), taken when the
// iterator is created.
type sliceIter struct {
	keys [][]byte
	vals [][]byte
	pos  int
}

func newSliceIter(m map[string][]byte, start, limit []byte) *sliceIter {
	var names []string
	for k := range m {
		if k >= string(start) && (limit == nil || k < string(limit)) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	si := &sliceIter{keys: make([][]byte, len(names)), vals: make([][]byte, len(names))}
	for i, k := range names {
		si.keys[i], si.vals[i] = []byte(k), m[k]
	}
	return si
}

func (si *sliceIter) First() bool   { si.pos = 0; return si.pos < len(si.keys) }
func (si *sliceIter) Last() bool    { si.pos = len(si.keys) - 1; return si.pos >= 0 }
func (si *sliceIter) Next() bool    { si.pos++; return si.pos < len(si.keys) }
func (si *sliceIter) Prev() bool    { si.pos--; return si.pos >= 0 }
func (si *sliceIter) Key() []byte   { return si.keys[si.pos] }
func (si *sliceIter) Value() []byte { return si.vals[si.pos] }
