package tests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/storage"
)

// Fuzz targets. Plain `go test` runs their seed corpus (the f.Add seeds and the files under
// testdata/fuzz/FuzzXxx/, inputs kept from fuzzing runs); CI fuzzes each for a bounded time:
//
//	go test ./tests -run '^$' -fuzz '^FuzzRESP$' -fuzztime 20s
//	go test ./tests -run '^$' -fuzz '^FuzzCommands$' -fuzztime 20s

// FuzzRESP sends arbitrary bytes to a server, the same bytes split in several ways on several
// connections at once (fuzzWays), and checks that what comes back is well-formed RESP, that the
// server finishes with the input (it closes the connection or answers everything once the client
// has stopped sending), recovers no panic, keeps serving other clients and keeps its storage
// invariants.
func FuzzRESP(f *testing.F) {
	for _, s := range []string{
		"PING\r\n",
		"*1\r\n$4\r\nPING\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
		"SET a \"b c\"\r\nGET a\r\nAPPEND a 'x\\'y'\r\n",
		"*2\r\n$4\r\nECHO\r\n$-1\r\n",
		"*-1\r\n*0\r\n\r\n\n",
		"*2147483648\r\n",
		"*1\r\n$999999999999\r\n",
		"*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\na\r\n*4\r\n$6\r\nLRANGE\r\n$1\r\nl\r\n$1\r\n0\r\n$2\r\n-1\r\n",
		"HSET h f v g w\r\nHGETALL h\r\nZADD z 1 a 2 b\r\nZRANGE z 0 -1 WITHSCORES\r\nSADD s x y\r\nSMEMBERS s\r\n",
		"MULTI\r\nINCR n\r\nEXEC\r\nMULTI\r\nFOO\r\nEXEC\r\n",
		"HELLO 3\r\nHGETALL h\r\nCLIENT INFO\r\n",
		"SUBSCRIBE ch\r\nPING\r\nUNSUBSCRIBE\r\nPING\r\n",
		"EXPIRE k 100\r\nTTL k\r\nSCAN 0 MATCH * COUNT 10\r\nKEYS *\r\nDBSIZE\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r\nabc",
		"*1\r\n:5\r\n",
		"\"unbalanced\r\n",
		"SELECT 3\r\nSET x 1\r\nSWAPDB 0 3\r\nFLUSHDB\r\n",
		// Refused bulk lengths, which crashed the server when their header was split.
		"*2\r\n$3\r\nGET\r\n$-1\r\n",
		"*2\r\n$3\r\nGET\r\n$2000000\r\n",
		"PING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1x\r\nPING\r\n",
		"*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$-7\r\n",
		// Nothing after QUIT runs; a blocked client's pipeline is dropped at its close.
		"SET q 1\r\nQUIT\r\nSET q 2\r\n",
		"BLPOP nolist 0\r\nSET after-blpop 1\r\nPING\r\n",
	} {
		f.Add([]byte(s))
	}
	fs := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, input []byte) {
		fs.run(t, input)
	})
}

type fuzzServer struct {
	inst  *testutil.Instance
	admin *testutil.Conn
	runs  int
}

func newFuzzServer(f *testing.F) *fuzzServer {
	inst := testutil.StartStrata(f, func(c *config.Config) {
		// Small limits bound what one input can make the server allocate.
		c.ProtoMaxBulkLen = 1 << 20
		c.ClientQueryBufferLimit = 1 << 20
		c.Set("client-output-buffer-limit", []string{"normal", "64mb", "0", "0"})
		c.BusyReplyThreshold = 100
	})
	fs := &fuzzServer{inst: inst}
	fs.dialAdmin(f)
	return fs
}

func (fs *fuzzServer) dialAdmin(t testing.TB) {
	if fs.admin != nil {
		fs.admin.Close()
	}
	c, err := testutil.Dial(fs.inst.Addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c.Timeout = 5 * time.Second
	fs.admin = c
}

// reset undoes what an input may have changed that would hold up or lock out the next inputs
// (a pause, a password, a client limit, a disabled user) and reports whether the server answered.
func (fs *fuzzServer) reset(t *testing.T) {
	for attempt := 0; attempt < 2; attempt++ {
		ok := true
		for _, cmd := range [][]string{
			{"CLIENT", "UNPAUSE"},
			{"CONFIG", "SET", "maxclients", "10000"},
			{"CONFIG", "SET", "timeout", "0"},
			{"CONFIG", "SET", "requirepass", ""},
			{"ACL", "SETUSER", "default", "on", "nopass", "~*", "&*", "+@all"},
			{"PING"},
		} {
			r, err := fs.admin.Do(cmd...)
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("server does not answer %v after the input: %v", cmd, err)
				}
				ok = false // the input killed this connection (CLIENT KILL): dial again
				break
			}
			if cmd[0] == "PING" && r.String() != "PONG" {
				t.Fatalf("PING after the input: %s", r)
			}
		}
		if ok {
			return
		}
		fs.dialAdmin(t)
	}
	t.Fatal("cannot reach the server after the input")
}

// fuzzWay is one way FuzzRESP writes an input: the chunks, written one after the other.
type fuzzWay struct {
	name   string
	chunks [][]byte
}

// fuzzByteMax bounds the prefix of an input that FuzzRESP writes one byte at a time.
const fuzzByteMax = 2048

// fuzzWays returns the ways an input is sent, each on a connection of its own: whole; one byte
// at a time; in pieces of random sizes (the sizes drawn from the input, so a run repeats); and
// in one write behind a padding request sized so that the input starts just before a read
// boundary of the server (4096, 16384, 65536 bytes), which then falls inside it.
func fuzzWays(input []byte) []fuzzWay {
	ways := []fuzzWay{{name: "whole", chunks: [][]byte{input}}}
	var bytewise [][]byte
	for i := 0; i < len(input) && i < fuzzByteMax; i++ {
		bytewise = append(bytewise, input[i:i+1])
	}
	if len(input) > fuzzByteMax {
		bytewise = append(bytewise, input[fuzzByteMax:])
	}
	ways = append(ways, fuzzWay{name: "one byte at a time", chunks: bytewise})
	h := fnv.New64a()
	h.Write(input)
	rng := rand.New(rand.NewSource(int64(h.Sum64())))
	var random [][]byte
	for rest := input; len(rest) > 0; {
		k := 1 + rng.Intn(min(len(rest), 1<<uint(rng.Intn(17))))
		random, rest = append(random, rest[:k]), rest[k:]
	}
	ways = append(ways, fuzzWay{name: "random pieces", chunks: random})
	if len(input) > 0 {
		for _, boundary := range []int{4096, 16384, 65536} {
			// The input's first inside bytes fall before the boundary.
			inside := 1 + rng.Intn(min(len(input), 64))
			pad, _ := padTo(boundary - inside)
			ways = append(ways, fuzzWay{name: fmt.Sprintf("across byte %d", boundary),
				chunks: [][]byte{append([]byte(pad), input...)}})
		}
	}
	return ways
}

// fuzzConn is one connection of a run.
type fuzzConn struct {
	way  fuzzWay
	nc   net.Conn
	out  bytes.Buffer
	done chan error // the reader's end: the server closed the connection, or the read failed
	err  error
}

// run sends input in every way of fuzzWays at once, each on its own connection, and checks
// what comes back, that no panic was recovered, and that the server then answers a PING.
func (fs *fuzzServer) run(t *testing.T, input []byte) {
	panics := fs.inst.Server.Stats().ClientPanics
	var conns []*fuzzConn
	defer func() {
		for _, c := range conns {
			c.nc.Close()
		}
	}()
	for _, w := range fuzzWays(input) {
		nc, err := net.DialTimeout("tcp", fs.inst.Addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c := &fuzzConn{way: w, nc: nc, done: make(chan error, 1)}
		conns = append(conns, c)
		go func() {
			nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err := io.Copy(&c.out, nc)
			c.done <- err
		}()
		go func() {
			nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
			for _, chunk := range w.chunks {
				if _, err := nc.Write(chunk); err != nil {
					return // the server closed the connection
				}
			}
			// The client is done: the server answers what it has and sees the connection
			// end (a blocked command is unblocked by the close).
			nc.(*net.TCPConn).CloseWrite()
		}()
	}
	timer := time.NewTimer(2 * time.Second)
	defer timer.Stop()
	stuck := false
	for _, c := range conns {
		if !stuck {
			select {
			case c.err = <-c.done:
				continue
			case <-timer.C:
			}
			// A script or a pause the input started may hold the connections: end them.
			stuck = true
			fs.admin.Do("SCRIPT", "KILL")
			fs.admin.Do("FUNCTION", "KILL")
			fs.admin.Do("CLIENT", "UNPAUSE")
			for _, o := range conns {
				o.nc.Close()
			}
		}
		c.err = <-c.done
	}
	for _, c := range conns {
		var ne net.Error
		if errors.As(c.err, &ne) && ne.Timeout() {
			t.Fatalf("%s: the server neither answered nor closed within 10 s (input %q)", c.way.name, input)
		}
		// Everything received is RESP (possibly cut short by the close).
		r := bufio.NewReader(bytes.NewReader(c.out.Bytes()))
		for {
			_, err := testutil.ReadReply(r)
			if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: malformed reply %v in %.300q (input %q)", c.way.name, err, c.out.Bytes(), input)
			}
		}
		if bytes.Contains(c.out.Bytes(), []byte("internal error while running")) {
			t.Fatalf("%s: a command panicked: %.300q (input %q)", c.way.name, c.out.Bytes(), input)
		}
	}
	if n := fs.inst.Server.Stats().ClientPanics; n != panics {
		t.Fatalf("%d panics recovered while serving the input %q (see the log)", n-panics, input)
	}
	fs.reset(t)
	fs.runs++
	if fs.runs%20 == 0 {
		if err := storage.CheckInvariants(fs.inst.Server.Store()); err != nil {
			t.Fatalf("invariants: %v (last input %q)", err, input)
		}
		fs.admin.Do("FLUSHALL") // keeps the database small, so checks stay fast
	}
}

// fuzzExcluded lists the commands FuzzCommands leaves out: scripts may loop until killed,
// SHUTDOWN, SAVE, BGSAVE and BGREWRITEAOF act on the whole server or disk, and MIGRATE dials the
// host its arguments name (commands.FuzzRestore covers RESTORE's payloads).
var fuzzExcluded = map[string]bool{"eval": true, "eval_ro": true, "evalsha": true, "evalsha_ro": true,
	"fcall": true, "fcall_ro": true, "function": true, "script": true, "shutdown": true,
	"save": true, "bgsave": true, "bgrewriteaof": true, "migrate": true}

// fuzzCountArgs lists commands whose count argument sizes the reply with repetitions (a
// negative count): FuzzCommands caps it, as the memory it would take is Redis's behaviour too.
var fuzzCountArgs = map[string]bool{"srandmember": true, "hrandfield": true, "zrandmember": true}

type fuzzEnv struct{ cfg *config.Config }

func (e fuzzEnv) Config() *config.Config { return e.cfg }

// FuzzCommands runs one command of the table (chosen by cmd) with arguments taken from args
// (split at NUL bytes) through commands.Dispatch on an in-process store: the command must not
// panic, must answer exactly one well-formed reply, and the storage invariants must hold.
func FuzzCommands(f *testing.F) {
	var cmds []*commands.Command
	index := map[string]uint16{}
	for _, c := range commands.All() {
		if !fuzzExcluded[c.Name] {
			index[c.Name] = uint16(len(cmds))
			cmds = append(cmds, c)
		}
	}
	seed := func(name string, args ...string) {
		if i, ok := index[name]; ok {
			f.Add(i, []byte(strings.Join(args, "\x00")))
		}
	}
	seed("set", "k", "v")
	seed("set", "k", "v", "EX", "100", "GET")
	seed("set", "k", "v", "PX", "-1")
	seed("incrbyfloat", "k", "1e308")
	seed("setrange", "k", "100", "x")
	seed("getrange", "k", "-5", "9223372036854775807")
	seed("setbit", "b", "7", "1")
	seed("bitfield", "b", "INCRBY", "i5", "100", "1", "OVERFLOW", "FAIL", "GET", "u4", "0")
	seed("bitpos", "b", "1", "2", "-1", "BIT")
	seed("rpush", "l", "a", "b", "c")
	seed("lrange", "l", "0", "-1")
	seed("linsert", "l", "BEFORE", "b", "x")
	seed("lpos", "l", "b", "RANK", "-1", "COUNT", "0")
	seed("lmpop", "2", "l", "m", "LEFT", "COUNT", "2")
	seed("blmove", "l", "m", "LEFT", "RIGHT", "0")
	seed("hset", "h", "f", "1", "g", "2")
	seed("hincrbyfloat", "h", "f", "1.5")
	seed("hrandfield", "h", "-3", "WITHVALUES")
	seed("sadd", "s", "a", "b", "1", "2")
	seed("sintercard", "2", "s", "t", "LIMIT", "1")
	seed("smove", "s", "t", "a")
	seed("zadd", "z", "NX", "GT", "CH", "1", "a", "2", "b")
	seed("zadd", "z", "INCR", "+inf", "a")
	seed("zrange", "z", "(1", "+inf", "BYSCORE", "REV", "LIMIT", "0", "1")
	seed("zrangestore", "d", "z", "[a", "[z", "BYLEX")
	seed("zunionstore", "d", "2", "z", "s", "WEIGHTS", "1", "2", "AGGREGATE", "MAX")
	seed("zmpop", "1", "z", "MIN", "COUNT", "10")
	seed("expire", "k", "100", "NX")
	seed("pexpireat", "k", "9223372036854775807")
	seed("copy", "z", "z2", "DB", "1", "REPLACE")
	seed("move", "h", "2")
	seed("rename", "l", "l2")
	seed("scan", "0", "MATCH", "*", "COUNT", "5", "TYPE", "zset")
	seed("sort", "l")
	seed("object", "ENCODING", "z")
	seed("swapdb", "0", "1")
	seed("flushdb", "ASYNC")
	seed("select", "1")
	seed("multi")
	seed("hello", "3")
	seed("client", "SETNAME", "x")
	seed("config", "GET", "*")
	seed("command", "GETKEYS", "set", "a", "b")

	dir := f.TempDir()
	st, err := storage.Open(storage.Options{Dir: dir, DisableBackgrnd: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	cfg := config.Default()
	cfg.ProtoMaxBulkLen = 1 << 20 // SETRANGE, SETBIT, APPEND, BITFIELD stay small
	cfg.BackupDir = f.TempDir()
	env := fuzzEnv{cfg}
	client := &commands.Client{ID: 1, Proto: 2, Authed: true, User: "default"}
	runs := 0
	f.Fuzz(func(t *testing.T, sel uint16, raw []byte) {
		cmd := cmds[int(sel)%len(cmds)]
		args := [][]byte{[]byte(strings.ToUpper(cmd.Name))}
		if len(raw) > 0 {
			for _, a := range bytes.Split(raw, []byte{0}) {
				if len(args) == 24 {
					break
				}
				args = append(args, a)
			}
		}
		if fuzzCountArgs[cmd.Name] && len(args) > 2 {
			if n, err := strconv.ParseInt(string(args[2]), 10, 64); err == nil && (n > 1000 || n < -1000) {
				return
			}
		}
		var w resp.Writer
		w.Proto = client.Proto
		ctx := &commands.Ctx{Args: args, Client: client, Store: st, W: &w, Env: env, NonBlocking: true}
		commands.Dispatch(ctx, false)
		if client.DB < 0 || client.DB >= st.Databases() {
			t.Fatalf("%q left the client in database %d", args, client.DB)
		}
		if client.Proto != 2 && client.Proto != 3 {
			t.Fatalf("%q left the client with protocol %d", args, client.Proto)
		}
		reply := w.Bytes()
		if ctx.Blocked {
			if len(reply) != 0 {
				t.Fatalf("%q blocked after writing %q", args, reply)
			}
		} else {
			br := bufio.NewReader(bytes.NewReader(reply))
			r, err := testutil.ReadReply(br)
			if err != nil {
				t.Fatalf("%q: malformed reply %q: %v", args, reply, err)
			}
			if br.Buffered() != 0 {
				t.Fatalf("%q answered more than one reply: %q", args, reply)
			}
			if r.IsError() && strings.Contains(r.Str, "internal error while running") {
				t.Fatalf("%q panicked: %s", args, r.Str)
			}
		}
		client.Quit = false
		runs++
		if err := storage.CheckInvariants(st); err != nil {
			t.Fatalf("invariants after %q: %v", args, err)
		}
		if runs%500 == 0 {
			// Keep the database small so the checks stay fast.
			c := &commands.Ctx{Args: [][]byte{[]byte("FLUSHALL")}, Client: client, Store: st, W: &w, Env: env}
			commands.Dispatch(c, false)
		}
	})
}
