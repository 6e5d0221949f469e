package server

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"

	"github.com/strata-db/strata/acl"
	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// Version is Strata's release version.
const Version = "0.1.0"

// Server is a running Strata instance.
type Server struct {
	cfg   *config.Config
	log   *slog.Logger
	store *storage.Store
	rs    *redcon.Server
	ln    net.Listener
	done  chan error

	inflight atomic.Int64 // commands running now
	// propagateTo receives committed writes' effects (propagate.go), nil when nothing does.
	propagateTo atomic.Pointer[PropagateFunc]
	// scriptsStopped is set once Close stops running scripts: an EXEC that ran one then
	// commits nothing (multi.go), as the script's own writes are dropped.
	scriptsStopped atomic.Bool
	closing        chan struct{} // closed when the server starts to stop
	stopReq        chan struct{} // closed by SHUTDOWN
	stopOnce       sync.Once

	metrics *metrics
	cron    *cronSpec // compact-cron schedule, nil when off

	nextID  atomic.Int64
	mu      sync.Mutex
	clients map[int64]*client
	stats   stats
	x       serverExtra // clients.go: CLIENT, CONFIG SET, INFO statistics

	tx  txServer           // multi.go: WATCH registry
	ps  psServer           // pubsub.go: subscriptions
	trk trkServer          // tracking.go: CLIENT TRACKING
	ke  commands.KeyEvents // notify classes and watch count, read by write commands

	acl  *acl.Registry  // acl.go: users, requirepass, protected mode
	repl replState      // replication.go: replication ID, offsets, backlog
	slow slowLog        // slowlog.go: SLOWLOG
	mon  monServer      // monitor.go: MONITOR
	lat  latencyMonitor // latency.go: LATENCY
	tls  tlsServer      // tls.go: the tls-port listener

	loops []*eventLoop // evloop.go: io-model loop; nil with io-model goroutine

	panicHook func(point string, input []byte) // panics.go: set by tests before Start
}

type stats struct {
	netIn, netOut     atomic.Int64
	connections       atomic.Int64
	rejected          atomic.Int64
	commandsProcessed atomic.Int64
	panics            atomic.Int64 // panics.go: recovered in goroutines serving clients
}

// client is one connection's state.
type client struct {
	commands.Client
	conn  redcon.Conn
	guard *guardConn // the request guard of a plain or TLS connection
	w     resp.Writer
	ctx   commands.Ctx
	x     clientExtra                 // clients.go
	tx    txState                     // multi.go: MULTI queue and watched keys
	ps    psState                     // pubsub.go: subscriptions and outbound queue
	trk   trkState                    // tracking.go: CLIENT TRACKING
	rep   atomic.Pointer[replicaLink] // master.go: set by REPLCONF or PSYNC
}

// New opens the storage in cfg.Dir and prepares a server; Start begins listening.
func New(cfg *config.Config, logger *slog.Logger) (*Server, error) {
	if logger == nil {
		logger = slog.Default()
	}
	logger, level := leveledLogger(logger, cfg.LogLevel)
	cache := cfg.LevelDBBlockCacheSize
	if cache == 0 {
		cache = -1 // goleveldb reads 0 as "default size"; -1 means no cache
	}
	gcRatio, _ := strconv.ParseFloat(cfg.ValueLogGCRatio, 64) // checked by config; 0 means the default
	st, err := storage.Open(storage.Options{
		Dir:            cfg.Dir,
		Databases:      cfg.Databases,
		BlockSize:      cfg.LevelDBBlockSize,
		WriteBuffer:    cfg.LevelDBWriteBufferSize,
		BlockCache:     cache,
		Compression:    cfg.LevelDBCompression,
		MaxOpenFiles:   cfg.LevelDBMaxOpenFiles,
		BloomBits:      cfg.LevelDBBloomBits,
		Fsync:          cfg.AppendFsync,
		KeyCache:       cfg.KeyCacheSize,
		ActiveExpireHz: cfg.ActiveExpireHz,
		Logger:         logger,

		LargeValueThreshold: int(cfg.LargeValueThreshold),
		ValueLogGCRatio:     gcRatio,
	})
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: logger, store: st, clients: map[int64]*client{},
		closing: make(chan struct{}), stopReq: make(chan struct{})}
	s.initExtra(level)
	s.initTx()
	s.initReplication()
	s.applySlowLogConfig(cfg)
	s.applyLatencyConfig(cfg)
	s.applyListFill(cfg)
	s.applyPackLimits(cfg)
	s.applyStreamLimits(cfg)
	if err := s.initACL(); err != nil { // acl.go: users, requirepass, aclfile
		st.Close()
		return nil, err
	}
	s.metrics = newMetrics(s)
	if s.cron, err = parseCron(cfg.CompactCron); err != nil {
		st.Close()
		return nil, err
	}
	return s, nil
}

// Config returns the server's running configuration (CONFIG SET replaces it; never modify it).
func (s *Server) Config() *config.Config { return s.liveConfig() }

// Store returns the server's storage.
func (s *Server) Store() *storage.Store { return s.store }

// Start listens on every bind address (listen.go) and serves clients in the background.
func (s *Server) Start() error {
	ln, err := listenAll(s.cfg.Bind, s.cfg.Port)
	if err != nil {
		s.store.Close()
		return err
	}
	if err := s.listenTLS(s.cfg.Bind); err != nil { // tls.go: tls-port
		ln.Close()
		s.store.Close()
		return err
	}
	if s.cfg.MetricsAddr != "" {
		if err := s.metrics.serve(s.cfg.MetricsAddr, s.cfg.MetricsPprof == "yes"); err != nil {
			ln.Close()
			s.closeTLS()
			s.store.Close()
			return fmt.Errorf("metrics listener %s: %w", s.cfg.MetricsAddr, err)
		}
	}
	if s.cron != nil {
		go s.compactCron(s.cron)
	}
	s.ln = &guardListener{Listener: ln, srv: s}
	if s.cfg.IOModel == "goroutine" {
		s.rs = redcon.NewServerNetwork("tcp", ln.Addr().String(), s.handle, s.accept, s.closed)
		s.done = make(chan error, 1)
		go func() { s.done <- s.rs.Serve(s.ln) }()
	} else if err := s.startLoops(s.ln, s.cfg.IOLoops); err != nil { // evloop.go
		ln.Close()
		s.closeTLS()
		s.metrics.close()
		s.store.Close()
		return err
	}
	s.serveTLS() // tls.go: the same callbacks on the TLS listener
	// replica.go: the replicaof directive
	if err := s.resumeReplica(); err != nil {
		s.log.Warn("replication not started", "err", err)
	}
	return nil
}

// Addr returns the address the server listens on (the first bind address's).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Addrs returns every address the server listens on, in the order of the bind directive.
func (s *Server) Addrs() []string { return listenerAddrs(s.ln.(*guardListener).Listener) }

// Wait blocks until the listener stops and returns its error.
func (s *Server) Wait() error { return <-s.done }

// Shutdown asks the server's owner to stop it; ShutdownRequested is closed.
func (s *Server) Shutdown() { s.stopOnce.Do(func() { close(s.stopReq) }) }

// ShutdownRequested is closed when a client has sent SHUTDOWN.
func (s *Server) ShutdownRequested() <-chan struct{} { return s.stopReq }

// closeGrace bounds how long Close waits for running commands; scriptCloseGrace, how long a
// running Lua script may go on before Close stops it.
const (
	closeGrace       = 10 * time.Second
	scriptCloseGrace = time.Second
)

// Close stops accepting connections, disconnects clients, lets running commands finish (up to
// closeGrace), and closes the storage, which syncs it. A Lua script still running after
// scriptCloseGrace is stopped and its writes dropped, as SHUTDOWN NOSAVE does (its client has
// no reply yet, so nothing it wrote was acknowledged); so is any script that starts after, from
// a command that waited for it.
func (s *Server) Close() error {
	var err error
	select {
	case <-s.closing:
		return errors.New("server: already closed")
	default:
	}
	close(s.closing)
	s.saveReplicaPoint() // replica.go: nothing more is applied; the offset is kept for a restart
	s.stopExtra()
	s.metrics.close()
	if s.rs != nil {
		err = s.rs.Close()
		<-s.done
		s.done <- nil
	} else if s.loops != nil { // evloop.go
		err = s.ln.Close()
		<-s.done
		s.done <- nil
		s.closeDetached()
		s.stopLoops()
	}
	s.closeTLS() // tls.go
	start := time.Now()
	for s.inflight.Load() > 0 && time.Since(start) < closeGrace {
		if time.Since(start) >= scriptCloseGrace {
			s.scriptsStopped.Store(true)
			commands.StopScripts(s.store)
		}
		time.Sleep(time.Millisecond)
	}
	if cerr := s.store.Close(); err == nil || errors.Is(err, net.ErrClosed) {
		err = cerr
	}
	return err
}

// runsScript reports whether an EXEC queue holds a script command (EVAL or FCALL family).
func runsScript(queue []queuedCmd) bool {
	for _, q := range queue {
		if commands.IsScriptCommand(q.cmd) {
			return true
		}
	}
	return false
}

// guardListener wraps accepted connections in guardConn.
type guardListener struct {
	net.Listener
	srv *Server
}

func (l *guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.srv.wrapConn(c), nil // limits.go: tcp-keepalive, query buffer limit
}

func (s *Server) accept(conn redcon.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.clients) >= s.Config().MaxClients {
		s.stats.rejected.Add(1)
		conn.WriteError("ERR max number of clients reached")
		flushConn(conn)
		return false
	}
	c := &client{conn: conn}
	if !s.admit(conn, c) { // acl.go: protected mode; the default user and whether it is authenticated
		return false
	}
	c.ID = s.nextID.Add(1)
	c.Proto = 2
	c.Addr = conn.RemoteAddr()
	c.w.Proto = 2
	c.Client.Conn = c
	linkGuard(c) // limits.go: the request guard checks authentication (unauthenticated limits)
	s.registerClient(c)
	s.clients[c.ID] = c
	conn.SetContext(c)
	s.stats.connections.Add(1)
	return true
}

func (s *Server) closed(conn redcon.Conn, err error) {
	c, ok := conn.Context().(*client)
	if !ok {
		return
	}
	s.mu.Lock()
	delete(s.clients, c.ID)
	s.mu.Unlock()
	if c.guard != nil {
		c.guard.dropStaged() // stage.go
	}
	s.dropTx(c)       // multi.go
	s.dropMonitor(c)  // monitor.go
	s.dropPubSub(c)   // pubsub.go
	s.dropTracking(c) // tracking.go
}

// beforeReplies runs right before the replies of one pass over connection c (nil for a
// connection not yet accepted) are written: the commits made so far, which those replies may
// acknowledge or have read, go to LevelDB as one group and are synced as appendfsync asks
// (storage/group.go), and the journal reaches its file. When nothing was committed since the
// last flush it costs a few atomic loads and two uncontended locks. When a commit the replies
// may depend on was lost in a failed write (now, or in another connection's flush since c's
// last replies), c is marked killed and the error returned: the replies must not be sent,
// and the connection is closed.
func (s *Server) beforeReplies(c *client) error {
	err := s.flushReplies(c)
	if err != nil && c != nil {
		c.x.killed.Store(true)
	}
	return err
}

// beginPass runs before the first command of a pass over connection c: the commits resolved
// by then (written, or lost and dropped from every read) are the ones its replies cannot
// depend on unless written.
func (s *Server) beginPass(c *client) {
	if !c.x.inPass.Swap(true) {
		c.x.passFrom.Store(s.store.CommitSeq())
	}
}

// flushReplies is beforeReplies without the kill.
func (s *Server) flushReplies(c *client) error {
	if c == nil {
		return s.store.Flush()
	}
	s.beginPass(c) // replies without a command of their own (a blocked client served)
	_, err := s.store.FlushSince(c.x.passFrom.Load())
	c.x.inPass.Store(false)
	return err
}

// flushPass makes the pass durable once the last command of a connection's pipeline has run,
// while its reply is still in c.w. When a write the replies depend on has failed and this
// reply is the only one of the pass, it becomes the failure's error reply (MISCONF, as for a
// commit that failed) and the connection stays; with earlier replies waiting in redcon's
// buffer, the connection is closed instead (beforeReplies, from guardConn.write).
func (s *Server) flushPass(conn redcon.Conn, c *client) {
	if len(conn.PeekPipeline()) > 0 {
		return
	}
	if lc, ok := conn.(*loopConn); ok && !lc.detached.Load() {
		return // the loop flushes once its pass has run every ready connection's commands
	}
	err := s.flushReplies(c)
	if err == nil {
		return
	}
	if bw := redcon.BaseWriter(conn); bw == nil || len(bw.Buffer()) > 0 {
		c.x.killed.Store(true)
		if bw != nil {
			bw.SetBuffer(bw.Buffer()[:0]) // the earlier replies are never sent
		}
		c.w.Reset()
		conn.Close()
		return
	}
	c.w.Reset()
	c.w.Error(misconfText(err))
}

// flushConn writes what conn has gathered of its replies to the socket, waiting for it.
func flushConn(conn redcon.Conn) {
	if bw := redcon.BaseWriter(conn); bw != nil {
		bw.Flush()
	} else if lc, ok := conn.(*loopConn); ok {
		lc.flushBlocking()
	}
}

// largeReply is the reply size past which handle writes a reply to the socket directly and
// drops the reply buffer afterwards.
const largeReply = 1 << 20

// handle runs one command for a connection.
func (s *Server) handle(conn redcon.Conn, cmd redcon.Command) {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	c := conn.Context().(*client)
	defer func() {
		if r := recover(); r != nil {
			s.commandPanicked(r, conn, c, cmd.Args)
		}
	}()
	var staged *storage.StagedValue
	if c.guard != nil {
		if staged = c.guard.takeStaged(); staged != nil { // stage.go: a SET value streamed to the value log
			defer staged.Discard() // unless SET stored it
		}
	}
	if c.cutOff() { // limits.go: closed by its output buffer limit; the rest of its pipeline is dropped
		return
	}
	if c.Quit || c.x.killed.Load() {
		// After QUIT, or once killed (CLIENT KILL, idle timeout, a disconnect seen while
		// blocked), nothing more the client sent runs: redcon still hands over the rest of
		// the requests it had read.
		return
	}
	s.beginPass(c)
	ctx := &c.ctx
	*ctx = commands.Ctx{Args: cmd.Args, Client: &c.Client, Store: s.store, W: &c.w, Env: s,
		OnBlock: registerBlocked, OnWrite: s.tx.onWrite, KE: &s.ke, Propagate: s.propagateFunc()}
	c.w.Proto = c.Proto
	st := s.beforeCommand(c, cmd.Args)
	ctx.Now = st.start.UnixMilli()
	if s.panicHook != nil {
		s.panicPoint("command", bytes.Join(cmd.Args, []byte(" ")))
	}
	if staged != nil && !s.stagedArgument(c, ctx, staged) {
		// answered: the value could not be read back
	} else if msg := commands.ScriptBusy(ctx); msg != "" {
		// scripting.go: a script runs past busy-reply-threshold. A refused command fails the
		// transaction it was to be queued in; a refused EXEC discards it (multi.go).
		if c.tx.active && strings.EqualFold(string(cmd.Args[0]), "exec") {
			c.w.Error(commands.ErrExecAbortBecause + msg)
			c.tx.endMulti()
			s.unwatchAll(c)
		} else {
			c.w.Error(msg)
			c.tx.aborted = c.tx.active
		}
	} else if s.refuseOnReplica(c, st.cmd, cmd.Args) {
		// replica.go: READONLY, MASTERDOWN
	} else if (!c.tx.active && c.ps.n == 0) || !s.gate(c, &st) { // multi.go: MULTI queue, subscriber mode
		if s.monitorsOn() { // monitor.go: a script is shown before the commands it calls
			if cmd := st.cmd; cmd != nil && commands.IsScriptCommand(cmd) && cmd.CheckArity(len(ctx.Args)) {
				s.feedMonitors(ctx.Client, ctx.Client.DB, cmd, ctx.Args, false)
			}
		}
		s.dispatch(ctx, st.cmd) // limits.go: commands.Dispatch, refusing writes while the disk fails
		s.afterDispatch(c)      // multi.go: keyspace events
	}
	st.dur = time.Since(st.start)
	if ctx.Cmd != nil {
		s.metrics.observe(ctx.Cmd, st.dur)
	}
	s.stats.commandsProcessed.Add(1)
	s.afterCommand(c, st)
	ctx.Ready = signalChangedKeys(s, ctx, ctx.Ready) // blocking_stream.go
	if lc, ok := conn.(*loopConn); ok && ctx.Blocked && !lc.detached.Load() {
		// Registered on the loop, in order with the other connections' commands; the loop
		// moves the wait to a goroutine, which answers (evloop_detach.go).
		lc.blocked = true
		return
	}
	s.answer(conn, c)
}

// commandPanicked closes the client whose command (args) panicked with r; the server goes on
// (panics.go).
func (s *Server) commandPanicked(r any, conn redcon.Conn, c *client, args [][]byte) {
	s.clientPanic(r, "running a command", c.ID, quoteArgs(args))
	c.x.killed.Store(true)
	c.w.Reset()
	conn.Close()
}

// answer finishes a command handle ran: it waits if the command blocked, serves the clients
// blocked on keys it pushed to, and queues the reply.
func (s *Server) answer(conn redcon.Conn, c *client) {
	ctx := &c.ctx
	if ctx.Blocked || len(ctx.Ready) > 0 {
		s.afterBlocking(conn, c) // blocking.go: wait if blocked, serve clients blocked on pushed keys
	}
	s.flushPass(conn, c)
	if c.ps.q != nil {
		s.queueReply(c) // pubsub.go: a subscriber's output goes through its writer goroutine
	} else if s.outputOverLimit(c) { // limits.go: client-output-buffer-limit of normal clients
		return
	} else if out := c.w.Bytes(); len(out) > largeReply {
		// A large reply (a large value read straight into c.w) goes to the socket as it is,
		// after what is buffered, rather than being copied into redcon's buffer; and the
		// buffer is dropped, so that an idle client holds no large buffer.
		if bw := redcon.BaseWriter(conn); bw != nil && bw.Flush() == nil {
			conn.NetConn().Write(out)
		} else {
			conn.WriteRaw(out)
		}
		c.w.Release()
	} else {
		conn.WriteRaw(out)
		c.w.Reset()
	}
	if cap(c.w.Bytes()) > largeReply {
		c.w.Release()
	}
	if c.Quit {
		// Gone from CLIENT LIST, INFO and tracking redirection before its queued output is
		// written and its socket closes, as a killed client is.
		c.x.killed.Store(true)
		s.drainOutput(c) // pubsub.go
		conn.Close()
	}
}
