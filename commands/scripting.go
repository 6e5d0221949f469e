package commands

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	lua "github.com/yuin/gopher-lua"

	"github.com/strata-db/strata/storage"
)

// Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, as in Redis 7.0.
//
// A script runs atomically: the EVAL family carries FlagExclusive, so the dispatcher opens an
// exclusive transaction before the handler runs and no other command touches the keyspace
// until the script ends. Every redis.call runs its command inside that transaction
// (RunIn), so all the script's writes form one batch, committed after the script, even when
// the script fails half-way (Redis keeps such writes too). Only a script stopped by
// SHUTDOWN NOSAVE loses them.
//
// A script running longer than busy-reply-threshold makes the server answer other clients
// BUSY (ScriptBusy, called by the server before dispatching) until it ends or is stopped by
// SCRIPT KILL, which is refused once the script has called a write command.

func init() {
	const flags = FlagNoScript | FlagStale | FlagExclusive
	register(
		&Command{Name: "eval", Arity: -3, Flags: flags, Handler: cmdEval},
		&Command{Name: "evalsha", Arity: -3, Flags: flags, Handler: cmdEval},
		&Command{Name: "eval_ro", Arity: -3, Flags: flags | FlagReadonly, Handler: cmdEval},
		&Command{Name: "evalsha_ro", Arity: -3, Flags: flags | FlagReadonly, Handler: cmdEval},
		&Command{Name: "script", Arity: -2, Flags: FlagNoScript, Handler: cmdScript,
			Sub: []string{"debug", "exists", "flush", "help", "kill", "load"}},
	)
	// CONFIG SET busy-reply-threshold applies at once: ScriptBusy reads it per command.
	configMutable["busy-reply-threshold"] = configIntCheck(0, math.MaxInt32)
}

// Error replies of scripting, as Redis 7.0 sends them.
const (
	errNoScript        = "NOSCRIPT No matching script. Please use EVAL."
	errNumKeysNegative = "ERR Number of keys can't be negative"
	errWriteFlagRO     = "ERR Can not execute a script with write flag using *_ro command."
	errNotBusy         = "NOTBUSY No scripts in execution right now."
	errBusyEval        = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	errBusyFunction    = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	errUnkillable      = "UNKILLABLE Sorry the script already executed write commands against the dataset. " +
		"You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
)

// scriptHost is the scripting state of one store: the Lua interpreters, the script cache,
// the function libraries and the script running now.
type scriptHost struct {
	mu      sync.Mutex // serialises the interpreters and the caches
	eval    *luaVM
	scripts map[string]*evalScript // SHA1 -> compiled script
	cached  atomic.Int64           // len(scripts), for INFO without taking mu
	funcs   *funcRegistry          // functions.go; nil until first used
	rng     rand48                 // math.random, shared by scripts and functions as in Redis
	busy    busyState
}

// evalScript is one cached EVAL script.
type evalScript struct {
	sha   string
	fn    *lua.LFunction
	flags int
}

// busyState describes the script running now, for BUSY, SCRIPT/FUNCTION KILL and
// FUNCTION STATS. Its fields are guarded by mu, except the flags.
type busyState struct {
	mu      sync.Mutex
	running bool
	eval    bool // EVAL family (SCRIPT KILL stops it), else FCALL (FUNCTION KILL)
	name    string
	args    [][]byte
	start   time.Time
	cancel  context.CancelFunc
	killed  atomic.Bool // SCRIPT/FUNCTION KILL or SHUTDOWN NOSAVE stopped it
	hard    atomic.Bool // SHUTDOWN NOSAVE stopped it: its writes are dropped
	dirty   atomic.Bool // it called a write command: SCRIPT KILL refuses
}

// scriptsRunning counts running scripts in the process, so ScriptBusy costs one atomic load
// when none runs.
var scriptsRunning atomic.Int32

var hosts = struct {
	sync.Mutex
	m map[weak.Pointer[storage.Store]]*scriptHost
}{m: map[weak.Pointer[storage.Store]]*scriptHost{}}

// hostFor returns the scripting state of s, creating it on first use. The state is dropped
// when the store is garbage collected.
func hostFor(s *storage.Store) *scriptHost {
	wp := weak.Make(s)
	hosts.Lock()
	defer hosts.Unlock()
	h := hosts.m[wp]
	if h == nil {
		h = &scriptHost{scripts: map[string]*evalScript{}}
		h.rng.init()
		hosts.m[wp] = h
		runtime.AddCleanup(s, func(wp weak.Pointer[storage.Store]) {
			hosts.Lock()
			delete(hosts.m, wp)
			hosts.Unlock()
		}, wp)
	}
	return h
}

// cachedScripts is how many EVAL scripts s's script cache holds (INFO's
// number_of_cached_scripts).
func cachedScripts(s *storage.Store) int64 {
	if h := lookupHost(s); h != nil {
		return h.cached.Load()
	}
	return 0
}

func lookupHost(s *storage.Store) *scriptHost {
	hosts.Lock()
	defer hosts.Unlock()
	return hosts.m[weak.Make(s)]
}

func (h *scriptHost) evalVM() *luaVM {
	if h.eval == nil {
		h.eval = newLuaVM(h, "user_script")
	}
	return h.eval
}

// parseNumKeys checks the numkeys argument at index i of EVAL and FCALL.
func parseNumKeys(c *Ctx, i int) (int, bool) {
	n, ok := c.Int(i)
	switch {
	case !ok:
		return 0, false
	case n > int64(len(c.Args)-i-1):
		c.W.Error(errNumKeysTooMany)
		return 0, false
	case n < 0:
		c.W.Error(errNumKeysNegative)
		return 0, false
	}
	return int(n), true
}

func cmdEval(c *Ctx) {
	numKeys, ok := parseNumKeys(c, 2)
	if !ok {
		return
	}
	name := c.Cmd.Name
	h := hostFor(c.Store)
	h.mu.Lock()
	defer h.mu.Unlock()
	vm := h.evalVM()
	var sc *evalScript
	if strings.HasPrefix(name, "evalsha") {
		sc = h.scripts[strings.ToLower(c.Arg(1))]
		if sc == nil {
			c.W.Error(errNoScript)
			return
		}
	} else {
		var msg string
		if sc, msg = h.loadScript(c.Arg(1)); sc == nil {
			c.W.Error(msg)
			return
		}
	}
	if scriptWriteRefused(c, sc.flags) {
		return
	}
	ro := strings.HasSuffix(name, "_ro")
	if sc.flags&scriptCompat == 0 && sc.flags&scriptNoWrites == 0 && ro {
		c.W.Error(errWriteFlagRO)
		return
	}
	readOnly := ro || sc.flags&(scriptCompat|scriptNoWrites) == scriptNoWrites
	vm.globals.RawSetString("KEYS", luaArray(vm.L, c.Args[3:3+numKeys]))
	vm.globals.RawSetString("ARGV", luaArray(vm.L, c.Args[3+numKeys:]))
	h.execute(c, vm, sc.fn, nil, sc.sha, true, readOnly)
}

// scriptWriteRefused answers MISCONF and returns true for a script that declares flags
// without no-writes (EVAL with a shebang, every function) while the disk refuses writes, as
// such a script counts as a write command. Scripts without a shebang are refused at their
// first write command instead (redis.call).
func scriptWriteRefused(c *Ctx, flags int) bool {
	if flags&(scriptCompat|scriptNoWrites) != 0 {
		return false
	}
	if err := c.Store.WriteError(); err != nil {
		c.W.Error(MisconfError(err))
		return true
	}
	return false
}

// loadScript returns the cached script with this body, compiling and caching it first if
// needed; on failure it returns the error reply.
func (h *scriptHost) loadScript(body string) (*evalScript, string) {
	sha := sha1Hex(body)
	if sc := h.scripts[sha]; sc != nil {
		return sc, ""
	}
	flags, skip, msg := parseShebang(body, true)
	if msg != "" {
		return nil, msg
	}
	vm := h.evalVM()
	src := body[skip:] // the shebang line goes, its line feed stays: line numbers hold
	fn, err := vm.L.Load(strings.NewReader(src), vm.chunk)
	if err != nil {
		return nil, "ERR Error compiling script (new function): " + compileErrorText(err, vm.chunk, src)
	}
	fn.Env = vm.env
	// gopher-lua gives a main chunk Lua 5.0's "arg" table, built on every call; Lua 5.1 does
	// not (the chunk cannot name it: arg is no local there), so the table is skipped.
	fn.Proto.IsVarArg &^= lua.VarArgNeedsArg
	sc := &evalScript{sha: sha, fn: fn, flags: flags}
	h.scripts[sha] = sc
	h.cached.Store(int64(len(h.scripts)))
	return sc, ""
}

// parseShebang reads the "#!lua flags=..." first line of an EVAL script (eval set) or a
// function library. It returns the script flags, the length of the shebang line, and an
// error reply. EVAL scripts without a shebang get scriptCompat.
func parseShebang(body string, eval bool) (flags, skip int, msg string) {
	if !strings.HasPrefix(body, "#!") {
		return scriptCompat, 0, ""
	}
	end := strings.IndexByte(body, '\n')
	if end < 0 {
		return 0, 0, "ERR Invalid script shebang"
	}
	parts := strings.Fields(body[:end])
	if len(parts) == 0 || parts[0] != "#!lua" {
		first := ""
		if len(parts) > 0 {
			first = parts[0]
		}
		return 0, 0, "ERR Unexpected engine in script shebang: " + first
	}
	for _, p := range parts[1:] {
		v, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, 0, "ERR Unknown lua shebang option: " + p
		}
		if v == "" {
			continue
		}
		for _, f := range strings.Split(v, ",") {
			bit := scriptFlagByName(f)
			if bit == 0 {
				return 0, 0, "ERR Unexpected flag in script shebang: " + f
			}
			flags |= bit
		}
	}
	return flags, end, ""
}

// execute runs fn (a compiled EVAL script or a registered function) for c with args, writes
// its reply, and commits the transaction the dispatcher opened for it. h.mu is held.
func (h *scriptHost) execute(c *Ctx, vm *luaVM, fn *lua.LFunction, args []lua.LValue, name string, isEval, readOnly bool) {
	start := c.W.Len()
	r := &vm.runState // one script at a time per interpreter: its state and buffers are reused
	w := r.w
	w.Reset()
	*r = scriptRun{c: c, vm: vm, name: name, readOnly: readOnly, resp: 2, db: c.Client.DB, w: w}
	origDB := c.Client.DB
	ctx, cancel := context.WithCancel(context.Background())
	h.busy.begin(c.Args, name, isEval, cancel)
	vm.run = r
	L := vm.L
	defer func() {
		if p := recover(); p != nil {
			// A panic escaped gopher-lua's own recovery: the interpreter's stacks may be
			// inconsistent, so it is dropped (with the scripts compiled in it) before the
			// dispatcher answers the error.
			h.discard(vm)
			L.RemoveContext()
			cancel()
			h.busy.end()
			c.Client.DB = origDB
			panic(p)
		}
		L.RemoveContext()
		cancel()
		vm.run = nil
		r.c, r.sub = nil, Ctx{}
		L.SetTop(0)
		h.busy.end()
		c.Client.DB = origDB
	}()
	L.SetContext(killCtx{ctx})
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), 1, vm.handler); err != nil {
		writeScriptError(c.W, err, name, vm.chunk)
		var ae *lua.ApiError
		c.ErrorCounted = errors.As(err, &ae) && countedError(ae.Object)
	} else {
		writeLuaReply(c.W, L.Get(-1), r.resp, 0)
		c.ErrorCounted = countedError(L.Get(-1))
	}
	if c.Txn.DB() != origDB {
		c.Txn.UseDB(origDB)
	}
	if c.NonBlocking {
		return // inside EXEC: the transaction is the caller's
	}
	// The dispatcher would drop the batch of a command that answers an error; a script's
	// writes stay even when it fails later, so the script commits them itself.
	t := c.Txn
	c.Txn = nil
	if h.busy.hard.Load() {
		t.Abort()
		return
	}
	if err := t.Commit(); err != nil {
		c.W.Truncate(start)
		c.Fail(err)
		c.Ready = nil
	}
}

// discard drops an interpreter that may be broken: EVAL's with its script cache, the
// functions' one to be rebuilt from the stored libraries on next use.
func (h *scriptHost) discard(vm *luaVM) {
	switch {
	case vm == h.eval:
		h.eval = nil
		h.scripts = map[string]*evalScript{}
		h.cached.Store(0)
	case h.funcs != nil && vm == h.funcs.vm:
		h.funcs = nil
	}
}

// writeScriptError writes the reply of a script that raised an error, from the error table
// the handler built: "<err> script: <name>, on <source>:<line>."
var stackLineRE = regexp.MustCompile(`(user_script|user_function):(\d+):`)

func writeScriptError(w *Writer, err error, name, chunk string) {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		w.Error(fmt.Sprintf("ERR Error running script %s, %.100s", name, err.Error()))
		return
	}
	t, ok := ae.Object.(*lua.LTable)
	if !ok {
		msg := luaString(ae.Object)
		if strings.Contains(msg, "callstack overflow") {
			// No room was left to run the error handler: report it as Lua's stack overflow.
			src, line := chunk, 1
			if m := stackLineRE.FindStringSubmatch(ae.StackTrace); m != nil {
				src = m[1]
				line, _ = strconv.Atoi(m[2])
			}
			w.Error(fmt.Sprintf("ERR %s:%d: stack overflow script: %s, on @%s:%d.", src, line, name, src, line))
			return
		}
		w.Error(fmt.Sprintf("ERR Error running script %s, %.100s", name, msg))
		return
	}
	msg := "ERR unknown error"
	switch v := t.RawGetString("err").(type) {
	case lua.LString, lua.LNumber:
		msg = luaString(v)
	}
	src, line := t.RawGetString("source"), t.RawGetString("line")
	if src != lua.LNil && line != lua.LNil {
		msg += fmt.Sprintf(" script: %s, on %s:%s.", name, luaString(src), luaString(line))
	}
	w.Error(msg)
}

func (b *busyState) begin(args [][]byte, name string, isEval bool, cancel context.CancelFunc) {
	b.mu.Lock()
	// args stay valid while the script runs: FUNCTION STATS may read them until end.
	b.running, b.eval, b.name, b.start, b.cancel, b.args = true, isEval, name, time.Now(), cancel, args
	b.killed.Store(false)
	b.hard.Store(false)
	b.dirty.Store(false)
	b.mu.Unlock()
	scriptsRunning.Add(1)
}

func (b *busyState) end() {
	b.mu.Lock()
	b.running, b.cancel, b.args = false, nil, nil
	b.mu.Unlock()
	scriptsRunning.Add(-1)
}

// kill stops the running script for SCRIPT KILL (eval) or FUNCTION KILL and returns the reply.
func (b *busyState) kill(eval bool) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !b.running:
		return errNotBusy
	case b.dirty.Load():
		return errUnkillable
	case eval && !b.eval:
		return errBusyFunction
	case !eval && b.eval:
		return errBusyEval
	}
	b.killed.Store(true)
	b.cancel()
	return ""
}

// ScriptBusy is called by the server before it dispatches a command. While a script has
// been running for longer than busy-reply-threshold it returns the BUSY error that command
// must get, or "" for the commands Redis lets through (SCRIPT KILL, FUNCTION KILL and STATS,
// SHUTDOWN NOSAVE, AUTH, HELLO, QUIT, RESET, MULTI, DISCARD, WATCH, UNWATCH) and for
// commands the dispatcher rejects anyway. SHUTDOWN NOSAVE stops the script, dropping its
// writes.
func ScriptBusy(c *Ctx) string {
	if scriptsRunning.Load() == 0 || c.Store == nil || len(c.Args) == 0 {
		return ""
	}
	h := lookupHost(c.Store)
	if h == nil {
		return ""
	}
	b := &h.busy
	b.mu.Lock()
	running, isEval, start := b.running, b.eval, b.start
	b.mu.Unlock()
	cmd := Lookup(c.Args[0])
	if !running || cmd == nil || !cmd.CheckArity(len(c.Args)) {
		return ""
	}
	cfg := c.Env.Config()
	if !c.Client.Authed && cmd.Flags&FlagNoAuth == 0 && cfg.RequirePass != "" {
		return ""
	}
	sub := ""
	if len(c.Args) > 1 {
		sub = strings.ToLower(string(c.Args[1]))
	}
	if cmd.Name == "shutdown" {
		for _, a := range c.Args[1:] {
			if strings.EqualFold(string(a), "nosave") {
				b.stopHard() // scriptstop.go
				return ""
			}
		}
	}
	threshold := time.Duration(cfg.BusyReplyThreshold) * time.Millisecond
	if threshold <= 0 || time.Since(start) < threshold {
		return ""
	}
	switch cmd.Name {
	case "auth", "hello", "quit", "reset", "multi", "discard", "watch", "unwatch":
		return ""
	case "script":
		if sub == "kill" {
			return ""
		}
	case "function":
		if sub == "kill" || sub == "stats" && !isEval {
			return ""
		}
	}
	if isEval {
		return errBusyEval
	}
	return errBusyFunction
}

func cmdScript(c *Ctx) {
	sub := strings.ToLower(c.Arg(1))
	arity := map[string]int{"debug": 3, "exists": -3, "flush": -2, "help": 2, "kill": 2, "load": 3}
	a, ok := arity[sub]
	if !ok {
		c.W.Error(fmt.Sprintf(ErrUnknownSub, c.Arg(1), "SCRIPT"))
		return
	}
	if !subArityOK(a, len(c.Args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, "script|"+sub))
		return
	}
	h := hostFor(c.Store)
	switch sub {
	case "help":
		writeHelp(c.W, scriptHelpLines)
	case "kill":
		if msg := h.busy.kill(true); msg != "" {
			c.W.Error(msg)
			return
		}
		c.W.OK()
	case "load":
		h.mu.Lock()
		sc, msg := h.loadScript(c.Arg(2))
		h.mu.Unlock()
		if sc == nil {
			c.W.Error(msg)
			return
		}
		c.W.BulkString(sc.sha)
	case "exists":
		h.mu.Lock()
		c.W.Array(len(c.Args) - 2)
		for _, sha := range c.Args[2:] {
			if h.scripts[strings.ToLower(string(sha))] != nil {
				c.W.Int(1)
			} else {
				c.W.Int(0)
			}
		}
		h.mu.Unlock()
	case "flush":
		if len(c.Args) > 3 || len(c.Args) == 3 && !strings.EqualFold(c.Arg(2), "sync") && !strings.EqualFold(c.Arg(2), "async") {
			c.W.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
			return
		}
		h.mu.Lock()
		h.scripts = map[string]*evalScript{}
		h.cached.Store(0)
		if h.eval != nil {
			h.eval.L.Close()
			h.eval = nil
		}
		h.mu.Unlock()
		c.W.OK()
	case "debug":
		switch strings.ToLower(c.Arg(2)) {
		case "no":
			c.W.OK()
		case "yes", "sync":
			c.W.Error("ERR SCRIPT DEBUG is not supported by this server")
		default:
			c.W.Error("ERR Use SCRIPT DEBUG YES/SYNC/NO")
		}
	}
}

var scriptHelpLines = []string{
	"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
	"HELP",
	"    Prints this help.",
}

// rand48 is Redis's redisLrand48 (a 48-bit linear congruential generator), which its Lua
// math.random uses; the sequence never restarts while the server runs.
type rand48 struct{ x uint64 }

func (r *rand48) init()                 { r.x = 0x1234ABCD330E }
func (r *rand48) seed(s int32)          { r.x = uint64(uint32(s))<<16 | 0x330E }
func (r *rand48) next() int32           { r.x = (0x5DEECE66D*r.x + 0xB) & (1<<48 - 1); return int32(r.x >> 17) }
func (r *rand48) float() float64        { return float64(r.next()%math.MaxInt32) / float64(math.MaxInt32) }
func checkInt(L *lua.LState, i int) int { return int(L.CheckNumber(i)) }

func (h *scriptHost) luaRandom(L *lua.LState) int {
	r := h.rng.float()
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

func (h *scriptHost) luaRandomSeed(L *lua.LState) int {
	h.rng.seed(int32(checkInt(L, 1)))
	return 0
}

// errCountedField marks the error table of a command a script ran that failed, as Redis marks
// it: the error was counted in INFO errorstats when the command failed.
const errCountedField = "ignore_err_stats_update"

// countedError reports whether v, a script's reply or raised error, is such an error table.
func countedError(v lua.LValue) bool {
	t, ok := v.(*lua.LTable)
	return ok && t.RawGetString("err") != lua.LNil && lua.LVAsBool(t.RawGetString(errCountedField))
}
