package tests

import (
	"fmt"
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// blockWakeScenario blocks clients with block (each line one client: its database and command,
// with a timeout of a second so that a client nobody wakes answers a null rather than hang),
// runs steps on another client in database 0, and returns every reply: the steps', then the
// blocked clients' in the order they blocked, then what check reads afterwards.
type blockWakeScenario struct {
	block [][]string // first element: the database to select
	steps [][]string
	check [][]string
}

var blockWakeScenarios = map[string]blockWakeScenario{
	// A key moved into place wakes the clients blocked on it, as a push does.
	"rename list": {
		block: [][]string{{"0", "BLPOP", "dst", "1"}},
		steps: [][]string{{"RPUSH", "src", "a", "b"}, {"RENAME", "src", "dst"}},
		check: [][]string{{"LRANGE", "dst", "0", "-1"}},
	},
	"renamenx zset": {
		block: [][]string{{"0", "BZPOPMIN", "dst", "1"}},
		steps: [][]string{{"ZADD", "src", "1", "a"}, {"RENAMENX", "src", "dst"}},
		check: [][]string{{"EXISTS", "dst"}},
	},
	"rename onto a string": {
		block: [][]string{{"0", "BLMPOP", "1", "2", "x", "dst", "LEFT", "COUNT", "5"}},
		steps: [][]string{{"RPUSH", "src", "a", "b"}, {"SET", "x", "s"}, {"RENAME", "src", "dst"}},
		check: [][]string{{"EXISTS", "dst"}},
	},
	"move": {
		block: [][]string{{"1", "BLPOP", "k", "1"}},
		steps: [][]string{{"RPUSH", "k", "a"}, {"MOVE", "k", "1"}},
		check: [][]string{{"SELECT", "1"}, {"EXISTS", "k"}},
	},
	"copy": {
		block: [][]string{{"0", "BLMOVE", "dst", "out", "LEFT", "RIGHT", "1"}},
		steps: [][]string{{"RPUSH", "src", "a"}, {"COPY", "src", "dst"}},
		check: [][]string{{"LRANGE", "src", "0", "-1"}, {"LRANGE", "out", "0", "-1"}, {"EXISTS", "dst"}},
	},
	"copy db": {
		block: [][]string{{"2", "BZPOPMAX", "k", "1"}},
		steps: [][]string{{"ZADD", "k", "1", "a", "2", "b"}, {"COPY", "k", "k", "DB", "2"}},
		check: [][]string{{"SELECT", "2"}, {"ZRANGE", "k", "0", "-1"}},
	},
	"swapdb": {
		block: [][]string{{"1", "BLPOP", "k", "1"}, {"0", "BRPOP", "z", "1"}},
		steps: [][]string{{"RPUSH", "k", "a"}, {"SELECT", "1"}, {"RPUSH", "z", "b"}, {"SELECT", "0"},
			{"SWAPDB", "0", "1"}},
		check: [][]string{{"DBSIZE"}, {"SELECT", "1"}, {"DBSIZE"}},
	},
	"swapdb in multi": {
		block: [][]string{{"1", "BLPOP", "k", "1"}},
		steps: [][]string{{"RPUSH", "k", "a"}, {"MULTI"}, {"SWAPDB", "1", "0"}, {"EXEC"}},
		check: [][]string{{"DBSIZE"}},
	},
	// A key of the wrong type when the transaction ends leaves the client blocked.
	"multi list then string": {
		block: [][]string{{"0", "BLPOP", "k", "1"}},
		steps: [][]string{{"MULTI"}, {"LPUSH", "k", "x"}, {"DEL", "k"}, {"SET", "k", "x"}, {"EXEC"}},
		check: [][]string{{"TYPE", "k"}},
	},
	"multi zset then string": {
		block: [][]string{{"0", "BZPOPMIN", "k", "1"}},
		steps: [][]string{{"MULTI"}, {"ZADD", "k", "1", "x"}, {"DEL", "k"}, {"SET", "k", "x"}, {"EXEC"}},
		check: [][]string{{"TYPE", "k"}},
	},
	"multi list then zset": {
		block: [][]string{{"0", "BLPOP", "k", "1"}, {"0", "BZPOPMIN", "k", "1"}},
		steps: [][]string{{"MULTI"}, {"RPUSH", "k", "x"}, {"DEL", "k"}, {"ZADD", "k", "1", "m"}, {"EXEC"}},
		check: [][]string{{"TYPE", "k"}},
	},
	// A client blocked on several keys is served from the key that became ready, even when
	// another of its keys now holds another type.
	"other key wrong type": {
		block: [][]string{{"0", "BLPOP", "a", "b", "1"}},
		steps: [][]string{{"SET", "a", "s"}, {"RPUSH", "b", "x"}},
		check: [][]string{{"EXISTS", "b"}},
	},
	"multi serves the first ready key": {
		block: [][]string{{"0", "BZMPOP", "1", "2", "a", "b", "MIN", "COUNT", "2"}},
		steps: [][]string{{"MULTI"}, {"ZADD", "b", "1", "x"}, {"ZADD", "a", "1", "y"}, {"EXEC"}},
		check: [][]string{{"ZRANGE", "a", "0", "-1"}, {"ZRANGE", "b", "0", "-1"}},
	},
	// A BLMOVE whose destination holds another type answers WRONGTYPE; the element stays.
	"blmove wrong destination": {
		block: [][]string{{"0", "BLMOVE", "src", "dst", "LEFT", "LEFT", "1"}},
		steps: [][]string{{"SET", "dst", "s"}, {"RPUSH", "src", "a"}},
		check: [][]string{{"LRANGE", "src", "0", "-1"}},
	},
	"brpoplpush wrong destination, then another client": {
		block: [][]string{{"0", "BRPOPLPUSH", "blist", "target1", "1"}, {"0", "BRPOPLPUSH", "blist", "target2", "1"}},
		steps: [][]string{{"SET", "target1", "nolist"}, {"LPUSH", "blist", "foo"}},
		check: [][]string{{"LRANGE", "target2", "0", "-1"}, {"EXISTS", "blist"}},
	},
	// A script's pushes wake clients of the database the script pushed in.
	"script in another database": {
		block: [][]string{{"1", "BLPOP", "k", "1"}},
		steps: [][]string{{"EVAL", "redis.call('select', 1) return redis.call('rpush', 'k', 'a')", "0"}},
		check: [][]string{{"SELECT", "1"}, {"EXISTS", "k"}},
	},
}

func runBlockWake(t *testing.T, inst *testutil.Instance, sc blockWakeScenario) []string {
	var waiters []*testutil.Conn
	for i, b := range sc.block {
		c := testutil.Connect(t, inst.Addr)
		if r, err := c.Do("SELECT", b[0]); err != nil || r.IsError() {
			t.Fatalf("%s: SELECT %s: %v %v", inst.Name, b[0], r, err)
		}
		if err := c.Send(b[1:]...); err != nil {
			t.Fatal(err)
		}
		listsWaitBlocked(t, inst, i+1)
		waiters = append(waiters, c)
	}
	p := testutil.Connect(t, inst.Addr)
	var out []string
	for _, s := range sc.steps {
		r, err := p.Do(s...)
		if err != nil {
			t.Fatalf("%s: %v: %v", inst.Name, s, err)
		}
		out = append(out, fmt.Sprint(s, " -> ", r.String()))
	}
	for i, c := range waiters {
		r, err := c.ReadReply()
		if err != nil {
			t.Fatalf("%s: blocked client %d: %v", inst.Name, i, err)
		}
		out = append(out, fmt.Sprint(sc.block[i], " -> ", r.String()))
	}
	for _, s := range sc.check {
		r, err := p.Do(s...)
		if err != nil {
			t.Fatalf("%s: %v: %v", inst.Name, s, err)
		}
		out = append(out, fmt.Sprint(s, " -> ", r.String()))
	}
	return out
}

// TestBlockingWakeVsRedis compares, with redis-server, which blocked clients a command wakes
// and what they receive: keys moved into place (RENAME, MOVE, COPY, SWAPDB), keys of the
// wrong type at the end of a transaction, several keys, scripts.
func TestBlockingWakeVsRedis(t *testing.T) {
	want := testutil.StartRedis(t)
	got := testutil.StartStrata(t)
	for name, sc := range blockWakeScenarios {
		t.Run(name, func(t *testing.T) {
			testutil.FlushAll(t, want)
			testutil.FlushAll(t, got)
			w, g := runBlockWake(t, want, sc), runBlockWake(t, got, sc)
			if fmt.Sprint(w) != fmt.Sprint(g) {
				t.Errorf("outcomes differ\nredis:  %q\nstrata: %q", w, g)
			}
		})
	}
}
