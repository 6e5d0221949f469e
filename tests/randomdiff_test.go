package tests

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/storage"
)

// TestRandomDiff runs seeded random command sequences over every data type (strings with bit
// operations, lists, hashes, sets, sorted sets, expiry with long TTLs, keyspace commands) against
// Strata and redis-server and compares every reply. Keys are drawn from a small shared pool, so
// commands often meet a key of another type (WRONGTYPE) or a missing one, and arguments are
// sometimes malformed, so error texts are compared too. Replies of unordered commands are
// sorted before comparing; commands with random results (SPOP, SRANDMEMBER, RANDOMKEY, ...)
// are not used; TTLs are compared within a second, since the servers run a command a few
// microseconds apart.
//
// After every command the key counts are compared too, which catches a write that answers the
// same but does something else (STRATA_RANDOMDIFF_DEEP=0 turns that off).
//
// STRATA_RANDOMDIFF_N sets the number of commands per protocol (default 2500, RESP2 then
// RESP3), STRATA_RANDOMDIFF_SEED the seed, STRATA_RANDOMDIFF_ALL=1 reports every mismatch
// instead of stopping at the first; scripts/randomdiff.sh runs a long one. Differences already
// reported to the code's owners are listed in knownMismatch: they are logged, not failed.
func TestRandomDiff(t *testing.T) {
	t.Parallel()
	n, seed := randomMixSize(t, 2500) // per protocol
	all := os.Getenv("STRATA_RANDOMDIFF_ALL") == "1"
	deep := os.Getenv("STRATA_RANDOMDIFF_DEEP") != "0"
	redis := testutil.StartRedis(t)
	strata := testutil.StartStrata(t)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			rc, sc := dial(t, redis), dial(t, strata)
			for _, c := range []*testutil.Conn{rc, sc} {
				mustDo(t, c, "OK", "FLUSHALL")
				if proto == 3 {
					if r, err := c.Do("HELLO", "3"); err != nil || r.IsError() {
						t.Fatalf("HELLO 3: %v %v", r, err)
					}
				}
			}
			g := &cmdGen{rng: rand.New(rand.NewSource(seed + int64(proto)))}
			var history []string
			mismatches := 0
			known := map[string]int{}
			defer func() {
				for why, n := range known {
					t.Logf("known mismatch seen %d times (reported, not failed): %s", n, why)
				}
			}()
			for i := 0; i < n; i++ {
				args, cmp := g.next()
				history = append(history, quoteArgs(args))
				if len(history) > 12 {
					history = history[1:]
				}
				want, err := rc.Do(args...)
				if err != nil {
					t.Fatalf("redis: %s: %v", quoteArgs(args), err)
				}
				got, err := sc.Do(args...)
				if err != nil {
					t.Fatalf("strata: %s: %v", quoteArgs(args), err)
				}
				if cmp(want, got) && deep {
					// Compare the key counts after every command, to find a write that
					// answered the same but did something else.
					w, _ := rc.Do("DBSIZE")
					s, _ := sc.Do("DBSIZE")
					if w.String() != s.String() {
						want, got = w, s
						args = append([]string{"(DBSIZE after)"}, args...)
					} else {
						continue
					}
				} else if cmp(want, got) {
					continue
				}
				if why := knownMismatch(args, want, got); why != "" {
					known[why]++
					for _, c := range []*testutil.Conn{rc, sc} {
						c.Do("FLUSHALL") // the servers may now hold different data
					}
					continue
				}
				mismatches++
				t.Errorf("mismatch at command %d (seed %d, RESP%d): %s\n  redis:  %s\n  strata: %s\n  preceding commands:\n    %s",
					i, seed, proto, quoteArgs(args), indent(want.String()), indent(got.String()),
					strings.Join(history[:len(history)-1], "\n    "))
				if !all || mismatches >= 100 {
					return
				}
				// Resynchronise: the servers may now hold different data.
				for _, c := range []*testutil.Conn{rc, sc} {
					c.Do("FLUSHALL")
				}
			}
			// The final state, key by key.
			for _, cmp := range [][]string{{"DBSIZE"}, {"KEYS", "*"}} {
				want, _ := rc.Do(cmp...)
				got, _ := sc.Do(cmp...)
				if want.Sorted().String() != got.Sorted().String() {
					t.Errorf("final %v: redis %s, strata %s", cmp, want.Sorted(), got.Sorted())
				}
			}
			if err := checkInvariantsOf(strata); err != nil {
				t.Errorf("invariants: %v", err)
			}
		})
	}
}

func checkInvariantsOf(inst *testutil.Instance) error {
	return storage.CheckInvariants(inst.Server.Store())
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n          ") }

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \"'\\\r\n\t") || strings.IndexFunc(a, func(r rune) bool { return r < 32 || r > 126 }) >= 0 {
			q[i] = strconv.Quote(a)
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

// comparer decides whether two replies agree.
type comparer func(want, got testutil.Reply) bool

func exact(want, got testutil.Reply) bool { return want.String() == got.String() }

func unordered(want, got testutil.Reply) bool {
	return want.Sorted().String() == got.Sorted().String()
}

// pairs compares flat field/value arrays (RESP2 HGETALL, ...) or maps as sets of pairs.
func pairs(want, got testutil.Reply) bool {
	norm := func(r testutil.Reply) string {
		if r.Kind != testutil.KindArray && r.Kind != testutil.KindMap {
			return r.String()
		}
		var ps []string
		for i := 0; i+1 < len(r.Elems); i += 2 {
			ps = append(ps, r.Elems[i].String()+" => "+r.Elems[i+1].String())
		}
		sort.Strings(ps)
		return fmt.Sprint(r.Kind, ps)
	}
	return norm(want) == norm(got)
}

// within compares integer replies within tol (TTLs: the servers run the command at slightly
// different moments); negative values (no key, no expiry) must be equal.
func within(tol int64) comparer {
	return func(want, got testutil.Reply) bool {
		if want.Kind != testutil.KindInteger || got.Kind != testutil.KindInteger || want.Int < 0 || got.Int < 0 {
			return exact(want, got)
		}
		d := want.Int - got.Int
		return d >= -tol && d <= tol
	}
}

// cmdGen draws random commands.
type cmdGen struct {
	rng *rand.Rand
}

func (g *cmdGen) pick(xs ...string) string { return xs[g.rng.Intn(len(xs))] }
func (g *cmdGen) chance(p float64) bool    { return g.rng.Float64() < p }

// key draws from a pool shared by every type, so types collide.
func (g *cmdGen) key() string { return "k" + strconv.Itoa(g.rng.Intn(14)) }

func (g *cmdGen) member() string {
	if g.chance(0.03) {
		return g.pick("", "with space", "\x00bin\xff", "ünï", strings.Repeat("long", 30))
	}
	return g.pick("a", "b", "c", "d", "e", "f", "g", "h", "1", "2", "10", "-3")
}

func (g *cmdGen) value() string {
	switch g.rng.Intn(10) {
	case 0:
		return strconv.Itoa(g.rng.Intn(2000) - 1000)
	case 1:
		return g.pick("3.5", "-0.25", "1e3", "inf", "nan", "0x10", " 5", "")
	case 2:
		return strings.Repeat(g.pick("x", "yz"), g.rng.Intn(200))
	}
	return g.member() + g.member()
}

// integer draws a valid integer, sometimes an invalid one.
func (g *cmdGen) integer(lo, hi int) string {
	if g.chance(0.04) {
		return g.pick("x", "1.5", "", "99999999999999999999", "-9223372036854775808", "9223372036854775807", "+1", " 1")
	}
	return strconv.Itoa(lo + g.rng.Intn(hi-lo+1))
}

func (g *cmdGen) score() string {
	if g.chance(0.05) {
		return g.pick("inf", "-inf", "+inf", "nan", "x", "1e400", "0.1", "-0", "3.0000000001")
	}
	if g.chance(0.2) {
		return strconv.FormatFloat(float64(g.rng.Intn(2000)-1000)/8, 'f', -1, 64)
	}
	return strconv.Itoa(g.rng.Intn(20) - 5)
}

func (g *cmdGen) scoreRange() string {
	if g.chance(0.3) {
		return g.pick("-inf", "+inf", "(1", "(-2", "(inf", "x", "(")
	}
	return g.score()
}

func (g *cmdGen) lexRange() string {
	return g.pick("-", "+", "[a", "(b", "[c", "(e", "[", "x", "[1", "(")
}

// future returns a unix time in seconds well ahead, so keys never expire during the run.
func (g *cmdGen) future() int64 { return time.Now().Unix() + 100000 + int64(g.rng.Intn(100000)) }

func (g *cmdGen) keys(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.key()
	}
	return out
}

// next returns a command and how to compare its replies.
func (g *cmdGen) next() ([]string, comparer) {
	k := g.key()
	switch g.rng.Intn(8) {
	case 0:
		return g.stringCmd(k)
	case 1:
		return g.listCmd(k)
	case 2:
		return g.hashCmd(k)
	case 3:
		return g.setCmd(k)
	case 4, 5:
		return g.zsetCmd(k)
	case 6:
		return g.streamCmd(k) // randomdiff_streams_test.go
	}
	return g.keyspaceCmd(k)
}

func (g *cmdGen) stringCmd(k string) ([]string, comparer) {
	switch g.rng.Intn(24) {
	case 0, 1:
		args := []string{"SET", k, g.value()}
		if g.chance(0.3) {
			args = append(args, g.pick("NX", "XX", "GET", "KEEPTTL"))
		}
		if g.chance(0.2) {
			switch opt := g.pick("EX", "PX", "EXAT", "PXAT"); opt {
			case "EX":
				args = append(args, opt, g.integer(100000, 200000))
			case "PX":
				args = append(args, opt, g.integer(100000000, 200000000))
			case "EXAT":
				args = append(args, opt, strconv.FormatInt(g.future(), 10))
			case "PXAT":
				args = append(args, opt, strconv.FormatInt(g.future()*1000+int64(g.rng.Intn(1000)), 10))
			}
		}
		return args, exact
	case 2, 3:
		return []string{"GET", k}, exact
	case 4:
		return []string{"APPEND", k, g.value()}, exact
	case 5:
		return []string{g.pick("INCR", "DECR"), k}, exact
	case 6:
		return []string{g.pick("INCRBY", "DECRBY"), k, g.integer(-100, 100)}, exact
	case 7:
		return []string{"INCRBYFLOAT", k, g.pick("1.5", "-0.1", "3", "1e2", "x", "inf", "0.0000001")}, exact
	case 8:
		return []string{"STRLEN", k}, exact
	case 9:
		return []string{"SETRANGE", k, g.integer(0, 40), g.value()}, exact
	case 10:
		return []string{"GETRANGE", k, g.integer(-20, 20), g.integer(-20, 20)}, exact
	case 11:
		args := []string{"MSET"}
		for i := 0; i < 1+g.rng.Intn(3); i++ {
			args = append(args, g.key(), g.value())
		}
		return args, exact
	case 12:
		return append([]string{"MGET"}, g.keys(1+g.rng.Intn(4))...), exact
	case 13:
		return []string{g.pick("GETSET", "SETNX"), k, g.value()}, exact
	case 14:
		return []string{"GETDEL", k}, exact
	case 15:
		switch g.rng.Intn(4) {
		case 0:
			return []string{"GETEX", k, "EX", g.integer(100000, 200000)}, exact
		case 1:
			return []string{"GETEX", k, "PXAT", strconv.FormatInt(g.future()*1000, 10)}, exact
		case 2:
			return []string{"GETEX", k, "PERSIST"}, exact
		}
		return []string{"GETEX", k}, exact
	case 16:
		return []string{"SETBIT", k, g.integer(0, 100), g.pick("0", "1", "2")}, exact
	case 17:
		return []string{"GETBIT", k, g.integer(0, 100)}, exact
	case 18:
		args := []string{"BITCOUNT", k}
		if g.chance(0.5) {
			args = append(args, g.integer(-5, 5), g.integer(-5, 5))
			if g.chance(0.5) {
				args = append(args, g.pick("BYTE", "BIT"))
			}
		}
		return args, exact
	case 19:
		args := []string{"BITPOS", k, g.pick("0", "1")}
		if g.chance(0.5) {
			args = append(args, g.integer(-5, 5))
		}
		return args, exact
	case 20:
		op := g.pick("AND", "OR", "XOR", "NOT")
		args := []string{"BITOP", op, g.key(), k}
		if op != "NOT" {
			args = append(args, g.key())
		}
		return args, exact
	case 21:
		return []string{"MSETNX", k, g.value(), g.key(), g.value()}, exact
	case 22:
		return []string{g.pick("SETEX", "PSETEX"), k, g.integer(100000, 200000), g.value()}, exact
	}
	return []string{"SUBSTR", k, g.integer(0, 5), g.integer(-3, 10)}, exact
}

func (g *cmdGen) listCmd(k string) ([]string, comparer) {
	switch g.rng.Intn(20) {
	case 0, 1, 2:
		args := []string{g.pick("LPUSH", "RPUSH", "LPUSHX", "RPUSHX"), k}
		for i := 0; i < 1+g.rng.Intn(4); i++ {
			args = append(args, g.member())
		}
		return args, exact
	case 3:
		args := []string{g.pick("LPOP", "RPOP"), k}
		if g.chance(0.4) {
			args = append(args, g.integer(0, 4))
		}
		return args, exact
	case 4, 5:
		return []string{"LRANGE", k, g.integer(-6, 6), g.integer(-6, 6)}, exact
	case 6:
		return []string{"LINDEX", k, g.integer(-6, 6)}, exact
	case 7:
		return []string{"LSET", k, g.integer(-4, 4), g.member()}, exact
	case 8:
		return []string{"LINSERT", k, g.pick("BEFORE", "AFTER", "MIDDLE"), g.member(), g.member()}, exact
	case 9:
		return []string{"LREM", k, g.integer(-2, 2), g.member()}, exact
	case 10:
		return []string{"LTRIM", k, g.integer(-6, 6), g.integer(-6, 6)}, exact
	case 11:
		return []string{"LLEN", k}, exact
	case 12:
		args := []string{"LPOS", k, g.member()}
		if g.chance(0.4) {
			args = append(args, "RANK", g.pick("1", "-1", "2", "0"))
		}
		if g.chance(0.4) {
			args = append(args, "COUNT", g.integer(0, 3))
		}
		if g.chance(0.2) {
			args = append(args, "MAXLEN", g.integer(0, 5))
		}
		return args, exact
	case 13:
		return []string{"LMOVE", k, g.key(), g.pick("LEFT", "RIGHT"), g.pick("LEFT", "RIGHT")}, exact
	case 14:
		return []string{"RPOPLPUSH", k, g.key()}, exact
	case 15:
		args := []string{"LMPOP", "2", k, g.key(), g.pick("LEFT", "RIGHT")}
		if g.chance(0.5) {
			args = append(args, "COUNT", g.integer(1, 3))
		}
		return args, exact
	case 16:
		// Non-blocking forms of blocking pops: a key that holds elements answers at once;
		// a tiny timeout otherwise.
		return []string{g.pick("BLPOP", "BRPOP"), k, g.key(), "0.01"}, exact
	}
	return []string{"LRANGE", k, "0", "-1"}, exact
}

func (g *cmdGen) hashCmd(k string) ([]string, comparer) {
	switch g.rng.Intn(18) {
	case 0, 1, 2:
		args := []string{g.pick("HSET", "HMSET"), k}
		for i := 0; i < 1+g.rng.Intn(3); i++ {
			args = append(args, g.member(), g.value())
		}
		return args, exact
	case 3:
		return []string{"HSETNX", k, g.member(), g.value()}, exact
	case 4, 5:
		return []string{"HGET", k, g.member()}, exact
	case 6:
		return []string{"HMGET", k, g.member(), g.member()}, exact
	case 7:
		return []string{"HDEL", k, g.member(), g.member()}, exact
	case 8:
		return []string{"HLEN", k}, exact
	case 9:
		return []string{"HEXISTS", k, g.member()}, exact
	case 10:
		return []string{"HINCRBY", k, g.member(), g.integer(-10, 10)}, exact
	case 11:
		return []string{"HINCRBYFLOAT", k, g.member(), g.pick("1.5", "-2", "0.1", "x", "1e5")}, exact
	case 12:
		return []string{"HSTRLEN", k, g.member()}, exact
	case 13:
		return []string{g.pick("HKEYS", "HVALS"), k}, unordered
	}
	return []string{"HGETALL", k}, pairs
}

func (g *cmdGen) setCmd(k string) ([]string, comparer) {
	switch g.rng.Intn(16) {
	case 0, 1, 2:
		args := []string{"SADD", k}
		for i := 0; i < 1+g.rng.Intn(4); i++ {
			args = append(args, g.member())
		}
		return args, exact
	case 3:
		return []string{"SREM", k, g.member(), g.member()}, exact
	case 4:
		return []string{"SISMEMBER", k, g.member()}, exact
	case 5:
		return []string{"SMISMEMBER", k, g.member(), g.member(), g.member()}, exact
	case 6:
		return []string{"SCARD", k}, exact
	case 7, 8:
		return []string{"SMEMBERS", k}, unordered
	case 9:
		return []string{g.pick("SINTER", "SUNION", "SDIFF"), k, g.key(), g.key()}, unordered
	case 10:
		return []string{g.pick("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), g.key(), k, g.key()}, exact
	case 11:
		args := []string{"SINTERCARD", "2", k, g.key()}
		if g.chance(0.4) {
			args = append(args, "LIMIT", g.integer(0, 3))
		}
		return args, exact
	case 12:
		return []string{"SMOVE", k, g.key(), g.member()}, exact
	}
	return []string{"SMEMBERS", k}, unordered
}

func (g *cmdGen) zsetCmd(k string) ([]string, comparer) {
	withScores := func(args []string) []string {
		if g.chance(0.5) {
			args = append(args, "WITHSCORES")
		}
		return args
	}
	switch g.rng.Intn(26) {
	case 0, 1, 2, 3:
		args := []string{"ZADD", k}
		if g.chance(0.25) {
			args = append(args, g.pick("NX", "XX", "GT", "LT", "CH", "NX GT", "XX LT CH"))
			args = append(args[:2], strings.Fields(args[2])...)
		}
		if g.chance(0.1) {
			args = append(args, "INCR", g.score(), g.member())
			return args, exact
		}
		for i := 0; i < 1+g.rng.Intn(3); i++ {
			args = append(args, g.score(), g.member())
		}
		return args, exact
	case 4:
		return []string{"ZREM", k, g.member(), g.member()}, exact
	case 5:
		return []string{"ZSCORE", k, g.member()}, exact
	case 6:
		return []string{"ZMSCORE", k, g.member(), g.member()}, exact
	case 7:
		return []string{"ZINCRBY", k, g.score(), g.member()}, exact
	case 8:
		return []string{"ZCARD", k}, exact
	case 9:
		return []string{"ZCOUNT", k, g.scoreRange(), g.scoreRange()}, exact
	case 10:
		return g.lexCmd()
	case 11, 12:
		return withScores([]string{"ZRANGE", k, g.integer(-5, 5), g.integer(-5, 5)}), exact
	case 13:
		args := []string{"ZRANGE", k, g.scoreRange(), g.scoreRange(), "BYSCORE"}
		if g.chance(0.3) {
			args = append(args, "REV")
		}
		if g.chance(0.3) {
			args = append(args, "LIMIT", g.integer(-1, 3), g.integer(-1, 3))
		}
		return withScores(args), exact
	case 14:
		return g.lexCmd()
	case 15:
		return withScores([]string{g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), k, g.scoreRange(), g.scoreRange()}), exact
	case 16:
		return withScores([]string{"ZREVRANGE", k, g.integer(-5, 5), g.integer(-5, 5)}), exact
	case 17:
		return []string{g.pick("ZRANK", "ZREVRANK"), k, g.member()}, exact
	case 18:
		switch g.rng.Intn(3) {
		case 0:
			return []string{"ZREMRANGEBYSCORE", k, g.scoreRange(), g.scoreRange()}, exact
		case 1:
			return []string{"ZREMRANGEBYRANK", k, g.integer(-4, 4), g.integer(-4, 4)}, exact
		}
		return g.lexCmd()
	case 19:
		args := []string{g.pick("ZPOPMIN", "ZPOPMAX"), k}
		if g.chance(0.5) {
			args = append(args, g.integer(0, 3))
		}
		return args, exact
	case 20:
		args := []string{g.pick("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"), g.key(), "2", k, g.key()}
		if args[0] != "ZDIFFSTORE" {
			if g.chance(0.3) {
				args = append(args, "WEIGHTS", g.score(), g.score())
			}
			if g.chance(0.3) {
				args = append(args, "AGGREGATE", g.pick("SUM", "MIN", "MAX"))
			}
		}
		return args, exact
	case 21:
		return withScores([]string{g.pick("ZUNION", "ZINTER", "ZDIFF"), "2", k, g.key()}), exact
	case 22:
		return []string{"ZRANGESTORE", g.key(), k, g.integer(0, 3), g.integer(-3, 3)}, exact
	case 23:
		args := []string{"ZMPOP", "2", k, g.key(), g.pick("MIN", "MAX")}
		if g.chance(0.5) {
			args = append(args, "COUNT", g.integer(1, 3))
		}
		return args, exact
	case 24:
		return []string{"ZINTERCARD", "2", k, g.key()}, exact
	}
	return []string{"ZRANGE", k, "0", "-1", "WITHSCORES"}, exact
}

// lexCmd works on sorted sets whose members all have score 0: lexicographic ranges are
// undefined in Redis when scores differ. Only this generator writes the lex* keys.
func (g *cmdGen) lexCmd() ([]string, comparer) {
	k := "lex" + strconv.Itoa(g.rng.Intn(3))
	switch g.rng.Intn(8) {
	case 0, 1, 2:
		args := []string{"ZADD", k}
		for i := 0; i < 1+g.rng.Intn(3); i++ {
			args = append(args, "0", g.member())
		}
		return args, exact
	case 3:
		return []string{"ZLEXCOUNT", k, g.lexRange(), g.lexRange()}, exact
	case 4:
		return []string{"ZREMRANGEBYLEX", k, g.lexRange(), g.lexRange()}, exact
	case 5:
		args := []string{"ZRANGE", k, g.lexRange(), g.lexRange(), "BYLEX"}
		if g.chance(0.4) {
			args = append(args, "REV")
		}
		if g.chance(0.3) {
			args = append(args, "LIMIT", g.integer(0, 2), g.integer(-1, 3))
		}
		return args, exact
	case 6:
		return []string{"ZREM", k, g.member()}, exact
	}
	args := []string{g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), k, g.lexRange(), g.lexRange()}
	if g.chance(0.3) {
		args = append(args, "LIMIT", g.integer(0, 2), g.integer(-1, 3))
	}
	return args, exact
}

func (g *cmdGen) keyspaceCmd(k string) ([]string, comparer) {
	switch g.rng.Intn(22) {
	case 0:
		return append([]string{g.pick("DEL", "UNLINK")}, g.keys(1+g.rng.Intn(3))...), exact
	case 1:
		return append([]string{"EXISTS"}, g.keys(1+g.rng.Intn(3))...), exact
	case 2:
		return []string{"TYPE", k}, exact
	case 3:
		return []string{g.pick("RENAME", "RENAMENX"), k, g.key()}, exact
	case 4:
		args := []string{"COPY", k, g.key()}
		if g.chance(0.5) {
			args = append(args, "REPLACE")
		}
		return args, exact
	case 5:
		return []string{"EXPIRE", k, g.integer(100000, 200000)}, exact
	case 6:
		args := []string{g.pick("EXPIRE", "PEXPIRE"), k, g.integer(100000, 200000)}
		if args[0] == "PEXPIRE" {
			args[2] += "000"
		}
		if g.chance(0.4) {
			args = append(args, g.pick("NX", "XX", "GT", "LT"))
		}
		return args, exact
	case 7:
		return []string{"EXPIREAT", k, strconv.FormatInt(g.future(), 10)}, exact
	case 8:
		return []string{"PEXPIREAT", k, strconv.FormatInt(g.future()*1000+int64(g.rng.Intn(1000)), 10)}, exact
	case 9:
		return []string{"TTL", k}, within(1)
	case 10:
		return []string{"PTTL", k}, within(1000)
	case 11:
		return []string{"EXPIRETIME", k}, within(1)
	case 12:
		return []string{"PEXPIRETIME", k}, within(1000)
	case 13:
		return []string{"PERSIST", k}, exact
	case 14:
		return []string{"DBSIZE"}, exact
	case 15:
		return []string{"KEYS", g.pick("*", "k1*", "k?", "*[0-3]", "x*")}, unordered
	case 16:
		return []string{"MOVE", k, "1"}, exact
	case 17:
		return append([]string{"TOUCH"}, g.keys(2)...), exact
	case 18:
		return []string{"EXPIRE", k, g.pick("-1", "0", "x", "9223372036854775807")}, exact
	case 19:
		return []string{"SET", k, g.value(), "EX", g.pick("0", "-5", "x", "9223372036854775807")}, exact
	case 20:
		if g.chance(0.1) {
			return []string{"FLUSHDB"}, exact
		}
		return []string{"SWAPDB", "0", "1"}, exact
	}
	return []string{"OBJECT", "FREQ", k}, exact
}

// knownMismatch recognises differences from Redis that are reported to the owners of the code
// and not fixed yet, so that the test keeps checking everything else. Each entry says where.
// Remove an entry once its cause is fixed.
func knownMismatch(_ []string, want, got testutil.Reply) string {
	switch {
	case strings.Contains(want.String(), `"-0"`) && !strings.Contains(got.String(), `"-0"`) ||
		strings.Contains(want.String(), "(double) -0\n") || strings.HasSuffix(want.String(), "(double) -0"):
		// A score of negative zero (ZINCRBY/ZADD INCR by -0 on a new member): Redis prints
		// "-0" only when the sorted set is skiplist-encoded (a member over 64 bytes or over 128
		// members) and "0" in the listpack encoding; Strata always prints "0". A Redis quirk.
		return "sorted-set score -0 printed as 0 (Redis prints -0 in the skiplist encoding only)"
	}
	return ""
}
