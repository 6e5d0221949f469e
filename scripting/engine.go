package scripting

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/strata-db/strata/storage"
)

// Engine is the scripting state of one store: the Lua interpreters, the script cache, the
// function libraries and the script running now.
type Engine struct {
	mu      sync.Mutex // serialises the interpreters and the caches
	eval    *luaVM
	scripts map[string]*Script // SHA1 -> compiled script
	cached  atomic.Int64       // len(scripts), for INFO without taking mu
	funcs   *funcRegistry      // functions.go; nil until first used
	rng     rand48             // math.random, shared by scripts and functions as in Redis
	busy    busyState
	version string // REDIS_VERSION of the redis table
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

// scriptsRunning counts running scripts in the process, so Running costs one atomic load
// when none runs.
var scriptsRunning atomic.Int32

// Running reports whether a script runs on any store of the process.
func Running() bool { return scriptsRunning.Load() != 0 }

var engines = struct {
	sync.Mutex
	m map[weak.Pointer[storage.Store]]*Engine
}{m: map[weak.Pointer[storage.Store]]*Engine{}}

// For returns the scripting state of s, creating it on first use; version is the Redis
// release the redis table reports (REDIS_VERSION). The state is dropped when the store is
// garbage collected.
func For(s *storage.Store, version string) *Engine {
	wp := weak.Make(s)
	engines.Lock()
	defer engines.Unlock()
	e := engines.m[wp]
	if e == nil {
		e = newEngine(version)
		engines.m[wp] = e
		runtime.AddCleanup(s, func(wp weak.Pointer[storage.Store]) {
			engines.Lock()
			delete(engines.m, wp)
			engines.Unlock()
		}, wp)
	}
	return e
}

func newEngine(version string) *Engine {
	e := &Engine{scripts: map[string]*Script{}, version: version}
	e.rng.init()
	return e
}

// Lookup returns the scripting state of s, or nil if no script or function has been used on
// it.
func Lookup(s *storage.Store) *Engine {
	engines.Lock()
	defer engines.Unlock()
	return engines.m[weak.Make(s)]
}

// CachedScripts is how many EVAL scripts s's script cache holds (INFO's
// number_of_cached_scripts).
func CachedScripts(s *storage.Store) int64 {
	if e := Lookup(s); e != nil {
		return e.cached.Load()
	}
	return 0
}

// Lock takes the lock that serialises e's interpreters and caches. The EVAL and FCALL
// handlers hold it from looking a script up (Script, LoadScript, Function) to the end of its
// Run; the methods documented as taking it themselves must not be called while it is held.
func (e *Engine) Lock() { e.mu.Lock() }

// Unlock releases the lock Lock took.
func (e *Engine) Unlock() { e.mu.Unlock() }

func (e *Engine) evalVM() *luaVM {
	if e.eval == nil {
		e.eval = newLuaVM(e, "user_script")
	}
	return e.eval
}

// discard drops an interpreter that may be broken: EVAL's with its script cache, the
// functions' one to be rebuilt from the stored libraries on next use.
func (e *Engine) discard(vm *luaVM) {
	switch {
	case vm == e.eval:
		e.eval = nil
		e.scripts = map[string]*Script{}
		e.cached.Store(0)
	case e.funcs != nil && vm == e.funcs.vm:
		e.funcs = nil
	}
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

// Busy describes the script running on e now: whether one runs, whether it is of the EVAL
// family (else FCALL), and when it started.
func (e *Engine) Busy() (running, isEval bool, start time.Time) {
	b := &e.busy
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running, b.eval, b.start
}

// Kill stops the running script for SCRIPT KILL (eval set) or FUNCTION KILL, and returns the
// error reply when it cannot: none runs, it has written, or it is of the other family.
func (e *Engine) Kill(eval bool) string {
	b := &e.busy
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !b.running:
		return ErrNotBusy
	case b.dirty.Load():
		return ErrUnkillable
	case eval && !b.eval:
		return ErrBusyFunction
	case !eval && b.eval:
		return ErrBusyEval
	}
	b.killed.Store(true)
	b.cancel()
	return ""
}

// StopHard stops the running script, if any, as SHUTDOWN NOSAVE does: the script raises an
// error at its next instruction and its writes are dropped, never committed (Run reports it).
func (e *Engine) StopHard() {
	b := &e.busy
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running {
		b.hard.Store(true)
		b.killed.Store(true)
		b.cancel()
	}
}

// Stop stops the script running on s, if any, as StopHard does. The server calls it while it
// shuts down, so that a script that does not end cannot hold the store open; nothing the
// script wrote had been acknowledged.
func Stop(s *storage.Store) {
	if e := Lookup(s); e != nil {
		e.StopHard()
	}
}
