// Package scripting is Strata's Lua runtime: the interpreters EVAL scripts and FUNCTION
// libraries run in, the sandbox Redis 7.0 gives them, the redis.* API, the conversions
// between command replies and Lua values, the C libraries Redis links into its Lua (cjson,
// cmsgpack, bit, struct), the script cache, and the function libraries with their
// persistence. It knows nothing of the command table, the dispatcher or the network: the
// command layer (package commands) holds the EVAL, FCALL, SCRIPT and FUNCTION handlers and
// reaches the runtime through Engine; the runtime reaches the commands through Caller.
//
// # The engine and its interpreters
//
// An Engine is the scripting state of one store (For creates it on first use, Lookup finds
// it; it goes when the store is garbage collected). It holds two gopher-lua interpreters:
// one for every EVAL script, created on first use and dropped by SCRIPT FLUSH with the
// script cache, and one for the function libraries, rebuilt from the libraries stored in the
// store the first time they are used after a start or a FUNCTION FLUSH. One lock
// (Engine.Lock) serialises both: the EVAL and FCALL handlers hold it from looking a script up
// to the end of its run, and the other methods take it themselves. A script runs with its
// state in the interpreter (runState), reused from run to run, so a redis.call allocates
// little beyond the values it converts.
//
// While a script runs, Busy describes it for the server's BUSY replies, FUNCTION STATS
// reads its name and command, Kill stops it for SCRIPT KILL and FUNCTION KILL (refused once
// it has written), and StopHard stops it for SHUTDOWN NOSAVE, after which the Caller is told
// to drop its writes. Stopping works through the interpreter's context, which gopher-lua
// checks before every instruction, so a script stops even inside pcall. A panic that
// escapes gopher-lua drops the interpreter (EVAL's with its script cache) before it goes on
// to the dispatcher, as the interpreter's stacks may be inconsistent.
//
// # The sandbox
//
// Scripts see the base, table, string, math and coroutine libraries, less everything that
// reaches the file system or the process, plus cjson, cmsgpack, bit, struct and redis
// (vm.go). The globals and every library table are read-only: scripts see them through
// proxy tables whose __newindex raises, and the functions that would write through a proxy
// (rawset, setmetatable, table.insert, ...) refuse it, while the ones that read (pairs,
// next, rawget, #, ...) see through it (base.go). Reading an undefined global raises, as in
// Redis. math.random is Redis's rand48 generator, one sequence per engine. Where gopher-lua
// and Lua 5.1 differ in what a script can see, the lua51 files give Lua 5.1's behaviour:
// number formatting and parsing, chunk names, syntax and runtime error messages (rewritten
// from the failing instruction's bytecode while the frame is still on the stack),
// string.dump, the deprecated table functions. Errors become Redis's error tables
// ({err=..., source=..., line=...}) in the handler Redis installs, __redis__err__handler,
// so error replies read like Redis 7.0's.
//
// # Calling commands
//
// redis.call and redis.pcall (redis.go) read the command from the Lua stack and hand it to
// the run's Caller as a Call, with the protocol the script chose (redis.setresp) and whether
// the script may write. The Caller, implemented by the command layer for each invocation,
// makes Redis's checks in Redis's order (unknown command, arity, not allowed in scripts,
// ACL, writes from read-only scripts, MISCONF), runs the command inside the transaction the
// dispatcher opened for the script, counts it in INFO commandstats, and returns its RESP
// reply; it calls Call.MarkWrite before a write, after which SCRIPT KILL refuses. A refusal
// comes back as text that redis.call raises (redis.pcall returns) as an error table; the
// error of a command that ran is marked as already counted in INFO errorstats, so a script
// that passes it on is not counted twice (Result.Counted). When the script has ended and its
// reply is written, and before it stops counting as running, Caller.Done commits its writes
// (or drops them): the commit is still part of the script's run.
//
// # Conversions
//
// conv.go converts a command's RESP reply to Lua as Redis's redisProtocolToLuaType does
// (status and error replies as {ok=...} and {err=...} tables, nulls as false, RESP3 maps,
// sets, doubles, big numbers and verbatim strings as tagged tables), and a script's return
// value to the caller's reply as luaReplyToRedisReply does, through Reply, the command
// layer's RESP writer, which encodes for the client's protocol. Nesting deeper than
// maxReplyDepth (a table that contains itself) ends the reply with an error instead of
// recursing without bound.
//
// # Libraries
//
// cjson (lua-cjson 2.1.0), cmsgpack (lua-cmsgpack 0.4.0), bit (LuaBitOp 1.0.2) and struct
// (struct 0.2) are written in Go on gopher-lua with the C originals' behaviour and error
// texts, in cjson.go, cjson_decode.go, msgpack.go and libs.go.
//
// # Functions
//
// A function library is Lua code with a "#!lua name=..." shebang; loading it runs the code
// with only redis.register_function, redis.log and the version fields in reach, under a
// time limit, and collects the functions it registers (functions_load.go). The registry
// (functions.go) maps library names and case-insensitive function names to them; a library
// is never changed once loaded, so FUNCTION LIST can read it after the lock is released.
// Libraries persist in the store as system records (storage.FunctionLibraries): LoadLibrary,
// DeleteLibrary, FlushLibraries and RestoreLibraries update the store before the registry,
// so a failed write changes nothing. FUNCTION DUMP's payload (functions_dump.go) is Strata's
// own versioned, checksummed format, not Redis's RDB encoding.
//
// # Script flags
//
// An EVAL script may start with "#!lua flags=..." (ParseShebang) and a function declares
// its flags when it registers (Flags). The command layer reads them to refuse writes from
// EVAL_RO and FCALL_RO, to answer MISCONF before a writing script runs, and to decide whether
// CLIENT PAUSE WRITE holds a script (EvalFlags, FunctionFlags).
package scripting
