package scripting

import (
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
// another. A VM is used by one script at a time (Engine.mu).
type luaVM struct {
	L        *lua.LState
	engine   *Engine
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

func newLuaVM(e *Engine, chunk string) *luaVM {
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
	vm := &luaVM{L: L, engine: e, chunk: chunk, real: map[*lua.LTable]*lua.LTable{}}
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
	math.RawSetString("random", L.NewFunction(e.luaRandom))
	math.RawSetString("randomseed", L.NewFunction(e.luaRandomSeed))
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
