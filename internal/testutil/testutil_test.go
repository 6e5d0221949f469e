package testutil

import (
	"bufio"
	"reflect"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, raw string) Reply {
	t.Helper()
	r, err := ReadReply(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatalf("ReadReply(%q): %v", raw, err)
	}
	return r
}

func TestReplyRendering(t *testing.T) {
	cases := []struct{ raw, want string }{
		{"+OK\r\n", "OK"},
		{"-ERR unknown command\r\n", "(error) ERR unknown command"},
		{":-42\r\n", "(integer) -42"},
		{"$5\r\nhe\"l\n\r\n", `"he\"l\n"`},
		{"$0\r\n\r\n", `""`},
		{"$-1\r\n", "(nil)"},
		{"*-1\r\n", "(nil array)"},
		{"_\r\n", "(null)"},
		{"*0\r\n", "(empty array)"},
		{"*2\r\n$1\r\na\r\n:1\r\n", "1) \"a\"\n2) (integer) 1"},
		{"*2\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", "1) 1) \"a\"\n   2) \"b\"\n2) \"c\""},
		{",3.14\r\n", "(double) 3.14"},
		{",inf\r\n", "(double) inf"},
		{"#t\r\n", "(true)"},
		{"#f\r\n", "(false)"},
		{"(12345678901234567890\r\n", "(big number) 12345678901234567890"},
		{"=7\r\ntxt:abc\r\n", `(verbatim txt) "abc"`},
		{"!10\r\nERR blob x\r\n", "(error) ERR blob x"},
		{"%1\r\n+k\r\n:1\r\n", "1# k => (integer) 1"},
		{"%0\r\n", "(empty hash)"},
		{"~2\r\n$1\r\na\r\n$1\r\nb\r\n", "1~ \"a\"\n2~ \"b\""},
		{">2\r\n$7\r\nmessage\r\n$1\r\nx\r\n", "(push) 1) \"message\"\n       2) \"x\""},
		{"|1\r\n+ttl\r\n:3\r\n+OK\r\n", "OK"},
	}
	for _, c := range cases {
		if got := parse(t, c.raw).String(); got != c.want {
			t.Errorf("%q: got\n%s\nwant\n%s", c.raw, got, c.want)
		}
	}
	// Ten elements: indices are right-aligned like redis-cli.
	raw := "*10\r\n" + strings.Repeat(":1\r\n", 10)
	lines := strings.Split(parse(t, raw).String(), "\n")
	if lines[0] != " 1) (integer) 1" || lines[9] != "10) (integer) 1" {
		t.Errorf("alignment: %q", lines)
	}
}

func TestReadReplyErrors(t *testing.T) {
	for _, raw := range []string{"", "+OK", "+OK\n", "?x\r\n", ":x\r\n", "$3\r\nab\r\n", "$3\r\nabcd\r\n", "*2\r\n:1\r\n", "#x\r\n", "$-2\r\n"} {
		if _, err := ReadReply(bufio.NewReader(strings.NewReader(raw))); err == nil {
			t.Errorf("ReadReply(%q) succeeded", raw)
		}
	}
}

func TestSorted(t *testing.T) {
	r := parse(t, "*3\r\n$1\r\nc\r\n$1\r\na\r\n$1\r\nb\r\n").Sorted()
	if got := r.String(); got != "1) \"a\"\n2) \"b\"\n3) \"c\"" {
		t.Errorf("got %q", got)
	}
}

func TestEncodeCommand(t *testing.T) {
	got := string(EncodeCommand("SET", "k", ""))
	if want := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"SET a b", []string{"SET", "a", "b"}},
		{"  SET\t a   b  ", []string{"SET", "a", "b"}},
		{`SET "a b" 'c d'`, []string{"SET", "a b", "c d"}},
		{`SET k "\x00\xff\n\r\t\"\\z"`, []string{"SET", "k", "\x00\xff\n\r\t\"\\z"}},
		{`SET k 'it\'s'`, []string{"SET", "k", "it's"}},
		{`SET k 'a\nb'`, []string{"SET", "k", `a\nb`}},
		{`SET k ""`, []string{"SET", "k", ""}},
		{`SET k ''`, []string{"SET", "k", ""}},
		{`SET foo"bar" x`, []string{"SET", "foobar", "x"}},
		{"", nil},
	}
	for _, c := range cases {
		got, err := SplitArgs(c.in)
		if err != nil {
			t.Errorf("SplitArgs(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, bad := range []string{`SET "a`, `SET 'a`, `SET "a"b`, `SET 'a'b`} {
		if _, err := SplitArgs(bad); err == nil {
			t.Errorf("SplitArgs(%q) succeeded", bad)
		}
	}
}

func TestParseScript(t *testing.T) {
	steps, err := ParseScript("# comment\n\nSET a 1\n!sort SMEMBERS s\n!ignore\nSRANDMEMBER s\n!sleep 15\n  GET a  \r\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 5 {
		t.Fatalf("got %d steps: %+v", len(steps), steps)
	}
	if steps[0].Line != 3 || !reflect.DeepEqual(steps[0].Args, []string{"SET", "a", "1"}) {
		t.Errorf("step 0: %+v", steps[0])
	}
	if !steps[1].Sort || steps[1].Ignore || steps[1].Args[0] != "SMEMBERS" {
		t.Errorf("step 1: %+v", steps[1])
	}
	if !steps[2].Ignore || steps[2].Line != 6 || steps[2].Args[0] != "SRANDMEMBER" {
		t.Errorf("step 2: %+v", steps[2])
	}
	if steps[3].Sleep != 15*time.Millisecond || steps[3].Args != nil {
		t.Errorf("step 3: %+v", steps[3])
	}
	if steps[4].Line != 8 || steps[4].Args[0] != "GET" {
		t.Errorf("step 4: %+v", steps[4])
	}
	for _, bad := range []string{"!bogus GET a", "!sleep x", "!sort", "SET \"a"} {
		if _, err := ParseScript(bad); err == nil {
			t.Errorf("ParseScript(%q) succeeded", bad)
		}
	}
}

// TestTranscriptsRedisVsRedis runs the transcripts against two redis-servers
// to check that they are deterministic (no reply that varies between runs
// is compared).
func TestTranscriptsRedisVsRedis(t *testing.T) {
	a := StartRedis(t)
	b := StartRedis(t)
	DiffFilesBetween(t, "../../tests/testdata/*.txt", a, b)
}

func TestRunTranscriptAndConn(t *testing.T) {
	inst := StartRedis(t)
	c := Connect(t, inst.Addr)
	got := RunTranscript(t, c, "SET k v\nGET k\n!sort\nMGET k nosuch\nECHO \"a\\x00b\"")
	want := []string{"OK", `"v"`, "1) \"v\"\n2) (nil)", `"a\x00b"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
	// RESP3 via HELLO 3.
	r, err := c.Do("HELLO", "3")
	if err != nil || r.Kind != KindMap {
		t.Fatalf("HELLO 3: %v %v", r, err)
	}
	r, err = c.Do("GET", "nosuch")
	if err != nil || r.Kind != KindNull {
		t.Errorf("RESP3 GET nosuch: %v %v", r, err)
	}
	// Raw write, then read.
	if err := c.WriteRaw([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	if r, err := c.ReadReply(); err != nil || r.String() != "PONG" {
		t.Errorf("inline PING: %v %v", r, err)
	}
}

func TestClient(t *testing.T) {
	inst := StartRedis(t)
	c := Client(t, inst)
	if err := c.Set(t.Context(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get(t.Context(), "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET: %q %v", v, err)
	}
}
