package tests

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// trkSession drives named connections to one server through a CLIENT TRACKING scenario and
// records, rendered, every reply and every invalidation (RESP3 push or RESP2 pub/sub message)
// each connection receives, so that the records of Strata and redis-server can be compared.
type trkSession struct {
	t     *testing.T
	inst  *testutil.Instance
	conns map[string]*testutil.Conn
	ids   map[string]int64
	out   []string
}

func (s *trkSession) log(format string, args ...any) {
	s.out = append(s.out, fmt.Sprintf(format, args...))
}

// conn returns connection name, dialling it (and learning its client ID) on first use.
func (s *trkSession) conn(name string) *testutil.Conn {
	s.t.Helper()
	if c := s.conns[name]; c != nil {
		return c
	}
	c := dial(s.t, s.inst)
	r, err := c.Do("CLIENT", "ID")
	if err != nil || r.Kind != testutil.KindInteger {
		s.t.Fatalf("%s: CLIENT ID on %s: %v %v", s.inst.Name, name, r, err)
	}
	s.conns[name] = c
	s.ids[name] = r.Int
	return c
}

// trkIsPush reports an invalidation: a RESP3 push, or a RESP2 pub/sub message.
func trkIsPush(r testutil.Reply) bool {
	return r.Kind == testutil.KindPush ||
		r.Kind == testutil.KindArray && len(r.Elems) == 3 && r.Elems[0].Str == "message"
}

var trkNewlines = regexp.MustCompile(`\n\s*`)

// render renders a reply on one line, with the client IDs it holds replaced by "@name".
func (s *trkSession) render(r testutil.Reply, ids bool) string {
	out := trkNewlines.ReplaceAllString(r.String(), " | ")
	if ids {
		for name, id := range s.ids {
			out = regexp.MustCompile(`\(integer\) `+strconv.FormatInt(id, 10)+`\b`).ReplaceAllString(out, "(integer) @"+name)
		}
	}
	return out
}

// args replaces "@name" arguments by the client ID of connection name.
func (s *trkSession) args(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if name, ok := strings.CutPrefix(a, "@"); ok {
			s.conn(name)
			a = strconv.FormatInt(s.ids[name], 10)
		}
		out[i] = a
	}
	return out
}

// read reads replies on name up to one that is not an invalidation; the invalidations before it
// are recorded as "name: got ...".
func (s *trkSession) read(name string, what string) testutil.Reply {
	s.t.Helper()
	c := s.conn(name)
	for {
		r, err := c.ReadReply()
		if err != nil {
			s.t.Fatalf("%s: %s: %s: %v\nrecord so far:\n%s", s.inst.Name, name, what, err, strings.Join(s.out, "\n"))
		}
		if !trkIsPush(r) {
			return r
		}
		s.log("%s: got %s", name, s.render(r, strings.Contains(r.String(), "tracking-redir-broken")))
	}
}

// do runs a command on connection name and records its reply (and any invalidation that
// arrives before the reply).
func (s *trkSession) do(name string, args ...string) testutil.Reply {
	s.t.Helper()
	if err := s.conn(name).Send(s.args(args)...); err != nil {
		s.t.Fatalf("%s: %s %v: %v", s.inst.Name, name, args, err)
	}
	r := s.read(name, strings.Join(args, " "))
	line := strings.Join(args, " ")
	ids := false
	if len(args) >= 2 && strings.EqualFold(args[0], "client") {
		switch strings.ToLower(args[1]) {
		case "getredir", "trackinginfo", "id":
			ids = true
		case "list", "info":
			// Only the fields tracking sets; the rest differs between the servers.
			var f []string
			for _, m := range regexp.MustCompile(`(flags|redir)=(\S*)`).FindAllStringSubmatch(r.Str, -1) {
				v := m[2]
				for n, id := range s.ids {
					if v == strconv.FormatInt(id, 10) && m[1] == "redir" {
						v = "@" + n
					}
				}
				f = append(f, m[1]+"="+v)
			}
			s.log("%s: %s -> %s", name, line, strings.Join(f, " "))
			return r
		}
	}
	s.log("%s: %s -> %s", name, line, s.render(r, ids))
	return r
}

// quiet runs a command on name without recording its reply (HELLO's names the client ID).
func (s *trkSession) quiet(name string, args ...string) {
	s.t.Helper()
	if err := s.conn(name).Send(s.args(args)...); err != nil {
		s.t.Fatalf("%s: %s %v: %v", s.inst.Name, name, args, err)
	}
	r := s.read(name, strings.Join(args, " "))
	if r.IsError() {
		s.t.Fatalf("%s: %s %v: %s", s.inst.Name, name, args, r)
	}
	s.log("%s: %s", name, strings.Join(args, " "))
}

// drain records the invalidations name has received: it sends a CLIENT GETNAME (which leaves
// CLIENT CACHING's flag alone) and reads up to its reply. Writers' invalidations are queued
// before the writer gets its reply, so everything sent so far is there.
func (s *trkSession) drain(name string) {
	s.t.Helper()
	if err := s.conn(name).Send("CLIENT", "GETNAME"); err != nil {
		s.t.Fatal(err)
	}
	s.read(name, "drain")
}

// wait records the next invalidation name receives without sending anything.
func (s *trkSession) wait(name string, d time.Duration) {
	s.t.Helper()
	c := s.conn(name)
	old := c.Timeout
	c.Timeout = d
	defer func() { c.Timeout = old }()
	r, err := c.ReadReply()
	if err != nil {
		s.log("%s: waited, got nothing (%v)", name, err != nil)
		return
	}
	s.log("%s: got %s", name, s.render(r, strings.Contains(r.String(), "tracking-redir-broken")))
}

// close closes connection name.
func (s *trkSession) close(name string) {
	s.conn(name).Close()
	s.log("%s: closed", name)
}

// trkCompare runs scenario on Strata and, when installed, redis-server, and compares the records.
func trkCompare(t *testing.T, scenario func(s *trkSession)) {
	t.Helper()
	run := func(inst *testutil.Instance) []string {
		s := &trkSession{t: t, inst: inst, conns: map[string]*testutil.Conn{}, ids: map[string]int64{}}
		scenario(s)
		for _, c := range s.conns {
			c.Close()
		}
		return s.out
	}
	got := run(testutil.StartStrata(t))
	ref := testutil.MaybeStartRedis(t)
	if ref == nil {
		t.Logf("no redis-server; strata's record:\n%s", strings.Join(got, "\n"))
		return
	}
	want := run(ref)
	if testing.Verbose() {
		t.Logf("redis-server:\n%s", strings.Join(want, "\n"))
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("record line %d differs:\n redis:  %s\n strata: %s\n\nredis:\n%s\n\nstrata:\n%s",
				i, want[i], at(got, i), strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("strata recorded %d lines, redis %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}

func TestTrackingDefaultMode(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.do("a", "GET", "k")
		s.do("b", "SET", "k", "1")
		s.drain("a")
		s.do("b", "SET", "k", "2") // forgotten until read again
		s.drain("a")
		s.do("a", "GET", "k")
		s.do("a", "SET", "k", "3") // the client's own write: the push follows the reply
		s.drain("a")
		s.do("a", "MGET", "k", "j")
		s.do("b", "MSET", "k", "1", "j", "2")
		s.drain("a")
		s.do("a", "GET", "zz")
		s.do("b", "DEL", "zz", "k") // zz does not exist: not changed, not invalidated
		s.drain("a")

		// The keys of read-only commands of every type, errors included.
		s.do("b", "HSET", "h", "f", "v")
		s.do("b", "RPUSH", "l", "x")
		s.do("b", "SADD", "st", "m")
		s.do("b", "ZADD", "z", "1", "m")
		s.do("b", "SET", "ttl", "1", "EX", "100")
		for _, cmd := range [][]string{{"HGET", "h", "f"}, {"LRANGE", "l", "0", "-1"}, {"SMEMBERS", "st"},
			{"ZRANGE", "z", "0", "-1"}, {"EXISTS", "e1", "e2"}, {"TYPE", "t1"}, {"STRLEN", "h"},
			{"TTL", "ttl"}, {"DBSIZE"}, {"HLEN", "h2"}} {
			s.do("a", cmd...)
		}
		s.do("b", "HSET", "h", "f", "w")
		s.do("b", "LPUSH", "l", "y")
		s.do("b", "SREM", "st", "m")
		s.do("b", "ZINCRBY", "z", "1", "m")
		s.do("b", "SET", "e2", "1")
		s.do("b", "SET", "t1", "x")
		s.do("b", "PERSIST", "ttl")
		s.do("b", "HSET", "h2", "a", "b")
		s.drain("a")

		// Key names, not databases, are tracked.
		s.do("a", "GET", "k")
		s.do("b", "SELECT", "1")
		s.do("b", "SET", "k", "x")
		s.drain("a")
		s.do("b", "SELECT", "0")

		// MULTI/EXEC: reads inside are remembered, own writes follow the EXEC reply.
		s.do("a", "GET", "m1")
		s.do("a", "MULTI")
		s.do("a", "SET", "m1", "1")
		s.do("a", "GET", "m2")
		s.do("a", "EXEC")
		s.drain("a")
		s.do("b", "SET", "m2", "1")
		s.drain("a")

		// Scripts: the commands they read through are remembered, not EVAL_RO's keys; their
		// writes invalidate.
		s.do("a", "EVAL", "return redis.call('get',KEYS[1])", "1", "e1")
		s.do("a", "EVAL_RO", "return 1", "1", "e3")
		s.do("b", "SET", "e1", "1")
		s.do("b", "SET", "e3", "1")
		s.drain("a")
		s.do("a", "GET", "sw")
		s.do("b", "EVAL", "return redis.call('set',KEYS[1],'v')", "1", "sw")
		s.drain("a")

		// A pop empties and deletes the list.
		s.do("b", "RPUSH", "bl", "1")
		s.do("a", "LRANGE", "bl", "0", "-1")
		s.do("b", "LPOP", "bl")
		s.drain("a")

		// Off: nothing is sent; on again: keys read before are still remembered.
		s.do("a", "GET", "o1")
		s.do("a", "CLIENT", "TRACKING", "OFF")
		s.do("b", "SET", "o1", "1")
		s.drain("a")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.do("a", "GET", "o2")
		s.do("a", "CLIENT", "TRACKING", "OFF")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.do("b", "SET", "o2", "1")
		s.drain("a")
	})
}

func TestTrackingNoLoop(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON", "NOLOOP")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "GET", "k")
		s.do("a", "SET", "k", "x")
		s.do("a", "GET", "k")
		s.drain("a")
		s.do("b", "SET", "k", "y")
		s.drain("a")
		s.do("a", "MGET", "k", "j")
		s.do("a", "MULTI")
		s.do("a", "SET", "k", "1")
		s.do("a", "EXEC")
		s.do("b", "SET", "j", "1")
		s.drain("a")
	})
}

func TestTrackingOptInOptOut(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON", "OPTIN")
		s.do("a", "GET", "k1")
		s.do("a", "CLIENT", "CACHING", "YES")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "GET", "k2")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "CLIENT", "CACHING", "YES")
		s.do("a", "CLIENT", "ID") // CLIENT commands keep the flag
		s.do("a", "GET", "k3")
		s.do("a", "CLIENT", "CACHING", "YES")
		s.do("a", "PING") // others end it
		s.do("a", "GET", "k4")
		s.do("a", "CLIENT", "CACHING", "YES")
		s.do("a", "MULTI")
		s.do("a", "GET", "k5")
		s.do("a", "GET", "k6")
		s.do("a", "EXEC")
		s.do("a", "GET", "k7")
		s.do("a", "MULTI")
		s.do("a", "CLIENT", "CACHING", "YES")
		s.do("a", "GET", "k8")
		s.do("a", "EXEC")
		s.do("a", "CLIENT", "CACHING", "YES")
		s.do("a", "MGET", "k9", "k10")
		s.do("a", "CLIENT", "CACHING", "NO")
		s.do("b", "MSET", "k1", "v", "k2", "v", "k3", "v", "k4", "v", "k5", "v", "k6", "v", "k7", "v",
			"k8", "v", "k9", "v", "k10", "v")
		s.drain("a")
		s.do("a", "CLIENT", "TRACKING", "ON", "OPTOUT")
		s.do("a", "CLIENT", "TRACKING", "OFF")

		s.do("a", "CLIENT", "TRACKING", "ON", "OPTOUT")
		s.do("a", "GET", "k1")
		s.do("a", "CLIENT", "CACHING", "NO")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "GET", "k2")
		s.do("a", "GET", "k3")
		s.do("a", "CLIENT", "CACHING", "NO")
		s.do("a", "GET", "k4")
		s.do("a", "GET", "k5")
		s.do("a", "CLIENT", "CACHING", "YES")
		s.do("b", "MSET", "k1", "w", "k2", "w", "k3", "w", "k4", "w", "k5", "w")
		s.drain("a")
	})
}

func TestTrackingBcast(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a", "PREFIX", "b")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "CLIENT", "LIST", "ID", "@a")
		s.do("b", "SET", "a1", "1")
		s.drain("a")
		s.do("a", "GET", "c1") // BCAST remembers no reads
		s.do("b", "SET", "c1", "1")
		s.drain("a")
		s.do("b", "MSET", "b2", "1", "a2", "2", "b1", "3", "c", "4", "a2", "5")
		s.drain("a")
		s.do("b", "DEL", "a1", "a9")
		s.drain("a")
		s.do("a", "SET", "a5", "1")
		s.drain("a")
		s.do("a", "MULTI")
		s.do("a", "SET", "a1", "x")
		s.do("a", "SET", "b1", "x")
		s.do("a", "EXEC")
		s.drain("a")
		s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "c")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("b", "SET", "cc", "1")
		s.drain("a")
		s.do("a", "CLIENT", "TRACKING", "OFF")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP")
		s.do("a", "SET", "a5", "1")
		s.do("b", "SET", "zz", "1")
		s.drain("a")
		s.do("a", "MSET", "q1", "1", "q2", "2")
		s.do("b", "MSET", "q2", "1", "q1", "2")
		s.drain("a")
		s.quiet("c", "HELLO", "3")
		s.do("c", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "q")
		s.do("a", "FLUSHALL")
		s.drain("a")
		s.drain("c")
	})
}

func TestTrackingRedirectRESP2(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.do("r", "SUBSCRIBE", "__redis__:invalidate")
		s.do("a", "CLIENT", "TRACKING", "ON", "REDIRECT", "@r")
		s.do("a", "CLIENT", "GETREDIR")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "CLIENT", "LIST", "ID", "@a")
		s.do("a", "GET", "k")
		s.do("b", "SET", "k", "1")
		s.drain("r")
		s.do("a", "MGET", "k", "j")
		s.do("a", "MSET", "k", "2", "j", "2") // no NOLOOP: the client's own writes too
		s.drain("r")
		s.do("a", "FLUSHALL")
		s.drain("r")
		s.quiet("a", "HELLO", "3") // the null of a flush follows the tracking client's protocol
		s.do("b", "FLUSHDB")
		s.drain("r")
		s.quiet("a", "HELLO", "2")
		s.drain("a")

		// Any subscription puts the client in pub/sub mode, which is what Redis 7.0 checks.
		s.do("r", "UNSUBSCRIBE")
		s.do("a", "GET", "k")
		s.do("b", "SET", "k", "1")
		s.drain("r")
		s.do("r", "SUBSCRIBE", "other")
		s.do("a", "GET", "k")
		s.do("b", "SET", "k", "2")
		s.drain("r")

		// A RESP3 redirect client gets the push; it may be idle, not reading any command.
		s.do("a", "CLIENT", "TRACKING", "ON", "REDIRECT", "@p")
		s.quiet("p", "HELLO", "3")
		s.do("a", "GET", "k")
		s.do("b", "SET", "k", "3")
		s.wait("p", 5*time.Second)
		s.do("a", "MGET", "k", "j")
		s.do("b", "MSET", "k", "4", "j", "4")
		s.wait("p", 5*time.Second)
		s.wait("p", 5*time.Second)
		s.drain("p")

		// A RESP2 client without REDIRECT gets nothing.
		s.do("c", "CLIENT", "TRACKING", "ON")
		s.do("c", "GET", "k")
		s.do("b", "SET", "k", "5")
		s.drain("c")
	})
}

func TestTrackingBrokenRedirect(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.quiet("a", "HELLO", "3")
		s.conn("r")
		s.do("a", "CLIENT", "TRACKING", "ON", "REDIRECT", "@r")
		s.do("a", "GET", "k")
		s.do("a", "CLIENT", "LIST", "ID", "@a")
		s.close("r")
		time.Sleep(100 * time.Millisecond)
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("b", "SET", "k", "1")
		s.drain("a")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "CLIENT", "GETREDIR")
		s.do("a", "CLIENT", "INFO")
		s.do("b", "SET", "k", "1")
		s.drain("a")
		s.do("a", "GET", "k")
		s.do("b", "SET", "k", "1")
		s.drain("a")
		s.do("a", "FLUSHALL")
		s.drain("a")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "CLIENT", "INFO")
		s.do("a", "RESET")
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKINGINFO")
		s.do("a", "CLIENT", "GETREDIR")
	})
}

func TestTrackingFlush(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.quiet("a", "HELLO", "3")
		s.quiet("c", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.do("c", "CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP")
		s.do("a", "GET", "k")
		s.do("b", "SELECT", "3")
		s.do("b", "FLUSHDB")
		s.drain("a")
		s.drain("c")
		s.do("b", "SET", "k", "1") // every key was forgotten
		s.drain("a")
		s.drain("c")
		s.do("a", "GET", "k")
		s.do("c", "FLUSHALL") // NOLOOP does not hold back a flush
		s.drain("a")
		s.drain("c")
		s.do("a", "FLUSHALL")
		s.drain("a")
		s.drain("c")
		s.do("b", "SWAPDB", "0", "1") // not an invalidation in Redis 7.0
		s.drain("a")
	})
}

func TestTrackingErrors(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		for _, proto := range []string{"2", "3"} {
			s.quiet("a", "HELLO", proto)
			for _, args := range [][]string{{"ON", "FOO"}, {"ON", "REDIRECT"}, {"ON", "REDIRECT", "abc"},
				{"ON", "REDIRECT", "0"}, {"ON", "REDIRECT", "999999"}, {"ON", "PREFIX", "a"},
				{"ON", "OPTIN", "OPTOUT"}, {"ON", "BCAST", "OPTIN"}, {"ON", "BCAST", "OPTOUT", "OPTIN"},
				{"ON", "BCAST", "PREFIX", "a", "PREFIX", "ab"}, {"ON", "BCAST", "PREFIX", "x", "PREFIX", "x"},
				{"ON", "BCAST", "PREFIX", "", "PREFIX", "x"}, {"MAYBE"}, {"OFF", "FOO"}, {"OFF", "BCAST"},
				{"OFF", "PREFIX", "x"}, {"ON", "PREFIX"}, {"ON", "REDIRECT", "@b", "REDIRECT", "@b"},
				{"ON", "PREFIX", "a", "REDIRECT", "999999"}, {"ON", "REDIRECT", "999999", "FOO"}} {
				s.do("a", append([]string{"CLIENT", "TRACKING"}, args...)...)
			}
			s.do("a", "CLIENT", "TRACKINGINFO")
			s.do("a", "CLIENT", "GETREDIR")
			s.do("a", "CLIENT", "CACHING", "YES")
			s.do("a", "CLIENT", "CACHING", "maybe")
			s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "ab")
			s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a")
			s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "abc")
			s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "b", "PREFIX", "c")
			s.do("a", "CLIENT", "TRACKING", "ON")
			s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "OPTIN")
			s.do("a", "CLIENT", "TRACKINGINFO")
			s.do("a", "CLIENT", "LIST", "ID", "@a")
			s.do("a", "CLIENT", "CACHING", "YES")
			s.do("a", "CLIENT", "GETREDIR")
			s.do("a", "CLIENT", "TRACKING", "ON", "BCAST")
			s.do("a", "CLIENT", "TRACKINGINFO")
			s.do("a", "CLIENT", "TRACKING", "OFF")
			s.do("a", "CLIENT", "TRACKINGINFO")
			s.do("a", "CLIENT", "LIST", "ID", "@a")
			s.do("a", "CLIENT", "TRACKING", "ON", "OPTIN", "REDIRECT", "@b")
			s.do("a", "CLIENT", "CACHING", "maybe")
			s.do("a", "CLIENT", "CACHING", "NO")
			s.do("a", "CLIENT", "TRACKING", "ON", "OPTOUT")
			s.do("a", "CLIENT", "TRACKING", "ON", "NOLOOP") // replaces OPTIN, keeps nothing else
			s.do("a", "CLIENT", "TRACKINGINFO")
			s.do("a", "CLIENT", "GETREDIR")
			s.do("a", "CLIENT", "CACHING", "YES", "x")
			s.do("a", "CLIENT", "TRACKING")
			s.do("a", "CLIENT", "GETREDIR", "x")
			s.do("a", "CLIENT", "TRACKINGINFO", "x")
			s.do("a", "CLIENT", "TRACKING", "OFF")
			s.do("a", "INFO", "nosuchsection")
		}
		s.do("a", "CONFIG", "GET", "tracking-table-max-keys")
		s.do("a", "CONFIG", "SET", "tracking-table-max-keys", "-1")
		s.do("a", "CONFIG", "SET", "tracking-table-max-keys", "1k")
		s.do("a", "CONFIG", "SET", "tracking-table-max-keys", "10")
		s.do("a", "CONFIG", "GET", "tracking-table-max-keys")
	})
}

// TestTrackingTableMaxKeys checks tracking-table-max-keys: past it, keys are invalidated until
// the table is back at the limit (which keys is random in both servers: only counts compare).
func TestTrackingTableMaxKeys(t *testing.T) {
	// run sends commands on name and counts the keys invalidated before the last reply (Strata
	// forgets keys as soon as the table passes the limit, Redis before its next command).
	run := func(s *trkSession, name string, cmds ...[]string) {
		s.t.Helper()
		n := 0
		for _, args := range cmds {
			if err := s.conn(name).Send(args...); err != nil {
				s.t.Fatal(err)
			}
			for {
				r, err := s.conn(name).ReadReply()
				if err != nil {
					s.t.Fatal(err)
				}
				if !trkIsPush(r) {
					break
				}
				n += len(r.Elems[1].Elems)
			}
		}
		s.log("%s: %d commands, %d keys invalidated", name, len(cmds), n)
	}
	info := func(s *trkSession) {
		for _, sec := range []string{"clients", "stats"} {
			r, err := s.conn("b").Do("INFO", sec)
			if err != nil {
				s.t.Fatal(err)
			}
			for _, l := range strings.Split(r.Str, "\r\n") {
				if strings.HasPrefix(l, "tracking_") {
					s.log("info %s", l)
				}
			}
		}
	}
	trkCompare(t, func(s *trkSession) {
		s.do("b", "CONFIG", "SET", "tracking-table-max-keys", "2")
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.quiet("c", "HELLO", "3")
		s.do("c", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "x", "PREFIX", "y")
		run(s, "a", []string{"GET", "k1"}, []string{"GET", "k2"}, []string{"GET", "k3"}, []string{"GET", "k4"},
			[]string{"CLIENT", "GETNAME"})
		info(s)
		s.do("b", "CONFIG", "SET", "tracking-table-max-keys", "0")
		run(s, "a", []string{"MGET", "k1", "k2", "k3", "k4", "k5"}, []string{"CLIENT", "GETNAME"})
		info(s)
		s.do("b", "MSET", "k1", "1", "k2", "2", "k3", "3", "k4", "4", "k5", "5")
		run(s, "a", []string{"CLIENT", "GETNAME"})
		info(s)
	})
}

// TestTrackingExpiry checks that a key deleted by the expiry cycle is invalidated.
func TestTrackingExpiry(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.do("b", "SET", "k", "v", "PX", "300")
		s.do("a", "GET", "k")
		s.wait("a", 10*time.Second)
	})
}

// TestTrackingGoRedis runs go-redis clients against a server with tracking on: go-redis's own
// client-side cache (CLIENT TRACKING on each connection, invalidations through its push
// processor), and a client that turns tracking on itself and must keep working for ordinary
// commands while invalidations arrive between its replies.
