package commands

import (
	"strings"
	"testing"

	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// propagated runs args through the dispatcher in database db with a receiver installed and
// returns what it received, one "db: ARGS" line per command.
func propagated(t *testing.T, s *storage.Store, db int, args ...string) []string {
	t.Helper()
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	var out []string
	c := &Ctx{Args: bargs, Client: &Client{DB: db, Proto: 2}, Store: s, W: &resp.Writer{Proto: 2},
		Propagate: func(db int, effects [][][]byte) {
			for _, e := range effects {
				parts := make([]string, len(e))
				for i, a := range e {
					parts[i] = string(a)
				}
				out = append(out, string(rune('0'+db))+": "+strings.Join(parts, " "))
			}
		}}
	Dispatch(c, false)
	if r := c.W.Bytes(); len(r) > 0 && r[0] == '-' {
		t.Fatalf("%v: %s", args, r)
	}
	return out
}

func TestPropagatedForms(t *testing.T) {
	s := testStore(t)
	for _, tc := range []struct {
		args []string
		want string // the commands received, joined by " | "; "" for none
	}{
		{[]string{"set", "k", "v", "nx", "get"}, "0: set k v nx"},
		{[]string{"set", "k", "v", "nx"}, ""},
		{[]string{"pexpireat", "k", "4102444800000"}, "0: pexpireat k 4102444800000"},
		{[]string{"expireat", "k", "4102444801", "gt"}, "0: PEXPIREAT k 4102444801000 gt"},
		{[]string{"expire", "k", "-1"}, "0: DEL k"},
		{[]string{"expire", "k", "10"}, ""},
		{[]string{"hset", "h", "f", "1"}, "0: hset h f 1"},
		{[]string{"hincrbyfloat", "h", "f", "0.5"}, "0: HSET h f 1.5"},
		{[]string{"sadd", "s", "a", "b"}, "0: sadd s a b"},
		{[]string{"spop", "s", "2"}, "0: DEL s"},
		{[]string{"rpush", "l", "a", "b", "c"}, "0: rpush l a b c"},
		{[]string{"blpop", "nol", "l", "0"}, "0: LPOP l"},
		{[]string{"lmpop", "1", "l", "right", "count", "9"}, "0: RPOP l 2"},
		{[]string{"zadd", "z", "1", "a", "2", "b"}, "0: zadd z 1 a 2 b"},
		{[]string{"bzmpop", "0", "1", "z", "min"}, "0: ZPOPMIN z 1"},
		{[]string{"bzpopmax", "z", "0"}, "0: ZPOPMAX z"},
	} {
		got := strings.Join(propagated(t, s, 0, tc.args...), " | ")
		if got != tc.want {
			t.Errorf("%v propagated %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestPropagatedLazyExpiry checks that a write meeting an expired key propagates the key's
// DEL first, in MULTI/EXEC with the write, and the write alone when it only deleted the key.
func TestPropagatedLazyExpiry(t *testing.T) {
	s := testStore(t)
	propagated(t, s, 2, "set", "k", "v", "pxat", "1000") // stored already expired
	if got := strings.Join(propagated(t, s, 2, "rpush", "k", "a"), " | "); got != "2: MULTI | 2: DEL k | 2: rpush k a | 2: EXEC" {
		t.Errorf("rpush on an expired key propagated %q", got)
	}
	propagated(t, s, 2, "set", "k2", "v", "pxat", "1000")
	if got := strings.Join(propagated(t, s, 2, "del", "k2"), " | "); got != "2: DEL k2" {
		t.Errorf("del of an expired key propagated %q", got)
	}
}

// TestEffectLogSelect checks the block EffectLog sends for writes in several databases: a
// SELECT where the database changes, and one back to the first database before EXEC, so that
// the receiver's database stays the one it was told.
func TestEffectLogSelect(t *testing.T) {
	s := testStore(t)
	tx := s.Begin(1, [][]byte{[]byte("a")}, true)
	tx.PutData([]byte("x"), []byte("y")) // a write, so that the commit runs the callbacks
	var l EffectLog
	for _, c := range []struct {
		db   int
		args string
	}{{1, "set a 1"}, {3, "set b 2"}, {3, "incr b"}} {
		var argv [][]byte
		for _, a := range strings.Fields(c.args) {
			argv = append(argv, []byte(a))
		}
		l.add(c.db, &Ctx{Args: argv})
	}
	var gotDB int
	var got []string
	l.SendOnCommit(tx, func(db int, effects [][][]byte) {
		gotDB = db
		for _, e := range effects {
			var parts []string
			for _, a := range e {
				parts = append(parts, string(a))
			}
			got = append(got, strings.Join(parts, " "))
		}
	})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want := "MULTI | set a 1 | SELECT 3 | set b 2 | incr b | EXEC" // the stream stays in 3
	if gotDB != 1 || strings.Join(got, " | ") != want {
		t.Errorf("sent db %d %q, want db 1 %q", gotDB, strings.Join(got, " | "), want)
	}
}
