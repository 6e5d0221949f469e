package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
)

// slowLog keeps the commands that ran longer than slowlog-log-slower-than microseconds, newest
// first, at most slowlog-max-len of them (Redis's slow log). The two limits are read from the
// configuration when it changes, so a command pays one atomic load when it is fast.
type slowLog struct {
	threshold atomic.Int64 // microseconds; negative: off
	maxLen    atomic.Int64

	mu      sync.Mutex
	nextID  int64
	entries []commands.SlowLogEntry // newest last
}

func (s *Server) applySlowLogConfig(cfg *config.Config) {
	get := func(name string, def int64) int64 {
		if v, ok := cfg.Get(name); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n
			}
		}
		return def
	}
	s.slow.threshold.Store(get("slowlog-log-slower-than", 10000))
	s.slow.maxLen.Store(get("slowlog-max-len", 128)) // applied at the next entry, as in Redis
}

// slowLogCall logs a call of cmd with args by client cl that took d, if it was slow enough.
// EXEC is not logged: the commands it ran are.
func (s *Server) slowLogCall(cl *commands.Client, cmd *commands.Command, args [][]byte, d time.Duration) {
	limit := s.slow.threshold.Load()
	us := d.Microseconds()
	if limit < 0 || us < limit || cmd == nil || cmd.Name == "exec" {
		return
	}
	e := commands.SlowLogEntry{Time: time.Now().Unix(), Duration: us, Args: commands.SlowLogArgs(cmd, args),
		Peer: cl.Addr, Name: cl.Name}
	s.slow.mu.Lock()
	e.ID = s.slow.nextID
	s.slow.nextID++
	s.slow.entries = append(s.slow.entries, e)
	s.slow.trim()
	s.slow.mu.Unlock()
}

// trim drops the oldest entries past maxLen; the caller holds mu.
func (l *slowLog) trim() {
	if over := len(l.entries) - int(l.maxLen.Load()); over > 0 {
		l.entries = append(l.entries[:0:0], l.entries[over:]...)
	}
}

// SlowLog returns up to n entries, newest first (n < 0: all) (commands.SlowLogger).
func (s *Server) SlowLog(n int) []commands.SlowLogEntry {
	s.slow.mu.Lock()
	defer s.slow.mu.Unlock()
	if n < 0 || n > len(s.slow.entries) {
		n = len(s.slow.entries)
	}
	out := make([]commands.SlowLogEntry, n)
	for i := range out {
		out[i] = s.slow.entries[len(s.slow.entries)-1-i]
	}
	return out
}

// SlowLogLen returns the number of entries (commands.SlowLogger).
func (s *Server) SlowLogLen() int {
	s.slow.mu.Lock()
	defer s.slow.mu.Unlock()
	return len(s.slow.entries)
}

// SlowLogReset empties the slow log (commands.SlowLogger).
func (s *Server) SlowLogReset() {
	s.slow.mu.Lock()
	s.slow.entries = nil
	s.slow.mu.Unlock()
}

var _ commands.SlowLogger = (*Server)(nil)
