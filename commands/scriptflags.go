package commands

import (
	"strings"

	"github.com/strata-db/strata/storage"
)

// mayReplicateScript lists the script commands that may replicate (Redis 7.0's may-replicate
// flag): the script may write. The other commands with that flag are in mayReplicateCmd.
var mayReplicateScript = map[string]bool{"eval": true, "evalsha": true, "fcall": true}

// HeldByWritePause reports whether CLIENT PAUSE WRITE holds cmd called with args: a command
// with the write flag or one that may replicate. For the EVAL and FCALL families the script's
// declared flags decide, as they do for the command's flags in Redis: a script with a
// shebang (or a registered function) is a write unless it declares no-writes, and then it is
// held by nothing; an EVAL script without a shebang, or a script or function not found, keeps
// the command's own flags (EVAL, EVALSHA and FCALL may replicate, the _RO forms are reads).
//
// Looking a script up takes the scripting lock, so a call made while another script runs
// waits for it to end, as the command itself would before it could run.
func HeldByWritePause(s *storage.Store, cmd *Command, args [][]byte) bool {
	own := cmd.Flags&FlagWrite != 0 || mayReplicateCmd[cmd.Name] || mayReplicateScript[cmd.Name]
	if s == nil || len(args) < 2 {
		return own
	}
	flags, ok := 0, false
	switch cmd.Name {
	case "eval", "eval_ro", "evalsha", "evalsha_ro":
		flags, ok = evalDeclaredFlags(s, cmd, args[1])
	case "fcall", "fcall_ro":
		flags, ok = fcallDeclaredFlags(s, args[1])
	}
	if !ok {
		return own
	}
	return flags&scriptNoWrites == 0
}

// evalDeclaredFlags returns the flags an EVAL script declared in its shebang, from the script
// cache or, for EVAL, from the body; ok is false for a script without a shebang, one not
// cached (EVALSHA) or one whose shebang does not parse.
func evalDeclaredFlags(s *storage.Store, cmd *Command, body []byte) (flags int, ok bool) {
	evalsha := strings.HasPrefix(cmd.Name, "evalsha")
	if evalsha && len(body) != 40 {
		return 0, false
	}
	sha := strings.ToLower(string(body))
	if !evalsha {
		sha = sha1Hex(string(body))
	}
	if h := lookupHost(s); h != nil {
		h.mu.Lock()
		sc := h.scripts[sha]
		if sc != nil {
			flags = sc.flags
		}
		h.mu.Unlock()
		if sc != nil {
			return flags, flags&scriptCompat == 0
		}
	}
	if evalsha {
		return 0, false
	}
	flags, _, msg := parseShebang(string(body), true)
	if msg != "" {
		return 0, false
	}
	return flags, flags&scriptCompat == 0
}

// fcallDeclaredFlags returns the flags of the function FCALL names; ok is false when there is
// no such function.
func fcallDeclaredFlags(s *storage.Store, name []byte) (flags int, ok bool) {
	h := hostFor(s)
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.functions(s).funcs[strings.ToLower(string(name))]
	if f == nil {
		return 0, false
	}
	return f.flags, true
}
