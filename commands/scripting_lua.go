package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// This file builds the Lua 5.1 interpreter (gopher-lua) that EVAL and FUNCTION scripts run
// in, with Redis 7.0's sandbox:
//
//   - only the base, table, string, math and coroutine libraries, less everything that
//     reaches the file system or the process (no os, io, loadfile, dofile, require, print,
//     debug, getfenv/setfenv, module, newproxy), plus cjson, cmsgpack, bit and struct;
//   - the globals and every library table are read-only: scripts see them through proxy
//     tables whose __newindex raises "Attempt to modify a readonly table", and reading an
//     undefined global raises "Script attempted to access nonexistent global variable";
//     rawset, setmetatable, table.insert/remove/sort refuse the proxies, and pairs, next,
//     ipairs, rawget and # see through them;
//   - math.random is Redis's rand48 generator, so the sequence is the same as Redis's.
//
// Errors are turned into Redis's error tables ({err=..., source=..., line=...}) by the same
// handler Redis installs (__redis__err__handler), so error replies read like Redis 7.0's.

// luaVM is one interpreter: the EVAL scripts of a store share one, the function libraries
// another. A VM is used by one script at a time (scriptHost.mu).
type luaVM struct {
	L        *lua.LState
	host     *scriptHost
	globals  *lua.LTable                 // the real globals, behind env
	env      *lua.LTable                 // read-only proxy of globals: scripts' _G and environment
	real     map[*lua.LTable]*lua.LTable // read-only proxy -> the table it guards
	fakeMT   *lua.LTable                 // what getmetatable returns for a proxy
	redis    *lua.LTable                 // the real redis table
	handler  *lua.LFunction              // the error handler given to PCall
	messages *lua.LFunction              // the message handler of pcall and library loading
	chunk    string                      // chunk name: "user_script" or "user_function"
	run      *scriptRun                  // the invocation in progress, nil between runs
	runState scriptRun                   // what run points to, reused from run to run
	loading  *funcLoad                   // FUNCTION LOAD in progress (functions VM only)
	loadEnv  *lua.LTable                 // the only globals a library sees while it loads
	readonly *lua.LFunction              // __newindex of the proxies
}

const (
	errReadonlyTable = "Attempt to modify a readonly table"
	errKilledText    = "ERR Script killed by user with SCRIPT KILL..."
)

func newLuaVM(h *scriptHost, chunk string) *luaVM {
	// Lua 5.1's limits: 20000 nested calls (LUAI_MAXCALLS); the value stack grows as needed
	// (unpack and friends stop at Lua's 8000-slot C stack themselves).
	L := lua.NewState(lua.Options{SkipOpenLibs: true, MinimizeStackMemory: true, CallStackSize: 20000,
		RegistrySize: 1 << 13, RegistryMaxSize: 1 << 18, RegistryGrowStep: 1 << 14})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath}, {lua.CoroutineLibName, lua.OpenCoroutine}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	vm := &luaVM{L: L, host: h, chunk: chunk, real: map[*lua.LTable]*lua.LTable{}}
	base := L.G.Global
	g := L.NewTable()
	for _, name := range []string{"assert", "collectgarbage", "getmetatable", "rawequal",
		"select", "type", "_VERSION"} {
		g.RawSetString(name, base.RawGetString(name))
	}
	vm.readonly = L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(errReadonlyTable)
		return 0
	})
	fns := map[string]lua.LGFunction{
		"error": vm.luaError, "tostring": luaToStringFn, "pairs": vm.luaPairs, "next": vm.luaNext,
		"ipairs": vm.luaIpairs, "rawget": vm.luaRawGet, "rawset": vm.luaRawSet,
		"setmetatable": vm.luaSetMetatable, "getmetatable": vm.luaGetMetatable,
		"loadstring": vm.luaLoadString, "load": vm.luaLoad, "gcinfo": luaGCInfo,
		"pcall": vm.luaPCall, "xpcall": luaXPCall, "unpack": vm.luaUnpack,
		"tonumber": luaToNumberFn,
	}
	for name, fn := range fns {
		g.RawSetString(name, L.NewFunction(fn))
	}

	math := base.RawGetString("math").(*lua.LTable)
	math.RawSetString("random", L.NewFunction(h.luaRandom))
	math.RawSetString("randomseed", L.NewFunction(h.luaRandomSeed))
	tbl := base.RawGetString("table").(*lua.LTable)
	tbl.RawSetString("concat", L.NewFunction(vm.luaTableConcat))
	for _, name := range []string{"insert", "remove", "sort"} {
		orig := tbl.RawGetString(name).(*lua.LFunction)
		tbl.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if t, ok := L.Get(1).(*lua.LTable); ok && vm.real[t] != nil {
				L.Error(lua.LString(errReadonlyTable), 0)
			}
			// Run in this frame, so an argument error names the function the script called.
			return orig.GFunction(L)
		}))
	}
	for _, name := range []string{"string", "table", "math", "coroutine"} {
		g.RawSetString(name, vm.protect(base.RawGetString(name).(*lua.LTable)))
	}
	// gopher-lua's string metatable is the string library itself; Lua's is a table of its
	// own whose __index is the library: string methods ("x"):upper() resolve through the
	// read-only library.
	str := base.RawGetString("string").(*lua.LTable)
	str.RawSetString("__index", lua.LNil)
	str.RawSetString("dump", L.NewFunction(luaStringDump))
	format := str.RawGetString("format").(*lua.LFunction)
	str.RawSetString("format", L.NewFunction(func(L *lua.LState) int {
		// %s and %q of a number print it as Lua does ("%.14g"), not as gopher-lua does.
		f := L.CheckString(1)
		arg := 2
		for i := 0; i < len(f); i++ {
			if f[i] != '%' {
				continue
			}
			i++
			if i < len(f) && f[i] == '%' {
				continue
			}
			i = checkFormatSpec(L, f, i)
			checkFormatArg(L, f, i, arg)
			if f[i] == 's' || f[i] == 'q' {
				if n, ok := L.Get(arg).(lua.LNumber); ok {
					L.Replace(arg, lua.LString(luaNumberString(float64(n))))
				}
			}
			arg++
		}
		return format.GFunction(L)
	}))
	strMT := L.NewTable()
	strMT.RawSetString("__index", g.RawGetString("string"))
	L.SetMetatable(lua.LString(""), strMT)
	vm.protect(strMT)
	openTableCompat(L, tbl)
	g.RawSetString("cjson", vm.protect(openCJSON(L)))
	g.RawSetString("cmsgpack", vm.protect(openCMsgpack(L)))
	g.RawSetString("bit", vm.protect(openBit(L)))
	g.RawSetString("struct", vm.protect(openStruct(L)))
	vm.redis = vm.newRedisTable()
	g.RawSetString("redis", vm.protect(vm.redis))
	vm.handler = L.NewFunction(vm.errorHandler)
	vm.messages = L.NewFunction(lua51MessageHandler)
	g.RawSetString("__redis__err__handler", vm.handler)

	vm.globals = g
	vm.env = L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(vm.globalIndex))
	mt.RawSetString("__newindex", vm.readonly)
	mt.RawSetString("__len", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(g.Len()))
		return 1
	}))
	vm.env.Metatable = mt
	vm.real[vm.env] = g
	g.RawSetString("_G", vm.env)
	vm.fakeMT = vm.protect(L.NewTable())
	L.G.Global = g
	L.Env = vm.env
	return vm
}

// protect returns a read-only proxy of t.
func (vm *luaVM) protect(t *lua.LTable) *lua.LTable {
	L := vm.L
	p := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", vm.readonly)
	mt.RawSetString("__len", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(t.Len()))
		return 1
	}))
	p.Metatable = mt
	vm.real[p] = t
	return p
}

// see returns the table a proxy guards, or t itself.
func (vm *luaVM) see(t *lua.LTable) *lua.LTable {
	if r := vm.real[t]; r != nil {
		return r
	}
	return t
}

func (vm *luaVM) globalIndex(L *lua.LState) int {
	k := L.Get(2)
	g := vm.globals
	if vm.loading != nil {
		g = vm.loadEnv
	}
	v := g.RawGet(k)
	if v == lua.LNil {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", luaString(k))
	}
	L.Push(v)
	return 1
}

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

// errorHandler is Redis's __redis__err__handler: it turns any error into an error table
// and records where it was raised (the innermost Lua function).
func (vm *luaVM) errorHandler(L *lua.LState) int {
	e := L.Get(1)
	if s, ok := e.(lua.LString); ok {
		e = lua.LString(lua51RuntimeError(L, string(s)))
	}
	t, ok := e.(*lua.LTable)
	if !ok {
		t = L.NewTable()
		t.RawSetString("err", lua.LString("ERR "+luaString(e)))
	}
	if vm.run != nil && vm.run.killed() {
		t = L.NewTable()
		t.RawSetString("err", lua.LString(errKilledText))
	}
	dbg, ok := L.GetStack(1)
	if ok {
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			ok = false
		}
	}
	if ok && dbg.What == "G" {
		if dbg, ok = L.GetStack(2); ok {
			if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
				ok = false
			}
		}
	}
	if ok && dbg.What != "G" {
		t.RawSetString("source", lua.LString("@"+dbg.Source))
		t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
	}
	L.Push(t)
	return 1
}

// errorTable returns Redis's error table for an error reply or message: "-CODE msg" keeps its
// code, a message without one gets "ERR".
func errorTable(L *lua.LState, msg string) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("err", lua.LString(errorText(msg)))
	return t
}

func errorText(msg string) string {
	code := "ERR"
	if strings.HasPrefix(msg, "-") {
		c, rest, ok := strings.Cut(msg[1:], " ")
		if ok {
			code, msg = c, rest
		} else {
			msg = msg[1:]
		}
	}
	return code + " " + strings.Trim(msg, "\r\n")
}

// killCtx cancels a running script (SCRIPT KILL, FUNCTION KILL, SHUTDOWN NOSAVE): gopher-lua
// checks it before every instruction, so the script stops even inside pcall.
type killCtx struct{ context.Context }

var errScriptKilled = errors.New("Script killed by user with SCRIPT KILL...")

func (k killCtx) Err() error {
	if k.Context.Err() != nil {
		return errScriptKilled
	}
	return nil
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
