package scripting

import (
	"math"
	"strconv"
	"strings"

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
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int {
		L.Push(openCJSON(L)) // an instance with its own settings
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
		luaForEach(x, func(k, val lua.LValue) {
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
	luaForEach(t, func(k, _ lua.LValue) {
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
