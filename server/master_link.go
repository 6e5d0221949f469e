package server

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/replication"
)

// The pieces of a replica link around its sender: the reader of the replica's ACKs, the writer
// that bounds each write by repl-timeout, and what INFO replication, ROLE, CLIENT LIST, WAIT and
// min-replicas-to-write read of the linked replicas.

// startReader starts, once, the goroutine that reads the replica's requests: REPLCONF ACK
// moves its acknowledged offset and wakes WAIT; the rest is ignored. It closes l.done when the
// connection ends.
func (l *replicaLink) startReader(s *Server) {
	l.reader.Do(func() {
		go func() {
			defer close(l.done)
			rr := replication.NewRequestReader(l.c.conn.NetConn(), 1<<20)
			for {
				args, err := rr.Next()
				if err != nil {
					return
				}
				if len(args) < 3 || !strings.EqualFold(string(args[0]), "replconf") || !strings.EqualFold(string(args[1]), "ack") {
					continue
				}
				off, err := strconv.ParseInt(string(args[2]), 10, 64)
				if err != nil {
					continue
				}
				l.ackOff.Store(off)
				l.ackAt.Store(time.Now().UnixNano())
				l.c.x.lastActive.Store(time.Now().UnixNano())
				l.ackOnce.Do(func() { close(l.firstAck) })
				s.repl.mu.Lock()
				close(s.repl.m.acks)
				s.repl.m.acks = make(chan struct{})
				s.repl.mu.Unlock()
			}
		}()
	})
}

// linkWriter writes to a replica's socket, each write bounded by the link's timeout, counting
// the bytes as replication output.
type linkWriter struct {
	s       *Server
	conn    net.Conn
	timeout time.Duration
}

func (w *linkWriter) Write(p []byte) (int, error) {
	select {
	case <-w.s.closing: // the server stops: a snapshot being sent is abandoned
		return 0, errLinkCut
	default:
	}
	w.conn.SetWriteDeadline(time.Now().Add(w.timeout))
	n, err := w.conn.Write(p)
	w.s.repl.m.replOut.Add(int64(n))
	return n, err
}

// countWriter counts what passes through it.
type countWriter struct {
	w interface{ Write([]byte) (int, error) }
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// configBool reads a yes/no directive.
func configBool(cfg interface{ Get(string) (string, bool) }, name string) bool {
	v, _ := cfg.Get(name)
	return v == "yes"
}

// linkedReplicas returns the replicas linked now, in no particular order.
func (s *Server) linkedReplicas() []*replicaLink {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	out := make([]*replicaLink, 0, len(s.repl.m.replicas))
	for l := range s.repl.m.replicas {
		out = append(out, l)
	}
	return out
}

// replicaLinkStats is INFO replication's slaveN line.
func (l *replicaLink) stats(now time.Time) ReplicaLinkStats {
	st := l.state.Load()
	ls := ReplicaLinkStats{IP: l.ip, Port: l.port, State: linkStateNames[st], Offset: l.ackOff.Load()}
	if st == linkOnline {
		ls.Lag = int64(now.Sub(time.Unix(0, l.ackAt.Load())) / time.Second)
	}
	return ls
}

// goodReplicas counts the online replicas whose last ACK is at most maxLag seconds old, in the
// whole seconds of INFO's lag, which min_slaves_good_slaves counts too: as in Redis, a replica
// stays good until maxLag+1 seconds have passed.
func (s *Server) goodReplicas(maxLag int64) int {
	now := time.Now()
	n := 0
	for _, l := range s.linkedReplicas() {
		if l.state.Load() == linkOnline && l.stats(now).Lag <= maxLag {
			n++
		}
	}
	return n
}

// minReplicas is min-replicas-to-write and min-replicas-max-lag as read from cfg, a
// configuration snapshot: a write reads them without parsing them again until CONFIG SET
// replaces the snapshot.
type minReplicas struct {
	cfg          *config.Config
	need, maxLag int64
}

// noReplicasRefusal is min-replicas-to-write's gate on a master: NOREPLICAS for a write while
// fewer than that many replicas acknowledged within min-replicas-max-lag seconds. Either
// directive at 0 turns it off, as in Redis.
func (s *Server) noReplicasRefusal(write bool) string {
	if !write || s.repl.replica.Load() != nil {
		return ""
	}
	cfg := s.Config()
	mr := s.x.minReplicas.Load()
	if mr == nil || mr.cfg != cfg {
		mr = &minReplicas{cfg: cfg, need: configInt(cfg, "min-replicas-to-write", 0), maxLag: configInt(cfg, "min-replicas-max-lag", 10)}
		s.x.minReplicas.Store(mr)
	}
	if mr.need <= 0 || mr.maxLag <= 0 {
		return ""
	}
	if int64(s.goodReplicas(mr.maxLag)) < mr.need {
		return commands.ErrNoReplicas
	}
	return ""
}

// replicaRoles is ROLE's list of a master's replicas.
func (s *Server) replicaRoles() []commands.ReplicaRole {
	var out []commands.ReplicaRole
	for _, l := range s.linkedReplicas() {
		if l.state.Load() == linkOnline {
			out = append(out, commands.ReplicaRole{IP: l.ip, Port: l.port, Offset: l.ackOff.Load()})
		}
	}
	return out
}

// Wait implements WAIT numreplicas timeout: it asks the replicas for an ACK and blocks until
// numreplicas of them acknowledged the stream up to the offset it started at, or timeout (0:
// forever) passes, and answers how many did. Inside a transaction, where nothing blocks, it
// answers at once.
func (s *Server) WaitReplicas(ctx *commands.Ctx, want int64, timeout time.Duration) {
	if s.repl.replica.Load() != nil {
		ctx.W.Error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		return
	}
	r := &s.repl
	r.mu.Lock()
	target := r.ids.Offset
	acked := func() int64 {
		var n int64
		for l := range r.m.replicas {
			if l.state.Load() == linkOnline && l.ackOff.Load() >= target {
				n++
			}
		}
		return n
	}
	n := acked()
	if n >= want || ctx.OnBlock == nil || timeout < 0 {
		r.mu.Unlock()
		ctx.W.Int(n)
		return
	}
	if len(r.m.replicas) > 0 {
		s.appendStream(replication.AppendCommand(nil, [][]byte{[]byte("REPLCONF"), []byte("GETACK"), []byte("*")}))
	}
	r.mu.Unlock()
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	c := clientOf(ctx)
	check := time.NewTicker(100 * time.Millisecond) // a killed client stops waiting
	defer check.Stop()
	for {
		r.mu.Lock()
		n = acked()
		ch := r.m.acks
		r.mu.Unlock()
		if n >= want {
			break
		}
		select {
		case <-ch:
			continue
		case <-check.C:
			if c != nil && c.x.killed.Load() {
				ctx.W.Int(n)
				return
			}
			continue
		case <-s.closing:
		case <-deadline:
		}
		break
	}
	ctx.W.Int(n)
}

// ReplicasShort implements commands.WriteGate: min-replicas-to-write refuses writes now.
func (s *Server) ReplicasShort() bool { return s.noReplicasRefusal(true) != "" }

// ReplicaReadOnly implements commands.WriteGate: the server is a replica that refuses writes.
func (s *Server) ReplicaReadOnly() bool {
	if s.repl.replica.Load() == nil {
		return false
	}
	v, _ := s.Config().Get("replica-read-only")
	return v == "yes"
}
