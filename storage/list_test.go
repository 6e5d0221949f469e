package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func listOpen(t testing.TB) *Store {
	t.Helper()
	s, err := Open(Options{Dir: t.TempDir(), Databases: 2, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// listTxn runs fn in a write transaction on key and commits it unless fn fails.
func listTxn(t testing.TB, s *Store, key string, fn func(tx *Txn) error) {
	t.Helper()
	tx := s.Begin(0, [][]byte{[]byte(key)}, true)
	if err := fn(tx); err != nil {
		tx.Abort()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func listBytes(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// listContent reads the whole list through ListRange and checks its metadata.
func listContent(t testing.TB, tx *Txn, key string) []string {
	t.Helper()
	m, err := tx.ListMeta([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	if m == nil {
		return nil
	}
	if m.Size == 0 || m.Tail-m.Head != m.Size {
		t.Fatalf("list %s: head %d tail %d size %d", key, m.Head, m.Tail, m.Size)
	}
	var out []string
	n := -1
	err = tx.ListRange([]byte(key), 0, -1, func(k int) { n = k }, func(v []byte) { out = append(out, string(v)) })
	if err != nil {
		t.Fatal(err)
	}
	if n != len(out) || uint64(n) != m.Size {
		t.Fatalf("list %s: header %d, %d elements, size %d", key, n, len(out), m.Size)
	}
	return out
}

func listRead(t testing.TB, s *Store, key string) []string {
	t.Helper()
	tx := s.Begin(0, [][]byte{[]byte(key)}, false)
	defer tx.Abort()
	return listContent(t, tx, key)
}

// listDataCount counts the element records stored under id.
func listDataCount(t testing.TB, s *Store, id uint64) int {
	t.Helper()
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	p := DataKey(nil, id, nil)
	it := tx.Iterate(p, prefixEnd(p), false)
	n := 0
	for it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}

// Naive models of the Redis list commands, written from the documentation.

func modelRange(l []string, start, stop int64) []string {
	n := int64(len(l))
	if start < 0 {
		start = max(n+start, 0)
	}
	if stop < 0 {
		stop = n + stop
	}
	if stop >= n {
		stop = n - 1
	}
	if start > stop || start >= n {
		return nil
	}
	return append([]string(nil), l[start:stop+1]...)
}

func modelRem(l []string, count int64, v string) ([]string, int64) {
	var removed int64
	keep := make([]bool, len(l))
	for i := range keep {
		keep[i] = true
	}
	if count >= 0 {
		for i := 0; i < len(l); i++ {
			if l[i] == v && (count == 0 || removed < count) {
				keep[i] = false
				removed++
			}
		}
	} else {
		for i := len(l) - 1; i >= 0; i-- {
			if l[i] == v && removed < -count {
				keep[i] = false
				removed++
			}
		}
	}
	var out []string
	for i, k := range keep {
		if k {
			out = append(out, l[i])
		}
	}
	return out, removed
}

func modelPos(l []string, v string, rank, count, maxlen int64) []int64 {
	var out []int64
	matches := int64(0)
	want := rank
	if want < 0 {
		want = -want
	}
	for j := 0; j < len(l) && (maxlen == 0 || int64(j) < maxlen); j++ {
		i := j
		if rank < 0 {
			i = len(l) - 1 - j
		}
		if l[i] != v {
			continue
		}
		matches++
		if matches >= want {
			out = append(out, int64(i))
			if count != 0 && int64(len(out)) >= count {
				break
			}
		}
	}
	return out
}

func TestListPushPopBasics(t *testing.T) {
	s := listOpen(t)
	listTxn(t, s, "l", func(tx *Txn) error {
		if n, err := tx.ListPush([]byte("l"), listBytes("a", "b"), true, false); err != nil || n != 2 {
			return fmt.Errorf("LPUSH = %d, %v", n, err)
		}
		if n, err := tx.ListPush([]byte("l"), listBytes("c", "d"), false, false); err != nil || n != 4 {
			return fmt.Errorf("RPUSH = %d, %v", n, err)
		}
		// Reads see the transaction's own writes.
		if got := fmt.Sprint(listContent(t, tx, "l")); got != "[b a c d]" {
			return fmt.Errorf("in-txn content %s", got)
		}
		return nil
	})
	if got := fmt.Sprint(listRead(t, s, "l")); got != "[b a c d]" {
		t.Fatalf("content %s", got)
	}
	tx := s.Begin(0, listBytes("l"), false)
	m, _ := tx.ListMeta([]byte("l"))
	tx.Abort()
	if m.Head != ListMiddle-2 || m.Tail != ListMiddle+2 || m.Size != 4 {
		t.Fatalf("meta head %d tail %d size %d", m.Head-ListMiddle, m.Tail-ListMiddle, m.Size)
	}
	listTxn(t, s, "l", func(tx *Txn) error {
		v, err := tx.ListPop([]byte("l"), true, 1)
		if err != nil || fmt.Sprintf("%s", v) != "[b]" {
			return fmt.Errorf("LPOP = %s, %v", v, err)
		}
		v, err = tx.ListPop([]byte("l"), false, 2)
		if err != nil || fmt.Sprintf("%s", v) != "[d c]" {
			return fmt.Errorf("RPOP 2 = %s, %v", v, err)
		}
		return nil
	})
	// PUSHX on a missing key creates nothing.
	listTxn(t, s, "none", func(tx *Txn) error {
		if n, err := tx.ListPush([]byte("none"), listBytes("x"), true, true); err != nil || n != 0 {
			return fmt.Errorf("LPUSHX = %d, %v", n, err)
		}
		return nil
	})
	if ok := listRead(t, s, "none"); ok != nil {
		t.Fatal("LPUSHX created a list")
	}
	// Popping the last element deletes the key.
	listTxn(t, s, "l", func(tx *Txn) error {
		v, err := tx.ListPop([]byte("l"), false, 10)
		if err != nil || fmt.Sprintf("%s", v) != "[a]" {
			return fmt.Errorf("RPOP 10 = %s, %v", v, err)
		}
		return nil
	})
	tx = s.Begin(0, listBytes("l"), false)
	ok, _ := tx.Exists([]byte("l"))
	tx.Abort()
	if ok || s.DBSize(0) != 0 {
		t.Fatalf("empty list still exists (dbsize %d)", s.DBSize(0))
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

func TestListWrongTypeAndMissing(t *testing.T) {
	s := listOpen(t)
	listTxn(t, s, "str", func(tx *Txn) error { return tx.SetString([]byte("str"), []byte("v"), 0) })
	tx := s.Begin(0, listBytes("str", "nokey"), true)
	defer tx.Abort()
	k := []byte("str")
	checks := map[string]error{}
	_, checks["push"] = tx.ListPush(k, listBytes("a"), true, false)
	_, checks["pop"] = tx.ListPop(k, true, 1)
	_, checks["len"] = tx.ListLen(k)
	_, _, checks["index"] = tx.ListIndex(k, 0)
	checks["set"] = tx.ListSet(k, 0, []byte("x"))
	checks["range"] = tx.ListRange(k, 0, -1, func(int) { t.Error("header called") }, func([]byte) {})
	checks["trim"] = tx.ListTrim(k, 0, 1)
	_, checks["rem"] = tx.ListRem(k, 0, []byte("a"))
	_, checks["insert"] = tx.ListInsert(k, true, []byte("a"), []byte("b"))
	_, _, checks["pos"] = tx.ListPos(k, []byte("a"), 1, 1, 0)
	for op, err := range checks {
		if !errors.Is(err, ErrWrongType) {
			t.Errorf("%s on a string: %v, want ErrWrongType", op, err)
		}
	}
	nk := []byte("nokey")
	if v, err := tx.ListPop(nk, true, 3); v != nil || err != nil {
		t.Errorf("pop missing = %v, %v", v, err)
	}
	if err := tx.ListSet(nk, 0, nil); !errors.Is(err, ErrNoSuchKey) {
		t.Errorf("set missing: %v", err)
	}
	if n, err := tx.ListInsert(nk, true, nil, nil); n != 0 || err != nil {
		t.Errorf("insert missing = %d, %v", n, err)
	}
	if n, err := tx.ListRem(nk, 0, nil); n != 0 || err != nil {
		t.Errorf("rem missing = %d, %v", n, err)
	}
	if p, ok, err := tx.ListPos(nk, nil, 1, 0, 0); p != nil || ok || err != nil {
		t.Errorf("pos missing = %v %v %v", p, ok, err)
	}
	hdr := -1
	if err := tx.ListRange(nk, 0, -1, func(n int) { hdr = n }, nil); err != nil || hdr != 0 {
		t.Errorf("range missing: header %d, %v", hdr, err)
	}
	if err := tx.ListTrim(nk, 0, 1); err != nil {
		t.Errorf("trim missing: %v", err)
	}
}

// TestListModel runs random operations against a naive slice model, with several operations
// per transaction now and then, and checks the content and the store's invariants.
// TestListModel runs random list operations against a slice model, with nodes of one and of
// at most 3 entries (many nodes, operations crossing node boundaries), of the default, and of
// 8 KB (one node).
func TestListModel(t *testing.T) {
	for _, fill := range []int64{1, 3, DefaultListFill, -2} {
		for _, ends := range []bool{false, true} {
			t.Run(fmt.Sprintf("fill=%d/ends=%v", fill, ends), func(t *testing.T) {
				s := listOpen(t)
				s.SetListFill(fill)
				listModel(t, s, ends)
			})
		}
	}
}

// listModel runs random list operations against a model. With ends, seven in eight are pushes,
// pops and reads, so the head node's key drifts from Head over long runs between the middle
// operations that rekey it.
func listModel(t *testing.T, s *Store, ends bool) {
	r := rand.New(rand.NewPCG(1, 2))
	var model []string
	key := []byte("k")
	val := func() string { return strconv.Itoa(r.IntN(6)) } // few distinct values: many matches
	idx := func() int64 {
		n := int64(len(model)) + 3
		return r.Int64N(2*n) - n
	}
	steps := 4000
	if testing.Short() {
		steps = 800
	}
	for step := 0; step < steps; step++ {
		ops := 1
		if r.IntN(4) == 0 {
			ops = 1 + r.IntN(5)
		}
		tx := s.Begin(0, [][]byte{key}, true)
		var desc []string
		for o := 0; o < ops; o++ {
			var err error
			op := r.IntN(11)
			if ends && r.IntN(8) != 0 {
				op = []int{0, 1, 2, 3, 5}[r.IntN(5)]
			}
			if len(model) == 0 {
				op = r.IntN(2)
			}
			switch op {
			case 0, 1: // push, biased towards growth
				left := r.IntN(2) == 0
				var vs []string
				for i := r.IntN(8) + 1; i > 0; i-- {
					vs = append(vs, val())
				}
				var n int64
				n, err = tx.ListPush(key, listBytes(vs...), left, false)
				for _, v := range vs {
					if left {
						model = append([]string{v}, model...)
					} else {
						model = append(model, v)
					}
				}
				desc = append(desc, fmt.Sprintf("push left=%v %v", left, vs))
				if err == nil && n != int64(len(model)) {
					err = fmt.Errorf("push returned %d, model %d", n, len(model))
				}
			case 2: // pop
				left, count := r.IntN(2) == 0, int64(r.IntN(4)+1)
				var got [][]byte
				got, err = tx.ListPop(key, left, count)
				var want []string
				for i := int64(0); i < count && len(model) > 0; i++ {
					if left {
						want, model = append(want, model[0]), model[1:]
					} else {
						want, model = append(want, model[len(model)-1]), model[:len(model)-1]
					}
				}
				desc = append(desc, fmt.Sprintf("pop left=%v %d", left, count))
				if err == nil && fmt.Sprintf("%s", got) != fmt.Sprint(want) {
					err = fmt.Errorf("pop got %s want %v", got, want)
				}
			case 3: // index
				i := idx()
				v, ok, e := tx.ListIndex(key, i)
				err = e
				w := modelRange(model, i, i)
				if i < -int64(len(model)) {
					w = nil
				}
				if err == nil && (ok != (len(w) == 1) || ok && string(v) != w[0]) {
					err = fmt.Errorf("index %d = %q %v, want %v", i, v, ok, w)
				}
			case 4: // set
				i, v := idx(), val()
				err = tx.ListSet(key, i, []byte(v))
				j := i
				if j < 0 {
					j += int64(len(model))
				}
				if j >= 0 && j < int64(len(model)) {
					model[j] = v
					desc = append(desc, fmt.Sprintf("set %d %s", i, v))
				} else if errors.Is(err, ErrIndexOutOfRange) {
					err = nil
				} else {
					err = fmt.Errorf("set %d out of range: %v", i, err)
				}
			case 5: // range
				a, b := idx(), idx()
				var got []string
				n := -1
				err = tx.ListRange(key, a, b, func(k int) { n = k }, func(v []byte) { got = append(got, string(v)) })
				want := modelRange(model, a, b)
				if err == nil && (n != len(got) || fmt.Sprint(got) != fmt.Sprint(want)) {
					err = fmt.Errorf("range %d %d = %d %v, want %v", a, b, n, got, want)
				}
			case 6: // trim
				a, b := idx(), idx()
				if r.IntN(2) == 0 { // keep a few: exercises the copy path
					a = r.Int64N(int64(len(model)))
					b = a + r.Int64N(3)
				}
				err = tx.ListTrim(key, a, b)
				model = modelRange(model, a, b)
				desc = append(desc, fmt.Sprintf("trim %d %d", a, b))
			case 7: // rem
				count, v := r.Int64N(7)-3, val()
				var n int64
				n, err = tx.ListRem(key, count, []byte(v))
				var want int64
				model, want = modelRem(model, count, v)
				desc = append(desc, fmt.Sprintf("rem %d %s", count, v))
				if err == nil && n != want {
					err = fmt.Errorf("rem %d %s = %d, want %d", count, v, n, want)
				}
			case 8, 9: // insert
				before, pivot, v := r.IntN(2) == 0, val(), "i"+val()
				if r.IntN(3) == 0 {
					pivot = model[r.IntN(len(model))]
				}
				var n int64
				n, err = tx.ListInsert(key, before, []byte(pivot), []byte(v))
				want := int64(-1)
				for i, e := range model {
					if e == pivot {
						at := i
						if !before {
							at++
						}
						model = append(model[:at], append([]string{v}, model[at:]...)...)
						want = int64(len(model))
						break
					}
				}
				desc = append(desc, fmt.Sprintf("insert before=%v %s %s", before, pivot, v))
				if err == nil && n != want {
					err = fmt.Errorf("insert = %d, want %d", n, want)
				}
			case 10: // pos
				v := val()
				rank := r.Int64N(7) - 3
				if rank == 0 {
					rank = 1
				}
				count, maxlen := r.Int64N(4), r.Int64N(int64(len(model))+2)
				var got []int64
				got, _, err = tx.ListPos(key, []byte(v), rank, count, maxlen)
				want := modelPos(model, v, rank, count, maxlen)
				if err == nil && fmt.Sprint(got) != fmt.Sprint(want) {
					err = fmt.Errorf("pos %s rank %d count %d maxlen %d = %v, want %v", v, rank, count, maxlen, got, want)
				}
			}
			if err != nil {
				tx.Abort()
				t.Fatalf("step %d: %v (ops this txn: %v)", step, err, desc)
			}
			if got := listContent(t, tx, "k"); fmt.Sprint(got) != fmt.Sprint(model) {
				tx.Abort()
				t.Fatalf("step %d after %v:\n got %v\nwant %v", step, desc, got, model)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if step%200 == 0 || ends && step%40 == 0 {
			if err := CheckInvariants(s); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
	}
	if got := listRead(t, s, "k"); fmt.Sprint(got) != fmt.Sprint(model) {
		t.Fatalf("final content\n got %v\nwant %v", got, model)
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

func listFill(t testing.TB, s *Store, key string, n int) *Meta {
	t.Helper()
	for i := 0; i < n; {
		batch := min(10000, n-i)
		vals := make([][]byte, batch)
		for j := range vals {
			vals[j] = []byte(strconv.Itoa(i + j))
		}
		listTxn(t, s, key, func(tx *Txn) error {
			_, err := tx.ListPush([]byte(key), vals, false, false)
			return err
		})
		i += batch
	}
	tx := s.Begin(0, [][]byte{[]byte(key)}, false)
	defer tx.Abort()
	m, err := tx.ListMeta([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestListMiddleOpsMoveTheShorterSide checks where LINSERT and LREM move elements, and that a
// trim keeping few elements copies them under a new object instead of deleting the rest.
func TestListMiddleOpsMoveTheShorterSide(t *testing.T) {
	s := listOpen(t)
	s.SetListFill(16) // 63 nodes
	m0 := listFill(t, s, "l", 1000)
	meta := func() *Meta {
		tx := s.Begin(0, listBytes("l"), false)
		defer tx.Abort()
		m, _ := tx.ListMeta([]byte("l"))
		return m
	}
	// Near the head: the head side moves left, the tail stays.
	listTxn(t, s, "l", func(tx *Txn) error {
		n, err := tx.ListInsert([]byte("l"), true, []byte("10"), []byte("x"))
		if n != 1001 {
			return fmt.Errorf("insert = %d, %v", n, err)
		}
		return err
	})
	if m := meta(); m.Head != m0.Head-1 || m.Tail != m0.Tail {
		t.Fatalf("insert near head moved head %d tail %d", int64(m.Head-m0.Head), int64(m.Tail-m0.Tail))
	}
	// Near the tail: the tail side moves right.
	listTxn(t, s, "l", func(tx *Txn) error {
		_, err := tx.ListInsert([]byte("l"), false, []byte("990"), []byte("y"))
		return err
	})
	if m := meta(); m.Head != m0.Head-1 || m.Tail != m0.Tail+1 {
		t.Fatalf("insert near tail moved head %d tail %d", int64(m.Head-m0.Head), int64(m.Tail-m0.Tail))
	}
	// LREM near the tail moves the tail back; near the head moves the head forward.
	listTxn(t, s, "l", func(tx *Txn) error {
		_, err := tx.ListRem([]byte("l"), 1, []byte("y"))
		return err
	})
	if m := meta(); m.Tail != m0.Tail || m.Head != m0.Head-1 {
		t.Fatalf("rem near tail: head %d tail %d", int64(m.Head-m0.Head), int64(m.Tail-m0.Tail))
	}
	listTxn(t, s, "l", func(tx *Txn) error {
		_, err := tx.ListRem([]byte("l"), -1, []byte("x"))
		return err
	})
	if m := meta(); m.Tail != m0.Tail || m.Head != m0.Head {
		t.Fatalf("rem near head: head %d tail %d", int64(m.Head-m0.Head), int64(m.Tail-m0.Tail))
	}
	got := listRead(t, s, "l")
	for i, v := range got {
		if v != strconv.Itoa(i) {
			t.Fatalf("element %d = %q", i, v)
		}
	}
	// Trim keeping 10 of 1000: copied under a new ID (one node), the old one goes to the
	// collector.
	listTxn(t, s, "l", func(tx *Txn) error { return tx.ListTrim([]byte("l"), 500, 509) })
	m := meta()
	if m.ID == m0.ID || m.Size != 10 || listDataCount(t, s, m.ID) != 1 {
		t.Fatalf("trim: id %d (was %d) size %d records %d", m.ID, m0.ID, m.Size, listDataCount(t, s, m.ID))
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	if n := listDataCount(t, s, m0.ID); n != 0 {
		t.Fatalf("old object still has %d records after collection", n)
	}
	// Trim dropping one element rewrites its node in place.
	listTxn(t, s, "l", func(tx *Txn) error { return tx.ListTrim([]byte("l"), 1, -1) })
	if m2 := meta(); m2.ID != m.ID || m2.Size != 9 || listDataCount(t, s, m.ID) != 1 {
		t.Fatalf("small trim: id %d size %d records %d", m2.ID, m2.Size, listDataCount(t, s, m.ID))
	}
	if fmt.Sprint(listRead(t, s, "l")) != "[501 502 503 504 505 506 507 508 509]" {
		t.Fatalf("after trims: %v", listRead(t, s, "l"))
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

func TestListExpiryKept(t *testing.T) {
	s := listOpen(t)
	exp := int64(math.MaxInt64 / 2)
	listTxn(t, s, "l", func(tx *Txn) error {
		if _, err := tx.ListPush([]byte("l"), listBytes("a", "b", "c"), false, false); err != nil {
			return err
		}
		m, _ := tx.ListMeta([]byte("l"))
		m.Expire = exp
		return tx.PutMeta([]byte("l"), m)
	})
	listTxn(t, s, "l", func(tx *Txn) error {
		if _, err := tx.ListPush([]byte("l"), listBytes("z"), true, false); err != nil {
			return err
		}
		if _, err := tx.ListPop([]byte("l"), false, 1); err != nil {
			return err
		}
		if _, err := tx.ListInsert([]byte("l"), true, []byte("b"), []byte("q")); err != nil {
			return err
		}
		if _, err := tx.ListRem([]byte("l"), 0, []byte("q")); err != nil {
			return err
		}
		return tx.ListTrim([]byte("l"), 1, -1)
	})
	tx := s.Begin(0, listBytes("l"), false)
	m, _ := tx.ListMeta([]byte("l"))
	tx.Abort()
	if m == nil || m.Expire != exp {
		t.Fatalf("expiry lost: %+v", m)
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

// Benchmarks: positional reads cost the same on a 1,000,000-element list as on a 1,000-element
// one. Run with: go test ./storage/ -run '^$' -bench BenchmarkList -benchtime 20000x

func listBenchStore(b *testing.B) *Store {
	s, err := Open(Options{Dir: b.TempDir(), Databases: 1, DisableBackgrnd: true, BlockCache: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	listFill(b, s, "small", 1000)
	listFill(b, s, "big", 1000000)
	if err := s.CompactAll(); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkList(b *testing.B) {
	s := listBenchStore(b)
	for _, size := range []struct {
		key string
		n   int64
	}{{"small", 1000}, {"big", 1000000}} {
		key := []byte(size.key)
		keys := [][]byte{key}
		rangeBench := func(start, stop int64, want int) func(b *testing.B) {
			return func(b *testing.B) {
				for b.Loop() {
					tx := s.Begin(0, keys, false)
					n := 0
					err := tx.ListRange(key, start, stop, func(int) {}, func([]byte) { n++ })
					tx.Abort()
					if err != nil || n != want {
						b.Fatalf("LRANGE %d %d: %d elements, %v", start, stop, n, err)
					}
				}
			}
		}
		b.Run(fmt.Sprintf("n=%d/LRANGE_0_99", size.n), rangeBench(0, 99, 100))
		b.Run(fmt.Sprintf("n=%d/LRANGE_-100_-1", size.n), rangeBench(-100, -1, 100))
		b.Run(fmt.Sprintf("n=%d/LINDEX_middle", size.n), func(b *testing.B) {
			want := []byte(strconv.FormatInt(size.n/2, 10))
			for b.Loop() {
				tx := s.Begin(0, keys, false)
				v, ok, err := tx.ListIndex(key, size.n/2)
				tx.Abort()
				if err != nil || !ok || !bytes.Equal(v, want) {
					b.Fatalf("LINDEX = %q %v %v", v, ok, err)
				}
			}
		})
	}
}
