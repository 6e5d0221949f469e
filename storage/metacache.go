package storage

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
)

// metaCache keeps recently used metadata records (and the knowledge that a key is absent) in
// memory, so that reading a hot key's metadata costs a map lookup instead of a LevelDB read.
// It is bounded by a byte budget split over shards; a full shard evicts arbitrary entries
// (Go's map order is random, so this is random eviction).
//
// Coherence: entries change only while the key's lock is held. A read fills the cache after
// reading LevelDB under at least a shared lock on the key; a commit updates the entries of the
// metadata it wrote before the transaction releases its write locks. Every metadata write goes
// through a Txn, except the collector's deletion of a flushed physical keyspace, whose keys can
// no longer be reached.
type metaCache struct {
	shards   [cacheShards]cacheShard
	perShard int64
	hits     atomic.Int64
	misses   atomic.Int64
}

const (
	cacheShards   = 64
	cacheMaxEntry = 4096 // larger records are not cached
	cacheOverhead = 64   // bytes charged per entry beyond key and value
)

type cacheShard struct {
	mu    sync.Mutex
	m     map[string]cacheEntry
	bytes int64
}

type cacheEntry struct {
	val   []byte // never modified once stored
	found bool
}

func newMetaCache(budget int64) *metaCache {
	if budget <= 0 {
		return nil
	}
	c := &metaCache{perShard: budget / cacheShards}
	for i := range c.shards {
		c.shards[i].m = make(map[string]cacheEntry)
	}
	return c
}

func (c *metaCache) shard(k []byte) *cacheShard {
	h := uint32(2166136261)
	for _, b := range k {
		h = (h ^ uint32(b)) * 16777619
	}
	return &c.shards[h%cacheShards]
}

// get returns the cached record of k: its value, whether the key exists, and whether k was
// cached at all. The value must not be modified.
func (c *metaCache) get(k []byte) (val []byte, found, ok bool) {
	sh := c.shard(k)
	sh.mu.Lock()
	e, ok := sh.m[string(k)]
	sh.mu.Unlock()
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return e.val, e.found, ok
}

// set records k's value (found false: absent). val is copied.
func (c *metaCache) set(k, val []byte, found bool) {
	if len(k)+len(val) > cacheMaxEntry {
		c.drop(k)
		return
	}
	var v []byte
	if found {
		v = make([]byte, len(val))
		copy(v, val)
	}
	cost := int64(len(k) + len(v) + cacheOverhead)
	sh := c.shard(k)
	sh.mu.Lock()
	if old, ok := sh.m[string(k)]; ok {
		sh.bytes -= int64(len(k) + len(old.val) + cacheOverhead)
	}
	for key, e := range sh.m {
		if sh.bytes+cost <= c.perShard {
			break
		}
		sh.bytes -= int64(len(key) + len(e.val) + cacheOverhead)
		delete(sh.m, key)
	}
	sh.m[string(k)] = cacheEntry{val: v, found: found}
	sh.bytes += cost
	sh.mu.Unlock()
}

func (c *metaCache) drop(k []byte) {
	sh := c.shard(k)
	sh.mu.Lock()
	if old, ok := sh.m[string(k)]; ok {
		sh.bytes -= int64(len(k) + len(old.val) + cacheOverhead)
		delete(sh.m, string(k))
	}
	sh.mu.Unlock()
}

// size returns the bytes the cache holds.
func (c *metaCache) size() int64 {
	var n int64
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		n += sh.bytes
		sh.mu.Unlock()
	}
	return n
}

// applyBatch updates the entries of every metadata record in a committed batch's records.
func (c *metaCache) applyBatch(data []byte) {
	walkBatch(data, func(put bool, key, val []byte) {
		if key[0] == tagMeta {
			c.set(key, val, put)
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
	return s.cache.size(), s.cache.hits.Load(), s.cache.misses.Load()
}
