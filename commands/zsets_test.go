package commands

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-db/strata/internal/resp"
)

// zReplies runs commands on an empty store and checks each raw reply. The tables below are
// what redis-server 7.0.15 answered to the same commands.
func zReplies(t *testing.T, proto int, steps [][2]string) {
	t.Helper()
	s := testStore(t)
	for _, st := range steps {
		if got := replyOf(s, proto, strings.Fields(st[0])...); got != st[1] {
			t.Errorf("RESP%d %s:\n got  %q\n want %q", proto, st[0], got, st[1])
		}
	}
}

func TestZSetRepliesRESP3(t *testing.T) {
	zReplies(t, 3, [][2]string{
		{"ZADD z 1 a 2 b 3 c inf d", ":4\r\n"},
		{"ZRANGE z 0 -1 WITHSCORES", "*4\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2\r\n*2\r\n$1\r\nc\r\n,3\r\n*2\r\n$1\r\nd\r\n,inf\r\n"},
		{"ZRANGE z 0 -1", "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"},
		{"ZRANGE z 0 -1 BYSCORE REV WITHSCORES", "*0\r\n"},
		{"ZRANGEBYSCORE z -inf inf WITHSCORES LIMIT 1 2", "*2\r\n*2\r\n$1\r\nb\r\n,2\r\n*2\r\n$1\r\nc\r\n,3\r\n"},
		{"ZREVRANGEBYSCORE z inf -inf WITHSCORES LIMIT 0 1", "*1\r\n*2\r\n$1\r\nd\r\n,inf\r\n"},
		{"ZRANGEBYSCORE z 5 6 WITHSCORES", "*0\r\n"},
		{"ZREVRANGE z 0 0 WITHSCORES", "*1\r\n*2\r\n$1\r\nd\r\n,inf\r\n"},
		{"ZRANGE nokey 0 -1 WITHSCORES", "*0\r\n"},
		{"ZSCORE z a", ",1\r\n"},
		{"ZSCORE z d", ",inf\r\n"},
		{"ZSCORE z nope", "_\r\n"},
		{"ZSCORE nokey a", "_\r\n"},
		{"ZMSCORE z a nope d", "*3\r\n,1\r\n_\r\n,inf\r\n"},
		{"ZMSCORE nokey a", "*1\r\n_\r\n"},
		{"ZINCRBY z 1.5 a", ",2.5\r\n"},
		{"ZINCRBY z -0 newzero", ",-0\r\n"},
		{"ZADD z INCR 0.25 a", ",2.75\r\n"},
		{"ZADD z XX INCR 1 nope", "_\r\n"},
		{"ZRANK z nope", "_\r\n"},
		{"ZRANK z b", ":1\r\n"},
		{"ZPOPMIN z", "*2\r\n$7\r\nnewzero\r\n,0\r\n"},
		{"ZPOPMIN z 1", "*1\r\n*2\r\n$1\r\nb\r\n,2\r\n"},
		{"ZPOPMAX z 2", "*2\r\n*2\r\n$1\r\nd\r\n,inf\r\n*2\r\n$1\r\nc\r\n,3\r\n"},
		{"ZPOPMIN z 0", "*0\r\n"},
		{"ZPOPMIN nokey", "*0\r\n"},
		{"ZPOPMIN nokey 3", "*0\r\n"},
		{"ZADD z 1 a 2 b", ":1\r\n"},
		{"ZMPOP 1 z MIN COUNT 2", "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2\r\n"},
		{"ZMPOP 1 z MAX", "_\r\n"},
		{"ZMPOP 2 nokey z MIN", "_\r\n"},
		{"ZADD z 7 only", ":1\r\n"},
		{"ZRANDMEMBER z 5 WITHSCORES", "*1\r\n*2\r\n$4\r\nonly\r\n,7\r\n"},
		{"ZRANDMEMBER z -2 WITHSCORES", "*2\r\n*2\r\n$4\r\nonly\r\n,7\r\n*2\r\n$4\r\nonly\r\n,7\r\n"},
		{"ZRANDMEMBER z -2", "*2\r\n$4\r\nonly\r\n$4\r\nonly\r\n"},
		{"ZRANDMEMBER z", "$4\r\nonly\r\n"},
		{"ZRANDMEMBER nokey", "_\r\n"},
		{"ZRANDMEMBER nokey 2 WITHSCORES", "*0\r\n"},
		{"ZADD z2 0.5 a 2 only", ":2\r\n"},
		{"ZUNION 2 z z2 WITHSCORES", "*2\r\n*2\r\n$1\r\na\r\n,0.5\r\n*2\r\n$4\r\nonly\r\n,9\r\n"},
		{"ZUNION 2 z z2 WEIGHTS 1 -0", "*2\r\n$1\r\na\r\n$4\r\nonly\r\n"},
		{"ZINTER 2 z z2 WITHSCORES", "*1\r\n*2\r\n$4\r\nonly\r\n,9\r\n"},
		{"ZDIFF 2 z2 z WITHSCORES", "*1\r\n*2\r\n$1\r\na\r\n,0.5\r\n"},
		{"ZUNION 1 z2 WEIGHTS 0 WITHSCORES", "*2\r\n*2\r\n$1\r\na\r\n,0\r\n*2\r\n$4\r\nonly\r\n,0\r\n"},
		{"ZRANGESTORE dst z2 0 -1", ":2\r\n"},
		{"ZRANGE dst 0 -1 WITHSCORES", "*2\r\n*2\r\n$1\r\na\r\n,0.5\r\n*2\r\n$4\r\nonly\r\n,2\r\n"},
		{"ZADD z3 1.7976931348623157e308 max 5e-324 tiny 0.1 tenth", ":3\r\n"},
		{"ZRANGE z3 0 -1 WITHSCORES", "*3\r\n*2\r\n$4\r\ntiny\r\n,4.9406564584124654e-324\r\n*2\r\n$5\r\ntenth\r\n,0.10000000000000001\r\n*2\r\n$3\r\nmax\r\n,1.7976931348623157e+308\r\n"},
	})
}

func TestZSetRepliesRESP2(t *testing.T) {
	zReplies(t, 2, [][2]string{
		{"ZADD z 1 a 2 b 3 c inf d", ":4\r\n"},
		{"ZRANGE z 0 -1 WITHSCORES", "*8\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nd\r\n$3\r\ninf\r\n"},
		{"ZRANGE z 0 -1", "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"},
		{"ZRANGE z 0 -1 BYSCORE REV WITHSCORES", "*0\r\n"},
		{"ZRANGEBYSCORE z -inf inf WITHSCORES LIMIT 1 2", "*4\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n"},
		{"ZREVRANGEBYSCORE z inf -inf WITHSCORES LIMIT 0 1", "*2\r\n$1\r\nd\r\n$3\r\ninf\r\n"},
		{"ZRANGEBYSCORE z 5 6 WITHSCORES", "*0\r\n"},
		{"ZREVRANGE z 0 0 WITHSCORES", "*2\r\n$1\r\nd\r\n$3\r\ninf\r\n"},
		{"ZRANGE nokey 0 -1 WITHSCORES", "*0\r\n"},
		{"ZSCORE z a", "$1\r\n1\r\n"},
		{"ZSCORE z d", "$3\r\ninf\r\n"},
		{"ZSCORE z nope", "$-1\r\n"},
		{"ZSCORE nokey a", "$-1\r\n"},
		{"ZMSCORE z a nope d", "*3\r\n$1\r\n1\r\n$-1\r\n$3\r\ninf\r\n"},
		{"ZMSCORE nokey a", "*1\r\n$-1\r\n"},
		{"ZINCRBY z 1.5 a", "$3\r\n2.5\r\n"},
		{"ZINCRBY z -0 newzero", "$2\r\n-0\r\n"},
		{"ZADD z INCR 0.25 a", "$4\r\n2.75\r\n"},
		{"ZADD z XX INCR 1 nope", "$-1\r\n"},
		{"ZRANK z nope", "$-1\r\n"},
		{"ZRANK z b", ":1\r\n"},
		{"ZPOPMIN z", "*2\r\n$7\r\nnewzero\r\n$1\r\n0\r\n"},
		{"ZPOPMIN z 1", "*2\r\n$1\r\nb\r\n$1\r\n2\r\n"},
		{"ZPOPMAX z 2", "*4\r\n$1\r\nd\r\n$3\r\ninf\r\n$1\r\nc\r\n$1\r\n3\r\n"},
		{"ZPOPMIN z 0", "*0\r\n"},
		{"ZPOPMIN nokey", "*0\r\n"},
		{"ZPOPMIN nokey 3", "*0\r\n"},
		{"ZADD z 1 a 2 b", ":1\r\n"},
		{"ZMPOP 1 z MIN COUNT 2", "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n"},
		{"ZMPOP 1 z MAX", "*-1\r\n"},
		{"ZMPOP 2 nokey z MIN", "*-1\r\n"},
		{"ZADD z 7 only", ":1\r\n"},
		{"ZRANDMEMBER z 5 WITHSCORES", "*2\r\n$4\r\nonly\r\n$1\r\n7\r\n"},
		{"ZRANDMEMBER z -2 WITHSCORES", "*4\r\n$4\r\nonly\r\n$1\r\n7\r\n$4\r\nonly\r\n$1\r\n7\r\n"},
		{"ZRANDMEMBER z -2", "*2\r\n$4\r\nonly\r\n$4\r\nonly\r\n"},
		{"ZRANDMEMBER z", "$4\r\nonly\r\n"},
		{"ZRANDMEMBER nokey", "$-1\r\n"},
		{"ZRANDMEMBER nokey 2 WITHSCORES", "*0\r\n"},
		{"ZADD z2 0.5 a 2 only", ":2\r\n"},
		{"ZUNION 2 z z2 WITHSCORES", "*4\r\n$1\r\na\r\n$3\r\n0.5\r\n$4\r\nonly\r\n$1\r\n9\r\n"},
		{"ZUNION 2 z z2 WEIGHTS 1 -0", "*2\r\n$1\r\na\r\n$4\r\nonly\r\n"},
		{"ZINTER 2 z z2 WITHSCORES", "*2\r\n$4\r\nonly\r\n$1\r\n9\r\n"},
		{"ZDIFF 2 z2 z WITHSCORES", "*2\r\n$1\r\na\r\n$3\r\n0.5\r\n"},
		{"ZUNION 1 z2 WEIGHTS 0 WITHSCORES", "*4\r\n$1\r\na\r\n$1\r\n0\r\n$4\r\nonly\r\n$1\r\n0\r\n"},
		{"ZRANGESTORE dst z2 0 -1", ":2\r\n"},
		{"ZRANGE dst 0 -1 WITHSCORES", "*4\r\n$1\r\na\r\n$3\r\n0.5\r\n$4\r\nonly\r\n$1\r\n2\r\n"},
		{"ZADD z3 1.7976931348623157e308 max 5e-324 tiny 0.1 tenth", ":3\r\n"},
		{"ZRANGE z3 0 -1 WITHSCORES", "*6\r\n$4\r\ntiny\r\n$23\r\n4.9406564584124654e-324\r\n$5\r\ntenth\r\n$19\r\n0.10000000000000001\r\n$3\r\nmax\r\n$23\r\n1.7976931348623157e+308\r\n"},
	})
}

func TestZSetParseScore(t *testing.T) {
	// Outcomes of ZADD (getDoubleFromObject) on redis-server 7.0.15.
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {"-2.5", -2.5, true}, {"+7", 7, true}, {"1.", 1, true}, {".5", 0.5, true},
		{"00012", 12, true}, {"1e0010", 1e10, true}, {"0x10", 16, true}, {"0x1p-2", 0.25, true},
		{"0X1P4", 16, true}, {"0x.8", 0.5, true}, {"inf", math.Inf(1), true}, {"+inf", math.Inf(1), true},
		{"-inf", math.Inf(-1), true}, {"Infinity", math.Inf(1), true}, {"-INFINITY", math.Inf(-1), true},
		{"5e-324", 5e-324, true}, {"2.4703282292062328e-324", 5e-324, true},
		{"1.7976931348623157e308", math.MaxFloat64, true},
		{"1e400", 0, false}, {"-1e400", 0, false}, {"1e-400", 0, false}, {"2e-324", 0, false},
		{"1.7976931348623159e308", 0, false}, {".", 0, false}, {"5e", 0, false}, {"1e+", 0, false},
		{"infin", 0, false}, {"nan", 0, false}, {"nan(1)", 0, false}, {"0x", 0, false},
		{"1_0", 0, false}, {"", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"+-1", 0, false},
		{"1\x00", 0, false}, {"abc", 0, false},
	} {
		got, ok := zParseScore([]byte(tc.in))
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("zParseScore(%q) = %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	// Outcomes of ZRANGEBYSCORE bounds (zslParseRange): plain strtod up to the C string's end.
	for _, tc := range []struct {
		in     string
		want   float64
		ex, ok bool
	}{
		{"1", 1, false, true}, {"(1", 1, true, true}, {" 2", 2, false, true}, {"( 2", 2, true, true},
		{"", 0, false, true}, {"(", 0, true, true}, {"0x1", 1, false, true}, {"1e400", math.Inf(1), false, true},
		{"(-1e-400", 0, true, true}, {"1\x00junk", 1, false, true}, {"nan", 0, false, false},
		{"(nan", 0, false, false}, {"1 ", 0, false, false}, {"((1", 0, false, false}, {"[1", 0, false, false},
		{"a", 0, false, false},
	} {
		got, ex, ok := zParseRangeScore([]byte(tc.in))
		if ok != tc.ok || ok && (got != tc.want || ex != tc.ex) {
			t.Errorf("zParseRangeScore(%q) = %v %v %v, want %v %v %v", tc.in, got, ex, ok, tc.want, tc.ex, tc.ok)
		}
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{{"-", true}, {"+", true}, {"[a", true}, {"(a", true}, {"[", true}, {"(", true}, {"+\x00x", true},
		{"", false}, {"a", false}, {"+a", false}, {"-a", false}, {"1", false}} {
		if _, ok := zParseLexBound([]byte(tc.in)); ok != tc.ok {
			t.Errorf("zParseLexBound(%q) ok = %v", tc.in, ok)
		}
	}
}

func TestZSetErrorsWriteNothing(t *testing.T) {
	s := testStore(t)
	for _, st := range [][2]string{
		{"ZADD z INCR inf a", "$3\r\ninf\r\n"},
		{"ZADD z INCR -inf a", "-ERR resulting score is not a number (NaN)\r\n"},
		{"ZINCRBY z -inf a", "-ERR resulting score is not a number (NaN)\r\n"},
		{"ZSCORE z a", "$3\r\ninf\r\n"},
		{"ZADD z 1 b 2 c x d", "-ERR value is not a valid float\r\n"},
		{"ZCARD z", ":1\r\n"},
		{"ZUNIONSTORE z 1 nokey WEIGHTS x", "-ERR weight value is not a float\r\n"},
		{"ZCARD z", ":1\r\n"},
	} {
		if got := replyOf(s, 2, strings.Fields(st[0])...); got != st[1] {
			t.Errorf("%s: got %q want %q", st[0], got, st[1])
		}
	}
}

// TestZPopGenericForBlockingCallers checks the reply shapes a blocking pop builds on.
func TestZSetPopGenericForBlockingCallers(t *testing.T) {
	s := testStore(t)
	replyOf(s, 2, "ZADD", "z", "1", "a", "2", "b")
	replyOf(s, 2, "SET", "str", "x")
	run := func(proto int, fn func(c *Ctx) bool) (string, bool) {
		c := &Ctx{Client: &Client{Proto: proto}, Store: s, W: &resp.Writer{Proto: proto}}
		c.Txn = s.Begin(0, [][]byte{[]byte("z"), []byte("str"), []byte("none")}, true)
		ok := fn(c)
		if err := c.Txn.Commit(); err != nil {
			t.Fatal(err)
		}
		return string(c.W.Bytes()), ok
	}
	keys := func(ks ...string) [][]byte {
		var out [][]byte
		for _, k := range ks {
			out = append(out, []byte(k))
		}
		return out
	}
	// BZPOPMIN's shape: [key, member, score], flat in both protocols.
	got, ok := run(3, func(c *Ctx) bool { return zpopGeneric(c, keys("none", "z"), false, -1, true, false) })
	if !ok || got != "*3\r\n$1\r\nz\r\n$1\r\na\r\n,1\r\n" {
		t.Fatalf("BZPOPMIN shape: %q %v", got, ok)
	}
	// Nothing to pop: no reply, false, so the caller can block.
	got, ok = run(2, func(c *Ctx) bool { return zpopGeneric(c, keys("none"), false, -1, true, false) })
	if ok || got != "" {
		t.Fatalf("no candidate: %q %v", got, ok)
	}
	// Another type before any sorted set: WRONGTYPE.
	got, ok = run(2, func(c *Ctx) bool { return zpopGeneric(c, keys("str", "z"), true, 1, true, true) })
	if !ok || !strings.HasPrefix(got, "-WRONGTYPE") {
		t.Fatalf("wrong type: %q %v", got, ok)
	}
	// BZMPOP's shape; popping the last member deletes the key.
	got, ok = run(2, func(c *Ctx) bool { return zpopGeneric(c, keys("z"), true, 5, true, true) })
	if !ok || got != "*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n" {
		t.Fatalf("BZMPOP shape: %q %v", got, ok)
	}
	if got := replyOf(s, 2, "EXISTS", "z"); got != ":0\r\n" {
		t.Fatalf("emptied key survives: %q", got)
	}
}

func TestZSetNumKeysCommandKeys(t *testing.T) {
	for _, tc := range []struct {
		args string
		want string
	}{
		{"ZUNIONSTORE dst 2 a b WEIGHTS 1 2", "dst a b"},
		{"ZINTERSTORE dst 5 a b", "dst a b"},
		{"ZDIFFSTORE dst x a", "dst"},
		{"ZUNION 2 a b WITHSCORES", "a b"},
		{"ZINTERCARD 1 a LIMIT 1", "a"},
		{"ZMPOP 2 a b MIN", "a b"},
		{"ZMPOP 0 a MIN", ""},
		{"ZRANGESTORE dst src 0 -1", "dst src"},
	} {
		args := strings.Fields(tc.args)
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		var got []string
		for _, k := range Lookup(bargs[0]).KeysOf(bargs) {
			got = append(got, string(k))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: keys %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestZSetLargeRangesAndRandom covers rank windows near either end of a bigger set and the
// sampling paths of ZRANDMEMBER.
func TestZSetLargeRangesAndRandom(t *testing.T) {
	s := testStore(t)
	args := []string{"ZADD", "big"}
	for i := 0; i < 3000; i++ {
		args = append(args, strconv.Itoa(i), fmt.Sprintf("m%04d", i))
	}
	if got := replyOf(s, 2, args...); got != ":3000\r\n" {
		t.Fatal(got)
	}
	for _, st := range [][2]string{
		{"ZRANGE big 2998 -1", "*2\r\n$5\r\nm2998\r\n$5\r\nm2999\r\n"},
		{"ZRANGE big -2 -1 REV", "*2\r\n$5\r\nm0001\r\n$5\r\nm0000\r\n"},
		{"ZRANGE big 1 2 REV", "*2\r\n$5\r\nm2998\r\n$5\r\nm2997\r\n"},
		{"ZRANGE big 2997 2998 WITHSCORES", "*4\r\n$5\r\nm2997\r\n$4\r\n2997\r\n$5\r\nm2998\r\n$4\r\n2998\r\n"},
		{"ZRANK big m2999", ":2999\r\n"},
		{"ZREVRANK big m0000", ":2999\r\n"},
		{"ZCOUNT big (10 20", ":10\r\n"},
		{"ZREMRANGEBYRANK big 2990 -1", ":10\r\n"},
		{"ZCARD big", ":2990\r\n"},
	} {
		if got := replyOf(s, 2, strings.Fields(st[0])...); got != st[1] {
			t.Errorf("%s: got %q want %q", st[0], got, st[1])
		}
	}
	countLines := func(reply string) (head string, members map[string]int) {
		lines := strings.Split(strings.TrimSuffix(reply, "\r\n"), "\r\n")
		members = map[string]int{}
		for i := 2; i < len(lines); i += 2 {
			members[lines[i]]++
		}
		return lines[0], members
	}
	head, ms := countLines(replyOf(s, 2, "ZRANDMEMBER", "big", "2000"))
	if head != "*2000" || len(ms) != 2000 {
		t.Fatalf("ZRANDMEMBER 2000: %s with %d distinct", head, len(ms))
	}
	head, ms = countLines(replyOf(s, 2, "ZRANDMEMBER", "big", "-5000"))
	total := 0
	for _, n := range ms {
		total += n
	}
	if head != "*5000" || total != 5000 || len(ms) < 1000 {
		t.Fatalf("ZRANDMEMBER -5000: %s, %d picks, %d distinct", head, total, len(ms))
	}
	if got := replyOf(s, 3, "ZRANDMEMBER", "big", "-3", "WITHSCORES"); !strings.HasPrefix(got, "*3\r\n*2\r\n$5\r\nm") {
		t.Fatalf("RESP3 ZRANDMEMBER WITHSCORES: %q", got)
	}
}

// TestZSetSignalsReadyKeys checks that commands giving a key members report it, so clients
// blocked in BZPOPMIN or BZMPOP wake up.
func TestZSetSignalsReadyKeys(t *testing.T) {
	s := testStore(t)
	for _, tc := range []struct {
		cmd, ready string
	}{
		{"ZADD z 1 a", "z"},
		{"ZADD z 2 a", ""},
		{"ZINCRBY z 1 b", "z"},
		{"ZADD z XX 1 c", ""},
		{"ZRANGESTORE d z 0 -1", "d"},
		{"ZRANGESTORE e nokey 0 -1", ""},
		{"ZUNIONSTORE u 1 z", "u"},
		{"ZINTERSTORE i 2 z nokey", ""},
		{"ZPOPMIN z", ""},
	} {
		args := strings.Fields(tc.cmd)
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		c := &Ctx{Args: bargs, Client: &Client{Proto: 2}, Store: s, W: &resp.Writer{Proto: 2}}
		Dispatch(c, false)
		var got []string
		for _, k := range c.Ready {
			got = append(got, string(k.Key))
		}
		if strings.Join(got, " ") != tc.ready {
			t.Errorf("%s: ready %q, want %q", tc.cmd, got, tc.ready)
		}
	}
}
