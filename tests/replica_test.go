package tests

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/replication"
)

// replicaDBs are the databases the replication tests write and compare.
const replicaDBs = 4

// infoReplication returns a server's INFO replication fields.
func infoReplication(t *testing.T, c *testutil.Conn, section string) map[string]string {
	t.Helper()
	r, err := c.Do("INFO", section)
	if err != nil {
		t.Fatal(err)
	}
	_, vals := infoFields(r.Str)
	return vals
}

// waitInSync waits until the replica has applied everything the master has written: its
// slave_repl_offset equals the master's master_repl_offset, with the link up.
func waitInSync(t *testing.T, master, replica *testutil.Conn) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var m, r map[string]string
	for time.Now().Before(deadline) {
		m = infoReplication(t, master, "replication")
		r = infoReplication(t, replica, "replication")
		if r["master_link_status"] == "up" && m["master_repl_offset"] == r["slave_repl_offset"] {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("replica not in sync: master offset %s, replica %v", m["master_repl_offset"], r)
}

// writeMix writes keys of every type, with and without expiries, in replicaDBs databases,
// through MULTI, a Lua script and FLUSHDB; round makes each call's keys and values its own.
func writeMix(t *testing.T, c *testutil.Conn, round int) {
	t.Helper()
	do := func(args ...string) {
		t.Helper()
		if r, err := c.Do(args...); err != nil || r.IsError() {
			t.Fatalf("%s: %v %v", strings.Join(args, " "), r, err)
		}
	}
	p := fmt.Sprintf("r%d:", round)
	for db := 0; db < replicaDBs; db++ {
		do("SELECT", strconv.Itoa(db))
		do("SET", p+"str", fmt.Sprintf("value %d %d", round, db))
		do("SET", p+"int", "12345")
		do("SET", p+"big", strings.Repeat(fmt.Sprintf("%d-", db), 40000)) // over 64 KiB: the value log
		do("SET", p+"ttl", "soon", "EX", "1000")
		do("SET", p+"gone", "x", "PX", "1")
		do("RPUSH", p+"list", "a", "b", "c", "1", "2")
		big := []string{"RPUSH", p + "biglist"}
		ints := []string{"SADD", p + "bigintset"}
		zs := []string{"ZADD", p + "bigzset"}
		hs := []string{"HSET", p + "bighash"}
		for i := 0; i < 600; i++ {
			big = append(big, fmt.Sprintf("element-%d", i))
			ints = append(ints, strconv.Itoa(i*7))
			zs = append(zs, strconv.FormatFloat(float64(i)/3, 'g', -1, 64), fmt.Sprintf("m%d", i))
			hs = append(hs, fmt.Sprintf("f%d", i), fmt.Sprintf("v%d", i))
		}
		do(big...)
		do(ints...)
		do(zs...)
		do(hs...)
		do("SADD", p+"intset", "1", "2", "3")
		do("SADD", p+"set", "x", "y", "z")
		do("ZADD", p+"zset", "1.5", "a", "-2", "b", "inf", "c")
		do("HSET", p+"hash", "f1", "v1", "f2", "v2")
		do("PEXPIRE", p+"hash", "900000")
		do("LPOP", p+"list")
		do("INCRBY", p+"int", "10")
		do("XADD", p+"stream", "1-1", "f", "v1")
		do("XADD", p+"stream", "*", "f", "v2", "g", "w")
		do("XGROUP", "CREATE", p+"stream", "grp", "0")
		do("XREADGROUP", "GROUP", "grp", "alice", "COUNT", "1", "STREAMS", p+"stream", ">")
		do("MULTI")
		do("SET", p+"multi", "m")
		do("LPUSH", p+"multilist", "q")
		do("INCR", p+"multicount")
		r, err := c.Do("EXEC")
		if err != nil || len(r.Elems) != 3 {
			t.Fatalf("EXEC: %v %v", r, err)
		}
		do("EVAL", "redis.call('set', KEYS[1], ARGV[1]); redis.call('hincrby', KEYS[2], 'n', 5); return 1",
			"2", p+"lua", p+"luahash", "from lua")
	}
	do("SELECT", "3")
	do("FLUSHDB")
	do("SET", p+"after-flush", "1")
	do("SELECT", "0")
}

// keyDump is a key's type, value and time to live, for comparing two servers.
type keyDump struct {
	typ string
	val string
	ttl time.Duration // the expiry as PEXPIRETIME gives it; negative for none
}

func dumpKeyspace(t *testing.T, inst *testutil.Instance, db int) map[string]keyDump {
	t.Helper()
	c := testutil.Client(t, inst, func(o *redis.Options) { o.DB = db })
	ctx := context.Background()
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]keyDump{}
	for _, k := range keys {
		var d keyDump
		d.typ = c.Type(ctx, k).Val()
		switch d.typ {
		case "string":
			d.val = c.Get(ctx, k).Val()
		case "list":
			d.val = fmt.Sprint(c.LRange(ctx, k, 0, -1).Val())
		case "set":
			m := c.SMembers(ctx, k).Val()
			slices.Sort(m)
			d.val = fmt.Sprint(m)
		case "zset":
			d.val = fmt.Sprint(c.ZRangeWithScores(ctx, k, 0, -1).Val())
		case "hash":
			d.val = fmt.Sprint(c.HGetAll(ctx, k).Val()) // fmt prints maps sorted
		case "stream":
			// The entries, and each group's delivery point and pending entries.
			d.val = fmt.Sprint(c.XRange(ctx, k, "-", "+").Val())
			for _, g := range c.XInfoGroups(ctx, k).Val() {
				// Not entries-read: Redis 7.0's stream propagates XREADGROUP as XCLAIMs, which
				// leave a replica's count behind its master's (Redis 7.2 adds XGROUP SETID).
				d.val += fmt.Sprint(" ", g.Name, g.LastDeliveredID, g.Pending)
				pel := &redis.XPendingExtArgs{Stream: k, Group: g.Name, Start: "-", End: "+", Count: 100}
				for _, p := range c.XPendingExt(ctx, pel).Val() { // idle times differ: left out
					d.val += fmt.Sprint(" ", p.ID, p.Consumer, p.RetryCount)
				}
			}
		}
		at, _ := c.Do(ctx, "PEXPIRETIME", k).Int64() // absolute: the dumps of two servers are not simultaneous
		d.ttl = time.Duration(at) * time.Millisecond
		out[k] = d
	}
	return out
}

// compareKeyspaces checks that the replica holds the master's keys, each with the same type
// and value and an expiry within a second of the master's.
func compareKeyspaces(t *testing.T, master, replica *testutil.Instance) {
	t.Helper()
	for db := 0; db < replicaDBs; db++ {
		want, got := dumpKeyspace(t, master, db), dumpKeyspace(t, replica, db)
		if len(want) == 0 && db != 3 {
			t.Fatalf("db %d: the master has no keys", db)
		}
		for k, w := range want {
			g, ok := got[k]
			switch {
			case !ok:
				t.Errorf("db %d: key %q missing on the replica", db, k)
			case g.typ != w.typ || g.val != w.val:
				t.Errorf("db %d: key %q: replica %s %.200s, master %s %.200s", db, k, g.typ, g.val, w.typ, w.val)
			case (w.ttl < 0) != (g.ttl < 0) || (w.ttl-g.ttl).Abs() > time.Second:
				t.Errorf("db %d: key %q: replica TTL %v, master %v", db, k, g.ttl, w.ttl)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("db %d: key %q only on the replica", db, k)
			}
		}
	}
}

// TestReplicaOfRedis: a Strata replica of a redis-server master, with the snapshot sent
// diskless (EOF-marked) and from disk (with its length). It loads the full synchronisation,
// follows the stream (every type, expiries, MULTI, Lua, several databases, FLUSHDB) to the
// master's offset with an equal keyspace, continues partially after its link is cut, refuses
// writes with READONLY, and keeps its data when REPLICAOF NO ONE makes it a master.
func TestReplicaOfRedis(t *testing.T) {
	for _, diskless := range []string{"yes", "no"} {
		t.Run("diskless-"+diskless, func(t *testing.T) {
			t.Parallel()
			master := testutil.StartRedis(t)
			mc := dial(t, master)
			mustDo(t, mc, "OK", "CONFIG", "SET", "repl-diskless-sync", diskless, "repl-diskless-sync-delay", "0")
			writeMix(t, mc, 0)

			host, port, _ := net.SplitHostPort(master.Addr)
			replica := testutil.StartStrata(t, func(c *config.Config) { c.ReplicaOf = host + " " + port })
			rc := dial(t, replica)
			waitInSync(t, mc, rc)
			compareKeyspaces(t, master, replica)

			info := infoReplication(t, rc, "replication")
			if info["role"] != "slave" || info["master_host"] != host || info["master_port"] != port ||
				info["master_replid"] != infoReplication(t, mc, "replication")["master_replid"] {
				t.Fatalf("replica INFO replication %v", info)
			}
			r, _ := rc.Do("ROLE")
			if len(r.Elems) != 5 || r.Elems[0].Str != "slave" || r.Elems[3].Str != "connected" ||
				strconv.FormatInt(r.Elems[4].Int, 10) != info["slave_repl_offset"] {
				t.Fatalf("ROLE %v", r)
			}

			// Writes while replicating.
			writeMix(t, mc, 1)
			waitInSync(t, mc, rc)
			compareKeyspaces(t, master, replica)

			// A cut link continues with a partial resynchronisation.
			before := infoReplication(t, mc, "stats")["sync_partial_ok"]
			mustDo(t, mc, "(integer) 1", "CLIENT", "KILL", "TYPE", "replica")
			writeMix(t, mc, 2)
			deadline := time.Now().Add(20 * time.Second)
			for infoReplication(t, mc, "stats")["sync_partial_ok"] == before {
				if time.Now().After(deadline) {
					t.Fatalf("no partial resynchronisation: sync_partial_ok %s", before)
				}
				time.Sleep(50 * time.Millisecond)
			}
			waitInSync(t, mc, rc)
			compareKeyspaces(t, master, replica)

			// The same when the replica drops its master client, which CLIENT LIST shows.
			r, _ = rc.Do("CLIENT", "LIST", "TYPE", "master")
			if !strings.Contains(r.Str, "addr="+master.Addr+" ") || !strings.Contains(r.Str, " flags=M ") || strings.Count(r.Str, "\n") != 1 {
				t.Fatalf("CLIENT LIST TYPE master: %q", r.Str)
			}
			before = infoReplication(t, mc, "stats")["sync_partial_ok"]
			mustDo(t, rc, "(integer) 1", "CLIENT", "KILL", "TYPE", "master")
			writeMix(t, mc, 3)
			deadline = time.Now().Add(20 * time.Second)
			for infoReplication(t, mc, "stats")["sync_partial_ok"] == before {
				if time.Now().After(deadline) {
					t.Fatalf("no partial resynchronisation after CLIENT KILL TYPE master")
				}
				time.Sleep(50 * time.Millisecond)
			}
			waitInSync(t, mc, rc)
			compareKeyspaces(t, master, replica)

			// The point the keyspace holds commits with each write the replica applies.
			mustDo(t, mc, "OK", "SET", "last", "write")
			waitInSync(t, mc, rc)
			info = infoReplication(t, rc, "replication")
			rec, err := replica.Server.Store().SystemRecord(replication.PointRecord)
			if pt, ok := replication.ParsePoint(rec); err != nil || !ok || pt.ID != info["master_replid"] ||
				strconv.FormatInt(pt.Offset, 10) != info["slave_repl_offset"] || pt.DB != 0 {
				t.Fatalf("point record %q (%v), INFO %v", rec, err, info)
			}

			// A restarted replica continues partially, in the database the stream had selected.
			mustDo(t, mc, "OK", "SELECT", "2")
			mustDo(t, mc, "OK", "SET", "in-db-2", "before restart")
			before = infoReplication(t, mc, "stats")["sync_partial_ok"]
			waitInSync(t, mc, rc)
			replica.Restart(t)
			rc = dial(t, replica)
			mustDo(t, mc, "OK", "SET", "in-db-2-after", "after restart")
			mustDo(t, mc, "OK", "SELECT", "0")
			waitInSync(t, mc, rc)
			if after := infoReplication(t, mc, "stats")["sync_partial_ok"]; after == before {
				t.Fatalf("restart: no partial resynchronisation (sync_partial_ok %s)", after)
			}
			mustDo(t, rc, "OK", "SELECT", "2")
			mustDo(t, rc, `"after restart"`, "GET", "in-db-2-after")
			mustDo(t, rc, "OK", "SELECT", "0")
			compareKeyspaces(t, master, replica)

			mustDo(t, rc, "(error) READONLY You can't write against a read only replica.", "SET", "k", "v")
			mustDo(t, rc, "OK", "MULTI")
			mustDo(t, rc, "(error) READONLY You can't write against a read only replica.", "INCR", "k")
			mustDo(t, rc, "(error) EXECABORT Transaction discarded because of previous errors.", "EXEC")
			mustDo(t, rc, `"value 2 0"`, "GET", "r2:str")

			if full := infoReplication(t, mc, "stats")["sync_full"]; full != "1" {
				t.Fatalf("sync_full %s: a resynchronisation was not partial", full)
			}

			mustDo(t, rc, "OK", "REPLICAOF", "NO", "ONE")
			mustDo(t, rc, "OK", "SET", "k", "v")
			mustDo(t, rc, `"value 2 0"`, "GET", "r2:str")
			if info := infoReplication(t, rc, "replication"); info["role"] != "master" {
				t.Fatalf("after REPLICAOF NO ONE: %v", info)
			}
			r, _ = rc.Do("ROLE")
			if len(r.Elems) != 3 || r.Elems[0].Str != "master" {
				t.Fatalf("ROLE %v", r)
			}
		})
	}
}

// masterDownReply is Redis's refusal of a command not flagged stale while the link is down.
const masterDownReply = "(error) MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."

// TestReplicaOfReplies checks REPLICAOF's replies and the MASTERDOWN gate of a replica whose
// master cannot be reached and that does not serve stale data.
func TestReplicaOfReplies(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close() // nothing listens there: the link stays down
	inst := testutil.StartStrata(t, func(c *config.Config) {
		if err := c.Set("replica-serve-stale-data", []string{"no"}); err != nil {
			t.Fatal(err)
		}
	})
	c := dial(t, inst)
	mustDo(t, c, "(error) ERR Invalid master port", "REPLICAOF", "127.0.0.1", "70000")
	mustDo(t, c, "(error) ERR Invalid master port", "SLAVEOF", "127.0.0.1", "x")
	mustDo(t, c, "OK", "REPLICAOF", "127.0.0.1", port)
	mustDo(t, c, "OK Already connected to specified master", "REPLICAOF", "127.0.0.1", port)
	mustDo(t, c, masterDownReply, "GET", "k")
	mustDo(t, c, masterDownReply, "PING")
	if r, _ := c.Do("CONFIG", "GET", "replicaof"); len(r.Elems) != 2 || r.Elems[1].Str != "127.0.0.1 "+port {
		t.Fatalf("CONFIG GET replicaof %v", r)
	}
	info := infoReplication(t, c, "replication")
	if info["role"] != "slave" || info["master_link_status"] != "down" || info["master_last_io_seconds_ago"] != "-1" {
		t.Fatalf("INFO replication %v", info)
	}
	r, _ := c.Do("ROLE")
	if len(r.Elems) != 5 || r.Elems[4].Int != -1 || r.Elems[3].Str == "connected" {
		t.Fatalf("ROLE %v", r)
	}
	mustDo(t, c, "OK", "REPLICAOF", "NO", "ONE")
	mustDo(t, c, "(nil)", "GET", "k")
	mustDo(t, c, "OK", "SET", "k", "v")
}

// TestReplicaInfoFields: a Strata replica's INFO replication has the fields of a redis-server
// replica of the same master, in the same order, and the same ROLE shape; the master lists it
// at the address and port it announces.
func TestReplicaInfoFields(t *testing.T) {
	t.Parallel()
	master := testutil.StartRedis(t)
	mc := dial(t, master)
	mustDo(t, mc, "OK", "CONFIG", "SET", "repl-diskless-sync-delay", "0")
	mustDo(t, mc, "OK", "SET", "k", "v")
	host, port, _ := net.SplitHostPort(master.Addr)
	redisReplica := testutil.StartRedis(t)
	strataReplica := testutil.StartStrata(t, func(c *config.Config) {
		c.Set("replica-announce-ip", []string{"127.0.0.5"})
		c.Set("replica-announce-port", []string{"4242"})
	})
	names := map[string][]string{}
	for _, inst := range []*testutil.Instance{redisReplica, strataReplica} {
		c := dial(t, inst)
		mustDo(t, c, "OK", "REPLICAOF", host, port)
		mustDo(t, c, "OK Already connected to specified master", "REPLICAOF", host, port)
		waitInSync(t, mc, c)
		r, err := c.Do("INFO", "replication")
		if err != nil {
			t.Fatal(err)
		}
		n, vals := infoFields(r.Str)
		names[inst.Name] = n
		for _, f := range []string{"role", "master_host", "master_port", "master_link_status",
			"master_sync_in_progress", "slave_priority", "slave_read_only", "replica_announced", "connected_slaves"} {
			if v := vals[f]; v != map[string]string{"role": "slave", "master_host": host, "master_port": port,
				"master_link_status": "up", "master_sync_in_progress": "0", "slave_priority": "100",
				"slave_read_only": "1", "replica_announced": "1", "connected_slaves": "0"}[f] {
				t.Errorf("%s: %s:%s", inst.Name, f, v)
			}
		}
		role, _ := c.Do("ROLE")
		if len(role.Elems) != 5 || role.Elems[0].Str != "slave" || role.Elems[1].Str != host ||
			strconv.FormatInt(role.Elems[2].Int, 10) != port || role.Elems[3].Str != "connected" ||
			strconv.FormatInt(role.Elems[4].Int, 10) != vals["slave_repl_offset"] {
			t.Errorf("%s: ROLE %v", inst.Name, role)
		}
	}
	if a, b := strings.Join(names["strata"], " "), strings.Join(names["redis"], " "); a != b {
		t.Errorf("INFO replication fields\nstrata: %s\nredis:  %s", a, b)
	}
	// The master puts a replica online when its first ACK arrives.
	deadline := time.Now().Add(10 * time.Second)
	for m := infoReplication(t, mc, "replication"); !strings.Contains(m["slave0"]+m["slave1"], "ip=127.0.0.5,port=4242,state=online"); m = infoReplication(t, mc, "replication") {
		if time.Now().After(deadline) {
			t.Fatalf("master's replicas: %v", m)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r, _ := mc.Do("ROLE"); len(r.Elems) != 3 || r.Elems[0].Str != "master" || len(r.Elems[2].Elems) != 2 {
		t.Errorf("master ROLE %v", r)
	}
	// With nothing written, only the replica's REPLCONF ACK once a second keeps the lag the
	// master shows (the seconds since its last ACK) at 0 or 1.
	for i := 0; i < 4; i++ {
		time.Sleep(time.Second)
		m := infoReplication(t, mc, "replication")
		line := m["slave0"]
		if !strings.Contains(line, "port=4242") {
			line = m["slave1"]
		}
		if !strings.Contains(line, "lag=0") && !strings.Contains(line, "lag=1") {
			t.Fatalf("an idle Strata replica's lag on the master: %q", line)
		}
	}
}

// TestReplicaStaleDuringSync: while a slow snapshot is being loaded, a replica serves the
// data it had before, and reports the transfer in INFO replication; the snapshot replaces it
// at once when complete.
func TestReplicaStaleDuringSync(t *testing.T) {
	t.Parallel()
	master := testutil.StartRedis(t)
	mc := dial(t, master)
	mustDo(t, mc, "OK", "CONFIG", "SET", "repl-diskless-sync-delay", "0", "rdb-key-save-delay", "20000")
	for i := 0; i < 100; i++ {
		mustDo(t, mc, "OK", "SET", fmt.Sprintf("k%d", i), "v")
	}
	replica := testutil.StartStrata(t)
	rc := dial(t, replica)
	mustDo(t, rc, "OK", "SET", "old", "before")
	mustDo(t, rc, "OK", "SELECT", "5")
	mustDo(t, rc, "OK", "SET", "old5", "before")
	mustDo(t, rc, "OK", "SELECT", "0")
	replicaOf(t, rc, master)
	waitSyncInProgress(t, rc, 0) // replica_faults_test.go
	info := infoReplication(t, rc, "replication")
	// -1 until the snapshot's framing arrives, then 0 for a diskless one, as Redis says.
	if tb := info["master_sync_total_bytes"]; tb != "0" && tb != "-1" || info["master_link_status"] != "down" {
		t.Fatalf("INFO replication during the load: %v", info)
	}
	mustDo(t, rc, `"before"`, "GET", "old")
	mustDo(t, rc, "(nil)", "GET", "k1")
	// Not serving stale data, it refuses what is not flagged stale (PING too) and answers INFO.
	mustDo(t, rc, "OK", "CONFIG", "SET", "replica-serve-stale-data", "no")
	mustDo(t, rc, masterDownReply, "GET", "old")
	mustDo(t, rc, masterDownReply, "PING")
	mustDo(t, rc, masterDownReply, "DBSIZE")
	if info := infoReplication(t, rc, "replication"); info["master_sync_in_progress"] != "1" {
		t.Fatalf("INFO replication while refusing stale reads: %v", info)
	}
	mustDo(t, rc, "OK", "CONFIG", "SET", "replica-serve-stale-data", "yes")
	mustDo(t, rc, `"before"`, "GET", "old")
	mustDo(t, mc, "OK", "CONFIG", "SET", "rdb-key-save-delay", "0")
	waitInSync(t, mc, rc)
	mustDo(t, rc, `"v"`, "GET", "k99")
	mustDo(t, rc, "(nil)", "GET", "old")
	mustDo(t, rc, "(integer) 100", "DBSIZE")
	mustDo(t, rc, "OK", "SELECT", "5")
	mustDo(t, rc, "(integer) 0", "DBSIZE")
}

// TestReplicaMasterAuth: a replica of a master that requires a password authenticates with
// masterauth, as the default user or, with masteruser, as an ACL user allowed only the
// commands of the link; with the wrong password its link stays down.
func TestReplicaMasterAuth(t *testing.T) {
	t.Parallel()
	master := testutil.StartRedis(t, "--repl-diskless-sync-delay", "0")
	mc := dial(t, master) // authenticated before the password is set: it stays so
	mustDo(t, mc, "OK", "CONFIG", "SET", "requirepass", "secret")
	mustDo(t, mc, "OK", "ACL", "SETUSER", "repl", "on", ">replpw", "+psync", "+replconf", "+ping")
	mustDo(t, mc, "OK", "SET", "k", "v")
	host, port, _ := net.SplitHostPort(master.Addr)
	for _, tc := range []struct{ name, user, pass string }{
		{"masterauth", "", "secret"}, {"masteruser", "repl", "replpw"}, {"wrong", "", "nope"},
	} {
		replica := testutil.StartStrata(t, func(c *config.Config) {
			c.Set("masteruser", []string{tc.user})
			c.Set("masterauth", []string{tc.pass})
			c.ReplicaOf = host + " " + port
		})
		rc := dial(t, replica)
		if tc.name == "wrong" {
			// Refused at AUTH, the replica retries a second later: two attempts, no link.
			time.Sleep(1500 * time.Millisecond)
			if info := infoReplication(t, rc, "replication"); info["master_link_status"] != "down" {
				t.Fatalf("%s: %v", tc.name, info)
			}
			continue
		}
		waitInSync(t, mc, rc)
		mustDo(t, rc, `"v"`, "GET", "k")
	}
	if n := infoReplication(t, mc, "replication")["connected_slaves"]; n != "2" {
		t.Fatalf("connected_slaves %s", n)
	}
}

// TestReplicaWritable: with replica-read-only no a replica takes its clients' writes beside
// the master's stream, and says so in INFO; set back to yes it refuses them again.
func TestReplicaWritable(t *testing.T) {
	t.Parallel()
	master := testutil.StartRedis(t, "--repl-diskless-sync-delay", "0")
	mc := dial(t, master)
	mustDo(t, mc, "OK", "SET", "k", "v")
	replica := testutil.StartStrata(t)
	rc := dial(t, replica)
	replicaOf(t, rc, master)
	waitInSync(t, mc, rc)
	mustDo(t, rc, "OK", "CONFIG", "SET", "replica-read-only", "no")
	mustDo(t, rc, "OK", "SET", "local", "mine")
	mustDo(t, rc, "(integer) 2", "DBSIZE")
	if v := infoReplication(t, rc, "replication")["slave_read_only"]; v != "0" {
		t.Fatalf("slave_read_only:%s", v)
	}
	mustDo(t, mc, "OK", "SET", "k", "v2")
	waitInSync(t, mc, rc)
	mustDo(t, rc, `"v2"`, "GET", "k")
	mustDo(t, rc, `"mine"`, "GET", "local")
	mustDo(t, rc, "OK", "CONFIG", "SET", "replica-read-only", "yes")
	mustDo(t, rc, "(error) READONLY You can't write against a read only replica.", "SET", "local", "again")
	if v := infoReplication(t, rc, "replication")["slave_read_only"]; v != "1" {
		t.Fatalf("slave_read_only:%s", v)
	}
}

// TestReplicaLoadsFunctions: a full synchronisation replaces the replica's function libraries
// with those of the master's snapshot, from a redis-server master and from a Strata one, as a
// Redis replica's does; FUNCTION LOAD after it reaches the replica through the stream.
func TestReplicaLoadsFunctions(t *testing.T) {
	t.Parallel()
	const lib = "#!lua name=mylib\nredis.register_function{function_name='hello', callback=function(keys, args) return 'hi ' .. args[1] end, flags={'no-writes'}}"
	const lib2 = "#!lua name=lib2\nredis.register_function{function_name='two', callback=function() return 2 end, flags={'no-writes'}}"
	const old = "#!lua name=old\nredis.register_function('oldf', function() return 0 end)"
	for _, kind := range []string{"redis-server", "strata"} {
		t.Run(kind, func(t *testing.T) {
			var master *testutil.Instance
			if kind == "redis-server" {
				master = testutil.StartRedis(t, "--repl-diskless-sync-delay", "0")
			} else {
				master = testutil.StartStrata(t)
			}
			mc := dial(t, master)
			mustDo(t, mc, `"mylib"`, "FUNCTION", "LOAD", lib)
			mustDo(t, mc, "OK", "SET", "k", "v")
			replica := testutil.StartStrata(t)
			rc := dial(t, replica)
			mustDo(t, rc, `"old"`, "FUNCTION", "LOAD", old)
			replicaOf(t, rc, master)
			waitInSync(t, mc, rc)
			mustDo(t, rc, `"hi there"`, "FCALL_RO", "hello", "0", "there")
			mustDo(t, rc, "(error) ERR Function not found", "FCALL", "oldf", "0")
			mustDo(t, mc, `"lib2"`, "FUNCTION", "LOAD", lib2)
			waitInSync(t, mc, rc)
			mustDo(t, rc, "(integer) 2", "FCALL_RO", "two", "0")
			r, err := rc.Do("FUNCTION", "LIST")
			if err != nil || len(r.Elems) != 2 {
				t.Fatalf("FUNCTION LIST on the replica: %v %v", r, err)
			}
		})
	}
}
