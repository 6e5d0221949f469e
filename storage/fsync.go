package storage

import (
	"sync/atomic"

	"github.com/syndtr/goleveldb/leveldb/opt"
)

// fsyncPolicy is appendfsync, read at every commit and value-log write, so CONFIG SET can
// change it while the store runs: "always" syncs each commit, "everysec" leaves syncing to the
// once-a-second loop, "no" to the operating system.
type fsyncPolicy struct{ mode atomic.Pointer[string] }

var (
	syncWrites   = &opt.WriteOptions{Sync: true}
	noSyncWrites = &opt.WriteOptions{}
)

func (p *fsyncPolicy) get() string {
	if m := p.mode.Load(); m != nil {
		return *m
	}
	return "everysec"
}

func (p *fsyncPolicy) set(mode string) { p.mode.Store(&mode) }

// writeOptions returns the options of a commit under the policy.
func (p *fsyncPolicy) writeOptions() *opt.WriteOptions {
	if p.get() == "always" {
		return syncWrites
	}
	return noSyncWrites
}

// SetFsync changes appendfsync while the store runs (CONFIG SET appendfsync). Commits after
// it follow the new policy; what was committed before under everysec or no is synced at the
// next tick of the once-a-second loop (which runs under every policy and syncs only under
// everysec) or, switching to always, by the next commit's sync, which flushes the journal.
// LevelDB's write merging keeps the setting the store opened with.
func (s *Store) SetFsync(mode string) { s.fsync.set(mode) }

// Fsync returns the appendfsync policy in force.
func (s *Store) Fsync() string { return s.fsync.get() }
