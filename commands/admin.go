package commands

import (
	"errors"
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
		&Command{Name: "compact", Arity: -1, Flags: FlagAdmin | FlagNoScript, Handler: cmdCompact},
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

// cmdCompact implements COMPACT [db]: a background LevelDB compaction of one database or of
// the whole keyspace, so disk space comes back after mass deletes.
func cmdCompact(c *Ctx) {
	db := -1
	if len(c.Args) > 2 {
		c.W.Error(ErrSyntax)
		return
	}
	if len(c.Args) == 2 {
		n, ok := dbIndex(c, 1, ErrDBIndex)
		if !ok {
			return
		}
		db = n
	}
	if !c.Store.StartCompact(db) {
		c.W.Error("ERR Compaction already in progress")
		return
	}
	c.W.Status("Background compaction started")
}

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
