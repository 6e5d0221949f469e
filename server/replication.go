package server

import (
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

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

	change sync.Mutex // serialises REPLICAOF
	// relayMu is held shared by the link to the master from a command's relay to the end of
	// its apply (replicaHost.Hold), and exclusively while a snapshot for this server's own
	// replicas is taken (fullSync), which so holds exactly what was relayed before it.
	relayMu sync.RWMutex
	replica atomic.Pointer[replication.Replica] // the link to the master; nil on a master
	// The master client and the point its command reaches, used by the link's goroutine.
	master atomic.Pointer[client] // read by CLIENT LIST and CLIENT KILL too
	at     replication.Point
	stamp  func(*storage.Txn) // replicaHost.stamp, made once

	m  masterState   // master.go: the replicas, the stream's database, sync counters
	fo failoverState // master_failover.go: FAILOVER, under mu

	failoverNext atomic.Bool // the next link's first PSYNC says FAILOVER (master_failover.go)
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
		FailoverState: s.failoverStateName(),
		ID:            s.repl.ids.ID,
		ID2:           s.repl.ids.ID2,
		Offset:        s.repl.ids.Offset,
		SecondOffset:  s.repl.ids.SecondOffset,
		BacklogActive: b.Active(),
		BacklogSize:   b.Size(),
		BacklogFirst:  first,
		BacklogHist:   b.HistLen(),
	}
	r.SyncFull, r.PartialOK, r.PartialErr = s.repl.m.syncFull.Load(), s.repl.m.partialOK.Load(), s.repl.m.partialErr.Load()
	r.ReplOutput = s.repl.m.replOut.Load()
	now := time.Now()
	for l := range s.repl.m.replicas { // master.go
		r.Links = append(r.Links, l.stats(now))
	}
	sort.Slice(r.Links, func(i, j int) bool { return r.Links[i].Port < r.Links[j].Port })
	r.Replicas = len(r.Links)
	r.GoodReplicas = -1
	cfg := s.Config()
	if maxLag := configInt(cfg, "min-replicas-max-lag", 10); configInt(cfg, "min-replicas-to-write", 0) > 0 && maxLag > 0 {
		r.GoodReplicas = 0
		for _, l := range r.Links {
			if l.State == "online" && l.Lag <= maxLag {
				r.GoodReplicas++
			}
		}
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
