package tests

import (
	"bytes"
	"fmt"
	"net"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// The limits a hostile or broken client runs into, as Redis 7.0 applies them and with its error
// texts: protocol limits on request framing (also before AUTH), client-query-buffer-limit,
// maxclients, timeout, tcp-keepalive and client-output-buffer-limit for normal clients. Where
// redis-server is installed the same exchange runs against it and the answers must agree.

// limitServers returns Strata started with opts and, when installed, a redis-server given the
// same settings through CONFIG SET (each pair: directive, value).
func limitServers(t *testing.T, opts func(*config.Config), set ...string) []*testutil.Instance {
	t.Helper()
	list := []*testutil.Instance{testutil.StartStrata(t, opts)}
	if r := testutil.MaybeStartRedis(t); r != nil {
		if len(set) > 0 {
			c := dial(t, r)
			for i := 0; i+1 < len(set); i += 2 {
				mustDo(t, c, "OK", "CONFIG", "SET", set[i], set[i+1])
			}
			c.Close()
		}
		list = append(list, r)
	}
	return list
}

// compareRaw runs raw cases against Strata and redis-server (or the fallback expectation) and
// compares what each answers, including whether it closes the connection.
func compareRaw(t *testing.T, strata, redis *testutil.Instance, cases []rawCase) {
	t.Helper()
	for _, rc := range cases {
		t.Run(rc.name, func(t *testing.T) {
			want, source := rc.fallback, "fallback"
			if redis != nil {
				want, source = runRaw(t, redis, rc), "redis"
				if strings.Join(want, "\n") != strings.Join(rc.fallback, "\n") {
					t.Errorf("redis-server answers %q, the test expects %q", want, rc.fallback)
				}
			}
			got := runRaw(t, strata, rc)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("sent %.80q\n  %s: %q\n  strata: %q", rc.send, source, want, got)
			}
		})
	}
}

func multibulk(args ...string) string { return string(testutil.EncodeCommand(args...)) }

// TestProtocolLimitTexts checks absurd multibulk counts and bulk lengths at and past the limits.
func TestProtocolLimitTexts(t *testing.T) {
	t.Parallel()
	strata := testutil.StartStrata(t)
	redis := testutil.MaybeStartRedis(t)
	compareRaw(t, strata, redis, []rawCase{
		{"multibulk count past INT_MAX", "*2147483648\r\n", true,
			[]string{"(error) ERR Protocol error: invalid multibulk length", closedMark}},
		{"multibulk count far past INT_MAX", "*99999999999999999999\r\n", true,
			[]string{"(error) ERR Protocol error: invalid multibulk length", closedMark}},
		{"negative multibulk count is ignored", "*-2147483649\r\nPING\r\n", true, []string{"PONG"}},
		{"bulk length one past proto-max-bulk-len", "*1\r\n$536870913\r\n", true,
			[]string{"(error) ERR Protocol error: invalid bulk length", closedMark}},
		{"bulk length past int64", "*1\r\n$99999999999999999999\r\n", true,
			[]string{"(error) ERR Protocol error: invalid bulk length", closedMark}},
		{"bulk length with plus", "*1\r\n$+4\r\nPING\r\n", true,
			[]string{"(error) ERR Protocol error: invalid bulk length", closedMark}},
		{"error after a valid argument", "*2\r\n$4\r\nECHO\r\n$-7\r\n", true,
			[]string{"(error) ERR Protocol error: invalid bulk length", closedMark}},
	})
}

// TestHugeHeadersAllocateNothing announces absurd but valid sizes and checks that the server's
// heap does not grow with them: nothing is allocated before the bytes arrive.
func TestHugeHeadersAllocateNothing(t *testing.T) {
	inst := testutil.StartStrata(t)
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	before := heap()
	var conns []*testutil.Conn
	for _, hdr := range []string{
		"*2147483647\r\n",                                                // INT_MAX arguments announced
		"*2147483647\r\n$1\r\na\r\n$1\r\nb\r\n",                          // ... and a few sent
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870912\r\nabc",                // a 512 MiB value announced
		"*2\r\n$4\r\nECHO\r\n$536870912\r\n" + strings.Repeat("x", 1000), // begun
	} {
		for i := 0; i < 5; i++ {
			c := dial(t, inst)
			if err := c.WriteRaw([]byte(hdr)); err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
	}
	time.Sleep(200 * time.Millisecond)
	after := heap()
	if grown := int64(after) - int64(before); grown > 32<<20 {
		t.Errorf("heap grew by %d MiB after 20 clients announced huge requests", grown>>20)
	}
	// The server still serves others, and the clients are still waiting, not failed.
	mustDo(t, dial(t, inst), "PONG", "PING")
	for _, c := range conns {
		if closed, extra := c.ExpectClosed(10 * time.Millisecond); closed || len(extra) > 0 {
			t.Errorf("a client announcing a large request was answered %q (closed %v)", extra, closed)
		}
	}
}

// TestUnauthenticatedRequestLimits: while a password is required, Redis takes at most 10
// arguments of at most 16 KiB each before AUTH. A pipelined AUTH counts for what follows it.
func TestUnauthenticatedRequestLimits(t *testing.T) {
	t.Parallel()
	strata := testutil.StartStrata(t, func(c *config.Config) { c.RequirePass = "pw" })
	redis := testutil.MaybeStartRedis(t)
	if redis != nil {
		c := dial(t, redis)
		mustDo(t, c, "OK", "CONFIG", "SET", "requirepass", "pw")
	}
	big := strings.Repeat("x", 16384)
	del10 := []string{"DEL"}
	for i := 0; i < 10; i++ {
		del10 = append(del10, fmt.Sprintf("k%d", i))
	}
	auth := "AUTH pw\r\n"
	noauth := "(error) NOAUTH Authentication required."
	compareRaw(t, strata, redis, []rawCase{
		{"11 arguments", "*11\r\n", true,
			[]string{"(error) ERR Protocol error: unauthenticated multibulk length", closedMark}},
		{"argument of 16385 bytes", "*2\r\n$16385\r\n", true,
			[]string{"(error) ERR Protocol error: unauthenticated bulk length", closedMark}},
		{"10 arguments of 16384 bytes are read", multibulk("ECHO", big) + multibulk("DEL", "a", "b", "c", "d", "e", "f", "g", "h", "i") + auth, true,
			[]string{noauth, noauth, "OK"}},
		{"after AUTH in the same write", auth + multibulk(del10...) + multibulk("ECHO", big+"y"), true,
			[]string{"OK", "(integer) 0", `"` + big + `y"`}},
		{"after a refused command in the same write", "PING\r\n*11\r\n", true,
			[]string{noauth, "(error) ERR Protocol error: unauthenticated multibulk length", closedMark}},
		{"after a wrong password", "AUTH nope\r\n*2\r\n$16385\r\n", true,
			[]string{"(error) WRONGPASS invalid username-password pair or user is disabled.",
				"(error) ERR Protocol error: unauthenticated bulk length", closedMark}},
	})
}

// TestQueryBufferLimit: Strata holds a request in its parser's buffer until the request is
// complete, so its query buffer is the request received so far; past client-query-buffer-limit
// the client is closed without a reply, as Redis closes a client whose query buffer passes the
// limit. (Redis moves each argument of 32 KiB or more out of its query buffer once read, so it
// would take the 1.2 MiB request below under a 1 MiB limit; it closes instead a client that
// keeps sending while blocked, whose bytes Strata leaves in the socket.)
func TestQueryBufferLimit(t *testing.T) {
	t.Parallel()
	inst := testutil.StartStrata(t, func(c *config.Config) {
		c.ClientQueryBufferLimit = 1 << 20
		c.ProtoMaxBulkLen = 1 << 20
	})
	other := dial(t, inst)
	half := strings.Repeat("h", 600<<10)
	c := dial(t, inst)
	// A request under the limit, then several requests adding up to more than the limit.
	var pipe bytes.Buffer
	pipe.WriteString(multibulk("SET", "one", strings.Repeat("o", 1000<<10)))
	for i := 0; i < 4; i++ {
		pipe.WriteString(multibulk("SET", fmt.Sprintf("p%d", i), half))
	}
	if err := c.WriteRaw(pipe.Bytes()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if r, err := c.ReadReply(); err != nil || r.String() != "OK" {
			t.Fatalf("reply %d: %v %v", i, r, err)
		}
	}
	// One request past the limit: closed, unanswered, not executed.
	if err := c.WriteRaw([]byte(multibulk("MSET", "a", half, "b", half))); err != nil {
		t.Logf("write: %v", err) // the server may close while we write
	}
	if closed, extra := c.ExpectClosed(5 * time.Second); !closed || len(extra) > 0 {
		t.Fatalf("over client-query-buffer-limit: closed %v, answered %q", closed, extra)
	}
	mustDo(t, other, "(integer) 0", "EXISTS", "a")
	mustDo(t, other, "(integer) 5", "DBSIZE")
	// A request trickling in byte by byte is cut the same way.
	slow := dial(t, inst)
	hdr := "*3\r\n$3\r\nSET\r\n$1\r\nz\r\n$1048576\r\n"
	if err := slow.WriteRaw([]byte(hdr)); err != nil {
		t.Fatal(err)
	}
	chunk := strings.Repeat("z", 64<<10)
	for sent := len(hdr); sent <= 1<<20+64<<10; sent += len(chunk) {
		if slow.WriteRaw([]byte(chunk)) != nil {
			break
		}
	}
	if closed, extra := slow.ExpectClosed(5 * time.Second); !closed || len(extra) > 0 {
		t.Fatalf("trickled request past the limit: closed %v, answered %q", closed, extra)
	}
}

// TestMaxClients: past maxclients a new connection is answered Redis's error and closed; a
// freed slot is usable again.
func TestMaxClients(t *testing.T) {
	t.Parallel()
	for _, inst := range limitServers(t, func(c *config.Config) { c.MaxClients = 3 }, "maxclients", "3") {
		t.Run(inst.Name, func(t *testing.T) {
			var conns []*testutil.Conn
			for i := 0; i < 3; i++ {
				c := dial(t, inst)
				mustDo(t, c, "PONG", "PING")
				conns = append(conns, c)
			}
			extra := dial(t, inst)
			r, err := extra.ReadReply()
			if err != nil || r.String() != "(error) ERR max number of clients reached" {
				t.Fatalf("client past maxclients: %v %v", r, err)
			}
			if closed, more := extra.ExpectClosed(2 * time.Second); !closed || len(more) > 0 {
				t.Fatalf("client past maxclients not closed (%q)", more)
			}
			conns[0].Close()
			var c *testutil.Conn
			for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				c = dial(t, inst)
				if r, err := c.Do("PING"); err == nil && r.String() == "PONG" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the slot of a closed client was not freed")
				}
			}
			mustDo(t, conns[1], "PONG", "PING")
		})
	}
}

// TestIdleTimeout: with timeout 1, an idle client is closed within a few seconds while a
// blocked client (BLPOP with no timeout), a client inside MULTI and an active client are not.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	for _, inst := range limitServers(t, func(c *config.Config) { c.Timeout = 1 }, "timeout", "1") {
		t.Run(inst.Name, func(t *testing.T) {
			t.Parallel()
			idle := dial(t, inst)
			start := time.Now() // before the idle client's last command: its idle time starts later
			mustDo(t, idle, "PONG", "PING")
			blocked := dial(t, inst)
			idReply, err := blocked.Do("CLIENT", "ID")
			if err != nil {
				t.Fatal(err)
			}
			blockedID := strconv.FormatInt(idReply.Int, 10)
			if err := blocked.Send("BLPOP", "timeout:list", "0"); err != nil {
				t.Fatal(err)
			}
			active := dial(t, inst)
			// The BLPOP must have been read before the idle clock of its connection runs out: on
			// a loaded machine a server may not read it within the first second.
			waitBlocked(t, active, 1)
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Since(start) < 3500*time.Millisecond {
					if r, err := active.Do("PING"); err != nil || r.Str != "PONG" {
						t.Errorf("active client: %v %v", r, err)
						return
					}
					time.Sleep(300 * time.Millisecond)
				}
			}()
			if closed, extra := idle.ExpectClosed(5 * time.Second); !closed || len(extra) > 0 {
				t.Errorf("idle client not closed after timeout 1 (%q)", extra)
			} else if d := time.Since(start); d < 900*time.Millisecond {
				t.Errorf("idle client closed after %v, before the timeout", d)
			}
			wg.Wait()
			// The blocked client is still there, still blocked, long after its idle time passed.
			list, err := active.Do("CLIENT", "LIST")
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`(?m)^id=` + blockedID + ` .* flags=b `).MatchString(list.Str) {
				t.Errorf("blocked client %s not listed as blocked after the timeout:\n%s", blockedID, list.Str)
			}
			// A push wakes it. redis-server's idle check may close a client in the instant
			// between its wake-up and the write of its reply (the check looks at the time of
			// its last read), so only Strata is held to delivering that reply.
			mustDo(t, active, "(integer) 1", "RPUSH", "timeout:list", "v")
			r, err := blocked.ReadReply()
			if inst.Name == "redis" && err != nil {
				t.Logf("redis-server closed the woken client before its reply: %v", err)
			} else if err != nil || r.String() != "1) \"timeout:list\"\n2) \"v\"" {
				t.Errorf("blocked client after the timeout: %v %v", r, err)
			}
		})
	}
}

// TestTCPKeepAlive reads the socket options of the server's side of a connection (the server
// runs in this process, so CLIENT LIST's fd is ours): tcp-keepalive N sets SO_KEEPALIVE, the
// idle time to N, the probe interval to N/3 and 3 probes, as Redis's anetKeepAlive does; 0 turns
// keepalive off.
func TestTCPKeepAlive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		setting                   int
		keepalive, idle, intvl, n int
	}{
		{60, 1, 60, 20, 3},
		{300, 1, 300, 100, 3},
		{2, 1, 2, 1, 3},
		{0, 0, -1, -1, -1},
	} {
		inst := testutil.StartStrata(t, func(c *config.Config) { c.TCPKeepAlive = tc.setting })
		c := dial(t, inst)
		mustDo(t, c, "OK", "CLIENT", "SETNAME", "ka")
		r, err := c.Do("CLIENT", "LIST")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`fd=(\d+) .*name=ka `).FindStringSubmatch(r.Str)
		if m == nil {
			t.Fatalf("no fd in CLIENT LIST: %s", r.Str)
		}
		fd, _ := strconv.Atoi(m[1])
		get := func(level, opt int) int {
			v, err := syscall.GetsockoptInt(fd, level, opt)
			if err != nil {
				t.Fatalf("getsockopt: %v", err)
			}
			return v
		}
		got := []int{get(syscall.SOL_SOCKET, syscall.SO_KEEPALIVE), -1, -1, -1}
		if got[0] != 0 {
			got[1] = get(syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE)
			got[2] = get(syscall.IPPROTO_TCP, syscall.TCP_KEEPINTVL)
			got[3] = get(syscall.IPPROTO_TCP, syscall.TCP_KEEPCNT)
		}
		want := []int{tc.keepalive, tc.idle, tc.intvl, tc.n}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("tcp-keepalive %d: SO_KEEPALIVE, TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT = %v, want %v",
				tc.setting, got, want)
		}
	}
}

// readAll reads what the server sends until it closes the connection or stops sending for d.
func readAll(c *testutil.Conn, d time.Duration) (n int, closed bool) {
	buf := make([]byte, 1<<20)
	for {
		c.NetConn().SetReadDeadline(time.Now().Add(d))
		k, err := c.NetConn().Read(buf)
		n += k
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return n, false
			}
			return n, true
		}
	}
}

// TestOutputBufferLimitNormal: client-output-buffer-limit for normal clients. Past the hard
// limit (replies of a pipeline pile up before they are written) the client is closed without
// its replies; a client that leaves a reply unread past the soft limit for longer than the soft
// seconds is closed too. Other clients are unaffected, and the default (normal 0 0 0) never closes.
func TestOutputBufferLimitNormal(t *testing.T) {
	t.Parallel()
	value := strings.Repeat("v", 100<<10)
	huge := strings.Repeat("H", 16<<20) // more than the socket buffers take
	setup := func(t *testing.T, inst *testutil.Instance) *testutil.Conn {
		c := dial(t, inst)
		mustDo(t, c, "OK", "SET", "v100k", value)
		mustDo(t, c, "OK", "SET", "huge", huge)
		return c
	}
	t.Run("hard", func(t *testing.T) {
		t.Parallel()
		for _, inst := range limitServers(t, func(c *config.Config) {
			c.Set("client-output-buffer-limit", []string{"normal", "1mb", "0", "0"})
		}, "client-output-buffer-limit", "normal 1mb 0 0") {
			t.Run(inst.Name, func(t *testing.T) {
				other := setup(t, inst)
				c := dial(t, inst)
				// Nine 100 KiB replies fit under 1 MiB.
				var pipe bytes.Buffer
				for i := 0; i < 9; i++ {
					pipe.Write(testutil.EncodeCommand("GET", "v100k"))
				}
				c.WriteRaw(pipe.Bytes())
				for i := 0; i < 9; i++ {
					if r, err := c.ReadReply(); err != nil || len(r.Str) != len(value) {
						t.Fatalf("reply %d under the hard limit: %v", i, err)
					}
				}
				// Twenty do not: closed, and what it was sent is short of them.
				pipe.Reset()
				for i := 0; i < 20; i++ {
					pipe.Write(testutil.EncodeCommand("GET", "v100k"))
				}
				pipe.Write(testutil.EncodeCommand("SET", "after-cut", "1"))
				c.WriteRaw(pipe.Bytes())
				n, closed := readAll(c, 3*time.Second)
				if !closed || n >= 20*len(value) {
					t.Fatalf("past the hard limit: closed %v after %d bytes", closed, n)
				}
				t.Logf("%s: closed past the hard limit after sending %d bytes", inst.Name, n)
				mustDo(t, other, "PONG", "PING")
				mustDo(t, other, "(integer) 0", "EXISTS", "after-cut") // the rest of the pipeline was dropped
			})
		}
	})
	t.Run("soft", func(t *testing.T) {
		t.Parallel()
		for _, inst := range limitServers(t, func(c *config.Config) {
			c.Set("client-output-buffer-limit", []string{"normal", "0", "256kb", "1"})
		}, "client-output-buffer-limit", "normal 0 256kb 1") {
			t.Run(inst.Name, func(t *testing.T) {
				other := setup(t, inst)
				c := dial(t, inst)
				// An unread 16 MiB reply stays past the soft limit; Redis checks the limits
				// when it adds a reply, so a second command follows after the soft seconds.
				c.Send("GET", "huge")
				time.Sleep(2500 * time.Millisecond)
				c.Send("PING")
				n, closed := readAll(c, 3*time.Second)
				if !closed || n >= len(huge) {
					t.Fatalf("past the soft limit for 2.5 s: closed %v after %d bytes", closed, n)
				}
				mustDo(t, other, "PONG", "PING")
			})
		}
	})
	t.Run("soft while the write blocks", func(t *testing.T) {
		t.Parallel()
		// Strata's writer waits on the socket, so it closes the client when the soft seconds
		// are up even if nothing else happens (Redis would wait for the client's next reply).
		inst := testutil.StartStrata(t, func(c *config.Config) {
			c.Set("client-output-buffer-limit", []string{"normal", "0", "256kb", "1"})
		})
		setup(t, inst)
		c := dial(t, inst)
		start := time.Now()
		c.Send("GET", "huge")
		time.Sleep(2500 * time.Millisecond)
		n, closed := readAll(c, 3*time.Second)
		if !closed || n >= len(huge) {
			t.Fatalf("closed %v after %d bytes", closed, n)
		}
		t.Logf("closed after %v with %d bytes sent", time.Since(start).Round(time.Millisecond), n)
		// A slow reader under the soft limit is fine: 100 KiB read after 2 s.
		c = dial(t, inst)
		c.Send("GET", "v100k")
		time.Sleep(2 * time.Second)
		if r, err := c.ReadReply(); err != nil || len(r.Str) != len(value) {
			t.Fatalf("slow reader under the soft limit: %v", err)
		}
	})
	t.Run("default unlimited", func(t *testing.T) {
		t.Parallel()
		for _, inst := range limitServers(t, func(*config.Config) {}) {
			t.Run(inst.Name, func(t *testing.T) {
				setup(t, inst)
				c := dial(t, inst)
				var pipe bytes.Buffer
				for i := 0; i < 3; i++ {
					pipe.Write(testutil.EncodeCommand("GET", "huge"))
				}
				c.WriteRaw(pipe.Bytes())
				time.Sleep(1500 * time.Millisecond)
				for i := 0; i < 3; i++ {
					if r, err := c.ReadReply(); err != nil || len(r.Str) != len(huge) {
						t.Fatalf("reply %d: %v", i, err)
					}
				}
			})
		}
	})
}

// TestProtoMaxBulkLenAtRunTime: CONFIG SET proto-max-bulk-len applies to the next request of
// every client, the connection that set it and one already open, as in Redis.
func TestProtoMaxBulkLenAtRunTime(t *testing.T) {
	t.Parallel()
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			open := dial(t, inst)
			mustDo(t, open, "PONG", "PING")
			admin := dial(t, inst)
			mustDo(t, admin, "OK", "CONFIG", "SET", "proto-max-bulk-len", "1mb")
			t.Cleanup(func() {
				c := dial(t, inst)
				mustDo(t, c, "OK", "CONFIG", "SET", "proto-max-bulk-len", "512mb")
			})
			mustDo(t, admin, "1) \"proto-max-bulk-len\"\n2) \"1048576\"", "CONFIG", "GET", "proto-max-bulk-len")
			if err := open.WriteRaw([]byte("*2\r\n$3\r\nGET\r\n$1048577\r\n")); err != nil {
				t.Fatal(err)
			}
			r, err := open.ReadReply()
			if err != nil || r.String() != "(error) ERR Protocol error: invalid bulk length" {
				t.Fatalf("bulk past the new limit: %v %v", r, err)
			}
			mustDo(t, admin, "OK", "SET", "k", strings.Repeat("v", 1<<20))
		})
	}
}
