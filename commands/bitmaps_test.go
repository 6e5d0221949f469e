package commands

import (
	"testing"
)

func TestParseBitOffset(t *testing.T) {
	for _, tc := range []struct {
		arg   string
		hash  bool
		width int
		want  uint64
		ok    bool
	}{
		{"0", false, 0, 0, true},
		{"4294967295", false, 0, 4294967295, true},
		{"4294967296", false, 0, 0, false},
		{"-1", false, 0, 0, false},
		{"abc", false, 0, 0, false},
		{"", false, 0, 0, false},
		{"01", false, 0, 0, false},
		{"#3", false, 0, 0, false},
		{"#3", true, 8, 24, true},
		{"#0", true, 64, 0, true},
		{"#-1", true, 8, 0, false},
		{"#", true, 8, 0, false},
		{"#536870911", true, 8, 4294967288, true},
		{"#536870912", true, 8, 0, false},
		{"#9223372036854775807", true, 8, 0, false}, // wraps negative
		{"5", true, 8, 5, true},
	} {
		got, ok := parseBitOffset([]byte(tc.arg), tc.hash, tc.width, maxStringLen)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("parseBitOffset(%q, %v, %d) = %d, %v; want %d, %v", tc.arg, tc.hash, tc.width, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseBitfieldType(t *testing.T) {
	for _, tc := range []struct {
		arg    string
		signed bool
		width  int
		ok     bool
	}{
		{"i1", true, 1, true}, {"i64", true, 64, true}, {"u1", false, 1, true}, {"u63", false, 63, true},
		{"u64", false, 0, false}, {"i65", false, 0, false}, {"i0", false, 0, false}, {"u0", false, 0, false},
		{"I8", false, 0, false}, {"U8", false, 0, false}, {"x8", false, 0, false}, {"i", false, 0, false},
		{"", false, 0, false}, {"i-8", false, 0, false}, {"i08", false, 0, false}, {"i8\x00junk", true, 8, true},
	} {
		signed, width, ok := parseBitfieldType([]byte(tc.arg))
		if ok != tc.ok || ok && (signed != tc.signed || width != tc.width) {
			t.Errorf("parseBitfieldType(%q) = %v %d %v", tc.arg, signed, width, ok)
		}
	}
}
