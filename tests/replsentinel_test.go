package tests

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/internal/testutil"
)

// Redis Sentinel watching Strata nodes: three redis-sentinel processes, a Strata master and two
// Strata replicas, each a process of its own so that the master can be killed outright.

// freeLoopbackPort returns a port free on 127.0.0.1 now.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// node is a process under test: a Strata server or a sentinel.
type node struct {
	cmd  *exec.Cmd
	port int
	addr string
	name string
	bin  string
	args []string
	conf string // the configuration file of a server node
}

// startProcess runs bin with args, logs its output to the test, waits until port answers PING,
// and kills the process when the test ends.
func startProcess(t *testing.T, name string, port int, bin string, args ...string) *node {
	t.Helper()
	n := &node{port: port, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), name: name, bin: bin, args: args}
	n.start(t)
	return n
}

// start runs the node's process and waits until it answers PING; after kill, it starts the
// node again on the same port, configuration file and data.
func (n *node) start(t *testing.T) {
	t.Helper()
	name := n.name
	cmd := exec.Command(n.bin, n.args...)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line := sc.Text(); strings.Contains(line, "+") || strings.Contains(line, "level=WARN") ||
				strings.Contains(line, "level=ERROR") || strings.Contains(line, "replica link closed") {
				t.Logf("%s: %s", name, line)
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	n.cmd = cmd
	waitFor(t, name+" answering", func() bool {
		c, err := testutil.Dial(n.addr)
		if err != nil {
			return false
		}
		defer c.Close()
		r, err := c.Do("PING")
		return err == nil && r.Str == "PONG"
	})
}

// kill ends the node's process with SIGKILL, as a crash would, and waits until it has exited.
func (n *node) kill(t *testing.T) {
	t.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	n.cmd.Wait()
}

// startStrataNode runs the Strata binary with a configuration file of its own (which CONFIG
// REWRITE, sent by Sentinel after REPLICAOF, rewrites).
func startStrataNode(t *testing.T, bin, name string, extra ...string) *node {
	t.Helper()
	dir := t.TempDir()
	port := freeLoopbackPort(t)
	conf := filepath.Join(dir, "strata.conf")
	text := fmt.Sprintf("port %d\ndir %s\nmetrics-addr \"\"\nloglevel notice\n%s", port, filepath.Join(dir, "data"), strings.Join(extra, "\n"))
	if err := os.WriteFile(conf, []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := startProcess(t, name, port, bin, conf)
	n.conf = conf
	return n
}

// startSentinel runs redis-sentinel monitoring master as "mymaster" with a quorum of 2.
func startSentinel(t *testing.T, path string, i int, master *node) *node {
	t.Helper()
	dir := t.TempDir()
	port := freeLoopbackPort(t)
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf(`port %d
bind 127.0.0.1
dir %s
daemonize no
sentinel monitor mymaster 127.0.0.1 %d 2
sentinel down-after-milliseconds mymaster 1000
sentinel failover-timeout mymaster 10000
sentinel parallel-syncs mymaster 1
`, port, dir, master.port)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return startProcess(t, fmt.Sprintf("sentinel%d", i), port, path, conf)
}

// sentinelMaster returns the fields of SENTINEL MASTER mymaster.
func sentinelMaster(t *testing.T, s *node) map[string]string {
	t.Helper()
	c, err := testutil.Dial(s.addr)
	if err != nil {
		return nil
	}
	defer c.Close()
	r, err := c.Do("SENTINEL", "MASTER", "mymaster")
	if err != nil || r.IsError() {
		return nil
	}
	m := map[string]string{}
	for i := 0; i+1 < len(r.Elems); i += 2 {
		m[r.Elems[i].Str] = r.Elems[i+1].Str
	}
	return m
}

// TestSentinelFailover: Sentinel discovers the replicas and the other sentinels through the
// master, and when the master is killed it promotes a replica, points the other at it, and a
// client through Sentinel goes on writing; no write that WAIT acknowledged is lost. The same run
// with redis-server nodes gives the failover time to compare with.
func TestSentinelFailover(t *testing.T) {
	sentinelPath, err := exec.LookPath("redis-sentinel")
	if err != nil {
		if os.Getenv(testutil.EnvRequireExternal) == "1" {
			t.Fatalf("redis-sentinel not on PATH and %s=1", testutil.EnvRequireExternal)
		}
		t.Skip("redis-sentinel not on PATH")
	}
	t.Run("strata", func(t *testing.T) {
		bin := buildStrata(t)
		sentinelFailover(t, sentinelPath, true, func(name string, extra ...string) *node {
			return startStrataNode(t, bin, name, extra...)
		})
	})
	t.Run("redis", func(t *testing.T) {
		redisPath := testutil.RedisServerPath()
		if redisPath == "" {
			if os.Getenv(testutil.EnvRequireExternal) == "1" {
				t.Fatalf("redis-server not on PATH and %s=1", testutil.EnvRequireExternal)
			}
			t.Skip("redis-server not on PATH")
		}
		sentinelFailover(t, sentinelPath, false, func(name string, extra ...string) *node {
			return startRedisNode(t, redisPath, name, extra...)
		})
	})
}

// startRedisNode runs redis-server with a configuration file of its own, without persistence.
func startRedisNode(t *testing.T, bin, name string, extra ...string) *node {
	t.Helper()
	dir := t.TempDir()
	port := freeLoopbackPort(t)
	conf := filepath.Join(dir, "redis.conf")
	text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nsave \"\"\nappendonly no\nrepl-diskless-sync-delay 0\nloglevel notice\n%s", port, dir, strings.Join(extra, "\n"))
	if err := os.WriteFile(conf, []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := startProcess(t, name, port, bin, conf)
	n.conf = conf
	return n
}

// replicaOfInFile returns the words after replicaof in a configuration file, "" without one.
func replicaOfInFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "replicaof" {
			return strings.Join(f[1:], " ")
		}
	}
	return ""
}

// sentinelReplicaPriorities returns the slave-priority of each replica SENTINEL REPLICAS
// lists, by port.
func sentinelReplicaPriorities(t *testing.T, s *node) map[string]string {
	t.Helper()
	c := testutil.Connect(t, s.addr)
	defer c.Close()
	r, err := c.Do("SENTINEL", "REPLICAS", "mymaster")
	if err != nil || r.IsError() {
		t.Fatalf("SENTINEL REPLICAS: %v %v", r, err)
	}
	out := map[string]string{}
	for _, rep := range r.Elems {
		m := map[string]string{}
		for i := 0; i+1 < len(rep.Elems); i += 2 {
			m[rep.Elems[i].Str] = rep.Elems[i+1].Str
		}
		out[m["port"]] = m["slave-priority"]
	}
	return out
}

// sentinelFailover runs the failover scenario on nodes that start starts. With strict, a write
// acknowledged by WAIT and missing on the new master fails the test; without it (the
// redis-server run, kept for its failover time), the missing writes are only counted.
func sentinelFailover(t *testing.T, sentinelPath string, strict bool, start func(name string, extra ...string) *node) {
	master := start("master")
	replicaOfMaster := fmt.Sprintf("replicaof 127.0.0.1 %d", master.port)
	replicas := []*node{
		start("replica1", replicaOfMaster, "replica-priority 100"),
		start("replica2", replicaOfMaster, "replica-priority 90"),
	}
	var sentinels []*node
	var addrs []string
	for i := 0; i < 3; i++ {
		s := startSentinel(t, sentinelPath, i, master)
		sentinels = append(sentinels, s)
		addrs = append(addrs, s.addr)
	}
	for i, s := range sentinels {
		waitFor(t, fmt.Sprintf("sentinel%d to see 2 replicas and 2 sentinels", i), func() bool {
			m := sentinelMaster(t, s)
			return m["num-slaves"] == "2" && m["num-other-sentinels"] == "2" && m["flags"] == "master"
		})
	}
	// Sentinel reads each replica's priority from its INFO; the lower one, replica2's, is the
	// replica it must promote (both are in sync and linked).
	want := map[string]string{strconv.Itoa(replicas[0].port): "100", strconv.Itoa(replicas[1].port): "90"}
	var prios map[string]string
	waitFor(t, "SENTINEL REPLICAS showing the replicas' priorities", func() bool {
		prios = sentinelReplicaPriorities(t, sentinels[0])
		return fmt.Sprint(prios) == fmt.Sprint(want)
	})

	// Both replicas past their first full synchronisation before the writer starts (the
	// master lists a replica as soon as it connects).
	mc := testutil.Connect(t, master.addr)
	waitFor(t, "both replicas online", func() bool {
		info := infoReplication(t, mc, "replication")
		return strings.Contains(info["slave0"], "state=online") && strings.Contains(info["slave1"], "state=online")
	})
	mc.Close()

	// The writer: each write then WAIT 1 1000; a write counts as acknowledged when WAIT says a
	// replica has it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fc := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "mymaster", SentinelAddrs: addrs,
		DialTimeout: 500 * time.Millisecond, ReadTimeout: 2 * time.Second, WriteTimeout: time.Second, MaxRetries: -1})
	defer fc.Close()
	var mu sync.Mutex
	var acked []string
	var errs int
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			key := "w:" + strconv.Itoa(i)
			if err := fc.Set(ctx, key, key, 0).Err(); err != nil {
				mu.Lock()
				errs++
				mu.Unlock()
				time.Sleep(50 * time.Millisecond)
				continue
			}
			n, err := fc.Do(ctx, "WAIT", "1", "1000").Int()
			mu.Lock()
			if err == nil && n >= 1 {
				acked = append(acked, key)
			}
			mu.Unlock()
		}
	}()
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	waitFor(t, "acknowledged writes before the failover", func() bool { return count() >= 50 })

	// Kill the master outright.
	master.kill(t)
	killed := time.Now()
	before := count()
	var promoted *node
	deadline := time.Now().Add(60 * time.Second)
	for promoted == nil {
		if time.Now().After(deadline) {
			t.Fatalf("no replica promoted: %v", sentinelMaster(t, sentinels[0]))
		}
		time.Sleep(50 * time.Millisecond)
		for _, s := range sentinels { // the first sentinel to name it: the leader announces last
			m := sentinelMaster(t, s)
			for _, r := range replicas {
				if m["port"] == strconv.Itoa(r.port) && m["flags"] == "master" {
					promoted = r
				}
			}
		}
	}
	t.Logf("failover: %v from SIGKILL to a sentinel naming the new master", time.Since(killed))
	if promoted != replicas[1] {
		t.Errorf("Sentinel promoted the replica of priority %s, not the one of priority 90", prios[strconv.Itoa(promoted.port)])
	}
	var other *node
	for _, r := range replicas {
		if r != promoted {
			other = r
		}
	}
	// Sentinel closes a node's normal clients when it reconfigures it (CLIENT KILL TYPE normal
	// after REPLICAOF), so the checks from here on dial afresh and retry a closed connection.
	waitFor(t, "the promoted node's role master", func() bool {
		info, ok := infoFresh(promoted.addr)
		return ok && info["role"] == "master"
	})
	waitFor(t, "the other replica following the new master", func() bool {
		info, ok := infoFresh(other.addr)
		return ok && info["master_port"] == strconv.Itoa(promoted.port) && info["master_link_status"] == "up"
	})
	// Sentinel sends CONFIG REWRITE after each REPLICAOF: the files name the new roles.
	waitFor(t, "the other replica's file naming the new master", func() bool {
		return replicaOfInFile(t, other.conf) == "127.0.0.1 "+strconv.Itoa(promoted.port)
	})
	waitFor(t, "the promoted replica's file naming no master", func() bool {
		return replicaOfInFile(t, promoted.conf) == ""
	})
	waitFor(t, "the writer resuming", func() bool { return count() >= before+50 })
	t.Logf("writer resumed %v after SIGKILL", time.Since(killed))
	cancel()
	<-done

	mu.Lock()
	defer mu.Unlock()
	missing := 0
	pc := testutil.Connect(t, promoted.addr)
	for _, k := range acked {
		r, err := pc.Do("GET", k)
		if err != nil { // closed by a sentinel's reconfiguration: once more on a new connection
			pc = testutil.Connect(t, promoted.addr)
			r, err = pc.Do("GET", k)
		}
		if err != nil || r.Str != k {
			missing++
			if strict && missing <= 5 {
				t.Errorf("acknowledged write %s missing on the new master: %v %v", k, r, err)
			}
		}
	}
	if missing > 0 && !strict {
		t.Logf("%d of %d acknowledged writes missing on the new master", missing, len(acked))
	} else if missing > 0 {
		t.Fatalf("%d of %d acknowledged writes missing", missing, len(acked))
	}
	waitFor(t, "the other replica in sync with the new master", func() bool {
		m, ok1 := infoFresh(promoted.addr)
		r, ok2 := infoFresh(other.addr)
		return ok1 && ok2 && r["master_link_status"] == "up" && m["master_repl_offset"] == r["slave_repl_offset"]
	})
	t.Logf("%d acknowledged writes, %d missing on the new master; %d write errors during the failover", len(acked), missing, errs)
}

// infoFresh reads INFO replication of the server at addr on a connection of its own; ok is
// false when the connection fails or is closed.
func infoFresh(addr string) (map[string]string, bool) {
	c, err := testutil.Dial(addr)
	if err != nil {
		return nil, false
	}
	defer c.Close()
	r, err := c.Do("INFO", "replication")
	if err != nil || r.IsError() {
		return nil, false
	}
	_, vals := infoFields(r.Str)
	return vals, true
}
