package commands

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/storage"
)

type scriptTestEnv struct{ cfg *config.Config }

func (e scriptTestEnv) Config() *config.Config { return e.cfg }

func scriptTestStore(t testing.TB) *storage.Store {
	t.Helper()
	s, err := storage.Open(storage.Options{Dir: t.TempDir(), Databases: 4, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// scriptRun runs one command through the dispatcher on client cl and returns the raw reply.
func scriptRunCmd(s *storage.Store, cl *Client, args ...string) string {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	c := &Ctx{Args: bargs, Client: cl, Store: s, W: &Writer{Proto: cl.Proto}, Env: scriptTestEnv{config.Default()}}
	Dispatch(c, false)
	return string(c.W.Bytes())
}

// TestRESPLuaRoundTrip converts command replies to Lua and the Lua values back to replies,
// following Redis 7.0's rules in both directions.
func TestRESPLuaRoundTrip(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	tests := []struct {
		in        string // a command's reply, as redis.call sees it
		resp      int    // the protocol of the script's caller
		want      string // what a script returning the converted value answers
		wantType  string
		setresp3  bool
		wantResp3 string // the reply when the script chose RESP3 (setresp)
	}{
		{in: ":42\r\n", resp: 2, want: ":42\r\n", wantType: "number"},
		{in: "$3\r\nfoo\r\n", resp: 2, want: "$3\r\nfoo\r\n", wantType: "string"},
		{in: "$-1\r\n", resp: 2, want: "$-1\r\n", wantType: "boolean"},
		{in: "$-1\r\n", resp: 3, want: "_\r\n", wantType: "boolean"},
		{in: "*-1\r\n", resp: 2, want: "$-1\r\n", wantType: "boolean"},
		{in: "+OK\r\n", resp: 2, want: "+OK\r\n", wantType: "table"},
		{in: "-WRONGTYPE Operation\r\n", resp: 2, want: "-WRONGTYPE Operation\r\n", wantType: "table"},
		{in: "-FOO\r\n", resp: 2, want: "-ERR FOO\r\n", wantType: "table"},
		{in: "*3\r\n:1\r\n$1\r\na\r\n*1\r\n+x\r\n", resp: 2, want: "*3\r\n:1\r\n$1\r\na\r\n*1\r\n+x\r\n", wantType: "table"},
		{in: "*3\r\n:1\r\n$-1\r\n:3\r\n", resp: 2, want: "*3\r\n:1\r\n$-1\r\n:3\r\n", wantType: "table"},
		{in: "%1\r\n$1\r\nk\r\n:1\r\n", resp: 2, want: "*2\r\n$1\r\nk\r\n:1\r\n", wantType: "table"},
		{in: "%1\r\n$1\r\nk\r\n:1\r\n", resp: 3, want: "%1\r\n$1\r\nk\r\n:1\r\n", wantType: "table"},
		{in: "~1\r\n$1\r\nm\r\n", resp: 3, want: "~1\r\n$1\r\nm\r\n", wantType: "table"},
		{in: ",1.5\r\n", resp: 2, want: "$3\r\n1.5\r\n", wantType: "table"},
		{in: ",1.5\r\n", resp: 3, want: ",1.5\r\n", wantType: "table"},
		{in: "#t\r\n", resp: 2, want: ":1\r\n", wantType: "boolean", setresp3: true, wantResp3: ":1\r\n"},
		{in: "#f\r\n", resp: 3, want: "_\r\n", wantType: "boolean", setresp3: true, wantResp3: "#f\r\n"},
		{in: "_\r\n", resp: 2, want: "$-1\r\n", wantType: "nil"},
		{in: "(123\r\n", resp: 3, want: "(123\r\n", wantType: "table"},
		{in: "=8\r\ntxt:abcd\r\n", resp: 3, want: "=8\r\ntxt:abcd\r\n", wantType: "table"},
		{in: "=8\r\ntxt:abcd\r\n", resp: 2, want: "$4\r\nabcd\r\n", wantType: "table"},
	}
	for _, tt := range tests {
		v, rest := respToLua(L, []byte(tt.in))
		if len(rest) != 0 {
			t.Errorf("%q: %d bytes left", tt.in, len(rest))
		}
		if v.Type().String() != tt.wantType {
			t.Errorf("%q: Lua type %s, want %s", tt.in, v.Type(), tt.wantType)
		}
		w := &Writer{Proto: tt.resp}
		writeLuaReply(w, v, 2, 0)
		if got := string(w.Bytes()); got != tt.want {
			t.Errorf("%q (RESP%d): reply %q, want %q", tt.in, tt.resp, got, tt.want)
		}
		if tt.setresp3 {
			w := &Writer{Proto: tt.resp}
			writeLuaReply(w, v, 3, 0)
			if got := string(w.Bytes()); got != tt.wantResp3 {
				t.Errorf("%q (setresp 3): reply %q, want %q", tt.in, got, tt.wantResp3)
			}
		}
	}
	// Lua-only values: numbers truncate, true is 1, a table stops at its first nil.
	for _, tt := range []struct {
		v    lua.LValue
		want string
	}{
		{lua.LNumber(3.99), ":3\r\n"}, {lua.LNumber(-3.99), ":-3\r\n"}, {lua.LTrue, ":1\r\n"},
		{lua.LFalse, "$-1\r\n"}, {lua.LNil, "$-1\r\n"}, {L.NewFunction(func(*lua.LState) int { return 0 }), "$-1\r\n"},
	} {
		w := &Writer{Proto: 2}
		writeLuaReply(w, tt.v, 2, 0)
		if got := string(w.Bytes()); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.v, got, tt.want)
		}
	}
	self := L.NewTable()
	self.RawSetInt(1, self)
	w := &Writer{Proto: 2}
	writeLuaReply(w, self, 2, 0)
	if !strings.HasSuffix(string(w.Bytes()), "-ERR reached lua stack limit\r\n") {
		t.Errorf("a table containing itself: %q...", w.Bytes()[:40])
	}
}

// TestRand48MatchesRedis: math.random draws Redis's redisLrand48 sequence.
func TestRand48MatchesRedis(t *testing.T) {
	var r rand48
	r.init()
	// redis-server 7.0.15, fresh: EVAL "return math.random(1000000)" 0, three times.
	for _, want := range []int{396465, 840486, 353337} {
		if got := int(r.float()*1000000) + 1; got != want {
			t.Errorf("math.random(1000000) = %d, want %d", got, want)
		}
	}
}

// scriptEval runs a script in a fresh interpreter and returns its reply (RESP2).
func scriptEval(t *testing.T, src string) string {
	t.Helper()
	s := scriptTestStore(t)
	return scriptRunCmd(s, &Client{Proto: 2}, "EVAL", src, "0")
}

func TestScriptLibraries(t *testing.T) {
	tests := []struct{ src, want string }{
		{`return cjson.encode(cjson.decode('{"a":[1,2.5,"x",true,null,{}]}'))`, `{"a":[1,2.5,"x",true,null,{}]}`},
		{`return cjson.encode({1, 2, nil, 4})`, `[1,2,null,4]`},
		{`return cjson.encode({["k/1"] = "\t"})`, `{"k\/1":"\t"}`},
		{`return cjson.encode({1e300, -0.5, 100})`, `[1e+300,-0.5,100]`},
		{`local t = cjson.decode('[1e2, -3, 0.25]') return tostring(t[1] + t[2] + t[3])`, `97.25`},
		{`return cjson.decode('"\\u00e9"')`, "\u00e9"},
		{`local a, b, c = cmsgpack.unpack(cmsgpack.pack(-5, 'str', {x = {1, 2}})) return a .. b .. c.x[2]`, `-5str2`},
		{`return #cmsgpack.pack(1.5) .. ',' .. #cmsgpack.pack(0.1) .. ',' .. #cmsgpack.pack(2^40)`, `5,9,9`},
		{`local t = cmsgpack.unpack(cmsgpack.pack({[1] = 'a', [3] = 'c'})) return t[3]`, `c`},
		{`return bit.tohex(bit.bxor(0xdeadbeef, 0xffffffff))`, `21524110`},
		{`return tostring(bit.band(-1, 0xff) + bit.arshift(-16, 2))`, `251`},
		{`local a, b, n = struct.unpack('>i4 d', struct.pack('>i4 d', -7, 2.25)) return a .. ':' .. b .. ':' .. n`, `-7:2.25:13`},
		{`return tostring(struct.size('!4 b i4 h'))`, `10`},
		{`return tostring(1/3) .. ' ' .. tostring(1e15) .. ' ' .. tostring(-1/0)`, `0.33333333333333 1e+15 -inf`},
		// Redis 7.0's pcall hands the script the err string of an error table.
		{`local ok, e = pcall(redis.call, 'nosuch') return e`, `ERR Unknown Redis command called from script`},
	}
	for _, tt := range tests {
		got := scriptEval(t, tt.src)
		want := "$" + itoa(len(tt.want)) + "\r\n" + tt.want + "\r\n"
		if got != want {
			t.Errorf("%s\n got %q\nwant %q", tt.src, got, want)
		}
	}
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// TestScriptWritesKeptOnError: a script that fails after writing keeps its writes (Redis
// does not roll a script back), and SELECT inside a script changes only the script's database.
func TestScriptWritesKeptOnError(t *testing.T) {
	s := scriptTestStore(t)
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

func TestParseShebang(t *testing.T) {
	for _, tt := range []struct {
		body  string
		flags int
		skip  int
		msg   string
	}{
		{"return 1", scriptCompat, 0, ""},
		{"#!lua\nreturn 1", 0, 5, ""},
		{"#!lua flags=no-writes,allow-oom\nx", scriptNoWrites | scriptAllowOOM, 31, ""},
		{"#!lua flags=\nx", 0, 12, ""},
		{"#!lua", 0, 0, "ERR Invalid script shebang"},
		{"#!lua flags=x\n", 0, 0, "ERR Unexpected flag in script shebang: x"},
		{"#!lua x=1\n", 0, 0, "ERR Unknown lua shebang option: x=1"},
		{"#!js\n", 0, 0, "ERR Unexpected engine in script shebang: #!js"},
	} {
		flags, skip, msg := parseShebang(tt.body, true)
		if flags != tt.flags || skip != tt.skip || msg != tt.msg {
			t.Errorf("%q: %d %d %q; want %d %d %q", tt.body, flags, skip, msg, tt.flags, tt.skip, tt.msg)
		}
	}
}

func TestFunctionDumpPayload(t *testing.T) {
	fr := &funcRegistry{libs: map[string]*funcLibrary{
		"b": {name: "b", code: "#!lua name=b\nx"}, "a": {name: "a", code: "#!lua name=a\ny"}}}
	p := dumpLibraries(fr)
	codes, ok := parseDump(p)
	if !ok || len(codes) != 2 || codes[0] != "#!lua name=a\ny" || codes[1] != "#!lua name=b\nx" {
		t.Fatalf("round trip: %q, %v", codes, ok)
	}
	for i := range p {
		bad := append([]byte(nil), p...)
		bad[i] ^= 0x40
		if _, ok := parseDump(bad); ok {
			t.Errorf("payload damaged at byte %d accepted", i)
		}
	}
	if _, ok := parseDump(p[:len(p)-1]); ok {
		t.Error("truncated payload accepted")
	}
}

// TestCompileErrorText: gopher-lua's syntax errors are rewritten in Lua 5.1's words for the
// common cases (checked against redis-server 7.0.15).
func TestCompileErrorText(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for src, want := range map[string]string{
		"return 1 +":                   "user_script:1: unexpected symbol near '<eof>'",
		"x = = 1":                      "user_script:1: unexpected symbol near '='",
		"return 'abc":                  "user_script:1: unfinished string near '<eof>'",
		"local x = 1\nreturn \"abc\nd": `user_script:2: unfinished string near '"abc'`,
		"local t = {\nreturn t":        "user_script:2: unexpected symbol near 'return'",
	} {
		_, err := L.Load(strings.NewReader(src), "user_script")
		if err == nil {
			t.Errorf("%q compiled", src)
			continue
		}
		if got := compileErrorText(err, "user_script", src); got != want {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
	}
}

func BenchmarkEvalIncr(b *testing.B) {
	s := scriptTestStore(b)
	cl := &Client{Proto: 2}
	args := [][]byte{[]byte("EVAL"), []byte("return redis.call('incr', KEYS[1])"), []byte("1"), []byte("ctr")}
	w := &Writer{Proto: 2}
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
	s := scriptTestStore(t)
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
