package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// The master side of replication: redis-server and Strata replicas of a Strata master.

// waitFor polls cond every 50ms for up to 20 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// replicaOf points the replica at the master with REPLICAOF.
func replicaOf(t *testing.T, rc *testutil.Conn, master *testutil.Instance) {
	t.Helper()
	host, port, _ := net.SplitHostPort(master.Addr)
	mustDo(t, rc, "OK", "REPLICAOF", host, port)
}

// partialAfter waits until the master's sync_partial_ok passes before.
func partialAfter(t *testing.T, mc *testutil.Conn, before string) {
	t.Helper()
	waitFor(t, "a partial resynchronisation (sync_partial_ok "+before+")", func() bool {
		return infoReplication(t, mc, "stats")["sync_partial_ok"] != before
	})
}

// checkMasterSide runs the scenario both replica kinds share: a full synchronisation of a
// written keyspace, the stream, a cut link continued partially, a replica that falls behind the
// backlog resynchronised fully, and the master's view of its replica (INFO, ROLE, CLIENT LIST).
func checkMasterSide(t *testing.T, master, replica *testutil.Instance, cut func()) {
	mc, rc := dial(t, master), dial(t, replica)
	writeMix(t, mc, 0)
	replicaOf(t, rc, master)
	waitInSync(t, mc, rc)
	compareKeyspaces(t, master, replica)

	writeMix(t, mc, 1)
	waitInSync(t, mc, rc)
	compareKeyspaces(t, master, replica)

	var info map[string]string
	waitFor(t, "the replica's ACK of the master's offset", func() bool {
		info = infoReplication(t, mc, "replication")
		return strings.Contains(info["slave0"], ",offset="+info["master_repl_offset"]+",")
	})
	if info["connected_slaves"] != "1" || !strings.Contains(info["slave0"], "state=online,offset="+info["master_repl_offset"]+",") ||
		info["repl_backlog_active"] != "1" {
		t.Fatalf("master INFO replication %v", info)
	}
	r, _ := mc.Do("ROLE")
	if len(r.Elems) != 3 || r.Elems[0].Str != "master" || len(r.Elems[2].Elems) != 1 ||
		r.Elems[2].Elems[0].Elems[0].Str != "127.0.0.1" || r.Elems[2].Elems[0].Elems[2].Str != info["master_repl_offset"] {
		t.Fatalf("ROLE %v", r)
	}
	r, _ = mc.Do("CLIENT", "LIST", "TYPE", "replica")
	if strings.Count(r.Str, "\n") != 1 || !strings.Contains(r.Str, " flags=S ") {
		t.Fatalf("CLIENT LIST TYPE replica: %q", r.Str)
	}
	if st := infoReplication(t, mc, "stats"); st["sync_full"] != "1" || st["sync_partial_ok"] != "0" {
		t.Fatalf("stats after the first synchronisation: %v", st)
	}

	// A cut link continues partially, with what was written meanwhile. (Relative expiries
	// are left out: propagated as they are, they would start late on the replica.)
	before := infoReplication(t, mc, "stats")["sync_partial_ok"]
	cut()
	for i := 0; i < 200; i++ {
		mustDo(t, mc, "OK", "SET", "cut:"+strconv.Itoa(i), strconv.Itoa(i))
		mustDo(t, mc, "(integer) "+strconv.Itoa(i+1), "RPUSH", "cut:list", strconv.Itoa(i))
	}
	partialAfter(t, mc, before)
	writeMix(t, mc, 2)
	waitInSync(t, mc, rc)
	compareKeyspaces(t, master, replica)

	// Cut again while the writes outgrow a small backlog: the replica needs a full
	// resynchronisation, and loses nothing.
	mustDo(t, mc, "OK", "CONFIG", "SET", "repl-backlog-size", "16384")
	infoReplication(t, mc, "replication") // the ring is resized when INFO reads it
	st := infoReplication(t, mc, "stats")
	okBefore, errBefore := st["sync_partial_ok"], st["sync_partial_err"]
	// A full client table keeps the replica out until the backlog is outgrown.
	mustDo(t, mc, "OK", "CONFIG", "SET", "maxclients", "1")
	mustDo(t, mc, "(integer) 1", "CLIENT", "KILL", "TYPE", "replica")
	mustDo(t, mc, "OK", "SET", "large", strings.Repeat("x", 100000))
	writeMix(t, mc, 3)
	mustDo(t, mc, "OK", "CONFIG", "SET", "maxclients", "10000")
	waitFor(t, "a failed partial resynchronisation", func() bool {
		return infoReplication(t, mc, "stats")["sync_partial_err"] != errBefore
	})
	waitInSync(t, mc, rc)
	compareKeyspaces(t, master, replica)
	if st := infoReplication(t, mc, "stats"); st["sync_full"] != "2" || st["sync_partial_ok"] != okBefore {
		t.Fatalf("after the backlog was outgrown: sync_full %s, sync_partial_ok %s, sync_partial_err %s",
			st["sync_full"], st["sync_partial_ok"], st["sync_partial_err"])
	}
}

// TestRedisReplicaOfStrata: a redis-server replica of a Strata master, the snapshot sent
// diskless and with its length.
func TestRedisReplicaOfStrata(t *testing.T) {
	for _, diskless := range []string{"yes", "no"} {
		t.Run("diskless-"+diskless, func(t *testing.T) {
			t.Parallel()
			replica := testutil.StartRedis(t)
			master := testutil.StartStrata(t)
			mustDo(t, dial(t, master), "OK", "CONFIG", "SET", "repl-diskless-sync", diskless)
			rc := dial(t, replica)
			checkMasterSide(t, master, replica, func() {
				mustDo(t, rc, "(integer) 1", "CLIENT", "KILL", "TYPE", "master")
			})
		})
	}
}

// TestStrataReplicaOfStrata: a Strata replica of a Strata master, both framings.
func TestStrataReplicaOfStrata(t *testing.T) {
	for _, diskless := range []string{"yes", "no"} {
		t.Run("diskless-"+diskless, func(t *testing.T) {
			t.Parallel()
			master := testutil.StartStrata(t)
			replica := testutil.StartStrata(t)
			mustDo(t, dial(t, master), "OK", "CONFIG", "SET", "repl-diskless-sync", diskless)
			mc := dial(t, master)
			checkMasterSide(t, master, replica, func() {
				mustDo(t, mc, "(integer) 1", "CLIENT", "KILL", "TYPE", "slave")
			})
		})
	}
}

// TestReplicaPromotionContinues: when a replica is promoted with REPLICAOF NO ONE, its former
// sibling follows it with a partial resynchronisation (the promoted replica keeps the old
// history as its second ID), and the writes of the new master reach it.
func TestReplicaPromotionContinues(t *testing.T) {
	t.Parallel()
	master := testutil.StartStrata(t)
	a, b := testutil.StartStrata(t), testutil.StartStrata(t)
	mc, ac, bc := dial(t, master), dial(t, a), dial(t, b)
	// Nothing may reach one replica and not the other between the last check of their offsets
	// and the promotion (a sibling ahead of the promoted replica must resynchronise in full, in
	// Redis too): no PING from the master during the test, and the keys writeMix gives a 1 ms
	// expiry are expired (and their DELs sent) before the replicas attach.
	mustDo(t, mc, "OK", "CONFIG", "SET", "repl-ping-replica-period", "3600")
	writeMix(t, mc, 0)
	time.Sleep(5 * time.Millisecond)
	for db := 0; db < replicaDBs; db++ {
		mustDo(t, mc, "OK", "SELECT", strconv.Itoa(db))
		mustDo(t, mc, "(nil)", "GET", "r0:gone")
	}
	mustDo(t, mc, "OK", "SELECT", "0")
	replicaOf(t, ac, master)
	replicaOf(t, bc, master)
	waitInSync(t, mc, ac)
	waitInSync(t, mc, bc)
	oldID := infoReplication(t, mc, "replication")["master_replid"]

	mustDo(t, ac, "OK", "REPLICAOF", "NO", "ONE")
	info := infoReplication(t, ac, "replication")
	if info["role"] != "master" || info["master_replid2"] != oldID || info["master_replid"] == oldID {
		t.Fatalf("promoted replica: %v", info)
	}
	mustDo(t, ac, "OK", "SET", "after-promotion", "1")
	replicaOf(t, bc, a)
	waitInSync(t, ac, bc)
	if st := infoReplication(t, ac, "stats"); st["sync_partial_ok"] != "1" || st["sync_full"] != "0" {
		t.Fatalf("the sibling did not continue partially: %v", st)
	}
	writeMix(t, ac, 1)
	waitInSync(t, ac, bc)
	compareKeyspaces(t, a, b)
}

// TestWaitAndMinReplicas: WAIT counts the replicas that acknowledged the writes before it, and
// min-replicas-to-write refuses writes without enough of them; /metrics shows the replica.
func TestWaitAndMinReplicas(t *testing.T) {
	t.Parallel()
	master := testutil.StartStrata(t, func(c *config.Config) { c.MetricsAddr = "127.0.0.1:0" })
	host, port, _ := net.SplitHostPort(master.Addr)
	replica := testutil.StartStrata(t, func(c *config.Config) { c.ReplicaOf = host + " " + port })
	mc, rc := dial(t, master), dial(t, replica)
	waitFor(t, "the replica online", func() bool {
		return strings.Contains(infoReplication(t, mc, "replication")["slave0"], "state=online")
	})

	mustDo(t, mc, "OK", "SET", "k", "v")
	mustDo(t, mc, "(integer) 1", "WAIT", "1", "5000")
	mustDo(t, rc, `"v"`, "GET", "k")

	resp, err := http.Get("http://" + master.Server.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, series := range []string{"strata_connected_replicas 1", "strata_sync_full_total 1",
		"strata_sync_partial_ok_total 0"} {
		if !strings.Contains(string(body), "\n"+series+"\n") {
			t.Errorf("/metrics lacks %q", series)
		}
	}
	if !regexp.MustCompile(`\nstrata_replica_lag_bytes\{replica="0"\} \d+\n(.|\n)*\nstrata_replica_lag_seconds\{replica="0"\} [01]\n`).Match(body) {
		t.Error("/metrics lacks the replica's lag")
	}
	start := time.Now()
	mustDo(t, mc, "(integer) 1", "WAIT", "2", "300")
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("WAIT 2 300 returned after %v", d)
	}
	mustDo(t, mc, "(error) ERR timeout is negative", "WAIT", "1", "-1")
	mustDo(t, rc, "(error) ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.", "WAIT", "1", "0")

	mustDo(t, mc, "OK", "CONFIG", "SET", "min-replicas-to-write", "2")
	mustDo(t, mc, "(error) NOREPLICAS Not enough good replicas to write.", "SET", "k", "w")
	mustDo(t, mc, `"v"`, "GET", "k")
	mustDo(t, mc, "OK", "CONFIG", "SET", "min-replicas-to-write", "1")
	if g := infoReplication(t, mc, "replication")["min_slaves_good_slaves"]; g != "1" {
		t.Fatalf("min_slaves_good_slaves %q", g)
	}
	mustDo(t, mc, "OK", "SET", "k", "w")
	mustDo(t, mc, "(integer) 1", "WAIT", "1", "5000")
	mustDo(t, rc, `"w"`, "GET", "k")

	// The replica leaves: no good replica is left.
	mustDo(t, rc, "OK", "REPLICAOF", "NO", "ONE")
	waitFor(t, "the replica gone", func() bool {
		return infoReplication(t, mc, "replication")["connected_slaves"] == "0"
	})
	mustDo(t, mc, "(error) NOREPLICAS Not enough good replicas to write.", "SET", "k", "x")
	r, _ := mc.Do("INFO", "replication")
	if !strings.Contains(r.Str, "connected_slaves:0") {
		t.Fatal(strconv.Quote(r.Str))
	}
}

// TestChainedReplicas: a replica of a Strata replica gets the master's stream as its replica
// received it, at the master's offsets, continues partially after a cut link, and follows a
// promotion of the replica in the middle without a full resynchronisation.
func TestChainedReplicas(t *testing.T) {
	t.Parallel()
	master, mid, leaf := testutil.StartStrata(t), testutil.StartStrata(t), testutil.StartStrata(t)
	mc, ic, lc := dial(t, master), dial(t, mid), dial(t, leaf)
	writeMix(t, mc, 0)
	replicaOf(t, ic, master)
	waitInSync(t, mc, ic)
	replicaOf(t, lc, mid)
	writeMix(t, mc, 1)
	waitInSync(t, mc, ic)
	waitInSync(t, mc, lc) // the same offsets two hops down
	compareKeyspaces(t, master, leaf)
	if r, _ := ic.Do("ROLE"); len(r.Elems) != 5 || r.Elems[0].Str != "slave" {
		t.Fatalf("ROLE of the middle replica %v", r)
	}
	if info := infoReplication(t, ic, "replication"); info["connected_slaves"] != "1" {
		t.Fatalf("middle replica's INFO replication %v", info)
	}

	before := infoReplication(t, ic, "stats")["sync_partial_ok"]
	mustDo(t, ic, "(integer) 1", "CLIENT", "KILL", "TYPE", "replica")
	for i := 0; i < 100; i++ {
		mustDo(t, mc, "OK", "SET", "cut:"+strconv.Itoa(i), strconv.Itoa(i))
	}
	partialAfter(t, ic, before)
	writeMix(t, mc, 2)
	waitInSync(t, mc, lc)
	compareKeyspaces(t, master, leaf)

	// The middle replica becomes a master: the leaf goes on with it.
	waitInSync(t, mc, ic)
	mustDo(t, ic, "OK", "REPLICAOF", "NO", "ONE")
	mustDo(t, ic, "OK", "SET", "after-promotion", "1")
	waitInSync(t, ic, lc)
	mustDo(t, lc, `"1"`, "GET", "after-promotion")
	if st := infoReplication(t, ic, "stats"); st["sync_full"] != "1" {
		t.Fatalf("the leaf resynchronised fully: %v", st)
	}
}

// TestFailoverCommand: FAILOVER hands the master role to the replica once it has caught up;
// the old master follows it with a partial resynchronisation.
func TestFailoverCommand(t *testing.T) {
	t.Parallel()
	master, replica := testutil.StartStrata(t), testutil.StartStrata(t)
	mc, rc := dial(t, master), dial(t, replica)
	mustDo(t, mc, "(error) ERR FAILOVER requires connected replicas.", "FAILOVER")
	mustDo(t, mc, "(error) ERR No failover in progress.", "FAILOVER", "ABORT")
	mustDo(t, mc, "(error) ERR syntax error", "FAILOVER", "ABORT", "TIMEOUT", "10")
	mustDo(t, mc, "(error) ERR FAILOVER timeout must be greater than 0", "FAILOVER", "TIMEOUT", "0")
	writeMix(t, mc, 0)
	replicaOf(t, rc, master)
	waitInSync(t, mc, rc)
	waitFor(t, "the replica online", func() bool {
		return strings.Contains(infoReplication(t, mc, "replication")["slave0"], "state=online")
	})
	mustDo(t, rc, "(error) ERR FAILOVER is not valid when server is a replica.", "FAILOVER")
	mustDo(t, mc, "(error) ERR FAILOVER target HOST and PORT is not a replica.", "FAILOVER", "TO", "127.0.0.1", "1")
	mustDo(t, mc, "(error) ERR FAILOVER with force option requires both a timeout and target HOST and IP.", "FAILOVER", "FORCE")

	mustDo(t, mc, "OK", "FAILOVER", "TIMEOUT", "5000")
	waitFor(t, "the roles swapped", func() bool {
		m, r := infoReplication(t, mc, "replication"), infoReplication(t, rc, "replication")
		return m["role"] == "slave" && m["master_link_status"] == "up" && r["role"] == "master" &&
			m["master_failover_state"] == "no-failover"
	})
	if st := infoReplication(t, rc, "stats"); st["sync_partial_ok"] != "1" || st["sync_full"] != "0" {
		t.Fatalf("the old master did not continue partially: %v", st)
	}
	mustDo(t, rc, "OK", "SET", "after-failover", "1")
	waitInSync(t, rc, mc)
	mustDo(t, mc, `"1"`, "GET", "after-failover")
	mustDo(t, mc, "(error) READONLY You can't write against a read only replica.", "SET", "k", "v")
	compareKeyspaces(t, replica, master)
}

// TestLegacySync: a replica that sends SYNC, the protocol before PSYNC, gets the snapshot with
// its length (no +FULLRESYNC line, no EOF mark: it announced no capability) and then the write
// stream in RESP. Run against redis-server too.
func TestLegacySync(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			mc := dial(t, inst)
			mustDo(t, mc, "OK", "CONFIG", "SET", "repl-diskless-sync-delay", "0")
			mustDo(t, mc, "OK", "SET", "before", "sync")
			nc, err := net.DialTimeout("tcp", inst.Addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(20 * time.Second))
			br := bufio.NewReader(nc)
			if _, err := nc.Write(testutil.EncodeCommand("SYNC")); err != nil {
				t.Fatal(err)
			}
			line := ""
			for line == "" { // newlines keep the link alive while the snapshot is made
				if line, err = br.ReadString('\n'); err != nil {
					t.Fatal(err)
				}
				line = strings.TrimRight(line, "\r\n")
			}
			size, err := strconv.Atoi(strings.TrimPrefix(line, "$"))
			if !strings.HasPrefix(line, "$") || err != nil || size < 9 {
				t.Fatalf("SYNC answered %q", line)
			}
			payload := make([]byte, size)
			if _, err := io.ReadFull(br, payload); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(payload, []byte("REDIS")) || !bytes.Contains(payload, []byte("before")) {
				t.Fatalf("snapshot %q", payload)
			}

			mustDo(t, mc, "OK", "SET", "after", "sync")
			for {
				r, err := testutil.ReadReply(br)
				if err != nil {
					t.Fatalf("the stream after SYNC: %v", err)
				}
				if len(r.Elems) == 0 {
					t.Fatalf("the stream after SYNC: %v", r)
				}
				if cmd := strings.ToUpper(r.Elems[0].Str); cmd == "SET" {
					if len(r.Elems) != 3 || r.Elems[1].Str != "after" || r.Elems[2].Str != "sync" {
						t.Fatalf("stream: %v", r)
					}
					break
				} else if cmd != "SELECT" && cmd != "PING" {
					t.Fatalf("stream: unexpected %v", r)
				}
			}
		})
	}
}

// TestChainedFullSyncUnderWrites: replicas (Strata and redis-server) that synchronise in full
// from a Strata replica while its master writes (in several databases, with no SELECT between
// most writes) end with the master's keyspace: the snapshot of the replica in the middle holds
// exactly the commands it has relayed before it, and tells the stream's database
// (repl-stream-db), from which the stream goes on.
func TestChainedFullSyncUnderWrites(t *testing.T) {
	t.Parallel()
	master, mid := testutil.StartStrata(t), testutil.StartStrata(t)
	mc, ic := dial(t, master), dial(t, mid)
	replicaOf(t, ic, master)
	waitInSync(t, mc, ic)

	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		w, err := testutil.Dial(master.Addr)
		if err != nil {
			done <- err
			return
		}
		defer w.Close()
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			db := strconv.Itoa(i / 200 % replicaDBs)
			for _, args := range [][]string{{"SELECT", db}, {"INCR", "ctr"}, {"SET", "k:" + strconv.Itoa(i), strconv.Itoa(i)},
				{"RPUSH", "l", strconv.Itoa(i)}} {
				if r, err := w.Do(args...); err != nil || r.IsError() {
					done <- fmt.Errorf("%v: %v %v", args, r, err)
					return
				}
			}
		}
	}()
	var leaves []*testutil.Instance
	for i := range 4 {
		time.Sleep(150 * time.Millisecond)
		leaf := testutil.StartStrata(t)
		if i == 1 {
			leaf = testutil.StartRedis(t) // reads repl-stream-db as well
		}
		replicaOf(t, dial(t, leaf), mid)
		leaves = append(leaves, leaf)
	}
	time.Sleep(150 * time.Millisecond)
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitInSync(t, mc, ic)
	for _, leaf := range leaves {
		waitInSync(t, mc, dial(t, leaf))
		compareKeyspaces(t, master, leaf)
	}
}
