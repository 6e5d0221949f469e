package commands

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// cjson as Redis bundles it (lua-cjson 2.1.0): cjson.encode, cjson.decode, cjson.null and the
// configuration functions. Tables whose keys are all positive integers encode as arrays
// (holes as null; excessively sparse ones are refused), other tables as objects, empty
// tables as {}; numbers use "%.14g"; '/' is escaped. Decoded JSON null is cjson.null.

type cjsonConfig struct {
	sparseConvert  bool
	sparseRatio    int
	sparseSafe     int
	encodeMaxDepth int
	decodeMaxDepth int
	precision      int
	encodeInvalid  int // 0 refuse, 1 allow, 2 "null"
	decodeInvalid  bool
	keepBuffer     bool
}

// cjsonNull is cjson.null (a light userdata NULL in Redis, a userdata here).
var cjsonNull = &lua.LUserData{Value: nil, Metatable: lua.LNil}

func openCJSON(L *lua.LState) *lua.LTable {
	cfg := &cjsonConfig{sparseRatio: 2, sparseSafe: 10, encodeMaxDepth: 1000, decodeMaxDepth: 1000,
		precision: 14, decodeInvalid: true, keepBuffer: true}
	t := L.NewTable()
	t.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "encode", "expected 1 argument")
		}
		var b strings.Builder
		cfg.encode(L, &b, L.Get(1), 0)
		L.Push(lua.LString(b.String()))
		return 1
	}))
	t.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "decode", "expected 1 argument")
		}
		s := checkLString(L, 1, "decode")
		p := &jsonParser{L: L, s: s, cfg: cfg}
		L.Push(p.document())
		return 1
	}))
	t.RawSetString("encode_sparse_array", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() >= 1 {
			cfg.sparseConvert = luaTruthOption(L, 1, "encode_sparse_array")
		}
		if L.GetTop() >= 2 {
			cfg.sparseRatio = intOption(L, 2, "encode_sparse_array", 0, math.MaxInt32)
		}
		if L.GetTop() >= 3 {
			cfg.sparseSafe = intOption(L, 3, "encode_sparse_array", 0, math.MaxInt32)
		}
		L.Push(lua.LBool(cfg.sparseConvert))
		L.Push(lua.LNumber(cfg.sparseRatio))
		L.Push(lua.LNumber(cfg.sparseSafe))
		return 3
	}))
	intCfg := func(name string, p *int, lo, hi int) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
				*p = intOption(L, 1, name, lo, hi)
			}
			L.Push(lua.LNumber(*p))
			return 1
		}))
	}
	intCfg("encode_max_depth", &cfg.encodeMaxDepth, 1, math.MaxInt32)
	intCfg("decode_max_depth", &cfg.decodeMaxDepth, 1, math.MaxInt32)
	intCfg("encode_number_precision", &cfg.precision, 1, 14)
	t.RawSetString("encode_keep_buffer", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() >= 1 {
			cfg.keepBuffer = luaTruthOption(L, 1, "encode_keep_buffer")
		}
		L.Push(lua.LBool(cfg.keepBuffer))
		return 1
	}))
	t.RawSetString("encode_invalid_numbers", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() >= 1 {
			if s, ok := L.Get(1).(lua.LString); ok && s == "null" {
				cfg.encodeInvalid = 2
			} else if luaTruthOption(L, 1, "encode_invalid_numbers") {
				cfg.encodeInvalid = 1
			} else {
				cfg.encodeInvalid = 0
			}
		}
		switch cfg.encodeInvalid {
		case 2:
			L.Push(lua.LString("null"))
		default:
			L.Push(lua.LBool(cfg.encodeInvalid == 1))
		}
		return 1
	}))
	t.RawSetString("decode_invalid_numbers", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() >= 1 {
			cfg.decodeInvalid = luaTruthOption(L, 1, "decode_invalid_numbers")
		}
		L.Push(lua.LBool(cfg.decodeInvalid))
		return 1
	}))
	t.RawSetString("null", cjsonNull)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// luaTruthOption reads a cjson boolean option: true/false, "on"/"off".
func luaTruthOption(L *lua.LState, n int, fname string) bool {
	switch v := L.Get(n).(type) {
	case lua.LBool:
		return bool(v)
	case lua.LString:
		switch v {
		case "on":
			return true
		case "off":
			return false
		}
		argError(L, n, fname, "invalid option '"+string(v)+"'")
	case *lua.LNilType:
		return false
	}
	argError(L, n, fname, "boolean or string expected, got "+luaTypeName(L, n))
	return false
}

func intOption(L *lua.LState, n int, fname string, lo, hi int) int {
	v := int(checkNumber(L, n, fname))
	if v < lo || v > hi {
		argError(L, n, fname, "expected integer between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi))
	}
	return v
}

func (cfg *cjsonConfig) encodeError(L *lua.LState, v lua.LValue, reason string) {
	L.RaiseError("Cannot serialise %s: %s", v.Type().String(), reason)
}

func (cfg *cjsonConfig) encode(L *lua.LState, b *strings.Builder, v lua.LValue, depth int) {
	switch x := v.(type) {
	case *lua.LNilType:
		b.WriteString("null")
	case lua.LBool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case lua.LNumber:
		cfg.encodeNumber(L, b, x)
	case lua.LString:
		jsonQuote(b, string(x))
	case *lua.LUserData:
		if x == cjsonNull {
			b.WriteString("null")
			return
		}
		cfg.encodeError(L, v, "type not supported")
	case *lua.LTable:
		depth++
		if depth > cfg.encodeMaxDepth {
			L.RaiseError("Cannot serialise, excessive nesting (%d)", depth)
		}
		n := cfg.arrayLength(L, x)
		if n > 0 {
			b.WriteByte('[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					b.WriteByte(',')
				}
				cfg.encode(L, b, x.RawGetInt(i), depth)
			}
			b.WriteByte(']')
			return
		}
		b.WriteByte('{')
		first := true
		x.ForEach(func(k, val lua.LValue) {
			if !first {
				b.WriteByte(',')
			}
			first = false
			switch kk := k.(type) {
			case lua.LNumber:
				b.WriteByte('"')
				b.WriteString(cFormatG(float64(kk), cfg.precision))
				b.WriteString(`":`)
			case lua.LString:
				jsonQuote(b, string(kk))
				b.WriteByte(':')
			default:
				L.RaiseError("Cannot serialise table: table key must be a number or string")
			}
			cfg.encode(L, b, val, depth)
		})
		b.WriteByte('}')
	default:
		cfg.encodeError(L, v, "type not supported")
	}
}

func (cfg *cjsonConfig) encodeNumber(L *lua.LState, b *strings.Builder, n lua.LNumber) {
	f := float64(n)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch cfg.encodeInvalid {
		case 0:
			L.RaiseError("Cannot serialise number: must not be NaN or Inf")
		case 2:
			b.WriteString("null")
			return
		}
		switch {
		case math.IsNaN(f):
			b.WriteString("nan")
		case f > 0:
			b.WriteString("inf")
		default:
			b.WriteString("-inf")
		}
		return
	}
	b.WriteString(cFormatG(f, cfg.precision))
}

// arrayLength returns the length of t if it encodes as an array, or -1 (object).
func (cfg *cjsonConfig) arrayLength(L *lua.LState, t *lua.LTable) int {
	maxK, items := 0, 0
	array := true
	t.ForEach(func(k, _ lua.LValue) {
		if !array {
			return
		}
		if n, ok := k.(lua.LNumber); ok && n != 0 {
			f := float64(n)
			if math.Floor(f) == f && f >= 1 {
				if int(f) > maxK {
					maxK = int(f)
				}
				items++
				return
			}
		}
		array = false
	})
	if !array {
		return -1
	}
	if cfg.sparseRatio > 0 && maxK > items*cfg.sparseRatio && maxK > cfg.sparseSafe {
		if !cfg.sparseConvert {
			L.RaiseError("Cannot serialise table: excessively sparse array")
		}
		return -1
	}
	return maxK
}

const jsonHex = "0123456789abcdef"

// jsonQuote writes s as a JSON string the way lua-cjson escapes it.
func jsonQuote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '/':
			b.WriteString(`\/`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString(`\u00`)
				b.WriteByte(jsonHex[c>>4])
				b.WriteByte(jsonHex[c&15])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

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
