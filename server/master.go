package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/replication"
	"github.com/strata-db/strata/storage"
)

// The master side of replication. The first replica that introduces itself (REPLCONF) or asks
// to synchronise installs feed as the server's propagation receiver (propagate.go): from then
// on every committed write is encoded as RESP, preceded by SELECT when its database differs
// from the last one sent, appended to the backlog and to each replica's pending output, and
// the replica's sender is woken. A replica connection is served by the goroutine that ran its
// PSYNC or SYNC for as long as the link lives: it answers +CONTINUE and the backlog from the
// offset asked for, or +FULLRESYNC and an RDB encoded from a storage snapshot taken at an
// offset that every write committed before it has advanced and none after it has, then sends
// the pending stream; a second goroutine reads the replica's REPLCONF ACKs. A replica whose
// pending output passes client-output-buffer-limit replica is disconnected and resynchronises.
// Once a second, replCron pings the replicas every repl-ping-replica-period seconds and frees the
// backlog after repl-backlog-ttl seconds without replicas.

// The states of a replica, as INFO replication names them.
const (
	linkWaitBgsave int32 = iota
	linkSendBulk
	linkOnline
)

var linkStateNames = [...]string{"wait_bgsave", "send_bulk", "online"}

// replicaLink is one replica connection as its master sees it. It is created by the replica's
// first REPLCONF (or its PSYNC) and serves the link from PSYNC on.
type replicaLink struct {
	c        *client
	ip       string      // REPLCONF ip-address, else the connection's address
	port     int         // REPLCONF listening-port
	capaEOF  bool        // takes a diskless payload ($EOF:<mark>)
	psync2   bool        // takes +CONTINUE <replid>
	serving  atomic.Bool // PSYNC or SYNC accepted: the connection is a replica
	state    atomic.Int32
	ackOff   atomic.Int64
	ackAt    atomic.Int64 // unix nanoseconds of the last ACK, or of the start of the link
	wake     chan struct{}
	firstAck chan struct{} // closed by the first ACK
	ackOnce  sync.Once
	done     chan struct{} // closed when the reader of the replica's requests stops
	reader   sync.Once

	// Under replState.mu.
	pending   []byte
	cut       bool      // past client-output-buffer-limit replica
	softSince time.Time // when pending passed the soft limit
}

// masterState is replState's master side.
type masterState struct {
	replicas   map[*replicaLink]struct{} // linked replicas, under replState.mu
	lastDB     int                       // the stream's database, -1 to send SELECT next
	feeding    bool                      // feed is installed
	feedBuf    []byte
	emptySince time.Time     // when the last replica left
	acks       chan struct{} // closed and replaced by every ACK, for WAIT

	syncFull, partialOK, partialErr atomic.Int64
	replOut                         atomic.Int64 // bytes sent to replicas (total_net_repl_output_bytes)
}

// linkOf returns the replica state of c, creating it.
func (s *Server) linkOf(c *client) *replicaLink {
	if l := c.rep.Load(); l != nil {
		return l
	}
	host, _, _ := net.SplitHostPort(c.Addr)
	l := &replicaLink{c: c, ip: host, wake: make(chan struct{}, 1),
		firstAck: make(chan struct{}), done: make(chan struct{})}
	c.rep.Store(l)
	return l
}

// startFeeding installs feed as the propagation receiver, once.
func (s *Server) startFeeding() {
	r := &s.repl
	r.mu.Lock()
	if r.m.feeding {
		r.mu.Unlock()
		return
	}
	r.m.feeding = true
	r.m.lastDB = -1
	if r.m.replicas == nil {
		r.m.replicas = map[*replicaLink]struct{}{}
	}
	r.m.acks = make(chan struct{})
	r.mu.Unlock()
	s.SetPropagate(s.feed)
	go s.replCron()
}

// feed is the propagation receiver of a master with a backlog: it appends the effects of one
// committed batch to the stream. A replica's own writes (replica-read-only no) reach no one.
func (s *Server) feed(db int, effects [][][]byte) {
	if s.repl.replica.Load() != nil {
		return
	}
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.m.feedBuf[:0]
	if db != r.m.lastDB {
		b = replication.AppendCommand(b, [][]byte{[]byte("SELECT"), strconv.AppendInt(nil, int64(db), 10)})
		r.m.lastDB = db
	}
	for _, argv := range effects {
		b = replication.AppendCommand(b, argv)
		if len(argv) == 2 && strings.EqualFold(string(argv[0]), "select") {
			// A transaction's or script's block changed databases: the stream goes on in
			// the last one.
			if n, err := strconv.Atoi(string(argv[1])); err == nil {
				r.m.lastDB = n
			}
		}
	}
	s.appendStream(b)
	if cap(b) <= 64<<10 {
		r.m.feedBuf = b
	} else {
		r.m.feedBuf = nil
	}
}

// appendStream adds b to the backlog and to every replica's pending output, advancing the
// offset, and wakes the senders. The caller holds replState.mu.
func (s *Server) appendStream(b []byte) {
	r := &s.repl
	r.backlog.Append(b)
	r.ids.Offset += int64(len(b))
	if len(r.m.replicas) == 0 {
		return
	}
	lim := s.Config().OutputLimits("replica")
	for l := range r.m.replicas {
		if l.cut {
			continue
		}
		l.pending = append(l.pending, b...)
		n := int64(len(l.pending))
		switch {
		case lim.Hard > 0 && n > lim.Hard:
			l.cut = true
		case lim.Soft > 0 && n > lim.Soft:
			if l.softSince.IsZero() {
				l.softSince = time.Now()
			} else if time.Since(l.softSince) > time.Duration(lim.SoftSeconds)*time.Second {
				l.cut = true
			}
		default:
			l.softSince = time.Time{}
		}
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// replCron pings the replicas every repl-ping-replica-period seconds, so that they see a live
// link, and frees the backlog (starting a new history, since the old one cannot be continued)
// once there has been no replica for repl-backlog-ttl seconds. It runs once a second until the
// server closes or the backlog is freed.
func (s *Server) replCron() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var ticks int64
	for {
		select {
		case <-s.closing:
			return
		case <-t.C:
		}
		ticks++
		cfg := s.Config()
		period, ttl := configInt(cfg, "repl-ping-replica-period", 10), configInt(cfg, "repl-backlog-ttl", 3600)
		r := &s.repl
		r.mu.Lock()
		if len(r.m.replicas) > 0 && s.repl.replica.Load() == nil && ticks%max(period, 1) == 0 {
			s.appendStream(replication.AppendCommand(nil, [][]byte{[]byte("PING")}))
		}
		free := len(r.m.replicas) == 0 && ttl > 0 && !r.m.emptySince.IsZero() && s.repl.replica.Load() == nil &&
			time.Since(r.m.emptySince) > time.Duration(ttl)*time.Second
		if free {
			r.m.feeding = false
			r.ids = replication.IDs{ID: replication.NewID(), ID2: replication.NoID, Offset: r.ids.Offset, SecondOffset: -1}
			r.backlog = replication.NewBacklog(r.backlog.Size(), r.ids.Offset+1)
		}
		r.mu.Unlock()
		if free {
			s.SetPropagate(nil)
			return
		}
	}
}

// configInt reads an integer directive, or def.
func configInt(cfg interface{ Get(string) (string, bool) }, name string, def int64) int64 {
	if v, ok := cfg.Get(name); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	return def
}

// ReplConf implements REPLCONF: a replica's listening-port, ip-address and capabilities
// before it synchronises, its ACKs after (read by the link's reader, not here), GETACK.
func (s *Server) ReplConf(ctx *commands.Ctx) {
	c := clientOf(ctx)
	if c == nil {
		ctx.W.Error("ERR REPLCONF is not allowed here")
		return
	}
	args := ctx.Args[1:]
	if len(args)%2 != 0 {
		ctx.W.Error(commands.ErrSyntax)
		return
	}
	l := s.linkOf(c)
	for i := 0; i < len(args); i += 2 {
		opt, val := strings.ToLower(string(args[i])), string(args[i+1])
		switch opt {
		case "listening-port":
			p, err := strconv.Atoi(val)
			if err != nil || p < 0 || p > 65535 {
				ctx.W.Error("ERR value is not an integer or out of range")
				return
			}
			l.port = p
		case "ip-address":
			if len(val) >= 46 { // NET_HOST_STR_LEN
				ctx.W.Error("ERR REPLCONF ip-address provided by replica instance is too long: " + strconv.Itoa(len(val)) + " bytes")
				return
			}
			l.ip = val
		case "capa":
			switch strings.ToLower(val) {
			case "eof":
				l.capaEOF = true
			case "psync2":
				l.psync2 = true
			}
		case "ack", "getack":
			return // from a replica that is not linked: no reply, as Redis
		case "rdb-only", "rdb-filter-only":
		default:
			ctx.W.Error("ERR Unrecognized REPLCONF option: " + string(args[i]))
			return
		}
	}
	s.startFeeding() // the backlog starts now, before the PSYNC that follows
	ctx.W.OK()
}

// Sync implements PSYNC replid offset and SYNC: the connection becomes a replica and is served
// here until the link ends.
func (s *Server) Sync(ctx *commands.Ctx, psync bool) {
	c := clientOf(ctx)
	if c == nil || c.guard == nil {
		ctx.W.Error("ERR SYNC is not allowed here")
		return
	}
	if l := c.rep.Load(); l != nil && l.serving.Load() {
		return // already a replica
	}
	if psync && len(ctx.Args) > 3 && strings.EqualFold(string(ctx.Args[3]), "failover") {
		// FAILOVER on the master: this replica takes over first (master_failover.go).
		rp := s.repl.replica.Load()
		if rp == nil {
			ctx.W.Error("ERR PSYNC FAILOVER can't be sent to a master.")
			return
		}
		if rp.Status().Point.ID != string(ctx.Args[1]) {
			ctx.W.Error("ERR PSYNC FAILOVER replid must match my replid.")
			return
		}
		s.log.Warn("failover request received: this server is a master", "from", c.Addr)
		if _, err := s.ReplicaOf("", 0); err != nil {
			ctx.W.Error("ERR " + err.Error())
			return
		}
	}
	s.repl.mu.Lock()
	failing := s.repl.fo.state != ""
	s.repl.mu.Unlock()
	if failing {
		ctx.W.Error("NOMASTERLINK Can't SYNC while failing over")
		return
	}
	if rp := s.repl.replica.Load(); rp != nil && rp.State() != replication.StateConnected {
		// A replica serves replicas of its own with the stream it relays (Relay).
		ctx.W.Error("NOMASTERLINK Can't SYNC while not connected with my master")
		return
	}
	var id string
	var offset int64 = -1
	if psync {
		n, err := strconv.ParseInt(string(ctx.Args[2]), 10, 64)
		if err != nil {
			ctx.W.Error(commands.ErrNotInteger)
			return
		}
		id, offset = string(ctx.Args[1]), n
	}
	l := s.linkOf(c)
	l.serving.Store(true)
	s.startFeeding()
	flushConn(c.conn) // what the replica was answered before goes first
	s.serveReplica(l, psync, id, offset)
	c.x.killed.Store(true)
	c.conn.NetConn().Close()
}

// errLinkCut ends a link whose replica was disconnected (output limit, CLIENT KILL).
var errLinkCut = errors.New("replica link cut")

// serveReplica runs one replica link: the synchronisation, then the stream until the link ends.
func (s *Server) serveReplica(l *replicaLink, psync bool, id string, offset int64) {
	r := &s.repl
	conn := l.c.guard.Conn
	timeout := time.Duration(configInt(s.Config(), "repl-timeout", 60)) * time.Second
	w := &linkWriter{s: s, conn: conn, timeout: timeout}
	name := net.JoinHostPort(l.ip, strconv.Itoa(l.port))
	defer func() {
		r.mu.Lock()
		delete(r.m.replicas, l)
		if len(r.m.replicas) == 0 {
			r.m.emptySince = time.Now()
		}
		r.mu.Unlock()
	}()

	// A partial resynchronisation, when the history and the backlog allow it.
	var err error
	partial, reply := false, ""
	r.mu.Lock()
	if psync && r.ids.Continues(id, offset) {
		if first, second, ok := r.backlog.ReadFrom(offset); ok {
			partial = true
			l.pending = append(append(l.pending[:0], first...), second...)
			l.state.Store(linkOnline)
			l.ackAt.Store(time.Now().UnixNano())
			r.m.replicas[l] = struct{}{}
			r.m.partialOK.Add(1)
			reply = "+CONTINUE\r\n"
			if l.psync2 {
				reply = "+CONTINUE " + r.ids.ID + "\r\n"
			}
		}
	}
	if !partial && psync && id != "?" {
		r.m.partialErr.Add(1)
	}
	r.mu.Unlock()
	if partial {
		_, err = io.WriteString(w, reply) // the backlog's bytes follow from the pending output
		s.log.Info("partial resynchronisation accepted", "replica", name, "offset", offset)
	} else {
		err = s.fullSync(l, w, timeout, psync)
	}
	if err == nil {
		err = s.streamToReplica(l, w)
	}
	s.log.Info("replica link closed", "replica", name, "err", err)
}

// fullSync sends the replica a snapshot and, after PSYNC, the offset it stands for (SYNC, the
// old protocol, gets the snapshot alone); the stream since then accumulates in its pending
// output meanwhile.
func (s *Server) fullSync(l *replicaLink, w *linkWriter, timeout time.Duration, psync bool) error {
	r := &s.repl
	var at replication.IDs
	r.relayMu.Lock()
	streamDB := 0
	if rp := r.replica.Load(); rp != nil {
		// This server relays its master's stream, which goes on in the database it has
		// selected: the snapshot's repl-stream-db tells the replica.
		streamDB = rp.Status().Point.DB
	}
	sn, err := s.store.Snapshot(func() {
		r.mu.Lock()
		at = r.ids
		r.m.lastDB = -1 // the replica starts in database 0: the next write selects its own
		l.pending = l.pending[:0]
		l.state.Store(linkWaitBgsave)
		l.ackAt.Store(time.Now().UnixNano())
		r.m.replicas[l] = struct{}{}
		r.m.syncFull.Add(1)
		r.mu.Unlock()
	})
	r.relayMu.Unlock()
	if err != nil {
		return err
	}
	defer sn.Release()
	start := time.Now()
	if psync {
		if _, err := fmt.Fprintf(w, "+FULLRESYNC %s %d\r\n", at.ID, at.Offset); err != nil {
			return err
		}
	}
	l.state.Store(linkSendBulk)
	diskless := l.capaEOF && configBool(s.Config(), "repl-diskless-sync")
	var size int64
	if diskless {
		mark := replication.NewEOFMark()
		if _, err := io.WriteString(w, "$EOF:"+mark+"\r\n"); err != nil {
			return err
		}
		cw := &countWriter{w: w}
		if err := replication.WriteSnapshot(cw, sn, at, streamDB, configBool(s.Config(), "rdbcompression")); err != nil {
			return err
		}
		if _, err := io.WriteString(w, mark); err != nil {
			return err
		}
		size = cw.n
	} else {
		n, err := s.sendSpilled(w, sn, at, streamDB)
		if err != nil {
			return err
		}
		size = n
	}
	sn.Release()
	s.log.Info("full synchronisation sent", "replica", net.JoinHostPort(l.ip, strconv.Itoa(l.port)),
		"offset", at.Offset, "bytes", size, "seconds", time.Since(start).Seconds(), "diskless", diskless)
	if diskless {
		// The replica reads the payload in blocks, possibly past its mark: the stream starts
		// once it says, with its first ACK, that it has loaded it.
		t := time.NewTimer(timeout)
		defer t.Stop()
		l.startReader(s)
		select {
		case <-l.firstAck:
		case <-l.done:
			return errLinkCut
		case <-s.closing:
			return errLinkCut
		case <-t.C:
			return errors.New("no ACK after the snapshot")
		}
	}
	l.ackAt.Store(time.Now().UnixNano())
	l.state.Store(linkOnline)
	return nil
}

// sendSpilled writes the snapshot to a temporary file in the data directory, to learn its
// length, and sends it framed by that length.
func (s *Server) sendSpilled(w io.Writer, sn *storage.Snapshot, at replication.IDs, streamDB int) (int64, error) {
	f, err := os.CreateTemp(s.cfg.Dir, "replsync-*.rdb")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := replication.WriteSnapshot(f, sn, at, streamDB, configBool(s.Config(), "rdbcompression")); err != nil {
		return 0, err
	}
	n, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	if _, err := fmt.Fprintf(w, "$%d\r\n", n); err != nil {
		return 0, err
	}
	_, err = io.Copy(w, bufio.NewReaderSize(f, 256<<10))
	return n, err
}

// streamToReplica sends the replica its pending output as it grows, until the link ends.
func (s *Server) streamToReplica(l *replicaLink, w *linkWriter) error {
	r := &s.repl
	l.startReader(s)
	var spare []byte
	for {
		r.mu.Lock()
		out, cut := l.pending, l.cut
		l.pending = spare[:0]
		r.mu.Unlock()
		if cut {
			s.log.Warn("replica disconnected: client-output-buffer-limit replica", "replica", l.c.Addr)
			return errLinkCut
		}
		if len(out) > 0 {
			if _, err := w.Write(out); err != nil {
				return err
			}
			spare = nil
			if cap(out) <= 1<<20 {
				spare = out
			}
			continue
		}
		spare = out
		select {
		case <-l.wake:
		case <-l.done:
			return errLinkCut
		case <-s.closing:
			return errLinkCut
		}
	}
}

// dropReplicas closes every replica link.
func (s *Server) dropReplicas() {
	for _, l := range s.linkedReplicas() { // master_link.go
		if l.c.x.killed.CompareAndSwap(false, true) {
			l.c.conn.NetConn().Close()
		}
	}
}

// Resynced implements replication.Relay: the master's stream continues from offset under id.
// A partial resynchronisation that goes on where the relayed stream stands keeps the backlog
// and the replicas (under a new ID, the old one kept as the second, as a promotion does); a
// full one, or one that does not match, starts a new backlog and drops the replicas, which
// resynchronise.
func (h replicaHost) Resynced(id string, offset int64, full bool) {
	s := h.s
	s.startFeeding()
	r := &s.repl
	r.mu.Lock()
	keep := !full && r.ids.Offset == offset && r.backlog.End() == offset+1
	drop := !keep || r.ids.ID != id
	switch {
	case keep && r.ids.ID == id:
	case keep:
		r.ids.Shift()
		r.ids.ID = id
	default:
		r.ids = replication.IDs{ID: id, ID2: replication.NoID, Offset: offset, SecondOffset: -1}
		r.backlog = replication.NewBacklog(r.backlog.Size(), offset+1)
	}
	r.m.lastDB = -1
	r.mu.Unlock()
	if drop {
		s.dropReplicas() // they resynchronise and learn the new ID
	}
}

// Hold implements replication.Relay (replState.relayMu).
func (h replicaHost) Hold() { h.s.repl.relayMu.RLock() }

// Release implements replication.Relay.
func (h replicaHost) Release() { h.s.repl.relayMu.RUnlock() }

// Relay implements replication.Relay: one command of the master's stream goes on to this
// server's backlog and replicas as it was received.
func (h replicaHost) Relay(args [][]byte) {
	r := &h.s.repl
	r.mu.Lock()
	b := replication.AppendCommand(r.m.feedBuf[:0], args)
	h.s.appendStream(b)
	if cap(b) <= 64<<10 {
		r.m.feedBuf = b
	}
	r.mu.Unlock()
}
