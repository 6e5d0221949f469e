package scripting

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Conversions between command replies and Lua values, both directions, as Redis 7.0's
// redisProtocolToLuaType and luaReplyToRedisReply do.

// respToLua converts one RESP reply to a Lua value as Redis's redisProtocolToLuaType does,
// and returns the rest of the buffer.
func respToLua(L *lua.LState, b []byte) (lua.LValue, []byte) {
	if len(b) == 0 {
		return lua.LNil, b
	}
	line, rest := respLine(b)
	typ, body := line[0], string(line[1:])
	switch typ {
	case '+':
		t := L.NewTable()
		t.RawSetString("ok", lua.LString(body))
		return t, rest
	case '-':
		return errorTable(L, "-"+body), rest
	case ':':
		n, _ := strconv.ParseInt(body, 10, 64)
		return lua.LNumber(n), rest
	case '$', '=':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return lua.LFalse, rest
		}
		s := rest[:n]
		rest = rest[min(n+2, len(rest)):]
		if typ == '=' {
			t := L.NewTable()
			v := L.NewTable()
			format, str := "txt", string(s)
			if len(s) >= 4 && s[3] == ':' {
				format, str = string(s[:3]), string(s[4:])
			}
			v.RawSetString("format", lua.LString(format))
			v.RawSetString("string", lua.LString(str))
			t.RawSetString("verbatim_string", v)
			return t, rest
		}
		return lua.LString(s), rest
	case '*', '>', '~', '%':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return lua.LFalse, rest
		}
		t := L.CreateTable(n, 0)
		var v, k lua.LValue
		for i := 1; i <= n; i++ {
			switch typ {
			case '%':
				k, rest = respToLua(L, rest)
				v, rest = respToLua(L, rest)
				if k != lua.LNil {
					t.RawSet(k, v)
				}
			case '~':
				v, rest = respToLua(L, rest)
				if v != lua.LNil {
					t.RawSet(v, lua.LTrue)
				}
			default:
				v, rest = respToLua(L, rest)
				if v != lua.LNil {
					t.RawSetInt(i, v)
				}
			}
		}
		switch typ {
		case '%', '~':
			w := L.NewTable()
			if typ == '%' {
				w.RawSetString("map", t)
			} else {
				w.RawSetString("set", t)
			}
			return w, rest
		}
		return t, rest
	case '_':
		return lua.LNil, rest
	case '#':
		return lua.LBool(body == "t"), rest
	case ',':
		t := L.NewTable()
		t.RawSetString("double", lua.LNumber(parseDouble(body)))
		return t, rest
	case '(':
		t := L.NewTable()
		t.RawSetString("big_number", lua.LString(body))
		return t, rest
	case '|':
		n, _ := strconv.Atoi(body)
		for i := 0; i < 2*n; i++ {
			_, rest = respToLua(L, rest)
		}
		return respToLua(L, rest)
	}
	return lua.LNil, rest
}

// parseDouble reads a RESP3 double as the command layer writes it ("%.17g", inf, -inf); a
// NaN other than "nan" reads as 0.
func parseDouble(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || f != f && s != "nan" {
		return 0
	}
	return f
}

func respLine(b []byte) (line, rest []byte) {
	i := bytes.Index(b, []byte("\r\n"))
	if i < 0 {
		return b, nil
	}
	return b[:i], b[i+2:]
}

// maxReplyDepth bounds the nesting of a script's reply (a table that contains itself).
const maxReplyDepth = 1000

// writeLuaReply converts a script's return value to the caller's reply as Redis's
// luaReplyToRedisReply does. resp is the protocol the script chose with redis.setresp, proto
// the client's.
func writeLuaReply(w Reply, v lua.LValue, resp, proto, depth int) {
	if depth > maxReplyDepth {
		w.Error("ERR reached lua stack limit")
		return
	}
	switch x := v.(type) {
	case lua.LString:
		w.BulkString(string(x))
	case lua.LBool:
		switch {
		case resp == 3:
			w.Bool(bool(x))
		case bool(x):
			w.Int(1)
		default:
			w.Null()
		}
	case lua.LNumber:
		w.Int(luaInteger(float64(x)))
	case *lua.LTable:
		writeLuaTable(w, x, resp, proto, depth)
	default:
		w.Null()
	}
}

// luaInteger is C's (long long) cast of a Lua number as x86-64 does it.
func luaInteger(f float64) int64 {
	if math.IsNaN(f) || f >= 9.223372036854775807e18 || f < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}

func writeLuaTable(w Reply, t *lua.LTable, resp, proto, depth int) {
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		w.Error(string(s))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Status(string(s))
		return
	}
	if n, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(n))
		return
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		clean := strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s))
		if proto == 3 {
			w.Raw([]byte("(" + clean + "\r\n"))
		} else {
			w.BulkString(clean)
		}
		return
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		format, ok1 := vt.RawGetString("format").(lua.LString)
		str, ok2 := vt.RawGetString("string").(lua.LString)
		if ok1 && ok2 {
			if proto == 3 {
				f := (string(format) + "   ")[:3]
				b := strconv.AppendInt([]byte{'='}, int64(len(str)+4), 10)
				b = append(b, "\r\n"+f+":"...)
				b = append(b, str...)
				w.Raw(append(b, '\r', '\n'))
			} else {
				w.BulkString(string(str))
			}
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		var keys, vals []lua.LValue
		luaForEach(m, func(k, v lua.LValue) {
			keys = append(keys, k)
			vals = append(vals, v)
		})
		w.Map(len(keys))
		for i := range keys {
			writeLuaReply(w, keys[i], resp, proto, depth+1)
			writeLuaReply(w, vals[i], resp, proto, depth+1)
		}
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		var keys []lua.LValue
		luaForEach(s, func(k, _ lua.LValue) { keys = append(keys, k) })
		w.Set(len(keys))
		for _, k := range keys {
			writeLuaReply(w, k, resp, proto, depth+1)
		}
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		writeLuaReply(w, t.RawGetInt(i), resp, proto, depth+1)
	}
}

// luaArray builds a Lua array of strings (KEYS, ARGV, a function's keys and args).
func luaArray(L *lua.LState, items [][]byte) *lua.LTable {
	t := L.CreateTable(len(items), 0)
	for i, it := range items {
		t.RawSetInt(i+1, lua.LString(it))
	}
	return t
}
