package scripting

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/strata-db/strata/storage"
)

// Redis 7.0 functions: libraries run in their own Lua interpreter (separate from EVAL's),
// with the same sandbox; while a library's code loads, its globals hold only the redis table
// with register_function, log and the version fields, as in Redis.
//
// Libraries persist in the store as system records (storage.FunctionLibraries), so they
// survive restarts; they are compiled again from their code the first time a store's
// functions are used.

const loadTimeout = 500 * time.Millisecond // Redis's FUNCTION LOAD time limit

// funcRegistry is a store's function libraries and their interpreter.
type funcRegistry struct {
	vm    *luaVM
	libs  map[string]*Library
	funcs map[string]*Function // by lower-case name: function names are case-insensitive
}

// Library is one loaded function library. It does not change once loaded: FUNCTION LOAD
// REPLACE installs a new one.
type Library struct {
	Name      string
	Code      string // the whole code, shebang included
	Functions []*Function
}

// Function is one function a library registered.
type Function struct {
	Name           string
	Description    string
	HasDescription bool
	Flags          Flags
	lib            *Library
	fn             *lua.LFunction
	named          bool // register_function got a function_name
}

// funcLoad is a library being loaded: register_function adds to it.
type funcLoad struct {
	lib *Library
}

// functions returns the store's functions, loading the stored libraries on first use.
// e is locked.
func (e *Engine) functions(s *storage.Store) *funcRegistry {
	if e.funcs != nil {
		return e.funcs
	}
	fr := e.newFuncRegistry()
	libs, err := s.FunctionLibraries()
	if err != nil {
		slog.Error("reading function libraries", "err", err)
	}
	names := make([]string, 0, len(libs))
	for name := range libs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		lib, msg := fr.compile(libs[name], nil)
		if lib == nil {
			slog.Error("function library does not load", "library", name, "err", msg)
			continue
		}
		if msg := fr.link(lib, nil); msg != "" {
			slog.Error("function library does not load", "library", name, "err", msg)
		}
	}
	e.funcs = fr
	return fr
}

func (e *Engine) newFuncRegistry() *funcRegistry {
	vm := newLuaVM(e, "user_function")
	// While a library loads, its globals hold only redis, and that redis only
	// register_function, log and the version fields; anything else raises, as in Redis.
	L := vm.L
	api := L.NewTable()
	api.RawSetString("register_function", L.NewFunction(vm.luaRegisterFunction))
	api.RawSetString("log", L.NewFunction(vm.luaLog))
	for _, k := range []string{"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM"} {
		api.RawSetString(k, vm.redis.RawGetString(k))
	}
	proxy := vm.protect(api)
	proxy.Metatable.(*lua.LTable).RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		k := L.Get(2)
		v := api.RawGet(k)
		if v == lua.LNil {
			L.RaiseError("Script attempted to access nonexistent global variable '%s'", luaString(k))
		}
		L.Push(v)
		return 1
	}))
	vm.loadEnv = L.NewTable()
	vm.loadEnv.RawSetString("redis", proxy)
	return &funcRegistry{vm: vm, libs: map[string]*Library{}, funcs: map[string]*Function{}}
}

// compile runs a library's code and collects the functions it registers; old is the
// library it would replace (its function names may be reused). It returns the library or
// the error reply.
func (fr *funcRegistry) compile(code string, old *Library) (*Library, string) {
	name, body, msg := parseLibraryShebang(code)
	if msg != "" {
		return nil, msg
	}
	vm := fr.vm
	L := vm.L
	fn, err := L.Load(strings.NewReader(body), vm.chunk)
	if err != nil {
		return nil, "ERR Error compiling function: " + compileErrorText(err, vm.chunk, body)
	}
	fn.Env = vm.env
	lib := &Library{Name: name, Code: code}
	vm.loading = &funcLoad{lib: lib}
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	L.SetContext(loadCtx{ctx})
	L.Push(fn)
	err = L.PCall(0, 0, vm.messages)
	L.RemoveContext()
	cancel()
	vm.loading = nil
	L.SetTop(0)
	if err != nil {
		return nil, "ERR Error registering functions: " + loadErrorText(err)
	}
	if len(lib.Functions) == 0 {
		return nil, "ERR No functions registered"
	}
	for _, f := range lib.Functions {
		if other := fr.funcs[strings.ToLower(f.Name)]; other != nil && other.lib != old {
			return nil, "ERR Function " + f.Name + " already exists"
		}
	}
	return lib, ""
}

// link installs lib, replacing old (nil for none); it fails on a function name that another
// library already holds.
func (fr *funcRegistry) link(lib, old *Library) string {
	for _, f := range lib.Functions {
		if other := fr.funcs[strings.ToLower(f.Name)]; other != nil && other.lib != old {
			return "ERR Function " + f.Name + " already exists"
		}
	}
	if old != nil {
		fr.unlink(old)
	}
	fr.libs[lib.Name] = lib
	for _, f := range lib.Functions {
		fr.funcs[strings.ToLower(f.Name)] = f
	}
	return ""
}

func (fr *funcRegistry) unlink(lib *Library) {
	delete(fr.libs, lib.Name)
	for _, f := range lib.Functions {
		delete(fr.funcs, strings.ToLower(f.Name))
	}
}

// Function returns the function of s with this name (any case), or nil. e is locked.
func (e *Engine) Function(s *storage.Store, name string) *Function {
	return e.functions(s).funcs[strings.ToLower(name)]
}

// FunctionFlags returns the flags of the function of s with this name; ok is false when
// there is none. It takes e's lock.
func (e *Engine) FunctionFlags(s *storage.Store, name string) (flags Flags, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.Function(s, name)
	if f == nil {
		return 0, false
	}
	return f.Flags, true
}

// LoadLibrary is FUNCTION LOAD [REPLACE]: it compiles code, stores it in s and installs it,
// and returns the library's name, or the error reply (msg) or the store's error. It takes
// e's lock.
func (e *Engine) LoadLibrary(s *storage.Store, code string, replace bool) (name, msg string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fr := e.functions(s)
	name, _, msg = parseLibraryShebang(code)
	if msg != "" {
		return "", msg, nil
	}
	old := fr.libs[name]
	if old != nil && !replace {
		return "", "ERR Library '" + name + "' already exists", nil
	}
	lib, msg := fr.compile(code, old)
	if lib == nil {
		return "", msg, nil
	}
	if err := s.UpdateFunctionLibraries(false, nil, map[string]string{name: code}); err != nil {
		return "", "", err
	}
	fr.link(lib, old)
	return name, "", nil
}

// DeleteLibrary is FUNCTION DELETE: it removes the library from s and from e, and returns the
// error reply (msg) or the store's error. It takes e's lock.
func (e *Engine) DeleteLibrary(s *storage.Store, name string) (msg string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fr := e.functions(s)
	lib := fr.libs[name]
	if lib == nil {
		return "ERR Library not found", nil
	}
	if err := s.UpdateFunctionLibraries(false, []string{lib.Name}, nil); err != nil {
		return "", err
	}
	fr.unlink(lib)
	return "", nil
}

// FlushLibraries is FUNCTION FLUSH: it removes every library from s and starts a fresh
// interpreter. It takes e's lock.
func (e *Engine) FlushLibraries(s *storage.Store) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	fr := e.functions(s)
	if err := s.UpdateFunctionLibraries(true, nil, nil); err != nil {
		return err
	}
	fr.vm.L.Close()
	e.funcs = e.newFuncRegistry()
	return nil
}

// Libraries returns the libraries of s in name order (FUNCTION LIST). It takes e's lock.
func (e *Engine) Libraries(s *storage.Store) []*Library {
	e.mu.Lock()
	defer e.mu.Unlock()
	fr := e.functions(s)
	libs := make([]*Library, 0, len(fr.libs))
	for _, lib := range fr.libs {
		libs = append(libs, lib)
	}
	sort.Slice(libs, func(i, j int) bool { return libs[i].Name < libs[j].Name })
	return libs
}

// FunctionStats is what FUNCTION STATS reports.
type FunctionStats struct {
	Running   bool // a script runs
	Eval      bool // it is of the EVAL family (FUNCTION STATS then answers BUSY)
	Name      string
	Args      [][]byte // its command
	Start     time.Time
	Libraries int
	Functions int
}

// FunctionStats describes the script running on e and counts the libraries of s. It does
// not wait for the running script: its registry cannot change while it runs.
func (e *Engine) FunctionStats(s *storage.Store) FunctionStats {
	b := &e.busy
	b.mu.Lock()
	st := FunctionStats{Running: b.running, Eval: b.eval, Name: b.name, Args: b.args, Start: b.start}
	b.mu.Unlock()
	if st.Running && st.Eval {
		return st
	}
	if e.mu.TryLock() {
		fr := e.functions(s)
		st.Libraries, st.Functions = len(fr.libs), len(fr.funcs)
		e.mu.Unlock()
	} else if fr := e.funcs; fr != nil {
		// A function runs and holds the lock: its registry cannot change meanwhile.
		st.Libraries, st.Functions = len(fr.libs), len(fr.funcs)
	}
	return st
}
