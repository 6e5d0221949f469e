package commands

import (
	"crypto/sha1"
	"encoding/hex"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// This file holds the redis table scripts call (redis.call and friends), the bridge that
// runs a command for a script inside the script's transaction, and the conversions between
// RESP and Lua values in both directions, following Redis 7.0's script_lua.c.

// scriptRun is one EVAL or FCALL invocation.
type scriptRun struct {
	c        *Ctx
	vm       *luaVM
	name     string // the script's SHA1 or the function's name, for error messages
	readOnly bool   // *_RO command or no-writes flag: write commands are refused
	resp     int    // protocol of the replies redis.call sees (redis.setresp)
	db       int    // the script's selected database (SELECT inside the script)
	w        Writer
	sub      Ctx
}

func (r *scriptRun) killed() bool { return r.vm.host.busy.killed.Load() }

// Script flags (shebang flags= of EVAL scripts, flags of registered functions).
const (
	scriptNoWrites = 1 << iota
	scriptAllowOOM
	scriptAllowStale
	scriptNoCluster
	scriptAllowCrossSlot
	scriptCompat // EVAL script without a shebang
)

var scriptFlagNames = []struct {
	flag int
	name string
}{{scriptNoWrites, "no-writes"}, {scriptAllowOOM, "allow-oom"}, {scriptAllowStale, "allow-stale"},
	{scriptNoCluster, "no-cluster"}, {scriptAllowCrossSlot, "allow-cross-slot-keys"}}

func scriptFlagByName(name string) int {
	for _, f := range scriptFlagNames {
		if f.name == name {
			return f.flag
		}
	}
	return 0
}

// Log levels of redis.log.
const (
	logDebug = iota
	logVerbose
	logNotice
	logWarning
)

func (vm *luaVM) newRedisTable() *lua.LTable {
	L := vm.L
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":               func(L *lua.LState) int { return vm.redisCall(L, true) },
		"pcall":              func(L *lua.LState) int { return vm.redisCall(L, false) },
		"error_reply":        luaErrorReply,
		"status_reply":       luaStatusReply,
		"sha1hex":            luaSHA1Hex,
		"log":                vm.luaLog,
		"setresp":            vm.luaSetResp,
		"set_repl":           vm.luaSetRepl,
		"replicate_commands": vm.luaReplicateCommands,
		"breakpoint":         func(L *lua.LState) int { L.Push(lua.LFalse); return 1 },
		"debug":              func(L *lua.LState) int { return 0 },
		"acl_check_cmd":      vm.luaACLCheckCmd,
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	for name, v := range map[string]int{"LOG_DEBUG": logDebug, "LOG_VERBOSE": logVerbose, "LOG_NOTICE": logNotice,
		"LOG_WARNING": logWarning, "REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3} {
		t.RawSetString(name, lua.LNumber(v))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(RedisVersion))
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(redisVersionNum()))
	return t
}

func redisVersionNum() int {
	n := 0
	for _, p := range strings.Split(RedisVersion, ".") {
		v, _ := strconv.Atoi(p)
		n = n<<8 | v
	}
	return n
}

// raise raises Redis's error table for msg ("ERR " added unless msg is "-CODE ...").
func raise(L *lua.LState, msg string) int {
	L.Error(errorTable(L, msg), 0)
	return 0
}

func (vm *luaVM) current(L *lua.LState, what string) *scriptRun {
	if vm.run == nil {
		raise(L, what+" can only be called inside a script invocation")
	}
	return vm.run
}

// luaCommandArgs reads a command and its arguments from the Lua stack, as redis.call takes
// them; msg is the error when there are none or one is neither a string nor a number.
func luaCommandArgs(L *lua.LState) (args [][]byte, msg string) {
	n := L.GetTop()
	if n == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	args = make([][]byte, n)
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			args[i-1] = []byte(v)
		case lua.LNumber:
			args[i-1] = []byte(formatLuaArg(float64(v)))
		default:
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
	}
	return args, ""
}

// redisCall is redis.call (raise set) and redis.pcall: it runs a command in the script's
// transaction and converts its reply to Lua.
func (vm *luaVM) redisCall(L *lua.LState, raiseErr bool) int {
	r := vm.current(L, "redis.call")
	fail := func(msg string) int {
		if raiseErr {
			return raise(L, msg)
		}
		L.Push(errorTable(L, msg))
		return 1
	}
	args, msg := luaCommandArgs(L)
	if msg != "" {
		return fail(msg)
	}
	n := len(args)
	cmd := Lookup(args[0])
	switch {
	case cmd == nil:
		return fail("Unknown Redis command called from script")
	case !cmd.CheckArity(n):
		return fail("Wrong number of args calling Redis command from script")
	case scriptForbidden(cmd):
		return fail("This Redis command is not allowed from script")
	}
	if r.c.Client.ACLUser != nil {
		if msg := ACLScriptDenial(r.c, cmd, args); msg != "" { // acl.go, logged as "lua"
			return fail(msg)
		}
	}
	if r.readOnly && (cmd.Flags&FlagWrite != 0 || mayReplicateCmd[cmd.Name]) {
		return fail("Write commands are not allowed from read-only scripts.")
	}
	c := r.c
	if cmd.Flags&FlagWrite != 0 {
		// While the disk refuses writes, a script's first write command gets MISCONF; once
		// the script has written, its later writes are not refused half-way.
		if !vm.host.busy.dirty.Load() {
			if err := c.Store.WriteError(); err != nil {
				return fail("-" + MisconfError(err))
			}
		}
		vm.host.busy.dirty.Store(true)
	}
	r.w.Reset()
	r.w.Proto = r.resp
	r.sub = Ctx{Args: args, Cmd: cmd, Client: c.Client, Store: c.Store, Txn: c.Txn, W: &r.w, Env: c.Env, KE: c.KE,
		Script: c}
	c.Client.DB = r.db
	before := c.Txn.Writes()
	began := time.Now()
	var failed bool
	if cmd.Name == "dbsize" {
		// DBSIZE reads the store's counters under the store lock the script holds: count the
		// database's keys in the script's transaction instead (expired ones included, as
		// DBSIZE does).
		failed = scriptDBSize(&r.sub)
	} else {
		failed = runIn(&r.sub)
	}
	if cc, ok := c.Env.(CallCounter); ok {
		cc.CountCall(cmd, began, r.w.Bytes(), r.sub.ErrorCounted) // INFO commandstats, errorstats
	}
	if c.OnRead != nil && cmd.Flags&FlagReadonly != 0 {
		c.OnRead(&r.sub) // CLIENT TRACKING: the script's caller tracks what it reads
	}
	if r.sub.Txn != c.Txn {
		c.Txn = r.sub.Txn // not expected: the script's transaction is exclusive
	}
	if !failed {
		if c.OnWrite != nil && c.Txn.Writes() > before {
			c.OnWrite(&r.sub) // mark the clients that WATCH what the command changed
		}
		c.Events = append(c.Events, r.sub.Events...)
	}
	if c.Client.DB != r.db {
		r.db = c.Client.DB
		c.Txn.UseDB(r.db)
	}
	c.Ready = append(c.Ready, r.sub.Ready...) // each in the database the command ran in
	v, _ := respToLua(L, r.w.Bytes())
	if t, ok := v.(*lua.LTable); ok && failed {
		// Counted in errorstats already: the script's reply, if it passes this error on, is not.
		t.RawSetString(errCountedField, lua.LTrue)
	}
	if failed && raiseErr {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// formatLuaArg formats a number argument of redis.call as Redis 7.0 does ("%.17g").
func formatLuaArg(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// scriptDenied lists the commands Redis 7.0 refuses in scripts (noscript) that Strata's table
// may not flag as such, and INFO and COMPACT, which take the store lock a script holds.
var scriptDenied = map[string]bool{
	"quit": true, "reset": true, "multi": true, "exec": true, "discard": true, "watch": true, "unwatch": true,
	"subscribe": true, "psubscribe": true, "ssubscribe": true, "unsubscribe": true, "punsubscribe": true,
	"sunsubscribe": true, "monitor": true, "blpop": true, "brpop": true, "brpoplpush": true, "blmove": true,
	"bzpopmin": true, "bzpopmax": true, "wait": true, "debug": true, "latency": true, "module": true,
	"role": true, "replicaof": true, "slaveof": true, "sync": true, "psync": true, "failover": true,
	"bgrewriteaof": true, "bgsave": true, "save": true, "shutdown": true, "eval": true, "evalsha": true,
	"eval_ro": true, "evalsha_ro": true, "fcall": true, "fcall_ro": true, "acl": true, "script": true,
	"function": true, "client": true, "config": true, "hello": true, "auth": true, "compact": true, "info": true,
}

func scriptDBSize(c *Ctx) bool {
	it := c.Txn.ScanKeys(nil, nil)
	n := int64(0)
	for it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		c.Fail(err)
		return true
	}
	c.W.Int(n)
	return false
}

// mayReplicateCmd lists commands without the write flag that read-only scripts still may not
// call (Redis's may-replicate).
var mayReplicateCmd = map[string]bool{"publish": true, "spublish": true, "pfcount": true}

func scriptForbidden(cmd *Command) bool { return cmd.Flags&FlagNoScript != 0 || scriptDenied[cmd.Name] }

func luaErrorReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	msg := string(s)
	if !strings.HasPrefix(msg, "-") {
		msg = "-" + msg
	}
	L.Push(errorTable(L, msg))
	return 1
}

func luaStatusReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	t := L.NewTable()
	t.RawSetString("ok", s)
	L.Push(t)
	return 1
}

func luaSHA1Hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		return raise(L, "wrong number of arguments")
	}
	s := ""
	switch v := L.Get(1).(type) {
	case lua.LString:
		s = string(v)
	case lua.LNumber:
		s = luaNumberString(float64(v))
	}
	L.Push(lua.LString(sha1Hex(s)))
	return 1
}

func sha1Hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func (vm *luaVM) luaLog(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		return raise(L, "redis.log() requires two arguments or more.")
	}
	lv, ok := luaToNumber(L.Get(1))
	if !ok {
		return raise(L, "First argument must be a number (log level).")
	}
	level := int(lv)
	if level < logDebug || level > logWarning {
		return raise(L, "Invalid debug level.")
	}
	var parts []string
	for i := 2; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString, lua.LNumber:
			parts = append(parts, luaString(v))
		}
	}
	msg := strings.Join(parts, " ")
	switch level {
	case logDebug, logVerbose:
		slog.Debug(msg, "source", "script")
	case logNotice:
		slog.Info(msg, "source", "script")
	default:
		slog.Warn(msg, "source", "script")
	}
	return 0
}

// luaToNumber is lua_tonumber: numbers, and strings that read as numbers.
func luaToNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return luaStr2Number(string(x))
	}
	return 0, false
}

func (vm *luaVM) luaSetResp(L *lua.LState) int {
	r := vm.current(L, "redis.setresp")
	if L.GetTop() != 1 {
		return raise(L, "redis.setresp() requires one argument.")
	}
	n, _ := luaToNumber(L.Get(1))
	if n != 2 && n != 3 {
		return raise(L, "RESP version must be 2 or 3.")
	}
	r.resp = int(n)
	return 0
}

func (vm *luaVM) luaSetRepl(L *lua.LState) int {
	vm.current(L, "redis.set_repl")
	if L.GetTop() != 1 {
		return raise(L, "redis.set_repl() requires two arguments.")
	}
	n, _ := luaToNumber(L.Get(1))
	if int(n)&^3 != 0 {
		return raise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
	}
	return 0
}

func (vm *luaVM) luaReplicateCommands(L *lua.LState) int {
	L.Push(lua.LTrue)
	return 1
}

// luaACLCheckCmd is redis.acl_check_cmd(command, arg...): whether the user running the script
// may run the command with those arguments (nothing is logged).
func (vm *luaVM) luaACLCheckCmd(L *lua.LState) int {
	r := vm.current(L, "redis.acl_check_cmd")
	args, msg := luaCommandArgs(L)
	if msg != "" {
		return raise(L, msg)
	}
	cmd := Lookup(args[0])
	if cmd == nil {
		return raise(L, "Invalid command passed to redis.acl_check_cmd()")
	}
	if !ACLValidCall(cmd, args) { // a container named with a subcommand it does not have
		return raise(L, "Invalid command passed to redis.acl_check_cmd()")
	}
	L.Push(lua.LBool(ACLAllows(r.c, cmd, args)))
	return 1
}
