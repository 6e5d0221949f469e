package tests

import (
	"regexp"
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
