package scripting

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Flags are a script's declared flags: the shebang's flags= of an EVAL script, the flags of a
// registered function.
type Flags int

// The script flags, as Redis 7.0 names them (Names).
const (
	NoWrites Flags = 1 << iota
	AllowOOM
	AllowStale
	NoCluster
	AllowCrossSlot
	Compat // an EVAL script without a shebang: it declares nothing
)

var flagNames = []struct {
	flag Flags
	name string
}{{NoWrites, "no-writes"}, {AllowOOM, "allow-oom"}, {AllowStale, "allow-stale"},
	{NoCluster, "no-cluster"}, {AllowCrossSlot, "allow-cross-slot-keys"}}

func flagByName(name string) Flags {
	for _, f := range flagNames {
		if f.name == name {
			return f.flag
		}
	}
	return 0
}

// Names returns the names of the flags set in f, in Redis's order (FUNCTION LIST).
func (f Flags) Names() []string {
	var names []string
	for _, fl := range flagNames {
		if f&fl.flag != 0 {
			names = append(names, fl.name)
		}
	}
	return names
}

// Script is one cached EVAL script.
type Script struct {
	SHA   string // SHA1 of the body, lower-case hex
	Flags Flags
	fn    *lua.LFunction
}

// Script returns the cached script with this SHA1 (any case), or nil. e is locked.
func (e *Engine) Script(sha string) *Script {
	return e.scripts[strings.ToLower(sha)]
}

// LoadScript returns the cached script with this body, compiling and caching it first if
// needed; on failure it returns the error reply. e is locked.
func (e *Engine) LoadScript(body string) (*Script, string) {
	sha := SHA1Hex(body)
	if sc := e.scripts[sha]; sc != nil {
		return sc, ""
	}
	flags, skip, msg := ParseShebang(body)
	if msg != "" {
		return nil, msg
	}
	vm := e.evalVM()
	src := body[skip:] // the shebang line goes, its line feed stays: line numbers hold
	fn, err := vm.L.Load(strings.NewReader(src), vm.chunk)
	if err != nil {
		return nil, "ERR Error compiling script (new function): " + compileErrorText(err, vm.chunk, src)
	}
	fn.Env = vm.env
	// gopher-lua gives a main chunk Lua 5.0's "arg" table, built on every call; Lua 5.1 does
	// not (the chunk cannot name it: arg is no local there), so the table is skipped.
	fn.Proto.IsVarArg &^= lua.VarArgNeedsArg
	sc := &Script{SHA: sha, fn: fn, Flags: flags}
	e.scripts[sha] = sc
	e.cached.Store(int64(len(e.scripts)))
	return sc, ""
}

// FlushScripts empties the script cache and drops EVAL's interpreter (SCRIPT FLUSH). It takes
// e's lock.
func (e *Engine) FlushScripts() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scripts = map[string]*Script{}
	e.cached.Store(0)
	if e.eval != nil {
		e.eval.L.Close()
		e.eval = nil
	}
}

// EvalFlags returns the flags an EVAL script declared in its shebang, from the script cache
// or, unless byHash (EVALSHA), from the body; ok is false for a script without a shebang, one
// not cached (EVALSHA) or one whose shebang does not parse. It takes e's lock, so a call made
// while another script runs waits for it to end.
func (e *Engine) EvalFlags(body []byte, byHash bool) (flags Flags, ok bool) {
	if byHash && len(body) != 40 {
		return 0, false
	}
	sha := strings.ToLower(string(body))
	if !byHash {
		sha = SHA1Hex(string(body))
	}
	if e != nil {
		e.mu.Lock()
		sc := e.scripts[sha]
		if sc != nil {
			flags = sc.Flags
		}
		e.mu.Unlock()
		if sc != nil {
			return flags, flags&Compat == 0
		}
	}
	if byHash {
		return 0, false
	}
	flags, _, msg := ParseShebang(string(body))
	if msg != "" {
		return 0, false
	}
	return flags, flags&Compat == 0
}

// ParseShebang reads the "#!lua flags=..." first line of an EVAL script. It returns the
// script flags, the length of the shebang line, and an error reply. Scripts without a
// shebang get Compat.
func ParseShebang(body string) (flags Flags, skip int, msg string) {
	if !strings.HasPrefix(body, "#!") {
		return Compat, 0, ""
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
			bit := flagByName(f)
			if bit == 0 {
				return 0, 0, "ERR Unexpected flag in script shebang: " + f
			}
			flags |= bit
		}
	}
	return flags, end, ""
}
