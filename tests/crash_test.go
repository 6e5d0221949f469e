package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// The crash harness runs the built binary, writes to it from many clients while recording every
// acknowledged write, kills it with SIGKILL at a random moment, checks the storage invariants on
// a copy of the data directory with `strata check`, restarts the server on the directory and
// looks for every acknowledged write. With appendfsync always nothing acknowledged may be
// missing; with everysec only writes acknowledged within about a second before the kill may be.
//
// SIGKILL stops the process but not the kernel: what the server handed to write(2) survives in
// the page cache even unsynced. The harness therefore finds what the server itself buffered or
// reordered, and damage from being killed in the middle of a journal append, a compaction, a
// manifest update or the collector; it does not simulate a power cut.
//
// STRATA_CRASH_CYCLES sets the number of kill cycles per fsync policy (default 5);
// scripts/crash-soak.sh runs 100.

const (
	crashWriters       = 8
	crashEverysecGrace = 1500 * time.Millisecond // everysec: a second plus scheduling slack
)

// crashOp is one write the harness sent; acked is zero until the server acknowledged it.
type crashOp struct {
	kind  byte // 's' SET (big:* keys hold values for the value log), 'e' SET with a long TTL, 'l' RPUSH, 'h' HSET, 'm' SADD, 'z' ZADD
	key   string
	elem  string // list element, hash field, set or zset member
	cycle int
	acked time.Time
	seen  bool // present after some restart: it must stay present
}

// crashValue is the value written for key (or hash field): derived from it, so it need not be kept.
func crashValue(key string) string {
	h := fnv.New32a()
	h.Write([]byte(key))
	n := 20 + int(h.Sum32()%1500)
	if strings.HasPrefix(key, "big:") {
		n = 70000 + int(h.Sum32()%20000) // past large-value-threshold: kept in the value log
	}
	return strings.Repeat(key+"|", n/(len(key)+1)+1)[:n]
}

type crashLog struct {
	mu     sync.Mutex
	ops    []*crashOp
	killed map[int]time.Time // cycle -> when the server was killed
}

func (l *crashLog) add(op *crashOp) {
	l.mu.Lock()
	l.ops = append(l.ops, op)
	l.mu.Unlock()
}

// crashWriter sends random writes until the connection fails.
func crashWriter(addr string, w, cycle int, seed int64, log *crashLog, done *sync.WaitGroup) {
	defer done.Done()
	c, err := testutil.Dial(addr)
	if err != nil {
		return
	}
	defer c.Close()
	c.Timeout = 5 * time.Second
	rng := rand.New(rand.NewSource(seed))
	for i := 0; ; i++ {
		elem := fmt.Sprintf("%d:%d", cycle, i)
		var op *crashOp
		var args []string
		switch p := rng.Intn(100); {
		case p < 3:
			op = &crashOp{kind: 's', key: fmt.Sprintf("big:%d:%s", w, elem)}
			args = []string{"SET", op.key, crashValue(op.key)}
		case p < 35:
			op = &crashOp{kind: 's', key: fmt.Sprintf("s:%d:%s", w, elem)}
			args = []string{"SET", op.key, crashValue(op.key)}
		case p < 42:
			op = &crashOp{kind: 'e', key: fmt.Sprintf("e:%d:%s", w, elem)}
			args = []string{"SET", op.key, crashValue(op.key), "EX", "1000000"}
		case p < 57:
			op = &crashOp{kind: 'l', key: fmt.Sprintf("l:%d", w), elem: elem}
			args = []string{"RPUSH", op.key, elem}
		case p < 72:
			op = &crashOp{kind: 'h', key: fmt.Sprintf("h:%d", w), elem: elem}
			args = []string{"HSET", op.key, elem, crashValue(elem)}
		case p < 82:
			op = &crashOp{kind: 'm', key: fmt.Sprintf("m:%d", w), elem: elem}
			args = []string{"SADD", op.key, elem}
		case p < 92:
			op = &crashOp{kind: 'z', key: fmt.Sprintf("z:%d", w), elem: elem}
			args = []string{"ZADD", op.key, strconv.Itoa(cycle*1000000 + i), elem}
		default:
			// Churn for the collector: a collection built and dropped (not checked).
			tmp := fmt.Sprintf("tmp:%d", w)
			push := []string{"RPUSH", tmp}
			for j := 0; j < 64; j++ {
				push = append(push, strconv.Itoa(j))
			}
			if _, err := c.Do(push...); err != nil {
				return
			}
			if _, err := c.Do("DEL", tmp); err != nil {
				return
			}
			continue
		}
		op.cycle = cycle
		r, err := c.Do(args...)
		if err != nil {
			return
		}
		if r.IsError() {
			panic(fmt.Sprintf("crash writer: %v: %s", args, r))
		}
		op.acked = time.Now()
		log.add(op)
	}
}

// crashServer is one run of the binary.
type crashServer struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	warn []string // WARN and ERROR log lines
	done chan struct{}
}

func startCrashServer(t *testing.T, bin, dir string, args ...string) *crashServer {
	t.Helper()
	for attempt := 0; ; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		cs := &crashServer{addr: fmt.Sprintf("127.0.0.1:%d", port), done: make(chan struct{})}
		cs.cmd = exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--metrics-addr", "",
			"--dir", dir}, args...)...)
		stderr, _ := cs.cmd.StderrPipe()
		if err := cs.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			defer close(cs.done)
			sc := bufio.NewScanner(stderr)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if l := sc.Text(); strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
					cs.mu.Lock()
					cs.warn = append(cs.warn, l)
					cs.mu.Unlock()
				}
			}
		}()
		for i := 0; i < 200; i++ {
			if c, err := net.Dial("tcp", cs.addr); err == nil {
				c.Close()
				return cs
			}
			if cs.cmd.ProcessState != nil {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		cs.kill()
		if attempt == 2 {
			t.Fatalf("strata did not start on %s: %s", cs.addr, strings.Join(cs.warnings(), "\n"))
		}
	}
}

func (cs *crashServer) kill() {
	cs.cmd.Process.Signal(syscall.SIGKILL)
	cs.cmd.Wait()
	<-cs.done
}

func (cs *crashServer) warnings() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]string(nil), cs.warn...)
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			copyDir(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
			continue
		}
		src, err := os.Open(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		if err := dst.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func crashCycles(t *testing.T) int {
	if s := os.Getenv("STRATA_CRASH_CYCLES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("STRATA_CRASH_CYCLES=%q", s)
		}
		return n
	}
	return 5
}

// TestCrashRecovery is the crash harness, once per fsync policy.
func TestCrashRecovery(t *testing.T) {
	bin := buildStrata(t)
	cycles := crashCycles(t)
	seed := time.Now().UnixNano()
	if s := os.Getenv("STRATA_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (STRATA_CRASH_SEED), %d cycles per policy (STRATA_CRASH_CYCLES)", seed, cycles)
	for _, policy := range []string{"always", "everysec"} {
		t.Run(policy, func(t *testing.T) {
			runCrashCycles(t, bin, policy, cycles, seed)
		})
	}
}

func runCrashCycles(t *testing.T, bin, policy string, cycles int, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	dir := filepath.Join(t.TempDir(), "data")
	args := []string{"--appendfsync", policy, "--leveldb-write-buffer-size", "1mb", "--loglevel", "warning"}
	log := &crashLog{killed: map[int]time.Time{}}
	var totalAcked, totalMissing int
	var recoveryWarnings []string
	for cycle := 1; cycle <= cycles; cycle++ {
		srv := startCrashServer(t, bin, dir, args...)
		if cycle > 1 {
			// The previous cycle's kill: verify on the recovered server.
			missing := verifyCrash(t, srv.addr, log, policy)
			totalMissing += missing
		}
		var wg sync.WaitGroup
		for w := 0; w < crashWriters; w++ {
			wg.Add(1)
			go crashWriter(srv.addr, w, cycle, rng.Int63(), log, &wg)
		}
		loadFor := time.Duration(150+rng.Intn(700)) * time.Millisecond
		time.Sleep(loadFor)
		srv.kill()
		killed := time.Now() // the process is gone: every reply a client reads was sent before
		wg.Wait()
		log.mu.Lock()
		n := 0
		for _, op := range log.ops {
			if op.cycle == cycle {
				n++
			}
		}
		log.mu.Unlock()
		totalAcked += n
		log.killed[cycle] = killed
		for _, w := range srv.warnings() {
			if strings.Contains(w, "leveldb") {
				recoveryWarnings = append(recoveryWarnings, w)
			}
		}

		// The storage invariants, on a copy taken right after the kill (the server is
		// restarted on the original, so its own recovery is what the next cycle checks).
		copyTo := filepath.Join(t.TempDir(), fmt.Sprintf("check-%d", cycle))
		copyDir(t, dir, copyTo)
		out, err := exec.Command(bin, "check", "--dir", copyTo).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("strata check: OK")) {
			t.Fatalf("cycle %d: strata check after the kill: %v\n%s", cycle, err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "leveldb") {
				recoveryWarnings = append(recoveryWarnings, l)
			}
		}
		os.RemoveAll(copyTo)
		t.Logf("crash cycle %d (%s): %d writes acknowledged, killed after %v of load; strata check OK",
			cycle, policy, n, loadFor)
	}
	srv := startCrashServer(t, bin, dir, args...)
	totalMissing += verifyCrash(t, srv.addr, log, policy)
	srv.cmd.Process.Signal(syscall.SIGTERM)
	srv.cmd.Wait()
	<-srv.done
	for _, w := range append(recoveryWarnings, srv.warnings()...) {
		t.Logf("recovery log: %s", w)
	}
	t.Logf("crash summary (%s): %d cycles, %d writes acknowledged, %d missing after recovery (allowed by everysec), %d recovery warnings",
		policy, cycles, totalAcked, totalMissing, len(recoveryWarnings))
}

// verifyCrash reads back every acknowledged write on a restarted server and returns how many
// are missing; it fails the test for a missing write the policy does not allow to lose.
func verifyCrash(t *testing.T, addr string, log *crashLog, policy string) int {
	t.Helper()
	c, err := testutil.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	do := func(args ...string) testutil.Reply {
		r, err := c.Do(args...)
		if err != nil || r.IsError() {
			t.Fatalf("%v: %v %v", args, r, err)
		}
		return r
	}
	log.mu.Lock()
	defer log.mu.Unlock()

	// Collections, one read each.
	elems := map[string]map[string]string{} // key -> element -> value (hash) or score (zset)
	lists := map[string][]string{}
	for w := 0; w < crashWriters; w++ {
		for _, kind := range []string{"l", "h", "m", "z"} {
			key := fmt.Sprintf("%s:%d", kind, w)
			m := map[string]string{}
			var r testutil.Reply
			switch kind {
			case "l":
				r = do("LRANGE", key, "0", "-1")
				for _, e := range r.Elems {
					lists[key] = append(lists[key], e.Str)
					m[e.Str] = ""
				}
			case "h":
				r = do("HGETALL", key)
				for i := 0; i+1 < len(r.Elems); i += 2 {
					m[r.Elems[i].Str] = r.Elems[i+1].Str
				}
			case "m":
				for _, e := range do("SMEMBERS", key).Elems {
					m[e.Str] = ""
				}
			case "z":
				r = do("ZRANGE", key, "0", "-1", "WITHSCORES")
				for i := 0; i+1 < len(r.Elems); i += 2 {
					m[r.Elems[i].Str] = r.Elems[i+1].Str
				}
			}
			elems[key] = m
		}
	}
	// Lists: a writer pushes in order, so what is there is in order.
	for key, l := range lists {
		for i := 1; i < len(l); i++ {
			if !elemLess(l[i-1], l[i]) {
				t.Fatalf("%s out of order after recovery: %q before %q", key, l[i-1], l[i])
			}
		}
	}
	// Strings, in pipelined batches.
	var stringOps []*crashOp
	for _, op := range log.ops {
		if op.kind == 's' || op.kind == 'e' {
			stringOps = append(stringOps, op)
		}
	}
	strs := map[string]testutil.Reply{}
	for i := 0; i < len(stringOps); i += 500 {
		batch := stringOps[i:min(i+500, len(stringOps))]
		args := []string{"MGET"}
		for _, op := range batch {
			args = append(args, op.key)
		}
		r := do(args...)
		for j, op := range batch {
			strs[op.key] = r.Elems[j]
		}
	}
	missing := 0
	var lost []*crashOp
	kept := log.ops[:0]
	for _, op := range log.ops {
		present := false
		switch op.kind {
		case 's', 'e':
			r := strs[op.key]
			if r.Kind == testutil.KindBulk {
				if r.Str != crashValue(op.key) {
					t.Fatalf("%s holds a wrong value after recovery: %.40q", op.key, r.Str)
				}
				present = true
			}
		default:
			v, ok := elems[op.key][op.elem]
			present = ok
			if ok && op.kind == 'h' && v != crashValue(op.elem) {
				t.Fatalf("%s field %s holds a wrong value after recovery", op.key, op.elem)
			}
			if ok && op.kind == 'z' {
				var cyc, i int
				fmt.Sscanf(op.elem, "%d:%d", &cyc, &i)
				if v != strconv.Itoa(cyc*1000000+i) {
					t.Fatalf("%s member %s has score %s after recovery", op.key, op.elem, v)
				}
			}
		}
		if present {
			op.seen = true
			kept = append(kept, op)
			continue
		}
		missing++
		lost = append(lost, op)
	}
	log.ops = kept
	for _, op := range lost {
		killed := log.killed[op.cycle]
		switch {
		case op.seen:
			t.Fatalf("%c %s %s was present after an earlier restart and is gone", op.kind, op.key, op.elem)
		case policy == "always":
			t.Fatalf("appendfsync always: acknowledged write lost: %c %s %s (acknowledged %v before the kill)",
				op.kind, op.key, op.elem, killed.Sub(op.acked))
		case killed.Sub(op.acked) > crashEverysecGrace:
			t.Fatalf("appendfsync everysec: write acknowledged %v before the kill lost: %c %s %s",
				killed.Sub(op.acked), op.kind, op.key, op.elem)
		}
	}
	// Expiry survived: a sample of keys set with a long TTL still has one.
	checked := 0
	for _, op := range stringOps {
		if op.kind == 'e' && checked < 20 {
			if r := do("TTL", op.key); r.Int <= 0 {
				t.Fatalf("%s lost its TTL after recovery: %s", op.key, r)
			}
			checked++
		}
	}
	sort.Slice(lost, func(i, j int) bool { return lost[i].acked.Before(lost[j].acked) })
	if len(lost) > 0 {
		t.Logf("%d writes lost (newest %v before the kill)", len(lost), log.killed[lost[0].cycle].Sub(lost[len(lost)-1].acked))
	}
	return missing
}

// elemLess orders "cycle:i" list elements.
func elemLess(a, b string) bool {
	var ac, ai, bc, bi int
	fmt.Sscanf(a, "%d:%d", &ac, &ai)
	fmt.Sscanf(b, "%d:%d", &bc, &bi)
	return ac < bc || ac == bc && ai < bi
}
