package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/syndtr/goleveldb/leveldb"
)

// metaCache keeps recently used metadata records (and the knowledge that a key is absent) in
// memory, so that reading a hot key's metadata costs a map lookup instead of a LevelDB read.
// Data records read by point reads (a list's nodes, a hash's fields) are kept too, so that
// LRANGE of a hot list reads its nodes from memory; a commit updates the data records the cache
// holds, and does not add the others. The collector deletes the records of dropped objects
// without it: their IDs are never used again, so their entries are never read and age out.
// It is bounded by a byte budget split over shards; a full shard evicts entries in the order
// of a rotating hand over its entries, whatever their use.
//
// Coherence: entries change only while the key's lock is held. A read fills the cache after
// reading LevelDB under at least a shared lock on the key; a commit updates the entries of the
// metadata it wrote before the transaction releases its write locks. Every metadata write goes
// through a Txn, except the collector's deletion of a flushed physical keyspace, whose keys can
// no longer be reached.
type metaCache struct {
	seed     maphash.Seed // picks a key's shard
	shards   [cacheShards]cacheShard
	perShard int64
}

const (
	cacheShards   = 64
	cacheMaxEntry = 32 << 10 // larger records are not cached; a packed stream node is up to ~20 KB
	cacheOverhead = 64       // bytes charged per entry beyond key and value
)

// A shard's map holds positions in its entry slice, so that rewriting a cached key's entry
// finds it without building a new key string (an assignment m[string(k)] allocates one).
type cacheShard struct {
	mu     sync.Mutex
	idx    map[string]int32
	ents   []cacheEntry
	bytes  int64
	hand   int   // the next eviction candidate
	hits   int64 // lookups that found the key cached, counted under mu
	misses int64
}

type cacheEntry struct {
	key   string
	val   []byte // never modified once stored
	found bool
}

func (e *cacheEntry) cost() int64 { return int64(len(e.key) + len(e.val) + cacheOverhead) }

func newMetaCache(budget int64) *metaCache {
	if budget <= 0 {
		return nil
	}
	c := &metaCache{seed: maphash.MakeSeed(), perShard: budget / cacheShards}
	for i := range c.shards {
		c.shards[i].idx = make(map[string]int32)
	}
	return c
}

func (c *metaCache) shard(k []byte) *cacheShard {
	return &c.shards[maphash.Bytes(c.seed, k)%cacheShards]
}

// get returns the cached record of k: its value, whether the key exists, and whether k was
// cached at all. The value must not be modified.
func (c *metaCache) get(k []byte) (val []byte, found, ok bool) {
	sh := c.shard(k)
	sh.mu.Lock()
	i, ok := sh.idx[string(k)]
	if ok {
		e := &sh.ents[i]
		val, found = e.val, e.found
		sh.hits++
	} else {
		sh.misses++
	}
	sh.mu.Unlock()
	return val, found, ok
}

// set records k's value (found false: absent). val is copied.
func (c *metaCache) set(k, val []byte, found bool) { c.update(k, val, found, false) }

// refresh is set for a key the cache holds; it leaves an absent key absent.
func (c *metaCache) refresh(k, val []byte, found bool) { c.update(k, val, found, true) }

// update is set, or refresh when held is set, under one hold of the shard's lock.
func (c *metaCache) update(k, val []byte, found, held bool) {
	sh := c.shard(k)
	if len(k)+len(val) > cacheMaxEntry {
		sh.mu.Lock()
		if i, ok := sh.idx[string(k)]; ok {
			sh.remove(int(i))
		}
		sh.mu.Unlock()
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	i, ok := sh.idx[string(k)]
	if !ok && held {
		return
	}
	var v []byte
	if found {
		v = make([]byte, len(val))
		copy(v, val)
	}
	cost := int64(len(k) + len(v) + cacheOverhead)
	keep := int32(-1)
	if ok {
		e := &sh.ents[i]
		sh.bytes += cost - e.cost()
		e.val, e.found = v, found
		keep = i
	} else {
		sh.bytes += cost
	}
	for sh.bytes > c.perShard && len(sh.ents) > 0 && (keep < 0 || len(sh.ents) > 1) {
		victim := sh.hand % len(sh.ents)
		if int32(victim) == keep {
			victim = (victim + 1) % len(sh.ents)
		}
		sh.hand = victim + 1
		if moved := sh.remove(victim); keep >= 0 && moved == keep {
			keep = int32(victim) // the kept entry took the victim's place
		}
	}
	if keep < 0 {
		key := string(k) // one copy, shared by the index and the entry
		sh.idx[key] = int32(len(sh.ents))
		sh.ents = append(sh.ents, cacheEntry{key: key, val: v, found: found})
	}
}

// remove deletes the entry at position i, moving the last entry into its place; it returns
// the moved entry's former position (-1 when none moved). The caller holds sh.mu.
func (sh *cacheShard) remove(i int) int32 {
	e := &sh.ents[i]
	sh.bytes -= e.cost()
	delete(sh.idx, e.key)
	last := len(sh.ents) - 1
	moved := int32(-1)
	if i != last {
		sh.ents[i] = sh.ents[last]
		sh.idx[sh.ents[i].key] = int32(i)
		moved = int32(last)
	}
	sh.ents[last] = cacheEntry{}
	sh.ents = sh.ents[:last]
	return moved
}

func (c *metaCache) drop(k []byte) {
	sh := c.shard(k)
	sh.mu.Lock()
	if i, ok := sh.idx[string(k)]; ok {
		sh.remove(int(i))
	}
	sh.mu.Unlock()
}

// clear empties the cache (a nil cache stays nil).
func (c *metaCache) clear() {
	if c == nil {
		return
	}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		clear(sh.idx)
		clear(sh.ents)
		sh.ents, sh.bytes, sh.hand = sh.ents[:0], 0, 0
		sh.mu.Unlock()
	}
}

// stats returns the bytes the cache holds and its hit and miss counts.
func (c *metaCache) stats() (bytes, hits, misses int64) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		bytes, hits, misses = bytes+sh.bytes, hits+sh.hits, misses+sh.misses
		sh.mu.Unlock()
	}
	return bytes, hits, misses
}

// applyBatch updates the entries of every metadata record in a committed batch's records,
// and those of the data records the cache holds.
func (c *metaCache) applyBatch(data []byte) {
	walkBatch(data, func(put bool, key, val []byte) {
		switch key[0] {
		case tagMeta:
			c.set(key, val, put)
		case tagData:
			c.refresh(key, val, put)
		}
	})
}

// forget drops the entries of every record a batch deletes.
func (c *metaCache) forget(data []byte) {
	walkBatch(data, func(put bool, key, _ []byte) {
		if !put {
			c.drop(key)
		}
	})
}

// applyFailed drops the entries of the metadata records in a batch whose write failed, since
// LevelDB may or may not have applied it.
func (c *metaCache) applyFailed(data []byte) {
	walkBatch(data, func(_ bool, key, _ []byte) {
		if key[0] == tagMeta {
			c.drop(key)
		}
	})
}

// walkBatch calls fn for each record of a goleveldb batch's data (Batch.Dump): a type byte
// (1 put, 0 delete), the key length as a uvarint, the key, and for puts the value length and
// value. Keys are never empty in Strata's batches.
func walkBatch(data []byte, fn func(put bool, key, val []byte)) {
	for o := 0; o < len(data); {
		put := data[o] != 0
		o++
		kl, n := binary.Uvarint(data[o:])
		o += n
		key := data[o : o+int(kl)]
		o += int(kl)
		var val []byte
		if put {
			vl, n := binary.Uvarint(data[o:])
			o += n
			val = data[o : o+int(vl)]
			o += int(vl)
		}
		fn(put, key, val)
	}
}

// CacheStats reports the metadata cache's size in bytes and its hit and miss counts.
func (s *Store) CacheStats() (bytes, hits, misses int64) {
	if s.cache == nil {
		return 0, 0, 0
	}
	return s.cache.stats()
}

// check compares every cached record with snap, taken with no transaction running and nothing
// pending: a difference is a record changed in place after it was cached, or a commit that did
// not refresh it.
func (c *metaCache) check(snap *leveldb.Snapshot) error {
	var errs []error
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		for _, e := range sh.ents {
			v, err := snap.Get([]byte(e.key), nil)
			found := err == nil
			if err != nil && err != leveldb.ErrNotFound {
				errs = append(errs, err)
			} else if found != e.found || !bytes.Equal(v, e.val) {
				errs = append(errs, fmt.Errorf("key cache: record %x holds %x (found %v), the store %x (found %v)", e.key, e.val, e.found, v, found))
			}
		}
		sh.mu.Unlock()
	}
	return errors.Join(errs...)
}
