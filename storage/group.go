package storage

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/syndtr/goleveldb/leveldb"
)

// Group commit. A transaction's Commit does not write LevelDB: it adds the records of its batch
// to the store's pending group, whose overlay (overlay.go) keeps the latest record of each key
// with opPut or opDel, then releases its locks. Store.Flush writes the pending group with one
// DB.Write (one journal record, one fsync under appendfsync always) before the server sends
// the replies that acknowledge it; so the commands of a pipeline, and those of every other
// client meanwhile, share one LevelDB write. That write holds each key's latest record only: a
// key written by many commands of a group (a counter, a list's head node and metadata) costs
// LevelDB one record. The group is one batch, so no reader of LevelDB ever sees the states in
// between, and the state it leaves is the one the commands left in order.
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
	pend     *commitGroup  // accepting commits; nil while nothing is pending
	flushing *commitGroup  // being written; nil while no write is under way
	busy     atomic.Bool   // pend or flushing is set
	seq      uint64        // commits added, ever
	pending  *atomic.Int64 // Stats.LazyPending
	resolved atomic.Uint64 // every commit up to this number is written or lost
	lost     []seqRange    // commits lost in failed writes (the latest few; older ones merged)
	spare    struct {      // a retired group's batch, overlay and deltas, kept for the next group
		batch  *leveldb.Batch
		mem    *overlay
		deltas []counterDelta
	}
}

// commitGroup is the batch of the commits made between two LevelDB writes.
type commitGroup struct {
	batch   *leveldb.Batch
	mem     *overlay // the records by key (overlay.go)
	iters   int      // iterators over mem taken (under groupCommit.mu): mem is not reused
	deltas  []counterDelta
	garbage bool
	objs    int64         // objects its commits queued for the collector (Stats.LazyPending)
	last    uint64        // the number of its latest commit
	done    chan struct{} // closed once the group is written or has failed
	err     error         // why the write failed; set before done is closed
}

// seqRange is the commits numbered first to last, lost with the error err.
type seqRange struct {
	first, last uint64
	err         error
}

// maxLost bounds the lost ranges kept; beyond it the oldest two are merged.
const maxLost = 16

// maxPendingBytes bounds a pending group: a commit that leaves more pending writes the group
// at once.
const maxPendingBytes = 4 << 20

// newGroup returns an empty group, with the batch and overlay of a retired one when there is
// one. The caller holds mu.
func (gc *groupCommit) newGroup() *commitGroup {
	g := &commitGroup{done: make(chan struct{})}
	if sp := &gc.spare; sp.batch != nil {
		g.batch, g.mem, g.deltas = sp.batch, sp.mem, sp.deltas[:0]
		sp.batch, sp.mem, sp.deltas = nil, nil, nil
		return g
	}
	g.batch = leveldb.MakeBatchWithConfig(&leveldb.BatchConfig{GrowLimit: math.MaxInt32})
	g.mem = new(overlay)
	return g
}

// retire keeps the batch and overlay of g, which has left the overlay, for the next group,
// unless an iterator may still read the overlay or they have grown large. The caller holds mu.
func (gc *groupCommit) retire(g *commitGroup) {
	if g.iters > 0 || g.mem.size() > maxPendingBytes || len(g.batch.Dump()) > maxPendingBytes {
		return
	}
	g.batch.Reset()
	g.mem.reset()
	gc.spare.batch, gc.spare.mem, gc.spare.deltas = g.batch, g.mem, g.deltas
}

// add appends the records of a committed batch (Batch.Dump) and its counter deltas to the
// pending group and returns the group's size in bytes; objs is the number of objects the batch
// queues for the collector. The caller holds counterMu, so that groups hold counter records in
// the order of the counters' updates.
func (gc *groupCommit) add(data []byte, deltas []counterDelta, garbage bool, objs int64) int {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	g := gc.pend
	if g == nil {
		g = gc.newGroup()
		gc.pend = g
		gc.busy.Store(true)
	}
	walkBatch(data, func(put bool, key, val []byte) {
		if !put {
			g.mem.put(key, opDel, nil)
			return
		}
		g.mem.put(key, opPut, val)
	})
	for _, d := range deltas {
		g.addDelta(d)
	}
	g.garbage = g.garbage || garbage
	g.objs += objs
	gc.pending.Add(objs)
	gc.seq++
	g.last = gc.seq
	return g.mem.size()
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
// exists, and whether either group holds it. The value is copied to the end of *buf, since an
// overlay is reused once written; it must not be modified.
func (gc *groupCommit) get(k []byte, buf *[]byte) (val []byte, found, ok bool) {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	for _, g := range [2]*commitGroup{gc.pend, gc.flushing} {
		if g == nil {
			continue
		}
		if v, ok := g.mem.get(k); ok {
			if v[0] == opDel {
				return nil, false, true
			}
			n := len(*buf)
			*buf = append(*buf, v[1:]...)
			return (*buf)[n:len(*buf):len(*buf)], true, true
		}
	}
	return nil, false, false
}

// iterators returns iterators over [start, limit) of the group being written and of the
// pending group, oldest first; they must be taken before the LevelDB iterator they are merged
// with, so that a group written meanwhile is seen in one of them.
func (gc *groupCommit) iterators(start, limit []byte, dst []*ovIter) []*ovIter {
	if !gc.busy.Load() {
		return dst
	}
	gc.mu.Lock()
	defer gc.mu.Unlock()
	for _, g := range [2]*commitGroup{gc.flushing, gc.pend} {
		if g != nil {
			g.iters++
			dst = append(dst, g.mem.iterator(start, limit))
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
		if g != target {
			// Written by another caller, which retired it and is about to close its done.
			gc.mu.Unlock()
			<-target.done
			gc.mu.Lock()
			continue
		}
		gc.flushing, gc.pend = g, nil
		gc.mu.Unlock()
		s.writeGroup(g)
		gc.mu.Lock()
	}
	gc.mu.Unlock()
	return s.flushJournal()
}

// CommitSeq returns the number of every commit resolved so far (written to LevelDB, or lost
// in a failed write): a connection that has flushed through it records it, and its next
// replies can depend only on later commits (FlushSince).
func (s *Store) CommitSeq() uint64 { return s.group.resolved.Load() }

// FlushSince is Flush for replies of a connection whose replies so far depended on no commit
// after from (a CommitSeq it recorded): it writes every pending commit and returns an error if
// any commit after from was lost in a failed write, even one that failed before the call,
// since the replies may have read it. On success it returns the new point to record.
func (s *Store) FlushSince(from uint64) (uint64, error) {
	if !s.group.busy.Load() && s.group.resolved.Load() == from {
		return from, s.flushJournal() // nothing committed since
	}
	s.group.mu.Lock()
	to := s.group.seq // the latest commit these replies can depend on
	s.group.mu.Unlock()
	if err := s.Flush(); err != nil {
		return from, err
	}
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	for _, r := range s.group.lost {
		if r.last > from && r.first <= to {
			return from, r.err
		}
	}
	return to, nil
}

// groupWriteHook, when set by a test, runs before a group is written; an error fails the write.
var groupWriteHook func(b *leveldb.Batch) error

// writeGroup writes g, the group being written, and retires it.
func (s *Store) writeGroup(g *commitGroup) {
	gc := &s.group
	g.mem.fill(g.batch)
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
		gc.resolved.Store(g.last)
		gc.retire(g)
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
	gc.lost = append(gc.lost, seqRange{gc.resolved.Load() + 1, gc.seq, err})
	if len(gc.lost) > maxLost {
		gc.lost[1].first = gc.lost[0].first
		gc.lost = slices.Delete(gc.lost, 0, 1)
	}
	gc.resolved.Store(gc.seq)
	for _, f := range failed {
		for _, d := range f.deltas {
			s.keys[d.phys] -= d.keys
			s.expires[d.phys] -= d.expires
		}
		gc.pending.Add(-f.objs)
	}
	gc.mu.Unlock()
	s.counterMu.Unlock()
	s.cache.clear() // it holds the failed groups' metadata
	for _, f := range failed {
		f.err = err
		close(f.done)
	}
}
