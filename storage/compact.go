package storage

import (
	"sync/atomic"
	"time"

	"github.com/syndtr/goleveldb/leveldb/util"
)

// CompactStatus reports the current or last manual compaction.
type CompactStatus struct {
	InProgress bool
	Runs       int64
	LastTime   time.Duration
	LastErr    string
}

type compactState struct {
	running  atomic.Bool
	runs     atomic.Int64
	lastNano atomic.Int64
	lastErr  atomic.Value // string
}

// StartCompact compacts the whole keyspace in the background. It reports false when a
// compaction is already running.
func (s *Store) StartCompact() bool {
	if !s.compact.running.CompareAndSwap(false, true) {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.compact.running.Store(false)
		start := time.Now()
		msg := ""
		if err := s.db().CompactRange(util.Range{}); err != nil {
			msg = err.Error()
			s.log.Error("compaction failed", "err", err)
		}
		s.compact.lastNano.Store(int64(time.Since(start)))
		s.compact.lastErr.Store(msg)
		s.compact.runs.Add(1)
		s.log.Info("compaction finished", "duration", time.Since(start))
	}()
	return true
}

// CompactInfo returns the state of manual compactions.
func (s *Store) CompactInfo() CompactStatus {
	st := CompactStatus{InProgress: s.compact.running.Load(), Runs: s.compact.runs.Load(),
		LastTime: time.Duration(s.compact.lastNano.Load())}
	st.LastErr, _ = s.compact.lastErr.Load().(string)
	return st
}
