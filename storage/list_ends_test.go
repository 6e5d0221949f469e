package storage

import (
	"fmt"
	"slices"
	"testing"
)

// listState is a list's metadata and its records, read after a flush.
func listState(t *testing.T, s *Store, key string) (*Meta, int, int) {
	t.Helper()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	raw, err := s.db().Get(metaKey(nil, s.dbmap[0], []byte(key)), nil)
	if err != nil {
		t.Fatal(err)
	}
	tx := s.Begin(0, nil, false)
	m, err := tx.ListMeta([]byte(key))
	tx.Abort()
	if err != nil || m == nil {
		t.Fatalf("%s: %v %v", key, m, err)
	}
	return m, listDataCount(t, s, m.ID), len(raw) - metaHeader
}

// listOps runs each list operation against a copy of the list at key built by build and checks
// the result, the positional reads and the invariants after it.
func listOps(t *testing.T, fill int64, build func(t *testing.T, s *Store) []string) {
	ops := []struct {
		name  string
		apply func(tx *Txn, l []string) ([]string, error)
	}{
		{"none", func(tx *Txn, l []string) ([]string, error) { return l, nil }},
		{"lset head", func(tx *Txn, l []string) ([]string, error) {
			return append([]string{"S"}, l[1:]...), tx.ListSet([]byte("l"), 0, []byte("S"))
		}},
		{"lset 1", func(tx *Txn, l []string) ([]string, error) {
			return append(append(slices.Clone(l[:1]), "S"), l[2:]...), tx.ListSet([]byte("l"), 1, []byte("S"))
		}},
		{"lset tail", func(tx *Txn, l []string) ([]string, error) {
			return append(slices.Clone(l[:len(l)-1]), "S"), tx.ListSet([]byte("l"), -1, []byte("S"))
		}},
		{"linsert 2", func(tx *Txn, l []string) ([]string, error) {
			_, err := tx.ListInsert([]byte("l"), true, []byte(l[2]), []byte("I"))
			return slices.Insert(slices.Clone(l), 2, "I"), err
		}},
		{"linsert tail", func(tx *Txn, l []string) ([]string, error) {
			_, err := tx.ListInsert([]byte("l"), false, []byte(l[len(l)-1]), []byte("I"))
			return append(slices.Clone(l), "I"), err
		}},
		{"lrem 1", func(tx *Txn, l []string) ([]string, error) {
			_, err := tx.ListRem([]byte("l"), 1, []byte(l[1]))
			return slices.Delete(slices.Clone(l), 1, 2), err
		}},
		{"lrem -1", func(tx *Txn, l []string) ([]string, error) {
			_, err := tx.ListRem([]byte("l"), -1, []byte(l[len(l)-2]))
			return slices.Delete(slices.Clone(l), len(l)-2, len(l)-1), err
		}},
		{"ltrim 1", func(tx *Txn, l []string) ([]string, error) { return l[1:], tx.ListTrim([]byte("l"), 1, -1) }},
		{"ltrim -2", func(tx *Txn, l []string) ([]string, error) { return l[:len(l)-1], tx.ListTrim([]byte("l"), 0, -2) }},
		{"ltrim middle", func(tx *Txn, l []string) ([]string, error) { return l[2:3], tx.ListTrim([]byte("l"), 2, 2) }},
		{"lpush", func(tx *Txn, l []string) ([]string, error) {
			_, err := tx.ListPush([]byte("l"), listBytes("p1", "p2", "p3", "p4", "p5"), true, false)
			return append([]string{"p5", "p4", "p3", "p2", "p1"}, l...), err
		}},
		{"rpush", func(tx *Txn, l []string) ([]string, error) {
			_, err := tx.ListPush([]byte("l"), listBytes("p1", "p2", "p3", "p4", "p5"), false, false)
			return append(slices.Clone(l), "p1", "p2", "p3", "p4", "p5"), err
		}},
		{"lpop 3", func(tx *Txn, l []string) ([]string, error) {
			_, err := tx.ListPop([]byte("l"), true, 3)
			return l[min(3, len(l)):], err
		}},
		{"rpop 3", func(tx *Txn, l []string) ([]string, error) {
			_, err := tx.ListPop([]byte("l"), false, 3)
			return l[:max(0, len(l)-3)], err
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			s := listOpen(t)
			s.SetListFill(fill)
			model := build(t, s)
			if len(model) < 4 {
				t.Fatalf("a list of %d elements: build at least 4", len(model))
			}
			listTxn(t, s, "l", func(tx *Txn) error {
				var err error
				model, err = op.apply(tx, model)
				return err
			})
			listCheckReads(t, s, "l", model)
			if err := CheckInvariants(s); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// listCheckReads compares LRANGE, LINDEX and LPOS of every position with model.
func listCheckReads(t *testing.T, s *Store, key string, model []string) {
	t.Helper()
	if got := listRead(t, s, key); fmt.Sprint(got) != fmt.Sprint(model) {
		t.Fatalf("LRANGE 0 -1 = %v, want %v", got, model)
	}
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	n := int64(len(model))
	for i := int64(0); i < n; i++ {
		for _, at := range []int64{i, i - n} {
			v, ok, err := tx.ListIndex([]byte(key), at)
			if err != nil || !ok || string(v) != model[i] {
				t.Fatalf("LINDEX %d = %q %v %v, want %q", at, v, ok, err, model[i])
			}
		}
		var got []string
		if err := tx.ListRange([]byte(key), i, n-1, func(int) {}, func(v []byte) { got = append(got, string(v)) }); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(model[i:]) {
			t.Fatalf("LRANGE %d -1 = %v, want %v", i, got, model[i:])
		}
		for _, rank := range []int64{1, -1} {
			pos, _, err := tx.ListPos([]byte(key), []byte(model[i]), rank, 0, 0)
			if want := modelPos(model, model[i], rank, 0, 0); err != nil || fmt.Sprint(pos) != fmt.Sprint(want) {
				t.Fatalf("LPOS %q RANK %d = %v %v, want %v", model[i], rank, pos, err, want)
			}
		}
	}
}

func listPushStrings(t *testing.T, s *Store, left bool, vs ...string) {
	t.Helper()
	listTxn(t, s, "l", func(tx *Txn) error {
		_, err := tx.ListPush([]byte("l"), listBytes(vs...), left, false)
		return err
	})
}

func listPopN(t *testing.T, s *Store, left bool, n int64) {
	t.Helper()
	listTxn(t, s, "l", func(tx *Txn) error {
		_, err := tx.ListPop([]byte("l"), left, n)
		return err
	})
}

// TestListHeadNodeKeepsItsKey follows the head node's key through pushes and pops on the left
// and checks every operation from the states they leave.
func TestListHeadNodeKeepsItsKey(t *testing.T) {
	const fill = 4
	t.Run("pushes", func(t *testing.T) {
		s := listOpen(t)
		s.SetListFill(fill)
		listPushStrings(t, s, true, "c", "b", "a") // one node [a b c], keyed by its start
		m, recs, size := listState(t, s, "l")
		if m.First != ListMiddle-3 || m.Head != m.First || recs != 1 || size != 40 {
			t.Fatalf("new list: first %d head %d (middle-%d), %d records, %d-byte meta", m.First, m.Head, ListMiddle-m.Head, recs, size)
		}
		listPushStrings(t, s, true, "z") // [z a b c] under the same key
		m, recs, size = listState(t, s, "l")
		if m.First != ListMiddle-3 || m.Head != ListMiddle-4 || recs != 1 || size != 48 {
			t.Fatalf("lpush z: first middle-%d, head middle-%d, %d records, %d-byte meta", ListMiddle-m.First, ListMiddle-m.Head, recs, size)
		}
		listPushStrings(t, s, true, "y") // the head node is full: rekeyed under its start, and a new one
		m, recs, size = listState(t, s, "l")
		if m.First != ListMiddle-5 || m.Head != m.First || m.Last != ListMiddle-4 || recs != 2 || size != 40 {
			t.Fatalf("lpush y: first middle-%d, head middle-%d, last middle-%d, %d records", ListMiddle-m.First, ListMiddle-m.Head, ListMiddle-m.Last, recs)
		}
		listPopN(t, s, true, 2) // empties the head node [y], then takes z from [z a b c]
		m, recs, _ = listState(t, s, "l")
		if m.First != ListMiddle-4 || m.Head != ListMiddle-3 || recs != 1 {
			t.Fatalf("lpop 2: first middle-%d, head middle-%d, %d records", ListMiddle-m.First, ListMiddle-m.Head, recs)
		}
		listCheckReads(t, s, "l", []string{"a", "b", "c"})
		if err := CheckInvariants(s); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("lone node keyed past tail", func(t *testing.T) {
		s := listOpen(t)
		s.SetListFill(fill)
		listPushStrings(t, s, true, "c", "b", "a")
		listPushStrings(t, s, true, "z")
		listPopN(t, s, false, 3) // [z], keyed at middle-3, which is Tail
		m, _, _ := listState(t, s, "l")
		if m.First != m.Tail || m.Last != m.First {
			t.Fatalf("first middle-%d, tail middle-%d, last middle-%d", ListMiddle-m.First, ListMiddle-m.Tail, ListMiddle-m.Last)
		}
		listPushStrings(t, s, false, "1", "2", "3", "4", "5", "6")
		listCheckReads(t, s, "l", []string{"z", "1", "2", "3", "4", "5", "6"})
		if err := CheckInvariants(s); err != nil {
			t.Fatal(err)
		}
	})
	// A head node keyed above Head and above the positions just after it: reads of [Head,
	// First) find no key at or below them.
	t.Run("above", func(t *testing.T) {
		listOps(t, fill, func(t *testing.T, s *Store) []string {
			listPushStrings(t, s, false, "a")
			listPushStrings(t, s, true, "b")
			listPushStrings(t, s, true, "c")
			listPushStrings(t, s, true, "d")
			listPushStrings(t, s, false, "e", "f", "g", "h", "i")
			if m, recs, _ := listState(t, s, "l"); m.First != ListMiddle || m.Head != ListMiddle-3 || recs != 3 {
				t.Fatalf("first middle+%d head middle-%d, %d records", m.First-ListMiddle, ListMiddle-m.Head, recs)
			}
			return []string{"d", "c", "b", "a", "e", "f", "g", "h", "i"}
		})
	})
	// A head node keyed below Head, after pops.
	t.Run("below", func(t *testing.T) {
		listOps(t, fill, func(t *testing.T, s *Store) []string {
			listPushStrings(t, s, false, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
			listPopN(t, s, true, 2)
			m, _, _ := listState(t, s, "l")
			if m.First != ListMiddle || m.Head != ListMiddle+2 {
				t.Fatalf("first middle+%d head middle+%d", m.First-ListMiddle, m.Head-ListMiddle)
			}
			return []string{"c", "d", "e", "f", "g", "h", "i", "j"}
		})
	})
	// A lone node keyed above Head.
	t.Run("lone", func(t *testing.T) {
		listOps(t, 8, func(t *testing.T, s *Store) []string {
			listPushStrings(t, s, false, "a", "b")
			listPushStrings(t, s, true, "z")
			listPushStrings(t, s, true, "y")
			return []string{"y", "z", "a", "b"}
		})
	})
}

// TestListFortyByteMeta checks that a list whose metadata has the 40 bytes written before the
// head node had its own key (First = Head) is read and written, and that a store keeps the
// 48-byte form across a reopen.
func TestListFortyByteMeta(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, Databases: 1, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	s.SetListFill(4)
	listPushStrings(t, s, false, "a", "b", "c", "d", "e", "f")
	// The record as the earlier format wrote it: no First.
	m, _, _ := listState(t, s, "l")
	raw := encodeMeta(nil, m)
	if len(raw) != metaHeader+40 {
		t.Fatalf("meta of %d bytes", len(raw))
	}
	if err := s.db().Put(metaKey(nil, s.dbmap[0], []byte("l")), raw, nil); err != nil {
		t.Fatal(err)
	}
	listPushStrings(t, s, true, "x")
	if _, _, size := listState(t, s, "l"); size != 40 { // [x] is a new head node, keyed by its start
		t.Fatalf("meta of %d bytes after lpush", size)
	}
	listPopN(t, s, true, 2) // [x] goes, then a from [a b c d]: First stays below Head
	m, _, size := listState(t, s, "l")
	if size != 48 || m.First != ListMiddle || m.Head != ListMiddle+1 {
		t.Fatalf("after lpop: %d-byte meta, first middle+%d head middle+%d", size, m.First-ListMiddle, m.Head-ListMiddle)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(Options{Dir: dir, Databases: 1, DisableBackgrnd: true}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	listCheckReads(t, s, "l", []string{"b", "c", "d", "e", "f"})
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}
