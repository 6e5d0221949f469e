package commands

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// listRun runs one command through the dispatcher and returns its context.
func listRun(s *storage.Store, proto int, nonBlocking bool, onBlock func(*Ctx), args ...string) *Ctx {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	c := &Ctx{Args: bargs, Client: &Client{Proto: proto}, Store: s, W: &resp.Writer{Proto: proto},
		NonBlocking: nonBlocking, OnBlock: onBlock}
	Dispatch(c, false)
	return c
}

func listDo(s *storage.Store, proto int, args ...string) string {
	return string(listRun(s, proto, false, nil, args...).W.Bytes())
}

// TestListReplyShapes checks raw RESP2 and RESP3 replies. The expected bytes are what
// redis-server 7.0.15 answered (HELLO 2 / HELLO 3) to the same commands; the NonBlocking rows
// are its answers inside MULTI/EXEC.
func TestListReplyShapes(t *testing.T) {
	type row struct {
		cmd         string
		resp2       string
		resp3       string
		nonBlocking bool
	}
	rows := []row{
		{"RPUSH l a b c", ":3\r\n", ":3\r\n", false},
		{"LPOP nokey", "$-1\r\n", "_\r\n", false},
		{"LPOP nokey 2", "*-1\r\n", "_\r\n", false},
		{"LPOP l 0", "*0\r\n", "*0\r\n", false},
		{"LPOP l 2", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", false},
		{"LINDEX l 5", "$-1\r\n", "_\r\n", false},
		{"LINDEX nokey 0", "$-1\r\n", "_\r\n", false},
		{"LRANGE nokey 0 -1", "*0\r\n", "*0\r\n", false},
		{"LPOS l zz", "$-1\r\n", "_\r\n", false},
		{"LPOS l zz COUNT 0", "*0\r\n", "*0\r\n", false},
		{"LPOS nokey a COUNT 1", "*0\r\n", "*0\r\n", false},
		{"LMPOP 1 nokey LEFT", "*-1\r\n", "_\r\n", false},
		{"RPOPLPUSH nokey x", "$-1\r\n", "_\r\n", false},
		{"LMOVE nokey x LEFT LEFT", "$-1\r\n", "_\r\n", false},
		{"BLPOP nokey 0", "*-1\r\n", "_\r\n", true},
		{"BRPOP nokey 0", "*-1\r\n", "_\r\n", true},
		{"BLMOVE nokey x LEFT LEFT 0", "$-1\r\n", "_\r\n", true},
		{"BRPOPLPUSH nokey x 0", "$-1\r\n", "_\r\n", true},
		{"BLMPOP 0 1 nokey LEFT", "*-1\r\n", "_\r\n", true},
	}
	for _, proto := range []int{2, 3} {
		s := testStore(t)
		for _, r := range rows {
			want := r.resp2
			if proto == 3 {
				want = r.resp3
			}
			c := listRun(s, proto, r.nonBlocking, nil, strings.Fields(r.cmd)...)
			if got := string(c.W.Bytes()); got != want {
				t.Errorf("RESP%d %s: got %q want %q", proto, r.cmd, got, want)
			}
			if c.Blocked {
				t.Errorf("RESP%d %s: blocked although NonBlocking", proto, r.cmd)
			}
		}
		if got := listDo(s, proto, "LMPOP", "1", "l", "RIGHT", "COUNT", "3"); got != "*2\r\n$1\r\nl\r\n*1\r\n$1\r\nc\r\n" {
			t.Errorf("RESP%d LMPOP: %q", proto, got)
		}
	}
}

func TestListParseTimeout(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"0", 0, ""},
		{"0.0", 0, ""},
		{"-0", 0, ""},
		{"1", 1000 * ms, ""},
		{"+1", 1000 * ms, ""},
		{"0.1", 100 * ms, ""},
		{".5", 500 * ms, ""},
		{"5.", 5000 * ms, ""},
		{"1.5e1", 15000 * ms, ""},
		{"0.0009", 1 * ms, ""},   // rounded up to a millisecond
		{"1e-400", 1 * ms, ""},   // a long double, not zero
		{"0.001", 1 * ms, ""},    // 0.001L*1000 is just below 1: ceil
		{"-0.001", 0, ""},        // ... and ceil(-0.99..) is 0: forever, as in Redis
		{"-0.0001", 0, ""},       // forever
		{"0x10", 16000 * ms, ""}, // strtold reads hex
		{"0x1p-3", 125 * ms, ""},
		{"9.2e15", 0, ""}, // centuries: forever
		{"-1", 0, ErrTimeoutNegative},
		{"-0.002", 0, ErrTimeoutNegative},
		{"inf", 0, ErrTimeoutNegative},
		{"+INF", 0, ErrTimeoutNegative},
		{"-inf", 0, ErrTimeoutNegative},
		{"Infinity", 0, ErrTimeoutNegative},
		{"1e16", 0, ErrTimeoutNegative}, // overflows the integer conversion
		{"1e400", 0, ErrTimeoutNegative},
		{"9223372036854775807", 0, ErrTimeoutNegative},
		{"1e5000", 0, ErrTimeoutInvalid}, // beyond long double
		{"1e-5000", 0, ErrTimeoutInvalid},
		{"", 0, ErrTimeoutInvalid},
		{"abc", 0, ErrTimeoutInvalid},
		{"nan", 0, ErrTimeoutInvalid},
		{"-nan", 0, ErrTimeoutInvalid},
		{" 1", 0, ErrTimeoutInvalid},
		{"1 ", 0, ErrTimeoutInvalid},
		{"1x", 0, ErrTimeoutInvalid},
		{"1_0", 0, ErrTimeoutInvalid},
		{"0x", 0, ErrTimeoutInvalid},
		{"0b1", 0, ErrTimeoutInvalid},
		{"0o7", 0, ErrTimeoutInvalid},
		{"1e", 0, ErrTimeoutInvalid},
		{"1..2", 0, ErrTimeoutInvalid},
		{"--1", 0, ErrTimeoutInvalid},
		{".", 0, ErrTimeoutInvalid},
		{strings.Repeat("1", 5120), 0, ErrTimeoutInvalid},
	}
	for _, c := range cases {
		d, err := ParseTimeout([]byte(c.in))
		if d != c.want || err != c.err {
			t.Errorf("ParseTimeout(%.20q) = %v, %q; want %v, %q", c.in, d, err, c.want, c.err)
		}
	}
}

func TestListNumKeysExtraction(t *testing.T) {
	bs := func(s string) [][]byte {
		var out [][]byte
		for _, f := range strings.Fields(s) {
			out = append(out, []byte(f))
		}
		return out
	}
	cases := []struct {
		cmd, want string
	}{
		{"LMPOP 2 a b LEFT", "[a b]"},
		{"LMPOP 1 a LEFT COUNT 2", "[a]"},
		{"LMPOP 2 a b", "[a b]"},           // the handler answers the syntax error
		{"LMPOP 3 a b LEFT", "[a b LEFT]"}, // one lock too many; the handler answers the syntax error
		{"LMPOP 0 a LEFT", "[]"},
		{"LMPOP -1 a LEFT", "[]"},
		{"LMPOP x a LEFT", "[]"},
		{"BLMPOP 0 2 a b RIGHT", "[a b]"},
		{"BLMPOP 0 9 a b RIGHT", "[]"},
		{"BLPOP a b c 0", "[a b c]"},
		{"BLMOVE a b LEFT LEFT 0", "[a b]"},
		{"BRPOPLPUSH a b 0", "[a b]"},
		{"LMOVE a b LEFT LEFT", "[a b]"},
	}
	for _, c := range cases {
		args := bs(c.cmd)
		cmd := Lookup(args[0])
		if got := fmt.Sprintf("%s", cmd.KeysOf(args)); got != c.want {
			t.Errorf("%s: keys %s, want %s", c.cmd, got, c.want)
		}
	}
}

// TestListBlockRequests checks what the blocking commands ask of the dispatcher on empty lists:
// the keys and timeout, no reply, and OnBlock called while the keys are still locked.
func TestListBlockRequests(t *testing.T) {
	s := testStore(t)
	cases := []struct {
		cmd     string
		keys    string
		timeout time.Duration
	}{
		{"BLPOP a b 0", "[a b]", 0},
		{"BRPOP a 1.5", "[a]", 1500 * time.Millisecond},
		{"BRPOPLPUSH a b 0.25", "[a]", 250 * time.Millisecond},
		{"BLMOVE a b LEFT RIGHT 2", "[a]", 2 * time.Second},
		{"BLMPOP 0.5 2 a b LEFT COUNT 3", "[a b]", 500 * time.Millisecond},
	}
	for _, tc := range cases {
		var locked bool
		onBlock := func(c *Ctx) {
			// Another writer on the first key must wait until the dispatcher lets go.
			got := make(chan struct{})
			go func() {
				tx := s.Begin(0, [][]byte{c.BlockKeys[0]}, true)
				tx.Abort()
				close(got)
			}()
			select {
			case <-got:
			case <-time.After(50 * time.Millisecond):
				locked = true
			}
		}
		c := listRun(s, 2, false, onBlock, strings.Fields(tc.cmd)...)
		if !c.Blocked || c.W.Len() != 0 {
			t.Errorf("%s: blocked %v, reply %q", tc.cmd, c.Blocked, c.W.Bytes())
			continue
		}
		if got := fmt.Sprintf("%s", c.BlockKeys); got != tc.keys || c.BlockTimeout != tc.timeout {
			t.Errorf("%s: keys %s timeout %v; want %s %v", tc.cmd, got, c.BlockTimeout, tc.keys, tc.timeout)
		}
		if !locked {
			t.Errorf("%s: OnBlock ran without the key locks", tc.cmd)
		}
	}
	// With an element present, they answer at once and do not block.
	listDo(s, 2, "RPUSH", "b", "x", "y")
	c := listRun(s, 2, false, func(*Ctx) { t.Error("OnBlock called") }, "BLPOP", "a", "b", "0")
	if c.Blocked || string(c.W.Bytes()) != "*2\r\n$1\r\nb\r\n$1\r\nx\r\n" {
		t.Errorf("BLPOP on a non-empty list: blocked %v reply %q", c.Blocked, c.W.Bytes())
	}
	c = listRun(s, 2, false, nil, "BLMOVE", "b", "a", "RIGHT", "LEFT", "0")
	if c.Blocked || string(c.W.Bytes()) != "$1\r\ny\r\n" || fmt.Sprintf("%s", c.Ready) != "[a]" {
		t.Errorf("BLMOVE: blocked %v reply %q ready %s", c.Blocked, c.W.Bytes(), c.Ready)
	}
}

func TestListSignals(t *testing.T) {
	s := testStore(t)
	cases := []struct {
		cmd, ready string
	}{
		{"LPUSHX k a", "[]"}, // nothing pushed
		{"LPUSH k a", "[k]"},
		{"RPUSH k b c", "[k]"},
		{"RPUSHX k d", "[k]"},
		{"LMOVE k d LEFT RIGHT", "[d]"},
		{"RPOPLPUSH k d", "[d]"},
		{"LPOP k", "[]"},
		{"LINSERT d BEFORE a z", "[]"},
		{"SET str v", "[]"},
		{"LMOVE d str LEFT LEFT", "[]"}, // WRONGTYPE
	}
	for _, c := range cases {
		ctx := listRun(s, 2, false, nil, strings.Fields(c.cmd)...)
		if got := fmt.Sprintf("%s", ctx.Ready); got != c.ready {
			t.Errorf("%s: ready %s, want %s (reply %q)", c.cmd, got, c.ready, ctx.W.Bytes())
		}
	}
}

// TestListErrorsWriteNothing: a command that answers an error leaves the keyspace as it was,
// even when it had already popped (LMOVE onto a wrong-type destination).
func TestListErrorsWriteNothing(t *testing.T) {
	s := testStore(t)
	listDo(s, 2, "RPUSH", "src", "a", "b")
	listDo(s, 2, "SET", "str", "v")
	for _, cmd := range []string{"LMOVE src str LEFT LEFT", "RPOPLPUSH src str", "BLMOVE src str LEFT LEFT 0",
		"BRPOPLPUSH src str 0"} {
		if got := listDo(s, 2, strings.Fields(cmd)...); !strings.HasPrefix(got, "-WRONGTYPE") {
			t.Errorf("%s = %q", cmd, got)
		}
	}
	if got := listDo(s, 2, "LRANGE", "src", "0", "-1"); got != "*2\r\n$1\r\na\r\n$1\r\nb\r\n" {
		t.Errorf("source changed: %q", got)
	}
	if got := listDo(s, 2, "LMPOP", "2", "nokey", "str", "LEFT"); !strings.HasPrefix(got, "-WRONGTYPE") {
		t.Errorf("LMPOP over a string: %q", got)
	}
	if got := listDo(s, 2, "LMPOP", "2", "src", "str", "LEFT"); got != "*2\r\n$3\r\nsrc\r\n*1\r\n$1\r\na\r\n" {
		t.Errorf("LMPOP stops at the first non-empty list: %q", got)
	}
}

// TestListConcurrentPushPop runs pushers and poppers on one list and checks that every element
// comes out exactly once and the list is gone at the end.
func TestListConcurrentPushPop(t *testing.T) {
	s := testStore(t)
	const pushers, per = 4, 250
	var wg sync.WaitGroup
	for p := 0; p < pushers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				cmd := "RPUSH"
				if i%2 == 0 {
					cmd = "LPUSH"
				}
				listDo(s, 2, cmd, "q", fmt.Sprintf("%d-%d", p, i))
			}
		}(p)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	stop := make(chan struct{})
	var pw sync.WaitGroup
	for c := 0; c < 3; c++ {
		pw.Add(1)
		go func() {
			defer pw.Done()
			for {
				// Checked before the pop: once every push is done, an empty reply means empty.
				stopped := false
				select {
				case <-stop:
					stopped = true
				default:
				}
				ctx := listRun(s, 2, false, nil, "RPOP", "q", "3")
				if r := string(ctx.W.Bytes()); r != "*-1\r\n" {
					for _, line := range strings.Split(r, "\r\n") {
						if strings.Contains(line, "-") && !strings.HasPrefix(line, "*") && !strings.HasPrefix(line, "$") {
							mu.Lock()
							seen[line]++
							mu.Unlock()
						}
					}
					continue
				}
				if stopped {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	pw.Wait()
	if len(seen) != pushers*per {
		t.Fatalf("%d distinct elements popped, want %d", len(seen), pushers*per)
	}
	for e, n := range seen {
		if n != 1 {
			t.Fatalf("%s popped %d times", e, n)
		}
	}
	if got := listDo(s, 2, "EXISTS", "q"); got != ":0\r\n" {
		t.Fatalf("list still exists: %q", got)
	}
}
