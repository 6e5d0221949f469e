package commands

import (
	"github.com/strata-db/strata/scripting"
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
	var flags scripting.Flags
	ok := false
	switch cmd.Name {
	case "eval", "eval_ro", "evalsha", "evalsha_ro":
		flags, ok = scripting.Lookup(s).EvalFlags(args[1], cmd.Name == "evalsha" || cmd.Name == "evalsha_ro")
	case "fcall", "fcall_ro":
		flags, ok = scripting.For(s, RedisVersion).FunctionFlags(s, string(args[1]))
	}
	if !ok {
		return own
	}
	return flags&scripting.NoWrites == 0
}
