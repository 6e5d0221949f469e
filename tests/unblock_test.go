package tests

import (
	"strconv"
	"strings"
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// TestClientUnblock runs CLIENT UNBLOCK on Strata and on redis-server: a client blocked in
// BLPOP, BZPOPMIN or BLMOVE wakes with its timeout's reply (TIMEOUT, the default) or with
// -UNBLOCKED (ERROR), counted in INFO errorstats; a push after that is not taken by it; a
// client that is not blocked, or no client at all, answers 0; the reason is checked before
// the ID.
func TestClientUnblock(t *testing.T) {
	insts := []*testutil.Instance{testutil.StartStrata(t)}
	if r := testutil.MaybeStartRedis(t); r != nil {
		insts = append(insts, r)
	}
	for _, inst := range insts {
		t.Run(inst.Name, func(t *testing.T) {
			admin, blocked := clConn(t, inst), clConn(t, inst)
			id := strconv.FormatInt(clDo(t, blocked, "CLIENT", "ID").Int, 10)
			clExpect(t, admin, "OK", "CONFIG", "RESETSTAT")
			clExpect(t, admin, "(error) ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR", "CLIENT", "UNBLOCK", "x", "maybe")
			clExpect(t, admin, "(error) ERR value is not an integer or out of range", "CLIENT", "UNBLOCK", "x")
			clExpect(t, admin, "(integer) 0", "CLIENT", "UNBLOCK", id)
			clExpect(t, admin, "(integer) 0", "CLIENT", "UNBLOCK", "999999", "ERROR")
			for _, tc := range []struct {
				cmd    []string
				reason []string
				want   string
			}{
				{[]string{"BLPOP", "l", "0"}, nil, "(nil array)"},
				{[]string{"BZPOPMIN", "z", "100"}, []string{"TIMEOUT"}, "(nil array)"},
				{[]string{"BLMOVE", "l", "l2", "LEFT", "RIGHT", "0"}, []string{"error"}, "(error) UNBLOCKED client unblocked via CLIENT UNBLOCK"},
				{[]string{"BLMPOP", "0", "2", "a", "b", "LEFT"}, []string{"ERROR"}, "(error) UNBLOCKED client unblocked via CLIENT UNBLOCK"},
			} {
				if err := blocked.Send(tc.cmd...); err != nil {
					t.Fatal(err)
				}
				mustBlocked(t, admin, 1)
				clExpect(t, admin, "(integer) 1", append([]string{"CLIENT", "UNBLOCK", id}, tc.reason...)...)
				r, err := blocked.ReadReply()
				if err != nil || r.String() != tc.want {
					t.Errorf("%v unblocked %v: %v %v, want %s", tc.cmd, tc.reason, r, err, tc.want)
				}
				clExpect(t, admin, "(integer) 0", "CLIENT", "UNBLOCK", id)
				mustBlocked(t, admin, 0)
			}
			clExpect(t, admin, "(integer) 1", "RPUSH", "l", "x")
			clExpect(t, blocked, `1) "l"`+"\n"+`2) "x"`, "BLPOP", "l", "1")
			if info := clDo(t, admin, "INFO", "errorstats").Str; !strings.Contains(info, "errorstat_UNBLOCKED:count=2") {
				t.Errorf("INFO errorstats after two UNBLOCK ERROR:\n%s", info)
			}
		})
	}
}

// TestClientUnblockPausedClient checks that a client held by CLIENT PAUSE is not one CLIENT
// UNBLOCK wakes (it answers 0; Redis 7.0 stops with a panic there) and that the held command
// runs once the pause ends.
func TestClientUnblockPausedClient(t *testing.T) {
	inst := testutil.StartStrata(t)
	admin, held := clConn(t, inst), clConn(t, inst)
	id := strconv.FormatInt(clDo(t, held, "CLIENT", "ID").Int, 10)
	clExpect(t, admin, "OK", "CLIENT", "PAUSE", "100000", "WRITE")
	if err := held.Send("SET", "k", "v"); err != nil {
		t.Fatal(err)
	}
	mustBlocked(t, admin, 1)
	clExpect(t, admin, "(integer) 0", "CLIENT", "UNBLOCK", id)
	clExpect(t, admin, "OK", "CLIENT", "UNPAUSE")
	if r, err := held.ReadReply(); err != nil || r.String() != "OK" {
		t.Fatalf("SET after UNPAUSE: %v %v", r, err)
	}
}

// mustBlocked fails the test unless INFO blocked_clients reaches n within 3 s.
func mustBlocked(t *testing.T, c *testutil.Conn, n int) {
	t.Helper()
	if !waitBlockedClients(t, c, n) {
		t.Fatalf("blocked_clients never reached %d", n)
	}
}
