package tests

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/server"
)

// splitCase is a request sent in parts, with a pause between them so that the server reads
// each part on its own. Replies are compared with redis-server's when it is installed, with the
// fallback (what Redis 7.0 answers) otherwise.
type splitCase struct {
	name     string
	parts    []string
	sentinel bool // after the parts, an ECHO marks the end of the replies
	replies  int  // without a sentinel: the replies to read, if the server does not close first
	fallback []string
}

// runParts sends rc's parts to a fresh connection to inst and returns the rendered replies,
// ending with closedMark if the server closed the connection.
func runParts(t *testing.T, inst *testutil.Instance, rc splitCase, pause time.Duration) []string {
	t.Helper()
	c := dial(t, inst)
	for i, p := range rc.parts {
		if i > 0 {
			time.Sleep(pause)
		}
		if err := c.WriteRaw([]byte(p)); err != nil {
			t.Logf("%s: write: %v", inst.Name, err)
		}
	}
	if rc.sentinel {
		if err := c.WriteRaw(testutil.EncodeCommand("ECHO", sentinelValue)); err != nil {
			t.Logf("%s: write: %v", inst.Name, err)
		}
	}
	want := rc.replies
	if rc.sentinel {
		want = 0
	}
	return collectReplies(c, want)
}

// compareParts runs each case against redis (when installed) and Strata and checks that the
// bystander connection to Strata still answers afterwards.
func compareParts(t *testing.T, strata, redis *testutil.Instance, bystander *testutil.Conn, cases []splitCase, pause time.Duration) {
	t.Helper()
	for _, rc := range cases {
		t.Run(rc.name, func(t *testing.T) {
			want, source := rc.fallback, "fallback"
			if redis != nil {
				want, source = runParts(t, redis, rc, pause), "redis"
				if strings.Join(want, "\n") != strings.Join(rc.fallback, "\n") {
					t.Logf("note: redis-server answers %q, the fallback expectation is %q", want, rc.fallback)
				}
			}
			got := runParts(t, strata, rc, pause)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("sent %.80q\n  %s: %q\n  strata: %q", rc.parts, source, want, got)
			}
			mustDo(t, bystander, "PONG", "PING")
		})
	}
}

const errInvalidBulk = "(error) ERR Protocol error: invalid bulk length"

// TestSplitBulkHeader sends requests whose bulk-length header is refused (a negative length,
// one over proto-max-bulk-len, garbage) with the header line split across two reads: the
// server answers Redis's protocol error and closes that connection only.
func TestSplitBulkHeader(t *testing.T) {
	strata := testutil.StartStrata(t)
	redis := testutil.MaybeStartRedis(t)
	cases := []splitCase{
		{"null length", []string{"*2\r\n$3\r\nGET\r\n$-1", "\r\n"}, false, 0,
			[]string{errInvalidBulk, closedMark}},
		{"null length, split before LF", []string{"*2\r\n$3\r\nGET\r\n$-1\r", "\n"}, false, 0,
			[]string{errInvalidBulk, closedMark}},
		{"null length, split after dollar", []string{"*2\r\n$3\r\nGET\r\n$", "-1\r\n"}, false, 0,
			[]string{errInvalidBulk, closedMark}},
		{"negative length in three reads", []string{"*1\r\n$", "-", "5\r\n"}, false, 0,
			[]string{errInvalidBulk, closedMark}},
		{"over proto-max-bulk-len", []string{"*2\r\n$3\r\nGET\r\n$6000000", "00\r\n"}, false, 0,
			[]string{errInvalidBulk, closedMark}},
		{"garbage length", []string{"*2\r\n$3\r\nGET\r\n$1x", "\r\n"}, false, 0,
			[]string{errInvalidBulk, closedMark}},
		{"after a pipelined command", []string{"PING\r\n*1\r\n$-", "1\r\nPING\r\n"}, false, 0,
			[]string{"PONG", errInvalidBulk, closedMark}},
		{"valid length split", []string{"*2\r\n$4\r\nECHO\r\n$", "3\r\nabc\r\n"}, true, 0,
			[]string{`"abc"`}},
	}
	compareParts(t, strata, redis, dial(t, strata), cases, 300*time.Millisecond)
}

// TestSplitBulkHeaderUnauthenticated: before AUTH, while a password is required, a bulk
// length over 16 KiB is refused with Redis's unauthenticated-bulk-length error, and a header
// split across reads is still read correctly, whatever the length.
func TestSplitBulkHeaderUnauthenticated(t *testing.T) {
	strata := testutil.StartStrata(t, func(c *config.Config) { c.RequirePass = "secret" })
	redis := testutil.MaybeStartRedis(t)
	if redis != nil {
		mustDo(t, dial(t, redis), "OK", "CONFIG", "SET", "requirepass", "secret")
	}
	bystander := dial(t, strata)
	mustDo(t, bystander, "OK", "AUTH", "secret")
	cases := []splitCase{
		{"unauthenticated bulk length", []string{"*2\r\n$4\r\nAUTH\r\n$16385", "\r\n"}, false, 0,
			[]string{"(error) ERR Protocol error: unauthenticated bulk length", closedMark}},
		{"largest unauthenticated bulk length", []string{"*2\r\n$4\r\nECHO\r\n$16384", "\r\n" + strings.Repeat("e", 16384) + "\r\n"}, false, 1,
			[]string{"(error) NOAUTH Authentication required."}},
		{"null length", []string{"*2\r\n$4\r\nAUTH\r\n$-1", "\r\n"}, false, 0,
			[]string{errInvalidBulk, closedMark}},
		{"short password split", []string{"*2\r\n$4\r\nAUTH\r\n$5", "\r\nwrong\r\n"}, false, 1,
			[]string{"(error) WRONGPASS invalid username-password pair or user is disabled."}},
		{"right password split", []string{"*2\r\n$4\r\nAUTH\r\n$", "6\r\nsecret\r\n"}, true, 0,
			[]string{"OK"}},
		{"after AUTH in the same write", []string{"*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n*2\r\n$4\r\nECHO\r\n$20", "000\r\n" + strings.Repeat("e", 20000) + "\r\n"}, true, 0,
			[]string{"OK", `"` + strings.Repeat("e", 20000) + `"`}},
	}
	compareParts(t, strata, redis, bystander, cases, 300*time.Millisecond)
}

// padTo returns one ECHO request that takes exactly n bytes (n >= 20), and its reply.
func padTo(n int) (string, string) {
	for d := 1; d <= 7; d++ {
		l := n - 19 - d // *2\r\n$4\r\nECHO\r\n$<l>\r\n<l bytes>\r\n
		if l >= 0 && len(fmt.Sprint(l)) == d {
			v := strings.Repeat("p", l)
			return "*2\r\n$4\r\nECHO\r\n$" + fmt.Sprint(l) + "\r\n" + v + "\r\n", fmt.Sprintf("%q", v)
		}
	}
	panic(fmt.Sprintf("padTo(%d)", n))
}

// TestPipelineBulkHeaderAtReadBoundary writes, in one write, a pipeline in which a refused
// bulk-length header straddles a read-buffer boundary (4096, 16384, 65536 bytes): the
// requests before it are answered, then the protocol error, then the connection closes.
func TestPipelineBulkHeaderAtReadBoundary(t *testing.T) {
	strata := testutil.StartStrata(t)
	redis := testutil.MaybeStartRedis(t)
	var cases []splitCase
	for _, boundary := range []int{4096, 16384, 65536} {
		for start := boundary - 4; start <= boundary; start++ {
			// The header "$-1\r\n" starts at byte start, after "*2\r\n$3\r\nGET\r\n".
			pad, echoed := padTo(start - 13)
			if len(pad) != start-13 {
				t.Fatalf("padTo(%d) made %d bytes", start-13, len(pad))
			}
			cases = append(cases, splitCase{
				name:     fmt.Sprintf("header at %d", start),
				parts:    []string{pad + "*2\r\n$3\r\nGET\r\n$-1\r\n*1\r\n$4\r\nPING\r\n"},
				fallback: []string{echoed, errInvalidBulk, closedMark},
			})
		}
	}
	compareParts(t, strata, redis, dial(t, strata), cases, 0)
}

// TestPipelineAfterQuit: QUIT is answered +OK and nothing pipelined after it runs, whether it
// arrived in the same read or in later ones.
func TestPipelineAfterQuit(t *testing.T) {
	strata := testutil.StartStrata(t)
	redis := testutil.MaybeStartRedis(t)
	for _, inst := range []*testutil.Instance{strata, redis} {
		if inst == nil {
			continue
		}
		t.Run(inst.Name, func(t *testing.T) {
			for _, n := range []int{3, 1024, 100000} {
				key := fmt.Sprintf("quit:%d", n)
				rc := splitCase{parts: []string{string(testutil.EncodeCommand("SET", key, "bar")) +
					string(testutil.EncodeCommand("QUIT")) +
					string(testutil.EncodeCommand("SET", key, strings.Repeat("z", n))) +
					string(testutil.EncodeCommand("INCR", key+":n"))}}
				got := runParts(t, inst, rc, 0)
				if want := []string{"OK", "OK", closedMark}; strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("value of %d bytes after QUIT: got %q, want %q", n, got, want)
				}
				c := dial(t, inst)
				mustDo(t, c, `"bar"`, "GET", key)
				mustDo(t, c, "(nil)", "GET", key+":n")
			}
		})
	}
}

// TestBlockedClientHalfClose: a client blocked in BLPOP that shuts down its sending side is
// dropped, as Redis drops a client whose read sees EOF: nothing queued behind the BLPOP runs,
// no reply is sent, and the client leaves the blocked clients.
func TestBlockedClientHalfClose(t *testing.T) {
	strata := testutil.StartStrata(t)
	redis := testutil.MaybeStartRedis(t)
	for _, inst := range []*testutil.Instance{strata, redis} {
		if inst == nil {
			continue
		}
		t.Run(inst.Name, func(t *testing.T) {
			admin := dial(t, inst)
			for i, later := range []string{
				"",                    // only the BLPOP
				"SET hc:%d x\r\n",     // in the same write as the BLPOP
				"|SET hc:%d x\r\n",    // in a later write, once the BLPOP is blocked
				"|SET hc:%d x\r\nPIN", // a later write that ends inside a request
			} {
				c := dial(t, inst)
				first := "BLPOP hc:list 0\r\n"
				rest := ""
				if strings.HasPrefix(later, "|") {
					rest = fmt.Sprintf(later[1:], i)
				} else if later != "" {
					first += fmt.Sprintf(later, i) + "PING\r\n"
				}
				if err := c.WriteRaw([]byte(first)); err != nil {
					t.Fatal(err)
				}
				waitBlocked(t, admin, 1)
				if rest != "" {
					if err := c.WriteRaw([]byte(rest)); err != nil {
						t.Fatal(err)
					}
					time.Sleep(50 * time.Millisecond)
				}
				if err := c.NetConn().(*net.TCPConn).CloseWrite(); err != nil {
					t.Fatal(err)
				}
				if closed, extra := c.ExpectClosed(5 * time.Second); !closed || len(extra) > 0 {
					t.Fatalf("case %d: closed %v, received %q; want the connection closed without a reply", i, closed, extra)
				}
				waitBlocked(t, admin, 0)
				mustDo(t, admin, "(nil)", "GET", fmt.Sprintf("hc:%d", i))
				// A push now finds no waiter: the list keeps the value.
				mustDo(t, admin, "(integer) 1", "RPUSH", "hc:list", "v")
				mustDo(t, admin, "(integer) 1", "DEL", "hc:list")
			}
		})
	}
}

// waitBlocked waits until INFO reports n blocked clients.
func waitBlocked(t *testing.T, admin *testutil.Conn, n int) {
	t.Helper()
	want := fmt.Sprintf("blocked_clients:%d\r\n", n)
	for deadline := time.Now().Add(5 * time.Second); ; {
		r, err := admin.Do("INFO", "clients")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.Str, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("INFO clients never showed %q: %s", strings.TrimSpace(want), r.Str)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// canListen reports whether this machine can listen on host.
func canListen(host string) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// TestBindSeveralAddresses: with several bind addresses the server listens on every one, on
// the same port (with port 0, the one the first address got); an optional address ("-" prefix)
// the machine lacks is left out, a required one fails the start; the TLS port is opened on
// every address too.
func TestBindSeveralAddresses(t *testing.T) {
	want := []string{"127.0.0.1"}
	for _, h := range []string{"127.0.0.2", "::1"} {
		if canListen(h) {
			want = append(want, h)
		}
	}
	if len(want) == 1 {
		// CI (STRATA_REQUIRE_EXTERNAL=1) has both loopback addresses: fail there.
		if os.Getenv(testutil.EnvRequireExternal) == "1" {
			t.Fatal("neither 127.0.0.2 nor ::1 can be listened on here")
		}
		t.Skip("neither 127.0.0.2 nor ::1 can be listened on here")
	}
	f := tlsCerts(t)
	port := tlsFreePort(t)
	inst := testutil.StartStrata(t, func(c *config.Config) {
		c.Bind = append(append([]string{}, want...), "-192.0.2.1") // TEST-NET-1: not on this machine
		c.TLSPort, c.TLSCertFile, c.TLSKeyFile, c.TLSCACertFile = port, f.serverCert, f.serverKey, f.ca
	})
	addrs := inst.Server.Addrs()
	if len(addrs) != len(want) {
		t.Fatalf("listening on %q, want one address for each of %q", addrs, want)
	}
	_, first, _ := net.SplitHostPort(addrs[0])
	for i, a := range addrs {
		host, p, _ := net.SplitHostPort(a)
		if host != want[i] || p != first || p == "0" {
			t.Fatalf("listening on %q, want %q each on the same port", addrs, want)
		}
		c := dial(t, &testutil.Instance{Name: "strata", Addr: a})
		mustDo(t, c, "(integer) "+fmt.Sprint(i+1), "INCR", "bind:n")
		tc, err := tls.Dial("tcp", net.JoinHostPort(host, fmt.Sprint(port)), f.clientConfig(&f.client))
		if err != nil {
			t.Fatalf("TLS on %s: %v", host, err)
		}
		if got := tlsDo(t, tc, bufio.NewReader(tc), "GET bind:n"); got != "$1" {
			t.Fatalf("TLS on %s: GET answered %q", host, got)
		}
		tc.Close()
	}

	cfg := config.Default()
	cfg.Bind, cfg.Port, cfg.Dir, cfg.MetricsAddr = []string{"127.0.0.1", "192.0.2.1"}, 0, t.TempDir(), ""
	srv, err := server.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err == nil || !strings.Contains(err.Error(), "192.0.2.1") {
		srv.Close()
		t.Fatalf("a required bind address that is not on the machine: Start answered %v", err)
	}
}
