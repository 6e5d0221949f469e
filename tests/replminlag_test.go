package tests

import (
	"strconv"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// TestMinReplicasMaxLag: with min-replicas-to-write 1 and min-replicas-max-lag 1, a replica
// that acknowledged once and then went silent keeps writes going for a second or more; SET then
// gets NOREPLICAS (within 4 s: Redis recounts its good replicas once a second) and INFO counts
// no good replica, until an ACK comes again. min-replicas-max-lag 0 lets writes through. The replica is a raw connection, so that its ACKs
// are the test's own.
func TestMinReplicasMaxLag(t *testing.T) {
	onStrataAndRedis(t, func(t *testing.T, inst *testutil.Instance) {
		t.Parallel()
		mc := dial(t, inst)
		mustDo(t, mc, "OK", "CONFIG", "SET", "repl-diskless-sync-delay", "0")
		nc, _, offset := testutil.RawReplica(t, inst.Addr)
		ack := func() {
			t.Helper()
			if _, err := nc.Write(testutil.EncodeCommand("REPLCONF", "ACK", strconv.FormatInt(offset, 10))); err != nil {
				t.Fatal(err)
			}
		}
		ack()
		acked := time.Now()
		goodReplicas := func() string { return infoReplication(t, mc, "replication")["min_slaves_good_slaves"] }
		mustDo(t, mc, "OK", "CONFIG", "SET", "min-replicas-to-write", "1")
		mustDo(t, mc, "OK", "CONFIG", "SET", "min-replicas-max-lag", "1")
		waitFor(t, "the replica online and good", func() bool { return goodReplicas() == "1" })
		last := ""
		for i := 0; ; i++ {
			v := strconv.Itoa(i)
			r, err := mc.Do("SET", "k", v)
			if err != nil {
				t.Fatal(err)
			}
			since := time.Since(acked)
			if r.String() == "OK" {
				last = v
			} else if r.String() != "(error) NOREPLICAS Not enough good replicas to write." {
				t.Fatalf("SET: %s", r)
			} else {
				if since < time.Second {
					t.Errorf("NOREPLICAS %v after the replica's ACK, within min-replicas-max-lag", since)
				}
				break
			}
			if since > 4*time.Second {
				t.Fatalf("SET still answers OK %v after the replica's last ACK", since)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if last == "" {
			t.Error("no SET answered OK right after the replica's ACK")
		}
		if g := goodReplicas(); g != "0" {
			t.Errorf("min_slaves_good_slaves:%s once SET gets NOREPLICAS", g)
		}
		mustDo(t, mc, strconv.Quote(last), "GET", "k")

		ack()
		waitFor(t, "the replica good again after its ACK", func() bool { return goodReplicas() == "1" })
		mustDo(t, mc, "OK", "SET", "k", "x")
		mustDo(t, mc, `"x"`, "GET", "k")

		// min-replicas-max-lag 0 turns the gate off.
		mustDo(t, mc, "OK", "CONFIG", "SET", "min-replicas-max-lag", "0")
		nc.Close()
		waitFor(t, "the replica gone", func() bool { return infoReplication(t, mc, "replication")["connected_slaves"] == "0" })
		mustDo(t, mc, "OK", "SET", "k", "y")
	})
}
