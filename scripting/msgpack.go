package scripting

import (
	"encoding/binary"
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// cmsgpack as Redis bundles it (lua-cmsgpack 0.4.0): pack(...) encodes each argument and
// concatenates them; unpack(s) returns every value in s; unpack_one and unpack_limit decode
// a bounded number of values from an offset. Numbers that are integers encode as the
// smallest MessagePack integer, others as float32 when exact, else float64; tables with keys
// 1..n encode as arrays, other tables as maps; nesting deeper than 16 encodes as nil.

const msgpackMaxNesting = 16

func openCMsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(msgpackPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return msgpackUnpack(L, 0, 0) }))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		offset := int(optNumber(L, 2, "unpack_one", 0))
		return msgpackUnpack(L, 1, offset)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := int(checkNumber(L, 2, "unpack_limit"))
		offset := int(optNumber(L, 3, "unpack_limit", 0))
		return msgpackUnpack(L, limit, offset)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

func msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "pack", "MessagePack pack needs input.")
	}
	var b []byte
	for i := 1; i <= n; i++ {
		b = msgpackEncode(b, L.Get(i), 0)
	}
	L.Push(lua.LString(b))
	return 1
}

func msgpackEncode(b []byte, v lua.LValue, level int) []byte {
	switch x := v.(type) {
	case lua.LString:
		return msgpackBytes(b, string(x))
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if !math.IsInf(f, 0) && !math.IsNaN(f) && f >= -9.223372036854775808e18 && f < 9.223372036854775808e18 && float64(int64(f)) == f {
			return msgpackInt(b, int64(f))
		}
		if g := float32(f); float64(g) == f {
			b = append(b, 0xca)
			return binary.BigEndian.AppendUint32(b, math.Float32bits(g))
		}
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		if n, ok := msgpackArrayLen(x); ok {
			b = msgpackHeader(b, n, 0x90, 0xdc, 0xdd)
			for i := 1; i <= n; i++ {
				b = msgpackEncode(b, x.RawGetInt(i), level+1)
			}
			return b
		}
		n := 0
		luaForEach(x, func(_, _ lua.LValue) { n++ })
		b = msgpackHeader(b, n, 0x80, 0xde, 0xdf)
		luaForEach(x, func(k, val lua.LValue) {
			b = msgpackEncode(b, k, level+1)
			b = msgpackEncode(b, val, level+1)
		})
		return b
	}
	return append(b, 0xc0)
}

// msgpackArrayLen reports whether t's keys are exactly 1..n.
func msgpackArrayLen(t *lua.LTable) (int, bool) {
	count, maxK := 0, 0
	ok := true
	luaForEach(t, func(k, _ lua.LValue) {
		n, isNum := k.(lua.LNumber)
		if !ok || !isNum || n <= 0 || float64(int64(n)) != float64(n) {
			ok = false
			return
		}
		count++
		maxK = max(maxK, int(n))
	})
	return maxK, ok && maxK == count
}

func msgpackHeader(b []byte, n int, fix, b16, b32 byte) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, b32), uint32(n))
}

func msgpackBytes(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

func msgpackInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(int8(n)))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(int16(n)))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(int32(n)))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

type msgpackErr int

const (
	msgpackEOF msgpackErr = iota + 1
	msgpackBadFormat
	msgpackStack
)

// luaMaxCStack is Lua 5.1's LUAI_MAXCSTACK: the stack slots a C function such as Redis's
// cmsgpack.unpack may use. Decoding keeps every enclosing table (and the array index or map
// key being filled) and every decoded top-level value on that stack, so nesting and the
// number of values unpacked at once are bounded as in Redis: about 4000 levels of arrays,
// 7999 values.
const luaMaxCStack = 8000

// msgpackCursor decodes MessagePack from s. top counts the Lua stack slots the C decoder
// would hold at this point (the input string, enclosing tables, pending keys and indexes,
// decoded top-level values), to fail where it fails: with "stack overflow (<where>)".
type msgpackCursor struct {
	L        *lua.LState
	s        string
	pos      int
	err      msgpackErr
	top      int
	overflow string // where the stack ran out, for msgpackStack
}

func (c *msgpackCursor) need(n int) bool {
	if c.err == 0 && len(c.s)-c.pos < n {
		c.err = msgpackEOF
	}
	return c.err == 0
}

// room is lua_checkstack(1): it fails with msgpackStack once the slots in use reach the limit.
func (c *msgpackCursor) room(where string) bool {
	if c.err == 0 && c.top+1 > luaMaxCStack {
		c.err, c.overflow = msgpackStack, where
	}
	return c.err == 0
}

func (c *msgpackCursor) uint(n int) uint64 {
	if !c.need(n) {
		return 0
	}
	var v uint64
	for i := 0; i < n; i++ {
		v = v<<8 | uint64(c.s[c.pos+i])
	}
	c.pos += n
	return v
}

func (c *msgpackCursor) bytes(n int) lua.LValue {
	if !c.need(n) {
		return lua.LNil
	}
	s := c.s[c.pos : c.pos+n]
	c.pos += n
	return lua.LString(s)
}

// decode decodes one value. The value is not counted in c.top: callers that keep it on the
// stack count it.
func (c *msgpackCursor) decode() lua.LValue {
	if !c.need(1) || !c.room("too many return values at once; use unpack_one or unpack_limit instead.") {
		return lua.LNil
	}
	t := c.s[c.pos]
	c.pos++
	switch {
	case t <= 0x7f:
		return lua.LNumber(t)
	case t >= 0xe0:
		return lua.LNumber(int8(t))
	case t&0xe0 == 0xa0:
		return c.bytes(int(t & 0x1f))
	case t&0xf0 == 0x90:
		return c.array(int(t & 0x0f))
	case t&0xf0 == 0x80:
		return c.mapN(int(t & 0x0f))
	}
	switch t {
	case 0xc0:
		return lua.LNil
	case 0xc2:
		return lua.LFalse
	case 0xc3:
		return lua.LTrue
	case 0xcc:
		return lua.LNumber(c.uint(1))
	case 0xcd:
		return lua.LNumber(c.uint(2))
	case 0xce:
		return lua.LNumber(c.uint(4))
	case 0xcf:
		return lua.LNumber(float64(c.uint(8)))
	case 0xd0:
		return lua.LNumber(int8(c.uint(1)))
	case 0xd1:
		return lua.LNumber(int16(c.uint(2)))
	case 0xd2:
		return lua.LNumber(int32(c.uint(4)))
	case 0xd3:
		return lua.LNumber(float64(int64(c.uint(8))))
	case 0xca:
		return lua.LNumber(math.Float32frombits(uint32(c.uint(4))))
	case 0xcb:
		return lua.LNumber(math.Float64frombits(c.uint(8)))
	case 0xd9:
		return c.bytes(int(c.uint(1)))
	case 0xda:
		return c.bytes(int(c.uint(2)))
	case 0xdb:
		return c.bytes(int(c.uint(4)))
	case 0xdc:
		return c.array(int(c.uint(2)))
	case 0xdd:
		return c.array(int(c.uint(4)))
	case 0xde:
		return c.mapN(int(c.uint(2)))
	case 0xdf:
		return c.mapN(int(c.uint(4)))
	}
	c.err = msgpackBadFormat
	return lua.LNil
}

func (c *msgpackCursor) array(n int) lua.LValue {
	if c.err != 0 {
		return lua.LNil
	}
	t := c.L.NewTable()
	c.top++ // the table
	defer func() { c.top-- }()
	if !c.room("in function mp_decode_to_lua_array") {
		return lua.LNil
	}
	for i := 1; i <= n && c.err == 0; i++ {
		c.top++ // the index
		v := c.decode()
		c.top--
		if v != lua.LNil && c.err == 0 {
			t.RawSetInt(i, v)
		}
	}
	return t
}

func (c *msgpackCursor) mapN(n int) lua.LValue {
	if c.err != 0 {
		return lua.LNil
	}
	t := c.L.NewTable()
	c.top++ // the table
	defer func() { c.top-- }()
	for i := 0; i < n && c.err == 0; i++ {
		k := c.decode()
		c.top++ // the key, while its value decodes
		v := c.decode()
		c.top--
		if k != lua.LNil && c.err == 0 {
			t.RawSet(k, v)
		}
	}
	return t
}

// msgpackUnpack decodes up to limit values (all when limit and offset are 0) from offset.
// With a limit it returns the next offset (-1 at the end) before the values.
func msgpackUnpack(L *lua.LState, limit, offset int) int {
	s := checkLString(L, 1, "unpack")
	decodeAll := limit == 0 && offset == 0
	switch {
	case offset < 0 || limit < 0:
		luaLError(L, fmt.Sprintf("Invalid request to unpack with offset of %d and limit of %d.", offset, len(s)))
	case offset > len(s):
		luaLError(L, fmt.Sprintf("Start offset %d greater than input length %d.", offset, len(s)))
	}
	if decodeAll {
		limit = math.MaxInt32
	}
	c := &msgpackCursor{L: L, s: s, pos: offset, top: 1} // the input string is on the stack
	var vals []lua.LValue
	for cnt := 0; c.pos < len(s) && cnt < limit; cnt++ {
		v := c.decode()
		switch c.err {
		case msgpackEOF:
			luaLError(L, "Missing bytes in input.")
		case msgpackBadFormat:
			luaLError(L, "Bad data format in input.")
		case msgpackStack:
			luaLError(L, "stack overflow ("+c.overflow+")")
		}
		vals = append(vals, v)
		c.top++
	}
	if !decodeAll {
		if !c.room("in function mp_unpack_full") {
			luaLError(L, "stack overflow ("+c.overflow+")")
		}
		next := c.pos
		if c.pos >= len(s) {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range vals {
		L.Push(v)
	}
	if decodeAll {
		return len(vals)
	}
	return len(vals) + 1
}
