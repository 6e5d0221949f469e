package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func setOf(t testing.TB, tx *Txn, key string) []string {
	t.Helper()
	m, err := tx.GetMetaOf([]byte(key), TypeSet)
	if err != nil {
		t.Fatal(err)
	}
	if m == nil {
		return nil
	}
	var out []string
	if err := tx.SetEach(m, func(b []byte) bool { out = append(out, string(b)); return true }); err != nil {
		t.Fatal(err)
	}
	if uint64(len(out)) != m.Size {
		t.Errorf("set %s: Size %d, %d members stored", key, m.Size, len(out))
	}
	if !sort.StringsAreSorted(out) {
		t.Errorf("set %s: members out of order: %q", key, out)
	}
	return out
}

func TestSetAddRemMembership(t *testing.T) {
	s := openTest(t, false)
	collTxn(t, s, []string{"s"}, func(tx *Txn) {
		if n, err := tx.SetAdd([]byte("s"), bs("b", "a", "b", "", "\x00\xff")); err != nil || n != 4 {
			t.Fatalf("SetAdd = %d, %v", n, err)
		}
		if n, _ := tx.SetAdd([]byte("s"), bs("a", "c")); n != 1 {
			t.Fatalf("SetAdd again = %d, want 1", n)
		}
	})
	collTxn(t, s, []string{"s"}, func(tx *Txn) {
		if got := fmt.Sprintf("%q", setOf(t, tx, "s")); got != `["" "\x00\xff" "a" "b" "c"]` {
			t.Fatalf("members %s", got)
		}
		in, err := tx.SetMembership([]byte("s"), bs("a", "zz", "", "\x00"))
		if err != nil || fmt.Sprint(in) != "[true false true false]" {
			t.Fatalf("SetMembership = %v, %v", in, err)
		}
		if in, _ := tx.SetMembership([]byte("nokey"), bs("a")); fmt.Sprint(in) != "[false]" {
			t.Fatalf("SetMembership on a missing key = %v", in)
		}
		if n, _ := tx.SetRem([]byte("s"), bs("a", "a", "nope")); n != 1 {
			t.Fatalf("SetRem = %d", n)
		}
		if ok, _ := tx.SetIsMember([]byte("s"), []byte("a")); ok {
			t.Fatal("removed member still there")
		}
		if n, _ := tx.SetRem([]byte("s"), bs("", "\x00\xff", "b", "c")); n != 4 {
			t.Fatalf("SetRem = %d", n)
		}
		if ok, _ := tx.Exists([]byte("s")); ok {
			t.Fatal("emptied set still exists")
		}
	})
	collTxn(t, s, []string{"str"}, func(tx *Txn) {
		tx.SetString([]byte("str"), []byte("x"), 0)
		for name, err := range map[string]error{
			"SetAdd":     func() error { _, err := tx.SetAdd([]byte("str"), bs("a")); return err }(),
			"SetRem":     func() error { _, err := tx.SetRem([]byte("str"), bs("a")); return err }(),
			"SetPop":     func() error { _, err := tx.SetPop([]byte("str"), 1); return err }(),
			"SetCombine": tx.SetCombine(SetUnion, bs("nokey", "str"), func([]byte) bool { return true }),
			"SetInter":   tx.SetCombine(SetInter, bs("nokey", "str"), func([]byte) bool { return true }),
		} {
			if !errors.Is(err, ErrWrongType) {
				t.Errorf("%s on a string: %v", name, err)
			}
		}
	})
}

func TestSetPop(t *testing.T) {
	s := openTest(t, false)
	var members [][]byte
	for i := 0; i < 30; i++ {
		members = append(members, []byte(fmt.Sprintf("m%02d", i)))
	}
	exp := int64(1) << 50
	var id uint64
	collTxn(t, s, []string{"s"}, func(tx *Txn) {
		tx.SetAdd([]byte("s"), members)
		m, _ := tx.GetMeta([]byte("s"))
		m.Expire, id = exp, m.ID
		tx.PutMeta([]byte("s"), m)
	})
	popped := map[string]bool{}
	collTxn(t, s, []string{"s"}, func(tx *Txn) {
		out, err := tx.SetPop([]byte("s"), 12)
		if err != nil || len(out) != 12 {
			t.Fatalf("SetPop = %d members, %v", len(out), err)
		}
		for _, b := range out {
			if popped[string(b)] {
				t.Fatalf("%q popped twice", b)
			}
			popped[string(b)] = true
		}
		m, _ := tx.GetMeta([]byte("s"))
		if m.Size != 18 || m.Expire != exp {
			t.Fatalf("after pop: size %d expire %d", m.Size, m.Expire)
		}
	})
	collTxn(t, s, []string{"s"}, func(tx *Txn) {
		rest := setOf(t, tx, "s")
		if len(rest) != 18 {
			t.Fatalf("%d members left", len(rest))
		}
		for _, r := range rest {
			if popped[r] {
				t.Fatalf("%q popped and still there", r)
			}
		}
		out, _ := tx.SetPop([]byte("s"), 100)
		if len(out) != 18 {
			t.Fatalf("popping the rest gave %d", len(out))
		}
		if ok, _ := tx.Exists([]byte("s")); ok {
			t.Fatal("set still exists after popping everything")
		}
		if out, err := tx.SetPop([]byte("s"), 1); err != nil || out != nil {
			t.Fatalf("SetPop on a missing key = %q, %v", out, err)
		}
	})
	if n := countData(t, s, id); n != 18 {
		// The whole-set pop leaves the members to the collector (not running in this test).
		t.Fatalf("%d sub-keys under the old ID, want 18 left for the collector", n)
	}
}

func TestSetPopReclaimed(t *testing.T) {
	s := openTest(t, true)
	var id uint64
	collTxn(t, s, []string{"s"}, func(tx *Txn) {
		tx.SetAdd([]byte("s"), bs("a", "b", "c"))
		m, _ := tx.GetMeta([]byte("s"))
		id = m.ID
		tx.SetPop([]byte("s"), 3)
	})
	for i := 0; i < 200 && countData(t, s, id) > 0; i++ {
		s.sleep(10 * time.Millisecond)
	}
	if n := countData(t, s, id); n != 0 {
		t.Fatalf("%d sub-keys left after the collector ran", n)
	}
}

func TestSetMove(t *testing.T) {
	s := openTest(t, false)
	keys := []string{"src", "dst", "str"}
	collTxn(t, s, keys, func(tx *Txn) {
		tx.SetAdd([]byte("src"), bs("a", "b"))
		tx.SetAdd([]byte("dst"), bs("b"))
		tx.SetString([]byte("str"), []byte("x"), 0)
	})
	collTxn(t, s, keys, func(tx *Txn) {
		cases := []struct {
			src, dst, m string
			want        bool
			err         error
		}{
			{"src", "dst", "a", true, nil},
			{"src", "dst", "a", false, nil},
			{"nokey", "str", "a", false, nil},
			{"src", "str", "zz", false, ErrWrongType},
			{"str", "dst", "a", false, ErrWrongType},
			{"dst", "dst", "a", true, nil},
			{"dst", "dst", "zz", false, nil},
			{"src", "dst", "b", true, nil}, // already in dst; src empties
			{"dst", "new", "b", true, nil},
		}
		for _, c := range cases {
			ok, err := tx.SetMove([]byte(c.src), []byte(c.dst), []byte(c.m))
			if ok != c.want || !errors.Is(err, c.err) && err != c.err {
				t.Errorf("SetMove(%s, %s, %s) = %v, %v; want %v, %v", c.src, c.dst, c.m, ok, err, c.want, c.err)
			}
		}
		if ok, _ := tx.Exists([]byte("src")); ok {
			t.Error("emptied source still exists")
		}
		if got := fmt.Sprint(setOf(t, tx, "dst"), setOf(t, tx, "new")); got != "[a] [b]" {
			t.Errorf("dst, new = %s", got)
		}
	})
}

// naiveCombine computes a set operation with maps.
func naiveCombine(op SetOp, sets []map[string]bool, exists []bool) []string {
	var out []string
	switch op {
	case SetInter:
		for _, e := range exists {
			if !e {
				return nil
			}
		}
		for m := range sets[0] {
			in := true
			for _, s := range sets[1:] {
				in = in && s[m]
			}
			if in {
				out = append(out, m)
			}
		}
	case SetUnion:
		seen := map[string]bool{}
		for _, s := range sets {
			for m := range s {
				if !seen[m] {
					seen[m] = true
					out = append(out, m)
				}
			}
		}
	case SetDiff:
		for m := range sets[0] {
			in := false
			for _, s := range sets[1:] {
				in = in || s[m]
			}
			if !in {
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestSetCombineMatchesNaive(t *testing.T) {
	s := openTest(t, false)
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 60; round++ {
		nsets := 1 + r.IntN(4)
		sets := make([]map[string]bool, nsets)
		exists := make([]bool, nsets)
		keys := make([][]byte, nsets)
		var skeys []string
		for i := range sets {
			sets[i] = map[string]bool{}
			keys[i] = []byte(fmt.Sprintf("r%d-k%d", round, r.IntN(nsets))) // keys may repeat
			skeys = append(skeys, string(keys[i]))
		}
		collTxn(t, s, skeys, func(tx *Txn) {
			for _, k := range keys {
				if m, _ := tx.GetMetaOf(k, TypeSet); m != nil {
					continue
				}
				if r.IntN(6) == 0 {
					continue // missing key
				}
				var ms [][]byte
				for j, n := 0, r.IntN(40); j < n; j++ {
					// Short members over a small alphabet collide often, and include prefixes
					// of one another.
					b := make([]byte, 1+r.IntN(2))
					for x := range b {
						b[x] = "ab\x00\xff"[r.IntN(4)]
					}
					ms = append(ms, b)
				}
				if len(ms) > 0 {
					tx.SetAdd(k, ms)
				}
			}
		})
		tx := s.Begin(0, keys, false)
		for i, k := range keys {
			members := setOf(t, tx, string(k))
			exists[i] = members != nil
			for _, m := range members {
				sets[i][m] = true
			}
		}
		for _, op := range []SetOp{SetInter, SetUnion, SetDiff} {
			var got []string
			err := tx.SetCombine(op, keys, func(b []byte) bool { got = append(got, string(b)); return true })
			if err != nil {
				t.Fatal(err)
			}
			want := naiveCombine(op, sets, exists)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Fatalf("round %d op %d keys %q:\n got  %q\n want %q", round, op, keys, got, want)
			}
			// Stopping early yields a prefix.
			if len(want) > 1 {
				var first []string
				tx.SetCombine(op, keys, func(b []byte) bool { first = append(first, string(b)); return len(first) < 1 })
				if len(first) != 1 || first[0] != want[0] {
					t.Fatalf("early stop gave %q", first)
				}
			}
		}
		tx.Abort()
	}
}

func TestSetStoreOverwritesAndSeesPendingWrites(t *testing.T) {
	s := openTest(t, false)
	keys := []string{"a", "b", "dst"}
	exp := int64(1) << 50
	collTxn(t, s, keys, func(tx *Txn) {
		tx.SetAdd([]byte("a"), bs("1", "2", "3"))
		tx.SetString([]byte("dst"), []byte("old"), exp)
	})
	collTxn(t, s, keys, func(tx *Txn) {
		// b is written in this transaction and not committed yet: the merge must see it.
		tx.SetAdd([]byte("b"), bs("2", "3", "4"))
		var out [][]byte
		tx.SetCombine(SetInter, bs("a", "b"), func(m []byte) bool { out = append(out, bytes.Clone(m)); return true })
		n, err := tx.SetStore([]byte("dst"), out)
		if err != nil || n != 2 {
			t.Fatalf("SetStore = %d, %v", n, err)
		}
		m, _ := tx.GetMeta([]byte("dst"))
		if m.Type != TypeSet || m.Expire != 0 || m.Size != 2 {
			t.Fatalf("dst meta %+v", m)
		}
	})
	collTxn(t, s, keys, func(tx *Txn) {
		if got := fmt.Sprint(setOf(t, tx, "dst")); got != "[2 3]" {
			t.Fatalf("dst = %s", got)
		}
		if n, _ := tx.SetStore([]byte("dst"), nil); n != 0 {
			t.Fatalf("empty SetStore = %d", n)
		}
		if ok, _ := tx.Exists([]byte("dst")); ok {
			t.Fatal("empty result left dst in place")
		}
	})
	if _, x := s.KeyCounts(0); x != 0 {
		t.Fatalf("%d keys with expiry after the string was overwritten", x)
	}
}

func TestSetRandom(t *testing.T) {
	s := openTest(t, false)
	var m *Meta
	collTxn(t, s, []string{"s"}, func(tx *Txn) {
		tx.SetAdd([]byte("s"), bs("a", "b", "c", "d"))
		m, _ = tx.GetMetaOf([]byte("s"), TypeSet)
	})
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	hits := map[string]int{}
	for i := 0; i < 4000; i++ {
		tx.SetRandom(m, 1, true, func(b []byte) { hits[string(b)]++ })
	}
	for _, k := range []string{"a", "b", "c", "d"} {
		if hits[k] < 800 || hits[k] > 1200 {
			t.Errorf("member %s picked %d of 4000 times", k, hits[k])
		}
	}
	n := 0
	tx.SetRandom(m, 9, false, func(b []byte) { n++ })
	if n != 9 {
		t.Fatalf("%d draws, want 9", n)
	}
}
