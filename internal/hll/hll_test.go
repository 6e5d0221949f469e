package hll_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/strata-db/strata/internal/hll"
	"github.com/strata-db/strata/internal/testutil"
)

func TestNewIsRedisEmpty(t *testing.T) {
	want := []byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff")
	if got := hll.New(); !bytes.Equal(got, want) {
		t.Fatalf("New() = %q, want %q", got, want)
	}
}

func TestHashKnownValues(t *testing.T) {
	// Register index and value of "a" under Redis: PFADD h a; PFDEBUG DECODE h gives
	// "Z:12711 v:2,1 Z:3672" (checked against redis-server 7.0.15).
	idx, count := hll.PatLen([]byte("a"))
	if idx != 12711 || count != 2 {
		t.Fatalf("PatLen(a) = %d,%d, want 12711,2", idx, count)
	}
}

// add inserts elements "prefix0".."prefix{n-1}" into v.
func add(t *testing.T, v []byte, prefix string, from, to int) []byte {
	t.Helper()
	var err error
	for i := from; i < to; i++ {
		if v, _, err = hll.Add(v, []byte(prefix+strconv.Itoa(i)), hll.DefaultSparseMaxBytes); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// TestBytesMatchRedis adds the same elements to redis-server and to a Strata HLL and compares
// the stored strings byte for byte, across the sparse range, the promotion and the dense range.
func TestBytesMatchRedis(t *testing.T) {
	r := testutil.MaybeStartRedis(t)
	if r == nil {
		t.Skip("redis-server not installed")
	}
	conn := testutil.Connect(t, r.Addr)
	v := hll.New()
	prev := 0
	for _, n := range []int{1, 2, 5, 17, 100, 300, 700, 1000, 1500, 3000, 10000} {
		args := []string{"PFADD", "h"}
		for i := prev; i < n; i++ {
			args = append(args, "e"+strconv.Itoa(i))
		}
		if _, err := conn.Do(args...); err != nil {
			t.Fatal(err)
		}
		v = add(t, v, "e", prev, n)
		prev = n
		got, err := conn.Do("GET", "h")
		if err != nil {
			t.Fatal(err)
		}
		if got.Str != string(v) {
			t.Fatalf("after %d elements (encoding %d): bytes differ from Redis (len %d vs %d)", n, hll.Encoding(v), len(v), len(got.Str))
		}
		// The cardinality Redis caches on PFCOUNT equals Count, and the cached header too.
		cnt, err := conn.Do("PFCOUNT", "h")
		if err != nil {
			t.Fatal(err)
		}
		c, err := hll.Count(v)
		if err != nil || int64(c) != cnt.Int {
			t.Fatalf("after %d elements: Count = %d, %v; Redis says %d", n, c, err, cnt.Int)
		}
		hll.SetCached(v, c)
		got, _ = conn.Do("GET", "h")
		if got.Str != string(v) {
			t.Fatalf("after %d elements: cached header differs from Redis", n)
		}
	}
	if hll.Encoding(v) != hll.Dense {
		t.Fatal("10000 elements should be dense")
	}
}

// TestCountMatchesRedis compares the cardinality at checkpoints up to 200000 inserts.
func TestCountMatchesRedis(t *testing.T) {
	r := testutil.MaybeStartRedis(t)
	if r == nil {
		t.Skip("redis-server not installed")
	}
	conn := testutil.Connect(t, r.Addr)
	v := hll.New()
	prev := 0
	for _, n := range []int{0, 10, 250, 1000, 4000, 20000, 50000, 100000, 200000} {
		for i := prev; i < n; i += 1000 {
			args := []string{"PFADD", "c"}
			for j := i; j < min(i+1000, n); j++ {
				args = append(args, "x"+strconv.Itoa(j))
			}
			if _, err := conn.Do(args...); err != nil {
				t.Fatal(err)
			}
		}
		v = add(t, v, "x", prev, n)
		prev = n
		want, err := conn.Do("PFCOUNT", "c")
		if err != nil {
			t.Fatal(err)
		}
		got, err := hll.Count(v)
		if err != nil || int64(got) != want.Int {
			t.Fatalf("%d inserts: Count = %d, %v; Redis %d", n, got, err, want.Int)
		}
	}
}

func TestMergeAndDense(t *testing.T) {
	a := add(t, hll.New(), "a", 0, 100)
	b := add(t, hll.New(), "b", 0, 5000)
	var regs [hll.Registers]uint8
	if err := hll.Merge(&regs, a); err != nil {
		t.Fatal(err)
	}
	if err := hll.Merge(&regs, b); err != nil {
		t.Fatal(err)
	}
	both := add(t, add(t, hll.New(), "a", 0, 100), "b", 0, 5000)
	want, _ := hll.Count(both)
	if got := hll.CountRegisters(&regs); got != want {
		t.Fatalf("merged count %d, want %d", got, want)
	}
	d, err := hll.ToDense(a)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := hll.Count(a)
	if cd, _ := hll.Count(d); cd != ca || hll.Encoding(d) != hll.Dense || !hll.Valid(d) {
		t.Fatalf("dense count %d, sparse %d", cd, ca)
	}
}

func TestCorruptSparse(t *testing.T) {
	bad := [][]byte{
		append(hll.New()[:hll.HeaderSize:hll.HeaderSize], 0x7f),       // XZERO cut short
		append(hll.New()[:hll.HeaderSize:hll.HeaderSize], 0x40, 0x00), // covers 1 register
		append(hll.New(), 0x80), // covers 16385
		append(hll.New()[:hll.HeaderSize:hll.HeaderSize], 0x7f, 0xff, 0xff), // 16384 + 64
	}
	for i, v := range bad {
		if _, err := hll.Count(v); err != hll.ErrCorrupt {
			t.Errorf("%d: Count err = %v", i, err)
		}
		var regs [hll.Registers]uint8
		if err := hll.Merge(&regs, v); err != hll.ErrCorrupt {
			t.Errorf("%d: Merge err = %v", i, err)
		}
		if _, err := hll.ToDense(v); err != hll.ErrCorrupt {
			t.Errorf("%d: ToDense err = %v", i, err)
		}
	}
	if hll.Valid([]byte("HYLL\x00")) || hll.Valid([]byte("HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")) {
		t.Error("invalid headers accepted")
	}
}

func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("ten million inserts")
	}
	if msg := hll.SelfTest(hll.DefaultSparseMaxBytes); msg != "" {
		t.Fatal(msg)
	}
}

// FuzzSparse feeds arbitrary sparse bodies to every function that reads registers: none may
// panic, and each either works or reports ErrCorrupt.
func FuzzSparse(f *testing.F) {
	f.Add([]byte{0x7f, 0xff}, []byte("a"))
	f.Add([]byte{0x40, 0x00, 0x80, 0x7f, 0xfd}, []byte("xyz"))
	f.Add([]byte{0xff, 0x3f, 0x7f}, []byte(""))
	f.Fuzz(func(t *testing.T, body, elem []byte) {
		v := append(hll.New()[:hll.HeaderSize:hll.HeaderSize], body...)
		var regs [hll.Registers]uint8
		_ = hll.Merge(&regs, v)
		_, _ = hll.Count(v)
		_, _ = hll.ToDense(v)
		_ = hll.Decode(v)
		w := append([]byte(nil), v...)
		if w, _, err := hll.Add(w, elem, 64); err == nil && !hll.Valid(w) {
			t.Fatalf("Add produced an invalid value %q", w)
		}
	})
}
