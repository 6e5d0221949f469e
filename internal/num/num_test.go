package num

import "testing"

func TestParseHashLongDouble(t *testing.T) {
	cases := []struct {
		in       string
		want     string // formatted value; "" for invalid, "inf" for an infinity
		inf, bad bool
	}{
		{in: "1.5", want: "1.5"},
		{in: "+3", want: "3"},
		{in: "-0", want: "0"},
		{in: "1e3", want: "1000"},
		{in: "0x10", want: "16"},
		{in: "0X1p4", want: "16"},
		{in: "-0x1.8p1", want: "-3"},
		{in: "inf", inf: true},
		{in: "-Infinity", inf: true},
		{in: "+INF", inf: true},
		{in: "1e-4940", want: "0"},
		{in: "nan", bad: true},
		{in: "--1", bad: true},
		{in: "--inf", bad: true},
		{in: "1e5000", bad: true},
		{in: "1e-5000", bad: true},
		{in: "0x1_0", bad: true},
		{in: "0b101", bad: true},
		{in: " 1", bad: true},
		{in: "1 ", bad: true},
		{in: "", bad: true},
		{in: "0x", bad: true},
		{in: "abc", bad: true},
	}
	for _, c := range cases {
		f, inf, ok := ParseHashLongDouble([]byte(c.in))
		switch {
		case c.bad:
			if ok {
				t.Errorf("%q accepted", c.in)
			}
		case c.inf:
			if !ok || !inf {
				t.Errorf("%q: inf %v ok %v, want an infinity", c.in, inf, ok)
			}
		default:
			if !ok || inf || FormatLongDouble(f) != c.want {
				t.Errorf("%q: ok %v inf %v value %v, want %s", c.in, ok, inf, f, c.want)
			}
		}
	}
}

// TestParseInt: string2ll's rules: no '+', no spaces, no leading zeros, the int64 limits.
func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "7": 7, "-1": -1, "123": 123,
		"9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808} {
		if got, err := ParseInt([]byte(in)); err != nil || got != want {
			t.Errorf("ParseInt(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "-", "+1", " 1", "1 ", "01", "-0", "1.0", "0x10",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999"} {
		if got, err := ParseInt([]byte(in)); err == nil {
			t.Errorf("ParseInt(%q) = %d, want an error", in, got)
		}
	}
}

// TestCAtoi: C's atoi reads a prefix, skips blanks, saturates at the 64-bit limits and narrows.
func TestCAtoi(t *testing.T) {
	for in, want := range map[string]int32{"12": 12, "  -3x": -3, "+5": 5, "abc": 0, "": 0,
		"4294967297": 1, "99999999999999999999": -1} {
		if got := CAtoi([]byte(in)); got != want {
			t.Errorf("CAtoi(%q) = %d, want %d", in, got, want)
		}
	}
}
