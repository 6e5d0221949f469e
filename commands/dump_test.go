package commands

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

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
