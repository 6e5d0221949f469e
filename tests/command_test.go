package tests

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// commandPair returns RESP3 connections to Strata and to redis-server (the test is skipped
// without one, or fails with STRATA_REQUIRE_EXTERNAL=1).
func commandPair(t *testing.T) (strata, redis *testutil.Conn) {
	t.Helper()
	rs := testutil.StartRedis(t)
	st := testutil.StartStrata(t)
	strata, redis = dial(t, st), dial(t, rs)
	for _, c := range []*testutil.Conn{strata, redis} {
		if r, err := c.Do("HELLO", "3"); err != nil || r.IsError() {
			t.Fatalf("HELLO 3: %v %v", r, err)
		}
	}
	return strata, redis
}

// doBoth sends one command to both servers and returns the two replies.
func doBoth(t *testing.T, strata, redis *testutil.Conn, args ...string) (s, r testutil.Reply) {
	t.Helper()
	var err error
	if s, err = strata.Do(args...); err != nil {
		t.Fatalf("strata %s: %v", strings.Join(args, " "), err)
	}
	if r, err = redis.Do(args...); err != nil {
		t.Fatalf("redis %s: %v", strings.Join(args, " "), err)
	}
	return s, r
}

// commandNames returns the names of a COMMAND LIST reply, sorted.
func commandNames(r testutil.Reply) []string {
	var names []string
	for _, e := range r.Elems {
		names = append(names, e.Str)
	}
	slices.Sort(names)
	return names
}

// TestCommandCountAndList: COMMAND COUNT and the names COMMAND LIST answers (commands and
// subcommands) equal redis-server's.
func TestCommandCountAndList(t *testing.T) {
	t.Parallel()
	strata, redis := commandPair(t)
	s, r := doBoth(t, strata, redis, "COMMAND", "COUNT")
	if s.Int != r.Int || s.Kind != r.Kind {
		t.Errorf("COMMAND COUNT: strata %s, redis %s", s, r)
	}
	s, r = doBoth(t, strata, redis, "COMMAND", "LIST")
	sn, rn := commandNames(s), commandNames(r)
	for _, n := range rn {
		if _, found := slices.BinarySearch(sn, n); !found {
			t.Errorf("COMMAND LIST: strata lacks %s", n)
		}
	}
	for _, n := range sn {
		if _, found := slices.BinarySearch(rn, n); !found && strataOnlySubcommands[n] == "" {
			t.Errorf("COMMAND LIST: strata has %s, redis does not", n)
		}
	}
}

// TestCommandListFilterBy: COMMAND LIST FILTERBY answers the names redis-server answers for
// every ACL category, a few patterns and a module.
func TestCommandListFilterBy(t *testing.T) {
	t.Parallel()
	strata, redis := commandPair(t)
	_, cats := doBoth(t, strata, redis, "ACL", "CAT")
	var filters [][]string
	for _, c := range cats.Elems {
		filters = append(filters, []string{"ACLCAT", c.Str})
	}
	for _, p := range []string{"*", "x*", "client|*", "*get*", "?et", "[a-c]*|*"} {
		filters = append(filters, []string{"PATTERN", p})
	}
	filters = append(filters, []string{"MODULE", "none"})
	for _, f := range filters {
		args := append([]string{"COMMAND", "LIST", "FILTERBY"}, f...)
		s, r := doBoth(t, strata, redis, args...)
		sn := slices.DeleteFunc(commandNames(s), func(n string) bool { return strataOnlySubcommands[n] != "" })
		if rn := commandNames(r); !slices.Equal(sn, rn) {
			t.Errorf("COMMAND LIST FILTERBY %s %s:\nstrata %v\nredis  %v", f[0], f[1], sn, rn)
		}
	}
}

// strataOnlySubcommands lists the subcommands Strata has beyond Redis 7.0's, with the reason.
// They are the only differences COMMAND LIST, DOCS and INFO may show.
var strataOnlySubcommands = map[string]string{
	"client|setinfo":  "Redis 7.2's, which client libraries send on connecting; shown in CLIENT LIST",
	"client|no-touch": "Redis 7.2's, to read keys without counting as their use",
}

// TestCommandDocsAndInfo: every command's COMMAND DOCS and COMMAND INFO entry (RESP3 reply
// trees, subcommands in any order) equals redis-server's.
func TestCommandDocsAndInfo(t *testing.T) {
	t.Parallel()
	strata, redis := commandPair(t)
	_, list := doBoth(t, strata, redis, "COMMAND", "LIST")
	for n := range strataOnlySubcommands {
		if r, err := strata.Do("COMMAND", "INFO", strings.Split(n, "|")[0]); err != nil || !strings.Contains(r.String(), `"`+n+`"`) {
			t.Errorf("COMMAND INFO does not show %s: drop it from strataOnlySubcommands", n)
		}
	}
	fails := 0
	for _, name := range commandNames(list) {
		if strings.Contains(name, "|") {
			continue // a subcommand: in its container's entry
		}
		s, r := doBoth(t, strata, redis, "COMMAND", "DOCS", name)
		if got, want := sortedSubcommands(withoutStrataOnly(s)).String(), sortedSubcommands(r).String(); got != want {
			fails++
			t.Errorf("COMMAND DOCS %s: %s", name, lineDiff(got, want))
		}
		s, r = doBoth(t, strata, redis, "COMMAND", "INFO", name)
		if got, want := sortedSubcommands(withoutStrataOnly(s)).String(), sortedSubcommands(r).String(); got != want {
			fails++
			t.Errorf("COMMAND INFO %s: %s", name, lineDiff(got, want))
		}
		if fails > 20 {
			t.Fatal("too many differences")
		}
	}
}

// withoutStrataOnly returns a COMMAND DOCS or COMMAND INFO reply of one command without the
// subcommands of strataOnlySubcommands.
func withoutStrataOnly(r testutil.Reply) testutil.Reply {
	switch {
	case r.Kind == testutil.KindMap && len(r.Elems) == 2: // COMMAND DOCS: name => doc map
		doc := r.Elems[1]
		for j := 0; j+1 < len(doc.Elems); j += 2 {
			if doc.Elems[j].Str == "subcommands" {
				subs := doc.Elems[j+1]
				var kept []testutil.Reply
				for k := 0; k+1 < len(subs.Elems); k += 2 {
					if strataOnlySubcommands[subs.Elems[k].Str] == "" {
						kept = append(kept, subs.Elems[k], subs.Elems[k+1])
					}
				}
				subs.Elems = kept
				doc.Elems = slices.Clone(doc.Elems)
				doc.Elems[j+1] = subs
			}
		}
		r.Elems = []testutil.Reply{r.Elems[0], doc}
	case r.Kind == testutil.KindArray && len(r.Elems) == 1 && len(r.Elems[0].Elems) == 10: // COMMAND INFO
		info := r.Elems[0]
		subs := info.Elems[9]
		subs.Elems = slices.DeleteFunc(slices.Clone(subs.Elems), func(e testutil.Reply) bool {
			return len(e.Elems) > 0 && strataOnlySubcommands[e.Elems[0].Str] != ""
		})
		info.Elems = slices.Clone(info.Elems)
		info.Elems[9] = subs
		r.Elems = []testutil.Reply{info}
	}
	return r
}

// lineDiff shows where two renderings first differ, with a few lines around.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	from := max(0, i-3)
	return fmt.Sprintf("from line %d:\nstrata %s\nredis  %s", i+1,
		strings.Join(g[from:min(len(g), i+4)], "\n       "), strings.Join(w[from:min(len(w), i+4)], "\n       "))
}

// sortedSubcommands returns a COMMAND DOCS or COMMAND INFO reply with every command's
// subcommands sorted, as Redis lists them in the order of a hash table.
func sortedSubcommands(r testutil.Reply) testutil.Reply {
	switch r.Kind {
	case testutil.KindMap: // COMMAND DOCS: name, doc map, ...
		r.Elems = slices.Clone(r.Elems)
		for i := 1; i < len(r.Elems); i += 2 {
			doc := r.Elems[i]
			doc.Elems = slices.Clone(doc.Elems)
			for j := 0; j+1 < len(doc.Elems); j += 2 {
				if doc.Elems[j].Str == "subcommands" {
					doc.Elems[j+1] = doc.Elems[j+1].Sorted()
				}
			}
			r.Elems[i] = doc
		}
	case testutil.KindArray: // COMMAND INFO: one array of ten per command
		r.Elems = slices.Clone(r.Elems)
		for i, e := range r.Elems {
			if len(e.Elems) == 10 {
				e.Elems = slices.Clone(e.Elems)
				e.Elems[9] = e.Elems[9].Sorted()
				r.Elems[i] = e
			}
		}
	}
	return r
}

// TestCommandGetKeys: COMMAND GETKEYS and GETKEYSANDFLAGS answer what redis-server answers,
// errors included, for commands of every kind of key specification.
func TestCommandGetKeys(t *testing.T) {
	t.Parallel()
	strata, redis := commandPair(t)
	cases := []string{
		"GET k", "SET k v", "MSET a 1 b 2", "MGET a b c", "DEL a b", "RENAME a b",
		"ZUNIONSTORE d 2 a b WEIGHTS 1 2", "ZUNIONSTORE d x a", "ZINTER 2 a b", "LMPOP 2 a b LEFT",
		"BLMPOP 0 2 a b LEFT", "EVAL s 2 k1 k2 a", "EVAL s 0", "FCALL f 1 k", "SORT k BY w GET g STORE d",
		"SORT_RO k", "XREAD COUNT 2 STREAMS s1 s2 0 0", "XREADGROUP GROUP g c STREAMS s 0",
		"GEORADIUS k 0 0 1 km STORE d", "MIGRATE h 1 k 0 1", "MIGRATE h 1 \"\" 0 1 KEYS a b",
		"OBJECT ENCODING k", "MEMORY USAGE k", "XINFO STREAM s", "XGROUP CREATE s g $",
		"BITOP AND d a b", "LCS a b", "PING", "GET", "NOSUCH k", "CLIENT NOSUCH", "SET k",
		"SINTERCARD 2 a b LIMIT 1", "BZMPOP 0 1 a MIN", "COPY a b", "GEOSEARCHSTORE d s FROMMEMBER m BYRADIUS 1 km",
	}
	for _, c := range cases {
		args := strings.Fields(c)
		for i, a := range args {
			if a == `""` {
				args[i] = ""
			}
		}
		for _, sub := range []string{"GETKEYS", "GETKEYSANDFLAGS"} {
			s, r := doBoth(t, strata, redis, append([]string{"COMMAND", sub}, args...)...)
			if s.String() != r.String() {
				t.Errorf("COMMAND %s %s:\nstrata %s\nredis  %s", sub, c, s, r)
			}
		}
	}
}
