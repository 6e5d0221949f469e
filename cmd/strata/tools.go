package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/storage"
)

// runTool runs an offline subcommand on a stopped server's data directory and reports whether
// args named one.
func runTool(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "backup":
		fs := flag.NewFlagSet("backup", flag.ExitOnError)
		dir := fs.String("dir", config.Default().Dir, "data directory of the stopped server")
		to := fs.String("to", "", "directory to write the backup to")
		fs.Parse(args[1:])
		if *to == "" {
			fail(fmt.Errorf("backup: --to is required"))
		}
		st := openOffline(*dir)
		if err := st.Backup(*to); err != nil {
			fail(err)
		}
		fail(st.Close())
		fmt.Printf("backup of %s written to %s\n", *dir, *to)
	case "check":
		fs := flag.NewFlagSet("check", flag.ExitOnError)
		dir := fs.String("dir", config.Default().Dir, "data directory of the stopped server")
		fs.Parse(args[1:])
		st := openOffline(*dir)
		for db := 0; db < st.Databases(); db++ {
			if keys, expires := st.KeyCounts(db); keys > 0 {
				fmt.Printf("db%d: keys=%d expires=%d\n", db, keys, expires)
			}
		}
		err := storage.CheckInvariants(st)
		st.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "strata check: FAILED:", err)
			os.Exit(1)
		}
		fmt.Println("strata check: OK")
	case "import", "export":
		return runRDBTool(args) // rdbtools.go
	default:
		return false
	}
	return true
}

// openOffline opens a data directory without background work; LevelDB's lock refuses a
// directory that a running server holds.
func openOffline(dir string) *storage.Store {
	st, err := storage.Open(storage.Options{Dir: dir, DisableBackgrnd: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fail(err)
	}
	return st
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "strata:", err)
		os.Exit(1)
	}
}

// setMemoryLimit gives the Go runtime a soft memory limit derived from the configured caches,
// unless GOMEMLIMIT is set: the block cache, two memtables and the key cache are live heap, and
// without a limit the collector lets the heap grow to twice the live size before it runs.
func setMemoryLimit(cfg *config.Config, logger *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := config.MemoryTarget(cfg)
	debug.SetMemoryLimit(limit)
	logger.Debug("go memory limit", "bytes", limit)
}
