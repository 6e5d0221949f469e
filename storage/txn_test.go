package storage

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// openTest opens a store in a temporary directory and closes it at the end of the test.
func openTest(t testing.TB, background bool) *Store {
	t.Helper()
	s, err := Open(Options{Dir: t.TempDir(), Databases: 4, DisableBackgrnd: !background, KeyCache: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func write(t testing.TB, s *Store, db int, key string, fn func(tx *Txn) error) {
	t.Helper()
	tx := s.Begin(db, [][]byte{[]byte(key)}, true)
	if err := fn(tx); err != nil {
		tx.Abort()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func getString(t testing.TB, s *Store, db int, key string) (string, bool) {
	t.Helper()
	tx := s.Begin(db, [][]byte{[]byte(key)}, false)
	defer tx.Abort()
	v, ok, err := tx.GetString([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return string(v), ok
}

func TestTxnReadsOwnWritesAndAbortDrops(t *testing.T) {
	s := openTest(t, false)
	tx := s.Begin(0, [][]byte{[]byte("a")}, true)
	if err := tx.SetString([]byte("a"), []byte("1"), 0); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := tx.GetString([]byte("a")); !ok || string(v) != "1" {
		t.Fatalf("own write not visible: %q %v", v, ok)
	}
	tx.Abort()
	if _, ok := getString(t, s, 0, "a"); ok {
		t.Fatal("aborted write is visible")
	}
	if n := s.DBSize(0); n != 0 {
		t.Fatalf("DBSize after abort = %d", n)
	}
}

func TestDatabasesAreSeparateAndFlush(t *testing.T) {
	s := openTest(t, false)
	write(t, s, 0, "k", func(tx *Txn) error { return tx.SetString([]byte("k"), []byte("zero"), 0) })
	write(t, s, 1, "k", func(tx *Txn) error { return tx.SetString([]byte("k"), []byte("one"), 0) })
	if v, _ := getString(t, s, 1, "k"); v != "one" {
		t.Fatalf("db1 = %q", v)
	}
	tx := s.BeginExclusive(0)
	tx.FlushDB(0)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, ok := getString(t, s, 0, "k"); ok || s.DBSize(0) != 0 {
		t.Fatal("FLUSHDB left the key")
	}
	if v, _ := getString(t, s, 1, "k"); v != "one" || s.DBSize(1) != 1 {
		t.Fatal("FLUSHDB of db0 touched db1")
	}
	tx = s.BeginExclusive(0)
	tx.SwapDB(0, 1)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if v, _ := getString(t, s, 0, "k"); v != "one" || s.DBSize(0) != 1 || s.DBSize(1) != 0 {
		t.Fatal("SWAPDB did not swap")
	}
	if n, err := s.Collect(); err != nil || n != 1 {
		t.Fatalf("collector reclaimed %d records, err %v; want the flushed key", n, err)
	}
}

func TestCountersSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		k := fmt.Sprint("k", i)
		exp := int64(0)
		if i%5 == 0 {
			exp = time.Now().Add(time.Hour).UnixMilli()
		}
		write(t, s, 2, k, func(tx *Txn) error { return tx.SetString([]byte(k), []byte(k), exp) })
	}
	write(t, s, 2, "k1", func(tx *Txn) error { _, err := tx.Delete([]byte("k1")); return err })
	s.Close()
	s, err = Open(Options{Dir: dir, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if k, x := s.KeyCounts(2); k != 49 || x != 10 {
		t.Fatalf("after restart keys=%d expires=%d, want 49 and 10", k, x)
	}
	if v, _ := getString(t, s, 2, "k7"); v != "k7" {
		t.Fatalf("k7 = %q", v)
	}
}

func TestUnknownFormatRefusesToOpen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	s.db().Put(sysFormat, []byte("99"), nil)
	s.Close()
	if _, err := Open(Options{Dir: dir, DisableBackgrnd: true}); !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("open with format 99: %v", err)
	}
}

// TestLazyAndActiveExpiry checks that a read of an expired key deletes it once the read is
// over and counts it (lazy expiry), except while expiry is held, and that the active cycle
// deletes what no read found.
func TestLazyAndActiveExpiry(t *testing.T) {
	s := openTest(t, false)
	past := time.Now().UnixMilli() - 1
	write(t, s, 0, "gone", func(tx *Txn) error { return tx.SetString([]byte("gone"), []byte("v"), past) })
	s.HoldExpiry(time.Now().Add(time.Hour))
	if _, ok := getString(t, s, 0, "gone"); ok {
		t.Fatal("expired key readable")
	}
	if k, x := s.KeyCounts(0); k != 1 || x != 1 {
		t.Fatalf("read while expiry is held: keys=%d expires=%d", k, x)
	}
	s.HoldExpiry(time.Time{})
	if _, ok := getString(t, s, 0, "gone"); ok {
		t.Fatal("expired key readable")
	}
	if k, x := s.KeyCounts(0); k != 0 || x != 0 || s.Stats.ExpiredKeys.Load() != 1 {
		t.Fatalf("after a read: keys=%d expires=%d expired=%d", k, x, s.Stats.ExpiredKeys.Load())
	}
	write(t, s, 0, "gone", func(tx *Txn) error { return tx.SetString([]byte("gone"), []byte("v"), past) })
	if n, err := s.ExpireStep(100); err != nil || n != 1 {
		t.Fatalf("ExpireStep = %d, %v", n, err)
	}
	if k, x := s.KeyCounts(0); k != 0 || x != 0 {
		t.Fatalf("after active expiry keys=%d expires=%d", k, x)
	}
}

func TestIteratorMergesOverlay(t *testing.T) {
	s := openTest(t, false)
	key := []byte("c")
	write(t, s, 0, "c", func(tx *Txn) error {
		for _, sub := range []string{"a", "b", "c", "d"} {
			tx.PutData(DataKey(nil, 1, []byte(sub)), []byte("old-"+sub))
		}
		return nil
	})
	tx := s.Begin(0, [][]byte{key}, true)
	defer tx.Abort()
	tx.DeleteData(DataKey(nil, 1, []byte("b")))
	tx.PutData(DataKey(nil, 1, []byte("c")), []byte("new-c"))
	tx.PutData(DataKey(nil, 1, []byte("bb")), []byte("new-bb"))
	for _, reverse := range []bool{false, true} {
		it := tx.Iterate(DataKey(nil, 1, nil), DataKey(nil, 2, nil), reverse)
		var got []string
		for it.Next() {
			got = append(got, string(it.Key()[DataPrefixLen:])+"="+string(it.Value()))
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		want := []string{"a=old-a", "bb=new-bb", "c=new-c", "d=old-d"}
		if reverse {
			want = []string{"d=old-d", "c=new-c", "bb=new-bb", "a=old-a"}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("reverse=%v: got %v want %v", reverse, got, want)
		}
	}
}
