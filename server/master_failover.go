package server

import (
	"net"
	"strconv"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/replication"
)

// FAILOVER, the coordinated failover of Redis 7.0: the master holds writes (a CLIENT PAUSE
// WRITE), waits until a replica (the one named, or any) has acknowledged the whole stream,
// then becomes a replica of it with PSYNC <replid> <offset> FAILOVER, which the replica
// answers by becoming a master first, so that the old master continues partially. A timeout
// passed waiting aborts it (or, with FORCE, goes on regardless); so does ABORT.

// The failover states INFO replication names (master_failover_state).
const (
	failoverNone       = "no-failover"
	failoverWaiting    = "waiting-for-sync"
	failoverInProgress = "failover-in-progress"
)

// failoverState is the failover under way, under replState.mu.
type failoverState struct {
	state string // "" for none
	abort chan struct{}
}

// failoverStateName is master_failover_state.
func (s *Server) failoverStateName() string {
	if st := s.repl.fo.state; st != "" {
		return st
	}
	return failoverNone
}

// Failover implements FAILOVER.
func (s *Server) Failover(ctx *commands.Ctx, o commands.FailoverOptions) {
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	if o.Abort {
		if r.fo.state == "" {
			ctx.W.Error("ERR No failover in progress.")
			return
		}
		close(r.fo.abort)
		r.fo.abort = make(chan struct{}) // closed once
		ctx.W.OK()
		return
	}
	switch {
	case r.fo.state != "":
		ctx.W.Error("ERR FAILOVER already in progress.")
		return
	case s.repl.replica.Load() != nil:
		ctx.W.Error("ERR FAILOVER is not valid when server is a replica.")
		return
	case len(r.m.replicas) == 0:
		ctx.W.Error("ERR FAILOVER requires connected replicas.")
		return
	case o.Force && (o.Host == "" || o.Timeout <= 0):
		ctx.W.Error("ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
		return
	}
	online := 0
	var target *replicaLink
	for l := range r.m.replicas {
		if l.state.Load() == linkOnline {
			online++
		}
		if o.Host != "" && l.ip == o.Host && l.port == o.Port {
			target = l
		}
	}
	switch {
	case online == 0:
		ctx.W.Error("ERR FAILOVER requires connected replicas.")
		return
	case o.Host != "" && target == nil:
		ctx.W.Error("ERR FAILOVER target HOST and PORT is not a replica.")
		return
	case target != nil && target.state.Load() != linkOnline:
		ctx.W.Error("ERR FAILOVER target replica is not online.")
		return
	}
	r.fo = failoverState{state: failoverWaiting, abort: make(chan struct{})}
	go s.runFailover(target, o, r.fo.abort)
	ctx.W.OK()
}

// runFailover waits for a replica to catch up with writes held, then hands over to it.
func (s *Server) runFailover(target *replicaLink, o commands.FailoverOptions, abort chan struct{}) {
	r := &s.repl
	s.Pause(24*time.Hour, false) // writes wait; lifted below in every case
	defer s.Unpause()
	end := func() {
		r.mu.Lock()
		r.fo = failoverState{}
		r.mu.Unlock()
	}
	var deadline <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	r.mu.Lock()
	goal := r.ids.Offset
	s.appendStream(replication.AppendCommand(nil, [][]byte{[]byte("REPLCONF"), []byte("GETACK"), []byte("*")}))
	r.mu.Unlock()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for chosen := (*replicaLink)(nil); chosen == nil; {
		select {
		case <-abort:
			end()
			return
		case <-s.closing:
			end()
			return
		case <-deadline:
			if !o.Force {
				s.log.Warn("FAILOVER aborted: no replica caught up in time")
				end()
				return
			}
			chosen = target
		case <-tick.C:
			for _, l := range s.linkedReplicas() {
				if (target == nil || l == target) && l.state.Load() == linkOnline && l.ackOff.Load() >= goal {
					chosen = l
					break
				}
			}
		}
		if chosen != nil {
			target = chosen
		}
	}
	r.mu.Lock()
	r.fo.state = failoverInProgress
	r.mu.Unlock()
	s.repl.failoverNext.Store(true) // startReplica: the first PSYNC says FAILOVER
	host, port := target.ip, target.port
	if _, err := s.ReplicaOf(host, port); err != nil {
		s.log.Warn("FAILOVER: could not follow the new master", "err", err)
		end()
		return
	}
	s.log.Info("FAILOVER: following the new master", "master", net.JoinHostPort(host, strconv.Itoa(port)))
	// The failover ends when the link is up; if it cannot be made, this server is a master
	// again (Redis aborts the same way).
	wait := time.After(max(o.Timeout, 10*time.Second))
	for {
		rp := s.repl.replica.Load()
		if rp == nil {
			end()
			return
		}
		if rp.State() == replication.StateConnected {
			end()
			return
		}
		select {
		case <-wait:
			s.log.Warn("FAILOVER: the new master did not accept this server; it is a master again")
			s.ReplicaOf("", 0)
			end()
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}
