package server

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/strata-db/strata/replication"
	"github.com/strata-db/strata/storage"
)

// replState is the server's replication identity and backlog, and, on a replica, its link to
// the master (replica.go). A master serves no replicas yet: the backlog stays unallocated and
// the offset where it was, and INFO replication and ROLE report that state from here.
type replState struct {
	mu      sync.Mutex
	ids     replication.IDs
	backlog *replication.Backlog

	change  sync.Mutex                          // serialises REPLICAOF
	replica atomic.Pointer[replication.Replica] // the link to the master; nil on a master
	// The master client and the point its command reaches, used by the link's goroutine.
	master atomic.Pointer[client] // read by CLIENT LIST and CLIENT KILL too
	at     replication.Point
	stamp  func(*storage.Txn) // replicaHost.stamp, made once
}

func (s *Server) initReplication() {
	size := 1 << 20
	if v, ok := s.cfg.Get("repl-backlog-size"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			size = n
		}
	}
	s.repl.ids = replication.NewIDs()
	s.repl.backlog = replication.NewBacklog(size, 1)
}

// replicationStats is INFO replication's view of replState.
func (s *Server) replicationStats() ReplicationStats {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	b := s.repl.backlog
	if v, ok := s.Config().Get("repl-backlog-size"); ok { // CONFIG SET resizes the ring
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n != b.Size() {
			b.Resize(n)
		}
	}
	var first int64 // 0 while the ring is unallocated
	if b.Active() {
		first = b.First()
	}
	r := ReplicationStats{
		Role:          "master",
		ID:            s.repl.ids.ID,
		ID2:           s.repl.ids.ID2,
		Offset:        s.repl.ids.Offset,
		SecondOffset:  s.repl.ids.SecondOffset,
		BacklogActive: b.Active(),
		BacklogSize:   b.Size(),
		BacklogFirst:  first,
		BacklogHist:   b.HistLen(),
	}
	if rp := s.repl.replica.Load(); rp != nil {
		s.replicaStats(rp, &r) // replica.go
	}
	return r
}

// ChangeReplicationID starts a new replication history at the current offset and forgets the
// second ID (DEBUG CHANGE-REPL-ID).
func (s *Server) ChangeReplicationID() {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	s.repl.ids.ID = replication.NewID()
	s.repl.ids.ID2, s.repl.ids.SecondOffset = replication.NoID, -1
}
