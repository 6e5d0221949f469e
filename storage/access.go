package storage

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Access times and frequencies (OBJECT IDLETIME, OBJECT FREQ, DEBUG OBJECT's lru).
//
// Strata does not write a key's last access to disk: a read would become a write. The store
// keeps them in memory instead, in a bounded table keyed by logical database and key (so no
// lock is taken: callers may hold a transaction, even an exclusive one), as
// Redis keeps them in its objects: the unix second of the last use and Redis's logarithmic
// access counter (LFU, with lfu-log-factor 10 and lfu-decay-time 1, Redis's defaults). The
// table holds at most accessMax keys; when it is full a random entry is forgotten, and the
// newest time among the forgotten is kept as the floor. A key the table does not hold (never
// used since the store opened, or forgotten) reads as last used at the floor or at the open,
// whichever is later: its idle time is never overstated.
const (
	accessShards = 32
	accessMax    = 1 << 18 // entries over all shards
	lfuInitVal   = 5       // LFU_INIT_VAL
	lfuLogFactor = 10
	lfuDecayMins = 1
)

type accessEntry struct {
	at      int64 // unix seconds of the last use
	counter uint8 // the LFU counter
	decayed int64 // unix minutes of the last decay of counter
}

type accessShard struct {
	mu    sync.Mutex
	m     map[string]*accessEntry
	floor int64 // the newest last use among the entries forgotten
}

type accessTable struct {
	shards [accessShards]accessShard
}

func (a *accessTable) shard(db uint32, key []byte) *accessShard {
	h := uint32(2166136261) ^ db
	for _, b := range key {
		h = (h ^ uint32(b)) * 16777619
	}
	return &a.shards[h%accessShards]
}

func (a *accessTable) init() {
	for i := range a.shards {
		a.shards[i].m = map[string]*accessEntry{}
	}
}

// accessKey appends the table's key for key in database db to dst.
func accessKey(dst []byte, db uint32, key []byte) []byte {
	return append(append(dst, byte(db>>24), byte(db>>16), byte(db>>8), byte(db)), key...)
}

// Touch records that keys of logical database db were used at nowMs (Unix milliseconds; 0
// reads the clock): their last access time is then and their LFU counter grows, as Redis's
// lookups do (a key first seen starts at LFU_INIT_VAL).
func (s *Store) Touch(db int, keys [][]byte, nowMs int64) {
	if len(keys) == 0 {
		return
	}
	if nowMs == 0 {
		nowMs = time.Now().UnixMilli()
	}
	sec := nowMs / 1000
	mins := sec / 60
	d := uint32(db)
	var buf [64]byte
	for _, k := range keys {
		sh := s.access.shard(d, k)
		ak := accessKey(buf[:0], d, k)
		sh.mu.Lock()
		if e := sh.m[string(ak)]; e != nil {
			e.counter = lfuIncr(lfuDecay(e, mins))
			e.at, e.decayed = sec, mins
		} else {
			// First seen (a new key, or one not used since the open): its counter starts
			// at LFU_INIT_VAL, as a new object's does.
			s.access.add(sh, string(ak), sec)
		}
		sh.mu.Unlock()
	}
}

// add inserts a fresh entry for k (one never seen, or forgotten: the LFU counter starts at
// LFU_INIT_VAL), forgetting a random entry when the table is full. sh.mu is held.
func (a *accessTable) add(sh *accessShard, k string, opened int64) *accessEntry {
	if len(sh.m) >= accessMax/accessShards {
		for victim, e := range sh.m {
			sh.floor = max(sh.floor, e.at)
			delete(sh.m, victim)
			break
		}
	}
	e := &accessEntry{at: max(opened, sh.floor), counter: lfuInitVal, decayed: time.Now().Unix() / 60}
	sh.m[k] = e
	return e
}

// SetAccess sets key's last access to idle seconds ago, or, with freq >= 0, its LFU counter
// to freq (RESTORE ... IDLETIME / FREQ).
func (s *Store) SetAccess(db int, key []byte, idle int64, freq int) {
	d := uint32(db)
	sh := s.access.shard(d, key)
	ak := string(accessKey(nil, d, key))
	now := time.Now()
	sh.mu.Lock()
	e := sh.m[ak]
	if e == nil {
		e = s.access.add(sh, ak, s.openedAt.Unix())
	}
	if idle >= 0 {
		e.at = now.Unix() - idle
	}
	if freq >= 0 {
		e.counter, e.decayed = uint8(min(freq, 255)), now.Unix()/60
	}
	sh.mu.Unlock()
}

// Access returns the unix second of key's last use and its LFU counter (decayed to now).
func (s *Store) Access(db int, key []byte) (at int64, freq int) {
	d := uint32(db)
	sh := s.access.shard(d, key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var buf [64]byte
	if e := sh.m[string(accessKey(buf[:0], d, key))]; e != nil {
		return e.at, int(lfuDecay(e, time.Now().Unix()/60))
	}
	return max(s.openedAt.Unix(), sh.floor), lfuInitVal
}

// lfuDecay returns e's counter less one per lfu-decay-time minutes since it last decayed, as
// Redis's LFUDecrAndReturn.
func lfuDecay(e *accessEntry, mins int64) uint8 {
	periods := (mins - e.decayed) / lfuDecayMins
	if periods <= 0 {
		return e.counter
	}
	if periods >= int64(e.counter) {
		return 0
	}
	return e.counter - uint8(periods)
}

// lfuIncr grows an LFU counter logarithmically, as Redis's LFULogIncr: the higher it is, the
// less likely an access raises it.
func lfuIncr(counter uint8) uint8 {
	if counter == math.MaxUint8 {
		return counter
	}
	base := float64(counter) - lfuInitVal
	if base < 0 {
		base = 0
	}
	if p := 1.0 / (base*lfuLogFactor + 1); rand.Float64() < p {
		counter++
	}
	return counter
}

// KeyspaceStats returns the keyspace hits and misses: lookups of a key in read transactions
// that found it live, and that did not (INFO keyspace_hits and keyspace_misses).
func (s *Store) KeyspaceStats() (hits, misses int64) {
	return s.keyspaceHits.Load(), s.keyspaceMisses.Load()
}

// ResetKeyspaceStats zeroes the keyspace hits and misses (CONFIG RESETSTAT).
func (s *Store) ResetKeyspaceStats() {
	s.keyspaceHits.Store(0)
	s.keyspaceMisses.Store(0)
}
