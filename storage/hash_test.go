package storage

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"testing"
)

// collTxn runs fn in a committed write transaction over keys.
func collTxn(t testing.TB, s *Store, keys []string, fn func(tx *Txn)) {
	t.Helper()
	bk := make([][]byte, len(keys))
	for i, k := range keys {
		bk[i] = []byte(k)
	}
	tx := s.Begin(0, bk, true)
	fn(tx)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func bs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// countData counts the sub-keys stored under id, bypassing the metadata.
func countData(t testing.TB, s *Store, id uint64) int {
	t.Helper()
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	n := 0
	if err := tx.eachData(id, func(_, _ []byte) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	return n
}

func hashOf(t testing.TB, tx *Txn, key string) map[string]string {
	t.Helper()
	m, err := tx.GetMetaOf([]byte(key), TypeHash)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	if m == nil {
		return out
	}
	var prev []byte
	err = tx.HashEach(m, func(f, v []byte) bool {
		if prev != nil && bytes.Compare(prev, f) >= 0 {
			t.Errorf("fields out of order: %q then %q", prev, f)
		}
		prev = bytes.Clone(f)
		out[string(f)] = string(v)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(out)) != m.Size {
		t.Errorf("hash %s: Size %d, %d fields stored", key, m.Size, len(out))
	}
	return out
}

func TestHashSetGetDelKeepsSize(t *testing.T) {
	s := openTest(t, false)
	s.SetPackLimits(PackLimits{}) // one record per field, counted below
	collTxn(t, s, []string{"h"}, func(tx *Txn) {
		n, err := tx.HashSet([]byte("h"), bs("a", "1", "b", "2", "a", "3"), false)
		if err != nil || n != 2 {
			t.Fatalf("HashSet = %d, %v; want 2 new", n, err)
		}
		// The transaction sees its own writes.
		if v, ok, _ := tx.HashGet([]byte("h"), []byte("a")); !ok || string(v) != "3" {
			t.Fatalf("HashGet a = %q %v inside the txn", v, ok)
		}
	})
	collTxn(t, s, []string{"h"}, func(tx *Txn) {
		if n, _ := tx.HashSet([]byte("h"), bs("a", "x", "c", ""), true); n != 1 {
			t.Fatalf("HashSet nx = %d, want 1", n)
		}
		got := hashOf(t, tx, "h")
		want := map[string]string{"a": "3", "b": "2", "c": ""}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("hash = %v, want %v", got, want)
		}
		// An empty value is present, not missing.
		vals, err := tx.HashGetMany([]byte("h"), bs("c", "nope", "a"))
		if err != nil || vals[0] == nil || len(vals[0]) != 0 || vals[1] != nil || string(vals[2]) != "3" {
			t.Fatalf("HashGetMany = %q, %v", vals, err)
		}
	})
	var id uint64
	collTxn(t, s, []string{"h"}, func(tx *Txn) {
		m, _ := tx.GetMetaOf([]byte("h"), TypeHash)
		id = m.ID
		if n, _ := tx.HashDel([]byte("h"), bs("a", "a", "zz")); n != 1 {
			t.Fatalf("HashDel = %d, want 1", n)
		}
		if m, _ := tx.GetMetaOf([]byte("h"), TypeHash); m.Size != 2 {
			t.Fatalf("Size after delete = %d, want 2", m.Size)
		}
	})
	if n := countData(t, s, id); n != 2 {
		t.Fatalf("%d sub-keys stored, want 2", n)
	}
	collTxn(t, s, []string{"h"}, func(tx *Txn) {
		if n, _ := tx.HashDel([]byte("h"), bs("b", "c")); n != 2 {
			t.Fatalf("HashDel = %d, want 2", n)
		}
		if ok, _ := tx.Exists([]byte("h")); ok {
			t.Fatal("emptied hash still exists")
		}
	})
	if s.DBSize(0) != 0 {
		t.Fatalf("DBSize = %d after the hash emptied", s.DBSize(0))
	}
}

func TestHashWrongTypeAndExpiryKept(t *testing.T) {
	s := openTest(t, false)
	exp := int64(1) << 50 // far in the future
	collTxn(t, s, []string{"str", "h"}, func(tx *Txn) {
		if err := tx.SetString([]byte("str"), []byte("v"), 0); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.HashSet([]byte("str"), bs("f", "v"), false); !errors.Is(err, ErrWrongType) {
			t.Fatalf("HashSet on a string: %v", err)
		}
		if _, _, err := tx.HashGet([]byte("str"), []byte("f")); !errors.Is(err, ErrWrongType) {
			t.Fatalf("HashGet on a string: %v", err)
		}
		if _, err := tx.HashDel([]byte("str"), bs("f")); !errors.Is(err, ErrWrongType) {
			t.Fatalf("HashDel on a string: %v", err)
		}
		if _, err := tx.HashSet([]byte("h"), bs("a", "1", "b", "2"), false); err != nil {
			t.Fatal(err)
		}
		m, _ := tx.GetMeta([]byte("h"))
		m.Expire = exp
		if err := tx.PutMeta([]byte("h"), m); err != nil {
			t.Fatal(err)
		}
	})
	collTxn(t, s, []string{"h"}, func(tx *Txn) {
		tx.HashSet([]byte("h"), bs("c", "3"), false)
		tx.HashDel([]byte("h"), bs("a"))
		m, _ := tx.GetMeta([]byte("h"))
		if m.Expire != exp || m.Size != 2 {
			t.Fatalf("after updates: expire %d size %d, want %d and 2", m.Expire, m.Size, exp)
		}
	})
	if _, x := s.KeyCounts(0); x != 1 {
		t.Fatalf("%d keys with expiry, want 1", x)
	}
}

// TestHashExpiredKeyIsReplaced checks that writing to an expired hash starts a new one.
func TestHashExpiredKeyIsReplaced(t *testing.T) {
	s := openTest(t, false)
	collTxn(t, s, []string{"h"}, func(tx *Txn) {
		tx.HashSet([]byte("h"), bs("old", "1"), false)
		m, _ := tx.GetMeta([]byte("h"))
		m.Expire = 1 // long past
		tx.PutMeta([]byte("h"), m)
	})
	collTxn(t, s, []string{"h"}, func(tx *Txn) {
		if n, _ := tx.HashSet([]byte("h"), bs("new", "2"), false); n != 1 {
			t.Fatalf("HashSet = %d", n)
		}
		got := hashOf(t, tx, "h")
		if len(got) != 1 || got["new"] != "2" {
			t.Fatalf("hash = %v", got)
		}
		m, _ := tx.GetMeta([]byte("h"))
		if m.Expire != 0 {
			t.Fatalf("expire = %d", m.Expire)
		}
	})
}

func fillHash(t testing.TB, s *Store, key string, n int) *Meta {
	t.Helper()
	var m *Meta
	collTxn(t, s, []string{key}, func(tx *Txn) {
		var pairs [][]byte
		for i := 0; i < n; i++ {
			pairs = append(pairs, []byte(fmt.Sprintf("f%04d", i)), []byte(fmt.Sprintf("v%04d", i)))
		}
		if _, err := tx.HashSet([]byte(key), pairs, false); err != nil {
			t.Fatal(err)
		}
		m, _ = tx.GetMetaOf([]byte(key), TypeHash)
	})
	return m
}

func TestHashRandomDistinct(t *testing.T) {
	s := openTest(t, false)
	m := fillHash(t, s, "h", 50)
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	hits := map[string]int{}
	for round := 0; round < 400; round++ {
		seen := map[string]bool{}
		err := tx.HashRandom(m, 10, true, func(f, v []byte) {
			if seen[string(f)] {
				t.Fatalf("field %q picked twice", f)
			}
			if "v"+string(f[1:]) != string(v) {
				t.Fatalf("field %q came with value %q", f, v)
			}
			seen[string(f)] = true
			hits[string(f)]++
		})
		if err != nil || len(seen) != 10 {
			t.Fatalf("round %d: %d fields, %v", round, len(seen), err)
		}
	}
	// 4000 picks over 50 fields: 80 each on average. Every field must be reachable and none
	// wildly favoured (a biased sampler, e.g. one stopping early, fails this).
	for i := 0; i < 50; i++ {
		f := fmt.Sprintf("f%04d", i)
		if hits[f] < 30 || hits[f] > 150 {
			t.Errorf("field %s picked %d times of 4000, expected about 80", f, hits[f])
		}
	}
	// Asking for more than there is gives everything once.
	var all []string
	tx.HashRandom(m, 1000, true, func(f, _ []byte) { all = append(all, string(f)) })
	sort.Strings(all)
	if len(all) != 50 || all[0] != "f0000" || all[49] != "f0049" {
		t.Fatalf("whole-hash pick: %d fields %v", len(all), all)
	}
}

func TestHashRandomRepeat(t *testing.T) {
	s := openTest(t, false)
	m := fillHash(t, s, "h", 7)
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	// More draws than one chunk, so several passes serve them.
	n := uint64(sampleChunk + 1000)
	hits := map[string]int{}
	var got uint64
	var order []string
	err := tx.HashRandom(m, n, false, func(f, v []byte) {
		got++
		hits[string(f)]++
		if len(order) < 200 {
			order = append(order, string(f))
		}
	})
	if err != nil || got != n {
		t.Fatalf("%d draws of %d, %v", got, n, err)
	}
	for f, c := range hits {
		if c < int(n)/7*8/10 || c > int(n)/7*12/10 {
			t.Errorf("field %s drawn %d times of %d", f, c, n)
		}
	}
	if sort.StringsAreSorted(order) {
		t.Errorf("draws come out sorted: %v", order[:20])
	}
	// One field: every draw is it.
	m1 := fillHash(t, s, "one", 1)
	count := 0
	tx2 := s.Begin(0, nil, false)
	defer tx2.Abort()
	tx2.HashRandom(m1, 5, false, func(f, v []byte) {
		if string(f) != "f0000" || string(v) != "v0000" {
			t.Fatalf("draw %q=%q", f, v)
		}
		count++
	})
	if count != 5 {
		t.Fatalf("%d draws, want 5", count)
	}
}
