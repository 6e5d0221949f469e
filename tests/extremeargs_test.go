package tests

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// extremeValues are the integers the walk puts in argument positions: the edges of 32- and
// 64-bit arithmetic and just past them, and the negative edges where Redis's own random-draw
// commands start an endless reply.
var extremeValues = []string{
	"0", "-1", "2147483648", "-2147483648", "4294967296",
	"9223372036854775807", "-9223372036854775807", "-9223372036854775808",
	"9223372036854775808", "18446744073709551616", "-4611686018427387903",
}

// extremeTemplates are command shapes whose numeric positions lie past the table's arity
// (options with counts, limits, offsets). Each "N" is replaced by an extreme value.
var extremeTemplates = []string{
	"ZRANDMEMBER zset N WITHSCORES", "HRANDFIELD hash N WITHVALUES", "SRANDMEMBER set N",
	"SRANDMEMBER iset N", "ZRANDMEMBER zset N", "HRANDFIELD hash N",
	"LPOS list a RANK N COUNT N MAXLEN N", "LPOS list a COUNT N", "LPOS list a MAXLEN N",
	"ZRANGE zset N N", "ZRANGE zset N N REV WITHSCORES", "ZRANGE zset -inf +inf BYSCORE LIMIT N N",
	"ZRANGE zset - + BYLEX LIMIT N N", "ZRANGEBYSCORE zset -inf +inf LIMIT N N",
	"ZREVRANGEBYSCORE zset +inf -inf LIMIT N N", "ZRANGEBYLEX zset - + LIMIT N N",
	"ZRANGESTORE dst zset N N", "ZRANGESTORE dst zset 0 -1 BYSCORE LIMIT N N",
	"ZREMRANGEBYRANK zset N N", "ZCOUNT zset N N", "ZADD zset N a", "ZINCRBY zset N a",
	"SCAN N COUNT N", "SCAN 0 COUNT N", "SSCAN set N COUNT N", "HSCAN hash N COUNT N",
	"ZSCAN zset N COUNT N", "SCAN 0 COUNT N TYPE string",
	"LMPOP N list LEFT COUNT N", "LMPOP 1 list LEFT COUNT N", "ZMPOP N zset MIN COUNT N",
	"ZMPOP 1 zset MAX COUNT N", "BLMPOP 0.01 N list LEFT COUNT N", "BZMPOP 0.01 N zset MIN COUNT N",
	"BLMPOP 0.01 1 missing LEFT", "SINTERCARD N set LIMIT N", "SINTERCARD 1 set LIMIT N",
	"ZINTERCARD N zset LIMIT N", "ZINTERCARD 1 zset LIMIT N", "ZUNIONSTORE dst N zset WEIGHTS N",
	"ZUNION 1 zset WEIGHTS N", "ZINTER N zset zset", "ZDIFF N zset", "ZDIFFSTORE dst N zset",
	"SINTERSTORE dst set", "EVAL \"return 1\" N", "EVAL \"return #KEYS\" N a b",
	"EVAL_RO \"return 1\" N", "EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db N",
	"FCALL f N", "FCALL_RO f N a",
	"BITFIELD bm SET u8 N N", "BITFIELD bm GET i64 N", "BITFIELD bm INCRBY u8 N N",
	"BITFIELD bm SET u8 #N 1", "BITFIELD bm OVERFLOW FAIL INCRBY i64 0 N", "BITFIELD_RO bm GET u8 N",
	"BITPOS bm 1 N N BIT", "BITPOS bm 0 N", "BITCOUNT bm N N BIT", "BITCOUNT bm N N",
	"GETRANGE str N N", "SETRANGE str N x", "SETRANGE missing N x", "SETRANGE str N \"\"",
	"SETBIT bm N 1", "GETBIT bm N", "SETBIT missing N 0",
	"EXPIRE str N", "EXPIRE str N NX", "PEXPIRE str N", "EXPIREAT str N", "PEXPIREAT str N",
	"SET k v EX N", "SET k v PX N", "SET k v EXAT N", "SET k v PXAT N", "GETEX str EX N",
	"GETEX str PXAT N", "SETEX k N v", "PSETEX k N v",
	"LINSERT list BEFORE N x", "LPOP list N", "RPOP list N", "SPOP set N", "SPOP iset N",
	"ZPOPMIN zset N", "ZPOPMAX zset N", "LRANGE list N N", "LTRIM list N N", "LREM list N a",
	"LSET list N x", "LINDEX list N", "INCRBY num N", "DECRBY num N", "INCRBYFLOAT num N",
	"HINCRBY hash a N", "HINCRBYFLOAT hash a N", "SELECT N", "SWAPDB N N", "MOVE str N",
	"COPY str dst DB N", "HELLO N", "CLIENT TRACKING on REDIRECT N", "CLIENT KILL ID N",
	"CLIENT KILL MAXAGE N", "OBJECT FREQ str", "ACL LOG N", "ACL GENPASS N", "ACL CAT N",
	"OBJECT HELP", "FUNCTION RESTORE N", "SCRIPT EXISTS N", "PUBSUB NUMSUB N",
	"CONFIG SET maxclients N", "CONFIG SET proto-max-bulk-len N",
	"CONFIG SET client-query-buffer-limit N", "CONFIG SET databases N", "CONFIG SET hz N",
	"CONFIG SET lua-time-limit N", "CONFIG SET busy-reply-threshold N",
	"CONFIG SET list-max-listpack-size N", "CONFIG SET timeout N",
	"COMMAND GETKEYS ZUNION N a", "COMMAND GETKEYS EVAL x N a", "COMMAND GETKEYS LMPOP N a LEFT",
	"COMMAND GETKEYS ZUNIONSTORE d N a", "COMMAND GETKEYS BLMPOP 0 N a LEFT",
}

// extremeSkip are commands the walk does not send: they stop the server or stop it serving
// other clients for as long as the argument says.
var extremeSkip = map[string]bool{
	"shutdown": true, "client|pause": true, "client|reply": true, "debug": true, "monitor": true,
	"sync": true, "psync": true, "replicaof": true, "slaveof": true, "failover": true,
}

// extremeTimeout is where each blocking command takes its timeout; the walk gives it a small
// one there, and the extreme value only when it cannot block for long (negative or past 2^63).
var extremeTimeout = map[string]int{
	"blpop": -1, "brpop": -1, "bzpopmin": -1, "bzpopmax": -1, "brpoplpush": -1, "blmove": -1,
	"blmpop": 1, "bzmpop": 1, "wait": -1,
}

// extremeCategoryKey names the prepared key of the type a command's ACL category works on.
var extremeCategoryKey = map[string][]string{
	"@string": {"str", "num"}, "@list": {"list"}, "@hash": {"hash"}, "@set": {"set", "iset"},
	"@sortedset": {"zset"}, "@bitmap": {"bm"},
}

var extremeAllKeys = []string{"str", "num", "list", "hash", "set", "iset", "zset", "bm", "missing"}

// extremeCmd is one entry of COMMAND's reply: a command or a subcommand.
type extremeCmd struct {
	name                   string // "get", "client|kill"
	arity                  int
	first, last, step      int
	keyTypes               []string // prepared keys for its key positions
	containerName, subName string   // set for subcommands
}

// TestExtremeArguments walks the whole command table of a Strata process with extreme integer
// arguments in every position (and in the option positions of extremeTemplates), with keys of
// every type prepared. Every reply must arrive within a few seconds, the process must stay up,
// and its resident memory must stay within a bound of where it started: no command may build
// a reply or a value in proportion to a number the client sent rather than to data that exists.
func TestExtremeArguments(t *testing.T) {
	bin := buildStrata(t)
	// A smaller proto-max-bulk-len keeps the bit offsets and string offsets the walk sends
	// (2^31 bits is a 256 MB string, which Redis allows by default) below the RSS bound.
	dir := t.TempDir()
	srv := startCrashServer(t, bin, filepath.Join(dir, "data"), "--backup-dir", filepath.Join(dir, "backup"),
		"--proto-max-bulk-len", "8mb", "--loglevel", "warning")
	t.Cleanup(srv.kill)
	pid := srv.cmd.Process.Pid
	const rssSlack = 300 << 20 // bytes of RSS growth the walk tolerates
	const deadline = 4 * time.Second

	table := extremeTable(t, srv.addr)
	prepare := func() {
		pc := dialExtreme(t, srv.addr)
		defer pc.Close()
		for _, cmd := range [][]string{
			{"FLUSHALL"}, {"CONFIG", "SET", "proto-max-bulk-len", "8mb", "timeout", "0", "hz", "10",
				"maxclients", "10000", "client-query-buffer-limit", "1gb"},
			{"SET", "str", "hello world"}, {"SET", "num", "12345"},
			{"RPUSH", "list", "a", "b", "c", "a"}, {"HSET", "hash", "a", "1", "b", "2"},
			{"SADD", "set", "a", "b", "c"}, {"SADD", "iset", "1", "2", "3"},
			{"ZADD", "zset", "1", "a", "2", "b", "3", "c"}, {"SETBIT", "bm", "100", "1"},
			{"FUNCTION", "LOAD", "REPLACE", "#!lua name=extreme\nredis.register_function('f', function() return 1 end)"},
		} {
			if _, err := pc.do(deadline, cmd...); err != nil {
				t.Fatalf("prepare %v: %v", cmd, err)
			}
		}
	}
	prepare()
	startRSS := readRSS(t, pid)
	t.Logf("%d commands and subcommands; RSS at start %d MiB", len(table), startRSS>>20)

	var sent int
	var peakRSS int64
	start := time.Now()
	run := func(name string, variants [][]string) {
		prepare()
		conn := dialExtreme(t, srv.addr)
		defer func() { conn.Close() }()
		for _, args := range variants {
			if conn == nil || extremeFreshConn[strings.ToLower(args[0])] {
				if conn != nil {
					conn.Close()
				}
				conn = dialExtreme(t, srv.addr)
			}
			sent++
			began := time.Now()
			_, err := conn.do(deadline, args...)
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("%q: no complete reply within %v (RSS %d MiB)", args, deadline, readRSS(t, pid)>>20)
				}
				if srv.cmd.ProcessState != nil || !alive(srv.addr) {
					t.Fatalf("%q: server gone: %v\n%s", args, err, strings.Join(srv.warnings(), "\n"))
				}
				conn.Close()
				conn = nil // closed by the command itself (QUIT, CLIENT KILL, RESET ...)
			}
			if d := time.Since(began); d > deadline {
				t.Fatalf("%q: reply took %v", args, d)
			}
			rss := readRSS(t, pid)
			peakRSS = max(peakRSS, rss)
			if rss > startRSS+rssSlack {
				t.Fatalf("%q: RSS grew from %d MiB to %d MiB", args, startRSS>>20, rss>>20)
			}
		}
	}
	for _, cmd := range table {
		if extremeSkip[cmd.name] {
			continue
		}
		run(cmd.name, extremeVariants(cmd))
	}
	for _, tpl := range extremeTemplates {
		args, err := testutil.SplitArgs(tpl)
		if err != nil {
			t.Fatalf("template %q: %v", tpl, err)
		}
		run(tpl, templateVariants(args))
	}
	if w := srv.warnings(); len(w) > 0 {
		for _, l := range w {
			if strings.Contains(l, "panicked") {
				if i := strings.Index(l, " stack="); i > 0 {
					l = l[:i]
				}
				t.Errorf("server log: %s", l)
			}
		}
	}
	t.Logf("%d commands sent in %v; RSS at most %d MiB, at end %d MiB", sent,
		time.Since(start).Round(time.Millisecond), peakRSS>>20, readRSS(t, pid)>>20)
}

// extremeFreshConn are commands that change the connection's state for the ones after them
// (MULTI queues them, SUBSCRIBE restricts them, SELECT moves them to another database); each
// of their variants gets its own connection.
var extremeFreshConn = map[string]bool{
	"multi": true, "subscribe": true, "psubscribe": true, "ssubscribe": true, "select": true,
	"hello": true, "reset": true, "quit": true, "client": true, "auth": true, "exec": true,
}

// extremeVariants builds argument lists for cmd from its arity: the fewest arguments it takes
// (and, for variadic commands, one and two more), each non-key position holding each extreme
// value in turn (the others "1"), and every non-key position holding the same value; key
// positions name a prepared key of the command's type.
func extremeVariants(cmd extremeCmd) [][]string {
	var prefix []string
	if cmd.containerName != "" {
		prefix = []string{cmd.containerName, cmd.subName}
	} else {
		prefix = []string{cmd.name}
	}
	n := cmd.arity
	counts := []int{n}
	if n < 0 {
		counts = []int{-n, -n + 1, -n + 2}
	}
	keys := cmd.keyTypes
	if len(keys) == 0 {
		keys = extremeAllKeys
	}
	var out [][]string
	seen := map[string]bool{}
	emit := func(args []string) {
		if k := strings.Join(args, "\x00"); !seen[k] {
			seen[k] = true
			out = append(out, args)
		}
	}
	for _, argc := range counts {
		if argc < len(prefix) {
			argc = len(prefix)
		}
		if argc == len(prefix) {
			emit(append([]string(nil), prefix...))
			continue
		}
		isKey := func(i int) bool {
			if cmd.first <= 0 || i < cmd.first {
				return false
			}
			last := cmd.last
			if last < 0 {
				last = argc + last
			}
			step := max(cmd.step, 1)
			return i <= last && (i-cmd.first)%step == 0
		}
		timeoutAt := -100
		if p, ok := extremeTimeout[cmd.name]; ok {
			timeoutAt = p
			if p < 0 {
				timeoutAt = argc + p
			}
		}
		for _, key := range keys {
			for _, v := range extremeValues {
				for p := len(prefix); p <= argc; p++ { // p == argc: every position holds v
					args := append([]string(nil), prefix...)
					for i := len(prefix); i < argc; i++ {
						switch {
						case isKey(i):
							args = append(args, key)
						case i == timeoutAt && !(i == p || p == argc) || i == timeoutAt && !nonBlockingTimeout(v):
							args = append(args, "0.01")
						case i == p || p == argc:
							args = append(args, v)
						default:
							args = append(args, "1")
						}
					}
					emit(args)
				}
			}
		}
	}
	return out
}

// nonBlockingTimeout reports whether v, as a blocking command's timeout, is refused or cannot
// keep the command waiting past the walk's deadline.
func nonBlockingTimeout(v string) bool {
	return strings.HasPrefix(v, "-") || len(v) >= len("9223372036854775807")
}

// templateVariants replaces the "N" arguments of a template by each extreme value: all of
// them at once, then each alone (the others "1").
func templateVariants(tpl []string) [][]string {
	var at []int
	for i, a := range tpl {
		if a == "N" || a == "#N" {
			at = append(at, i)
		}
	}
	var out [][]string
	for _, v := range extremeValues {
		for which := -1; which < len(at); which++ {
			if which >= 0 && len(at) == 1 {
				break
			}
			args := append([]string(nil), tpl...)
			for j, i := range at {
				val := v
				if which >= 0 && j != which {
					val = "1"
				}
				args[i] = strings.Replace(tpl[i], "N", val, 1)
			}
			out = append(out, args)
		}
	}
	return out
}

// extremeTable reads the command table (with subcommands) from COMMAND.
func extremeTable(t *testing.T, addr string) []extremeCmd {
	t.Helper()
	tc, err := testutil.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	r, err := tc.Do("COMMAND")
	if err != nil || r.Kind != testutil.KindArray {
		t.Fatalf("COMMAND: %v %v", r, err)
	}
	var out []extremeCmd
	var add func(e testutil.Reply, container string)
	add = func(e testutil.Reply, container string) {
		if len(e.Elems) < 7 {
			t.Fatalf("COMMAND entry %v", e)
		}
		cmd := extremeCmd{
			name: e.Elems[0].Str, arity: int(e.Elems[1].Int),
			first: int(e.Elems[3].Int), last: int(e.Elems[4].Int), step: int(e.Elems[5].Int),
		}
		for _, cat := range e.Elems[6].Elems {
			cmd.keyTypes = append(cmd.keyTypes, extremeCategoryKey[cat.Str]...)
		}
		switch {
		case cmd.first <= 0:
			cmd.keyTypes = []string{"-"} // no fixed key positions
		case len(cmd.keyTypes) == 0:
			cmd.keyTypes = extremeAllKeys // a keyspace command: every type
		default:
			cmd.keyTypes = append(cmd.keyTypes, "missing")
		}
		if container != "" {
			cmd.containerName = container
			cmd.subName = strings.TrimPrefix(cmd.name, container+"|")
		}
		if len(e.Elems) > 9 && len(e.Elems[9].Elems) > 0 {
			for _, sub := range e.Elems[9].Elems {
				add(sub, cmd.name)
			}
			return // a container alone only answers its arity error
		}
		out = append(out, cmd)
	}
	for _, e := range r.Elems {
		add(e, "")
	}
	return out
}

// readRSS returns the resident set size of process pid in bytes.
func readRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read RSS: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

func alive(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// extremeConn is a RESP connection whose replies are read and dropped as they stream in, so
// that a reply of any size costs the test no memory.
type extremeConn struct {
	addr string
	nc   net.Conn
	r    *bufio.Reader
}

func dialExtreme(t *testing.T, addr string) *extremeConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	return &extremeConn{addr: addr, nc: nc, r: bufio.NewReaderSize(nc, 64<<10)}
}

func (c *extremeConn) Close() { c.nc.Close() }

// do sends args and reads the reply within d; it returns the first line of the reply.
func (c *extremeConn) do(d time.Duration, args ...string) (string, error) {
	c.nc.SetDeadline(time.Now().Add(d))
	if _, err := c.nc.Write(testutil.EncodeCommand(args...)); err != nil {
		return "", err
	}
	var first string
	err := c.skip(&first)
	return first, err
}

// skip reads one reply, keeping nothing but its first line in *first.
func (c *extremeConn) skip(first *string) error {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return err
	}
	if *first == "" {
		*first = strings.TrimRight(line, "\r\n")
	}
	if len(line) < 3 {
		return fmt.Errorf("bad reply line %q", line)
	}
	n, _ := strconv.ParseInt(strings.TrimRight(line[1:], "\r\n"), 10, 64)
	switch line[0] {
	case '$', '!', '=':
		if n >= 0 {
			if _, err := io.CopyN(io.Discard, c.r, n+2); err != nil {
				return err
			}
		}
	case '*', '~', '>':
		for ; n > 0; n-- {
			if err := c.skip(first); err != nil {
				return err
			}
		}
	case '%', '|':
		for n *= 2; n > 0; n-- {
			if err := c.skip(first); err != nil {
				return err
			}
		}
		if line[0] == '|' {
			return c.skip(first)
		}
	}
	return nil
}

// TestChangesSinceSave compares how INFO's rdb_changes_since_last_save moves on Strata and on
// redis-server for writes that change something and for SETBIT and BITFIELD writes that change
// nothing (the bits are already those), which Redis does not count. Each command changes at
// most one key, so one change per command that changed data is Redis's count too.
func TestChangesSinceSave(t *testing.T) {
	ref := testutil.StartRedis(t)
	got := testutil.StartStrata(t)
	steps := [][]string{
		{"SETBIT", "foo", "0", "0"}, {"BITFIELD", "foo2", "SET", "i5", "0", "0"},
		{"SETBIT", "foo", "0", "0"}, {"BITFIELD", "foo2", "SET", "i5", "0", "0"},
		{"SETBIT", "foo", "0", "1"}, {"SETBIT", "foo", "0", "1"}, {"SETBIT", "foo", "0", "0"},
		{"BITFIELD", "foo2", "SET", "i5", "0", "1"}, {"BITFIELD", "foo2", "SET", "i5", "0", "1"},
		{"BITFIELD", "foo2", "GET", "i5", "0"}, {"BITFIELD", "foo3", "INCRBY", "i5", "0", "1"},
		{"BITFIELD", "foo3", "INCRBY", "i5", "0", "1"}, {"SETBIT", "foo", "90", "0"},
		{"BITFIELD", "foo2", "SET", "i5", "90", "0"}, {"SET", "k", "v"}, {"GET", "k"},
		{"SETRANGE", "k", "0", ""}, {"SETRANGE", "k", "0", "v"}, {"INCR", "n"}, {"DEL", "nosuch"},
	}
	changes := func(c *testutil.Conn) int64 {
		r, err := c.Do("INFO", "persistence")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(r.Str, "\r\n") {
			if v, ok := strings.CutPrefix(l, "rdb_changes_since_last_save:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		t.Fatalf("no rdb_changes_since_last_save in %q", r.Str)
		return 0
	}
	rc, sc := testutil.Connect(t, ref.Addr), testutil.Connect(t, got.Addr)
	r0, s0 := changes(rc), changes(sc)
	for _, args := range steps {
		if _, err := rc.Do(args...); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.Do(args...); err != nil {
			t.Fatal(err)
		}
		if dr, ds := changes(rc)-r0, changes(sc)-s0; dr != ds {
			t.Errorf("after %q: redis counts %d changes, strata %d", args, dr, ds)
		}
	}
}
