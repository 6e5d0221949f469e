package commands_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/storage"
)

func ksInvariants(t testing.TB, s *storage.Store) {
	t.Helper()
	if err := storage.CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

// TestRenameAndMoveAreO1: RENAME, RENAMENX and MOVE of a large hash take about as long as
// renaming a string (they move one metadata record), and the elements follow the key.
func TestRenameAndMoveAreO1(t *testing.T) {
	s := commands.TestStore(t)
	const n = 100_000
	ksFill(t, s, 0, "hash", "big", n)
	ksOK(t, s, 0, "SET", "small", "v")
	timeIt := func(args ...string) time.Duration {
		if err := s.Flush(); err != nil { // the fill's writes, pending, are not the command's
			t.Fatal(err)
		}
		start := time.Now()
		ksOK(t, s, 0, args...)
		return time.Since(start)
	}
	small := timeIt("RENAME", "small", "small2")
	ren := timeIt("RENAME", "big", "big2")
	nx := timeIt("RENAMENX", "big2", "big3")
	move := timeIt("MOVE", "big3", "1")
	t.Logf("RENAME string %v; %d-field hash: RENAME %v, RENAMENX %v, MOVE %v", small, n, ren, nx, move)
	for _, d := range []time.Duration{ren, nx, move} {
		if d > 20*time.Millisecond {
			t.Errorf("renaming a %d-field hash took %v", n, d)
		}
	}
	if r := ksOK(t, s, 1, "HLEN", "big3"); r.Int != n {
		t.Fatalf("HLEN after MOVE = %d", r.Int)
	}
	if r := ksOK(t, s, 1, "HGET", "big3", "f099999"); r.Str != "v99999" {
		t.Fatalf("HGET after MOVE = %v", r)
	}
	ksInvariants(t, s)
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	if r := ksOK(t, s, 1, "HLEN", "big3"); r.Int != n {
		t.Fatalf("HLEN after collection = %d", r.Int)
	}
	ksInvariants(t, s)
}

// TestCopyAndReplaceAcrossDatabases: COPY duplicates a collection under a new object, so the
// copies evolve apart, and replacing or deleting either reclaims only what it should.
func TestCopyAndReplaceAcrossDatabases(t *testing.T) {
	s := commands.TestStore(t)
	ksFill(t, s, 0, "zset", "z", 3000)
	ksOK(t, s, 0, "EXPIREAT", "z", "4102444800")
	ksFill(t, s, 2, "hash", "dst", 2000)
	if r := ksOK(t, s, 0, "COPY", "z", "dst", "DB", "2"); r.Int != 0 {
		t.Fatalf("COPY without REPLACE onto an existing key = %v", r)
	}
	if r := ksOK(t, s, 0, "COPY", "z", "dst", "DB", "2", "REPLACE"); r.Int != 1 {
		t.Fatalf("COPY REPLACE = %v", r)
	}
	ksOK(t, s, 0, "ZADD", "z", "100", "extra")
	ksOK(t, s, 2, "ZREM", "dst", "m000000")
	if a, b := ksOK(t, s, 0, "ZCARD", "z").Int, ksOK(t, s, 2, "ZCARD", "dst").Int; a != 3001 || b != 2999 {
		t.Fatalf("ZCARD %d and %d", a, b)
	}
	if r := ksOK(t, s, 2, "EXPIRETIME", "dst"); r.Int != 4102444800 {
		t.Fatalf("EXPIRETIME of the copy = %v", r)
	}
	ksInvariants(t, s)
	ksOK(t, s, 0, "DEL", "z")
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	if r := ksOK(t, s, 2, "ZSCORE", "dst", "m002999"); r.Str != "49.5" {
		t.Fatalf("ZSCORE of the copy after deleting the original = %v", r)
	}
	ksInvariants(t, s)
	// COPY within a database, onto itself only through another DB.
	if r := ksDo(t, s, 2, "COPY", "dst", "dst"); !r.IsError() {
		t.Fatal("COPY onto itself")
	}
	if r := ksOK(t, s, 2, "COPY", "dst", "dst", "DB", "3"); r.Int != 1 {
		t.Fatal(r)
	}
	if r := ksOK(t, s, 3, "ZCARD", "dst"); r.Int != 2999 {
		t.Fatal(r)
	}
	ksInvariants(t, s)
}

// TestObjectEncodingThresholds compares OBJECT ENCODING with redis-server around the default
// size limits of the compact encodings.
func TestObjectEncodingThresholds(t *testing.T) {
	inst := testutil.MaybeStartRedis(t)
	if inst == nil {
		t.Skip("redis-server not installed")
	}
	rc := testutil.Connect(t, inst.Addr)
	s := commands.TestStore(t)
	long := strings.Repeat("x", 65)
	cmds := [][]string{}
	add := func(args ...string) { cmds = append(cmds, args) }
	for _, n := range []int{1, 128, 129} {
		z := []string{"ZADD", fmt.Sprintf("z%d", n)}
		for i := 0; i < n; i++ {
			z = append(z, fmt.Sprint(i), fmt.Sprint("m", i))
		}
		add(z...)
	}
	for _, n := range []int{1, 512, 513} {
		st := []string{"SADD", fmt.Sprintf("s%d", n)}
		h := []string{"HSET", fmt.Sprintf("h%d", n)}
		for i := 0; i < n; i++ {
			st = append(st, fmt.Sprint(i*7-100))
			h = append(h, fmt.Sprint("f", i), "v")
		}
		add(st...)
		add(h...)
	}
	add("HSET", "hv64", "f", long[:64])
	add("HSET", "hv65", "f", long)
	add("HSET", "hf65", long, "v")
	add("ZADD", "zm64", "1", long[:64])
	add("ZADD", "zm65", "1", long)
	add("SADD", "sstr", "1", "x")
	add("SET", "i", "-9223372036854775808")
	add("SET", "e", long[:44])
	add("SET", "r", long[:45])
	for _, k := range []string{"h1", "h512", "h513", "z1", "z128", "z129", "s1", "s512", "s513",
		"hv64", "hv65", "hf65", "zm64", "zm65", "sstr", "i", "e", "r"} {
		add("OBJECT", "ENCODING", k)
		add("OBJECT", "REFCOUNT", k)
	}
	for _, c := range cmds {
		want, err := rc.Do(c...)
		if err != nil {
			t.Fatal(err)
		}
		got := ksDo(t, s, 0, c...)
		if want.String() != got.String() {
			t.Errorf("%s: redis %s, strata %s", strings.Join(c[:min(len(c), 3)], " "), want, got)
		}
	}
}

// TestLargeStringsRenameCopyMove: strings kept in the value log keep their bytes through RENAME
// (the pointer moves), COPY (the copy gets its own value), MOVE and EXPIRE, and the value log's
// index stays consistent.
func TestLargeStringsRenameCopyMove(t *testing.T) {
	s, err := storage.Open(storage.Options{Dir: t.TempDir(), Databases: 4, DisableBackgrnd: true, LargeValueThreshold: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := func(c byte) string { return strings.Repeat(string(c), 100_000) }
	ksOK(t, s, 0, "SET", "a", big('a'))
	ksOK(t, s, 0, "SET", "b", big('b'))
	if r := ksOK(t, s, 0, "OBJECT", "ENCODING", "a"); r.Str != "raw" {
		t.Fatalf("OBJECT ENCODING of a 100 kB string = %v", r)
	}
	ksOK(t, s, 0, "RENAME", "a", "a2")
	ksOK(t, s, 0, "RENAME", "a2", "b") // replaces b's value
	ksOK(t, s, 0, "COPY", "b", "c")
	ksOK(t, s, 0, "COPY", "b", "d", "DB", "1")
	ksOK(t, s, 0, "EXPIREAT", "c", "4102444800")
	ksOK(t, s, 0, "MOVE", "c", "2")
	ksOK(t, s, 0, "APPEND", "b", "x")
	for _, c := range []struct {
		db       int
		key, val string
	}{{0, "b", big('a') + "x"}, {1, "d", big('a')}, {2, "c", big('a')}} {
		if r := ksOK(t, s, c.db, "GET", c.key); r.Str != c.val {
			t.Fatalf("db %d %s: %d bytes", c.db, c.key, len(r.Str))
		}
	}
	if r := ksOK(t, s, 2, "EXPIRETIME", "c"); r.Int != 4102444800 {
		t.Fatal(r)
	}
	ksInvariants(t, s)
	ksOK(t, s, 0, "DEL", "b")
	ksOK(t, s, 1, "RENAMENX", "d", "e")
	ksInvariants(t, s)
	if r := ksOK(t, s, 1, "STRLEN", "e"); r.Int != 100_000 {
		t.Fatal(r)
	}
}
