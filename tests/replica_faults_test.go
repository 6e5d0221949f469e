package tests

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// Faults on the replica side of replication: a master that dies during a full
// synchronisation, a replica killed outright, writes that arrive while a snapshot loads.

// slowSnapshot fills a redis-server master with n keys of about 1 KB each and makes its
// snapshots take delay per key (rdb-key-save-delay), uncompressed so that the bytes a replica
// has read show how far the transfer got.
func slowSnapshot(t *testing.T, mc *testutil.Conn, n int, delay time.Duration, diskless string) {
	t.Helper()
	mustDo(t, mc, "OK", "CONFIG", "SET", "repl-diskless-sync", diskless, "repl-diskless-sync-delay", "0",
		"rdbcompression", "no", "rdb-key-save-delay", strconv.FormatInt(delay.Microseconds(), 10))
	for i := 0; i < n; i += 100 {
		mset := []string{"MSET"}
		for j := i; j < i+100 && j < n; j++ {
			mset = append(mset, fmt.Sprintf("k%d", j), fmt.Sprintf("%d:%s", j, strings.Repeat("v", 1000)))
		}
		mustDo(t, mc, "OK", mset...)
	}
}

// waitSyncInProgress waits until the replica reports a full synchronisation in progress and
// then until more reports it has read at least.
func waitSyncInProgress(t *testing.T, rc *testutil.Conn, more int64) {
	t.Helper()
	waitFor(t, "a full synchronisation in progress", func() bool {
		info := infoReplication(t, rc, "replication")
		read, _ := strconv.ParseInt(info["master_sync_read_bytes"], 10, 64)
		return info["master_sync_in_progress"] == "1" && read >= more
	})
}

// killRedis ends a redis-server with SIGKILL, as a crash would, and the snapshot child it had
// forked: left alone, a child saving to disk would go on writing into the test's directory.
func killRedis(t *testing.T, inst *testutil.Instance, c *testutil.Conn) {
	t.Helper()
	pid := infoReplication(t, c, "server")["process_id"]
	children, _ := os.ReadFile("/proc/" + pid + "/task/" + pid + "/children")
	inst.Close() // SIGKILL to the process the test started
	for _, f := range strings.Fields(string(children)) {
		if n, err := strconv.Atoi(f); err == nil {
			syscall.Kill(n, syscall.SIGKILL)
		}
	}
}

// TestReplicaMasterGoneMidSync: a master killed while a replica loads its snapshot (diskless:
// halfway through the payload, past a committed batch of the load; from disk: while it saves)
// leaves the replica answering with the data it had before, none of the snapshot's, its link
// down; pointed at another master it synchronises to an equal keyspace.
func TestReplicaMasterGoneMidSync(t *testing.T) {
	for _, diskless := range []string{"yes", "no"} {
		t.Run("diskless-"+diskless, func(t *testing.T) {
			t.Parallel()
			master := testutil.StartRedis(t)
			mc := dial(t, master)
			// 1,500 keys at 2 ms: a 3-second save, 1.5 MB of payload.
			slowSnapshot(t, mc, 1500, 2*time.Millisecond, diskless)
			replica := testutil.StartStrata(t)
			rc := dial(t, replica)
			mustDo(t, rc, "OK", "SET", "old", "before")
			replicaOf(t, rc, master)
			var halfway int64 // diskless: past the first 512 keys, which the load commits as a batch
			if diskless == "yes" {
				halfway = 600 * 1000
			}
			waitSyncInProgress(t, rc, halfway)
			killRedis(t, master, mc)

			deadline := time.Now().Add(5 * time.Second)
			for info := infoReplication(t, rc, "replication"); info["master_sync_in_progress"] != "0" ||
				info["master_link_status"] != "down"; info = infoReplication(t, rc, "replication") {
				if time.Now().After(deadline) {
					t.Fatalf("5 s after the master was killed: %v", info)
				}
				time.Sleep(20 * time.Millisecond)
			}
			mustDo(t, rc, `"before"`, "GET", "old")
			mustDo(t, rc, "(nil)", "GET", "k0")
			mustDo(t, rc, "(integer) 1", "DBSIZE")
			mustDo(t, rc, "PONG", "PING")

			fresh := testutil.StartRedis(t)
			fc := dial(t, fresh)
			mustDo(t, fc, "OK", "CONFIG", "SET", "repl-diskless-sync", diskless, "repl-diskless-sync-delay", "0")
			writeMix(t, fc, 0)
			replicaOf(t, rc, fresh)
			waitInSync(t, fc, rc)
			compareKeyspaces(t, fresh, replica)
		})
	}
}

// TestReplicaCrashResumesPartially: a replica process killed with SIGKILL and started again
// on its data continues with a partial resynchronisation from the point its keyspace holds,
// and catches up with what the master wrote meanwhile.
func TestReplicaCrashResumesPartially(t *testing.T) {
	t.Parallel()
	master := testutil.StartRedis(t)
	mc := dial(t, master)
	mustDo(t, mc, "OK", "CONFIG", "SET", "repl-diskless-sync-delay", "0", "repl-backlog-size", "64mb")
	writeMix(t, mc, 0)
	host, port, _ := net.SplitHostPort(master.Addr)
	n := startStrataNode(t, buildStrata(t), "replica", "replicaof "+host+" "+port)
	replica := &testutil.Instance{Name: "strata", Addr: n.addr}
	rc := testutil.Connect(t, n.addr)
	waitInSync(t, mc, rc)
	writeMix(t, mc, 1) // through the stream: the point the keyspace holds moves past the snapshot's
	waitInSync(t, mc, rc)
	compareKeyspaces(t, master, replica)

	before := infoReplication(t, mc, "stats")
	n.kill(t)
	rc.Close()
	writeMix(t, mc, 2)
	n.start(t)
	rc = testutil.Connect(t, n.addr)
	waitInSync(t, mc, rc)
	after := infoReplication(t, mc, "stats")
	okBefore, _ := strconv.Atoi(before["sync_partial_ok"])
	if after["sync_partial_ok"] != strconv.Itoa(okBefore+1) || after["sync_full"] != before["sync_full"] {
		t.Fatalf("after the crash: sync_partial_ok %s -> %s, sync_full %s -> %s", before["sync_partial_ok"],
			after["sync_partial_ok"], before["sync_full"], after["sync_full"])
	}
	compareKeyspaces(t, master, replica)
}

// TestReplicaWritesDuringSync: what the master is written while a replica loads a slow
// snapshot (INCR, SET and RPUSH in two databases) reaches the replica after it, in order.
func TestReplicaWritesDuringSync(t *testing.T) {
	t.Parallel()
	master := testutil.StartRedis(t)
	mc := dial(t, master)
	writeMix(t, mc, 0)
	// About 60 keys at 30 ms: a 2-second save.
	mustDo(t, mc, "OK", "CONFIG", "SET", "repl-diskless-sync-delay", "0", "rdb-key-save-delay", "30000")
	replica := testutil.StartStrata(t)
	rc := dial(t, replica)
	replicaOf(t, rc, master)
	// The writer starts once the master has forked its snapshot, which its keys would lengthen.
	waitSyncInProgress(t, rc, 0)

	var writes, loading atomic.Int64 // writes made; of them, before the load was seen to end
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		wc, err := testutil.Dial(master.Addr)
		if err != nil {
			t.Error(err)
			return
		}
		defer wc.Close()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			db, n := strconv.Itoa(i%2), strconv.Itoa(i)
			key := "w:" + strconv.Itoa(i%500) // overwritten in turn: a bounded keyspace to compare
			for _, cmd := range [][]string{{"SELECT", db}, {"INCR", "w:count"}, {"SET", key, n}, {"RPUSH", "w:list", n}} {
				if r, err := wc.Do(cmd...); err != nil || r.IsError() {
					t.Errorf("%v: %v %v", cmd, r, err)
					return
				}
			}
			writes.Add(1)
		}
	}()
	waitFor(t, "the end of the load", func() bool {
		return infoReplication(t, rc, "replication")["master_sync_in_progress"] == "0"
	})
	loading.Store(writes.Load())
	waitFor(t, "writes after the load", func() bool { return writes.Load() > loading.Load()+100 })
	close(stop)
	<-done
	if loading.Load() == 0 {
		t.Fatal("no write reached the master while the replica loaded")
	}
	waitInSync(t, mc, rc)
	compareKeyspaces(t, master, replica)
	t.Logf("%d writes, %d of them while the replica loaded", writes.Load(), loading.Load())
}
