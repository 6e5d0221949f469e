package scripting

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Where gopher-lua and Lua 5.1 differ in what scripts can see: Lua 5.1's texts for numbers,
// chunk names and syntax errors, string.dump, the order tables are walked in, and the
// deprecated table functions Redis's Lua keeps. Runtime errors are in
// lua51_errors.go, reading numbers from strings in lua51_numbers.go.

// openTableCompat adds Lua 5.1's deprecated table functions that Redis keeps: foreach,
// foreachi and setn.
func openTableCompat(L *lua.LState, tbl *lua.LTable) {
	each := func(ipairs bool) lua.LGFunction {
		return func(L *lua.LState) int {
			t := L.CheckTable(1)
			f := L.CheckFunction(2)
			call := func(k, v lua.LValue) bool {
				L.Push(f)
				L.Push(k)
				L.Push(v)
				L.Call(2, 1)
				r := L.Get(-1)
				L.Pop(1)
				if r != lua.LNil {
					L.Push(r)
					return true
				}
				return false
			}
			if ipairs {
				for i := 1; i <= t.Len(); i++ {
					if call(lua.LNumber(i), t.RawGetInt(i)) {
						return 1
					}
				}
				return 0
			}
			for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
				if call(k, v) {
					return 1
				}
			}
			return 0
		}
	}
	tbl.RawSetString("foreach", L.NewFunction(each(false)))
	tbl.RawSetString("foreachi", L.NewFunction(each(true)))
	tbl.RawSetString("setn", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
}

// Room for a chunk's name in Lua 5.1's error positions: LUA_IDSIZE for run-time errors,
// MAXSRC for syntax errors.
const (
	luaIDSize  = 60
	luaMaxSrc  = 80
	stringRoom = len(` [string "..."] `) + 1
	fileRoom   = len(` '...' `) + 1
)

// luaChunkID is luaO_chunkid: the text error positions show for a chunk named name, in
// size bytes. "=name" is shown as is, "@file" by its last part, any other name as
// [string "its first line"] ("..." marks a cut). The name is a C string there: a NUL ends it.
func luaChunkID(name string, size int) string {
	if i := strings.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	switch {
	case strings.HasPrefix(name, "="):
		return name[1:min(len(name), size)]
	case strings.HasPrefix(name, "@"):
		if room := size - fileRoom; len(name)-1 > room {
			return "..." + name[len(name)-room:]
		}
		return name[1:]
	}
	n := strings.IndexAny(name, "\n\r")
	if n < 0 {
		n = len(name)
	}
	n = min(n, size-stringRoom)
	if n < len(name) {
		return `[string "` + name[:n] + `..."]`
	}
	return `[string "` + name + `"]`
}

// compileErrorText rewrites a gopher-lua syntax error ("name line:3(column:5) near 'x':
// syntax error") into Lua 5.1's form ("name:3: unexpected symbol near 'x'").
func compileErrorText(err error, chunk, src string) string {
	msg := err.Error()
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Cause != nil {
		msg = ae.Cause.Error()
	}
	msg = strings.TrimSpace(strings.TrimPrefix(msg, chunk))
	line := 1
	near := ""
	switch {
	case strings.HasPrefix(msg, "line:"):
		rest := msg[len("line:"):]
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		line, _ = strconv.Atoi(rest[:n])
		if i := strings.Index(rest, "near '"); i >= 0 {
			if j := strings.Index(rest[i+6:], "'"); j >= 0 {
				near = rest[i+6 : i+6+j]
			}
		}
	case strings.HasPrefix(msg, "at EOF"):
		line = strings.Count(src, "\n") + 1
		near = "<eof>"
	}
	_, what, _ := strings.Cut(msg, ":")
	if i := strings.LastIndex(msg, ":"); i >= 0 {
		what = strings.TrimSpace(msg[i+1:])
	}
	switch {
	case what == "syntax error" || what == "" || strings.HasPrefix(what, "Invalid ") && strings.HasSuffix(what, "token"):
		// Lua 5.1's lexer passes a character it does not know on to the parser, which
		// finds no place for it; a control character is shown by its code.
		what = "unexpected symbol"
		if len(near) == 1 && (near[0] < ' ' || near[0] == 0x7f) {
			near = fmt.Sprintf("char(%d)", near[0])
		}
	case strings.Contains(what, "unterminated string"):
		what = "unfinished string"
		if near != "" && near != "EOF" && line > 1 {
			// gopher-lua reports the line after the string's and leaves out its quote.
			line--
			if lines := strings.Split(src, "\n"); line <= len(lines) {
				l := lines[line-1]
				if i, j := strings.LastIndex(l, "'"+near), strings.LastIndex(l, `"`+near); i >= 0 || j >= 0 {
					if i > j {
						near = "'" + near
					} else {
						near = `"` + near
					}
				}
			}
		}
	}
	if near == "EOF" {
		near = "<eof>"
	}
	if near != "" {
		return fmt.Sprintf("%s:%d: %s near '%s'", chunk, line, what, near)
	}
	return fmt.Sprintf("%s:%d: %s", chunk, line, what)
}

// luaNumberString formats n as Lua 5.1 does ("%.14g", "inf", "nan").
func luaNumberString(n float64) string {
	switch {
	case math.IsInf(n, 1):
		return "inf"
	case math.IsInf(n, -1):
		return "-inf"
	case math.IsNaN(n):
		if math.Signbit(n) {
			return "-nan"
		}
		return "nan"
	}
	return cFormatG(n, 14)
}

// cFormatG formats f as C's printf("%.<prec>g") does for finite numbers (Go's 'g' strips
// trailing zeros and writes two-digit exponents, as C does).
func cFormatG(f float64, prec int) string { return strconv.FormatFloat(f, 'g', prec, 64) }

// luaString is lua_tostring for values that have a string form, and Lua's default text
// for the others.
func luaString(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return luaNumberString(float64(x))
	}
	return v.String()
}

// gopher-lua's texts for the operations a value does not support, which Lua 5.1 words as
// "attempt to call field 'x' (a nil value)", naming where the value came from.

// luaBinaryHeader opens a Lua 5.1 binary chunk from a 64-bit build: signature, version 5.1,
// official format, little endian, 4-byte int, 8-byte size_t, 4-byte instruction, 8-byte
// floating-point number.
const luaBinaryHeader = "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"

// luaStringDump is string.dump. Strata compiles scripts for gopher-lua's machine, whose code
// Lua 5.1 cannot read, and loadstring, in Strata as in Redis, compiles source text only; so
// the dump of a Lua function is the binary chunk header alone, a string no loader accepts.
func luaStringDump(L *lua.LState) int {
	fn, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		got := "no value"
		if L.GetTop() > 0 {
			got = L.Get(1).Type().String()
		}
		luaLError(L, "bad argument #1 to 'dump' (function expected, got "+got+")")
	}
	if fn.IsG {
		luaLError(L, "unable to dump given function")
	}
	L.Push(lua.LString(luaBinaryHeader))
	return 1
}

// luaForEach calls fn for each pair of t in the order next visits them. gopher-lua's own
// ForEach ranges over Go maps, whose order changes from one run to the next; encoders and
// replies built that way would differ between two runs of the same script.
func luaForEach(t *lua.LTable, fn func(k, v lua.LValue)) {
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		fn(k, v)
	}
}

// luaTableConcat is Lua 5.1's table.concat(t [, sep [, i [, j]]]): every index from i to j
// must hold a string or a number (numbers written as tostring writes them).
func (vm *luaVM) luaTableConcat(L *lua.LState) int {
	sep := ""
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
	case lua.LString:
		sep = string(v)
	case lua.LNumber:
		sep = luaNumberString(float64(v))
	default:
		L.TypeError(2, lua.LTString)
	}
	t := vm.see(L.CheckTable(1))
	i, last := luaOptInt(L, 3, 1), luaOptInt(L, 4, t.Len())
	var b strings.Builder
	for ; i <= last; i++ {
		switch v := t.RawGetInt(i).(type) {
		case lua.LString:
			b.WriteString(string(v))
		case lua.LNumber:
			b.WriteString(luaNumberString(float64(v)))
		default:
			luaLError(L, fmt.Sprintf("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), i))
		}
		if i < last {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// luaOptInt is luaL_optint: argument n as an integer (a number or a string that reads as
// one, truncated), def when it is nil or absent.
func luaOptInt(L *lua.LState, n, def int) int {
	v := L.Get(n)
	if v == lua.LNil {
		return def
	}
	f, ok := luaToNumber(v)
	if !ok {
		L.TypeError(n, lua.LTNumber)
	}
	return int(f)
}
