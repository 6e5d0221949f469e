package tests

import (
	"net"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// TestReplicaWaitsForMasterDEL checks that a Strata replica does not expire keys itself: keys
// whose time to live passed read as absent but stay stored until the master's DEL comes (the
// master's active expiry is off, so only its own reads and a later cycle delete them).
func TestReplicaWaitsForMasterDEL(t *testing.T) {
	master := testutil.StartRedis(t, "--enable-debug-command", "yes")
	mc := dial(t, master)
	mustDo(t, mc, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	host, port, _ := net.SplitHostPort(master.Addr)
	replica := testutil.StartStrata(t, func(c *config.Config) {
		c.ReplicaOf = host + " " + port
		c.ActiveExpireHz = 100
	})
	rc := dial(t, replica)
	mustDo(t, mc, "OK", "SET", "k", "v", "PX", "100")
	mustDo(t, mc, "(integer) 1", "RPUSH", "l", "a")
	mustDo(t, mc, "(integer) 1", "PEXPIRE", "l", "100")
	waitInSync(t, mc, rc)
	time.Sleep(400 * time.Millisecond) // several cycles of the replica's active expiry, were it on

	mustDo(t, rc, "(nil)", "GET", "k")
	mustDo(t, rc, "(integer) 0", "EXISTS", "l")
	if keys, _ := replica.Server.Store().KeyCounts(0); keys != 2 {
		t.Fatalf("the replica holds %d keys before its master's DELs, want the 2 expired ones", keys)
	}

	mustDo(t, mc, "(nil)", "GET", "k") // the master deletes k on access and propagates DEL k
	waitInSync(t, mc, rc)
	if keys, _ := replica.Server.Store().KeyCounts(0); keys != 1 {
		t.Fatalf("the replica holds %d keys after DEL k, want 1", keys)
	}
	mustDo(t, mc, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "1") // the master's cycle deletes l
	deadline := time.Now().Add(5 * time.Second)
	for {
		keys, _ := replica.Server.Store().KeyCounts(0)
		if keys == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica still holds %d keys after its master's active expiry", keys)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
