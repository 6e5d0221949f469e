package scripting

import (
	"errors"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Numbers read from strings as Lua 5.1 reads them, with C's strtod and strtoul.

// luaStr2Number is Lua 5.1's luaO_str2d, the conversion of a string to a number wherever
// Lua takes one for the other: C's strtod (leading spaces, a sign, decimal or hexadecimal
// digits with an exponent, inf, nan) followed by nothing but spaces. A NUL ends the string,
// as it ends a C string.
func luaStr2Number(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	var f float64
	rest := strings.ToLower(s[i:])
	switch {
	case strings.HasPrefix(rest, "infinity"), strings.HasPrefix(rest, "inf"):
		n := 3
		if strings.HasPrefix(rest, "infinity") {
			n = 8
		}
		f, i = math.Inf(1), i+n
	case strings.HasPrefix(rest, "nan"):
		f, i = math.NaN(), i+3
		if j := strings.IndexByte(s[i:], ')'); i < len(s) && s[i] == '(' && j > 0 {
			i += j + 1
		}
	case strings.HasPrefix(rest, "0x") && len(rest) > 2 && (isHexDigit(rest[2]) || rest[2] == '.' && len(rest) > 3 && isHexDigit(rest[3])):
		j := i + 2
		mant := j
		for j < len(s) && isHexDigit(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && isHexDigit(s[j]) {
				j++
			}
		}
		num := "0x" + s[mant:j]
		if k := cExponent(s, j, 'p'); k > j {
			num, j = num+s[j:k], k
		} else {
			num += "p0"
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		f, i = v, j
	default:
		j := i
		digits := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j, digits = j+1, digits+1
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j, digits = j+1, digits+1
			}
		}
		if digits == 0 {
			return 0, false
		}
		j = max(j, cExponent(s, j, 'e'))
		v, err := strconv.ParseFloat(s[i:j], 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		f, i = v, j
	}
	if s[start] == '-' {
		f = -f
	}
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	return f, i == len(s)
}

// cExponent returns the end of the exponent (e or p, a sign, digits) at s[j:], or j when
// there is none.
func cExponent(s string, j int, mark byte) int {
	if j >= len(s) || s[j]|0x20 != mark {
		return j
	}
	k := j + 1
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	d := k
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == d {
		return j
	}
	return k
}

// luaStrToUL is C's strtoul as tonumber uses it for bases other than 10: leading spaces, a
// sign (a minus wraps around, as unsigned arithmetic does), "0x" in base 16, and the
// digits of base, clamped at 2^64-1. ok is false without a digit, or with anything but
// spaces after them.
func luaStrToUL(s string, base int) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' && digitValue(s[i+2]) < 16 {
		i += 2
	}
	var n uint64
	overflow := false
	start := i
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		if n > (math.MaxUint64-uint64(d))/uint64(base) {
			overflow = true
		}
		n = n*uint64(base) + uint64(d)
	}
	if i == start {
		return 0, false
	}
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, false
	}
	switch {
	case overflow:
		n = math.MaxUint64
	case neg:
		n = -n
	}
	return float64(n), true
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// luaToNumberFn is Lua 5.1's tonumber(v [, base]).
func luaToNumberFn(L *lua.LState) int {
	base := 10
	if b := L.Get(2); b != lua.LNil {
		n, ok := luaToNumber(b)
		if !ok {
			L.TypeError(2, lua.LTNumber)
		}
		base = int(n)
	}
	if base == 10 {
		v := L.CheckAny(1)
		if n, ok := luaToNumber(v); ok {
			L.Push(lua.LNumber(n))
			return 1
		}
		L.Push(lua.LNil)
		return 1
	}
	var s string
	switch v := L.Get(1).(type) {
	case lua.LString:
		s = string(v)
	case lua.LNumber:
		s = luaNumberString(float64(v))
	default:
		L.TypeError(1, lua.LTString)
	}
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	if n, ok := luaStrToUL(s, base); ok {
		L.Push(lua.LNumber(n))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}
