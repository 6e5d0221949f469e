package tests

import (
	"regexp"
	"strings"
	"testing"

	"github.com/strata-db/strata/config"
)

// TestScriptCallStats: the commands a script runs count in INFO commandstats (calls and failed
// calls) and their errors in errorstats, once: a script that raises or returns the error of a
// command it ran is a failed call of the script but no second error. Run against redis-server
// too where it is installed.
func TestScriptCallStats(t *testing.T) {
	for _, inst := range limitServers(t, func(*config.Config) {}) {
		t.Run(inst.Name, func(t *testing.T) {
			c := dial(t, inst)
			mustDo(t, c, "OK", "SET", "stats:s", "abc")
			mustDo(t, c, "OK", "CONFIG", "RESETSTAT")
			c.Do("EVAL", "return redis.call('incr', KEYS[1])", "1", "stats:s")
			c.Do("EVAL", "return redis.pcall('incr', KEYS[1])", "1", "stats:s")
			c.Do("EVAL", "redis.pcall('incr', KEYS[1]) return 1", "1", "stats:s")
			c.Do("EVAL", "redis.call('set', KEYS[1], 'x') redis.call('get', KEYS[1]) return nosuch()", "1", "stats:k")
			c.Do("EVAL", "return redis.call('nosuchcommand')", "0")
			stats := func(section string) string {
				r, err := c.Do("INFO", section)
				if err != nil {
					t.Fatal(err)
				}
				return r.Str
			}
			cmd := stats("commandstats")
			for name, want := range map[string]string{"incr": "calls=3,", "set": "calls=1,", "get": "calls=1,", "eval": "calls=5,"} {
				line := regexp.MustCompile(`cmdstat_` + name + `:[^\r\n]*`).FindString(cmd)
				if !strings.Contains(line, want) {
					t.Errorf("cmdstat_%s: %q, want %s", name, line, want)
				}
			}
			for name, want := range map[string]string{"incr": "failed_calls=3", "set": "failed_calls=0", "eval": "failed_calls=4"} {
				line := regexp.MustCompile(`cmdstat_` + name + `:[^\r\n]*`).FindString(cmd)
				if !strings.Contains(line, want) {
					t.Errorf("cmdstat_%s: %q, want %s", name, line, want)
				}
			}
			// Three INCR errors, counted once each; the Lua error and the unknown command are the
			// scripts' own.
			if e := stats("errorstats"); !strings.Contains(e, "errorstat_ERR:count=5\r\n") {
				t.Errorf("errorstats: %q", e)
			}
			if s := stats("stats"); !strings.Contains(s, "total_error_replies:5\r\n") {
				t.Errorf("total_error_replies: %q", regexp.MustCompile(`total_error_replies:\d+`).FindString(s))
			}
		})
	}
}
