package tests

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// TestReplicaOfStrataLargeValues: a redis-server or Strata replica of a Strata master whose
// keyspace holds value-log strings of 8 to 20 MB, which the full synchronisation's RDB copies
// from the value log a piece at a time (raw above 1 MiB, LZF-compressed below), gets them all,
// byte for byte, with and without a diskless synchronisation.
func TestReplicaOfStrataLargeValues(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 19))
	random := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return string(b)
	}
	values := map[string]string{
		"random:8mb":       random(8 << 20),
		"repeated:13mb":    string(bytes.Repeat([]byte("strata large value "), (13<<20)/19)),
		"random:20mb":      random(20<<20 + 7),
		"under-a-mib":      string(bytes.Repeat([]byte("compressible "), 50000)),
		"inline":           "small",
		"random:9mb:again": random(9 << 20),
	}
	for _, c := range []struct{ kind, diskless string }{{"redis", "yes"}, {"redis", "no"}, {"strata", "yes"}, {"strata", "no"}} {
		t.Run(c.kind+"-diskless-"+c.diskless, func(t *testing.T) {
			var replica *testutil.Instance
			if c.kind == "redis" {
				replica = testutil.StartRedis(t)
			} else {
				replica = testutil.StartStrata(t)
			}
			master := testutil.StartStrata(t)
			mc, rc := dial(t, master), dial(t, replica)
			mustDo(t, mc, "OK", "CONFIG", "SET", "repl-diskless-sync", c.diskless)
			for k, v := range values {
				mustDo(t, mc, "OK", "SET", k, v)
			}
			mustDo(t, mc, "(integer) 1", "EXPIRE", "random:9mb:again", "3600")
			replicaOf(t, rc, master)
			waitInSync(t, mc, rc)
			if st := infoReplication(t, mc, "stats"); st["sync_full"] != "1" {
				t.Fatalf("master stats after the synchronisation: %v", st)
			}
			mustDo(t, rc, "(integer) "+strconv.Itoa(len(values)), "DBSIZE")
			for k, want := range values {
				got, err := rc.Do("GET", k)
				if err != nil {
					t.Fatalf("GET %s on the replica: %v", k, err)
				}
				if got.Str != want {
					t.Fatalf("%s on the replica: %d bytes (%.20q), want the %d bytes written", k, len(got.Str), got.Str, len(want))
				}
			}
			ttl, err := rc.Do("TTL", "random:9mb:again")
			if err != nil || ttl.Int <= 3500 || ttl.Int > 3600 {
				t.Fatalf("TTL on the replica: %v, %v", ttl, err)
			}
		})
	}
}
