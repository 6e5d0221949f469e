package commands

import (
	"math"
	"slices"
	"strconv"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// Parsing of scores, ranges and counts, byte for byte as Redis 7.0 accepts them.

func zIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
func zIsDigit(c byte) bool { return '0' <= c && c <= '9' }
func zIsHexDigit(c byte) bool {
	return zIsDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// zfold reports whether b is the lower-case ASCII word s up to ASCII case, as strcasecmp
// compares (no Unicode folding).
func zfold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

func zHasPrefixFold(b []byte, p string) bool { return len(b) >= len(p) && zfold(b[:len(p)], p) }

// zStrtod parses the longest prefix of s that C's strtod accepts (leading white space, sign,
// decimal or hexadecimal digits, "inf", "infinity", "nan"). It returns the value, the length of
// that prefix (0 when nothing converts) and whether strtod would set ERANGE to report an
// overflow or an underflow to zero.
func zStrtod(s []byte) (f float64, n int, erange bool) {
	i := 0
	for i < len(s) && zIsSpace(s[i]) {
		i++
	}
	j, neg := i, false
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		neg = s[j] == '-'
		j++
	}
	sign := func(v float64) float64 {
		if neg {
			return -v
		}
		return v
	}
	rest := s[j:]
	switch {
	case zHasPrefixFold(rest, "infinity"):
		return sign(math.Inf(1)), j + 8, false
	case zHasPrefixFold(rest, "inf"):
		return sign(math.Inf(1)), j + 3, false
	case zHasPrefixFold(rest, "nan"):
		k := j + 3
		if k < len(s) && s[k] == '(' {
			e := k + 1
			for e < len(s) && (zIsDigit(s[e]) || s[e] == '_' || 'a' <= s[e]|32 && s[e]|32 <= 'z') {
				e++
			}
			if e < len(s) && s[e] == ')' {
				k = e + 1
			}
		}
		return math.NaN(), k, false
	}
	hex := len(rest) >= 2 && rest[0] == '0' && rest[1]|32 == 'x'
	k, digits, nonzero := j, 0, false
	if hex {
		k += 2
	}
	isD := zIsDigit
	if hex {
		isD = zIsHexDigit
	}
	for k < len(s) && isD(s[k]) {
		nonzero = nonzero || s[k] != '0'
		k++
		digits++
	}
	if k < len(s) && s[k] == '.' {
		k++
		for k < len(s) && isD(s[k]) {
			nonzero = nonzero || s[k] != '0'
			k++
			digits++
		}
	}
	if digits == 0 {
		if hex { // "0x" without digits: strtod reads the "0"
			return sign(0), j + 1, false
		}
		return 0, 0, false
	}
	mant := s[j:k]
	var exp []byte
	if e := k; e < len(s) && (hex && s[e]|32 == 'p' || !hex && s[e]|32 == 'e') {
		e++
		if e < len(s) && (s[e] == '+' || s[e] == '-') {
			e++
		}
		if e < len(s) && zIsDigit(s[e]) {
			for e < len(s) && zIsDigit(s[e]) {
				e++
			}
			exp = s[k+1 : e]
			k = e
		}
	}
	lit := string(mant)
	if hex {
		lit += "p"
		if exp == nil {
			lit += "0"
		}
	} else if exp != nil {
		lit += "e"
	}
	lit += string(exp)
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, 0, false
		}
		erange = true
	}
	if v == 0 && nonzero {
		erange = true
	}
	return sign(v), k, erange
}

// zParseScore parses a score, increment or weight as Redis's getDoubleFromObject does: the whole
// argument must be a number, no leading space, no NaN, no overflow or underflow to zero.
func zParseScore(b []byte) (float64, bool) {
	if len(b) == 0 || zIsSpace(b[0]) {
		return 0, false
	}
	f, n, erange := zStrtod(b)
	if n != len(b) || math.IsNaN(f) || erange && (math.IsInf(f, 0) || f == 0) {
		return 0, false
	}
	return f, true
}

// zParseRangeScore parses one end of a score range as Redis's zslParseRange does: "(" makes it
// exclusive, then plain strtod up to the end of the C string.
func zParseRangeScore(b []byte) (f float64, ex, ok bool) {
	if len(b) > 0 && b[0] == '(' {
		ex = true
		b = b[1:]
	}
	if i := slices.Index(b, 0); i >= 0 {
		b = b[:i]
	}
	f, n, _ := zStrtod(b)
	if n != len(b) || math.IsNaN(f) {
		return 0, false, false
	}
	return f, ex, true
}

func zParseScoreRange(minArg, maxArg []byte) (storage.ScoreRange, bool) {
	var r storage.ScoreRange
	var ok1, ok2 bool
	r.Min, r.MinEx, ok1 = zParseRangeScore(minArg)
	r.Max, r.MaxEx, ok2 = zParseRangeScore(maxArg)
	return r, ok1 && ok2
}

// zParseLexBound parses "-", "+", "(member" or "[member".
func zParseLexBound(b []byte) (storage.LexBound, bool) {
	if len(b) == 0 {
		return storage.LexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return storage.LexBound{}, false
		}
		inf := 1
		if b[0] == '-' {
			inf = -1
		}
		return storage.LexBound{Inf: inf, Ex: true}, true
	case '(':
		return storage.LexBound{Value: b[1:], Ex: true}, true
	case '[':
		return storage.LexBound{Value: b[1:]}, true
	}
	return storage.LexBound{}, false
}

func zParseLexRange(minArg, maxArg []byte) (storage.LexRange, bool) {
	lo, ok1 := zParseLexBound(minArg)
	hi, ok2 := zParseLexBound(maxArg)
	return storage.LexRange{Min: lo, Max: hi}, ok1 && ok2
}

// zRangeLong parses argument i as Redis's getRangeLongFromObjectOrReply does, replying msg (or
// Redis's generic texts when msg is empty) on error.
func zRangeLong(c *Ctx, i int, lo, hi int64, msg string) (int64, bool) {
	n, err := num.ParseInt(c.Args[i])
	if err != nil {
		if msg == "" {
			msg = ErrNotInteger
		}
		c.W.Error(msg)
		return 0, false
	}
	if n < lo || n > hi {
		if msg == "" {
			msg = "ERR value is out of range, value must between " + strconv.FormatInt(lo, 10) +
				" and " + strconv.FormatInt(hi, 10)
		}
		c.W.Error(msg)
		return 0, false
	}
	return n, true
}
