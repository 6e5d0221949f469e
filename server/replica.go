package server

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/replication"
	"github.com/strata-db/strata/storage"
)

// The replica side of replication, as the server wires it: REPLICAOF and the replicaof
// directive start a replication.Replica, which applies the master's stream through
// replicaHost as the master client (a client of the server without a connection, never
// refused by a gate, its replies discarded); replicaRefusal is the gate that answers READONLY
// and MASTERDOWN to the other clients. A full synchronisation loads beside the live keyspace
// (replication.Load), so clients read the data of before until it is installed. The point each applied write reaches is
// committed in the write's own batch (replication.PointRecord, through Ctx.BeforeCommit), and
// once more on a clean shutdown, so a restarted replica continues with a partial
// resynchronisation from exactly what its keyspace holds.

// replicaHost is the server as replication.Host.
type replicaHost struct{ s *Server }

// Store returns the server's keyspace.
func (h replicaHost) Store() *storage.Store { return h.s.store }

// ResetMaster starts a new master client in database db, with no transaction.
func (h replicaHost) ResetMaster(db int) {
	s := h.s
	old := s.repl.master.Load()
	if old != nil {
		s.dropTx(old)
	}
	mc := &client{}
	mc.ID = s.nextID.Add(1)
	mc.Proto, mc.w.Proto = 2, 2
	mc.Authed = true
	mc.User = "default"
	if db < s.store.Databases() {
		mc.DB = db
	}
	mc.Client.Conn = mc
	if rp := s.repl.replica.Load(); rp != nil {
		host, port := rp.Master()
		mc.Addr = net.JoinHostPort(host, strconv.Itoa(port))
	} else if old != nil {
		mc.Addr = old.Addr
	}
	now := time.Now()
	mc.x.created, mc.x.fd = now, -1
	mc.x.lastActive.Store(now.UnixNano())
	mc.x.pub = mc.Client
	s.repl.master.Store(mc)
	if s.repl.stamp == nil {
		s.repl.stamp = h.stamp
	}
}

// Replaced marks every client that watches a key and flushes the tracking table: a full
// synchronisation replaced the whole keyspace.
func (h replicaHost) Replaced() {
	s := h.s
	s.tx.mu.Lock()
	for _, set := range s.tx.watched {
		for c := range set {
			c.tx.dirty.Store(true)
		}
	}
	s.tx.mu.Unlock()
	if s.trk.armed.Load() {
		s.trackFlush() // tracking.go
	}
}

// stamp is the master client's Ctx.BeforeCommit: it stages the point the stream reaches with
// the command's writes.
func (h replicaHost) stamp(t *storage.Txn) {
	at := &h.s.repl.at
	if at.ID == "" {
		t.PutSystemRecord(replication.PointRecord, nil)
		return
	}
	t.PutSystemRecord(replication.PointRecord, at.Record())
}

// Apply runs one command of the master's stream as the master client.
func (h replicaHost) Apply(args [][]byte, at replication.Point) {
	s := h.s
	c := s.repl.master.Load()
	s.repl.at = at
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	defer func() {
		if r := recover(); r != nil { // panics.go: the command is dropped, the stream goes on
			s.clientPanic(r, "applying the master's stream", c.ID, quoteArgs(args))
		}
		c.w.Reset()
	}()
	ctx := &c.ctx
	*ctx = commands.Ctx{Args: args, Client: &c.Client, Store: s.store, W: &c.w, Env: s,
		OnWrite: s.tx.onWrite, KE: &s.ke, BeforeCommit: s.repl.stamp, KeepExpired: true}
	st := cmdState{cmd: commands.Lookup(args[0]), start: time.Now()}
	ctx.Now = st.start.UnixMilli()
	if !c.tx.active || !s.gate(c, &st) { // multi.go: queued after MULTI, run by EXEC
		commands.Dispatch(ctx, false)
		s.afterDispatch(c)
	}
	if len(ctx.Ready) > 0 && totalWaiters.Load() > 0 {
		s.serveReady(ctx.Ready) // blocking.go
	}
	if r := c.w.Bytes(); len(r) > 0 && r[0] == '-' {
		s.log.Warn("command from the master failed", "command", string(args[0]), "reply", strings.TrimSpace(string(r)))
	}
	c.x.lastActive.Store(st.start.UnixNano())
	c.x.mu.Lock() // for CLIENT LIST
	c.x.pub = c.Client
	if st.cmd != nil {
		c.x.lastCmd = st.cmd.Name
	}
	c.x.mu.Unlock()
}

// masterClientInfo is the master client as CLIENT LIST shows it (flag M), on a replica whose
// link is up.
func (s *Server) masterClientInfo() (commands.ClientInfo, bool) {
	rp, mc := s.repl.replica.Load(), s.repl.master.Load()
	if rp == nil || mc == nil || rp.State() != replication.StateConnected {
		return commands.ClientInfo{}, false
	}
	ci := mc.info()
	ci.Flags = "M"
	return ci, true
}

// killMaster closes the link to the master when id is the master client's (CLIENT KILL); the
// replica reconnects and continues partially.
func (s *Server) killMaster(id int64) bool {
	rp, mc := s.repl.replica.Load(), s.repl.master.Load()
	if rp == nil || mc == nil || mc.ID != id {
		return false
	}
	return rp.KillLink()
}

// startReplica begins replicating from host:port, continuing from resume.
func (s *Server) startReplica(host string, port int, resume replication.Point) {
	cfg := s.Config()
	timeout := 60
	if v, ok := cfg.Get("repl-timeout"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			timeout = n
		}
	}
	user, _ := cfg.Get("masteruser")
	pass, _ := cfg.Get("masterauth")
	lport := 0
	if s.ln != nil {
		if a, ok := s.ln.Addr().(*net.TCPAddr); ok {
			lport = a.Port
		}
	}
	if v, _ := cfg.Get("replica-announce-port"); v != "0" {
		lport, _ = strconv.Atoi(v)
	}
	announceIP, _ := cfg.Get("replica-announce-ip")
	h := replicaHost{s}
	s.store.SetExpireByMaster(true) // the master expires keys and sends their DEL
	s.repl.master.Store(&client{Client: commands.Client{Addr: net.JoinHostPort(host, strconv.Itoa(port))}})
	h.ResetMaster(resume.DB)
	s.repl.replica.Store(replication.Start(replication.Options{
		Host: h, MasterHost: host, MasterPort: port, User: user, Password: pass,
		ListeningPort: lport, AnnounceIP: announceIP, Timeout: time.Duration(timeout) * time.Second,
		MaxBulkLen: cfg.ProtoMaxBulkLen, Resume: resume, Logger: s.log,
		Failover: s.repl.failoverNext.Swap(false), // master_failover.go
	}))
}

// stopReplica ends the link, if any, and returns the point it reached.
func (s *Server) stopReplica() (replication.Point, bool) {
	rp := s.repl.replica.Swap(nil)
	if rp == nil {
		return replication.Point{}, false
	}
	pt := rp.Stop()
	s.store.SetExpireByMaster(false)
	return pt, true
}

// ReplicaOf implements REPLICAOF: host "" makes the server a master again, keeping its data
// and continuing the history it followed under a new replication ID (the old one becomes its
// second ID).
func (s *Server) ReplicaOf(host string, port int) (bool, error) {
	s.repl.change.Lock()
	defer s.repl.change.Unlock()
	cur := s.repl.replica.Load()
	if host == "" {
		if pt, ok := s.stopReplica(); ok {
			s.repl.mu.Lock()
			if pt.ID != "" {
				s.repl.ids.ID, s.repl.ids.Offset = pt.ID, pt.Offset
			}
			s.repl.ids.Shift()
			if s.repl.backlog.End() != s.repl.ids.Offset+1 { // else it holds the relayed stream (master.go)
				s.repl.backlog = replication.NewBacklog(s.repl.backlog.Size(), s.repl.ids.Offset+1)
			}
			s.repl.m.lastDB = -1
			s.repl.mu.Unlock()
			// Its writes extend the history its former siblings continue (master.go).
			s.startFeeding()
			// Its own writes follow, which no point covers.
			if err := s.store.PutSystemRecord(replication.PointRecord, nil); err != nil {
				return false, err
			}
			s.log.Info("replication stopped: this server is a master")
		}
		s.setReplicaOfConfig("")
		return false, nil
	}
	if cur != nil {
		if h, p := cur.Master(); h == host && p == port {
			return true, nil
		}
	}
	resume := replication.Point{}
	if pt, ok := s.stopReplica(); ok {
		resume = pt
	} else {
		s.repl.mu.Lock()
		resume = replication.Point{ID: s.repl.ids.ID, Offset: s.repl.ids.Offset}
		s.repl.mu.Unlock()
	}
	s.dropReplicas() // master.go: they resynchronise with the new history
	s.startReplica(host, port, resume)
	s.setReplicaOfConfig(host + " " + strconv.Itoa(port))
	s.log.Info("replicating", "master", net.JoinHostPort(host, strconv.Itoa(port)))
	return false, nil
}

// setReplicaOfConfig records the master in the running configuration, for CONFIG GET and
// CONFIG REWRITE.
func (s *Server) setReplicaOfConfig(v string) {
	cfg := *s.liveConfig()
	if cfg.ReplicaOf == v {
		return
	}
	if err := cfg.Set("replicaof", strings.Fields(v)); err == nil {
		s.SetConfig(&cfg)
	}
}

// Role implements ROLE.
func (s *Server) Role() commands.RoleInfo {
	rp := s.repl.replica.Load()
	if rp == nil {
		s.repl.mu.Lock()
		off := s.repl.ids.Offset
		s.repl.mu.Unlock()
		return commands.RoleInfo{Master: true, Offset: off, Replicas: s.replicaRoles()} // master_link.go
	}
	st := rp.Status()
	ri := commands.RoleInfo{MasterHost: st.MasterHost, MasterPort: st.MasterPort, State: st.State.String(), Offset: -1}
	if st.State == replication.StateConnected {
		ri.Offset = st.Point.Offset
	}
	return ri
}

// replicaStats fills INFO replication's fields of a replica.
func (s *Server) replicaStats(rp *replication.Replica, r *ReplicationStats) {
	st := rp.Status()
	cfg := s.Config()
	flag := func(name string) bool { v, _ := cfg.Get(name); return v == "yes" }
	prio, _ := cfg.Get("replica-priority")
	p, _ := strconv.Atoi(prio)
	now := time.Now()
	secs := func(t time.Time) int64 {
		if t.IsZero() {
			return -1
		}
		return int64(now.Sub(t) / time.Second)
	}
	rs := &ReplicaStats{MasterHost: st.MasterHost, MasterPort: st.MasterPort,
		LinkUp: st.State == replication.StateConnected, LastIO: -1,
		SyncInProgress: st.State == replication.StateTransfer, SyncTotal: st.SyncTotal, SyncRead: st.SyncRead,
		ReadOffset: st.ReadOffset, Offset: st.Point.Offset, DownSince: secs(st.DownSince),
		Priority: p, ReadOnly: flag("replica-read-only"), Announced: flag("replica-announced")}
	if st.State >= replication.StateTransfer {
		rs.LastIO = secs(st.LastIO)
	}
	r.Role, r.Replica = "slave", rs
	if st.Point.ID != "" {
		r.ID, r.Offset = st.Point.ID, st.Point.Offset
	}
}

// replicaRefusal is the gate of a replica: READONLY for a write while replica-read-only is
// yes, MASTERDOWN for a command not flagged stale while the link is down and
// replica-serve-stale-data is no, or "". Commands the dispatcher refuses (unknown, wrong arity, not authenticated)
// pass, to be answered by it. EXEC is judged by the commands it would run.
func (s *Server) replicaRefusal(c *client, cmd *commands.Command, args [][]byte) string {
	rp := s.repl.replica.Load()
	if cmd == nil || !cmd.CheckArity(len(args)) || !c.Authed && cmd.Flags&commands.FlagNoAuth == 0 ||
		rp == nil && !commands.Writes(cmd, args) && cmd.Name != "exec" {
		return ""
	}
	write, stale := commands.Writes(cmd, args), cmd.Flags&commands.FlagStale != 0
	if cmd.Name == "exec" && c.tx.active {
		for _, q := range c.tx.queue {
			write = write || commands.Writes(q.cmd, q.args)
			stale = stale && q.cmd.Flags&commands.FlagStale != 0
		}
	}
	if rp == nil {
		return s.noReplicasRefusal(write) // master_link.go: min-replicas-to-write
	}
	cfg := s.Config()
	state := rp.State()
	if v, _ := cfg.Get("replica-read-only"); write && v == "yes" {
		return commands.ErrReadOnlyReplica
	}
	if v, _ := cfg.Get("replica-serve-stale-data"); !stale && v == "no" && state != replication.StateConnected {
		return commands.ErrMasterDown
	}
	return ""
}

// refuseOnReplica answers the replica gate's refusal, if any, and reports whether it did. A
// refused command fails the transaction it was to be queued in; a refused EXEC discards it.
func (s *Server) refuseOnReplica(c *client, cmd *commands.Command, args [][]byte) bool {
	msg := s.replicaRefusal(c, cmd, args)
	if msg == "" {
		return false
	}
	if c.tx.active && cmd.Name == "exec" {
		c.w.Error(commands.ErrExecAbortBecause + msg)
		c.tx.endMulti()
		s.unwatchAll(c)
	} else {
		c.w.Error(msg)
		c.tx.aborted = c.tx.active
	}
	return true
}

// resumeReplica starts the link of the replicaof directive, continuing from the point the
// keyspace holds.
func (s *Server) resumeReplica() error {
	if s.cfg.ReplicaOf == "" {
		return nil
	}
	v, err := s.store.SystemRecord(replication.PointRecord)
	if err != nil {
		return err
	}
	resume, _ := replication.ParsePoint(v)
	host, p, _ := strings.Cut(s.cfg.ReplicaOf, " ")
	port, err := strconv.Atoi(p)
	if err != nil {
		return fmt.Errorf("replicaof %q: %w", s.cfg.ReplicaOf, err)
	}
	s.startReplica(host, port, resume)
	return nil
}

// saveReplicaPoint stops the link and saves the point it reached, at shutdown.
func (s *Server) saveReplicaPoint() {
	pt, ok := s.stopReplica()
	if !ok || pt.ID == "" {
		return
	}
	if err := s.store.PutSystemRecord(replication.PointRecord, pt.Record()); err != nil {
		s.log.Warn("could not save the replication offset", "err", err)
	}
}
