package commands

import (
	"strings"
	"testing"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

type scriptTestEnv struct{ cfg *config.Config }

func (e scriptTestEnv) Config() *config.Config { return e.cfg }

// scriptRunCmd runs one command through the dispatcher on client cl and returns the raw reply.
func scriptRunCmd(s *storage.Store, cl *Client, args ...string) string {
	return string(dispatchAs(s, cl, scriptTestEnv{config.Default()}, nil, args...).W.Bytes())
}

// TestScriptCallRefusals: the checks scriptCaller makes of a command a script calls, in
// Redis 7.0's words, before anything runs.
func TestScriptCallRefusals(t *testing.T) {
	s := testStore(t)
	cl := &Client{Proto: 2}
	for _, tt := range []struct{ cmd, src, want string }{
		{"EVAL", "return redis.pcall('nosuch')", "-ERR Unknown Redis command called from script\r\n"},
		{"EVAL", "return redis.pcall('get')", "-ERR Wrong number of args calling Redis command from script\r\n"},
		{"EVAL", "return redis.pcall('multi')", "-ERR This Redis command is not allowed from script\r\n"},
		{"EVAL", "return redis.pcall('eval', 'return 1', 0)", "-ERR This Redis command is not allowed from script\r\n"},
		{"EVAL_RO", "return redis.pcall('set', 'k', 'v')", "-ERR Write commands are not allowed from read-only scripts.\r\n"},
		{"EVAL_RO", "return redis.pcall('publish', 'ch', 'm')", "-ERR Write commands are not allowed from read-only scripts.\r\n"},
		{"EVAL", "return redis.acl_check_cmd('get', 'k')", ":1\r\n"},
		{"EVAL", "return redis.pcall('incr', 'k')", ":1\r\n"},
		{"EVAL", "return redis.pcall('lpush', 'k', 'x')", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
	} {
		if got := scriptRunCmd(s, cl, tt.cmd, tt.src, "0"); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.cmd, tt.src, got, tt.want)
		}
	}
	if got := scriptRunCmd(s, cl, "EVAL", "return redis.acl_check_cmd('config', 'nosuch')", "0"); !strings.HasPrefix(got, "-ERR Invalid command passed to redis.acl_check_cmd()") {
		t.Errorf("acl_check_cmd of a subcommand CONFIG lacks: %q", got)
	}
}

// TestScriptWritesKeptOnError: a script that fails after writing keeps its writes (Redis
// does not roll a script back), and SELECT inside a script changes only the script's database.
func TestScriptWritesKeptOnError(t *testing.T) {
	s := testStore(t)
	cl := &Client{Proto: 2}
	r := scriptRunCmd(s, cl, "EVAL", "redis.call('set', 'a', '1') redis.call('select', 2) redis.call('set', 'b', '2') error('late')", "0")
	if !strings.HasPrefix(r, "-ERR user_script:1: late script: ") {
		t.Errorf("EVAL: %q", r)
	}
	if cl.DB != 0 {
		t.Errorf("the client's database is %d after a script's SELECT", cl.DB)
	}
	if got := scriptRunCmd(s, cl, "GET", "a"); got != "$1\r\n1\r\n" {
		t.Errorf("GET a = %q", got)
	}
	if got := scriptRunCmd(s, &Client{Proto: 2, DB: 2}, "GET", "b"); got != "$1\r\n2\r\n" {
		t.Errorf("GET b in db 2 = %q", got)
	}
	if got := scriptRunCmd(s, cl, "EVAL", "return redis.call('dbsize')", "0"); got != ":1\r\n" {
		t.Errorf("DBSIZE from a script = %q", got)
	}
}

func BenchmarkEvalIncr(b *testing.B) {
	s := testStore(b)
	cl := &Client{Proto: 2}
	args := [][]byte{[]byte("EVAL"), []byte("return redis.call('incr', KEYS[1])"), []byte("1"), []byte("ctr")}
	w := &resp.Writer{Proto: 2}
	env := scriptTestEnv{config.Default()}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		w.Reset()
		c := &Ctx{Args: args, Client: cl, Store: s, W: w, Env: env}
		Dispatch(c, false)
	}
}

// TestScriptStackFlood: a script that pushes more values than the interpreter's stack holds
// gets an error, and the next scripts still run (an interpreter left inconsistent by a panic
// that escaped gopher-lua is dropped with its script cache).
func TestScriptStackFlood(t *testing.T) {
	s := testStore(t)
	cl := &Client{Proto: 2}
	scriptRunCmd(s, cl, "SET", "k", "v")
	sha := strings.TrimSpace(strings.Split(scriptRunCmd(s, cl, "SCRIPT", "LOAD", "return redis.call('get', 'k')"), "\r\n")[1])
	r := scriptRunCmd(s, cl, "EVAL", "return select('#', string.byte(string.rep('x', 2000000), 1, -1))", "0")
	if !strings.HasPrefix(r, "-ERR ") {
		t.Errorf("flooding script answered %q", r)
	}
	if got := scriptRunCmd(s, cl, "EVAL", "return redis.call('get', 'k')", "0"); got != "$1\r\nv\r\n" {
		t.Errorf("next script: %q", got)
	}
	if got := scriptRunCmd(s, cl, "EVALSHA", sha, "0"); got != "$1\r\nv\r\n" && !strings.HasPrefix(got, "-NOSCRIPT") {
		t.Errorf("EVALSHA after the flood: %q", got)
	}
}
