package bitops

import (
	"math"
	"math/rand"
	"testing"
)

func TestBitfieldGetSet(t *testing.T) {
	p := make([]byte, 4)
	SetUnsigned(p, 0, 8, 0xAB)
	if p[0] != 0xAB {
		t.Fatalf("u8 at 0: got %#x", p[0])
	}
	// A field across a byte boundary, most significant bit first.
	SetUnsigned(p, 12, 8, 0xFF)
	if p[1] != 0x0F || p[2] != 0xF0 {
		t.Fatalf("u8 at 12: got % x", p)
	}
	if got := GetUnsigned(p, 12, 8); got != 0xFF {
		t.Fatalf("get u8 at 12 = %d", got)
	}
	if got := GetUnsigned(p, 8, 4); got != 0 {
		t.Fatalf("get u4 at 8 = %d", got)
	}
	// Only the low width bits are written.
	SetUnsigned(p, 0, 4, 0xF5)
	if p[0] != 0x5B {
		t.Fatalf("u4 at 0 over 0xAB: got %#x", p[0])
	}

	q := make([]byte, 9)
	for _, tc := range []struct {
		width int
		v     int64
	}{
		{1, -1}, {1, 0}, {4, -8}, {4, 7}, {8, -128}, {8, 127}, {8, -1}, {16, -12345},
		{63, math.MinInt64 >> 1}, {64, math.MinInt64}, {64, math.MaxInt64}, {64, -1},
	} {
		for _, off := range []uint64{0, 3, 7} {
			clear(q)
			SetSigned(q, off, tc.width, tc.v)
			if got := GetSigned(q, off, tc.width); got != tc.v {
				t.Errorf("i%d at %d: set %d, got %d", tc.width, off, tc.v, got)
			}
		}
	}
	// The sign bit is extended: 0b1111 as i4 is -1, as u4 is 15.
	clear(q)
	SetUnsigned(q, 5, 4, 0xF)
	if got := GetSigned(q, 5, 4); got != -1 {
		t.Errorf("i4 of 1111 = %d", got)
	}
	if got := GetUnsigned(q, 5, 4); got != 15 {
		t.Errorf("u4 of 1111 = %d", got)
	}
}

func TestBitfieldPadded(t *testing.T) {
	p := []byte{0xFF}
	if got := GetPadded(p, 4, 8, false); got != 0xF0 {
		t.Errorf("u8 at 4 of ff = %d", got)
	}
	if got := GetPadded(p, 4, 8, true); got != -16 {
		t.Errorf("i8 at 4 of ff = %d", got)
	}
	if got := GetPadded(p, 100, 64, true); got != 0 {
		t.Errorf("i64 past the end = %d", got)
	}
	if got := GetPadded(nil, 0, 63, false); got != 0 {
		t.Errorf("u63 of nil = %d", got)
	}
	full := []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0xFF}
	if got := GetPadded(full, 0, 64, true); got != math.MinInt64 {
		t.Errorf("i64 = %d", got)
	}
	if got := GetPadded(full, 7, 64, true); got != 127 {
		t.Errorf("i64 at 7 = %d", got)
	}
}

func TestUnsignedOverflow(t *testing.T) {
	for _, tc := range []struct {
		value       uint64
		incr        int64
		width       int
		want        int
		wrap, sated uint64
	}{
		{200, 55, 8, 0, 0, 0},
		{200, 56, 8, 1, 0, 255},
		{200, 100, 8, 1, 44, 255},
		{10, -10, 8, 0, 0, 0},
		{10, -11, 8, -1, 255, 0},
		{0, -1, 1, -1, 1, 0},
		{1, 1, 1, 1, 0, 1},
		{math.MaxInt64, 1, 63, 1, 0, math.MaxInt64},
		{0, math.MaxInt64, 63, 0, 0, 0},
		// SET u8 -1: the value itself is out of range and counts as overflowing upwards, so
		// SAT gives the maximum (Redis's behaviour).
		{math.MaxUint64, 0, 8, 1, 255, 255},
		{256, 0, 8, 1, 0, 255},
	} {
		var wrap, sat uint64
		if got := CheckUnsignedOverflow(tc.value, tc.incr, tc.width, Wrap, &wrap); got != tc.want {
			t.Errorf("u%d %d%+d: overflow %d, want %d", tc.width, tc.value, tc.incr, got, tc.want)
		}
		if tc.want == 0 {
			continue
		}
		CheckUnsignedOverflow(tc.value, tc.incr, tc.width, Sat, &sat)
		if wrap != tc.wrap || sat != tc.sated {
			t.Errorf("u%d %d%+d: wrap %d sat %d, want %d %d", tc.width, tc.value, tc.incr, wrap, sat, tc.wrap, tc.sated)
		}
		var untouched uint64 = 7
		CheckUnsignedOverflow(tc.value, tc.incr, tc.width, Fail, &untouched)
		if untouched != 7 {
			t.Errorf("FAIL wrote a limit")
		}
	}
}

func TestSignedOverflow(t *testing.T) {
	for _, tc := range []struct {
		value, incr int64
		width       int
		want        int
		wrap, sated int64
	}{
		{100, 27, 8, 0, 0, 0},
		{100, 28, 8, 1, -128, 127},
		{127, 1, 8, 1, -128, 127},
		{-128, -1, 8, -1, 127, -128},
		{-100, -100, 8, -1, 56, -128},
		{0, -1, 1, 0, 0, 0},
		{0, 1, 1, 1, -1, 0},
		{-1, -1, 1, -1, 0, -1},
		{math.MaxInt64, 1, 64, 1, math.MinInt64, math.MaxInt64},
		{math.MinInt64, -1, 64, -1, math.MaxInt64, math.MinInt64},
		{math.MinInt64, math.MaxInt64, 64, 0, 0, 0},
		{-5, math.MinInt64 + 5, 64, 0, 0, 0},
		{-5, math.MinInt64 + 4, 64, -1, math.MaxInt64, math.MinInt64},
		// SET values out of range.
		{200, 0, 8, 1, -56, 127},
		{-129, 0, 8, -1, 127, -128},
		// Redis's intermediate max-value wraps for very negative values, which then count as
		// overflowing upwards and saturate to the maximum.
		{math.MinInt64, 0, 8, 1, 0, 127},
	} {
		var wrap, sat int64
		if got := CheckSignedOverflow(tc.value, tc.incr, tc.width, Wrap, &wrap); got != tc.want {
			t.Errorf("i%d %d%+d: overflow %d, want %d", tc.width, tc.value, tc.incr, got, tc.want)
		}
		if tc.want == 0 {
			continue
		}
		CheckSignedOverflow(tc.value, tc.incr, tc.width, Sat, &sat)
		if wrap != tc.wrap || sat != tc.sated {
			t.Errorf("i%d %d%+d: wrap %d sat %d, want %d %d", tc.width, tc.value, tc.incr, wrap, sat, tc.wrap, tc.sated)
		}
	}
}

// naiveFind and naiveCount are bit-at-a-time references for Find and Count.
func naiveFind(p []byte, from, to int64, bit int) int64 {
	for i := from; i <= to; i++ {
		if Get(p, uint64(i)) == bit {
			return i
		}
	}
	return -1
}

func naiveCount(p []byte, from, to int64) int64 {
	var n int64
	for i := from; i <= to; i++ {
		n += int64(Get(p, uint64(i)))
	}
	return n
}

func TestFindBitAndCountBits(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 3000; iter++ {
		n := 1 + rng.Intn(40)
		p := make([]byte, n)
		switch rng.Intn(4) {
		case 0: // all zeros
		case 1:
			for i := range p {
				p[i] = 0xFF
			}
		default:
			rng.Read(p)
			// Make long uniform runs likely, to exercise the word skipping.
			for i := range p {
				if rng.Intn(3) > 0 {
					p[i] = byte(-(iter & 1))
				}
			}
		}
		from := rng.Int63n(int64(n) * 8)
		to := from + rng.Int63n(int64(n)*8-from)
		for bit := 0; bit <= 1; bit++ {
			if got, want := Find(p, from, to, bit), naiveFind(p, from, to, bit); got != want {
				t.Fatalf("Find(% x, %d, %d, %d) = %d, want %d", p, from, to, bit, got, want)
			}
		}
		if got, want := Count(p, from, to), naiveCount(p, from, to); got != want {
			t.Fatalf("Count(% x, %d, %d) = %d, want %d", p, from, to, got, want)
		}
	}
}

func TestFindBitExamples(t *testing.T) {
	p := []byte{0xFF, 0xF0, 0x00}
	for _, tc := range []struct {
		from, to int64
		bit      int
		want     int64
	}{
		{0, 23, 0, 12}, {0, 23, 1, 0}, {12, 23, 1, -1}, {0, 11, 0, -1}, {8, 15, 0, 12},
		{16, 23, 0, 16}, {3, 3, 1, 3}, {13, 13, 0, 13},
	} {
		if got := Find(p, tc.from, tc.to, tc.bit); got != tc.want {
			t.Errorf("Find(%d, %d, %d) = %d, want %d", tc.from, tc.to, tc.bit, got, tc.want)
		}
	}
	if got := Count([]byte("foobar"), 0, 47); got != 26 {
		t.Errorf("Count(foobar) = %d", got)
	}
	if got := Count([]byte("foobar"), 5, 30); got != 17 {
		t.Errorf("Count(foobar, 5, 30) = %d", got)
	}
}

func TestBitRange(t *testing.T) {
	for _, tc := range []struct {
		n, start, end int64
		isBit         bool
		from, to      int64
		ok            bool
	}{
		{6, 0, -1, false, 0, 47, true},
		{6, 1, 1, false, 8, 15, true},
		{6, -2, -1, false, 32, 47, true},
		{6, 5, 100, false, 40, 47, true},
		{6, 7, 100, false, 0, 0, false},
		{6, 3, 2, false, 0, 0, false},
		{6, -100, 0, false, 0, 7, true},
		{6, 5, 30, true, 5, 30, true},
		{6, -1, -1, true, 47, 47, true},
		{6, 40, 1000, true, 40, 47, true},
		{0, 0, -1, false, 0, 0, false},
		{0, 0, 0, true, 0, 0, false},
	} {
		from, to, ok := Range(tc.n, tc.start, tc.end, tc.isBit)
		if ok != tc.ok || ok && (from != tc.from || to != tc.to) {
			t.Errorf("Range(%d, %d, %d, %v) = %d, %d, %v", tc.n, tc.start, tc.end, tc.isBit, from, to, ok)
		}
	}
}
