package tests

import (
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// orderCase is a blocking command sent on one connection without waiting for its reply, the
// commands another connection sends right after, and the reply the blocking command must get:
// the one it gets when the two connections' commands run in the order they were sent.
type orderCase struct {
	name  string
	setup [][]string
	block [][]string // each sent on a connection of its own without waiting
	then  [][]string // sent on another connection right after, each waiting for its reply
	want  []string   // each blocking command's reply, flattened (flatReply)
}

var orderCases = []orderCase{
	{
		name:  "XREADGROUP then DEL",
		setup: [][]string{{"XADD", "s", "666", "f", "v"}, {"XGROUP", "CREATE", "s", "g", "$"}},
		block: [][]string{{"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"}},
		then:  [][]string{{"DEL", "s"}},
		want:  []string{"(error) UNBLOCKED the stream key no longer exists"},
	},
	{
		name:  "XREADGROUP then SET",
		setup: [][]string{{"XADD", "s", "666", "f", "v"}, {"XGROUP", "CREATE", "s", "g", "$"}},
		block: [][]string{{"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"}},
		then:  [][]string{{"SET", "s", "v"}},
		want:  []string{"(error) UNBLOCKED the stream key no longer exists"},
	},
	{
		name:  "XREADGROUP then FLUSHALL",
		setup: [][]string{{"XADD", "s", "666", "f", "v"}, {"XGROUP", "CREATE", "s", "g", "$"}},
		block: [][]string{{"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"}},
		then:  [][]string{{"FLUSHALL"}},
		want:  []string{"(error) UNBLOCKED the stream key no longer exists"},
	},
	{
		name:  "XREAD then SET, DEL, XADD",
		setup: [][]string{{"XADD", "s", "666", "f", "v"}},
		block: [][]string{{"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}},
		then:  [][]string{{"SET", "s", "v"}, {"DEL", "s"}, {"XADD", "s", "667", "f", "v"}},
		want:  []string{`1) 1) "s" 2) 1) 1) "667-0" 2) 1) "f" 2) "v"`},
	},
	{
		// Blocked first, the BRPOPLPUSH takes the element the LPUSH brings: the RPOP finds
		// nothing.
		name:  "BRPOPLPUSH then LPUSH, RPOP",
		block: [][]string{{"BRPOPLPUSH", "l", "d", "0"}},
		then:  [][]string{{"LPUSH", "l", "a"}, {"RPOP", "l"}},
		want:  []string{`"a"`},
	},
	{
		// Blocked first, the BLPOP waits through the string: run after the SET it would
		// answer WRONGTYPE.
		name:  "BLPOP then SET, DEL, RPUSH",
		block: [][]string{{"BLPOP", "l", "0"}},
		then:  [][]string{{"SET", "l", "v"}, {"DEL", "l"}, {"RPUSH", "l", "a", "b"}},
		want:  []string{`1) "l" 2) "a"`},
	},
}

// TestBlockingOrder sends a blocking command and, on another connection and without waiting,
// the commands that end it, many times over, against Strata and redis-server: the blocking
// command registers before the next connection's command runs, so it always gets the reply of
// the order in which the commands were sent.
func TestBlockingOrder(t *testing.T) {
	servers := []*testutil.Instance{testutil.StartStrata(t)}
	if r := testutil.MaybeStartRedis(t); r != nil {
		servers = append(servers, r)
	}
	const rounds = 20
	for _, inst := range servers {
		for _, tc := range orderCases {
			t.Run(inst.Name+"/"+tc.name, func(t *testing.T) {
				for i := 0; i < rounds; i++ {
					if got := runOrderCase(t, inst, tc); got != "" {
						t.Fatalf("round %d: %s", i, got)
					}
				}
			})
		}
	}
}

// runOrderCase runs tc once on a flushed inst and describes the first reply that differs from
// tc.want ("" when none does).
func runOrderCase(t *testing.T, inst *testutil.Instance, tc orderCase) string {
	t.Helper()
	admin := testutil.Connect(t, inst.Addr)
	for _, args := range append([][]string{{"FLUSHALL"}}, tc.setup...) {
		if r, err := admin.Do(args...); err != nil || r.IsError() {
			t.Fatalf("%v: %v %v", args, r, err)
		}
	}
	blocked := make([]*testutil.Conn, len(tc.block))
	for i := range tc.block {
		blocked[i] = testutil.Connect(t, inst.Addr)
		// A command that blocked too late waits for nothing: fail soon.
		blocked[i].Timeout = 3 * time.Second
		if _, err := blocked[i].Do("PING"); err != nil { // accepted before anything is sent
			t.Fatal(err)
		}
	}
	for i, args := range tc.block {
		if err := blocked[i].Send(args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range tc.then {
		if _, err := admin.Do(args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	for i, c := range blocked {
		r, err := c.ReadReply()
		if err != nil {
			return tc.block[i][0] + ": " + err.Error()
		}
		if got := flatReply(r); got != tc.want[i] {
			return tc.block[i][0] + " answered " + got + ", want " + tc.want[i]
		}
		c.Close()
	}
	return ""
}

// flatReply renders r on one line.
func flatReply(r testutil.Reply) string { return strings.Join(strings.Fields(r.String()), " ") }
