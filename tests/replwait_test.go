package tests

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// waitRounds times n pairs of SET and WAIT 1 1000 on the master, failing the test on a WAIT
// that a replica did not acknowledge.
func waitRounds(t *testing.T, mc *testutil.Conn, n int) time.Duration {
	t.Helper()
	start := time.Now()
	for i := 0; i < n; i++ {
		key := "w:" + strconv.Itoa(i)
		mustDo(t, mc, "OK", "SET", key, key)
		if r, err := mc.Do("WAIT", "1", "1000"); err != nil || r.Kind != testutil.KindInteger || r.Int < 1 {
			t.Fatalf("WAIT 1 1000 after SET %s: %v %v", key, r, err)
		}
	}
	return time.Since(start)
}

// inSyncPair points replica at master and waits until the master lists it online.
func inSyncPair(t *testing.T, master, replica *testutil.Instance) *testutil.Conn {
	t.Helper()
	mc, rc := dial(t, master), dial(t, replica)
	host, port, _ := net.SplitHostPort(master.Addr)
	mustDo(t, rc, "OK", "REPLICAOF", host, port)
	waitFor(t, "the replica online", func() bool {
		return strings.Contains(infoReplication(t, mc, "replication")["slave0"], "state=online")
	})
	waitInSync(t, mc, rc)
	return mc
}

// TestWaitRoundTrip: a WAIT after a write returns as soon as the in-sync replica acknowledges
// it; 100 SET and WAIT 1 1000 pairs on a Strata master with a Strata replica take no more than
// five times what they take on redis-server nodes in the same run, plus 200 ms.
func TestWaitRoundTrip(t *testing.T) {
	rm, rr := testutil.StartRedis(t), testutil.StartRedis(t)
	redisTime := waitRounds(t, inSyncPair(t, rm, rr), 100)
	sm, sr := testutil.StartStrata(t), testutil.StartStrata(t)
	strataTime := waitRounds(t, inSyncPair(t, sm, sr), 100)
	t.Logf("100 SET+WAIT pairs: strata %v, redis %v", strataTime, redisTime)
	if strataTime > 5*redisTime+200*time.Millisecond {
		t.Errorf("100 SET+WAIT pairs took %v on Strata, %v on redis-server", strataTime, redisTime)
	}
}
