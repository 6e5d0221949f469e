package server

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
)

// Server-assisted client-side caching: CLIENT TRACKING, as Redis 7.0's tracking.c.
//
// Default mode: the keys of every read-only command a tracking client runs are remembered,
// server-wide (as in Redis, database numbers are not told apart), as key -> client IDs. They are
// remembered through Ctx.OnRead while the command still holds its keys' locks, so a write of
// one of them either ran before the read (the client read the new value) or comes after the key
// is remembered (and invalidates it). When a command changes keys (the write path WATCH uses:
// Ctx.OnWrite -> touchChanged, also for EXEC and scripts; the expiry cycle's hook), each client
// that read one of them gets an invalidation for it, one message per key, and the key is
// forgotten until it is read again. OPTIN remembers only the keys of the command after CLIENT
// CACHING YES, OPTOUT all but those of the command after CLIENT CACHING NO (the flag lasts until
// a command other than CLIENT ends outside MULTI, as in Redis's resetClient). NOLOOP skips the
// client's own writes. BCAST remembers nothing: each change of a key under one of the client's
// prefixes (every key with no prefix) is sent, one message per prefix and command (an EXEC or a
// script being one command), keys sorted, once the command has run.
// FLUSHDB and FLUSHALL send every tracking client an invalidation with a null key list and
// forget every key. tracking-table-max-keys bounds the keys remembered: past it, keys are
// invalidated (and forgotten) until the table is back at the limit.
//
// Delivery, as Redis 7.0's sendTrackingMessage: a RESP3 client gets ">2 invalidate [keys]" on
// its own connection. With REDIRECT the message goes to the redirect client instead: the same
// push if that client speaks RESP3, else the pub/sub message ["message", "__redis__:invalidate",
// [keys]] if it is subscribed to any channel (Redis checks its pub/sub mode, not the channel),
// else nothing. When the redirect client is gone, the tracking client is flagged
// broken_redirect and, in RESP3, gets "tracking-redir-broken <id>" each time an invalidation
// is meant for it. A RESP2 client without REDIRECT gets nothing.
//
// Messages are produced on the writers' goroutines, so they go through the target's outbound
// queue (pubsub.go), whose writer goroutine owns the socket. A RESP3 tracking client switches
// to queued output, and its queue is held while each of its commands runs (but blocking ones),
// so what arrives meanwhile, its own writes' invalidations included, follows the command's
// reply, as in Redis 7.0. A target without a queue (a RESP3 redirect client that neither
// tracks nor subscribes) gets its messages in an inbox, and its connection goroutine is woken
// from its read by a read deadline, which guardConn takes as the signal to switch to queued
// output and send them (it reads only once redcon has flushed what it buffered).
//
// While clients track or keys are remembered, the server counts one watched key in
// commands.KeyEvents: write commands then record the keys they change (Ctx.Events) and
// FLUSHDB/FLUSHALL call KeyEvents.Flush, as for WATCH.

// Tracking flags of a client.
const (
	trkOn uint32 = 1 << iota
	trkBCast
	trkOptIn
	trkOptOut
	trkCaching // CLIENT CACHING YES (OPTIN) or NO (OPTOUT) for the next command
	trkNoLoop
	trkBroken // the redirect client is gone
)

// trkServer is the server's tracking registry.
type trkServer struct {
	mu       sync.RWMutex
	keys     map[string]trkIDs               // default mode: key -> clients that read it
	items    int                             // (key, client) pairs in keys
	prefixes map[string]map[*client]struct{} // BCAST: prefix -> clients
	clients  int                             // clients with tracking on
	armed    atomic.Bool                     // counted as a watched key in s.ke
	onRead   func(*commands.Ctx)             // s.trackRead, made once
}

// trkState is one client's tracking state. The flags and the redirect are written by the
// client's connection goroutine (but trkBroken, set by writers) and read by writers.
type trkState struct {
	flags    atomic.Uint32
	redirect atomic.Int64
	prefixes [][]byte // BCAST prefixes, sorted; under trkServer.mu

	q     atomic.Pointer[outQueue] // the client's outbound queue once it has one (ensureQueue)
	proto atomic.Int32             // the client's protocol after its last command; 0 means 2

	bcast []trkBcastHit // BCAST invalidations of the running command (its connection goroutine only)

	inMu    sync.Mutex
	inbox   [][]byte // messages waiting for the client to switch to queued output
	pending atomic.Bool
}

func (t *trkState) resp() int32 {
	if p := t.proto.Load(); p != 0 {
		return p
	}
	return 2
}

// trkIDs is the set of clients that read one key: a short list, a map once it grows.
type trkIDs struct {
	list []int64
	set  map[int64]struct{}
}

func (t *trkIDs) add(id int64) bool {
	if t.set != nil {
		if _, ok := t.set[id]; ok {
			return false
		}
		t.set[id] = struct{}{}
		return true
	}
	if slices.Contains(t.list, id) {
		return false
	}
	if len(t.list) < 16 {
		t.list = append(t.list, id)
		return true
	}
	t.set = make(map[int64]struct{}, 2*len(t.list))
	for _, x := range t.list {
		t.set[x] = struct{}{}
	}
	t.list = nil
	t.set[id] = struct{}{}
	return true
}

func (t *trkIDs) size() int { return len(t.list) + len(t.set) }

// trkHit is one invalidation for a default-mode client.
type trkHit struct {
	id  int64
	key string
}

func (t trkIDs) hits(key string, dst []trkHit) []trkHit {
	for _, id := range t.list {
		dst = append(dst, trkHit{id, key})
	}
	for id := range t.set {
		dst = append(dst, trkHit{id, key})
	}
	return dst
}

func (s *Server) initTracking() {
	s.trk.keys = map[string]trkIDs{}
	s.trk.prefixes = map[string]map[*client]struct{}{}
	s.trk.onRead = s.trackRead
}

// rearmLocked keeps one watched key counted in s.ke while clients track or keys are remembered.
// s.trk.mu is held.
func (s *Server) rearmLocked() {
	want := s.trk.clients > 0 || len(s.trk.keys) > 0
	if want == s.trk.armed.Load() {
		return
	}
	s.trk.armed.Store(want)
	if want {
		s.ke.AddWatches(1)
	} else {
		s.ke.AddWatches(-1)
	}
}

// ClientExists reports whether client id is connected (commands.Tracker).
func (s *Server) ClientExists(id int64) bool { return s.clientByID(id) != nil }

func (s *Server) clientByID(id int64) *client {
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	return c
}

// TrackingState returns cl's tracking settings (commands.Tracker).
func (s *Server) TrackingState(cl *commands.Client) commands.TrackingState {
	c, _ := cl.Conn.(*client)
	if c == nil {
		return commands.TrackingState{}
	}
	f := c.trk.flags.Load()
	st := commands.TrackingState{On: f&trkOn != 0, BCast: f&trkBCast != 0, OptIn: f&trkOptIn != 0,
		OptOut: f&trkOptOut != 0, NoLoop: f&trkNoLoop != 0, Caching: f&trkCaching != 0,
		BrokenRedirect: f&trkBroken != 0, Redirect: c.trk.redirect.Load()}
	s.trk.mu.RLock()
	st.Prefixes = slices.Clone(c.trk.prefixes)
	s.trk.mu.RUnlock()
	return st
}

// EnableTracking turns tracking on for cl, or changes its options (commands.Tracker). As in
// Redis's enableTracking, the mode flags are replaced, CLIENT CACHING's flag is kept and BCAST
// prefixes are added to those the client has.
func (s *Server) EnableTracking(cl *commands.Client, o commands.TrackingOptions) {
	c, _ := cl.Conn.(*client)
	if c == nil {
		return
	}
	f := trkOn
	for _, opt := range []struct {
		on bool
		f  uint32
	}{{o.BCast, trkBCast}, {o.OptIn, trkOptIn}, {o.OptOut, trkOptOut}, {o.NoLoop, trkNoLoop}} {
		if opt.on {
			f |= opt.f
		}
	}
	s.trk.mu.Lock()
	defer s.trk.mu.Unlock()
	old := c.trk.flags.Load()
	if old&trkOn == 0 {
		s.trk.clients++
	}
	c.trk.redirect.Store(o.Redirect)
	c.trk.flags.Store(f | old&trkCaching)
	if o.BCast {
		prefixes := o.Prefixes
		if len(prefixes) == 0 {
			prefixes = [][]byte{{}}
		}
		for _, p := range prefixes {
			set := s.trk.prefixes[string(p)]
			if set == nil {
				set = map[*client]struct{}{}
				s.trk.prefixes[string(p)] = set
			}
			if _, ok := set[c]; ok {
				continue
			}
			set[c] = struct{}{}
			i, _ := slices.BinarySearchFunc(c.trk.prefixes, p, func(a, b []byte) int { return strings.Compare(string(a), string(b)) })
			c.trk.prefixes = slices.Insert(c.trk.prefixes, i, slices.Clone(p))
		}
	}
	s.rearmLocked()
}

// DisableTracking turns tracking off for cl (commands.Tracker). The keys it read stay
// remembered, as in Redis: should it turn tracking on again, their invalidations reach it.
func (s *Server) DisableTracking(cl *commands.Client) {
	if c, _ := cl.Conn.(*client); c != nil {
		s.disableTracking(c)
	}
}

func (s *Server) disableTracking(c *client) {
	s.trk.mu.Lock()
	defer s.trk.mu.Unlock()
	if c.trk.flags.Swap(0)&trkOn != 0 {
		s.trk.clients--
	}
	for _, p := range c.trk.prefixes {
		if set := s.trk.prefixes[string(p)]; set != nil {
			delete(set, c)
			if len(set) == 0 {
				delete(s.trk.prefixes, string(p))
			}
		}
	}
	c.trk.prefixes = nil
	s.rearmLocked()
}

// SetCaching records CLIENT CACHING YES or NO for cl's next command (commands.Tracker).
func (s *Server) SetCaching(cl *commands.Client) {
	if c, _ := cl.Conn.(*client); c != nil {
		c.trk.flags.Or(trkCaching)
	}
}

// dropTracking forgets a closing client's tracking.
func (s *Server) dropTracking(c *client) {
	s.disableTracking(c)
	c.trk.inMu.Lock()
	c.trk.inbox = nil
	c.trk.pending.Store(false)
	c.trk.inMu.Unlock()
}

// trackBefore runs before each command of c, on its connection goroutine: it sends what waits
// in c's inbox and, for a tracking client, arranges for the command's reads to be remembered and
// (RESP3) holds its queue so that invalidations arriving during the command follow the reply.
func (s *Server) trackBefore(c *client, cmd *commands.Command) {
	if c.trk.pending.Load() {
		s.takeInbox(c)
	}
	f := c.trk.flags.Load()
	if f&trkOn == 0 {
		return
	}
	if f&trkBCast == 0 {
		c.ctx.OnRead = s.trk.onRead
	}
	if c.Proto == 3 && (cmd == nil || cmd.Flags&commands.FlagBlocking == 0) {
		s.ensureQueue(c).hold()
	}
}

// trackAfter runs after each command of c, before its reply is written: it publishes c's
// protocol for the writers, ends CLIENT CACHING's effect (kept across CLIENT commands and
// inside MULTI, as Redis does), and switches a RESP3 tracking client to queued output.
func (s *Server) trackAfter(c *client, cmd *commands.Command) {
	if p := int32(c.Proto); c.trk.proto.Load() != p {
		c.trk.proto.Store(p)
	}
	f := c.trk.flags.Load()
	if f&trkCaching != 0 && !c.tx.active && (cmd == nil || cmd.Name != "client") {
		c.trk.flags.And(^trkCaching)
	}
	if f&trkOn != 0 && c.Proto == 3 && c.ps.q == nil {
		s.ensureQueue(c)
	}
	s.flushBcast(c)
	if c.trk.pending.Load() {
		s.takeInbox(c)
	}
}

// trackRead is Ctx.OnRead: it remembers the keys of a read-only command for a client tracking
// in the default mode (with OPTIN, after CLIENT CACHING YES; with OPTOUT, unless after CLIENT
// CACHING NO). Read-only scripts are not remembered themselves: a read-only command a script
// runs makes the client remember the keys the script declares (not those the command names).
func (s *Server) trackRead(ctx *commands.Ctx) {
	c := clientOf(ctx)
	if c == nil {
		return
	}
	f := c.trk.flags.Load()
	if f&trkOn == 0 || f&trkBCast != 0 || f&trkOptIn != 0 && f&trkCaching == 0 ||
		f&trkOptOut != 0 && f&trkCaching != 0 {
		return
	}
	cmd := ctx.Cmd
	switch {
	case cmd.Flags&commands.FlagReadonly == 0, cmd.Flags&commands.FlagPubSub != 0,
		cmd.Name == "eval_ro", cmd.Name == "evalsha_ro", cmd.Name == "fcall_ro":
		return
	}
	var keys [][]byte
	if ctx.Script != nil {
		keys = scriptKeys(ctx.Script.Args)
	} else {
		keys = commands.TxnKeys(cmd, ctx.Args)
	}
	if len(keys) == 0 {
		return
	}
	s.trk.mu.Lock()
	for _, k := range keys {
		ids := s.trk.keys[string(k)]
		if ids.add(c.ID) {
			s.trk.items++
			s.trk.keys[string(k)] = ids
		}
	}
	evicted := s.trackEvictLocked(s.liveConfig().TrackingTableMaxKeys)
	s.rearmLocked()
	s.trk.mu.Unlock()
	s.sendHits(evicted, 0)
}

// trackEvictLocked forgets keys while more than limit (tracking-table-max-keys, 0 for none) are
// remembered, in the map's random order as Redis picks them by a random walk, and returns the
// invalidations to send their clients. s.trk.mu is held.
func (s *Server) trackEvictLocked(limit int64) []trkHit {
	if limit <= 0 || int64(len(s.trk.keys)) <= limit {
		return nil
	}
	var evicted []trkHit
	for k, ids := range s.trk.keys {
		evicted = ids.hits(k, evicted)
		s.trk.items -= ids.size()
		delete(s.trk.keys, k)
		if int64(len(s.trk.keys)) <= limit {
			break
		}
	}
	return evicted
}

// trackApplyConfig is CONFIG SET's part: a lowered tracking-table-max-keys invalidates the
// keys over it at once, not at the next read.
func (s *Server) trackApplyConfig(cfg *config.Config) {
	s.trk.mu.Lock()
	evicted := s.trackEvictLocked(cfg.TrackingTableMaxKeys)
	s.rearmLocked()
	s.trk.mu.Unlock()
	s.sendHits(evicted, 0)
}

// scriptKeys returns the keys an EVAL, EVALSHA or FCALL (or their _RO forms) declares: numkeys
// at argument 2, the keys after it.
func scriptKeys(args [][]byte) [][]byte {
	if len(args) < 3 {
		return nil
	}
	n, err := strconv.Atoi(string(args[2]))
	if err != nil || n <= 0 || n > len(args)-3 {
		return nil
	}
	return args[3 : 3+n]
}

// trkBcastHit is one key changed under a BCAST client's prefix.
type trkBcastHit struct {
	c           *client
	prefix, key string
}

// invalidateWrites sends the invalidations for keys a command changed (touchChanged). When the
// command is a client's own (not a blocked client's command served by the server), the BCAST
// ones wait in the client's batch until its command ends (trackAfter), so that an EXEC or a
// script sends one message per prefix, as Redis 7.0 sends them once per event loop iteration.
func (s *Server) invalidateWrites(ctx *commands.Ctx, keys [][]byte) {
	s.invalidate(ctx.Client.ID, clientOf(ctx), keys)
}

// invalidateKeys sends the invalidations for keys changed by client writer (0 for none: the
// expiry cycle) and forgets the keys.
func (s *Server) invalidateKeys(writer int64, keys [][]byte) { s.invalidate(writer, nil, keys) }

// invalidate is invalidateKeys, holding the BCAST invalidations in batch's pending list when
// batch is not nil (it runs on batch's connection goroutine).
func (s *Server) invalidate(writer int64, batch *client, keys [][]byte) {
	if !s.trk.concerns(keys) {
		return
	}
	var hits []trkHit
	var bc []trkBcastHit
	s.trk.mu.Lock()
	for _, k := range keys {
		if ids, ok := s.trk.keys[string(k)]; ok {
			hits = ids.hits(string(k), hits)
			s.trk.items -= ids.size()
			delete(s.trk.keys, string(k))
		}
		for p, set := range s.trk.prefixes {
			if len(k) >= len(p) && string(k[:len(p)]) == p {
				for c := range set {
					bc = append(bc, trkBcastHit{c, p, string(k)})
				}
			}
		}
	}
	s.rearmLocked()
	s.trk.mu.Unlock()
	s.sendHits(hits, writer)
	switch {
	case len(bc) == 0:
	case batch != nil:
		batch.trk.bcast = append(batch.trk.bcast, bc...)
	default:
		s.sendBcast(bc, writer)
	}
}

// flushBcast sends the BCAST invalidations c's command produced.
func (s *Server) flushBcast(c *client) {
	if len(c.trk.bcast) == 0 {
		return
	}
	bc := c.trk.bcast
	c.trk.bcast = nil
	s.sendBcast(bc, c.ID)
}

// concerns reports, under the read lock, whether some client tracks one of keys or BCASTs:
// most writes change keys nobody read.
func (t *trkServer) concerns(keys [][]byte) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if len(t.prefixes) > 0 {
		return true
	}
	for _, k := range keys {
		if _, ok := t.keys[string(k)]; ok {
			return true
		}
	}
	return false
}

// sendHits sends default-mode invalidations, one key per message, to the clients that still
// track in that mode (and, with NOLOOP, did not write the key themselves).
func (s *Server) sendHits(hits []trkHit, writer int64) {
	for _, h := range hits {
		c := s.clientByID(h.id)
		if c == nil {
			continue
		}
		f := c.trk.flags.Load()
		if f&trkOn == 0 || f&trkBCast != 0 || f&trkNoLoop != 0 && h.id == writer {
			continue
		}
		s.sendTracking(c, appendKeys(nil, []string{h.key}))
	}
}

// sendBcast sends BCAST invalidations: per client and prefix (sorted), the sorted keys.
func (s *Server) sendBcast(bc []trkBcastHit, writer int64) {
	slices.SortFunc(bc, func(a, b trkBcastHit) int {
		switch {
		case a.c.ID != b.c.ID:
			return int(min(max(a.c.ID-b.c.ID, -1), 1))
		case a.prefix != b.prefix:
			return strings.Compare(a.prefix, b.prefix)
		}
		return strings.Compare(a.key, b.key)
	})
	for i := 0; i < len(bc); {
		j := i
		var keys []string
		for ; j < len(bc) && bc[j].c == bc[i].c && bc[j].prefix == bc[i].prefix; j++ {
			if len(keys) == 0 || keys[len(keys)-1] != bc[j].key {
				keys = append(keys, bc[j].key)
			}
		}
		c := bc[i].c
		i = j
		f := c.trk.flags.Load()
		if f&(trkOn|trkBCast) != trkOn|trkBCast || f&trkNoLoop != 0 && c.ID == writer {
			continue
		}
		s.sendTracking(c, appendKeys(nil, keys))
	}
}

// trackFlush is FLUSHDB's and FLUSHALL's part: every tracking client gets an invalidation with
// a null key list, and every remembered key is forgotten.
func (s *Server) trackFlush() {
	s.trk.mu.Lock()
	if len(s.trk.keys) > 0 {
		s.trk.keys = map[string]trkIDs{}
		s.trk.items = 0
	}
	s.rearmLocked()
	s.trk.mu.Unlock()
	var list []*client
	s.mu.Lock()
	for _, c := range s.clients {
		if c.trk.flags.Load()&trkOn != 0 {
			list = append(list, c)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b *client) int { return int(min(max(a.ID-b.ID, -1), 1)) })
	for _, c := range list {
		s.sendTracking(c, nil)
	}
}

// appendKeys appends keys as a RESP array of bulk strings.
func appendKeys(dst []byte, keys []string) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(keys)), 10)
	dst = append(dst, "\r\n"...)
	for _, k := range keys {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(k)), 10)
		dst = append(dst, "\r\n"...)
		dst = append(dst, k...)
		dst = append(dst, "\r\n"...)
	}
	return dst
}

// sendTracking sends one invalidation meant for tracking client c, as Redis 7.0's
// sendTrackingMessage: keys is the RESP array of the keys, or nil for a flush (a null in c's
// protocol).
func (s *Server) sendTracking(c *client, keys []byte) {
	target, redirected := c, false
	if id := c.trk.redirect.Load(); id != 0 {
		r := s.clientByID(id)
		if r != nil && r.x.killed.Load() {
			r = nil // it quit or was killed: gone, though its connection may not be closed yet
		}
		if r == nil {
			for {
				old := c.trk.flags.Load()
				if old&trkOn == 0 || c.trk.flags.CompareAndSwap(old, old|trkBroken) {
					break
				}
			}
			if c.trk.resp() == 3 {
				msg := append([]byte(">2\r\n$21\r\ntracking-redir-broken\r\n:"), strconv.FormatInt(id, 10)...)
				s.deliver(c, append(msg, "\r\n"...))
			}
			return
		}
		target, redirected = r, true
	}
	var msg []byte
	switch {
	case target.trk.resp() == 3:
		msg = append(msg, ">2\r\n$10\r\ninvalidate\r\n"...)
	case redirected && s.subscribed(target):
		msg = append(msg, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n"...)
	default:
		return // RESP2 has no pushes: nothing can be sent on the client's own connection
	}
	switch {
	case keys != nil:
		msg = append(msg, keys...)
	case c.trk.resp() == 3:
		msg = append(msg, "_\r\n"...)
	default:
		msg = append(msg, "$-1\r\n"...)
	}
	s.deliver(target, msg)
}

// subscribed reports whether c is subscribed to some channel or pattern (Redis's pub/sub mode).
func (s *Server) subscribed(c *client) bool {
	s.ps.mu.RLock()
	n := c.ps.n
	s.ps.mu.RUnlock()
	return n > 0
}

// deliver queues msg for c: in its outbound queue, or in its inbox until its connection
// goroutine switches it to queued output (woken from its read by a read deadline).
func (s *Server) deliver(c *client, msg []byte) {
	if q := c.trk.q.Load(); q != nil {
		var limit config.OutputLimit
		if s.subscribed(c) {
			limit = *s.ps.limit.Load()
		} else {
			limit = s.normalOutputLimit()
		}
		if !q.push(msg, limit) {
			s.cutOff(c)
		}
		return
	}
	c.trk.inMu.Lock()
	c.trk.inbox = append(c.trk.inbox, msg)
	c.trk.pending.Store(true)
	c.trk.inMu.Unlock()
	if g, ok := c.conn.NetConn().(*guardConn); ok {
		g.wakeFor.Store(c)
		g.Conn.SetReadDeadline(time.Now())
		if g.lc != nil {
			g.lc.l.post(g.lc) // evloop.go: the loop takes the inbox
		}
	}
}

// takeInbox switches c to queued output and queues what waits in its inbox. It runs on c's
// connection goroutine, between commands or from guardConn.Read.
func (s *Server) takeInbox(c *client) {
	q := s.ensureQueue(c)
	c.trk.inMu.Lock()
	msgs := c.trk.inbox
	c.trk.inbox = nil
	c.trk.pending.Store(false)
	c.trk.inMu.Unlock()
	limit := s.normalOutputLimit()
	for _, m := range msgs {
		if !q.push(m, limit) {
			s.cutOff(c)
			return
		}
	}
}

// wakeRead is guardConn's part: a read of c's connection that failed on the deadline deliver
// set is a wake-up, not an error; it clears the deadline, takes the inbox and reports true.
func (g *guardConn) wakeRead(err error) bool {
	c := g.wakeFor.Load()
	if c == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	g.Conn.SetReadDeadline(time.Time{})
	g.srv.takeInbox(c)
	return true
}

// trackingStats returns INFO's tracking figures.
func (s *Server) trackingStats() TrackingStats {
	s.trk.mu.RLock()
	defer s.trk.mu.RUnlock()
	return TrackingStats{Clients: s.trk.clients, Keys: len(s.trk.keys), Items: s.trk.items,
		Prefixes: len(s.trk.prefixes)}
}

var _ commands.Tracker = (*Server)(nil)
