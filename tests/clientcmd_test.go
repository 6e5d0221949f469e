package tests

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// onStrataAndRedis runs f on Strata and, when it is installed, on redis-server.
func onStrataAndRedis(t *testing.T, f func(t *testing.T, inst *testutil.Instance)) {
	insts := []*testutil.Instance{testutil.StartStrata(t)}
	if r := testutil.MaybeStartRedis(t); r != nil {
		insts = append(insts, r)
	}
	for _, inst := range insts {
		t.Run(inst.Name, func(t *testing.T) { f(t, inst) })
	}
}

// TestClientReplyOnAfterSkip checks that CLIENT REPLY ON right after CLIENT REPLY SKIP answers
// OK: ON clears the skip that would have dropped its own reply.
func TestClientReplyOnAfterSkip(t *testing.T) {
	onStrataAndRedis(t, func(t *testing.T, inst *testutil.Instance) {
		c := clConn(t, inst)
		for _, cmd := range [][]string{{"CLIENT", "REPLY", "SKIP"}, {"CLIENT", "REPLY", "ON"}, {"PING"},
			{"CLIENT", "REPLY", "SKIP"}, {"CLIENT", "REPLY", "OFF"}, {"PING", "a"}, {"CLIENT", "REPLY", "ON"},
			{"CLIENT", "REPLY", "SKIP"}, {"PING", "b"}, {"PING", "c"}} {
			if err := c.Send(cmd...); err != nil {
				t.Fatal(err)
			}
		}
		for _, want := range []string{"OK", "PONG", "OK", `"c"`} {
			r, err := c.ReadReply()
			if err != nil {
				t.Fatal(err)
			}
			if r.String() != want {
				t.Errorf("reply %s, want %s", r, want)
			}
		}
	})
}

// TestClientListQueryBuffer checks the qbuf field of the calling client in CLIENT LIST and
// CLIENT INFO: its query buffer holds the request being run (26 bytes for either command).
func TestClientListQueryBuffer(t *testing.T) {
	qbuf := regexp.MustCompile(` qbuf=(\d+) `)
	onStrataAndRedis(t, func(t *testing.T, inst *testutil.Instance) {
		c := clConn(t, inst)
		clExpect(t, c, "OK", "CLIENT", "SETNAME", "me")
		for _, sub := range []string{"LIST", "INFO"} {
			line := clDo(t, c, "CLIENT", sub).Str
			if m := qbuf.FindStringSubmatch(line); m == nil || m[1] != "26" {
				t.Errorf("CLIENT %s: qbuf %v, want 26:\n%s", sub, m, line)
			}
		}
	})
}

// TestClientTypePubSub: a client with subscriptions, over RESP2 or RESP3, is of type pubsub
// (flag P, its counts in sub, psub and ssub), which CLIENT KILL TYPE pubsub closes and TYPE
// normal leaves; one that unsubscribed from everything is normal again.
func TestClientTypePubSub(t *testing.T) {
	fields := regexp.MustCompile(` flags=(\w+) .* sub=(\d+) psub=(\d+) ssub=(\d+) `)
	onStrataAndRedis(t, func(t *testing.T, inst *testutil.Instance) {
		sub2, sub3, admin := clConn(t, inst), clConn(t, inst), clConn(t, inst)
		clDo(t, sub2, "SUBSCRIBE", "a")
		clDo(t, sub2, "SUBSCRIBE", "b")
		clDo(t, sub2, "PSUBSCRIBE", "p*")
		clDo(t, sub2, "SSUBSCRIBE", "s")
		clDo(t, sub3, "HELLO", "3")
		clDo(t, sub3, "SUBSCRIBE", "c")
		clDo(t, sub3, "SUBSCRIBE", "d")
		clDo(t, sub3, "UNSUBSCRIBE", "d")
		left := clConn(t, inst)
		clDo(t, left, "SUBSCRIBE", "e")
		clDo(t, left, "UNSUBSCRIBE")

		list := func(typ string) []string {
			var out []string
			for _, line := range strings.Split(strings.TrimSpace(clDo(t, admin, "CLIENT", "LIST", "TYPE", typ).Str), "\n") {
				if line != "" {
					m := fields.FindStringSubmatch(line)
					if m == nil {
						t.Fatalf("CLIENT LIST line without its fields: %s", line)
					}
					out = append(out, strings.Join(m[1:], " "))
				}
			}
			return out
		}
		if got, want := list("pubsub"), []string{"P 2 1 1", "P 1 0 0"}; !slices.Equal(got, want) {
			t.Errorf("CLIENT LIST TYPE pubsub (flags sub psub ssub): %v, want %v", got, want)
		}
		if got, want := list("normal"), []string{"N 0 0 0", "N 0 0 0"}; !slices.Equal(got, want) {
			t.Errorf("CLIENT LIST TYPE normal (flags sub psub ssub): %v, want %v", got, want)
		}
		clExpect(t, admin, "(integer) 1", "CLIENT", "KILL", "TYPE", "normal") // left; not the caller
		clExpect(t, admin, "(integer) 2", "CLIENT", "KILL", "TYPE", "pubsub")
		clExpect(t, admin, "(integer) 0", "CLIENT", "KILL", "TYPE", "pubsub")
		for _, c := range []*testutil.Conn{sub2, sub3, left} {
			if _, err := c.Do("PING"); err == nil {
				t.Error("a killed client answered PING")
			}
		}
	})
}
