package storage

import (
	"fmt"
	"strconv"
	"testing"
)

// TestConvertFormat1Lists writes lists in format 1's layout (one element per record, 32-byte
// list metadata) and checks that opening the directory converts them to nodes: same contents
// and expiry, invariants hold, the old records go to the collector, the format becomes 2.
func TestConvertFormat1Lists(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, Databases: 2, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	at := int64(4102444800000)
	for i, n := range []int{1, 7, 3000} {
		key := fmt.Sprintf("l%d", i)
		id, err := s.newID()
		if err != nil {
			t.Fatal(err)
		}
		m := &Meta{Type: TypeList, ID: id, Head: ListMiddle - 5, Tail: ListMiddle - 5 + uint64(n), Size: uint64(n)}
		if i == 1 {
			m.Expire = at
		}
		tx := s.Begin(0, [][]byte{[]byte(key)}, true)
		for j := 0; j < n; j++ {
			v := strconv.Itoa(j * 7)
			tx.PutData(elemKey(nil, id, m.Head+uint64(j)), []byte(v))
			want[key] = append(want[key], v)
		}
		if err := tx.PutMeta([]byte(key), m); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(); err != nil { // the commit in LevelDB before it is overwritten below
			t.Fatal(err)
		}
		// Format 1's metadata: without Last.
		mk := metaKey(nil, s.dbmap[0], []byte(key))
		if err := s.db().Put(mk, encodeMeta(nil, m)[:metaHeader+32], nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.db().Put(sysFormat, []byte("1"), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(Options{Dir: dir, Databases: 2, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.db().Get(sysFormat, nil); string(v) != strconv.Itoa(FormatVersion) {
		t.Fatalf("format after conversion = %q", v)
	}
	for key, elems := range want {
		if got := listRead(t, s, key); fmt.Sprint(got) != fmt.Sprint(elems) {
			t.Fatalf("%s after conversion: %d elements, want %d", key, len(got), len(elems))
		}
	}
	tx := s.Begin(0, nil, false)
	m, err := tx.ListMeta([]byte("l1"))
	tx.Abort()
	if err != nil || m == nil || m.Expire != at {
		t.Fatalf("l1 after conversion: %+v, %v", m, err)
	}
	invCheck(t, s)
	if n, err := s.Collect(); err != nil || n == 0 {
		t.Fatalf("collector reclaimed %d records, %v", n, err)
	}
	invCheck(t, s)
	// The converted lists take writes.
	listTxn(t, s, "l2", func(tx *Txn) error {
		_, err := tx.ListPush([]byte("l2"), listBytes("a", "b"), true, false)
		return err
	})
	if got := listRead(t, s, "l2"); len(got) != 3002 || got[0] != "b" || got[3001] != strconv.Itoa(2999*7) {
		t.Fatalf("l2 after a push: %d elements", len(got))
	}
	invCheck(t, s)
}
