package storage

import (
	"fmt"
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
	if n := c.size(); n > 64*1024 {
		t.Fatalf("cache holds %d bytes, budget 65536", n)
	}
	c.set([]byte("big"), make([]byte, cacheMaxEntry), true)
	if _, _, ok := c.get([]byte("big")); ok {
		t.Fatal("oversized entry cached")
	}
}
