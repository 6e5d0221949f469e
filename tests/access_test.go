package tests

import (
	"strings"
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// TestKeyAccessTracking checks, on Strata and on redis-server, OBJECT IDLETIME and FREQ: RESTORE
// ... IDLETIME sets the idle time, which TYPE, TTL, EXISTS and OBJECT leave alone and GET and
// TOUCH reset; under an LFU policy IDLETIME is refused and RESTORE ... FREQ sets what FREQ
// answers; and INFO keyspace_hits and keyspace_misses count the lookups of read commands.
func TestKeyAccessTracking(t *testing.T) {
	insts := []*testutil.Instance{testutil.StartStrata(t)}
	if r := testutil.MaybeStartRedis(t); r != nil {
		insts = append(insts, r)
	}
	for _, inst := range insts {
		t.Run(inst.Name, func(t *testing.T) {
			c := clConn(t, inst)
			clExpect(t, c, "OK", "SET", "k", "v")
			payload := clDo(t, c, "DUMP", "k").Str
			clExpect(t, c, "OK", "RESTORE", "k", "0", payload, "REPLACE", "IDLETIME", "1000")
			for _, args := range [][]string{{"TYPE", "k"}, {"TTL", "k"}, {"EXISTS", "k"}, {"OBJECT", "ENCODING", "k"}} {
				clDo(t, c, args...)
			}
			if idle := clDo(t, c, "OBJECT", "IDLETIME", "k").Int; idle < 1000 || idle > 1002 {
				t.Errorf("OBJECT IDLETIME after RESTORE IDLETIME 1000 and TYPE, TTL, EXISTS: %d", idle)
			}
			clExpect(t, c, `"v"`, "GET", "k")
			if idle := clDo(t, c, "OBJECT", "IDLETIME", "k").Int; idle > 1 {
				t.Errorf("OBJECT IDLETIME after GET: %d", idle)
			}
			clExpect(t, c, "OK", "RESTORE", "k", "0", payload, "REPLACE", "IDLETIME", "500")
			clExpect(t, c, "(integer) 1", "TOUCH", "k")
			if idle := clDo(t, c, "OBJECT", "IDLETIME", "k").Int; idle > 1 {
				t.Errorf("OBJECT IDLETIME after TOUCH: %d", idle)
			}

			clExpect(t, c, "OK", "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
			clExpect(t, c, "OK", "RESTORE", "k", "0", payload, "REPLACE", "FREQ", "100")
			clExpect(t, c, "(integer) 100", "OBJECT", "FREQ", "k")
			if r := clDo(t, c, "OBJECT", "IDLETIME", "k"); !strings.HasPrefix(r.Str, "ERR An LFU maxmemory policy is selected") {
				t.Errorf("OBJECT IDLETIME under allkeys-lfu: %v", r)
			}
			clExpect(t, c, "OK", "CONFIG", "SET", "maxmemory-policy", "noeviction")
			if r := clDo(t, c, "OBJECT", "FREQ", "k"); !strings.HasPrefix(r.Str, "ERR An LFU maxmemory policy is not selected") {
				t.Errorf("OBJECT FREQ under noeviction: %v", r)
			}

			clExpect(t, c, "OK", "CONFIG", "RESETSTAT")
			for _, args := range [][]string{{"GET", "k"}, {"GET", "nokey"}, {"MGET", "k", "a", "b"},
				{"EXISTS", "k", "nokey"}, {"TYPE", "k"}, {"HGET", "h", "f"}, {"LRANGE", "l", "0", "-1"}, {"STRLEN", "k"}} {
				clDo(t, c, args...)
			}
			info := clDo(t, c, "INFO", "stats").Str
			for _, want := range []string{"keyspace_hits:5\r\n", "keyspace_misses:6\r\n"} {
				if !strings.Contains(info, want) {
					t.Errorf("INFO stats lacks %q", want)
				}
			}
		})
	}
}

// TestNoTouchClient checks that a client in CLIENT NO-TOUCH mode leaves a key's idle time alone
// except with TOUCH (a Redis 7.2 mode that Strata serves).
func TestNoTouchClient(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := clConn(t, inst)
	clExpect(t, c, "OK", "SET", "k", "v")
	payload := clDo(t, c, "DUMP", "k").Str
	clExpect(t, c, "OK", "RESTORE", "k", "0", payload, "REPLACE", "IDLETIME", "100")
	clExpect(t, c, "OK", "CLIENT", "NO-TOUCH", "ON")
	clExpect(t, c, `"v"`, "GET", "k")
	if idle := clDo(t, c, "OBJECT", "IDLETIME", "k").Int; idle < 100 {
		t.Errorf("OBJECT IDLETIME after a no-touch GET: %d", idle)
	}
	clExpect(t, c, "(integer) 1", "TOUCH", "k")
	if idle := clDo(t, c, "OBJECT", "IDLETIME", "k").Int; idle > 1 {
		t.Errorf("OBJECT IDLETIME after a no-touch TOUCH: %d", idle)
	}
}
