// Package num reads and prints numbers as Redis does: integers as string2ll reads them (no
// spaces, no '+', no leading zeros), doubles for scores and increments, C's atoi for the
// numkeys of COMMAND GETKEYS, and the x87 long doubles of INCRBYFLOAT and HINCRBYFLOAT, whose
// 64-bit mantissa Go's float64 cannot hold, through math/big.
package num

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ParseInt parses b as Redis's string2ll does: optional '-', digits, no spaces, no '+', no
// leading zeros, within int64. It does not allocate.
func ParseInt(b []byte) (int64, error) {
	if len(b) == 1 && b[0] >= '0' && b[0] <= '9' {
		return int64(b[0] - '0'), nil
	}
	neg := len(b) > 0 && b[0] == '-'
	d := b
	if neg {
		d = b[1:]
	}
	if len(d) == 0 || len(d) > 19 || d[0] < '1' || d[0] > '9' {
		return 0, strconv.ErrSyntax
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, strconv.ErrSyntax
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case neg && u <= 1<<63:
		return -int64(u-1) - 1, nil
	case !neg && u < 1<<63:
		return int64(u), nil
	}
	return 0, strconv.ErrRange
}

// ParseFloat parses b as Redis's string2ld/strtod do for scores and increments: "inf", "-inf",
// "+inf" accepted, NaN and trailing garbage refused.
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 5000 || b[0] == ' ' || b[len(b)-1] == ' ' {
		return 0, false
	}
	s := string(b)
	switch s {
	case "inf", "+inf", "Inf", "+Inf", "INF", "+INF", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-Inf", "-INF", "-infinity":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	for _, ch := range b {
		if ch == 'x' || ch == 'X' || ch == '_' || ch == 'n' || ch == 'N' || ch == 'p' || ch == 'P' {
			return 0, false
		}
	}
	return f, true
}

// CAtoi is C's atoi on glibc: strtol's reading (blanks, a sign, decimal digits; saturated at the
// 64-bit limits) narrowed to a 32-bit int.
func CAtoi(b []byte) int32 {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var u uint64
	over := false
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if u > (1<<63)/10 {
			over = true
			continue
		}
		u = u*10 + uint64(b[i]-'0')
	}
	var v int64
	switch {
	case neg && (over || u >= 1<<63):
		v = math.MinInt64
	case neg:
		v = -int64(u)
	case over || u >= 1<<63:
		v = math.MaxInt64
	default:
		v = int64(u)
	}
	return int32(v)
}

// ParseLongDouble parses b as Redis's string2ld (strtold) does: decimal or hexadecimal
// ("0x1p3"), "inf", no surrounding spaces.
func ParseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) > 5000 || b[0] == ' ' || b[len(b)-1] == ' ' || strings.ContainsAny(string(b), "_oObB") {
		return nil, false
	}
	s := string(b)
	base := 10
	if u := strings.TrimLeft(s, "+-"); len(u) > 1 && u[0] == '0' && (u[1] == 'x' || u[1] == 'X') {
		base = 0
	} else if strings.ContainsAny(s, "xXpP") {
		return nil, false
	}
	f, _, err := big.ParseFloat(s, base, LongDoublePrec, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	return f, true
}

// FormatLongDouble formats f as Redis's ld2string in human mode: "%.17Lf" without trailing zeros.
func FormatLongDouble(f *big.Float) string {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// LongDoublePrec is the mantissa width of the x87 long double that Redis computes INCRBYFLOAT in.
const LongDoublePrec = 64

// Exponent bounds (big.Float.MantExp) of a finite, non-zero x87 long double, subnormals included.
const (
	LongDoubleMaxExp = 16384
	LongDoubleMinExp = -16444
)

// ParseHashLongDouble parses b as Redis's string2ld (strtold) does, on top of ParseLongDouble:
// it also takes hexadecimal ("0x1.8p3") and infinities ("inf", "infinity" in any case, signed),
// reporting the latter through inf, and refuses what strtold reports out of range.
func ParseHashLongDouble(b []byte) (f *big.Float, inf, ok bool) {
	s := string(b)
	u := strings.TrimLeft(s, "+-")
	if len(s)-len(u) <= 1 {
		switch strings.ToLower(u) {
		case "inf", "infinity":
			return nil, true, true
		}
		if len(u) > 2 && u[0] == '0' && (u[1] == 'x' || u[1] == 'X') {
			if strings.ContainsAny(s, "_ ") {
				return nil, false, false
			}
			f, _, err := big.ParseFloat(s, 0, LongDoublePrec, big.ToNearestEven)
			if err != nil {
				return nil, false, false
			}
			return f, false, LongDoubleInRange(f)
		}
	}
	f, ok = ParseLongDouble(b)
	return f, false, ok && LongDoubleInRange(f)
}

// LongDoubleInRange reports whether strtold would return f without ERANGE to zero or infinity.
func LongDoubleInRange(f *big.Float) bool {
	if f.Sign() == 0 {
		return true
	}
	e := f.MantExp(nil)
	return e <= LongDoubleMaxExp && e >= LongDoubleMinExp
}
