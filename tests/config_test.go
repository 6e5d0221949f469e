package tests

import (
	"strings"
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// configDiffers lists the directives whose CONFIG GET value differs from a default
// redis-server's by design, with the reason.
var configDiffers = map[string]string{
	"port":       "each server listens on its own port",
	"dir":        "each server has its own directory",
	"bind":       "the test servers bind 127.0.0.1 (Redis's default is * -::*)",
	"appendonly": "Strata journals every write; the reference server runs with appendonly no",
	"list-max-listpack-size": "Strata's list nodes default to 32 elements, as a push rewrites " +
		"the end node (storage.DefaultListFill)",
	"list-max-ziplist-size": "the alias of list-max-listpack-size",
}

// TestConfigGetAll checks that CONFIG GET * answers every directive a redis-server 7.0
// answers, with the same value where the directive has no Strata meaning that differs
// (configDiffers), and that every directive it answers can be set to the value it has, as
// Redis's CONFIG sanity test does.
func TestConfigGetAll(t *testing.T) {
	t.Parallel()
	redis := testutil.StartRedis(t)
	strata := testutil.StartStrata(t)
	read := func(inst *testutil.Instance) map[string]string {
		c := dial(t, inst)
		r, err := c.Do("CONFIG", "GET", "*")
		if err != nil || r.Kind != testutil.KindArray || len(r.Elems)%2 != 0 {
			t.Fatalf("%s: CONFIG GET *: %v %v", inst.Name, r, err)
		}
		m := map[string]string{}
		for i := 0; i < len(r.Elems); i += 2 {
			m[r.Elems[i].Str] = r.Elems[i+1].Str
		}
		return m
	}
	want, got := read(redis), read(strata)
	for name, v := range want {
		sv, ok := got[name]
		switch {
		case !ok:
			t.Errorf("CONFIG GET * lacks %s (redis: %q)", name, v)
		case sv != v && configDiffers[name] == "":
			t.Errorf("CONFIG GET %s = %q, redis %q", name, sv, v)
		}
	}
	// Every directive takes the value it has, but the ones Redis cannot set while running
	// (or only with enable-protected-configs) and requirepass, which would need AUTH after.
	c := dial(t, strata)
	for name, v := range got {
		r, err := c.Do("CONFIG", "SET", name, v)
		if err != nil {
			t.Fatal(err)
		}
		if r.IsError() && !strings.Contains(r.Str, "immutable config") && !strings.Contains(r.Str, "protected config") {
			t.Errorf("CONFIG SET %s %q: %s", name, v, r.Str)
		}
	}
}
