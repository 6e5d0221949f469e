package commands_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/internal/glob"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/storage"
)

// ---- helpers shared by scan_test.go, keys_test.go and expire_test.go (prefix ks) ----

// ksDo runs one command in database db through the dispatcher and parses the reply.
func ksDo(t testing.TB, s *storage.Store, db int, args ...string) testutil.Reply {
	t.Helper()
	raw := commands.RunCommand(s, 2, db, args...)
	r, err := testutil.ReadReply(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		t.Fatalf("%v: %v (%q)", args, err, raw)
	}
	return r
}

// ksOK runs a command that must not fail.
func ksOK(t testing.TB, s *storage.Store, db int, args ...string) testutil.Reply {
	t.Helper()
	r := ksDo(t, s, db, args...)
	if r.IsError() {
		t.Fatalf("%v: %s", args, r.Str)
	}
	return r
}

// ksFill adds n elements to a collection with one pipelined-style command per 1000 elements.
func ksFill(t testing.TB, s *storage.Store, db int, typ, key string, n int) {
	t.Helper()
	for i := 0; i < n; i += 1000 {
		var args []string
		switch typ {
		case "hash":
			args = []string{"HSET", key}
			for j := i; j < min(i+1000, n); j++ {
				args = append(args, fmt.Sprintf("f%06d", j), fmt.Sprintf("v%d", j))
			}
		case "set":
			args = []string{"SADD", key}
			for j := i; j < min(i+1000, n); j++ {
				args = append(args, fmt.Sprintf("m%06d", j))
			}
		case "zset":
			args = []string{"ZADD", key}
			for j := i; j < min(i+1000, n); j++ {
				args = append(args, strconv.Itoa(j%50)+".5", fmt.Sprintf("m%06d", j))
			}
		}
		ksOK(t, s, db, args...)
	}
}

// ksScanAll pages through SCAN (or HSCAN/SSCAN/ZSCAN when key != "") until cursor 0 and
// returns every element (pairs flattened) and the number of calls.
func ksScanAll(t testing.TB, s *storage.Store, db int, cmd, key string, opts ...string) ([]string, int) {
	t.Helper()
	cursor := "0"
	var out []string
	calls := 0
	for {
		args := []string{cmd}
		if key != "" {
			args = append(args, key)
		}
		args = append(append(args, cursor), opts...)
		r := ksOK(t, s, db, args...)
		calls++
		if len(r.Elems) != 2 {
			t.Fatalf("%v: %v", args, r)
		}
		cursor = r.Elems[0].Str
		n, err := strconv.ParseUint(cursor, 10, 64)
		if err != nil || n >= 1<<63 {
			t.Fatalf("cursor %q is not a number below 2^63", cursor)
		}
		for _, e := range r.Elems[1].Elems {
			out = append(out, e.Str)
		}
		if cursor == "0" {
			return out, calls
		}
		if calls > 1_000_000 {
			t.Fatal("scan does not end")
		}
	}
}

// ---- glob matching ----

// TestGlobMatchAgainstRedis compares GlobMatch with redis-server's KEYS on random patterns
// over an alphabet rich in special characters.
func TestGlobMatchAgainstRedis(t *testing.T) {
	inst := testutil.MaybeStartRedis(t)
	if inst == nil {
		t.Skip("redis-server not installed")
	}
	c := testutil.Connect(t, inst.Addr)
	r := rand.New(rand.NewPCG(1, 2))
	alpha := []byte("ab-^]\\[*?\x00\xff")
	word := func(maxLen int, chars []byte) string {
		b := make([]byte, r.IntN(maxLen+1))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		return string(b)
	}
	keys := map[string]bool{}
	for len(keys) < 300 {
		keys[word(6, []byte("ab-^]\\[\x00\xff"))] = true
	}
	args := []string{"MSET"}
	for k := range keys {
		args = append(args, k, "1")
	}
	if rep, err := c.Do(args...); err != nil || rep.IsError() {
		t.Fatal(rep, err)
	}
	for i := 0; i < 10000; i++ {
		pat := word(7, alpha)
		rep, err := c.Do("KEYS", pat)
		if err != nil || rep.IsError() {
			t.Fatal(rep, err)
		}
		var want, got []string
		for _, e := range rep.Elems {
			want = append(want, e.Str)
		}
		for k := range keys {
			if pat == "*" || glob.Match([]byte(pat), []byte(k), false) {
				got = append(got, k)
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if fmt.Sprintf("%q", want) != fmt.Sprintf("%q", got) {
			t.Fatalf("pattern %q: redis %q, strata %q", pat, want, got)
		}
	}
}

// ---- SCAN ----

func TestScanPagesThroughEveryKeyOnce(t *testing.T) {
	s := commands.TestStore(t)
	args := []string{"MSET"}
	for i := 0; i < 1000; i++ {
		args = append(args, fmt.Sprintf("key:%04d", i), "v")
	}
	ksOK(t, s, 0, args...)
	ksOK(t, s, 0, "HSET", "h", "f", "v")
	ksOK(t, s, 0, "SET", "gone", "v", "PX", "1")
	time.Sleep(5 * time.Millisecond)

	// COUNT bounds the keys examined per call; the expired key "gone" is examined first, not
	// returned, and deleted (expired lazily, as Redis's SCAN expires the keys it meets).
	r := ksOK(t, s, 0, "SCAN", "0", "COUNT", "10")
	if len(r.Elems[1].Elems) != 9 || r.Elems[0].Str == "0" {
		t.Fatalf("COUNT 10: %v", r)
	}
	if r := ksOK(t, s, 0, "DBSIZE"); r.Int != 1001 {
		t.Fatalf("DBSIZE after SCAN met the expired key: %v", r)
	}

	got, calls := ksScanAll(t, s, 0, "SCAN", "", "COUNT", "7")
	if len(got) != 1001 || calls < 1001/7 {
		t.Fatalf("%d keys in %d calls", len(got), calls)
	}
	seen := map[string]bool{}
	for _, k := range got {
		if seen[k] || k == "gone" {
			t.Fatalf("key %q twice or expired", k)
		}
		seen[k] = true
	}
	got, _ = ksScanAll(t, s, 0, "SCAN", "", "MATCH", "key:01*", "COUNT", "3")
	if len(got) != 100 {
		t.Fatalf("MATCH key:01*: %d keys", len(got))
	}
	got, _ = ksScanAll(t, s, 0, "SCAN", "", "MATCH", "*5", "COUNT", "50")
	if len(got) != 100 {
		t.Fatalf("MATCH *5: %d keys", len(got))
	}
	got, _ = ksScanAll(t, s, 0, "SCAN", "", "TYPE", "hash", "COUNT", "100")
	if fmt.Sprint(got) != "[h]" {
		t.Fatalf("TYPE hash: %v", got)
	}
	// The last page ends with cursor 0 even when it is full.
	got, calls = ksScanAll(t, s, 0, "SCAN", "", "COUNT", "1002") // 1001 live keys and "gone"
	if len(got) != 1001 || calls != 1 {
		t.Fatalf("COUNT 1002: %d keys in %d calls", len(got), calls)
	}
}

// TestScanGuaranteeUnderWrites: keys present for the whole scan are each returned at least once
// while other clients add and delete keys all around them.
func TestScanGuaranteeUnderWrites(t *testing.T) {
	s := commands.TestStore(t)
	stable := map[string]bool{}
	args := []string{"MSET"}
	for i := 0; i < 2000; i++ {
		k := fmt.Sprintf("s:%05d", i*5)
		stable[k] = true
		args = append(args, k, "v")
	}
	ksOK(t, s, 0, args...)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 9))
			for !stop.Load() {
				k := fmt.Sprintf("s:%05d", r.IntN(10000)*5+1+r.IntN(4))
				if r.IntN(2) == 0 {
					ksOK(t, s, 0, "SET", k, "x")
				} else {
					ksOK(t, s, 0, "DEL", k)
				}
			}
		}(w)
	}
	for round := 0; round < 5; round++ {
		got, _ := ksScanAll(t, s, 0, "SCAN", "", "COUNT", strconv.Itoa(3+round*7))
		seen := map[string]bool{}
		for _, k := range got {
			seen[k] = true
		}
		for k := range stable {
			if !seen[k] {
				t.Fatalf("round %d: stable key %q not returned", round, k)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
}

// TestScanUnknownCursor: a cursor the server does not know resumes at its 4-byte key prefix, no
// later than where the scan stopped, and a small made-up number restarts from the beginning.
func TestScanUnknownCursor(t *testing.T) {
	s := commands.TestStore(t)
	args := []string{"MSET"}
	for i := 0; i < 300; i++ {
		args = append(args, fmt.Sprintf("%c%c:%03d", 'a'+i/100, 'a'+i%7, i), "v")
	}
	ksOK(t, s, 0, args...)
	r := ksOK(t, s, 0, "SCAN", "0", "COUNT", "150")
	page := r.Elems[1].Elems
	last := page[len(page)-1].Str
	cur, _ := strconv.ParseUint(r.Elems[0].Str, 10, 64)
	// Replace the sequence bits with one that was never issued.
	lost := cur&^(1<<31-1) | (1<<31 - 2)
	rest, _ := ksScanAll(t, s, 0, "SCAN", "", "COUNT", "1000")
	var want []string
	for _, k := range rest {
		if k > last {
			want = append(want, k)
		}
	}
	r = ksOK(t, s, 0, "SCAN", strconv.FormatUint(lost, 10), "COUNT", "1000")
	var got []string
	for _, e := range r.Elems[1].Elems {
		got = append(got, e.Str)
	}
	if len(got) < len(want) || !strings.HasSuffix(strings.Join(got, ","), strings.Join(want, ",")) {
		t.Fatalf("lost cursor after %q returned %d keys, want a superset of the %d after it", last, len(got), len(want))
	}
	if len(got) == len(rest) {
		t.Fatalf("lost cursor restarted from the beginning, not from the prefix of %q", last)
	}
	for _, c := range []string{"5", "12345", "-1", "18446744073709551615"} {
		got, _ := ksScanAll(t, s, 0, "SCAN", "", "COUNT", "1000")
		r := ksOK(t, s, 0, "SCAN", c, "COUNT", "1000")
		if len(r.Elems[1].Elems) > len(got) {
			t.Fatalf("cursor %s: %d keys", c, len(r.Elems[1].Elems))
		}
	}
	if r := ksOK(t, s, 0, "SCAN", "5", "COUNT", "1000"); len(r.Elems[1].Elems) != 300 {
		t.Fatalf("SCAN 5 returned %d keys", len(r.Elems[1].Elems))
	}
}

// ---- HSCAN, SSCAN, ZSCAN ----

func TestCollectionScansPage(t *testing.T) {
	s := commands.TestStore(t)
	ksFill(t, s, 0, "hash", "h", 1500)
	ksFill(t, s, 0, "set", "s", 1500)
	ksFill(t, s, 0, "zset", "z", 1500)
	h, calls := ksScanAll(t, s, 0, "HSCAN", "h", "COUNT", "10")
	if len(h) != 3000 || calls < 150 {
		t.Fatalf("HSCAN: %d elements in %d calls", len(h), calls)
	}
	for i := 0; i < len(h); i += 2 {
		if "v"+strings.TrimLeft(h[i][1:], "0") != h[i+1] && !(h[i] == "f000000" && h[i+1] == "v0") {
			t.Fatalf("HSCAN pair %q %q", h[i], h[i+1])
		}
	}
	m, _ := ksScanAll(t, s, 0, "SSCAN", "s", "COUNT", "33")
	if len(m) != 1500 {
		t.Fatalf("SSCAN: %d", len(m))
	}
	z, _ := ksScanAll(t, s, 0, "ZSCAN", "z", "COUNT", "100")
	if len(z) != 3000 {
		t.Fatalf("ZSCAN: %d", len(z))
	}
	for i := 0; i < len(z); i += 2 {
		n, _ := strconv.Atoi(z[i][1:])
		if z[i+1] != strconv.Itoa(n%50)+".5" {
			t.Fatalf("ZSCAN %q score %q", z[i], z[i+1])
		}
	}
	got, _ := ksScanAll(t, s, 0, "ZSCAN", "z", "MATCH", "m0001*", "COUNT", "7")
	if len(got) != 200 {
		t.Fatalf("ZSCAN MATCH: %d", len(got))
	}
	got, _ = ksScanAll(t, s, 0, "HSCAN", "h", "MATCH", "*99", "COUNT", "1000")
	if len(got) != 30 {
		t.Fatalf("HSCAN MATCH *99: %d", len(got))
	}
	// Small collections come back whole, whatever the COUNT.
	ksOK(t, s, 0, "SADD", "ints", "10", "9", "-3")
	r := ksOK(t, s, 0, "SSCAN", "ints", "0", "COUNT", "1")
	if r.Elems[0].Str != "0" || fmt.Sprint(r.Elems[1]) == "" || len(r.Elems[1].Elems) != 3 || r.Elems[1].Elems[0].Str != "-3" {
		t.Fatalf("small SSCAN: %v", r)
	}
}
