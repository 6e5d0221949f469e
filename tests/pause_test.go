package tests

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// TestPauseWriteClassesScriptsAndExec runs, on Strata and on redis-server, the commands that
// CLIENT PAUSE WRITE must let through and those it must hold: a script's declared flags
// decide (no-writes runs, a shebang without it is a write), a script without a shebang and
// PUBLISH are held as commands that may replicate, and EXEC is held when its queue holds a
// write or a script that may write. Held clients count in INFO blocked_clients.
func TestPauseWriteClassesScriptsAndExec(t *testing.T) {
	insts := []*testutil.Instance{testutil.StartStrata(t)}
	if r := testutil.MaybeStartRedis(t); r != nil {
		insts = append(insts, r)
	}
	for _, inst := range insts {
		t.Run(inst.Name, func(t *testing.T) { pauseCases(t, inst) })
	}
}

func pauseCases(t *testing.T, inst *testutil.Instance) {
	admin := clConn(t, inst)
	clExpect(t, admin, "OK", "SET", "x", "y")
	clExpect(t, admin, `"f1"`, "FUNCTION", "LOAD", "REPLACE", "#!lua name=f1\n"+
		"redis.register_function{function_name='f1', callback=function() return 'hello' end, flags={'no-writes'}}\n"+
		"redis.register_function{function_name='f2', callback=function() return 'w' end}")
	roSHA := clDo(t, admin, "SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 2").Str
	wSHA := clDo(t, admin, "SCRIPT", "LOAD", "#!lua\nreturn 3").Str
	plainSHA := clDo(t, admin, "SCRIPT", "LOAD", "return 4").Str

	// Let through: reads, and scripts that declare no-writes however they are named.
	clExpect(t, admin, "OK", "CLIENT", "PAUSE", "60000", "WRITE")
	c := clConn(t, inst)
	c.Timeout = 3 * time.Second
	for _, tc := range []struct {
		want string
		args []string
	}{
		{`"unique script"`, []string{"EVAL", "#!lua flags=no-writes\nreturn 'unique script'", "0"}},
		{`"unique script"`, []string{"EVAL", "#!lua flags=no-writes\nreturn 'unique script'", "0"}},
		{`"y unique script"`, []string{"EVAL_RO", "return redis.call('GeT', 'x')..' unique script'", "1", "x"}},
		{"(integer) 2", []string{"EVALSHA", roSHA, "0"}},
		{"(integer) 4", []string{"EVALSHA_RO", plainSHA, "0"}},
		{`"hello"`, []string{"FCALL", "f1", "0"}},
		{`"hello"`, []string{"FCALL_RO", "f1", "0"}},
		{"(error) ERR Function not found", []string{"FCALL_RO", "nosuch", "0"}},
		{"(error) NOSCRIPT No matching script. Please use EVAL.", []string{"EVALSHA_RO", "0000000000000000000000000000000000000000", "0"}},
	} {
		clExpect(t, c, tc.want, tc.args...)
	}
	clExpect(t, c, "OK", "MULTI")
	clExpect(t, c, "QUEUED", "GET", "x")
	clExpect(t, c, "QUEUED", "EVAL", "#!lua flags=no-writes\nreturn 12", "0")
	clExpect(t, c, `1) "y"`+"\n"+`2) (integer) 12`, "EXEC")
	if n := blockedClients(t, admin); n != 0 {
		t.Errorf("blocked_clients %d after commands PAUSE WRITE lets through", n)
	}
	clExpect(t, admin, "OK", "CLIENT", "UNPAUSE")

	// Held: each on its own connection, released by UNPAUSE.
	held := []struct {
		want  string
		multi [][]string // queued before the pause, then EXEC is the held command
		args  []string
	}{
		{want: "(integer) 1", args: []string{"EVAL", "return 1", "0"}},
		{want: "(integer) 1", args: []string{"EVAL", "#!lua\nreturn 1", "0"}},
		{want: "(integer) 3", args: []string{"EVALSHA", wSHA, "0"}},
		{want: "(integer) 4", args: []string{"EVALSHA", plainSHA, "0"}},
		{want: `"w"`, args: []string{"FCALL", "f2", "0"}},
		{want: "(integer) 0", args: []string{"PUBLISH", "ch", "msg"}},
		{want: "1) OK", multi: [][]string{{"SET", "FOO", "BAR"}}, args: []string{"EXEC"}},
		{want: "1) (integer) 12", multi: [][]string{{"EVAL", "#!lua\nreturn 12", "0"}}, args: []string{"EXEC"}},
		{want: `1) "y"` + "\n" + "2) (integer) 13", multi: [][]string{{"GET", "x"}, {"EVAL", "return 13", "0"}},
			args: []string{"EXEC"}},
	}
	conns := make([]*testutil.Conn, len(held))
	for i, h := range held {
		conns[i] = clConn(t, inst)
		if h.multi != nil {
			clExpect(t, conns[i], "OK", "MULTI")
			for _, q := range h.multi {
				clExpect(t, conns[i], "QUEUED", q...)
			}
		}
	}
	clExpect(t, admin, "OK", "CLIENT", "PAUSE", "60000", "WRITE")
	for i, h := range held {
		if err := conns[i].Send(h.args...); err != nil {
			t.Fatal(err)
		}
		if !waitBlockedClients(t, admin, i+1) {
			t.Errorf("%v (after %v) not held by PAUSE WRITE: blocked_clients %d, want %d",
				h.args, h.multi, blockedClients(t, admin), i+1)
			clExpect(t, admin, "OK", "CLIENT", "UNPAUSE")
			return
		}
	}
	clExpect(t, admin, "OK", "CLIENT", "UNPAUSE")
	for i, h := range held {
		r, err := conns[i].ReadReply()
		if err != nil {
			t.Fatalf("%v: %v", h.args, err)
		}
		if r.String() != h.want {
			t.Errorf("%v after UNPAUSE: got %s, want %s", h.args, r, h.want)
		}
	}
}

var blockedClientsRE = regexp.MustCompile(`blocked_clients:(\d+)`)

func blockedClients(t *testing.T, c *testutil.Conn) int {
	t.Helper()
	m := blockedClientsRE.FindStringSubmatch(clDo(t, c, "INFO", "clients").Str)
	if m == nil {
		t.Fatal("INFO clients has no blocked_clients")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// waitBlockedClients waits up to 3 s for INFO blocked_clients to reach n.
func waitBlockedClients(t *testing.T, c *testutil.Conn, n int) bool {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if blockedClients(t, c) == n {
			return true
		}
	}
	return false
}

// TestPauseHoldsExpiry checks that keys whose time to live passes during a CLIENT PAUSE read
// as absent but are not deleted (INFO expired_keys stays), and are deleted once the pause is
// lifted, on Strata and on redis-server.
func TestPauseHoldsExpiry(t *testing.T) {
	insts := []*testutil.Instance{testutil.StartStrata(t)}
	if r := testutil.MaybeStartRedis(t); r != nil {
		insts = append(insts, r)
	}
	for _, inst := range insts {
		t.Run(inst.Name, func(t *testing.T) {
			c := clConn(t, inst)
			before := expiredKeys(t, c)
			clExpect(t, c, "OK", "SET", "foo", "bar", "PX", "300")
			clExpect(t, c, "OK", "SET", "bar", "foo", "PX", "300")
			clExpect(t, c, "OK", "CLIENT", "PAUSE", "50000", "WRITE")
			time.Sleep(800 * time.Millisecond) // several active expiry cycles
			clExpect(t, c, "(nil)", "GET", "foo")
			clExpect(t, c, "(nil)", "GET", "bar")
			if n := expiredKeys(t, c); n != before {
				t.Errorf("expired_keys %d during the pause, want %d", n, before)
			}
			clExpect(t, c, "OK", "CLIENT", "UNPAUSE")
			for deadline := time.Now().Add(3 * time.Second); expiredKeys(t, c) != before+2; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("expired_keys %d 3s after UNPAUSE, want %d", expiredKeys(t, c), before+2)
				}
			}
		})
	}
}

var expiredKeysRE = regexp.MustCompile(`expired_keys:(\d+)`)

func expiredKeys(t *testing.T, c *testutil.Conn) int {
	t.Helper()
	m := expiredKeysRE.FindStringSubmatch(clDo(t, c, "INFO", "stats").Str)
	if m == nil {
		t.Fatal("INFO stats has no expired_keys")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
