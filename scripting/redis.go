package scripting

import (
	"crypto/sha1"
	"encoding/hex"
	"log/slog"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// This file holds the redis table scripts call (redis.call and friends), following Redis
// 7.0's script_lua.c; the commands themselves run through the script's Caller.

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
	t.RawSetString("REDIS_VERSION", lua.LString(vm.engine.version))
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(versionNum(vm.engine.version)))
	return t
}

// versionNum is REDIS_VERSION_NUM: 0x00MMmmpp for version MM.mm.pp.
func versionNum(version string) int {
	n := 0
	for _, p := range strings.Split(version, ".") {
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

// redisCall is redis.call (raise set) and redis.pcall: it runs a command through the
// script's Caller and converts its reply to Lua.
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
	r.call.Args, r.call.RESP, r.call.ReadOnly = args, r.resp, r.readOnly
	reply, failed, refused := r.caller.Call(&r.call)
	r.call.Args = nil
	if refused != "" {
		return fail(refused)
	}
	v, _ := respToLua(L, reply)
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
	L.Push(lua.LString(SHA1Hex(s)))
	return 1
}

// SHA1Hex is the lower-case hex SHA1 of s: an EVAL script's name in the script cache.
func SHA1Hex(s string) string {
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
	allowed, known := r.caller.ACLCheck(args)
	if !known {
		return raise(L, "Invalid command passed to redis.acl_check_cmd()")
	}
	L.Push(lua.LBool(allowed))
	return 1
}
