package storage

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"
)

// mustFlush writes the pending commits to LevelDB, for tests that read LevelDB directly.
func mustFlush(t testing.TB, s *Store) {
	t.Helper()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
}

func putData(t *testing.T, s *Store, key string, val string, del bool) {
	t.Helper()
	tx := s.Begin(0, [][]byte{[]byte(key)}, true)
	if del {
		tx.DeleteData(ovKey(key))
	} else {
		tx.PutData(ovKey(key), []byte(val))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func ovKey(k string) []byte { return DataKey(nil, 7, []byte(k)) }

// groupScan reads every sub-key of object 7 through a new transaction, in one direction.
func groupScan(t *testing.T, s *Store, reverse bool) string {
	t.Helper()
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	it := tx.Iterate(DataKey(nil, 7, nil), DataKey(nil, 8, nil), reverse)
	out := ""
	for it.Next() {
		out += fmt.Sprintf("%s=%s ", it.Key()[len(DataKey(nil, 7, nil)):], it.Value())
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func groupGet(t *testing.T, s *Store, key string) string {
	t.Helper()
	tx := s.Begin(0, [][]byte{[]byte(key)}, false)
	defer tx.Abort()
	v, ok, err := tx.GetData(ovKey(key))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "-"
	}
	return string(v)
}

// Reads see every committed write through each layer: LevelDB, the group being written, the
// pending group and the transaction's own writes; a deletion in a newer layer hides an older
// layer's record, forward and in reverse.
func TestGroupOverlayLayers(t *testing.T) {
	s := openTest(t, false)
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		putData(t, s, k, "db", false)
	}
	mustFlush(t, s)
	putData(t, s, "b", "", true)
	putData(t, s, "c", "w", false)
	putData(t, s, "f", "w", false)
	// The pending group becomes the group being written, as when a flush is under way.
	gc := &s.group
	gc.mu.Lock()
	writing := gc.pend
	gc.flushing, gc.pend = writing, nil
	gc.mu.Unlock()
	putData(t, s, "c", "p", false)
	putData(t, s, "d", "", true)
	putData(t, s, "b", "p", false)
	putData(t, s, "g", "p", false)
	want := "a=db b=p c=p e=db f=w g=p "
	if got := groupScan(t, s, false); got != want {
		t.Fatalf("forward: %q, want %q", got, want)
	}
	if got := groupScan(t, s, true); got != "g=p f=w e=db c=p b=p a=db " {
		t.Fatalf("reverse: %q", got)
	}
	for k, v := range map[string]string{"a": "db", "b": "p", "c": "p", "d": "-", "e": "db", "f": "w", "g": "p", "h": "-"} {
		if got := groupGet(t, s, k); got != v {
			t.Errorf("get %s: %q, want %q", k, got, v)
		}
	}
	// The transaction's own writes lie over all of them.
	tx := s.Begin(0, [][]byte{[]byte("a"), []byte("g")}, true)
	tx.DeleteData(ovKey("a"))
	tx.PutData(ovKey("g"), []byte("t"))
	it := tx.Iterate(DataKey(nil, 7, nil), DataKey(nil, 8, nil), false)
	n := 0
	for it.Next() {
		n++
		if k := string(it.Key()[len(DataKey(nil, 7, nil)):]); k == "a" || k == "g" && string(it.Value()) != "t" {
			t.Errorf("own writes not over the groups: %s=%s", k, it.Value())
		}
	}
	it.Close()
	if n != 5 {
		t.Errorf("%d entries under the transaction's writes, want 5", n)
	}
	tx.Abort()
	s.writeGroup(writing)
	if gc.flushing != nil || gc.pend == nil {
		t.Fatal("the written group is still in the overlay, or the pending one is not")
	}
	mustFlush(t, s)
	if gc.busy.Load() {
		t.Fatal("busy after a flush")
	}
	if got := groupScan(t, s, false); got != want {
		t.Fatalf("after the flush: %q, want %q", got, want)
	}
}

// A failed group write fails every Flush that covers it, and the group pending behind it; its
// writes, counters and cached metadata are taken back, writes are refused, and an aborted
// transaction never reaches a group.
func TestGroupFailedWrite(t *testing.T) {
	s := openTest(t, false)
	write(t, s, 0, "k", func(tx *Txn) error { return tx.SetString([]byte("k"), []byte("1"), 0) })
	tx := s.Begin(0, [][]byte{[]byte("x")}, true)
	if err := tx.SetString([]byte("x"), []byte("aborted"), 0); err != nil {
		t.Fatal(err)
	}
	tx.Abort()
	mustFlush(t, s)
	if _, ok := getString(t, s, 0, "x"); ok {
		t.Fatal("an aborted write was committed")
	}

	boom := errors.New("boom")
	entered, release := make(chan struct{}), make(chan struct{})
	groupWriteHook = func(*leveldb.Batch) error {
		close(entered)
		<-release
		return boom
	}
	defer func() { groupWriteHook = nil }()
	write(t, s, 0, "k", func(tx *Txn) error { return tx.SetString([]byte("k"), []byte("2"), 0) })
	write(t, s, 0, "n", func(tx *Txn) error { return tx.SetString([]byte("n"), []byte("new"), 0) })
	if n := s.DBSize(0); n != 2 {
		t.Fatalf("DBSIZE %d before the flush, want 2", n)
	}
	errs, late := make(chan error, 1), make(chan error, 1)
	go func() { errs <- s.Flush() }()
	<-entered
	// Committed while the failing group is written: it reads that group's write.
	write(t, s, 0, "k", func(tx *Txn) error {
		v, _, err := tx.GetString([]byte("k"))
		if string(v) != "2" {
			t.Errorf("read %q under the group being written, want 2", v)
		}
		if err != nil {
			return err
		}
		return tx.SetString([]byte("k"), []byte("3"), 0)
	})
	go func() { late <- s.Flush() }()
	close(release)
	// The first Flush made the failing write; the second one either waited for it or came
	// after it was handled (FlushSince covers that case: TestGroupFlushSinceSeesEarlierLoss).
	if err := <-errs; !errors.Is(err, boom) {
		t.Fatalf("Flush: %v, want the write's error", err)
	}
	<-late
	if v, _ := getString(t, s, 0, "k"); v != "1" {
		t.Fatalf("k = %q after the failed write, want the written 1", v)
	}
	if _, ok := getString(t, s, 0, "n"); ok {
		t.Fatal("n exists after the failed write")
	}
	if n := s.DBSize(0); n != 1 {
		t.Fatalf("DBSIZE %d after the failed write, want 1", n)
	}
	if s.WriteError() == nil {
		t.Fatal("writes are not refused after a failed group write")
	}
	groupWriteHook = nil
	write(t, s, 0, "k", func(tx *Txn) error { return tx.SetString([]byte("k"), []byte("4"), 0) })
	mustFlush(t, s)
	if v, _ := getString(t, s, 0, "k"); v != "4" {
		t.Fatalf("k = %q, want 4", v)
	}
	invCheck(t, s)
}

// Concurrent committers that flush after each commit share LevelDB writes, and every commit
// is written once Flush returns.
func TestGroupConcurrentFlush(t *testing.T) {
	s, err := Open(Options{Dir: t.TempDir(), Fsync: "always", DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var writes atomic.Int64
	groupWriteHook = func(*leveldb.Batch) error { writes.Add(1); return nil }
	defer func() { groupWriteHook = nil }()
	const clients, each = 16, 50
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				key := fmt.Sprintf("c%d:%d", c, i)
				tx := s.Begin(0, [][]byte{[]byte(key)}, true)
				if err := tx.SetString([]byte(key), []byte("v"), 0); err != nil {
					t.Error(err)
				}
				if err := tx.Commit(); err != nil {
					t.Error(err)
				}
				if err := s.Flush(); err != nil {
					t.Error(err)
				}
				if v, err := s.db().Get(metaKey(nil, s.dbmap[0], []byte(key)), nil); err != nil || len(v) == 0 {
					t.Errorf("%s not in LevelDB after Flush: %v", key, err)
				}
			}
		}()
	}
	wg.Wait()
	if n := s.DBSize(0); n != clients*each {
		t.Fatalf("DBSIZE %d, want %d", n, clients*each)
	}
	if w := writes.Load(); w >= clients*each {
		t.Errorf("%d LevelDB writes for %d commits: no group was shared", w, clients*each)
	}
	t.Logf("%d commits in %d group writes", clients*each, writes.Load())
	invCheck(t, s)
}

// A connection's replies fail when a commit they may depend on was lost, even in a write that
// another caller's Flush made and that failed before this one: a commit added during the
// failing write, then flushed once the failure has been handled, is still refused.
func TestGroupFlushSinceSeesEarlierLoss(t *testing.T) {
	s := openTest(t, false)
	from := s.CommitSeq()
	write(t, s, 0, "a", func(tx *Txn) error { return tx.SetString([]byte("a"), []byte("1"), 0) })
	to, err := s.FlushSince(from)
	if err != nil || to <= from {
		t.Fatalf("FlushSince(%d) = %d, %v", from, to, err)
	}

	entered, release := make(chan struct{}), make(chan struct{})
	groupWriteHook = func(*leveldb.Batch) error {
		close(entered)
		<-release
		return errors.New("boom")
	}
	defer func() { groupWriteHook = nil }()
	write(t, s, 0, "b", func(tx *Txn) error { return tx.SetString([]byte("b"), []byte("1"), 0) })
	done := make(chan error)
	go func() { done <- s.Flush() }()
	<-entered
	mine := to
	write(t, s, 0, "c", func(tx *Txn) error { return tx.SetString([]byte("c"), []byte("1"), 0) })
	close(release)
	if err := <-done; err == nil {
		t.Fatal("the failing write's Flush succeeded")
	}
	groupWriteHook = nil
	if _, err := s.FlushSince(mine); err == nil {
		t.Fatal("replies after a lost commit were allowed")
	}
	// Once past the loss, a connection flushes again.
	now := s.CommitSeq()
	write(t, s, 0, "d", func(tx *Txn) error { return tx.SetString([]byte("d"), []byte("1"), 0) })
	if _, err := s.FlushSince(now); err != nil {
		t.Fatalf("FlushSince after the loss: %v", err)
	}
	if _, ok := getString(t, s, 0, "c"); ok {
		t.Fatal("the lost commit is visible")
	}
}
