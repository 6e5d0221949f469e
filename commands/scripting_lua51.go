package commands

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Where gopher-lua and Lua 5.1 differ in what scripts can see: Lua 5.1's texts for numbers
// and syntax errors, and the deprecated table functions Redis's Lua keeps.

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

// chunkName turns a Lua chunk name into what error positions show, as luaO_chunkid does.
func chunkName(name string) string {
	switch {
	case strings.HasPrefix(name, "=") || strings.HasPrefix(name, "@"):
		return name[1:]
	}
	line, _, _ := strings.Cut(name, "\n")
	if len(line) > 40 || len(line) < len(name) {
		if len(line) > 40 {
			line = line[:40]
		}
		return `[string "` + line + `..."]`
	}
	return `[string "` + line + `"]`
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
	case what == "syntax error" || what == "":
		what = "unexpected symbol"
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
