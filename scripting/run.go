package scripting

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Caller is the command layer as a running script reaches it. The EVAL and FCALL handlers
// implement it for each invocation and pass it to Run.
type Caller interface {
	// Call runs one command for the script (redis.call, redis.pcall) inside the script's
	// transaction and returns its reply, encoded in RESP protocol c.RESP, and whether that
	// reply is an error. When the command may not run from the script (unknown, wrong
	// arity, not allowed in scripts, denied by ACL, a write from a read-only script, refused
	// by the disk) it runs nothing and returns refused, the error text ("ERR " is added
	// unless it starts with "-CODE"). Before a write command runs, Call calls c.MarkWrite.
	Call(c *Call) (reply []byte, failed bool, refused string)
	// ACLCheck answers redis.acl_check_cmd: whether the user running the script may run args.
	// known is false when args name no command (or a subcommand a container lacks).
	ACLCheck(args [][]byte) (allowed, known bool)
	// Done is called once the script has ended and written its reply, while it still counts
	// as running (BUSY, FUNCTION STATS): the Caller commits the script's writes, or drops
	// them when res.Dropped. It is not called when the script panicked.
	Done(res Result)
}

// Reply is where a script's reply goes: the RESP writer of the command layer, which encodes
// maps, sets, doubles, booleans and nulls for the client's protocol.
type Reply interface {
	Array(n int)
	Map(n int)
	Set(n int)
	BulkString(s string)
	Int(n int64)
	Double(f float64)
	Bool(v bool)
	Null()
	Status(s string)
	Error(msg string)
	Raw(p []byte) // already encoded RESP
}

// Call is one redis.call or redis.pcall of a running script, as its Caller sees it.
type Call struct {
	Args     [][]byte
	RESP     int  // the protocol the script reads replies in: 2, or 3 after redis.setresp(3)
	ReadOnly bool // the script may not write: an *_RO command or the no-writes flag
	busy     *busyState
}

// Wrote reports whether the script has run a write command.
func (c *Call) Wrote() bool { return c.busy.dirty.Load() }

// MarkWrite records that the script runs a write command: SCRIPT KILL refuses from now on.
func (c *Call) MarkWrite() { c.busy.dirty.Store(true) }

// Invocation is one EVAL or FCALL for Run.
type Invocation struct {
	Args     [][]byte // the whole command, for FUNCTION STATS; valid until Run returns
	Keys     [][]byte // KEYS, or a function's first argument
	Argv     [][]byte // ARGV, or a function's second argument
	ReadOnly bool     // *_RO command or no-writes flag: write commands are refused
	Proto    int      // the client's protocol, 2 or 3
}

// Result is what Caller.Done learns about the script that ran.
type Result struct {
	// Counted is set when the script's reply is the error of a command it ran, already
	// counted in INFO errorstats when that command failed.
	Counted bool
	// Dropped is set when SHUTDOWN NOSAVE stopped the script: its writes must be dropped.
	Dropped bool
}

// scriptRun is one EVAL or FCALL invocation.
type scriptRun struct {
	caller   Caller
	vm       *luaVM
	name     string // the script's SHA1 or the function's name, for error messages
	readOnly bool   // *_RO command or no-writes flag: write commands are refused
	resp     int    // protocol of the replies redis.call sees (redis.setresp)
	call     Call
}

func (r *scriptRun) killed() bool { return r.vm.engine.busy.killed.Load() }

// RunScript runs sc, a cached EVAL script, for inv, writes its reply to w and calls cl.Done.
// e is locked.
func (e *Engine) RunScript(cl Caller, w Reply, sc *Script, inv *Invocation) {
	vm := e.evalVM()
	vm.globals.RawSetString("KEYS", luaArray(vm.L, inv.Keys))
	vm.globals.RawSetString("ARGV", luaArray(vm.L, inv.Argv))
	e.run(cl, w, vm, sc.fn, nil, sc.SHA, true, inv)
}

// RunFunction runs f, a registered function, for inv, writes its reply to w and calls
// cl.Done. e is locked.
func (e *Engine) RunFunction(cl Caller, w Reply, f *Function, inv *Invocation) {
	L := e.funcs.vm.L
	args := []lua.LValue{luaArray(L, inv.Keys), luaArray(L, inv.Argv)}
	e.run(cl, w, e.funcs.vm, f.fn, args, f.Name, false, inv)
}

// run calls fn in vm with args, writes its reply and tells cl it is done.
func (e *Engine) run(cl Caller, w Reply, vm *luaVM, fn *lua.LFunction, args []lua.LValue, name string, isEval bool, inv *Invocation) {
	r := &vm.runState // one script at a time per interpreter: its state is reused
	*r = scriptRun{caller: cl, vm: vm, name: name, readOnly: inv.ReadOnly, resp: 2,
		call: Call{busy: &e.busy}}
	ctx, cancel := context.WithCancel(context.Background())
	e.busy.begin(inv.Args, name, isEval, cancel)
	vm.run = r
	L := vm.L
	defer func() {
		if p := recover(); p != nil {
			// A panic escaped gopher-lua's own recovery: the interpreter's stacks may be
			// inconsistent, so it is dropped (with the scripts compiled in it) before the
			// dispatcher answers the error.
			e.discard(vm)
			L.RemoveContext()
			cancel()
			e.busy.end()
			panic(p)
		}
		L.RemoveContext()
		cancel()
		vm.run = nil
		r.caller, r.call.Args = nil, nil
		L.SetTop(0)
		e.busy.end()
	}()
	L.SetContext(killCtx{ctx})
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	var res Result
	if err := L.PCall(len(args), 1, vm.handler); err != nil {
		writeScriptError(w, err, name, vm.chunk)
		var ae *lua.ApiError
		res.Counted = errors.As(err, &ae) && countedError(ae.Object)
	} else {
		writeLuaReply(w, L.Get(-1), r.resp, inv.Proto, 0)
		res.Counted = countedError(L.Get(-1))
	}
	res.Dropped = e.busy.hard.Load()
	cl.Done(res)
}

// stackLineRE finds the chunk and line in the stack trace of a Lua stack overflow.
var stackLineRE = regexp.MustCompile(`(user_script|user_function):(\d+):`)

// writeScriptError writes the reply of a script that raised an error, from the error table
// the handler built: "<err> script: <name>, on <source>:<line>."
func writeScriptError(w Reply, err error, name, chunk string) {
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

// errCountedField marks the error table of a command a script ran that failed, as Redis marks
// it: the error was counted in INFO errorstats when the command failed.
const errCountedField = "ignore_err_stats_update"

// countedError reports whether v, a script's reply or raised error, is such an error table.
func countedError(v lua.LValue) bool {
	t, ok := v.(*lua.LTable)
	return ok && t.RawGetString("err") != lua.LNil && lua.LVAsBool(t.RawGetString(errCountedField))
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
