package scripting

import (
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// testReply is a RESP writer for the tests, encoding RESP2 or RESP3 as the command layer does.
type testReply struct {
	b     []byte
	proto int
}

func (w *testReply) line(c byte, s string) { w.b = append(append(append(w.b, c), s...), "\r\n"...) }
func (w *testReply) Array(n int)           { w.line('*', strconv.Itoa(n)) }
func (w *testReply) Map(n int) {
	if w.proto == 3 {
		w.line('%', strconv.Itoa(n))
	} else {
		w.Array(2 * n)
	}
}
func (w *testReply) Set(n int) {
	if w.proto == 3 {
		w.line('~', strconv.Itoa(n))
	} else {
		w.Array(n)
	}
}
func (w *testReply) BulkString(s string) {
	w.line('$', strconv.Itoa(len(s)))
	w.b = append(w.b, s+"\r\n"...)
}
func (w *testReply) Int(n int64) { w.line(':', strconv.FormatInt(n, 10)) }
func (w *testReply) Double(f float64) {
	s := strconv.FormatFloat(f, 'g', 17, 64)
	if w.proto == 3 {
		w.line(',', s)
	} else {
		w.BulkString(s)
	}
}
func (w *testReply) Bool(v bool) {
	switch {
	case w.proto == 3 && v:
		w.line('#', "t")
	case w.proto == 3:
		w.line('#', "f")
	case v:
		w.Int(1)
	default:
		w.Int(0)
	}
}
func (w *testReply) Null() {
	if w.proto == 3 {
		w.line('_', "")
	} else {
		w.line('$', "-1")
	}
}
func (w *testReply) Status(s string) { w.line('+', s) }
func (w *testReply) Error(s string)  { w.line('-', s) }
func (w *testReply) Raw(p []byte)    { w.b = append(w.b, p...) }

// fakeCaller answers redis.call from a table of replies by command name; other commands are
// refused as unknown. It records the calls it got.
type fakeCaller struct {
	replies map[string]string // command -> RESP reply; a reply starting with '-' failed
	writes  map[string]bool   // commands that are writes: they mark the script dirty
	calls   []Call
	res     Result // what Done got
}

func (f *fakeCaller) Done(res Result) { f.res = res }

func (f *fakeCaller) Call(c *Call) ([]byte, bool, string) {
	cp := *c
	cp.Args = append([][]byte(nil), c.Args...)
	f.calls = append(f.calls, cp)
	r, ok := f.replies[string(c.Args[0])]
	if !ok {
		return nil, false, "Unknown Redis command called from script"
	}
	if f.writes[string(c.Args[0])] {
		if c.ReadOnly {
			return nil, false, "Write commands are not allowed from read-only scripts."
		}
		c.MarkWrite()
	}
	return []byte(r), r[0] == '-', ""
}

func (f *fakeCaller) ACLCheck(args [][]byte) (bool, bool) {
	_, ok := f.replies[string(args[0])]
	return string(args[0]) != "denied", ok || string(args[0]) == "denied"
}

// eval runs src as an EVAL script on e and returns its reply and the run's result.
func eval(t testing.TB, e *Engine, cl *fakeCaller, src string, inv Invocation) (string, Result) {
	t.Helper()
	e.Lock()
	defer e.Unlock()
	sc, msg := e.LoadScript(src)
	if sc == nil {
		return "-" + msg + "\r\n", Result{}
	}
	if inv.Proto == 0 {
		inv.Proto = 2
	}
	w := &testReply{proto: inv.Proto}
	e.RunScript(cl, w, sc, &inv)
	return string(w.b), cl.res
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
		w := &testReply{proto: tt.resp}
		writeLuaReply(w, v, 2, tt.resp, 0)
		if got := string(w.b); got != tt.want {
			t.Errorf("%q (RESP%d): reply %q, want %q", tt.in, tt.resp, got, tt.want)
		}
		if tt.setresp3 {
			w := &testReply{proto: tt.resp}
			writeLuaReply(w, v, 3, tt.resp, 0)
			if got := string(w.b); got != tt.wantResp3 {
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
		w := &testReply{proto: 2}
		writeLuaReply(w, tt.v, 2, 2, 0)
		if got := string(w.b); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.v, got, tt.want)
		}
	}
	self := L.NewTable()
	self.RawSetInt(1, self)
	w := &testReply{proto: 2}
	writeLuaReply(w, self, 2, 2, 0)
	if !strings.HasSuffix(string(w.b), "-ERR reached lua stack limit\r\n") {
		t.Errorf("a table containing itself: %q...", w.b[:40])
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
		{`return redis.REDIS_VERSION .. ' ' .. redis.REDIS_VERSION_NUM`, `7.0.15 458767`},
	}
	e := newEngine("7.0.15")
	for _, tt := range tests {
		got, _ := eval(t, e, &fakeCaller{}, tt.src, Invocation{})
		want := "$" + strconv.Itoa(len(tt.want)) + "\r\n" + tt.want + "\r\n"
		if got != want {
			t.Errorf("%s\n got %q\nwant %q", tt.src, got, want)
		}
	}
}

// TestScriptCalls: redis.call hands the Caller the command, the protocol the script chose and
// the read-only state; a failed command's error is marked counted, a refusal is not.
func TestScriptCalls(t *testing.T) {
	e := newEngine("7.0.15")
	cl := &fakeCaller{replies: map[string]string{"get": "$1\r\nv\r\n", "bad": "-WRONGTYPE x\r\n", "set": "+OK\r\n"},
		writes: map[string]bool{"set": true}}
	got, _ := eval(t, e, cl, "redis.setresp(3) return redis.call('get', KEYS[1], 1.5, ARGV[1])", Invocation{Keys: [][]byte{[]byte("k")}, Argv: [][]byte{[]byte("a")}})
	if got != "$1\r\nv\r\n" {
		t.Errorf("reply %q", got)
	}
	if len(cl.calls) != 1 || cl.calls[0].RESP != 3 || cl.calls[0].ReadOnly || string(cl.calls[0].Args[2]) != "1.5" || string(cl.calls[0].Args[3]) != "a" {
		t.Errorf("calls %+v", cl.calls)
	}
	got, res := eval(t, e, cl, "return redis.pcall('bad')", Invocation{})
	if got != "-WRONGTYPE x\r\n" || !res.Counted {
		t.Errorf("passing a command's error on: %q, counted %v", got, res.Counted)
	}
	got, res = eval(t, e, cl, "return redis.call('bad')", Invocation{})
	if !strings.HasPrefix(got, "-WRONGTYPE x script: ") || !res.Counted {
		t.Errorf("raising a command's error: %q, counted %v", got, res.Counted)
	}
	got, res = eval(t, e, cl, "return redis.pcall('nosuch')", Invocation{})
	if got != "-ERR Unknown Redis command called from script\r\n" || res.Counted {
		t.Errorf("a refusal: %q, counted %v", got, res.Counted)
	}
	got, _ = eval(t, e, cl, "return redis.pcall('set', 'k', 'v')", Invocation{ReadOnly: true})
	if got != "-ERR Write commands are not allowed from read-only scripts.\r\n" {
		t.Errorf("a write from a read-only script: %q", got)
	}
	got, _ = eval(t, e, cl, "return {redis.acl_check_cmd('get'), redis.acl_check_cmd('denied')}", Invocation{})
	if got != "*2\r\n:1\r\n$-1\r\n" {
		t.Errorf("acl_check_cmd: %q", got)
	}
	got, _ = eval(t, e, cl, "return redis.acl_check_cmd('nosuch')", Invocation{})
	if !strings.HasPrefix(got, "-ERR Invalid command passed to redis.acl_check_cmd()") {
		t.Errorf("acl_check_cmd of no command: %q", got)
	}
}

// TestKillAndStop: SCRIPT KILL stops a looping script of its family only, and not once it
// has written; SHUTDOWN NOSAVE's StopHard stops it anyway and its writes are to be dropped.
func TestKillAndStop(t *testing.T) {
	e := newEngine("7.0.15")
	run := func(src string) (chan string, chan Result) {
		reply, result := make(chan string, 1), make(chan Result, 1)
		cl := &fakeCaller{replies: map[string]string{"set": "+OK\r\n"}, writes: map[string]bool{"set": true}}
		go func() {
			got, res := eval(t, e, cl, src, Invocation{Args: [][]byte{[]byte("EVAL")}})
			reply <- got
			result <- res
		}()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			if running, _, _ := e.Busy(); running {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the script did not start")
			}
		}
		return reply, result
	}
	if msg := e.Kill(true); msg != ErrNotBusy {
		t.Errorf("kill with nothing running: %q", msg)
	}
	reply, result := run("while true do end")
	if msg := e.Kill(false); msg != ErrBusyEval {
		t.Errorf("FUNCTION KILL of an EVAL script: %q", msg)
	}
	if msg := e.Kill(true); msg != "" {
		t.Errorf("SCRIPT KILL: %q", msg)
	}
	if got := <-reply; !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
		t.Errorf("killed script answered %q", got)
	}
	if res := <-result; res.Dropped {
		t.Error("a killed script's writes are dropped")
	}
	reply, result = run("redis.call('set', 'k', 'v') while true do end")
	for deadline := time.Now().Add(5 * time.Second); e.Kill(true) != ErrUnkillable; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("SCRIPT KILL of a script that wrote is not refused")
		}
	}
	e.StopHard()
	<-reply
	if res := <-result; !res.Dropped {
		t.Error("a script stopped by StopHard keeps its writes")
	}
	if running, _, _ := e.Busy(); running || Running() {
		t.Error("still busy after the script ended")
	}
}

func TestParseShebang(t *testing.T) {
	for _, tt := range []struct {
		body  string
		flags Flags
		skip  int
		msg   string
	}{
		{"return 1", Compat, 0, ""},
		{"#!lua\nreturn 1", 0, 5, ""},
		{"#!lua flags=no-writes,allow-oom\nx", NoWrites | AllowOOM, 31, ""},
		{"#!lua flags=\nx", 0, 12, ""},
		{"#!lua", 0, 0, "ERR Invalid script shebang"},
		{"#!lua flags=x\n", 0, 0, "ERR Unexpected flag in script shebang: x"},
		{"#!lua x=1\n", 0, 0, "ERR Unknown lua shebang option: x=1"},
		{"#!js\n", 0, 0, "ERR Unexpected engine in script shebang: #!js"},
	} {
		flags, skip, msg := ParseShebang(tt.body)
		if flags != tt.flags || skip != tt.skip || msg != tt.msg {
			t.Errorf("%q: %d %d %q; want %d %d %q", tt.body, flags, skip, msg, tt.flags, tt.skip, tt.msg)
		}
	}
	if got := (NoWrites | AllowCrossSlot).Names(); strings.Join(got, ",") != "no-writes,allow-cross-slot-keys" {
		t.Errorf("Names: %q", got)
	}
}

func TestFunctionDumpPayload(t *testing.T) {
	fr := &funcRegistry{libs: map[string]*Library{
		"b": {Name: "b", Code: "#!lua name=b\nx"}, "a": {Name: "a", Code: "#!lua name=a\ny"}}}
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
