package commands

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/resp"
)

// TestNotifierTable checks the event recorders' table against the command table: every entry
// names a command that exists, and the write commands without a recorder are listed (a write
// command without one is taken to change all its declared keys, and emits no events).
func TestNotifierTable(t *testing.T) {
	var missing []string
	for _, c := range All() {
		if c.Flags&FlagWrite != 0 {
			if _, ok := notifiers[c.Name]; !ok {
				missing = append(missing, c.Name)
			}
		}
	}
	for name := range notifiers {
		c := table[name]
		switch {
		case c == nil:
			t.Errorf("notifier for unknown command %q", name)
		case c.Flags&FlagWrite == 0 && c.Flags&FlagExclusive == 0:
			t.Errorf("notifier for %q, which does not write", name)
		}
	}
	sort.Strings(missing)
	t.Logf("write commands without keyspace events: %v", missing)
}

type notifyEnv struct{ cfg *config.Config }

func (e notifyEnv) Config() *config.Config { return e.cfg }

// TestNotifyRecordsEvents runs commands through the dispatcher with keyspace events on and
// checks what they record, and that nothing is recorded while events are off.
func TestNotifyRecordsEvents(t *testing.T) {
	EnableKeyEvents()
	st := testStore(t)
	ke := &KeyEvents{}
	client := &Client{Proto: 2, Authed: true}
	run := func(args ...string) (string, string) {
		c := dispatchAs(st, client, notifyEnv{config.Default()}, ke, args...)
		var evs []string
		for _, ev := range c.Events {
			evs = append(evs, fmt.Sprintf("%d:%s:%s", ev.DB, ev.Name, ev.Key))
		}
		if len(c.Events) > 0 && !c.Tracked {
			t.Errorf("%v: events but not tracked", args)
		}
		return strings.TrimSpace(string(c.W.Bytes())), strings.Join(evs, " ")
	}
	run("SET", "quiet", "1")
	if _, evs := run("SET", "quiet", "2"); evs != "" {
		t.Fatalf("events recorded while off: %s", evs)
	}
	ke.SetClasses(config.NotifyAll | config.NotifyKeyspace)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SET", "k", "v"}, "0:set:k"},
		{[]string{"SET", "k", "v", "NX"}, ""},
		{[]string{"SET", "k", "v", "XX", "PX", "100000"}, "0:set:k 0:expire:k"},
		{[]string{"DEL", "k", "missing", "k"}, "0:del:k"},
		{[]string{"RPUSH", "l", "a"}, "0:rpush:l"},
		{[]string{"LMOVE", "l", "l2", "LEFT", "LEFT"}, "0:lpush:l2 0:lpop:l 0:del:l"},
		{[]string{"HSET", "h", "f", "v"}, "0:hset:h"},
		{[]string{"HDEL", "h", "nope"}, ""},
		{[]string{"HDEL", "h", "f"}, "0:hdel:h 0:del:h"},
		{[]string{"ZADD", "z", "1", "m"}, "0:zadd:z"},
		{[]string{"ZADD", "z", "1", "m"}, ""},
		{[]string{"ZADD", "z", "INCR", "1", "m"}, "0:zincr:z"},
		{[]string{"SADD", "s", "a"}, "0:sadd:s"},
		{[]string{"SMOVE", "s", "s2", "a"}, "0:srem:s 0:del:s 0:sadd:s2"},
		{[]string{"MOVE", "s2", "2"}, "0:move_from:s2 2:move_to:s2"},
		{[]string{"INCR", "n"}, "0:incrby:n"},
		{[]string{"INCR", "l2"}, ""}, // WRONGTYPE: nothing
		{[]string{"RENAME", "n", "n2"}, "0:rename_from:n 0:rename_to:n2"},
		{[]string{"EXPIRE", "n2", "0"}, "0:del:n2"},
	} {
		reply, got := run(tc.args...)
		if got != tc.want {
			t.Errorf("%v (reply %q): events %q, want %q", tc.args, reply, got, tc.want)
		}
	}
	// Watching alone (notifications off) records too: WATCH needs the changed keys.
	ke.SetClasses(0)
	ke.AddWatches(1)
	if _, got := run("SET", "w", "1"); got != "0:set:w" {
		t.Errorf("with a watcher only: events %q", got)
	}
	ke.AddWatches(-1)
	if ke.Active() {
		t.Fatal("still active")
	}
}

// TestExecExclusive lists the queued commands that make EXEC hold the whole store.
func TestExecExclusive(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"set", "k", "v"}, false},
		{[]string{"select", "1"}, true},
		{[]string{"move", "k", "1"}, true},
		{[]string{"swapdb", "0", "1"}, true},
		{[]string{"flushall"}, true},
		{[]string{"copy", "a", "b"}, false},
		{[]string{"copy", "a", "b", "REPLACE"}, false},
		{[]string{"copy", "a", "b", "db", "1"}, true},
	} {
		cmd := Lookup([]byte(tc.args[0]))
		b := make([][]byte, len(tc.args))
		for i, a := range tc.args {
			b[i] = []byte(a)
		}
		if got := ExecExclusive(cmd, b); got != tc.want {
			t.Errorf("ExecExclusive(%v) = %v", tc.args, got)
		}
	}
	for _, name := range []string{"exec", "discard", "multi", "watch", "quit", "reset"} {
		if QueuedInMulti(Lookup([]byte(name))) {
			t.Errorf("%s is queued", name)
		}
	}
	if !QueuedInMulti(Lookup([]byte("unwatch"))) || !QueuedInMulti(Lookup([]byte("subscribe"))) {
		t.Error("UNWATCH and SUBSCRIBE are queued in Redis 7.0")
	}
}

// TestPubSubEncoding checks the message and confirmation encodings in both protocols.
func TestPubSubEncoding(t *testing.T) {
	if got := string(AppendMessage(nil, 2, "message", nil, []byte("ch"), []byte("hi"))); got !=
		"*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n" {
		t.Errorf("RESP2 message %q", got)
	}
	if got := string(AppendMessage(nil, 3, "pmessage", []byte("c*"), []byte("ch"), []byte(""))); got !=
		">4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\nch\r\n$0\r\n\r\n" {
		t.Errorf("RESP3 pmessage %q", got)
	}
	w := &resp.Writer{Proto: 3}
	WriteSubReply(w, "unsubscribe", nil, 0)
	if got := string(w.Bytes()); got != ">3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n" {
		t.Errorf("RESP3 confirmation %q", got)
	}
}
