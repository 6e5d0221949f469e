package tests

import (
	"strconv"
	"strings"
	"testing"
)

// TestSlowlog runs the same commands on Strata and redis-server with every command logged and
// compares what SLOWLOG GET keeps of each (the arguments, trimmed and redacted, and the client
// name), and SLOWLOG's errors, limits and LEN.
func TestSlowlog(t *testing.T) {
	t.Parallel()
	var got []string
	for _, inst := range servers(t) {
		c := dial(t, inst)
		other := dial(t, inst)
		mustDo(t, c, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "0")
		mustDo(t, c, "OK", "CONFIG", "SET", "slowlog-max-len", "128")
		t.Cleanup(func() {
			c := dial(t, inst)
			c.Do("CONFIG", "SET", "slowlog-log-slower-than", "10000")
			c.Do("ACL", "DELUSER", "slowlog-user")
		})
		mustDo(t, c, "OK", "SLOWLOG", "RESET")
		mustDo(t, c, "OK", "CLIENT", "SETNAME", "slow-client")
		args := []string{"SADD", "slowset"}
		for i := 0; i < 40; i++ {
			args = append(args, strings.Repeat("x", i*5))
		}
		for _, cmd := range [][]string{
			args,
			{"SET", "slowk", strings.Repeat("A", 129)},
			{"ACL", "SETUSER", "slowlog-user", "on", ">secret", "+get"},
			{"CONFIG", "SET", "requirepass", ""},
			{"AUTH", "default", "whatever"},
			{"MULTI"}, {"INCR", "slowc"}, {"GET", "slowc"}, {"EXEC"},
			{"EVAL", "return redis.call('get', KEYS[1])", "1", "slowc"},
			{"GETSET", "slowk", "5"},
			{"NOSUCHCOMMAND", "x"},
			{"GET"},
		} {
			c.Do(cmd...)
		}
		other.Do("PING")
		mustDo(t, c, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "-1")
		r, err := c.Do("SLOWLOG", "GET", "-1")
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, e := range r.Elems {
			if len(e.Elems) != 6 {
				t.Fatalf("%s: entry %v", inst.Name, e)
			}
			var parts []string
			for _, a := range e.Elems[3].Elems {
				parts = append(parts, a.Str)
			}
			peer := e.Elems[4].Str
			if strings.HasPrefix(peer, "127.0.0.1:") {
				peer = "a client"
			}
			lines = append(lines, strings.Join(parts, " ")+" | "+peer+" | "+e.Elems[5].Str)
		}
		mustDo(t, c, "(integer) "+strconv.Itoa(len(r.Elems)), "SLOWLOG", "LEN")
		one, _ := c.Do("SLOWLOG", "GET", "1")
		if len(one.Elems) != 1 || one.Elems[0].Elems[0].Int <= r.Elems[len(r.Elems)-1].Elems[0].Int {
			t.Errorf("%s: SLOWLOG GET 1 %v", inst.Name, one)
		}
		mustDo(t, c, "(error) ERR count should be greater than or equal to -1", "SLOWLOG", "GET", "-2")
		mustDo(t, c, "(error) ERR count should be greater than or equal to -1", "SLOWLOG", "GET", "x")
		mustDo(t, c, "(error) ERR wrong number of arguments for 'slowlog|len' command", "SLOWLOG", "LEN", "x")
		mustDo(t, c, "(error) ERR unknown subcommand 'NOPE'. Try SLOWLOG HELP.", "SLOWLOG", "NOPE")
		mustDo(t, c, "OK", "CONFIG", "SET", "slowlog-max-len", "2")
		mustDo(t, c, "(integer) "+strconv.Itoa(len(r.Elems)), "SLOWLOG", "LEN") // trimmed at the next entry
		mustDo(t, c, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "0")
		mustDo(t, c, "(integer) 2", "SLOWLOG", "LEN")
		mustDo(t, c, "OK", "SLOWLOG", "RESET")
		mustDo(t, c, "(integer) 1", "SLOWLOG", "LEN") // the RESET itself
		mustDo(t, c, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "-1")
		mustDo(t, c, "OK", "SLOWLOG", "RESET")
		mustDo(t, c, "(integer) 0", "SLOWLOG", "LEN")
		got = append(got, strings.Join(lines, "\n"))
	}
	if len(got) == 2 && got[0] != got[1] {
		t.Errorf("strata's slow log:\n%s\nredis-server's:\n%s", got[0], got[1])
	}
	if len(got) > 0 && !strings.Contains(got[0], "acl setuser (redacted) (redacted) (redacted) (redacted)") &&
		!strings.Contains(got[0], "ACL SETUSER (redacted)") {
		t.Errorf("ACL SETUSER not redacted:\n%s", got[0])
	}
}
