package commands

import (
	"fmt"
	"strings"
	"time"

	"github.com/strata-db/strata/internal/glob"
	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/scripting"
)

// Redis 7.0 functions: FUNCTION LOAD/DELETE/FLUSH/LIST/DUMP/RESTORE/STATS/KILL/HELP, FCALL and
// FCALL_RO. The libraries, their interpreter and their persistence are the scripting
// package's; FUNCTION DUMP's payload is Strata's own format, not Redis's RDB encoding: it can
// be restored into Strata only.

func init() {
	const flags = FlagNoScript | FlagStale | FlagExclusive
	register(
		&Command{Name: "fcall", Arity: -3, Flags: flags, Handler: cmdFCall},
		&Command{Name: "fcall_ro", Arity: -3, Flags: flags | FlagReadonly, Handler: cmdFCall},
		&Command{Name: "function", Arity: -2, Flags: FlagNoScript, Handler: cmdFunction,
			Sub: []string{"delete", "dump", "flush", "help", "kill", "list", "load", "restore", "stats"}},
	)
}

func cmdFCall(c *Ctx) {
	e := scriptEngine(c)
	e.Lock()
	defer e.Unlock()
	f := e.Function(c.Store, c.Arg(1))
	if f == nil {
		c.W.Error("ERR Function not found")
		return
	}
	n, err := num.ParseInt(c.Args[2])
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
	ro := c.Cmd.Name == "fcall_ro"
	if scriptWriteRefused(c, f.Flags, ro) {
		return
	}
	inv := scripting.Invocation{Args: c.Args, Keys: c.Args[3 : 3+n], Argv: c.Args[3+n:], Proto: c.W.Proto,
		ReadOnly: ro || f.Flags&scripting.NoWrites != 0}
	cl := newScriptCaller(c)
	defer cl.release()
	e.RunFunction(cl, c.W, f, &inv)
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
	e := scriptEngine(c)
	switch sub {
	case "help":
		writeHelp(c.W, functionHelpLines)
	case "kill":
		if msg := e.Kill(false); msg != "" {
			c.W.Error(msg)
			return
		}
		c.W.OK()
	case "stats":
		functionStats(c, e)
	case "load":
		functionLoad(c, e)
	case "delete":
		msg, err := e.DeleteLibrary(c.Store, c.Arg(2))
		functionReply(c, msg, err)
	case "flush":
		if len(c.Args) > 3 {
			c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%.128s'. Try FUNCTION HELP.", c.Arg(1)))
			return
		}
		if len(c.Args) == 3 && !strings.EqualFold(c.Arg(2), "sync") && !strings.EqualFold(c.Arg(2), "async") {
			c.W.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
			return
		}
		functionReply(c, "", e.FlushLibraries(c.Store))
	case "list":
		functionList(c, e)
	case "dump":
		c.W.Bulk(e.DumpLibraries(c.Store))
	case "restore":
		functionRestore(c, e)
	}
}

// functionReply answers +OK, or the error reply msg, or the store's error.
func functionReply(c *Ctx, msg string, err error) {
	switch {
	case err != nil:
		c.Fail(err)
	case msg != "":
		c.W.Error(msg)
	default:
		c.propagateNow()
		c.W.OK()
	}
}

func functionLoad(c *Ctx, e *scripting.Engine) {
	replace := false
	i := 2
	for ; i < len(c.Args)-1; i++ {
		if !strings.EqualFold(c.Arg(i), "replace") {
			c.W.Error("ERR Unknown option given: " + c.Arg(i))
			return
		}
		replace = true
	}
	name, msg, err := e.LoadLibrary(c.Store, c.Arg(i), replace)
	if err != nil || msg != "" {
		functionReply(c, msg, err)
		return
	}
	c.propagateNow()
	c.W.BulkString(name)
}

// functionRestore is FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE].
func functionRestore(c *Ctx, e *scripting.Engine) {
	if len(c.Args) > 4 {
		c.W.Error("ERR unknown subcommand or wrong number of arguments for '" + c.Arg(1) + "'. Try FUNCTION HELP.")
		return
	}
	policy := scripting.RestoreAppend
	if len(c.Args) == 4 {
		switch strings.ToLower(c.Arg(3)) {
		case "append":
		case "replace":
			policy = scripting.RestoreReplace
		case "flush":
			policy = scripting.RestoreFlush
		default:
			c.W.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	msg, err := e.RestoreLibraries(c.Store, c.Args[2], policy)
	functionReply(c, msg, err)
}

func functionList(c *Ctx, e *scripting.Engine) {
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
	var libs []*scripting.Library
	for _, lib := range e.Libraries(c.Store) {
		if !hasPattern || glob.Match(pattern, []byte(lib.Name), true) {
			libs = append(libs, lib)
		}
	}
	c.W.Array(len(libs))
	for _, lib := range libs {
		if withCode {
			c.W.Map(4)
		} else {
			c.W.Map(3)
		}
		c.W.BulkString("library_name")
		c.W.BulkString(lib.Name)
		c.W.BulkString("engine")
		c.W.BulkString("LUA")
		c.W.BulkString("functions")
		c.W.Array(len(lib.Functions))
		for _, f := range lib.Functions {
			c.W.Map(3)
			c.W.BulkString("name")
			c.W.BulkString(f.Name)
			c.W.BulkString("description")
			if f.HasDescription {
				c.W.BulkString(f.Description)
			} else {
				c.W.Null()
			}
			c.W.BulkString("flags")
			names := f.Flags.Names()
			c.W.Set(len(names))
			for _, n := range names {
				c.W.Status(n)
			}
		}
		if withCode {
			c.W.BulkString("library_code")
			c.W.BulkString(lib.Code)
		}
	}
}

func functionStats(c *Ctx, e *scripting.Engine) {
	st := e.FunctionStats(c.Store)
	if st.Running && st.Eval {
		c.W.Error(scripting.ErrBusyEval)
		return
	}
	c.W.Map(2)
	c.W.BulkString("running_script")
	if st.Running {
		c.W.Map(3)
		c.W.BulkString("name")
		c.W.BulkString(st.Name)
		c.W.BulkString("command")
		c.W.Array(len(st.Args))
		for _, a := range st.Args {
			c.W.Bulk(a)
		}
		c.W.BulkString("duration_ms")
		c.W.Int(time.Since(st.Start).Milliseconds())
	} else {
		c.W.Null()
	}
	c.W.BulkString("engines")
	c.W.Map(1)
	c.W.BulkString("LUA")
	c.W.Map(2)
	c.W.BulkString("libraries_count")
	c.W.Int(int64(st.Libraries))
	c.W.BulkString("functions_count")
	c.W.Int(int64(st.Functions))
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
