package commands

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/strata-db/strata/storage"
)

// Lifecycle is implemented by a server that can be asked to shut down.
type Lifecycle interface {
	// Shutdown asks the server to stop gracefully after this command.
	Shutdown()
}

func init() {
	register(
		&Command{Name: "bgsave", Arity: -1, Flags: FlagAdmin | FlagNoScript, Handler: cmdBgsave},
		&Command{Name: "save", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagNoMulti, Handler: cmdSave},
		&Command{Name: "lastsave", Arity: 1, Flags: FlagFast | FlagLoading | FlagStale, Handler: cmdLastsave},
		&Command{Name: "time", Arity: 1, Flags: FlagFast | FlagLoading | FlagStale, Handler: cmdTime},
		&Command{Name: "bgrewriteaof", Arity: 1, Flags: FlagAdmin | FlagNoScript, Handler: cmdBgRewriteAOF},
		&Command{Name: "lolwut", Arity: -1, Flags: FlagReadonly | FlagFast, Handler: cmdLolwut},
		&Command{Name: "module", Arity: -2, Flags: FlagAdmin | FlagNoScript, Handler: cmdModule,
			Sub: []string{"help", "list", "load", "loadex", "unload"}},
		&Command{Name: "shutdown", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale | FlagNoMulti, Handler: cmdShutdown},
	)
}

func cmdBgsave(c *Ctx) {
	if len(c.Args) > 2 || len(c.Args) == 2 && !strings.EqualFold(c.Arg(1), "schedule") {
		c.W.Error(ErrSyntax)
		return
	}
	err := c.Store.StartBackup(c.Env.Config().BackupDir, nil)
	switch {
	case errors.Is(err, storage.ErrBackupRunning):
		c.W.Error("ERR Background save already in progress")
	case err != nil:
		c.Fail(err)
	default:
		c.W.Status("Background saving started")
	}
}

func cmdSave(c *Ctx) {
	err := c.Store.Backup(c.Env.Config().BackupDir)
	switch {
	case errors.Is(err, storage.ErrBackupRunning):
		c.W.Error("ERR Background save already in progress")
	case err != nil:
		c.Fail(err)
	default:
		c.W.OK()
	}
}

func cmdLastsave(c *Ctx) { c.W.Int(c.Store.BackupInfo().LastTime.Unix()) }

func cmdShutdown(c *Ctx) {
	for _, a := range c.Args[1:] {
		switch strings.ToLower(string(a)) {
		case "nosave", "save", "now", "force":
		case "abort":
			c.W.Error("ERR No shutdown in progress.")
			return
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	lc, ok := c.Env.(Lifecycle)
	if !ok {
		c.W.Error("ERR shutdown is not supported here")
		return
	}
	c.Client.Quit = true
	lc.Shutdown()
}

// cmdTime answers the server's clock as two bulk strings: seconds and microseconds.
func cmdTime(c *Ctx) {
	now := time.Now()
	c.W.Array(2)
	c.W.BulkInt(now.Unix())
	c.W.BulkInt(int64(now.Nanosecond() / 1000))
}

// cmdBgRewriteAOF answers BGREWRITEAOF as Redis does and compacts the journal: Strata's journal
// is LevelDB's log, which a compaction of the whole keyspace rewrites into tables, so disk space
// comes back after mass deletes. The compaction runs in the background; INFO persistence shows
// aof_rewrite_in_progress:1 until it ends.
func cmdBgRewriteAOF(c *Ctx) {
	if !c.Store.StartCompact() {
		c.W.Error("ERR Background append only file rewriting already in progress")
		return
	}
	c.W.Status("Background append only file rewriting started")
}

// cmdLolwut answers LOLWUT [VERSION v] with the version line Redis 7.0 prints for its own
// version (the drawings of versions 5 and 6 are not reproduced).
func cmdLolwut(c *Ctx) {
	if len(c.Args) >= 3 && strings.EqualFold(c.Arg(1), "version") {
		if _, ok := c.Int(2); !ok {
			return
		}
	}
	c.W.Verbatim("Redis ver. " + RedisVersion + "\n")
}

var moduleHelpLines = []string{
	"MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LIST",
	"    Return a list of loaded modules.",
	"LOAD <path> [<arg> ...]",
	"    Load a module library from <path>, passing to it any optional arguments.",
	"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
	"    Load a module library from <path>, while passing it module configurations and optional arguments.",
	"UNLOAD <name>",
	"    Unload a module.",
	"HELP",
	"    Prints this help.",
}

// moduleAllowed applies enable-module-command to MODULE LOAD, LOADEX and UNLOAD as Redis does:
// "no" refuses them, "local" allows them from loopback connections only.
func moduleAllowed(c *Ctx) bool {
	if protectedAllowed(c, "enable-module-command") {
		return true
	}
	c.W.Error(fmt.Sprintf(ErrProtected, "MODULE", "enable-module-command"))
	return false
}

// moduleLoad refuses to load a module, with the reason in the log: Strata runs no Redis modules.
func moduleLoad(c *Ctx) {
	if moduleAllowed(c) {
		slog.Warn("MODULE LOAD refused: Strata does not load Redis modules", "path", c.Arg(2))
		c.W.Error("ERR Error loading the extension. Please check the server logs.")
	}
}

var moduleSubs = map[string]clientSub{
	"help":   {2, func(c *Ctx) { writeHelp(c.W, moduleHelpLines) }},
	"list":   {2, func(c *Ctx) { c.W.Array(0) }},
	"load":   {-3, moduleLoad},
	"loadex": {-3, moduleLoad},
	"unload": {3, func(c *Ctx) {
		if moduleAllowed(c) {
			c.W.Error("ERR Error unloading module: no such module with that name")
		}
	}},
}

// cmdModule implements MODULE: no module is ever loaded, so LIST is empty and LOAD is refused.
func cmdModule(c *Ctx) { runSub(c, "module", moduleSubs) }
