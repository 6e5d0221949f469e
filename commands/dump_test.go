package commands

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

// runDump runs one command with binary arguments in database 0 of s, with keyspace events on,
// and returns the dispatcher's context.
func runDump(s *storage.Store, ke *KeyEvents, args ...[]byte) *Ctx {
	c := &Ctx{Args: args, Client: &Client{Proto: 2, Authed: true}, Store: s, W: &resp.Writer{Proto: 2},
		Env: notifyEnv{config.Default()}, KE: ke}
	Dispatch(c, false)
	return c
}

func bs(args ...string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

// TestRestoreEventsAndWakeups checks what RESTORE records: "restore" (after "new") for a key it
// creates, "del" for a key REPLACE removed with a TTL already past, nothing when it fails; and
// that it marks the key ready for blocked clients.
func TestRestoreEventsAndWakeups(t *testing.T) {
	EnableKeyEvents()
	s := testStore(t)
	ke := &KeyEvents{}
	ke.SetClasses(config.NotifyAll | config.NotifyKeyspace | config.NotifyNew)
	list := buildPayload(t, func(w *rdb.ValueWriter) error {
		if err := w.List(1); err != nil {
			return err
		}
		return w.Member([]byte("x"))
	})
	events := func(c *Ctx) string {
		var evs []string
		for _, ev := range c.Events {
			evs = append(evs, fmt.Sprintf("%s:%s", ev.Name, ev.Key))
		}
		return strings.Join(evs, " ")
	}
	for _, tc := range []struct {
		args          [][]byte
		reply, events string
		ready         string
	}{
		{append(bs("RESTORE", "l", "0"), list), "+OK\r\n", "new:l restore:l", "[l]"},
		{append(bs("RESTORE", "l", "0"), list), "-" + ErrBusyKey + "\r\n", "", "[]"},
		{append(append(bs("RESTORE", "l", "0"), list), []byte("FOO")), "-" + ErrSyntax + "\r\n", "", "[]"},
		{append(append(bs("RESTORE-ASKING", "l", "0"), list), []byte("REPLACE")), "+OK\r\n", "restore:l", "[l]"},
		{append(append(bs("RESTORE", "l", "1"), list), []byte("REPLACE"), []byte("ABSTTL")), "+OK\r\n", "del:l", "[]"},
		{append(append(bs("RESTORE", "l", "1"), list), []byte("ABSTTL")), "+OK\r\n", "", "[]"},
	} {
		c := runDump(s, ke, tc.args...)
		if got := string(c.W.Bytes()); got != tc.reply {
			t.Errorf("%.40q: reply %q, want %q", tc.args, got, tc.reply)
		}
		if got := events(c); got != tc.events {
			t.Errorf("%.40q: events %q, want %q", tc.args, got, tc.events)
		}
		if got := fmt.Sprintf("%s", c.Ready); got != tc.ready {
			t.Errorf("%.40q: ready %s, want %s", tc.args, got, tc.ready)
		}
	}
	if got := replyOf(s, 2, "exists", "l"); got != ":0\r\n" {
		t.Errorf("EXISTS after a past ABSTTL = %q", got)
	}
	if err := storage.CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateKeyRange checks MIGRATE's key positions, which COMMAND GETKEYS and the locks use.
func TestMigrateKeyRange(t *testing.T) {
	for _, tc := range []struct{ args, keys string }{
		{"MIGRATE h p k 0 10", "k"},
		{"MIGRATE h p k 0 10 COPY KEYS a b", "k"},
		{"MIGRATE h p _ 0 10 COPY REPLACE KEYS a b", "a b"},
		{"MIGRATE h p _ 0 10 AUTH keys KEYS a", "a"},
		{"MIGRATE h p _ 0 10 AUTH2 keys keys KEYS a b", "a b"},
		{"MIGRATE h p _ 0 10 KEYS", ""},
	} {
		args := bs(strings.Fields(tc.args)...)
		if string(args[3]) == "_" {
			args[3] = nil
		}
		var got []string
		for _, k := range Lookup([]byte("migrate")).KeysOf(args) {
			got = append(got, string(k))
		}
		if strings.Join(got, " ") != tc.keys {
			t.Errorf("%s: keys %q, want %q", tc.args, got, tc.keys)
		}
	}
}

// restoreSeeds returns DUMP payloads Redis 7.0 produced for every type and encoding
// (rdb/testdata), and payloads of every type in Strata's encodings.
func restoreSeeds(t testing.TB) [][]byte {
	var out [][]byte
	f, err := os.Open("../rdb/testdata/redis-dumps.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		p, err := hex.DecodeString(fields[1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	for _, fill := range []func(w *rdb.ValueWriter) error{
		func(w *rdb.ValueWriter) error { return w.String([]byte(strings.Repeat("abc", 40))) },
		func(w *rdb.ValueWriter) error {
			w.Hash(2)
			w.Field([]byte("f"), []byte("1"))
			return w.Field([]byte("g"), []byte("2"))
		},
		func(w *rdb.ValueWriter) error {
			w.ZSet(2)
			w.ScoredMember([]byte("a"), 1)
			return w.ScoredMember([]byte("b"), -1.5)
		},
		func(w *rdb.ValueWriter) error {
			w.Set(2)
			w.Member([]byte("a"))
			return w.Member([]byte("7"))
		},
	} {
		var buf bytes.Buffer
		dw := rdb.NewDumpWriter(&buf)
		if err := fill(&dw.ValueWriter); err != nil {
			t.Fatal(err)
		}
		if err := dw.Close(); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// FuzzRestore feeds payloads to RESTORE (the checksum fixed up when fix is set, so that the
// value decoder is reached): the reply is OK or one of RESTORE's errors, a refused payload
// changes nothing, the store's invariants hold, and a restored key DUMPs to a payload that
// restores to the same value.
//
//	go test ./commands -run '^$' -fuzz '^FuzzRestore$' -fuzztime 20s
func FuzzRestore(f *testing.F) {
	for _, p := range restoreSeeds(f) {
		f.Add(p, true)
	}
	f.Add([]byte{}, false)
	f.Add([]byte("\x01\x81\x00\x00\x01\x00\x00\x00\x00\x00\x01a"), true)
	s := testStore(f)
	replyOf(s, 2, "set", "sentinel", "s")
	allowed := map[string]bool{"+OK\r\n": true, "-" + ErrBadDataFormat + "\r\n": true, "-" + ErrDumpPayload + "\r\n": true}
	f.Fuzz(func(t *testing.T, p []byte, fix bool) {
		if fix && len(p) >= 11 {
			p = append([]byte(nil), p...)
			body := p[:len(p)-8]
			sum := rdb.Checksum(body)
			for i := 0; i < 8; i++ {
				p[len(p)-8+i] = byte(sum >> (8 * i))
			}
		}
		c := runDump(s, nil, []byte("RESTORE"), []byte("k"), []byte("0"), p, []byte("REPLACE"))
		reply := string(c.W.Bytes())
		if !allowed[reply] {
			t.Fatalf("RESTORE %q: %q", p, reply)
		}
		if err := storage.CheckInvariants(s); err != nil {
			t.Fatalf("invariants after RESTORE %q: %v", p, err)
		}
		if got := replyOf(s, 2, "dbsize"); reply != "+OK\r\n" && got != ":1\r\n" {
			t.Fatalf("refused RESTORE %q changed the keyspace: DBSIZE %q", p, got)
		}
		if reply == "+OK\r\n" {
			// The restored key round-trips through DUMP and RESTORE.
			d := runDump(s, nil, []byte("DUMP"), []byte("k")).W.Bytes()
			i := bytes.IndexByte(d, '\n')
			if len(d) < 4 || d[0] != '$' || i < 0 || !bytes.HasSuffix(d, []byte("\r\n")) {
				t.Fatalf("DUMP after RESTORE %q: %q", p, d)
			}
			c := runDump(s, nil, []byte("RESTORE"), []byte("k2"), []byte("0"), d[i+1:len(d)-2], []byte("REPLACE"))
			if string(c.W.Bytes()) != "+OK\r\n" {
				t.Fatalf("RESTORE of Strata's DUMP of %q: %q", p, c.W.Bytes())
			}
			if a, b := replyOf(s, 2, "dump", "k"), replyOf(s, 2, "dump", "k2"); a != b {
				t.Fatalf("round trip of %q changed the value:\n%q\n%q", p, a, b)
			}
			replyOf(s, 2, "del", "k", "k2")
		}
	})
}

// fakeTarget is a MIGRATE target that records the commands it receives and answers each with
// +OK, or with the error fail returns for it.
type fakeTarget struct {
	addr string
	cmds chan string
	fail func(cmd []string) string
}

func startFakeTarget(t *testing.T, fail func(cmd []string) string) *fakeTarget {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ft := &fakeTarget{addr: l.Addr().String(), cmds: make(chan string, 100), fail: fail}
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			go ft.serve(nc)
		}
	}()
	return ft
}

func (ft *fakeTarget) serve(nc net.Conn) {
	defer nc.Close()
	r := bufio.NewReader(nc)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		var cmd []string
		for i := 0; i < n; i++ {
			hdr, err := r.ReadString('\n')
			if err != nil {
				return
			}
			size, _ := strconv.Atoi(strings.TrimSpace(hdr[1:]))
			b := make([]byte, size+2)
			if _, err := io.ReadFull(r, b); err != nil {
				return
			}
			cmd = append(cmd, string(b[:size]))
		}
		shown := append([]string(nil), cmd...)
		if len(shown) > 3 && shown[0] == "RESTORE" {
			shown[3] = "<payload>"
		}
		ft.cmds <- strings.Join(shown, " ")
		reply := "+OK\r\n"
		if msg := ft.fail(cmd); msg != "" {
			reply = "-" + msg + "\r\n"
		}
		nc.Write([]byte(reply))
	}
}

// received returns the commands the target got so far.
func (ft *fakeTarget) received() []string {
	var out []string
	for {
		select {
		case c := <-ft.cmds:
			out = append(out, c)
		case <-time.After(50 * time.Millisecond):
			return out
		}
	}
}

// TestMigrateProtocol runs MIGRATE against a fake target and checks what it sends (AUTH, SELECT
// once per cached connection, RESTORE with the TTL and REPLACE), what it answers, the keys it
// deletes and the events it records.
func TestMigrateProtocol(t *testing.T) {
	EnableKeyEvents()
	s := testStore(t)
	ke := &KeyEvents{}
	ke.SetClasses(config.NotifyAll | config.NotifyKeyspace)
	ft := startFakeTarget(t, func(cmd []string) string {
		if len(cmd) > 1 && cmd[1] == "refused" {
			return "BUSYKEY Target key name already exists."
		}
		return ""
	})
	host, port, _ := net.SplitHostPort(ft.addr)
	cached := MigrateCachedSockets() // other tests' idle connections
	replyOf(s, 2, "set", "a", "1")
	replyOf(s, 2, "set", "b", "2", "px", "100000")
	replyOf(s, 2, "set", "refused", "3")
	migrate := func(args ...string) *Ctx {
		return runDump(s, ke, bs(append([]string{"MIGRATE", host, port}, args...)...)...)
	}
	events := func(c *Ctx) string {
		var evs []string
		for _, ev := range c.Events {
			evs = append(evs, ev.Name+":"+string(ev.Key))
		}
		return strings.Join(evs, " ")
	}

	c := migrate("", "3", "1000", "COPY", "AUTH2", "u", "pw", "KEYS", "a", "missing", "b")
	if got := string(c.W.Bytes()); got != "+OK\r\n" {
		t.Fatalf("MIGRATE COPY: %q", got)
	}
	got := ft.received()
	var ttl int
	if len(got) == 4 {
		fmt.Sscanf(got[3], "RESTORE b %d <payload>", &ttl)
	}
	if len(got) != 4 || got[0] != "AUTH u pw" || got[1] != "SELECT 3" || got[2] != "RESTORE a 0 <payload>" ||
		ttl < 99000 || ttl > 100000 {
		t.Errorf("sent %q", got)
	}
	if events(c) != "" || replyOf(s, 2, "exists", "a", "b") != ":2\r\n" {
		t.Errorf("COPY deleted keys: events %q", events(c))
	}
	// The cached connection has database 3 selected: no SELECT, and the keys go.
	c = migrate("a", "3", "1000", "REPLACE")
	if got := string(c.W.Bytes()); got != "+OK\r\n" {
		t.Fatalf("MIGRATE REPLACE: %q", got)
	}
	if got := ft.received(); len(got) != 1 || got[0] != "RESTORE a 0 <payload> REPLACE" {
		t.Errorf("sent %q", got)
	}
	if events(c) != "del:a" || replyOf(s, 2, "exists", "a") != ":0\r\n" {
		t.Errorf("MIGRATE without COPY: events %q", events(c))
	}
	if got := MigrateCachedSockets(); got != cached+1 {
		t.Errorf("cached sockets = %d, want %d", got, cached+1)
	}
	// A key the target refuses: its error, with that key kept here and the key the target
	// took deleted, as Redis does (the error reply keeps the command's writes).
	c = migrate("", "3", "1000", "KEYS", "b", "refused")
	want := "-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n"
	if got := string(c.W.Bytes()); got != want {
		t.Errorf("refused MIGRATE: %q, want %q", got, want)
	}
	if events(c) != "del:b" || replyOf(s, 2, "exists", "b", "refused") != ":1\r\n" {
		t.Errorf("partly refused MIGRATE: events %q, exists %q", events(c), replyOf(s, 2, "exists", "b", "refused"))
	}
	replyOf(s, 2, "set", "b", "again")
	// After an error the next MIGRATE selects the database again.
	ft.received()
	migrate("", "3", "1000", "COPY", "KEYS", "refused")
	if got := ft.received(); len(got) != 2 || got[0] != "SELECT 3" {
		t.Errorf("sent after an error %q", got)
	}
	if replyOf(s, 2, "exists", "b", "refused") != ":2\r\n" {
		t.Error("a failed MIGRATE deleted keys")
	}
	if got := string(migrate("missing", "0", "1000").W.Bytes()); got != "+NOKEY\r\n" {
		t.Errorf("MIGRATE of a missing key: %q", got)
	}
	if err := storage.CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}
