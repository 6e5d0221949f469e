package tests

import (
	"fmt"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/storage"
)

// rcFillHash builds a hash of n fields with pipelined HSETs of 1000 fields each.
func rcFillHash(t testing.TB, c *testutil.Conn, key string, n int) {
	t.Helper()
	var cmds [][]string
	for i := 0; i < n; i += 1000 {
		cmd := []string{"HSET", key}
		for j := i; j < min(i+1000, n); j++ {
			cmd = append(cmd, fmt.Sprintf("field:%07d", j), "value-value-value")
		}
		cmds = append(cmds, cmd)
		if len(cmds) == 50 {
			xpPipeline(t, c, cmds)
			cmds = nil
		}
	}
	xpPipeline(t, c, cmds)
}

// rcCount counts the LevelDB records with a prefix.
func rcCount(t testing.TB, st *storage.Store, prefix byte) int {
	t.Helper()
	it := st.LevelDB().NewIterator(util.BytesPrefix([]byte{prefix}), nil)
	defer it.Release()
	n := 0
	for it.Next() {
		n++
	}
	return n
}

// rcWaitCollected waits until the collector has drained the garbage queue.
func rcWaitCollected(t testing.TB, st *storage.Store, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for rcCount(t, st, 'g') != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("garbage queue not drained after %v", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRestartDuringCollectionKeepsInvariants deletes a large hash and flushes a database full
// of collections, restarts the server while the collector is at work, and checks that the
// invariants hold right after the restart and that, once the collector finishes, no sub-key
// is left and DBSIZE is exact.
func TestRestartDuringCollectionKeepsInvariants(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := testutil.Connect(t, inst.Addr)
	const n = 200_000
	rcFillHash(t, c, "big", n)
	xpDo(t, c, "SELECT", "1")
	for i := 0; i < 20; i++ {
		xpDo(t, c, "SADD", fmt.Sprintf("set:%d", i), "a", "b", "c")
		xpDo(t, c, "ZADD", fmt.Sprintf("z:%d", i), "1", "a", "2", "b")
		xpDo(t, c, "SET", fmt.Sprintf("s:%d", i), "v", "EX", "1000")
	}
	xpDo(t, c, "SELECT", "0")
	xpDo(t, c, "SET", "keep", "v")
	if r := xpDo(t, c, "HLEN", "big"); r.Int != n {
		t.Fatalf("HLEN = %d", r.Int)
	}
	st := inst.Server.Store()
	base := st.Stats.ReclaimedKeys.Load()
	start := time.Now()
	xpDo(t, c, "DEL", "big")
	del := time.Since(start)
	xpDo(t, c, "SELECT", "1")
	xpDo(t, c, "FLUSHDB")
	t.Logf("DEL of a %d-field hash answered in %v", n, del)
	for st.Stats.ReclaimedKeys.Load() == base {
		time.Sleep(100 * time.Microsecond)
	}
	c.Close()
	inst.Restart(t)
	st = inst.Server.Store()
	if err := storage.CheckInvariants(st); err != nil {
		t.Fatalf("right after the restart: %v", err)
	}
	t.Logf("after restart: %d sub-keys, %d garbage records", rcCount(t, st, 'd'), rcCount(t, st, 'g'))
	rcWaitCollected(t, st, 30*time.Second)
	if err := storage.CheckInvariants(st); err != nil {
		t.Fatal(err)
	}
	if d, e := rcCount(t, st, 'd'), rcCount(t, st, 'e'); d != 0 || e != 0 {
		t.Fatalf("%d sub-keys and %d expiry entries leaked", d, e)
	}
	c = testutil.Connect(t, inst.Addr)
	if r := xpDo(t, c, "DBSIZE"); r.Int != 1 {
		t.Fatalf("DBSIZE = %d", r.Int)
	}
}

// TestOverwriteAndExpireCollectionsAreReclaimed: collections replaced by SET, renamed over,
// expired, or moved away and deleted all end up collected, with exact DBSIZE throughout.
func TestOverwriteAndExpireCollectionsAreReclaimed(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := testutil.Connect(t, inst.Addr)
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		rcFillHash(t, c, k, 5000)
	}
	xpDo(t, c, "SET", "a", "now a string")
	xpDo(t, c, "RENAME", "c", "b")
	xpDo(t, c, "PEXPIRE", "d", "50")
	xpDo(t, c, "MOVE", "e", "2")
	xpDo(t, c, "SELECT", "2")
	xpDo(t, c, "COPY", "e", "e2")
	xpDo(t, c, "DEL", "e")
	xpDo(t, c, "SELECT", "0")
	time.Sleep(300 * time.Millisecond)
	if r := xpDo(t, c, "DBSIZE"); r.Int != 2 {
		t.Fatalf("DBSIZE = %d", r.Int)
	}
	st := inst.Server.Store()
	rcWaitCollected(t, st, 10*time.Second)
	if err := storage.CheckInvariants(st); err != nil {
		t.Fatal(err)
	}
	// Two hashes are alive: b (c's object) and e2 (the copy).
	if d := rcCount(t, st, 'd'); d != 10000 {
		t.Fatalf("%d sub-keys, want 10000", d)
	}
	if r := xpDo(t, c, "HLEN", "b"); r.Int != 5000 {
		t.Fatalf("HLEN b = %d", r.Int)
	}
}
