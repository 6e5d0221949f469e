package scripting

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The C libraries Redis links into its Lua, written in Go on gopher-lua: bit (LuaBitOp
// 1.0.2) and struct (Roberto Ierusalimschy's struct 0.2) here, cjson and cmsgpack in their
// own files. Error texts follow the C originals.

// argError raises Lua 5.1's "bad argument #n to 'fname' (msg)".
func argError(L *lua.LState, n int, fname, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, fname, msg)
}

func luaTypeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// checkNumber is luaL_checknumber: a number, or a string that reads as one.
func checkNumber(L *lua.LState, n int, fname string) float64 {
	if f, ok := luaToNumber(L.Get(n)); ok && n <= L.GetTop() {
		return f
	}
	argError(L, n, fname, "number expected, got "+luaTypeName(L, n))
	return 0
}

// checkLString is luaL_checklstring: a string, or a number in its string form.
func checkLString(L *lua.LState, n int, fname string) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return luaNumberString(float64(v))
	}
	argError(L, n, fname, "string expected, got "+luaTypeName(L, n))
	return ""
}

func optNumber(L *lua.LState, n int, fname string, def float64) float64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkNumber(L, n, fname)
}

// ---- bit ----

func openBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	un := func(name string, f func(uint32) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.Push(bitResult(f(bitArg(L, 1, name))))
			return 1
		}))
	}
	un("tobit", func(x uint32) uint32 { return x })
	un("bnot", func(x uint32) uint32 { return ^x })
	un("bswap", func(x uint32) uint32 { return x>>24 | x>>8&0xff00 | x<<8&0xff0000 | x<<24 })
	multi := func(name string, f func(a, b uint32) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			r := bitArg(L, 1, name)
			for i := 2; i <= L.GetTop(); i++ {
				r = f(r, bitArg(L, i, name))
			}
			L.Push(bitResult(r))
			return 1
		}))
	}
	multi("band", func(a, b uint32) uint32 { return a & b })
	multi("bor", func(a, b uint32) uint32 { return a | b })
	multi("bxor", func(a, b uint32) uint32 { return a ^ b })
	shift := func(name string, f func(x uint32, n uint) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			x, n := bitArg(L, 1, name), uint(bitArg(L, 2, name)&31)
			L.Push(bitResult(f(x, n)))
			return 1
		}))
	}
	shift("lshift", func(x uint32, n uint) uint32 { return x << n })
	shift("rshift", func(x uint32, n uint) uint32 { return x >> n })
	shift("arshift", func(x uint32, n uint) uint32 { return uint32(int32(x) >> n) })
	shift("rol", func(x uint32, n uint) uint32 { return x<<n | x>>(32-n) })
	shift("ror", func(x uint32, n uint) uint32 { return x>>n | x<<(32-n) })
	t.RawSetString("tohex", L.NewFunction(func(L *lua.LState) int {
		x := bitArg(L, 1, "tohex")
		n := int32(8)
		if L.Get(2) != lua.LNil {
			n = int32(bitArg(L, 2, "tohex"))
		}
		digits := "0123456789abcdef"
		if n == math.MinInt32 { // -n would overflow
			n++
		}
		if n < 0 {
			n = -n
			digits = "0123456789ABCDEF"
		}
		if n > 8 {
			n = 8
		}
		buf := make([]byte, n)
		for i := int(n) - 1; i >= 0; i-- {
			buf[i] = digits[x&15]
			x >>= 4
		}
		L.Push(lua.LString(buf))
		return 1
	}))
	return t
}

// bitArg converts argument n as LuaBitOp does: the number is rounded to an integer (ties to
// even, like its 2^52+2^51 trick) and taken modulo 2^32.
func bitArg(L *lua.LState, n int, fname string) uint32 {
	f := checkNumber(L, n, fname)
	f = math.RoundToEven(f)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0
	}
	f = math.Mod(f, 4294967296)
	if f < 0 {
		f += 4294967296
	}
	return uint32(uint64(f))
}

func bitResult(x uint32) lua.LNumber { return lua.LNumber(int32(x)) }

// ---- struct ----

const structMaxIntSize = 32

type structHeader struct {
	little bool
	align  int
}

func openStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

// structGetNum reads an optional decimal number at fmt[*i].
func structGetNum(L *lua.LState, fmt string, i *int, def int) int {
	if *i >= len(fmt) || fmt[*i] < '0' || fmt[*i] > '9' {
		return def
	}
	a := 0
	for *i < len(fmt) && fmt[*i] >= '0' && fmt[*i] <= '9' {
		d := int(fmt[*i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			L.RaiseError("integral size overflow")
		}
		a = a*10 + d
		*i++
	}
	return a
}

func structOptSize(L *lua.LState, opt byte, fmt string, i *int) int {
	switch opt {
	case 'B', 'b', 'x':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'c':
		return structGetNum(L, fmt, i, 1)
	case 'i', 'I':
		sz := structGetNum(L, fmt, i, 4)
		if sz > structMaxIntSize {
			L.RaiseError("integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

func structToAlign(n int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	align := size
	if size > h.align {
		align = h.align
	}
	return (align - n&(align-1)) & (align - 1)
}

func structControl(L *lua.LState, opt byte, fmtStr string, i *int, h *structHeader, fname string) {
	switch opt {
	case ' ':
	case '>':
		h.little = false
	case '<':
		h.little = true
	case '!':
		a := structGetNum(L, fmtStr, i, 8)
		if a <= 0 || a&(a-1) != 0 {
			L.RaiseError("alignment %d is not a power of 2", a)
		}
		h.align = a
	default:
		argError(L, 1, fname, fmt.Sprintf("invalid format option '%c'", opt))
	}
}

func structPack(L *lua.LState) int {
	f := checkLString(L, 1, "pack")
	h := structHeader{little: true, align: 1}
	arg := 2
	var out []byte
	for i := 0; i < len(f); {
		opt := f[i]
		i++
		size := structOptSize(L, opt, f, &i)
		for n := structToAlign(len(out), &h, opt, size); n > 0; n-- {
			out = append(out, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			n := checkNumber(L, arg, "pack")
			arg++
			var v uint64
			if n < 0 {
				v = uint64(int64(n))
			} else {
				v = uint64(n)
			}
			buf := make([]byte, size)
			for k := 0; k < size; k++ {
				idx := k
				if !h.little {
					idx = size - 1 - k
				}
				buf[idx] = byte(v)
				v >>= 8
			}
			out = append(out, buf...)
		case 'x':
			out = append(out, 0)
		case 'f':
			bits := math.Float32bits(float32(checkNumber(L, arg, "pack")))
			arg++
			if h.little {
				out = binary.LittleEndian.AppendUint32(out, bits)
			} else {
				out = binary.BigEndian.AppendUint32(out, bits)
			}
		case 'd':
			bits := math.Float64bits(checkNumber(L, arg, "pack"))
			arg++
			if h.little {
				out = binary.LittleEndian.AppendUint64(out, bits)
			} else {
				out = binary.BigEndian.AppendUint64(out, bits)
			}
		case 'c', 's':
			s := checkLString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "pack", "string too short")
			}
			out = append(out, s[:size]...)
			if opt == 's' {
				out = append(out, 0)
			}
		default:
			structControl(L, opt, f, &i, &h, "pack")
		}
	}
	L.Push(lua.LString(out))
	return 1
}

func structUnpack(L *lua.LState) int {
	f := checkLString(L, 1, "unpack")
	data := checkLString(L, 2, "unpack")
	ld := len(data)
	pos := int(optNumber(L, 3, "unpack", 1)) - 1
	if pos < 0 || pos > ld {
		argError(L, 3, "unpack", "offset must be 1 or greater")
	}
	h := structHeader{little: true, align: 1}
	var res []lua.LValue
	for i := 0; i < len(f); {
		opt := f[i]
		i++
		size := structOptSize(L, opt, f, &i)
		pos += structToAlign(pos, &h, opt, size)
		if size > ld || pos > ld-size {
			argError(L, 2, "unpack", "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			var v uint64
			for k := 0; k < size; k++ {
				idx := pos + size - 1 - k
				if !h.little {
					idx = pos + k
				}
				v = v<<8 | uint64(data[idx])
			}
			if opt >= 'a' && opt <= 'z' && size > 0 && size < 8 {
				if v&(1<<(uint(size)*8-1)) != 0 {
					v |= ^uint64(0) << (uint(size)*8 - 1)
				}
				res = append(res, lua.LNumber(float64(int64(v))))
			} else if opt >= 'a' && opt <= 'z' {
				res = append(res, lua.LNumber(float64(int64(v))))
			} else {
				res = append(res, lua.LNumber(float64(v)))
			}
		case 'x':
		case 'f':
			var bits uint32
			if h.little {
				bits = binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			} else {
				bits = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			}
			res = append(res, lua.LNumber(math.Float32frombits(bits)))
		case 'd':
			var bits uint64
			if h.little {
				bits = binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			} else {
				bits = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			}
			res = append(res, lua.LNumber(math.Float64frombits(bits)))
		case 'c':
			if size == 0 {
				var prev float64
				ok := false
				if len(res) > 0 {
					prev, ok = luaToNumber(res[len(res)-1])
				}
				if !ok {
					L.RaiseError("format 'c0' needs a previous size")
				}
				size = int(prev)
				res = res[:len(res)-1]
				if size > ld || pos > ld-size {
					argError(L, 2, "unpack", "data string too short")
				}
			}
			res = append(res, lua.LString(data[pos:pos+size]))
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				L.RaiseError("unfinished string in data")
			}
			size = e + 1
			res = append(res, lua.LString(data[pos:pos+e]))
		default:
			structControl(L, opt, f, &i, &h, "unpack")
		}
		pos += size
	}
	for _, v := range res {
		L.Push(v)
	}
	L.Push(lua.LNumber(pos + 1))
	return len(res) + 1
}

func structSize(L *lua.LState) int {
	f := checkLString(L, 1, "size")
	h := structHeader{little: true, align: 1}
	pos := 0
	for i := 0; i < len(f); {
		opt := f[i]
		i++
		size := structOptSize(L, opt, f, &i)
		pos += structToAlign(pos, &h, opt, size)
		if opt == 's' {
			argError(L, 1, "size", "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "size", "option 'c0' has no fixed size")
		}
		if !(opt >= 'a' && opt <= 'z' || opt >= 'A' && opt <= 'Z' || opt >= '0' && opt <= '9') {
			structControl(L, opt, f, &i, &h, "size")
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}
