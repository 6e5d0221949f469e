package commands

import (
	"github.com/strata-db/strata/scripting"
	"github.com/strata-db/strata/storage"
)

// StopScripts stops the script running on s, if any, as SHUTDOWN NOSAVE does: the script
// raises an error at its next instruction and its writes are dropped, never committed. The
// server calls it while it shuts down, so that a script that does not end cannot hold the
// store open; nothing the script wrote had been acknowledged.
func StopScripts(s *storage.Store) { scripting.Stop(s) }

// IsScriptCommand reports whether cmd runs a Lua script: the EVAL and FCALL families.
func IsScriptCommand(cmd *Command) bool {
	switch cmd.Name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}
