package server

import (
	"context"
	"log/slog"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/storage"
)

// This file holds the server side of the connection-management commands: the client
// registry behind CLIENT LIST/KILL, CLIENT PAUSE, CLIENT REPLY, the per-command statistics
// behind INFO commandstats/errorstats, the idle-client timeout, and the run-time
// configuration behind CONFIG SET. server.go calls in through initExtra (New),
// beforeCommand/afterCommand (handle), registerClient (accept) and stopExtra (Close).

// serverExtra is the Server state this file owns.
type serverExtra struct {
	started     time.Time
	live        atomic.Pointer[config.Config] // configuration after CONFIG SET; nil means s.cfg
	minReplicas atomic.Pointer[minReplicas]   // read from the configuration in use (master_link.go)
	configFile  atomic.Pointer[string]
	level       *slog.LevelVar

	statsOnce sync.Once
	cmdStats  map[*commands.Command]*cmdStat
	subStats  map[string]*cmdStat // "client|list": subcommands of container commands
	errMu     sync.Mutex
	errStats  map[string]int64
	errTotal  atomic.Int64

	pauseMu    sync.Mutex
	pauseUntil atomic.Int64 // unix nanoseconds; 0 means no pause
	pauseAll   atomic.Bool
	pauseWake  chan struct{} // closed and replaced when a pause is lifted or changed

	stop     chan struct{}
	stopOnce sync.Once
}

// cmdStat is one command's INFO commandstats counters.
type cmdStat struct {
	calls, usec, rejected, failed atomic.Int64
	hist                          latHist // latency.go: LATENCY HISTOGRAM
}

// clientExtra is the per-client state this file owns.
type clientExtra struct {
	created    time.Time
	fd         int
	lastActive atomic.Int64 // unix nanoseconds of the start of the last command
	killed     atomic.Bool
	blocked    atomic.Bool   // waiting in a pause (or flagged by the blocking code)
	monitor    atomic.Bool   // in MONITOR mode (monitor.go)
	passFrom   atomic.Uint64 // the store's CommitSeq when the pass began (beginPass)
	inPass     atomic.Bool   // a pass has begun and its replies are not flushed yet

	mu      sync.Mutex // guards pub and lastCmd, read by other clients' CLIENT LIST
	pub     commands.Client
	lastCmd string

	// The client's last command name as sent and its command (lookup), used by its own
	// commands only.
	lastName  [16]byte
	lastLen   int
	lastFound *commands.Command
}

// leveledLogger wraps logger so that CONFIG SET loglevel can raise or lower its threshold.
// Records still pass through the wrapped handler's own level check.
func leveledLogger(logger *slog.Logger, level string) (*slog.Logger, *slog.LevelVar) {
	lv := new(slog.LevelVar)
	lv.Set(slogLevel(level))
	return slog.New(&levelHandler{h: logger.Handler(), lv: lv}), lv
}

func slogLevel(level string) slog.Level {
	switch level {
	case "debug", "verbose":
		return slog.LevelDebug
	case "warning":
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

type levelHandler struct {
	h  slog.Handler
	lv *slog.LevelVar
}

func (l *levelHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= l.lv.Level() && l.h.Enabled(ctx, level)
}
func (l *levelHandler) Handle(ctx context.Context, r slog.Record) error { return l.h.Handle(ctx, r) }
func (l *levelHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &levelHandler{h: l.h.WithAttrs(as), lv: l.lv}
}
func (l *levelHandler) WithGroup(name string) slog.Handler {
	return &levelHandler{h: l.h.WithGroup(name), lv: l.lv}
}

// initExtra prepares this file's state and starts the idle-client reaper.
func (s *Server) initExtra(lv *slog.LevelVar) {
	s.x.started = time.Now()
	s.x.level = lv
	s.x.errStats = map[string]int64{}
	s.x.pauseWake = make(chan struct{})
	s.x.stop = make(chan struct{})
	go s.reapIdle()
}

// stopExtra stops the reaper and lifts any pause, so held clients can finish.
func (s *Server) stopExtra() {
	s.x.stopOnce.Do(func() { close(s.x.stop) })
	s.Unpause()
}

// SetConfigFile records the configuration file the server was started with, for CONFIG
// REWRITE and INFO's config_file.
func (s *Server) SetConfigFile(path string) { s.x.configFile.Store(&path) }

// ConfigFile returns the path given to SetConfigFile, or "".
func (s *Server) ConfigFile() string {
	if p := s.x.configFile.Load(); p != nil {
		return *p
	}
	return ""
}

// liveConfig returns the running configuration.
func (s *Server) liveConfig() *config.Config {
	if c := s.x.live.Load(); c != nil {
		return c
	}
	return s.cfg
}

// SetConfig replaces the running configuration (CONFIG SET). cfg must be a validated copy;
// it is never modified afterwards. Directives read per use (requirepass, maxclients,
// timeout) take effect at once; loglevel changes the logger's threshold, appendfsync the
// store's policy, list-max-listpack-size its list nodes.
func (s *Server) SetConfig(cfg *config.Config) error {
	s.x.live.Store(cfg)
	s.applySlowLogConfig(cfg) // slowlog.go
	s.applyLatencyConfig(cfg) // latency.go
	s.applyTxConfig(cfg)      // multi.go: notify-keyspace-events, client-output-buffer-limit
	s.trackApplyConfig(cfg)   // tracking.go: tracking-table-max-keys
	s.store.SetFsync(cfg.AppendFsync)
	s.applyListFill(cfg)
	s.applyPackLimits(cfg)
	s.applyStreamLimits(cfg)
	if s.x.level != nil {
		s.x.level.Set(slogLevel(cfg.LogLevel))
	}
	return nil
}

// applyListFill hands list-max-listpack-size to the store, which bounds the list nodes it
// writes by it.
func (s *Server) applyListFill(cfg *config.Config) {
	if v, ok := cfg.Get("list-max-listpack-size"); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			s.store.SetListFill(n)
		}
	}
}

// applyPackLimits hands the thresholds of packed hashes, sets and sorted sets to the store.
func (s *Server) applyPackLimits(cfg *config.Config) {
	l := storage.DefaultPackLimits
	readInts(cfg, map[string]*int64{
		"hash-max-listpack-entries": &l.HashEntries, "hash-max-listpack-value": &l.HashValue,
		"set-max-intset-entries":    &l.SetIntEntries,
		"zset-max-listpack-entries": &l.ZSetEntries, "zset-max-listpack-value": &l.ZSetValue,
	})
	s.store.SetPackLimits(l)
}

// readInts sets each integer the map points to from its directive in cfg, where that parses.
func readInts(cfg *config.Config, dst map[string]*int64) {
	for name, p := range dst {
		if v, ok := cfg.Get(name); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				*p = n
			}
		}
	}
}

// applyStreamLimits hands stream-node-max-entries and stream-node-max-bytes to the store.
func (s *Server) applyStreamLimits(cfg *config.Config) {
	l := storage.DefaultStreamLimits
	readInts(cfg, map[string]*int64{"stream-node-max-entries": &l.MaxEntries, "stream-node-max-bytes": &l.MaxBytes})
	s.store.SetStreamLimits(l)
}

// registerClient fills the per-client state of a new connection.
func (s *Server) registerClient(c *client) {
	now := time.Now()
	c.x.created = now
	c.x.lastActive.Store(now.UnixNano())
	c.x.fd = -1
	c.User = "default"
	if nc := c.conn.NetConn(); nc != nil {
		c.LAddr = nc.LocalAddr().String()
		c.x.fd = connFD(nc)
	}
	c.x.pub = c.Client
}

// connFD returns the file descriptor of a TCP connection, or -1.
func connFD(nc net.Conn) int {
	if g, ok := nc.(*guardConn); ok {
		nc = g.Conn
	}
	if sc, ok := nc.(*sockConn); ok { // evloop_sock.go
		return sc.fd
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	raw.Control(func(p uintptr) { fd = int(p) })
	return fd
}

// cmdState is what beforeCommand hands to afterCommand.
type cmdState struct {
	cmd   *commands.Command
	start time.Time
	dur   time.Duration // set when the command has run
}

// beforeCommand runs before the dispatcher: it records the client's activity and holds the
// command while a CLIENT PAUSE applies to it. Like Redis, it lets commands that the
// dispatcher would refuse (unknown, wrong arity, not authenticated) through, so they are
// answered at once.
func (s *Server) beforeCommand(c *client, args [][]byte) cmdState {
	st := cmdState{cmd: c.x.lookup(args[0])}
	if s.x.pauseUntil.Load() != 0 && st.cmd != nil && st.cmd.CheckArity(len(args)) &&
		(c.Authed || st.cmd.Flags&commands.FlagNoAuth != 0 || s.liveConfig().RequirePass == "") {
		s.waitPause(c, s.heldByWritePause(c, st.cmd, args))
	}
	st.start = time.Now()
	c.x.lastActive.Store(st.start.UnixNano())
	s.trackBefore(c, st.cmd) // tracking.go
	return st
}

// lookup is commands.Lookup for the client's commands: a name sent as the previous one was
// (a pipeline of one command) is not looked up again.
func (x *clientExtra) lookup(name []byte) *commands.Command {
	if x.lastFound != nil && len(name) == x.lastLen && string(name) == string(x.lastName[:x.lastLen]) {
		return x.lastFound
	}
	cmd := commands.Lookup(name)
	if cmd != nil && len(name) <= len(x.lastName) {
		x.lastLen = copy(x.lastName[:], name)
		x.lastFound = cmd
	}
	return cmd
}

// heldByWritePause reports whether CLIENT PAUSE WRITE holds the command: a write, a command
// that may replicate, a script that may write (commands.HeldByWritePause), or an EXEC whose
// queue holds one of those.
func (s *Server) heldByWritePause(c *client, cmd *commands.Command, args [][]byte) bool {
	if cmd.Name == "exec" && c.tx.active { // multi.go: the queued commands
		for _, q := range c.tx.queue {
			if commands.HeldByWritePause(s.store, q.cmd, q.args) {
				return true
			}
		}
		return false
	}
	return commands.HeldByWritePause(s.store, cmd, args)
}

// waitPause blocks while a pause applies to a command that PAUSE WRITE holds (write) or not.
// The held client counts as blocked (CLIENT LIST flag b, INFO blocked_clients).
func (s *Server) waitPause(c *client, write bool) {
	for {
		s.x.pauseMu.Lock()
		until, wake := s.x.pauseUntil.Load(), s.x.pauseWake
		applies := s.x.pauseAll.Load() || write
		s.x.pauseMu.Unlock()
		d := time.Until(time.Unix(0, until))
		if until == 0 || d <= 0 || !applies {
			return
		}
		c.x.blocked.Store(true)
		t := time.NewTimer(d)
		select {
		case <-wake:
		case <-t.C:
		case <-s.x.stop:
		}
		t.Stop()
		c.x.blocked.Store(false)
		select {
		case <-s.x.stop:
			return
		default:
		}
	}
}

// Pause holds the commands of every client (all) or the write commands, for d, and the
// active expiry cycle's deletions. A new pause replaces a shorter one but never shortens a
// longer one, as in Redis; a pause that changes from ALL to WRITE takes the new mode.
func (s *Server) Pause(d time.Duration, all bool) {
	s.x.pauseMu.Lock()
	defer s.x.pauseMu.Unlock()
	until := time.Now().Add(d).UnixNano()
	if cur := s.x.pauseUntil.Load(); cur > until && time.Now().UnixNano() < cur {
		until = cur
	}
	s.x.pauseUntil.Store(until)
	s.x.pauseAll.Store(all)
	s.store.HoldExpiry(time.Unix(0, until)) // keys expire but are not deleted during the pause
	// Held clients re-read the mode and deadline.
	close(s.x.pauseWake)
	s.x.pauseWake = make(chan struct{})
}

// Unpause lifts a pause.
func (s *Server) Unpause() {
	s.x.pauseMu.Lock()
	defer s.x.pauseMu.Unlock()
	s.x.pauseUntil.Store(0)
	s.x.pauseAll.Store(false)
	s.store.HoldExpiry(time.Time{})
	close(s.x.pauseWake)
	s.x.pauseWake = make(chan struct{})
}

func (s *Server) buildCmdStats() {
	s.x.statsOnce.Do(func() {
		all := commands.All()
		m := make(map[*commands.Command]*cmdStat, len(all))
		subs := map[string]*cmdStat{}
		for _, c := range all {
			m[c] = &cmdStat{}
			for _, sub := range c.Sub {
				subs[c.Name+"|"+sub] = &cmdStat{}
			}
		}
		s.x.cmdStats, s.x.subStats = m, subs
	})
}

// afterCommand runs after the dispatcher, before the reply is written: it counts the command
// and its error reply, applies CLIENT REPLY OFF/SKIP, and publishes the client's state for
// CLIENT LIST.
func (s *Server) afterCommand(c *client, st cmdState) {
	ctx := &c.ctx
	reply := c.w.Bytes()
	isErr := len(reply) > 0 && reply[0] == '-' && !ctx.Blocked
	name := ""
	if st.cmd != nil {
		name = st.cmd.Name
		if len(st.cmd.Sub) > 0 && len(ctx.Args) > 1 {
			sub := strings.ToLower(string(ctx.Args[1]))
			for _, known := range st.cmd.Sub {
				if sub == known {
					name += "|" + sub
					break
				}
			}
		}
		s.buildCmdStats()
		cs := s.x.cmdStats[st.cmd]
		if len(name) > len(st.cmd.Name) {
			cs = s.x.subStats[name]
		}
		if cs != nil {
			if ctx.Cmd == nil {
				cs.rejected.Add(1)
			} else {
				cs.calls.Add(1)
				cs.usec.Add(st.dur.Microseconds())
				if !ctx.Blocked && c.rep.Load() == nil { // a replica's PSYNC lasts as long as its link
					s.slowLogCall(ctx.Client, ctx.Cmd, ctx.Args, st.dur) // slowlog.go
					s.latencyCall(cs, ctx.Cmd, st.dur)                   // latency.go
				}
				if s.monitorsOn() && !commands.IsScriptCommand(ctx.Cmd) { // monitor.go
					s.feedMonitors(ctx.Client, ctx.Client.DB, ctx.Cmd, ctx.Args, false)
				}
				if isErr {
					cs.failed.Add(1)
				}
			}
		}
	}
	if isErr && !ctx.ErrorCounted {
		s.countError(reply)
	}
	c.x.blocked.Store(ctx.Blocked) // cleared by the client's next command

	// CLIENT REPLY: OFF drops every reply, SKIP drops the reply of the command after it
	// (unless that command is CLIENT REPLY ON, which clears SkipThis).
	if c.ReplyOff || c.SkipThis {
		c.w.Reset()
	}
	c.SkipThis, c.SkipNext = c.SkipNext, false

	c.x.mu.Lock()
	c.x.pub = c.Client
	if name != "" {
		c.x.lastCmd = name
	}
	c.x.mu.Unlock()
	s.trackAfter(c, st.cmd) // tracking.go
}

// countError adds an error reply to errorstats under its code, the first word.
func (s *Server) countError(reply []byte) {
	end := 1
	for end < len(reply) && end < 64 && reply[end] != ' ' && reply[end] != '\r' {
		end++
	}
	code := string(reply[1:end])
	s.x.errTotal.Add(1)
	s.x.errMu.Lock()
	if _, ok := s.x.errStats[code]; ok || len(s.x.errStats) < 128 {
		s.x.errStats[code]++
	} else {
		// Redis stops tracking new codes past 128 to bound the table.
		s.x.errStats["ERR"]++
	}
	s.x.errMu.Unlock()
}

// Clients returns a snapshot of every connected client, ordered by ID.
func (s *Server) Clients() []commands.ClientInfo {
	s.mu.Lock()
	list := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		if !c.x.killed.Load() {
			list = append(list, c)
		}
	}
	s.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	out := make([]commands.ClientInfo, len(list))
	for i, c := range list {
		out[i] = c.info()
		s.subscriptionInfo(c, &out[i]) // pubsub.go
	}
	if ci, ok := s.masterClientInfo(); ok { // replica.go: the master client, flag M
		out = append(out, ci)
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	}
	return out
}

func (c *client) info() commands.ClientInfo {
	c.x.mu.Lock()
	ci := commands.ClientInfo{Client: c.x.pub, LastCmd: c.x.lastCmd}
	c.x.mu.Unlock()
	ci.FD = c.x.fd
	ci.Created = c.x.created
	ci.LastActive = time.Unix(0, c.x.lastActive.Load())
	if ci.LastCmd == "" {
		ci.LastCmd = "NULL"
	}
	flags := ""
	if c.x.monitor.Load() {
		flags += "O"
	}
	if c.x.blocked.Load() {
		flags += "b"
	}
	ci.Redir = -1
	if f := c.trk.flags.Load(); f&trkOn != 0 { // tracking.go
		flags += "t"
		if f&trkBroken != 0 {
			flags += "R"
		}
		if f&trkBCast != 0 {
			flags += "B"
		}
		ci.Redir = c.trk.redirect.Load()
	}
	if l := c.rep.Load(); l != nil && l.serving.Load() { // master.go: a replica's link
		flags += "S"
	}
	if ci.NoEvict {
		flags += "e"
	}
	if ci.NoTouch {
		flags += "T"
	}
	if flags == "" {
		flags = "N"
	}
	ci.Flags = flags
	return ci
}

// KillClients closes the clients that match. The calling client is closed after its reply.
func (s *Server) KillClients(self *commands.Client, match func(*commands.ClientInfo) bool) int {
	n := 0
	for _, ci := range s.Clients() {
		if !match(&ci) {
			continue
		}
		if self != nil && ci.ID == self.ID {
			self.Quit = true
			n++
			continue
		}
		s.mu.Lock()
		c := s.clients[ci.ID]
		s.mu.Unlock()
		if c != nil && c.x.killed.CompareAndSwap(false, true) {
			c.conn.NetConn().Close()
			n++
		} else if c == nil && s.killMaster(ci.ID) { // replica.go
			n++
		}
	}
	return n
}

// Stats returns the counters INFO reports.
func (s *Server) Stats() *Stats {
	st := &Stats{
		Version:          Version,
		Started:          s.x.started,
		ConfigFile:       s.ConfigFile(),
		TotalConnections: s.stats.connections.Load(),
		TotalCommands:    s.stats.commandsProcessed.Load(),
		NetInput:         s.stats.netIn.Load(),
		NetOutput:        s.stats.netOut.Load(),
		Rejected:         s.stats.rejected.Load(),
		TotalErrors:      s.x.errTotal.Load(),
		ClientPanics:     s.stats.panics.Load(),
		Tracking:         s.trackingStats(),
		Replication:      s.replicationStats(),
	}
	if s.ln != nil {
		if a, ok := s.ln.Addr().(*net.TCPAddr); ok {
			st.Port = a.Port
		}
	}
	s.mu.Lock()
	for _, c := range s.clients {
		if c.x.killed.Load() {
			continue
		}
		if l := c.rep.Load(); l != nil && l.serving.Load() {
			continue // replicas are not counted as clients (master.go)
		}
		st.ConnectedClients++
		if c.x.blocked.Load() {
			st.BlockedClients++
		}
	}
	s.mu.Unlock()
	s.buildCmdStats()
	add := func(name string, cs *cmdStat) {
		calls, rejected := cs.calls.Load(), cs.rejected.Load()
		if calls == 0 && rejected == 0 {
			return
		}
		st.Commands = append(st.Commands, CommandStat{Name: name, Calls: calls,
			Usec: cs.usec.Load(), Rejected: rejected, Failed: cs.failed.Load()})
	}
	for cmd, cs := range s.x.cmdStats {
		add(cmd.Name, cs)
	}
	for name, cs := range s.x.subStats {
		add(name, cs)
	}
	sort.Slice(st.Commands, func(i, j int) bool { return st.Commands[i].Name < st.Commands[j].Name })
	s.x.errMu.Lock()
	st.Errors = make(map[string]int64, len(s.x.errStats))
	for k, v := range s.x.errStats {
		st.Errors[k] = v
	}
	s.x.errMu.Unlock()
	return st
}

// ResetStats zeroes what CONFIG RESETSTAT resets.
func (s *Server) ResetStats() {
	s.buildCmdStats()
	reset := func(cs *cmdStat) {
		cs.calls.Store(0)
		cs.usec.Store(0)
		cs.rejected.Store(0)
		cs.failed.Store(0)
		cs.hist.reset()
	}
	for _, cs := range s.x.cmdStats {
		reset(cs)
	}
	for _, cs := range s.x.subStats {
		reset(cs)
	}
	s.x.errMu.Lock()
	s.x.errStats = map[string]int64{}
	s.x.errMu.Unlock()
	s.x.errTotal.Store(0)
	s.stats.connections.Store(0)
	s.stats.commandsProcessed.Store(0)
	s.stats.netIn.Store(0)
	s.stats.netOut.Store(0)
	s.stats.rejected.Store(0)
	s.store.Stats.ExpiredKeys.Store(0)
	s.store.Stats.LazyFreed.Store(0)
	s.store.ResetKeyspaceStats()
}

// reapIdle closes clients idle for longer than the timeout directive, once a second (Redis
// checks in its clients cron). Clients held by a pause or blocked are left alone.
func (s *Server) reapIdle() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.x.stop:
			return
		case <-t.C:
		}
		timeout := s.liveConfig().Timeout
		if timeout <= 0 {
			continue
		}
		limit := time.Now().Add(-time.Duration(timeout) * time.Second).UnixNano()
		var idle []*client
		s.mu.Lock()
		for _, c := range s.clients {
			if !c.x.blocked.Load() && c.x.lastActive.Load() < limit && !c.x.killed.Load() && c.rep.Load() == nil {
				idle = append(idle, c)
			}
		}
		s.mu.Unlock()
		for _, c := range idle {
			if c.x.killed.CompareAndSwap(false, true) {
				s.log.Debug("closing idle client", "id", c.ID, "addr", c.Addr)
				c.conn.NetConn().Close()
			}
		}
	}
}

var _ commands.ServerEnv = (*Server)(nil)
