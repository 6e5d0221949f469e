package storage

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/comparer"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/memdb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Group commit. A transaction's Commit does not write LevelDB: it appends its batch to the
// store's pending group and indexes the records in the group's overlay, a sorted in-memory
// map (goleveldb's memdb) whose values carry opPut or opDel, then releases its locks. Store.Flush
// writes the pending group with one DB.Write (one journal record, one fsync under appendfsync
// always) before the server sends the replies that acknowledge it; so the commands of a
// pipeline, and those of every other client meanwhile, share one LevelDB write.
//
// # Leader and followers
//
// At most one group is being written at a time. A Flush that finds nothing being written takes
// the pending group and writes it; a Flush that finds a write under way waits for it and then
// writes what became pending meanwhile, unless another caller already does. Under appendfsync
// always, the commits made during one fsync share the next.
//
// # Reads
//
// A read sees every committed write: Txn.get consults the transaction's own overlay, then the
// metadata cache (which commits update), then the pending group and the group being written,
// then LevelDB; Txn.Iterate merges the same layers. A group leaves the overlay only once
// LevelDB holds it. Readers that take a LevelDB snapshot or read LevelDB directly (replication
// snapshots, backups, the invariant check, the expiry cycle, the collector, DEBUG RELOAD,
// Close) flush first.
//
// # Failure
//
// A group whose write fails is dropped from the overlay, and so is the group pending behind
// it, whose commits may build on it: both groups' counter deltas are taken back, the metadata
// cache is emptied, and every Flush waiting for either returns the error, so that no reply
// acknowledges them (the server closes such a connection). noteWriteError makes the server
// refuse writes until a probe write succeeds.
type groupCommit struct {
	mu       sync.Mutex
	pend     *commitGroup // accepting commits; nil while nothing is pending
	flushing *commitGroup // being written; nil while no write is under way
	busy     atomic.Bool  // pend or flushing is set
	val      []byte       // scratch for an overlay value, under mu
}

// commitGroup is the batch of the commits made between two LevelDB writes.
type commitGroup struct {
	batch   *leveldb.Batch
	mem     *memdb.DB // the overlay: key -> opPut value, or opDel
	deltas  []counterDelta
	garbage bool
	done    chan struct{} // closed once the group is written or has failed
	err     error         // why the write failed; set before done is closed
}

// maxPendingBytes bounds a pending group: a commit that leaves more pending writes the group
// at once.
const maxPendingBytes = 4 << 20

func newCommitGroup() *commitGroup {
	return &commitGroup{
		batch: leveldb.MakeBatchWithConfig(&leveldb.BatchConfig{GrowLimit: math.MaxInt32}),
		mem:   memdb.New(comparer.DefaultComparer, 0),
		done:  make(chan struct{}),
	}
}

// add appends the records of a committed batch (Batch.Dump) and its counter deltas to the
// pending group and returns the group's size in bytes. The caller holds counterMu, so that
// groups hold counter records in the order of the counters' updates.
func (gc *groupCommit) add(data []byte, deltas []counterDelta, garbage bool) int {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	g := gc.pend
	if g == nil {
		g = newCommitGroup()
		gc.pend = g
		gc.busy.Store(true)
	}
	walkBatch(data, func(put bool, key, val []byte) {
		if !put {
			g.batch.Delete(key)
			g.mem.Put(key, delMark)
			return
		}
		g.batch.Put(key, val)
		gc.val = append(append(gc.val[:0], opPut), val...)
		g.mem.Put(key, gc.val)
	})
	for _, d := range deltas {
		g.addDelta(d)
	}
	g.garbage = g.garbage || garbage
	return len(g.batch.Dump())
}

func (g *commitGroup) addDelta(d counterDelta) {
	for i := range g.deltas {
		if g.deltas[i].phys == d.phys {
			g.deltas[i].keys += d.keys
			g.deltas[i].expires += d.expires
			return
		}
	}
	g.deltas = append(g.deltas, d)
}

// get looks k up in the pending group and the group being written: its value, whether it
// exists, and whether either group holds it. The value must not be modified.
func (gc *groupCommit) get(k []byte) (val []byte, found, ok bool) {
	gc.mu.Lock()
	pend, flushing := gc.pend, gc.flushing
	gc.mu.Unlock()
	for _, g := range [2]*commitGroup{pend, flushing} {
		if g == nil {
			continue
		}
		if v, err := g.mem.Get(k); err == nil {
			if v[0] == opDel {
				return nil, false, true
			}
			return v[1:], true, true
		}
	}
	return nil, false, false
}

// iterators returns iterators over [r.Start, r.Limit) of the group being written and of the
// pending group, oldest first; they must be taken before the LevelDB iterator they are merged
// with, so that a group written meanwhile is seen in one of them.
func (gc *groupCommit) iterators(r *util.Range, dst []iterator.Iterator) []iterator.Iterator {
	if !gc.busy.Load() {
		return dst
	}
	gc.mu.Lock()
	pend, flushing := gc.pend, gc.flushing
	gc.mu.Unlock()
	for _, g := range [2]*commitGroup{flushing, pend} {
		if g != nil {
			dst = append(dst, g.mem.NewIterator(r))
		}
	}
	return dst
}

// Flush writes every commit made before it to LevelDB, synced as appendfsync asks, and the
// journal to its file: after it returns nil, a reply may acknowledge those commits. Concurrent
// callers share the writes. Flush returns the error of a failed write of the commits it covers.
func (s *Store) Flush() error {
	gc := &s.group
	if !gc.busy.Load() {
		return s.flushJournal()
	}
	gc.mu.Lock()
	target := gc.pend
	if target == nil {
		target = gc.flushing
	}
	for target != nil {
		select {
		case <-target.done:
			gc.mu.Unlock()
			if target.err != nil {
				return target.err
			}
			return s.flushJournal()
		default:
		}
		if f := gc.flushing; f != nil {
			gc.mu.Unlock()
			<-f.done
			gc.mu.Lock()
			continue
		}
		g := gc.pend // target itself: a group is pending, then written, then done
		gc.flushing, gc.pend = g, nil
		gc.mu.Unlock()
		s.writeGroup(g)
		gc.mu.Lock()
	}
	gc.mu.Unlock()
	return s.flushJournal()
}

// groupWriteHook, when set by a test, runs before a group is written; an error fails the write.
var groupWriteHook func(b *leveldb.Batch) error

// writeGroup writes g, the group being written, and retires it.
func (s *Store) writeGroup(g *commitGroup) {
	gc := &s.group
	var err error
	if groupWriteHook != nil {
		err = groupWriteHook(g.batch)
	}
	if err == nil {
		err = s.writeBatch(g.batch, s.fsync.writeOptions())
	}
	if err == nil {
		s.unsynced.Store(true)
		gc.mu.Lock()
		gc.flushing = nil
		gc.busy.Store(gc.pend != nil)
		gc.mu.Unlock()
		close(g.done)
		if g.garbage {
			s.wakeCollector()
		}
		return
	}
	s.noteWriteError(err) // disk.go: a full disk or I/O error; the server refuses writes until it clears
	s.counterMu.Lock()
	gc.mu.Lock()
	failed := []*commitGroup{g}
	if gc.pend != nil {
		failed = append(failed, gc.pend)
	}
	gc.flushing, gc.pend = nil, nil
	gc.busy.Store(false)
	for _, f := range failed {
		for _, d := range f.deltas {
			s.keys[d.phys] -= d.keys
			s.expires[d.phys] -= d.expires
		}
	}
	gc.mu.Unlock()
	s.counterMu.Unlock()
	s.cache.clear() // it holds the failed groups' metadata
	for _, f := range failed {
		f.err = err
		close(f.done)
	}
}
