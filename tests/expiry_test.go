package tests

import (
	"fmt"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/storage"
)

// xpDo runs a command and fails the test on an I/O or error reply.
func xpDo(t testing.TB, c *testutil.Conn, args ...string) testutil.Reply {
	t.Helper()
	r, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if r.IsError() {
		t.Fatalf("%v: %s", args, r.Str)
	}
	return r
}

// xpPipeline sends every command, then reads every reply, failing on any error reply.
func xpPipeline(t testing.TB, c *testutil.Conn, cmds [][]string) {
	t.Helper()
	for _, cmd := range cmds {
		if err := c.Send(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range cmds {
		r, err := c.ReadReply()
		if err != nil || r.IsError() {
			t.Fatalf("%v: %v %v", cmd[:2], r, err)
		}
	}
}

// TestExpiredKeysVanishWithoutReads: keys of every type with a 100 ms TTL are removed by the
// active expiry cycle alone. Nobody reads them: DBSIZE (which counts keys until they are deleted,
// as in Redis, and reads no key) is polled until it reaches zero, which must happen within 1 s;
// then GET, EXISTS and SCAN confirm they are gone and the storage invariants hold.
func TestExpiredKeysVanishWithoutReads(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := testutil.Connect(t, inst.Addr)
	xpDo(t, c, "SET", "keep", "v")
	var cmds [][]string
	for i := 0; i < 500; i++ {
		cmds = append(cmds, []string{"SET", fmt.Sprintf("s:%03d", i), "v", "PX", "100"})
	}
	cmds = append(cmds,
		[]string{"HSET", "h", "a", "1", "b", "2"}, []string{"PEXPIRE", "h", "100"},
		[]string{"SADD", "set", "a", "b"}, []string{"PEXPIRE", "set", "100"},
		[]string{"ZADD", "z", "1", "a"}, []string{"PEXPIRE", "z", "100"},
		[]string{"SET", "lone", "v", "PX", "100"})
	start := time.Now()
	xpPipeline(t, c, cmds)
	if r := xpDo(t, c, "DBSIZE"); r.Int != 505 {
		t.Fatalf("DBSIZE = %d", r.Int)
	}
	var gone time.Duration
	for {
		r := xpDo(t, c, "DBSIZE")
		if r.Int == 1 {
			gone = time.Since(start)
			break
		}
		if time.Since(start) > time.Second {
			t.Fatalf("DBSIZE still %d after %v", r.Int, time.Since(start))
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("504 keys with a 100 ms TTL gone from DBSIZE after %v", gone)
	if r := xpDo(t, c, "GET", "lone"); !r.IsNil() {
		t.Fatalf("GET = %v", r)
	}
	if r := xpDo(t, c, "EXISTS", "lone", "h", "set", "z", "s:000"); r.Int != 0 {
		t.Fatalf("EXISTS = %v", r)
	}
	if r := xpDo(t, c, "SCAN", "0", "COUNT", "1000"); len(r.Elems[1].Elems) != 1 || r.Elems[1].Elems[0].Str != "keep" {
		t.Fatalf("SCAN = %v", r)
	}
	st := inst.Server.Store()
	if k, x := st.KeyCounts(0); k != 1 || x != 0 {
		t.Fatalf("key counters %d, %d", k, x)
	}
	if err := storage.CheckInvariants(st); err != nil {
		t.Fatal(err)
	}
}

// TestExpiryAcrossRestart: expiry times survive a restart, and keys that expired while the
// server was down are invisible at once and removed by the active cycle after it starts.
func TestExpiryAcrossRestart(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := testutil.Connect(t, inst.Addr)
	xpDo(t, c, "SET", "short", "v", "PX", "300")
	xpDo(t, c, "HSET", "h", "f", "v")
	xpDo(t, c, "PEXPIRE", "h", "300")
	xpDo(t, c, "SET", "long", "v")
	xpDo(t, c, "PEXPIREAT", "long", "4102444800123")
	c.Close()
	inst.Restart(t)
	time.Sleep(350 * time.Millisecond)
	c = testutil.Connect(t, inst.Addr)
	if r := xpDo(t, c, "EXISTS", "short", "h"); r.Int != 0 {
		t.Fatalf("EXISTS = %d", r.Int)
	}
	if r := xpDo(t, c, "PEXPIRETIME", "long"); r.Int != 4102444800123 {
		t.Fatalf("PEXPIRETIME = %d", r.Int)
	}
	deadline := time.Now().Add(2 * time.Second)
	for xpDo(t, c, "DBSIZE").Int != 1 {
		if time.Now().After(deadline) {
			t.Fatal("expired keys not removed after restart")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := storage.CheckInvariants(inst.Server.Store()); err != nil {
		t.Fatal(err)
	}
}
