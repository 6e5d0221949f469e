package tests

import (
	"math/rand"
	"net"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// TestReplicationRandom runs TestRandomDiff's random command mix (every data type, expiries,
// streams) on a master and compares the master's and the replica's keyspaces key by key once
// their offsets match, in databases 0 and 1: a Strata replica of a redis-server master, a
// redis-server replica of a Strata master and a Strata replica of a Strata master. STRATA_RANDOMDIFF_SEED sets the seed, STRATA_RANDOMDIFF_N the number of
// commands.
func TestReplicationRandom(t *testing.T) {
	n, seed := randomMixSize(t, 3000)
	for _, tc := range []struct {
		name  string
		start func(t *testing.T) (master, replica *testutil.Instance)
	}{
		{"strata-replica-of-redis", func(t *testing.T) (*testutil.Instance, *testutil.Instance) {
			master := testutil.StartRedis(t)
			host, port, _ := net.SplitHostPort(master.Addr)
			return master, testutil.StartStrata(t, func(c *config.Config) { c.ReplicaOf = host + " " + port })
		}},
		{"redis-replica-of-strata", func(t *testing.T) (*testutil.Instance, *testutil.Instance) {
			master := testutil.StartStrata(t)
			host, port, _ := net.SplitHostPort(master.Addr)
			return master, testutil.StartRedis(t, "--replicaof", host, port)
		}},
		{"strata-replica-of-strata", func(t *testing.T) (*testutil.Instance, *testutil.Instance) {
			master := testutil.StartStrata(t)
			host, port, _ := net.SplitHostPort(master.Addr)
			return master, testutil.StartStrata(t, func(c *config.Config) { c.ReplicaOf = host + " " + port })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			master, replica := tc.start(t)
			mc, rc := dial(t, master), dial(t, replica)
			waitInSync(t, mc, rc)
			g := &cmdGen{rng: rand.New(rand.NewSource(seed))}
			for i := 0; i < n; i++ {
				args, _ := g.next()
				if _, err := mc.Do(args...); err != nil {
					t.Fatalf("%s: %v", quoteArgs(args), err)
				}
			}
			waitInSync(t, mc, rc)
			// The mix's SWAPDB 0 1 moves keys to database 1: both are compared.
			for db := range 2 {
				want, got := dumpKeyspace(t, master, db), dumpKeyspace(t, replica, db)
				if db == 0 && len(want) == 0 {
					t.Fatal("the master has no keys")
				}
				for k, w := range want {
					switch g, ok := got[k]; {
					case !ok:
						t.Errorf("db %d: key %q missing on the replica (seed %d)", db, k, seed)
					case g.typ != w.typ || g.val != w.val:
						t.Errorf("db %d: key %q (seed %d): replica %s %.300s, master %s %.300s", db, k, seed, g.typ, g.val, w.typ, w.val)
					case (w.ttl < 0) != (g.ttl < 0) || (w.ttl-g.ttl).Abs() > time.Second:
						t.Errorf("db %d: key %q (seed %d): replica TTL %v, master %v", db, k, seed, g.ttl, w.ttl)
					}
				}
				for k := range got {
					if _, ok := want[k]; !ok {
						t.Errorf("db %d: key %q only on the replica (seed %d)", db, k, seed)
					}
				}
			}
		})
	}
}
