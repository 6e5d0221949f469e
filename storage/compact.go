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

// StartCompact compacts logical database db (its metadata, expiry entries and the collection
// sub-key range), or the whole keyspace when db is negative, in the background. It reports false
// when a compaction is already running.
func (s *Store) StartCompact(db int) bool {
	if !s.compact.running.CompareAndSwap(false, true) {
		return false
	}
	var ranges []util.Range
	if db < 0 {
		ranges = []util.Range{{}}
	} else {
		s.global.RLock()
		ranges = []util.Range{*util.BytesPrefix(metaPrefix(s.dbmap[db])), *util.BytesPrefix([]byte{tagData}),
			*util.BytesPrefix([]byte{tagExpire})}
		s.global.RUnlock()
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.compact.running.Store(false)
		start := time.Now()
		msg := ""
		for _, r := range ranges {
			if err := s.db().CompactRange(r); err != nil {
				msg = err.Error()
				s.log.Error("compaction failed", "err", err)
				break
			}
		}
		s.compact.lastNano.Store(int64(time.Since(start)))
		s.compact.lastErr.Store(msg)
		s.compact.runs.Add(1)
		s.log.Info("compaction finished", "db", db, "duration", time.Since(start))
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
