package storage

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

const (
	expireBatch     = 200                   // keys examined per expiry step
	expireStepLimit = 25 * time.Millisecond // an expiry cycle keeps stepping while under this
	reclaimBatch    = 1000                  // sub-keys deleted per collector write
	reclaimPause    = time.Millisecond      // least pause between collector writes
	reclaimIdle     = 4                     // the collector idles 4 times as long as each write or compaction took
	compactAfter    = 10000                 // compact an object's range after reclaiming this many sub-keys
	compactChunk    = 100_000               // and compact a large range piecewise, every this many sub-keys
)

// reclaimRead keeps the collector's reads out of the block cache, which holds clients' data.
var reclaimRead = &opt.ReadOptions{DontFillCache: true}

// pace waits after a piece of collector work that began at start: reclaimIdle times as long as
// the work took, at least reclaimPause. The collector so uses at most a fifth of a core
// (LevelDB's own compactions of its deletes included, roughly), whatever the machine's speed,
// and a huge reclaim leaves most of the CPU to clients. It reports false when the store closes.
func (s *Store) pace(start time.Time) bool { return s.paceFor(time.Since(start)) }

// paceFor is pace for work that took d.
func (s *Store) paceFor(d time.Duration) bool {
	return s.sleep(max(reclaimPause, reclaimIdle*d))
}

// errStopping ends a collector pass early because the store is closing; the garbage record stays.
var errStopping = errors.New("storage: closing")

// expireLoop is the active expiry cycle. It runs ActiveExpireHz times a second (10 by default).
// Each cycle walks the expiry index from its oldest entry up to now in steps of expireBatch keys,
// and stops when nothing more is due or after expireStepLimit, so a burst of expiring keys is
// spread over several cycles instead of holding up writers.
func (s *Store) expireLoop() {
	defer s.wg.Done()
	hz := s.opts.ActiveExpireHz
	if hz <= 0 {
		hz = 10
	}
	for s.sleep(time.Second / time.Duration(hz)) {
		if s.expireByMaster.Load() {
			continue // expired.go: a replica's keys go when its master's DEL comes
		}
		if !s.writable() {
			continue // disk.go: the disk refuses writes; reads still hide expired keys
		}
		start := time.Now()
		if s.expiryHeld.Load() > start.UnixNano() || s.activeExpireOff.Load() {
			continue // expiryhold.go: a CLIENT PAUSE holds deletions, or DEBUG turned them off
		}
		for time.Since(start) < expireStepLimit {
			n, err := s.ExpireStep(expireBatch)
			if err != nil {
				s.log.Warn("active expiry", "err", err)
				break
			}
			if n < expireBatch {
				break
			}
		}
		if fn := s.onExpireCycle.Load(); fn != nil {
			(*fn)(time.Since(start))
		}
	}
}

// SetOnExpireCycle installs fn, which the active expiry cycle calls at the end of every cycle
// that ran with the time it took: the server's latency monitor records the slow ones as the
// expire-cycle event. nil removes it.
func (s *Store) SetOnExpireCycle(fn func(d time.Duration)) {
	if fn == nil {
		s.onExpireCycle.Store(nil)
		return
	}
	s.onExpireCycle.Store(&fn)
}

// ExpireStep deletes up to max keys whose expiry time has passed and returns how many index
// entries it examined.
func (s *Store) ExpireStep(max int) (int, error) {
	if err := s.Flush(); err != nil { // the index is read from LevelDB
		return 0, err
	}
	now := time.Now().UnixMilli()
	limit := expireKey(nil, now+1, 0, nil)
	it := s.db().NewIterator(&util.Range{Start: []byte{tagExpire}, Limit: limit}, nil)
	type due struct {
		phys uint32
		key  []byte
		raw  []byte
	}
	var list []due
	for it.Next() && len(list) < max {
		_, phys, k, ok := decodeExpireKey(it.Key())
		if !ok {
			continue
		}
		list = append(list, due{phys, append([]byte(nil), k...), append([]byte(nil), it.Key()...)})
	}
	it.Release()
	if err := it.Error(); err != nil {
		return 0, err
	}
	for _, d := range list {
		db := s.logicalDB(d.phys)
		if db < 0 {
			// The database was flushed; the collector owns its keys.
			if err := s.deleteRaw(d.raw, nil); err != nil {
				return 0, err
			}
			continue
		}
		t := s.Begin(db, [][]byte{d.key}, true)
		if t.phys != d.phys {
			// SWAPDB or FLUSHDB remapped db between logicalDB and Begin: the entry is
			// examined again by a later step.
			t.Abort()
			continue
		}
		m, err := t.rawMeta(t.phys, d.key)
		expired := false
		if err == nil && m != nil && m.Expire != 0 && m.Expire <= t.now {
			t.writeMeta(t.phys, d.key, m, nil)
			s.Stats.ExpiredKeys.Add(1)
			expired = true
			if fn := s.onExpireCommit.Load(); fn != nil {
				key := d.key
				t.OnCommitted(func() { (*fn)(db, key) })
			}
		} else if err == nil && (m == nil || m.Expire == 0 || !bytesEqualExpire(d.raw, m.Expire)) {
			// A stale index entry: the key was changed by a path that missed it.
			t.del(d.raw)
		}
		if err == nil {
			err = t.Commit()
		} else {
			t.Abort()
		}
		if err != nil {
			return 0, err
		}
		if fn := s.onExpire.Load(); expired && fn != nil {
			(*fn)(db, d.key)
		}
	}
	return len(list), nil
}

func bytesEqualExpire(raw []byte, at int64) bool {
	return len(raw) >= 9 && int64(binary.BigEndian.Uint64(raw[1:9])) == at
}

// logicalDB returns the logical database that maps to phys, or -1.
func (s *Store) logicalDB(phys uint32) int {
	s.global.RLock()
	defer s.global.RUnlock()
	for i, p := range s.dbmap {
		if p == phys {
			return i
		}
	}
	return -1
}

func (s *Store) wakeCollector() {
	select {
	case s.gcWake <- struct{}{}:
	default:
	}
}

// collectLoop is the garbage collector. It wakes when a commit queues garbage and at least once
// a second, and drains the garbage queue in writes of reclaimBatch sub-keys with a pause of
// reclaimPause between them, so reclaiming a huge collection never holds up client writes.
func (s *Store) collectLoop() {
	defer s.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-s.gcWake:
		case <-tick.C:
		}
		if !s.writable() {
			continue // disk.go: the disk refuses writes
		}
		if _, err := s.Collect(); err != nil {
			s.log.Warn("garbage collection", "err", err)
		}
	}
}

// Collect drains the garbage queue and returns the number of records it deleted.
func (s *Store) Collect() (int64, error) {
	var total int64
	if err := s.Flush(); err != nil { // the queue is read from LevelDB
		return 0, err
	}
	for {
		it := s.db().NewIterator(util.BytesPrefix([]byte{tagGarbage}), nil)
		var keys, vals [][]byte
		for it.Next() && len(keys) < 64 {
			keys = append(keys, append([]byte(nil), it.Key()...))
			vals = append(vals, append([]byte(nil), it.Value()...))
		}
		it.Release()
		if err := it.Error(); err != nil {
			return total, err
		}
		if len(keys) == 0 {
			s.Stats.GarbagePending.Store(0)
			return total, nil
		}
		s.Stats.GarbagePending.Store(int64(len(keys)))
		for i, gk := range keys {
			v := vals[i]
			var n int64
			var err error
			switch {
			case len(v) == 10 && v[1] == garbageObject:
				n, err = s.reclaimRange(DataKey(nil, binary.BigEndian.Uint64(v[2:]), nil))
				if err == nil {
					s.lazyFreed(n)
				}
			case len(v) == 10 && v[1] == garbageDB:
				n, err = s.reclaimDB(uint32(binary.BigEndian.Uint64(v[2:])))
			}
			total += n
			if err == errStopping {
				return total, nil
			}
			if err != nil {
				return total, err
			}
			if err := s.deleteRaw(gk, nil); err != nil {
				return total, err
			}
			select {
			case <-s.stop:
				return total, nil
			default:
			}
		}
	}
}

// lazyfreeThreshold is the number of records above which a reclaimed object counts as lazily
// freed: Redis frees an object in the background when freeing it takes more than 64
// allocations (LAZYFREE_THRESHOLD), and a packed collection, one record here, never does.
const lazyfreeThreshold = 64

// lazyFreed counts an object whose n records the collector reclaimed.
func (s *Store) lazyFreed(n int64) {
	if n > lazyfreeThreshold {
		s.Stats.LazyFreed.Add(1)
	}
	// Objects queued before the store opened, or by a format conversion, were never counted
	// as pending: the count stays at 0 rather than below.
	for {
		p := s.Stats.LazyPending.Load()
		if p <= 0 || s.Stats.LazyPending.CompareAndSwap(p, p-1) {
			return
		}
	}
}

// reclaimRange deletes every key with prefix p in bounded, paced batches. Each batch starts
// after the last key the previous one deleted, so it does not walk the tombstones already
// written. A range of compactAfter keys or more is compacted, every compactChunk keys and at the
// end, so that the space returns to the file system in bounded, paced steps rather than in one
// long compaction.
func (s *Store) reclaimRange(p []byte) (int64, error) {
	var total, chunk int64
	r := util.BytesPrefix(p)
	from := r.Start
	chunkStart := r.Start // the part of the range reclaimed since the last compaction begins here
	for {
		start := time.Now()
		it := s.db().NewIterator(&util.Range{Start: from, Limit: r.Limit}, reclaimRead)
		var b leveldb.Batch
		for b.Len() < reclaimBatch && it.Next() {
			b.Delete(it.Key())
			from = append(append(from[:0:0], it.Key()...), 0)
		}
		it.Release()
		if err := it.Error(); err != nil {
			return total, err
		}
		if b.Len() == 0 {
			break
		}
		if err := s.commitBatch(&b, nil); err != nil {
			return total, err
		}
		if s.cache != nil {
			s.cache.forget(b.Dump()) // a dead object's records leave the key cache too
		}
		total += int64(b.Len())
		chunk += int64(b.Len())
		s.Stats.ReclaimedKeys.Add(int64(b.Len()))
		if chunk >= compactChunk {
			if err := s.db().CompactRange(util.Range{Start: chunkStart, Limit: from}); err != nil {
				return total, err
			}
			chunkStart, chunk = from, 0
		}
		if !s.pace(start) {
			return total, errStopping
		}
	}
	if total >= compactAfter && chunk > 0 {
		start := time.Now()
		if err := s.db().CompactRange(util.Range{Start: chunkStart, Limit: r.Limit}); err != nil {
			return total, err
		}
		s.pace(start) // the work is done either way; a close just ends the wait
	}
	return total, nil
}

// reclaimDB deletes every key of a flushed physical keyspace, collections included.
func (s *Store) reclaimDB(phys uint32) (int64, error) {
	var total int64
	r := util.BytesPrefix(metaPrefix(phys))
	from := r.Start
	for {
		start := time.Now()
		it := s.db().NewIterator(&util.Range{Start: from, Limit: r.Limit}, reclaimRead)
		var b leveldb.Batch
		var ids []uint64
		for b.Len() < reclaimBatch && it.Next() {
			var m Meta
			if decodeMeta(it.Value(), &m) == nil {
				if m.Type.IsCollection() {
					ids = append(ids, m.ID)
				}
				if m.Expire != 0 {
					// The expiry index is ordered by time, so the keyspace's entries are
					// found through its keys; the one for this key goes in the same batch.
					b.Delete(expireKey(nil, m.Expire, phys, it.Key()[len(r.Start):]))
				}
			}
			b.Delete(it.Key())
			from = append(append(from[:0:0], it.Key()...), 0)
		}
		it.Release()
		if err := it.Error(); err != nil {
			return total, err
		}
		if b.Len() == 0 {
			break
		}
		work := time.Since(start)
		for _, id := range ids { // paced by reclaimRange itself
			n, err := s.reclaimRange(DataKey(nil, id, nil))
			if err != nil {
				return total, err
			}
			total += n
		}
		start = time.Now()
		if err := s.commitBatch(&b, nil); err != nil {
			return total, err
		}
		if s.cache != nil {
			s.cache.forget(b.Dump())
		}
		total += int64(b.Len())
		s.Stats.ReclaimedKeys.Add(int64(b.Len()))
		if !s.paceFor(work + time.Since(start)) {
			return total, errStopping
		}
	}
	if total >= compactAfter {
		return total, s.db().CompactRange(*r)
	}
	return total, nil
}
