package tests

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMonitor runs the same commands on Strata and redis-server with a client in MONITOR and
// compares the lines it receives (timestamps and addresses masked): commands run after MULTI,
// inside EXEC and by scripts ("lua"), redaction, the database number, quoting, and the
// administrative commands left out.
func TestMonitor(t *testing.T) {
	t.Parallel()
	stamp := regexp.MustCompile(`^\d+\.\d{6} \[(\d+) (127\.0\.0\.1:\d+|lua)\] `)
	var got []string
	for _, inst := range servers(t) {
		mon := dial(t, inst)
		mustDo(t, mon, "OK", "MONITOR")
		c := dial(t, inst)
		cmds := [][]string{
			{"SET", "mk", "a b\"c\\\n\x01\xff"},
			{"GET", "mk"},
			{"SELECT", "2"}, {"SET", "x", "1"}, {"SELECT", "0"},
			{"EVAL", "return redis.call('get', KEYS[1])", "1", "mk"},
			{"MULTI"}, {"INCR", "mc"}, {"EXEC"},
			{"AUTH", "nobody", "pass"},
			{"HELLO", "2", "AUTH", "nobody", "pass"},
			{"CONFIG", "GET", "port"}, {"CLIENT", "LIST"}, {"CLIENT", "ID"},
			{"BLPOP", "nolist", "0.01"},
			{"NOSUCHCOMMAND"},
			{"PING"},
		}
		for _, cmd := range cmds {
			c.Do(cmd...)
		}
		var lines []string
		for {
			mon.Timeout = 2 * time.Second
			r, err := mon.ReadReply()
			if err != nil {
				t.Fatalf("%s: monitor read: %v (after %q)", inst.Name, err, lines)
			}
			m := stamp.FindStringSubmatch(r.Str)
			if m == nil {
				t.Fatalf("%s: monitor line %q", inst.Name, r.Str)
			}
			who := "client"
			if m[2] == "lua" {
				who = "lua"
			}
			line := m[1] + " " + who + " " + r.Str[len(m[0]):]
			lines = append(lines, line)
			if strings.HasSuffix(line, `"PING"`) {
				break
			}
		}
		got = append(got, strings.Join(lines, "\n"))
		// RESET ends MONITOR: the connection answers its own commands and nothing else.
		mustDo(t, mon, "RESET", "RESET")
		c.Do("SET", "after-reset", "1")
		mustDo(t, mon, "PONG", "PING")
		c2 := dial(t, inst)
		mustDo(t, c2, "OK", "MULTI")
		mustDo(t, c2, "QUEUED", "MONITOR")
		mustDo(t, c2, "1) (error) ERR MONITOR isn't allowed for DENY BLOCKING client", "EXEC")
	}
	if len(got) == 2 && got[0] != got[1] {
		t.Errorf("strata's monitor:\n%s\nredis-server's:\n%s", got[0], got[1])
	}
}
