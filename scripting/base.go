package scripting

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The base functions of the sandbox, where they differ from gopher-lua's: error, pcall and
// xpcall with Redis's error tables and Lua 5.1's messages, the table walkers and raw access
// that see through the read-only proxies, load and loadstring into the sandbox's
// environment, string.format's checks, and math.random on Redis's generator.

// luaError is Lua's error(): a string (or number) message gets the position of the function
// at level (1: the caller of error), none if that is not Lua code.
func (vm *luaVM) luaError(L *lua.LState) int {
	obj := L.CheckAny(1)
	level := L.OptInt(2, 1)
	if n, ok := obj.(lua.LNumber); ok {
		obj = lua.LString(luaNumberString(float64(n)))
	}
	if s, ok := obj.(lua.LString); ok && level > 0 {
		if dbg, ok := L.GetStack(level); ok {
			if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" && dbg.CurrentLine > 0 {
				obj = lua.LString(fmt.Sprintf("%s:%d: %s", dbg.Source, dbg.CurrentLine, s))
			}
		}
	}
	L.Error(obj, 0)
	return 0
}

// luaPCall is Redis 7.0's pcall: an error table caught by the script becomes its err string.
// Its message handler words runtime errors as Lua 5.1 does; having one also keeps gopher-lua
// from closing the upvalues of the functions still running outside the call.
func (vm *luaVM) luaPCall(L *lua.LState) int {
	v := L.CheckAny(1)
	if v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	if err := L.PCall(L.GetTop()-1, lua.MultRet, vm.messages); err != nil {
		var e lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			e = ae.Object
		}
		if t, ok := e.(*lua.LTable); ok {
			switch m := t.RawGetString("err").(type) {
			case lua.LString, lua.LNumber:
				e = lua.LString(luaString(m))
			}
		}
		L.Push(lua.LFalse)
		L.Push(e)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// luaXPCall is Lua 5.1's xpcall(f, handler): the handler sees runtime errors in Lua 5.1's
// words, a handler that cannot be called makes any error "error in error handling", and
// an f that cannot be called is an error passed to the handler.
func luaXPCall(L *lua.LState) int {
	if L.GetTop() < 2 {
		L.ArgError(2, "value expected")
	}
	L.SetTop(2)
	fn, handler := L.Get(1), L.Get(2)
	L.SetTop(0)
	if fn.Type() != lua.LTFunction && L.GetMetaField(fn, "__call").Type() != lua.LTFunction {
		msg := "attempt to call a " + fn.Type().String() + " value"
		fn = L.NewFunction(func(L *lua.LState) int {
			L.Error(lua.LString(msg), 0)
			return 0
		})
	}
	L.Push(fn)
	err := L.PCall(0, lua.MultRet, L.NewFunction(func(L *lua.LState) int {
		e := L.Get(1)
		if s, ok := e.(lua.LString); ok {
			e = lua.LString(lua51RuntimeError(L, string(s)))
		}
		if handler.Type() != lua.LTFunction && L.GetMetaField(handler, "__call").Type() != lua.LTFunction {
			L.Push(lua.LString("error in error handling"))
			return 1
		}
		L.Push(handler)
		L.Push(e)
		L.Call(1, 1)
		return 1
	}))
	if err != nil {
		var e lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			e = ae.Object
		}
		L.Push(lua.LFalse)
		L.Push(e)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

func luaToStringFn(L *lua.LState) int {
	v := L.CheckAny(1)
	if n, ok := v.(lua.LNumber); ok {
		L.Push(lua.LString(luaNumberString(float64(n))))
		return 1
	}
	if mt, ok := L.GetMetaField(v, "__tostring").(*lua.LFunction); ok {
		L.Push(mt)
		L.Push(v)
		L.Call(1, 1)
		return 1
	}
	L.Push(lua.LString(luaString(v)))
	return 1
}

func luaGCInfo(L *lua.LState) int {
	L.Push(lua.LNumber(0))
	return 1
}

func (vm *luaVM) luaNext(L *lua.LState) int {
	t := vm.see(L.CheckTable(1))
	k, v := t.Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

func (vm *luaVM) luaPairs(L *lua.LState) int {
	t := L.CheckTable(1)
	L.Push(vm.globals.RawGetString("next"))
	L.Push(t)
	L.Push(lua.LNil)
	return 3
}

func (vm *luaVM) luaIpairs(L *lua.LState) int {
	t := L.CheckTable(1)
	L.Push(L.NewFunction(func(L *lua.LState) int {
		i := L.CheckInt(2) + 1
		v := vm.see(L.CheckTable(1)).RawGetInt(i)
		if v == lua.LNil {
			return 0
		}
		L.Push(lua.LNumber(i))
		L.Push(v)
		return 2
	}))
	L.Push(t)
	L.Push(lua.LNumber(0))
	return 3
}

// luaCStack is the slots a Lua 5.1 C function has for its arguments and results
// (LUAI_MAXCSTACK): unpack fails with "too many results to unpack" beyond them.
const luaCStack = 8000

func (vm *luaVM) luaUnpack(L *lua.LState) int {
	t := vm.see(L.CheckTable(1))
	i := L.OptInt(2, 1)
	e := L.OptInt(3, t.Len())
	if i > e {
		return 0
	}
	n := e - i + 1
	if n <= 0 || n > luaCStack-L.GetTop() {
		L.RaiseError("too many results to unpack")
	}
	for ; i <= e; i++ {
		L.Push(t.RawGetInt(i))
	}
	return n
}

func (vm *luaVM) luaRawGet(L *lua.LState) int {
	L.Push(vm.see(L.CheckTable(1)).RawGet(L.CheckAny(2)))
	return 1
}

func (vm *luaVM) luaRawSet(L *lua.LState) int {
	t := L.CheckTable(1)
	if vm.real[t] != nil {
		L.Error(lua.LString(errReadonlyTable), 0)
	}
	k := L.CheckAny(2)
	if k == lua.LNil {
		L.RaiseError("table index is nil")
	}
	t.RawSet(k, L.CheckAny(3))
	L.Push(t)
	return 1
}

func (vm *luaVM) luaSetMetatable(L *lua.LState) int {
	t := L.CheckTable(1)
	if vm.real[t] != nil {
		L.Error(lua.LString(errReadonlyTable), 0)
	}
	mt := L.Get(2)
	if _, ok := mt.(*lua.LTable); !ok && mt != lua.LNil {
		L.ArgError(2, "nil or table expected")
	}
	if old, ok := t.Metatable.(*lua.LTable); ok && old.RawGetString("__metatable") != lua.LNil {
		L.RaiseError("cannot change a protected metatable")
	}
	t.Metatable = mt
	L.Push(t)
	return 1
}

func (vm *luaVM) luaGetMetatable(L *lua.LState) int {
	v := L.CheckAny(1)
	if t, ok := v.(*lua.LTable); ok && vm.real[t] != nil {
		L.Push(vm.fakeMT)
		return 1
	}
	mt := L.GetMetatable(v)
	if m, ok := mt.(*lua.LTable); ok {
		if _, isStr := v.(lua.LString); isStr {
			for p, r := range vm.real {
				if r == m {
					L.Push(p)
					return 1
				}
			}
		}
		if f := m.RawGetString("__metatable"); f != lua.LNil {
			L.Push(f)
			return 1
		}
	}
	L.Push(mt)
	return 1
}

// luaLoadString and luaLoad compile chunks into the sandbox's environment.
func (vm *luaVM) luaLoadString(L *lua.LState) int {
	return vm.loadChunk(L, L.CheckString(1), L.OptString(2, L.CheckString(1)))
}

func (vm *luaVM) luaLoad(L *lua.LState) int {
	fn := L.CheckFunction(1)
	name := L.OptString(2, "=(load)")
	var b strings.Builder
	for {
		L.Push(fn)
		L.Call(0, 1)
		v := L.Get(-1)
		L.Pop(1)
		s, ok := v.(lua.LString)
		if v == lua.LNil || ok && s == "" {
			break
		}
		if !ok {
			L.Push(lua.LNil)
			L.Push(lua.LString("reader function must return a string"))
			return 2
		}
		b.WriteString(string(s))
	}
	return vm.loadChunk(L, b.String(), name)
}

func (vm *luaVM) loadChunk(L *lua.LState, src, name string) int {
	chunk := luaChunkID(name, luaIDSize)
	fn, err := L.Load(strings.NewReader(src), chunk)
	if err != nil {
		// Syntax errors have more room for the name than run-time errors.
		msg := strings.TrimPrefix(compileErrorText(err, chunk, src), chunk)
		L.Push(lua.LNil)
		L.Push(lua.LString(luaChunkID(name, luaMaxSrc) + msg))
		return 2
	}
	fn.Env = vm.env
	L.Push(fn)
	return 1
}

// checkFormatArg checks the argument at arg for the string.format conversion f[i] as Lua
// 5.1 does: a known conversion letter, an argument given, a number (or a string that reads
// as one) for the numeric conversions, a string or a number for %s and %q.
func checkFormatArg(L *lua.LState, f string, i, arg int) {
	if i >= len(f) || strings.IndexByte("cdiouxXeEfgGqs", f[i]) < 0 {
		conv := ""
		if i < len(f) {
			conv = f[i : i+1]
		}
		luaLError(L, "invalid option '%"+conv+"' to 'format'")
	}
	if arg > L.GetTop() {
		L.ArgError(arg, "no value")
	}
	v := L.Get(arg)
	switch f[i] {
	case 's', 'q':
		if t := v.Type(); t != lua.LTString && t != lua.LTNumber {
			L.TypeError(arg, lua.LTString)
		}
	default:
		if _, ok := luaToNumber(v); !ok {
			L.TypeError(arg, lua.LTNumber)
		}
	}
}

// checkFormatSpec reads the flags, width and precision of the string.format item at f[i:]
// within Lua 5.1's limits (at most five flags, two digits of width and of precision),
// raising its errors past them, and returns the index of the conversion letter.
func checkFormatSpec(L *lua.LState, f string, i int) int {
	start := i
	for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
		i++
	}
	if i-start > 5 {
		luaLError(L, "invalid format (repeated flags)")
	}
	digits := func() {
		for n := 0; n < 2 && i < len(f) && '0' <= f[i] && f[i] <= '9'; n++ {
			i++
		}
	}
	digits()
	if i < len(f) && f[i] == '.' {
		i++
		digits()
	}
	if i < len(f) && '0' <= f[i] && f[i] <= '9' {
		luaLError(L, "invalid format (width or precision too long)")
	}
	return i
}

// luaLError is Lua's luaL_error for a library function: the message gets the position of the
// function that called it, none when that is not Lua code (a function called by pcall).
func luaLError(L *lua.LState, msg string) {
	if dbg, ok := L.GetStack(1); ok {
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" && dbg.CurrentLine > 0 {
			msg = fmt.Sprintf("%s:%d: %s", dbg.Source, dbg.CurrentLine, msg)
		}
	}
	L.Error(lua.LString(msg), 0)
}

// rand48 is Redis's redisLrand48 (a 48-bit linear congruential generator), which its Lua
// math.random uses; the sequence never restarts while the server runs.
type rand48 struct{ x uint64 }

func (r *rand48) init()                 { r.x = 0x1234ABCD330E }
func (r *rand48) seed(s int32)          { r.x = uint64(uint32(s))<<16 | 0x330E }
func (r *rand48) next() int32           { r.x = (0x5DEECE66D*r.x + 0xB) & (1<<48 - 1); return int32(r.x >> 17) }
func (r *rand48) float() float64        { return float64(r.next()%math.MaxInt32) / float64(math.MaxInt32) }
func checkInt(L *lua.LState, i int) int { return int(L.CheckNumber(i)) }

func (e *Engine) luaRandom(L *lua.LState) int {
	r := e.rng.float()
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := checkInt(L, 1)
		if u < 1 {
			L.RaiseError("bad argument #1 to 'random' (interval is empty)")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l, u := checkInt(L, 1), checkInt(L, 2)
		if l > u {
			L.RaiseError("bad argument #2 to 'random' (interval is empty)")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (e *Engine) luaRandomSeed(L *lua.LState) int {
	e.rng.seed(int32(checkInt(L, 1)))
	return 0
}
