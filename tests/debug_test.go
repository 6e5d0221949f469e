package tests

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// TestDiffDebug runs the DEBUG transcripts (testdata/debug/) against a redis-server and a
// Strata server that both allow DEBUG: replies, digests included, must be the same.
func TestDiffDebug(t *testing.T) {
	want := testutil.StartRedis(t, "--enable-debug-command", "yes")
	got := testutil.StartStrata(t, func(c *config.Config) {
		if err := c.Set("enable-debug-command", []string{"yes"}); err != nil {
			t.Fatal(err)
		}
	})
	testutil.DiffFilesBetween(t, "testdata/debug/*.txt", want, got)
}

// debugStrata starts Strata with enable-debug-command set to mode.
func debugStrata(t *testing.T, mode string) *testutil.Instance {
	return testutil.StartStrata(t, func(c *config.Config) {
		if err := c.Set("enable-debug-command", []string{mode}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDebugReloadKeepsData checks that DEBUG RELOAD closes and reopens the store with every key
// kept (the memtable's writes replayed from the journal), that the key counters and expiries
// come back, and that writes go on after it, also across a restart.
func TestDebugReloadKeepsData(t *testing.T) {
	inst := debugStrata(t, "yes")
	c := clConn(t, inst)
	for i := range 500 {
		clExpect(t, c, "OK", "SET", "k"+strconv.Itoa(i), strings.Repeat("v", i))
	}
	clExpect(t, c, "(integer) 3", "RPUSH", "l", "a", "b", "c")
	clExpect(t, c, "(integer) 1", "EXPIRE", "k1", "1000")
	digest := clDo(t, c, "DEBUG", "DIGEST").String()
	clExpect(t, c, "OK", "DEBUG", "RELOAD")
	clExpect(t, c, digest, "DEBUG", "DIGEST")
	clExpect(t, c, "(integer) 501", "DBSIZE")
	clExpect(t, c, `"`+strings.Repeat("v", 499)+`"`, "GET", "k499")
	if r := clDo(t, c, "TTL", "k1"); r.Int < 990 {
		t.Errorf("TTL k1 after reload = %v", r)
	}
	// Redis stops on the first key NOFLUSH without MERGE loads again; Strata refuses.
	clExpect(t, c, "(error) ERR Error trying to load the RDB dump", "DEBUG", "RELOAD", "NOFLUSH")
	clExpect(t, c, "(integer) 4", "RPUSH", "l", "d")
	clExpect(t, c, "OK", "DEBUG", "RELOAD", "NOSAVE")
	clExpect(t, c, `1) "a"`+"\n"+`2) "b"`+"\n"+`3) "c"`+"\n"+`4) "d"`, "LRANGE", "l", "0", "-1")
	inst.Restart(t)
	c = clConn(t, inst)
	clExpect(t, c, "(integer) 501", "DBSIZE")
	clExpect(t, c, "(integer) 4", "LLEN", "l")
}

// TestDebugSleepStallsKeyspace checks that DEBUG SLEEP holds the other clients' key commands for
// its duration, as Redis stops for it, and that SET-ACTIVE-EXPIRE 0 keeps expired keys stored
// (DBSIZE counts them) until it is set back to 1.
func TestDebugSleepStallsKeyspace(t *testing.T) {
	inst := debugStrata(t, "yes")
	sleeper, other := clConn(t, inst), clConn(t, inst)
	if err := sleeper.Send("DEBUG", "SLEEP", "0.3"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	clExpect(t, other, "OK", "SET", "x", "1")
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("SET ran %v into DEBUG SLEEP 0.3: not held", d)
	}
	if r, err := sleeper.ReadReply(); err != nil || r.String() != "OK" {
		t.Fatalf("DEBUG SLEEP: %v %v", r, err)
	}

	clExpect(t, other, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	clExpect(t, other, "OK", "SET", "e", "1", "PX", "1")
	time.Sleep(300 * time.Millisecond) // three expiry cycles
	clExpect(t, other, "(integer) 2", "DBSIZE")
	clExpect(t, other, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	deadline := time.Now().Add(3 * time.Second)
	for clDo(t, other, "DBSIZE").Int != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the expired key stayed after SET-ACTIVE-EXPIRE 1")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDebugObjectAndModes checks DEBUG OBJECT's line (the fields Redis prints, the address stable
// while the value changes in place) and enable-debug-command local, which allows loopback
// connections.
func TestDebugObjectAndModes(t *testing.T) {
	inst := debugStrata(t, "local")
	c := clConn(t, inst)
	clExpect(t, c, "OK", "SET", "foo", "20000")
	line := regexp.MustCompile(`^Value at:(0x[0-9a-f]+) refcount:1 encoding:int serializedlength:3 lru:\d+ lru_seconds_idle:\d+$`)
	m := line.FindStringSubmatch(clDo(t, c, "DEBUG", "OBJECT", "foo").Str)
	if m == nil {
		t.Fatalf("DEBUG OBJECT foo = %q", clDo(t, c, "DEBUG", "OBJECT", "foo").Str)
	}
	clExpect(t, c, "(integer) 20001", "INCR", "foo")
	if m2 := line.FindStringSubmatch(clDo(t, c, "DEBUG", "OBJECT", "foo").Str); m2 == nil || m2[1] != m[1] {
		t.Errorf("DEBUG OBJECT after INCR: %v, address before %s", m2, m[1])
	}
	clExpect(t, c, "(error) ERR no such key", "DEBUG", "OBJECT", "nokey")
	clExpect(t, c, "(error) ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config",
		"CONFIG", "SET", "enable-debug-command", "no")
	clExpect(t, c, `1) "enable-debug-command"`+"\n"+`2) "local"`, "CONFIG", "GET", "enable-debug-command")
}

// TestDebugInsideMulti checks that DEBUG inside MULTI neither deadlocks nor waits on the EXEC's
// own transaction: SLEEP sleeps, the subcommands that need a transaction of their own answer
// an error, the others run.
func TestDebugInsideMulti(t *testing.T) {
	inst := debugStrata(t, "yes")
	c := clConn(t, inst)
	clExpect(t, c, "OK", "MULTI")
	for _, args := range [][]string{{"SET", "k", "v"}, {"DEBUG", "SLEEP", "0.01"}, {"DEBUG", "DIGEST"},
		{"DEBUG", "OBJECT", "k"}, {"DEBUG", "SET-ACTIVE-EXPIRE", "1"}, {"GET", "k"}} {
		clExpect(t, c, "QUEUED", args...)
	}
	clExpect(t, c, `1) OK`+"\n"+`2) OK`+"\n"+`3) (error) ERR DEBUG DIGEST cannot run inside MULTI or a script`+"\n"+
		`4) (error) ERR DEBUG OBJECT cannot run inside MULTI or a script`+"\n"+`5) OK`+"\n"+`6) "v"`, "EXEC")
}
