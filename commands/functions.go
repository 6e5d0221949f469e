package commands

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/strata-db/strata/internal/glob"
	"github.com/strata-db/strata/storage"
)

// Redis 7.0 functions: FUNCTION LOAD/DELETE/FLUSH/LIST/DUMP/RESTORE/STATS/KILL/HELP, FCALL and
// FCALL_RO. Libraries run in their own Lua interpreter (separate from EVAL's), with the
// same sandbox; while a library's code loads, its globals hold only the redis table with
// register_function, log and the version fields, as in Redis.
//
// Libraries persist in the store as system records (storage.FunctionLibraries), so they
// survive restarts; they are compiled again from their code the first time a store's
// functions are used. FUNCTION DUMP's payload is Strata's own format (see dumpLibraries), not
// Redis's RDB encoding: it can be restored into Strata only.

func init() {
	const flags = FlagNoScript | FlagStale | FlagExclusive
	register(
		&Command{Name: "fcall", Arity: -3, Flags: flags, Handler: cmdFCall},
		&Command{Name: "fcall_ro", Arity: -3, Flags: flags | FlagReadonly, Handler: cmdFCall},
		&Command{Name: "function", Arity: -2, Flags: FlagNoScript, Handler: cmdFunction,
			Sub: []string{"delete", "dump", "flush", "help", "kill", "list", "load", "restore", "stats"}},
	)
}

const loadTimeout = 500 * time.Millisecond // Redis's FUNCTION LOAD time limit

// funcRegistry is a store's function libraries and their interpreter.
type funcRegistry struct {
	vm    *luaVM
	libs  map[string]*funcLibrary
	funcs map[string]*funcDef // by lower-case name: function names are case-insensitive
}

type funcLibrary struct {
	name  string
	code  string // the whole code, shebang included
	funcs []*funcDef
}

type funcDef struct {
	name    string
	lib     *funcLibrary
	fn      *lua.LFunction
	flags   int
	desc    string
	hasDesc bool
	named   bool // register_function got a function_name
}

// funcLoad is a library being loaded: register_function adds to it.
type funcLoad struct {
	lib *funcLibrary
}

// functions returns the store's functions, loading the stored libraries on first use.
// h.mu is held.
func (h *scriptHost) functions(s *storage.Store) *funcRegistry {
	if h.funcs != nil {
		return h.funcs
	}
	fr := h.newFuncRegistry()
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
	h.funcs = fr
	return fr
}

func (h *scriptHost) newFuncRegistry() *funcRegistry {
	vm := newLuaVM(h, "user_function")
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
	return &funcRegistry{vm: vm, libs: map[string]*funcLibrary{}, funcs: map[string]*funcDef{}}
}

// compile runs a library's code and collects the functions it registers; old is the
// library it would replace (its function names may be reused). It returns the library or
// the error reply.
func (fr *funcRegistry) compile(code string, old *funcLibrary) (*funcLibrary, string) {
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
	lib := &funcLibrary{name: name, code: code}
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
	if len(lib.funcs) == 0 {
		return nil, "ERR No functions registered"
	}
	for _, f := range lib.funcs {
		if other := fr.funcs[strings.ToLower(f.name)]; other != nil && other.lib != old {
			return nil, "ERR Function " + f.name + " already exists"
		}
	}
	return lib, ""
}

// link installs lib, replacing old (nil for none); it fails on a function name that another
// library already holds.
func (fr *funcRegistry) link(lib, old *funcLibrary) string {
	for _, f := range lib.funcs {
		if other := fr.funcs[strings.ToLower(f.name)]; other != nil && other.lib != old {
			return "ERR Function " + f.name + " already exists"
		}
	}
	if old != nil {
		fr.unlink(old)
	}
	fr.libs[lib.name] = lib
	for _, f := range lib.funcs {
		fr.funcs[strings.ToLower(f.name)] = f
	}
	return ""
}

func (fr *funcRegistry) unlink(lib *funcLibrary) {
	delete(fr.libs, lib.name)
	for _, f := range lib.funcs {
		delete(fr.funcs, strings.ToLower(f.name))
	}
}

func cmdFCall(c *Ctx) {
	h := hostFor(c.Store)
	h.mu.Lock()
	defer h.mu.Unlock()
	fr := h.functions(c.Store)
	f := fr.funcs[strings.ToLower(c.Arg(1))]
	if f == nil {
		c.W.Error("ERR Function not found")
		return
	}
	n, err := ParseInt(c.Args[2])
	switch {
	case err != nil:
		c.W.Error("ERR Bad number of keys provided")
		return
	case n > int64(len(c.Args)-3):
		c.W.Error(errNumKeysTooMany)
		return
	case n < 0:
		c.W.Error(errNumKeysNegative)
		return
	}
	if scriptWriteRefused(c, f.flags) {
		return
	}
	ro := c.Cmd.Name == "fcall_ro"
	if f.flags&scriptNoWrites == 0 && ro {
		c.W.Error(errWriteFlagRO)
		return
	}
	L := fr.vm.L
	args := []lua.LValue{luaArray(L, c.Args[3:3+n]), luaArray(L, c.Args[3+n:])}
	h.execute(c, fr.vm, f.fn, args, f.name, false, ro || f.flags&scriptNoWrites != 0)
}

var functionSubArity = map[string]int{"delete": 3, "dump": 2, "flush": -2, "help": 2, "kill": 2,
	"list": -2, "load": -3, "restore": -3, "stats": 2}

func cmdFunction(c *Ctx) {
	sub := strings.ToLower(c.Arg(1))
	a, ok := functionSubArity[sub]
	if !ok {
		c.W.Error(fmt.Sprintf(ErrUnknownSub, c.Arg(1), "FUNCTION"))
		return
	}
	if !subArityOK(a, len(c.Args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, "function|"+sub))
		return
	}
	h := hostFor(c.Store)
	switch sub {
	case "help":
		writeHelp(c.W, functionHelpLines)
		return
	case "kill":
		if msg := h.busy.kill(false); msg != "" {
			c.W.Error(msg)
			return
		}
		c.W.OK()
		return
	case "stats":
		functionStats(c, h)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	fr := h.functions(c.Store)
	switch sub {
	case "load":
		functionLoad(c, h, fr)
	case "delete":
		lib := fr.libs[c.Arg(2)]
		if lib == nil {
			c.W.Error("ERR Library not found")
			return
		}
		if err := c.Store.UpdateFunctionLibraries(false, []string{lib.name}, nil); err != nil {
			c.Fail(err)
			return
		}
		fr.unlink(lib)
		c.W.OK()
	case "flush":
		if len(c.Args) > 3 {
			c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%.128s'. Try FUNCTION HELP.", c.Arg(1)))
			return
		}
		if len(c.Args) == 3 && !strings.EqualFold(c.Arg(2), "sync") && !strings.EqualFold(c.Arg(2), "async") {
			c.W.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
			return
		}
		if err := c.Store.UpdateFunctionLibraries(true, nil, nil); err != nil {
			c.Fail(err)
			return
		}
		fr.vm.L.Close()
		h.funcs = h.newFuncRegistry()
		c.W.OK()
	case "list":
		functionList(c, fr)
	case "dump":
		c.W.Bulk(dumpLibraries(fr))
	case "restore":
		functionRestore(c, h, fr)
	}
}

func functionLoad(c *Ctx, h *scriptHost, fr *funcRegistry) {
	replace := false
	i := 2
	for ; i < len(c.Args)-1; i++ {
		if !strings.EqualFold(c.Arg(i), "replace") {
			c.W.Error("ERR Unknown option given: " + c.Arg(i))
			return
		}
		replace = true
	}
	code := c.Arg(i)
	name, _, msg := parseLibraryShebang(code)
	if msg != "" {
		c.W.Error(msg)
		return
	}
	old := fr.libs[name]
	if old != nil && !replace {
		c.W.Error("ERR Library '" + name + "' already exists")
		return
	}
	lib, msg := fr.compile(code, old)
	if lib == nil {
		c.W.Error(msg)
		return
	}
	if err := c.Store.UpdateFunctionLibraries(false, nil, map[string]string{name: code}); err != nil {
		c.Fail(err)
		return
	}
	fr.link(lib, old)
	c.W.BulkString(name)
}

func functionList(c *Ctx, fr *funcRegistry) {
	withCode := false
	var pattern []byte
	hasPattern := false
	for i := 2; i < len(c.Args); i++ {
		switch {
		case !withCode && strings.EqualFold(c.Arg(i), "withcode"):
			withCode = true
		case !hasPattern && strings.EqualFold(c.Arg(i), "libraryname"):
			if i >= len(c.Args)-1 {
				c.W.Error("ERR library name argument was not given")
				return
			}
			i++
			pattern, hasPattern = c.Args[i], true
		default:
			c.W.Error("ERR Unknown argument " + c.Arg(i))
			return
		}
	}
	var libs []*funcLibrary
	for _, lib := range fr.libs {
		if !hasPattern || glob.Match(pattern, []byte(lib.name), true) {
			libs = append(libs, lib)
		}
	}
	sort.Slice(libs, func(i, j int) bool { return libs[i].name < libs[j].name })
	c.W.Array(len(libs))
	for _, lib := range libs {
		if withCode {
			c.W.Map(4)
		} else {
			c.W.Map(3)
		}
		c.W.BulkString("library_name")
		c.W.BulkString(lib.name)
		c.W.BulkString("engine")
		c.W.BulkString("LUA")
		c.W.BulkString("functions")
		c.W.Array(len(lib.funcs))
		for _, f := range lib.funcs {
			c.W.Map(3)
			c.W.BulkString("name")
			c.W.BulkString(f.name)
			c.W.BulkString("description")
			if f.hasDesc {
				c.W.BulkString(f.desc)
			} else {
				c.W.Null()
			}
			c.W.BulkString("flags")
			var names []string
			for _, fl := range scriptFlagNames {
				if f.flags&fl.flag != 0 {
					names = append(names, fl.name)
				}
			}
			c.W.Set(len(names))
			for _, n := range names {
				c.W.Status(n)
			}
		}
		if withCode {
			c.W.BulkString("library_code")
			c.W.BulkString(lib.code)
		}
	}
}

func functionStats(c *Ctx, h *scriptHost) {
	b := &h.busy
	b.mu.Lock()
	running, isEval, name, args, start := b.running, b.eval, b.name, b.args, b.start
	b.mu.Unlock()
	if running && isEval {
		c.W.Error(errBusyEval)
		return
	}
	libs, funcs := 0, 0
	if h.mu.TryLock() {
		fr := h.functions(c.Store)
		libs, funcs = len(fr.libs), len(fr.funcs)
		h.mu.Unlock()
	} else if fr := h.funcs; fr != nil {
		// A function runs and holds the lock: its registry cannot change meanwhile.
		libs, funcs = len(fr.libs), len(fr.funcs)
	}
	c.W.Map(2)
	c.W.BulkString("running_script")
	if running {
		c.W.Map(3)
		c.W.BulkString("name")
		c.W.BulkString(name)
		c.W.BulkString("command")
		c.W.Array(len(args))
		for _, a := range args {
			c.W.Bulk(a)
		}
		c.W.BulkString("duration_ms")
		c.W.Int(time.Since(start).Milliseconds())
	} else {
		c.W.Null()
	}
	c.W.BulkString("engines")
	c.W.Map(1)
	c.W.BulkString("LUA")
	c.W.Map(2)
	c.W.BulkString("libraries_count")
	c.W.Int(int64(libs))
	c.W.BulkString("functions_count")
	c.W.Int(int64(funcs))
}

var functionHelpLines = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
	"HELP",
	"    Prints this help.",
}
