package commands

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/scripting"
)

// Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, as in Redis 7.0. The Lua
// runtime is the scripting package; this file holds the command handlers and scriptCaller,
// through which a script's redis.call reaches the command table.
//
// A script runs atomically: the EVAL family carries FlagExclusive, so the dispatcher opens an
// exclusive transaction before the handler runs and no other command touches the keyspace
// until the script ends. Every redis.call runs its command inside that transaction
// (runIn), so all the script's writes form one batch, committed after the script, even when
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
)

// scriptEngine returns the scripting state of c's store.
func scriptEngine(c *Ctx) *scripting.Engine { return scripting.For(c.Store, RedisVersion) }

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
	e := scriptEngine(c)
	e.Lock()
	defer e.Unlock()
	var sc *scripting.Script
	if strings.HasPrefix(name, "evalsha") {
		if sc = e.Script(c.Arg(1)); sc == nil {
			c.W.Error(errNoScript)
			return
		}
	} else {
		var msg string
		if sc, msg = e.LoadScript(c.Arg(1)); sc == nil {
			c.W.Error(msg)
			return
		}
	}
	ro := strings.HasSuffix(name, "_ro")
	if scriptWriteRefused(c, sc.Flags, ro) {
		return
	}
	inv := scripting.Invocation{Args: c.Args, Keys: c.Args[3 : 3+numKeys], Argv: c.Args[3+numKeys:], Proto: c.W.Proto,
		ReadOnly: ro || sc.Flags&(scripting.Compat|scripting.NoWrites) == scripting.NoWrites}
	cl := newScriptCaller(c)
	defer cl.release()
	e.RunScript(cl, c.W, sc, &inv)
}

// scriptWriteRefused answers and returns true for a script that declares flags without
// no-writes (EVAL with a shebang, every function), which counts as a write command, when a
// write is refused: MISCONF while the disk refuses writes, NOREPLICAS on a master short of
// good replicas, READONLY on a read-only replica (the gates of every write command), then the
// *_ro error for EVAL_RO, EVALSHA_RO and FCALL_RO (ro), in Redis's order. Scripts without a shebang are refused at their first write
// command instead (redis.call).
func scriptWriteRefused(c *Ctx, flags scripting.Flags, ro bool) bool {
	if flags&(scripting.Compat|scripting.NoWrites) != 0 {
		return false
	}
	gate, _ := c.Env.(WriteGate)
	msg := ""
	if err := c.Store.WriteError(); err != nil {
		msg = MisconfError(err)
	} else if gate != nil && gate.ReplicasShort() {
		msg = ErrNoReplicas
	} else if gate != nil && gate.ReplicaReadOnly() {
		msg = ErrReadOnlyReplica
	} else if ro {
		msg = errWriteFlagRO
	}
	if msg != "" {
		c.W.Error(msg)
		return true
	}
	return false
}

// ScriptBusy is called by the server before it dispatches a command. While a script has
// been running for longer than busy-reply-threshold it returns the BUSY error that command
// must get, or "" for the commands Redis lets through (SCRIPT KILL, FUNCTION KILL and STATS,
// SHUTDOWN NOSAVE, AUTH, HELLO, QUIT, RESET, MULTI, DISCARD, WATCH, UNWATCH) and for
// commands the dispatcher rejects anyway. SHUTDOWN NOSAVE stops the script, dropping its
// writes.
func ScriptBusy(c *Ctx) string {
	if !scripting.Running() || c.Store == nil || len(c.Args) == 0 {
		return ""
	}
	e := scripting.Lookup(c.Store)
	if e == nil {
		return ""
	}
	running, isEval, start := e.Busy()
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
				e.StopHard()
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
		return scripting.ErrBusyEval
	}
	return scripting.ErrBusyFunction
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
	e := scriptEngine(c)
	switch sub {
	case "help":
		writeHelp(c.W, scriptHelpLines)
	case "kill":
		if msg := e.Kill(true); msg != "" {
			c.W.Error(msg)
			return
		}
		c.W.OK()
	case "load":
		e.Lock()
		sc, msg := e.LoadScript(c.Arg(2))
		e.Unlock()
		if sc == nil {
			c.W.Error(msg)
			return
		}
		c.W.BulkString(sc.SHA)
	case "exists":
		e.Lock()
		c.W.Array(len(c.Args) - 2)
		for _, sha := range c.Args[2:] {
			if e.Script(string(sha)) != nil {
				c.W.Int(1)
			} else {
				c.W.Int(0)
			}
		}
		e.Unlock()
	case "flush":
		if len(c.Args) > 3 || len(c.Args) == 3 && !strings.EqualFold(c.Arg(2), "sync") && !strings.EqualFold(c.Arg(2), "async") {
			c.W.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
			return
		}
		e.FlushScripts()
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

// scriptCaller is the scripting.Caller of one EVAL or FCALL: it runs the commands the script
// calls in the transaction the dispatcher opened for the script, as the script's client.
type scriptCaller struct {
	c      *Ctx
	start  int // where the script's reply begins in c.W
	origDB int // the client's database when the script began
	db     int // the script's selected database (SELECT inside the script)
	w      resp.Writer
	sub    Ctx
	// effects are the writes of the commands the script ran, which replicate it: a script
	// propagates as its effects, not as itself, as in Redis 7.0.
	effects EffectLog
}

// callers keeps scriptCallers and their reply buffers from one script to the next.
var callers = sync.Pool{New: func() any { return new(scriptCaller) }}

func newScriptCaller(c *Ctx) *scriptCaller {
	sc := callers.Get().(*scriptCaller)
	sc.c, sc.start, sc.origDB, sc.db = c, c.W.Len(), c.Client.DB, c.Client.DB
	return sc
}

// release gives the client its database back, SELECT inside the script notwithstanding,
// even when the script panicked.
func (sc *scriptCaller) release() {
	sc.c.Client.DB = sc.origDB
	sc.c, sc.sub, sc.effects = nil, Ctx{}, EffectLog{}
	callers.Put(sc)
}

// Done commits the transaction the dispatcher opened for the script that just ran: the
// dispatcher would drop the batch of a command that answers an error, but a script's writes
// stay even when it fails later. A script SHUTDOWN NOSAVE stopped loses them.
func (sc *scriptCaller) Done(res scripting.Result) {
	c := sc.c
	c.ErrorCounted = res.Counted
	if c.Txn.DB() != sc.origDB {
		c.Txn.UseDB(sc.origDB)
	}
	if c.NonBlocking {
		// Inside EXEC: the transaction is the caller's, which propagates these effects.
		c.scriptEffects = &EffectLog{dbs: sc.effects.dbs, cmds: sc.effects.cmds} // sc is reused
		return
	}
	t := c.Txn
	c.Txn = nil
	if res.Dropped {
		t.Abort()
		return
	}
	if c.BeforeCommit != nil && t.Writes() > 0 {
		c.BeforeCommit(t)
	}
	sc.effects.SendOnCommit(t, c.Propagate)
	if err := t.Commit(); err != nil {
		c.W.Truncate(sc.start)
		c.Fail(err)
		c.Ready = nil
	}
}
