package storage

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMetaCacheStaysCoherent(t *testing.T) {
	s := openTest(t, false)
	if s.cache == nil {
		t.Fatal("test store has no cache")
	}
	set := func(db int, k, v string, exp int64) {
		write(t, s, db, k, func(tx *Txn) error { return tx.SetString([]byte(k), []byte(v), exp) })
	}
	set(0, "a", "1", 0)
	if v, _ := getString(t, s, 0, "a"); v != "1" {
		t.Fatalf("a = %q", v)
	}
	set(0, "a", "2", 0)
	if v, _ := getString(t, s, 0, "a"); v != "2" {
		t.Fatalf("after overwrite a = %q", v)
	}
	write(t, s, 0, "a", func(tx *Txn) error { _, err := tx.Delete([]byte("a")); return err })
	if _, ok := getString(t, s, 0, "a"); ok {
		t.Fatal("deleted key still readable through the cache")
	}
	// A failed (aborted) write leaves the cache as it was.
	set(0, "b", "keep", 0)
	tx := s.Begin(0, [][]byte{[]byte("b")}, true)
	tx.SetString([]byte("b"), []byte("dropped"), 0)
	tx.Abort()
	if v, _ := getString(t, s, 0, "b"); v != "keep" {
		t.Fatalf("aborted write visible: %q", v)
	}
	// Expiry deletes through a transaction, so the cache follows.
	set(0, "e", "v", time.Now().UnixMilli()+20)
	getString(t, s, 0, "e")
	time.Sleep(30 * time.Millisecond)
	if _, err := s.ExpireStep(100); err != nil {
		t.Fatal(err)
	}
	if _, ok := getString(t, s, 0, "e"); ok {
		t.Fatal("expired key readable through the cache")
	}
	// FLUSHDB and SWAPDB change the database map; cached entries of the old keyspace are unreachable.
	set(1, "f", "one", 0)
	getString(t, s, 1, "f")
	tx = s.BeginExclusive(0)
	tx.SwapDB(0, 1)
	tx.FlushDB(1)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if v, _ := getString(t, s, 0, "f"); v != "one" {
		t.Fatalf("after SWAPDB db0 f = %q", v)
	}
	if _, ok := getString(t, s, 1, "b"); ok {
		t.Fatal("flushed key readable through the cache")
	}
	if _, hits, _ := s.CacheStats(); hits == 0 {
		t.Fatal("cache never hit")
	}
}

func TestMetaCacheIsBounded(t *testing.T) {
	c := newMetaCache(64 * 1024)
	for i := 0; i < 20000; i++ {
		c.set([]byte(fmt.Sprintf("mkey-%d", i)), make([]byte, 100), true)
	}
	if n, _, _ := c.stats(); n > 64*1024 {
		t.Fatalf("cache holds %d bytes, budget 65536", n)
	}
	c.set([]byte("big"), make([]byte, cacheMaxEntry), true)
	if _, _, ok := c.get([]byte("big")); ok {
		t.Fatal("oversized entry cached")
	}
}

// TestMetaCacheShardConsistency drives a small cache with random writes, rewrites and drops,
// checking after each step that every shard's index and entries agree, that the byte count is
// the sum of the entries' costs and within budget, and that what is cached is the last value set.
func TestMetaCacheShardConsistency(t *testing.T) {
	c := newMetaCache(cacheShards * 2048)
	last := map[string]string{}
	rng := rand.New(rand.NewSource(7))
	for step := 0; step < 20000; step++ {
		k := fmt.Sprintf("k%d", rng.Intn(400))
		switch rng.Intn(5) {
		case 0:
			c.drop([]byte(k))
			delete(last, k)
		default:
			v := strings.Repeat("v", rng.Intn(300)) + strconv.Itoa(step)
			c.set([]byte(k), []byte(v), true)
			last[k] = v
		}
		for i := range c.shards {
			sh := &c.shards[i]
			if len(sh.idx) != len(sh.ents) {
				t.Fatalf("step %d shard %d: %d indexed, %d entries", step, i, len(sh.idx), len(sh.ents))
			}
			var sum int64
			for j := range sh.ents {
				e := &sh.ents[j]
				if p, ok := sh.idx[e.key]; !ok || int(p) != j {
					t.Fatalf("step %d shard %d: entry %q at %d indexed at %d", step, i, e.key, j, p)
				}
				sum += e.cost()
			}
			if sum != sh.bytes || (sum > c.perShard && len(sh.ents) > 1) {
				t.Fatalf("step %d shard %d: %d bytes counted, %d held, budget %d", step, i, sh.bytes, sum, c.perShard)
			}
		}
		if v, found, ok := c.get([]byte(k)); ok && (!found || string(v) != last[k]) {
			t.Fatalf("step %d: %q cached as %q, last set %q", step, k, v, last[k])
		}
	}
}

// TestCacheHoldsDataRecords checks that point reads of data records (a list's nodes, a hash's
// fields) are served from the cache once read, and that commits keep those entries current.
func TestCacheHoldsDataRecords(t *testing.T) {
	s := openTest(t, false)
	lrange := func() []string {
		tx := s.Begin(0, [][]byte{[]byte("l")}, false)
		defer tx.Abort()
		var out []string
		if err := tx.ListRange([]byte("l"), 0, -1, func(int) {}, func(v []byte) { out = append(out, string(v)) }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	hget := func(f string) (string, bool) {
		tx := s.Begin(0, [][]byte{[]byte("h")}, false)
		defer tx.Abort()
		v, ok, err := tx.HashGet([]byte("h"), []byte(f))
		if err != nil {
			t.Fatal(err)
		}
		return string(v), ok
	}
	write(t, s, 0, "l", func(tx *Txn) error {
		_, err := tx.ListPush([]byte("l"), [][]byte{[]byte("a"), []byte("b")}, false, false)
		return err
	})
	write(t, s, 0, "h", func(tx *Txn) error {
		_, err := tx.HashSet([]byte("h"), [][]byte{[]byte("f"), []byte("1"), []byte("g"), []byte("2")}, false)
		return err
	})
	mustFlush(t, s)
	if got := lrange(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("LRANGE %q", got)
	}
	if v, ok := hget("f"); !ok || v != "1" {
		t.Fatalf("HGET f = %q, %v", v, ok)
	}
	_, hits, _ := s.CacheStats()
	lrange()
	hget("f")
	if _, now, _ := s.CacheStats(); now < hits+3 { // the list's metadata and node, the hash's field
		t.Fatalf("%d cache hits for a second read of a list and a hash field, want at least 3", now-hits)
	}
	// Commits rewrite the cached node and field, and delete a cached field.
	write(t, s, 0, "l", func(tx *Txn) error {
		_, err := tx.ListPush([]byte("l"), [][]byte{[]byte("c")}, false, false)
		return err
	})
	write(t, s, 0, "h", func(tx *Txn) error {
		if _, err := tx.HashSet([]byte("h"), [][]byte{[]byte("f"), []byte("9")}, false); err != nil {
			return err
		}
		_, err := tx.HashDel([]byte("h"), [][]byte{[]byte("g")})
		return err
	})
	for _, flushed := range []bool{false, true} {
		if got := lrange(); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Fatalf("LRANGE %q after RPUSH (flushed %v)", got, flushed)
		}
		if v, ok := hget("f"); !ok || v != "9" {
			t.Fatalf("HGET f = %q, %v after HSET (flushed %v)", v, ok, flushed)
		}
		if v, ok := hget("g"); ok {
			t.Fatalf("HGET g = %q after HDEL (flushed %v)", v, flushed)
		}
		mustFlush(t, s)
	}
	invCheck(t, s)
}
