package tests

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// servers returns the servers a protocol test runs against: Strata, and a
// reference redis-server when one is installed (so that the test's own
// expectations are checked against real Redis too).
func servers(t *testing.T) []*testutil.Instance {
	t.Helper()
	list := []*testutil.Instance{testutil.StartStrata(t)}
	if r := testutil.MaybeStartRedis(t); r != nil {
		list = append(list, r)
	}
	return list
}

func dial(t *testing.T, inst *testutil.Instance) *testutil.Conn {
	t.Helper()
	c := testutil.Connect(t, inst.Addr)
	c.Timeout = 5 * time.Second
	return c
}

func mustDo(t *testing.T, c *testutil.Conn, want string, args ...string) {
	t.Helper()
	r, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	if got := r.String(); got != want {
		t.Fatalf("%s: got %s, want %s", strings.Join(args, " "), got, want)
	}
}

// TestPipelining sends 100 SETs and 100 GETs in a single write and expects
// all 200 replies, in order.
func TestPipelining(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			c := dial(t, inst)
			var buf bytes.Buffer
			for i := 0; i < 100; i++ {
				buf.Write(testutil.EncodeCommand("SET", fmt.Sprintf("pipe:%d", i), fmt.Sprintf("value-%d", i)))
			}
			for i := 0; i < 100; i++ {
				buf.Write(testutil.EncodeCommand("GET", fmt.Sprintf("pipe:%d", i)))
			}
			if err := c.WriteRaw(buf.Bytes()); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 200; i++ {
				r, err := c.ReadReply()
				if err != nil {
					t.Fatalf("reply %d: %v", i, err)
				}
				want := "OK"
				if i >= 100 {
					want = fmt.Sprintf("%q", fmt.Sprintf("value-%d", i-100))
				}
				if r.String() != want {
					t.Fatalf("reply %d: got %s, want %s", i, r, want)
				}
			}
			// Interleaved SET/GET pairs and mixed inline/multibulk in one write.
			buf.Reset()
			for i := 0; i < 50; i++ {
				buf.Write(testutil.EncodeCommand("SET", "pipe:x", fmt.Sprint(i)))
				fmt.Fprintf(&buf, "GET pipe:x\r\n")
			}
			if err := c.WriteRaw(buf.Bytes()); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 50; i++ {
				for j, want := range []string{"OK", fmt.Sprintf("%q", fmt.Sprint(i))} {
					r, err := c.ReadReply()
					if err != nil {
						t.Fatalf("pair %d/%d: %v", i, j, err)
					}
					if r.String() != want {
						t.Fatalf("pair %d/%d: got %s, want %s", i, j, r, want)
					}
				}
			}
		})
	}
}

// TestFragmentedCommand sends commands one byte per write: the server
// must reassemble them.
func TestFragmentedCommand(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			c := dial(t, inst)
			payload := append(testutil.EncodeCommand("SET", "frag", "hello world"), "GET frag\r\n"...)
			for i := range payload {
				if err := c.WriteRaw(payload[i : i+1]); err != nil {
					t.Fatal(err)
				}
				if i%7 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
			for _, want := range []string{"OK", `"hello world"`} {
				r, err := c.ReadReply()
				if err != nil {
					t.Fatal(err)
				}
				if r.String() != want {
					t.Fatalf("got %s, want %s", r, want)
				}
			}
		})
	}
}

// TestLargeValue round-trips a 4 MiB value, larger than any read buffer.
func TestLargeValue(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			c := dial(t, inst)
			val := strings.Repeat("0123456789abcdef", 4<<20/16)
			mustDo(t, c, "OK", "SET", "large", val)
			r, err := c.Do("GET", "large")
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != testutil.KindBulk || r.Str != val {
				t.Fatalf("GET large: kind %v, len %d, want bulk of %d", r.Kind, len(r.Str), len(val))
			}
			mustDo(t, c, fmt.Sprintf("(integer) %d", len(val)), "STRLEN", "large")
		})
	}
}

// TestUnknownCommandKeepsConnection: a command error is an ordinary reply,
// the connection stays usable.
func TestUnknownCommandKeepsConnection(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			c := dial(t, inst)
			r, err := c.Do("NOSUCHCOMMAND", "x")
			if err != nil || !r.IsError() {
				t.Fatalf("NOSUCHCOMMAND: %v %v", r, err)
			}
			mustDo(t, c, "PONG", "PING")
		})
	}
}

// rawCase is raw bytes written to a fresh connection. The replies, and
// whether the server then closes the connection, are compared with
// redis-server's when it is installed, and with the fallback (what Redis
// 7.0 answers) otherwise.
type rawCase struct {
	name string
	send string
	// sentinel: after send, write an ECHO whose reply marks the end of the
	// case's replies. Cases that must make the server close the connection
	// without it having seen a line end set this false.
	sentinel bool
	fallback []string // renderings; "(connection closed)" last if it closes
}

const closedMark = "(connection closed)"
const sentinelValue = "end-of-case-7f3a"

var rawCases = []rawCase{
	// Inline commands.
	{"inline ping", "PING\r\n", true, []string{"PONG"}},
	{"inline set get", "SET inl b\r\nGET inl\r\n", true, []string{"OK", `"b"`}},
	{"inline lf only", "PING\n", true, []string{"PONG"}},
	{"inline extra spaces", "  ECHO   x  \r\n", true, []string{`"x"`}},
	{"inline empty lines", "\r\n\r\n\nPING\r\n", true, []string{"PONG"}},
	{"inline quotes", "SET inlq \"hello world\"\r\nGET inlq\r\nECHO 'single q'\r\n", true,
		[]string{"OK", `"hello world"`, `"single q"`}},
	{"inline escapes", "ECHO \"a\\x41\\n\\t\"\r\n", true, []string{`"aA\n\t"`}},
	{"inline unknown", "NOSUCH a b\r\n", true, []string{`(error) ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' `}},
	// Multibulk edge cases that are not errors.
	{"empty and null multibulk", "*0\r\n*-1\r\nPING\r\n", true, []string{"PONG"}},
	{"empty bulk arg", "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", true, []string{`""`}},
	{"empty command name", "*1\r\n$0\r\n\r\n", true, []string{`(error) ERR unknown command '', with args beginning with: `}},
	{"two commands one write", "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n", true, []string{"PONG", `"hi"`}},
	{"binary arg", "*2\r\n$4\r\nECHO\r\n$4\r\n\r\n\x00\xff\r\n", true, []string{`"\r\n\x00\xff"`}},
	// Protocol errors: an error reply, then the server closes the connection
	// and ignores what follows.
	{"garbage multibulk length", "*abc\r\n", true,
		[]string{"(error) ERR Protocol error: invalid multibulk length", closedMark}},
	{"multibulk length too large", "*3000000000\r\n", true,
		[]string{"(error) ERR Protocol error: invalid multibulk length", closedMark}},
	{"multibulk length with plus", "*+1\r\n$4\r\nPING\r\n", true,
		[]string{"(error) ERR Protocol error: invalid multibulk length", closedMark}},
	{"bulk length over limit", "*1\r\n$9999999999\r\n", true,
		[]string{"(error) ERR Protocol error: invalid bulk length", closedMark}},
	{"bulk length garbage", "*1\r\n$abc\r\n", true,
		[]string{"(error) ERR Protocol error: invalid bulk length", closedMark}},
	{"bulk length negative", "*1\r\n$-5\r\n", true,
		[]string{"(error) ERR Protocol error: invalid bulk length", closedMark}},
	{"bulk length null", "*1\r\n$-1\r\n", true,
		[]string{"(error) ERR Protocol error: invalid bulk length", closedMark}},
	{"expected dollar", "*1\r\n:5\r\n", true,
		[]string{"(error) ERR Protocol error: expected '$', got ':'", closedMark}},
	{"nested array", "*1\r\n*1\r\n", true,
		[]string{"(error) ERR Protocol error: expected '$', got '*'", closedMark}},
	{"unbalanced double quote", "SET \"a b\r\n", true,
		[]string{"(error) ERR Protocol error: unbalanced quotes in request", closedMark}},
	{"unbalanced single quote", "SET 'a\r\n", true,
		[]string{"(error) ERR Protocol error: unbalanced quotes in request", closedMark}},
	{"pipelined before error", "PING\r\n*abc\r\nPING\r\n", true,
		[]string{"PONG", "(error) ERR Protocol error: invalid multibulk length", closedMark}},
	{"too big inline request", strings.Repeat("a", 100000), false,
		[]string{"(error) ERR Protocol error: too big inline request", closedMark}},
	{"too big multibulk count", "*" + strings.Repeat("1", 100000), false,
		[]string{"(error) ERR Protocol error: too big mbulk count string", closedMark}},
	{"too big bulk count", "*1\r\n$" + strings.Repeat("1", 100000), false,
		[]string{"(error) ERR Protocol error: too big bulk count string", closedMark}},
}

// runRaw runs one raw case on a fresh connection and returns the rendered
// replies, ending with closedMark if the server closed the connection.
func runRaw(t *testing.T, inst *testutil.Instance, rc rawCase) []string {
	t.Helper()
	c := dial(t, inst)
	payload := rc.send
	if rc.sentinel {
		payload += string(testutil.EncodeCommand("ECHO", sentinelValue))
	}
	if err := c.WriteRaw([]byte(payload)); err != nil {
		// The server may close while we are still writing a large payload.
		t.Logf("%s: write: %v", inst.Name, err)
	}
	return collectReplies(c, 0)
}

// collectReplies reads c's replies for up to 10 s and returns them rendered: up to the sentinel
// ECHO's reply, or (want > 0) the first want replies, ending with closedMark if the server
// closed the connection first.
func collectReplies(c *testutil.Conn, want int) []string {
	var out []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		r, err := c.ReadReply()
		if err != nil {
			if closed, extra := c.ExpectClosed(time.Second); closed || isEOF(err) {
				if len(extra) > 0 {
					out = append(out, fmt.Sprintf("(unparsed %q)", extra))
				}
				return append(out, closedMark)
			}
			return append(out, fmt.Sprintf("(read error: %v)", err))
		}
		if r.Kind == testutil.KindBulk && r.Str == sentinelValue {
			return out
		}
		out = append(out, r.String())
		if want > 0 && len(out) == want {
			return out
		}
	}
	return append(out, "(timeout)")
}

func isEOF(err error) bool {
	s := err.Error()
	return strings.Contains(s, "EOF") || strings.Contains(s, "connection reset") || strings.Contains(s, "broken pipe")
}

func TestRawProtocol(t *testing.T) {
	strata := testutil.StartStrata(t)
	redis := testutil.MaybeStartRedis(t)
	bystanderS := dial(t, strata)
	for _, rc := range rawCases {
		t.Run(rc.name, func(t *testing.T) {
			want, source := rc.fallback, "fallback"
			if redis != nil {
				want, source = runRaw(t, redis, rc), "redis"
				if strings.Join(want, "\n") != strings.Join(rc.fallback, "\n") {
					t.Logf("note: redis-server answers %q, the fallback expectation is %q", want, rc.fallback)
				}
			}
			got := runRaw(t, strata, rc)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("sent %.80q\n  %s: %q\n  strata: %q", rc.send, source, want, got)
			}
			// Another client is unaffected.
			mustDo(t, bystanderS, "PONG", "PING")
		})
	}
}

// TestClientDisconnectMidCommand: clients that vanish in the middle of a
// command leave the server and the other clients unharmed, and the partial
// command is not executed.
func TestClientDisconnectMidCommand(t *testing.T) {
	partials := []string{
		"*2\r\n$3\r\nGET\r\n",
		"*2\r\n$3\r\nGE",
		"*3\r\n$3\r\nSET\r\n$7\r\npartial\r\n$100\r\nabc",
		"*3\r\n$3\r\nSET\r\n$7\r\npartial\r\n$1\r\nx",
		"*3\r\n$3\r\nSET\r\n$7\r\npartial\r\n$1\r\nx\r",
		"*3\r\n",
		"*",
		"SET partial x",
		"SET partial x\r",
	}
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			other := dial(t, inst)
			mustDo(t, other, "OK", "SET", "bystander", "1")
			for round := 0; round < 3; round++ {
				for _, p := range partials {
					c, err := testutil.Dial(inst.Addr)
					if err != nil {
						t.Fatal(err)
					}
					if err := c.WriteRaw([]byte(p)); err != nil {
						t.Fatal(err)
					}
					if round == 1 {
						time.Sleep(5 * time.Millisecond) // let the server read it first
					}
					c.Close()
				}
			}
			time.Sleep(50 * time.Millisecond)
			mustDo(t, other, "(integer) 2", "INCR", "bystander")
			mustDo(t, other, "(nil)", "GET", "partial")
			fresh := dial(t, inst)
			mustDo(t, fresh, "PONG", "PING")
			mustDo(t, fresh, `"2"`, "GET", "bystander")
		})
	}
}
