package scripting

import (
	"context"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/strata-db/strata/config"
)

// Loading a function library: its "#!lua name=..." shebang, the load time limit, and
// redis.register_function with its positional and named forms, as Redis 7.0 checks them.

// loadCtx stops a library's code that runs longer than loadTimeout.
type loadCtx struct{ context.Context }

func (k loadCtx) Err() error {
	if k.Context.Err() != nil {
		return errLoadTimeout
	}
	return nil
}

var errLoadTimeout = fmt.Errorf("FUNCTION LOAD timeout")

// loadErrorText is luaExtractErrorInformation's message for an error raised while a
// library loads (no error handler runs there).
func loadErrorText(err error) string {
	ae, ok := err.(*lua.ApiError)
	if !ok {
		return "ERR " + err.Error()
	}
	if t, ok := ae.Object.(*lua.LTable); ok {
		if v := t.RawGetString("err"); v != lua.LNil {
			return luaString(v)
		}
		return "ERR unknown error"
	}
	msg := luaString(ae.Object)
	if strings.HasSuffix(msg, errLoadTimeout.Error()) {
		return "ERR FUNCTION LOAD timeout"
	}
	return "ERR " + msg
}

// parseLibraryShebang reads "#!lua name=<library>" and returns the name and the code after
// the shebang line (its line feed kept). The line is split into words as Redis splits
// arguments, so a word may be quoted (name="lib") and a quoting error makes the metadata
// invalid.
func parseLibraryShebang(code string) (name, body, msg string) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", "ERR Missing library metadata"
	}
	end := strings.IndexByte(code, '\n')
	if end < 0 {
		return "", "", "ERR Invalid library metadata"
	}
	parts, err := config.SplitArgs(code[:end])
	if err != nil || len(parts) == 0 {
		return "", "", "ERR Invalid library metadata"
	}
	engine := parts[0][2:] // the code starts with "#!", so does its first word
	given := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if given {
				return "", "", "ERR Invalid metadata value, name argument was given multiple times"
			}
			name, given = p[5:], true
			continue
		}
		return "", "", "ERR Invalid metadata value given: " + p
	}
	if !given {
		return "", "", "ERR Library name was not given"
	}
	if !validFunctionName(name) {
		return "", "", "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	}
	if !strings.EqualFold(engine, "lua") {
		return "", "", "ERR Engine '" + engine + "' not found"
	}
	return name, code[end:], ""
}

func validFunctionName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// luaRegisterFunction is redis.register_function(name, callback) or
// redis.register_function{function_name=..., callback=..., flags={...}, description=...}.
func (vm *luaVM) luaRegisterFunction(L *lua.LState) int {
	load := vm.loading
	if load == nil {
		return raise(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	f := &Function{lib: load.lib}
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			return raise(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		var msg string
		luaForEach(t, func(k, v lua.LValue) {
			if msg != "" {
				return
			}
			msg = f.namedArg(k, v)
		})
		if msg != "" {
			return raise(L, msg)
		}
		if !f.named {
			return raise(L, "redis.register_function must get a function name argument")
		}
		if f.fn == nil {
			return raise(L, "redis.register_function must get a callback argument")
		}
	case 2:
		if !isLuaString(L.Get(1)) {
			return raise(L, "first argument to redis.register_function must be a string")
		}
		cb, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return raise(L, "second argument to redis.register_function must be a function")
		}
		f.Name, f.fn = luaString(L.Get(1)), cb
	default:
		return raise(L, "wrong number of arguments to redis.register_function")
	}
	if !validFunctionName(f.Name) {
		// Redis 7.0 words a bad function name as a bad library name.
		return raise(L, "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")
	}
	for _, other := range load.lib.Functions {
		if strings.EqualFold(other.Name, f.Name) {
			return raise(L, "Function already exists in the library")
		}
	}
	load.lib.Functions = append(load.lib.Functions, f)
	return 0
}

func isLuaString(v lua.LValue) bool {
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return true
	}
	return false
}

// namedArg reads one named argument of register_function; it returns an error text.
func (f *Function) namedArg(k, v lua.LValue) string {
	if !isLuaString(k) {
		return "named argument key given to redis.register_function is not a string"
	}
	switch strings.ToLower(luaString(k)) {
	case "function_name":
		if !isLuaString(v) {
			return "function_name argument given to redis.register_function must be a string"
		}
		f.Name, f.named = luaString(v), true
	case "description":
		if !isLuaString(v) {
			return "description argument given to redis.register_function must be a string"
		}
		f.Description, f.HasDescription = luaString(v), true
	case "callback":
		cb, ok := v.(*lua.LFunction)
		if !ok {
			return "callback argument given to redis.register_function must be a function"
		}
		f.fn = cb
	case "flags":
		t, ok := v.(*lua.LTable)
		if !ok {
			return "flags argument to redis.register_function must be a table representing function flags"
		}
		for i := 1; ; i++ {
			fv := t.RawGetInt(i)
			if fv == lua.LNil {
				break
			}
			bit := Flags(0)
			if isLuaString(fv) {
				bit = flagByName(strings.ToLower(luaString(fv)))
			}
			if bit == 0 {
				return "unknown flag given"
			}
			f.Flags |= bit
		}
	default:
		return "unknown argument given to redis.register_function"
	}
	return ""
}
