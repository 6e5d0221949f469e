package scripting

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// cjson.decode: JSON text to Lua values, with lua-cjson 2.1.0's tokens, number rules and
// error texts ("Expected value but found invalid token at character 1").

// jsonParser decodes JSON into Lua values with lua-cjson's error texts.
type jsonParser struct {
	L     *lua.LState
	s     string
	pos   int
	cfg   *cjsonConfig
	depth int
}

// token kinds, named as lua-cjson reports them.
const (
	tObjBegin = "T_OBJ_BEGIN"
	tObjEnd   = "T_OBJ_END"
	tArrBegin = "T_ARR_BEGIN"
	tArrEnd   = "T_ARR_END"
	tString   = "T_STRING"
	tNumber   = "T_NUMBER"
	tBoolean  = "T_BOOLEAN"
	tNull     = "T_NULL"
	tColon    = "T_COLON"
	tComma    = "T_COMMA"
	tEnd      = "T_END"
	tError    = "T_ERROR"
)

type jsonToken struct {
	kind  string
	index int
	val   lua.LValue
	err   string // for T_ERROR
}

func (p *jsonParser) fail(expected string, t jsonToken) {
	found := t.kind
	if t.kind == tError {
		found = t.err
	}
	p.L.RaiseError("Expected %s but found %s at character %d", expected, found, t.index+1)
}

func (p *jsonParser) next() jsonToken {
	for p.pos < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.pos]) >= 0 {
		p.pos++
	}
	t := jsonToken{index: p.pos}
	if p.pos >= len(p.s) || p.s[p.pos] == 0 {
		t.kind = tEnd
		return t
	}
	c := p.s[p.pos]
	switch c {
	case '{':
		t.kind = tObjBegin
	case '}':
		t.kind = tObjEnd
	case '[':
		t.kind = tArrBegin
	case ']':
		t.kind = tArrEnd
	case ':':
		t.kind = tColon
	case ',':
		t.kind = tComma
	case '"':
		return p.str()
	default:
		rest := p.s[p.pos:]
		switch {
		case c == '-' || c >= '0' && c <= '9':
			if !p.cfg.decodeInvalid && jsonInvalidNumber(rest) {
				t.kind, t.err = tError, "invalid number"
				return t
			}
			return p.number()
		case strings.HasPrefix(rest, "true"):
			t.kind, t.val = tBoolean, lua.LTrue
			p.pos += 4
			return t
		case strings.HasPrefix(rest, "false"):
			t.kind, t.val = tBoolean, lua.LFalse
			p.pos += 5
			return t
		case strings.HasPrefix(rest, "null"):
			t.kind, t.val = tNull, cjsonNull
			p.pos += 4
			return t
		case p.cfg.decodeInvalid && jsonInvalidNumber(rest):
			return p.number()
		}
		t.kind, t.err = tError, "invalid token"
		return t
	}
	p.pos++
	return t
}

// jsonInvalidNumber is lua-cjson's json_is_invalid_number: numbers JSON forbids (a leading
// '+', hex, leading zeros, inf, nan).
func jsonInvalidNumber(s string) bool {
	if strings.HasPrefix(s, "+") {
		return true
	}
	s = strings.TrimPrefix(s, "-")
	switch {
	case strings.HasPrefix(s, "0"):
		return len(s) > 1 && (s[1]|0x20 == 'x' || s[1] >= '0' && s[1] <= '9')
	case len(s) > 0 && s[0] <= '9':
		return false
	}
	return len(s) >= 3 && (strings.EqualFold(s[:3], "inf") || strings.EqualFold(s[:3], "nan"))
}

func (p *jsonParser) number() jsonToken {
	t := jsonToken{index: p.pos}
	f, n := cStrtod(p.s[p.pos:])
	if n == 0 {
		t.kind, t.err = tError, "invalid number"
		return t
	}
	p.pos += n
	t.kind, t.val = tNumber, lua.LNumber(f)
	return t
}

// cStrtod parses the longest prefix of s that C's strtod reads (decimal, hex integers,
// inf, infinity, nan) and returns the value and its length, 0 if none.
func cStrtod(s string) (float64, int) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := 1.0
	if neg {
		sign = -1
	}
	r := s[i:]
	switch {
	case len(r) >= 8 && strings.EqualFold(r[:8], "infinity"):
		return math.Inf(int(sign)), i + 8
	case len(r) >= 3 && strings.EqualFold(r[:3], "inf"):
		return math.Inf(int(sign)), i + 3
	case len(r) >= 3 && strings.EqualFold(r[:3], "nan"):
		return math.NaN(), i + 3
	case len(r) > 2 && r[0] == '0' && r[1]|0x20 == 'x' && isHexDigit(r[2]):
		j := 2
		v := 0.0
		for j < len(r) && isHexDigit(r[j]) {
			d, _ := strconv.ParseUint(r[j:j+1], 16, 8)
			v = v*16 + float64(d)
			j++
		}
		return sign * v, i + j
	}
	j := i
	digits := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if j < len(s) && s[j]|0x20 == 'e' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	f, err := strconv.ParseFloat(s[:j], 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, 0
		}
	}
	return f, j
}

func isHexDigit(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }

func (p *jsonParser) str() jsonToken {
	t := jsonToken{index: p.pos}
	p.pos++ // opening quote
	var b strings.Builder
	for {
		if p.pos >= len(p.s) || p.s[p.pos] == 0 {
			t.kind, t.err, t.index = tError, "unexpected end of string", p.pos
			return t
		}
		c := p.s[p.pos]
		if c == '"' {
			p.pos++
			break
		}
		if c != '\\' {
			b.WriteByte(c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.s) {
			t.kind, t.err, t.index = tError, "unexpected end of string", p.pos+1
			return t
		}
		e := p.s[p.pos+1]
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, n := p.unicode(p.pos)
			if n == 0 {
				t.kind, t.err, t.index = tError, "invalid unicode escape code", p.pos
				return t
			}
			var buf [4]byte
			b.Write(buf[:utf8.EncodeRune(buf[:], r)])
			p.pos += n
			continue
		default:
			t.kind, t.err, t.index = tError, "invalid escape code", p.pos
			return t
		}
		p.pos += 2
	}
	t.kind, t.val = tString, lua.LString(b.String())
	return t
}

// unicode decodes \uXXXX (with a following low surrogate if needed) at i; it returns the
// rune and the bytes consumed, 0 if invalid.
func (p *jsonParser) unicode(i int) (rune, int) {
	hex4 := func(j int) (rune, bool) {
		if j+6 > len(p.s) || p.s[j] != '\\' || p.s[j+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(p.s[j+2:j+6], 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex4(i)
	if !ok {
		return 0, 0
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return 0, 0
	case r >= 0xD800 && r <= 0xDBFF:
		lo, ok := hex4(i + 6)
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return 0, 0
		}
		return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
	}
	return r, 6
}

func (p *jsonParser) document() lua.LValue {
	v := p.value(p.next())
	if t := p.next(); t.kind != tEnd {
		p.fail("the end", t)
	}
	return v
}

func (p *jsonParser) value(t jsonToken) lua.LValue {
	switch t.kind {
	case tString, tNumber, tBoolean, tNull:
		return t.val
	case tObjBegin, tArrBegin:
		p.depth++
		if p.depth > p.cfg.decodeMaxDepth {
			p.L.RaiseError("Found too many nested data structures (%d) at character %d", p.depth, t.index+1)
		}
		defer func() { p.depth-- }()
		if t.kind == tObjBegin {
			return p.object()
		}
		return p.array()
	}
	p.fail("value", t)
	return lua.LNil
}

func (p *jsonParser) object() lua.LValue {
	tbl := p.L.NewTable()
	t := p.next()
	if t.kind == tObjEnd {
		return tbl
	}
	for {
		if t.kind != tString {
			p.fail("object key string", t)
		}
		key := t.val
		if c := p.next(); c.kind != tColon {
			p.fail("colon", c)
		}
		tbl.RawSet(key, p.value(p.next()))
		t = p.next()
		if t.kind == tObjEnd {
			return tbl
		}
		if t.kind != tComma {
			p.fail("comma or object end", t)
		}
		t = p.next()
	}
}

func (p *jsonParser) array() lua.LValue {
	tbl := p.L.NewTable()
	t := p.next()
	if t.kind == tArrEnd {
		return tbl
	}
	for i := 1; ; i++ {
		tbl.RawSetInt(i, p.value(t))
		t = p.next()
		if t.kind == tArrEnd {
			return tbl
		}
		if t.kind != tComma {
			p.fail("comma or array end", t)
		}
		t = p.next()
	}
}
