package server

import (
	"bytes"
	"net"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/glob"
)

// Publish/subscribe and keyspace notifications.
//
// Messages are published from the publisher's goroutine, but a redcon.Conn belongs to its own
// connection goroutine. So a client that subscribes gets an outbound queue (outQueue) and a
// writer goroutine that drains it to the socket; from then on every reply of that client goes
// through the queue too, in order with the messages. A subscription is confirmed in the order
// Redis would: the queue is held from the moment the client subscribes until the command's
// reply is queued, and the reply goes in ahead of the messages that arrived meanwhile.
//
// A subscriber that does not read is cut off by client-output-buffer-limit pubsub (Redis's
// default: 32 MB hard, 8 MB for 60 s soft): the publisher that would pass the limit drops the
// queue and closes the connection, so memory does not grow without bound.

// psServer is the server's subscription registry.
type psServer struct {
	mu    sync.RWMutex
	subs  [3]map[string]map[*client]struct{} // by commands.SubKind: channel, pattern, shard
	limit atomic.Pointer[config.OutputLimit] // client-output-buffer-limit pubsub
}

// psState is one client's subscriptions and its outbound queue. The maps change only under
// psServer.mu, from the client's connection goroutine.
type psState struct {
	subs [3]map[string]uint64 // name -> subscription order
	seq  uint64
	n    int       // subscriptions of all kinds, for the connection goroutine
	q    *outQueue // nil until the client first subscribes
}

func (p *psState) count() int { return p.n }

// subscriptionInfo sets the subscription counts of c's CLIENT LIST line, and flag P (type
// pubsub) on a client with any, as Redis 7.0 marks a subscriber, over RESP3 too, though that
// one may run every command. The counts are read under the registry's lock, since c's own
// goroutine changes them.
func (s *Server) subscriptionInfo(c *client, ci *commands.ClientInfo) {
	s.ps.mu.RLock()
	n := 0
	for k := range ci.Subs {
		ci.Subs[k] = len(c.ps.subs[k])
		n += ci.Subs[k]
	}
	s.ps.mu.RUnlock()
	if n == 0 {
		return
	}
	if ci.Flags == "N" {
		ci.Flags = "P"
	} else {
		ci.Flags = "P" + ci.Flags // Redis's order: P before x, b, t and the rest
	}
}

func (s *Server) setOutputLimit(cfg *config.Config) {
	l := cfg.OutputLimits("pubsub")
	s.ps.limit.Store(&l)
}

// ensureQueue switches c to queued output. It runs on c's connection goroutine: what redcon
// buffered for earlier commands is flushed first.
func (s *Server) ensureQueue(c *client) *outQueue {
	if c.ps.q != nil {
		return c.ps.q
	}
	flushConn(c.conn)
	q := &outQueue{nc: c.conn.NetConn(), holdAt: -1}
	q.cond = sync.NewCond(&q.mu)
	q.proto.Store(int32(c.Proto))
	c.ps.q = q
	c.trk.q.Store(q) // tracking.go: invalidations from other goroutines
	go q.run()
	return q
}

// Subscribe implements SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE.
func (s *Server) Subscribe(ctx *commands.Ctx, kind commands.SubKind, names [][]byte) {
	c := clientOf(ctx)
	if c == nil {
		ctx.W.Error("ERR subscriptions are not allowed here")
		return
	}
	q := s.ensureQueue(c)
	q.hold()
	defer s.pushConfirmations(c, ctx, ctx.W.Len())
	word := commands.SubNames[kind].Sub
	s.ps.mu.Lock()
	for _, name := range names {
		mine := c.ps.subs[kind]
		if mine == nil {
			mine = map[string]uint64{}
			c.ps.subs[kind] = mine
		}
		if _, ok := mine[string(name)]; !ok {
			c.ps.seq++
			mine[string(name)] = c.ps.seq
			all := s.ps.subs[kind]
			if all == nil {
				all = map[string]map[*client]struct{}{}
				s.ps.subs[kind] = all
			}
			set := all[string(name)]
			if set == nil {
				set = map[*client]struct{}{}
				all[string(name)] = set
			}
			set[c] = struct{}{}
			c.ps.n++
		}
		commands.WriteSubReply(ctx.W, word, name, c.ps.kindCount(kind))
	}
	s.ps.mu.Unlock()
}

// pushConfirmations sends the (un)subscribe confirmations a command wrote from start on while
// the client's replies are off (CLIENT REPLY OFF, or SKIP for this command): as in Redis 7.0
// they are pushes, which CLIENT REPLY does not silence. They go into the client's queue where
// the command's reply would, ahead of the messages that arrived meanwhile. Confirmations that
// are part of an EXEC's reply stay there.
func (s *Server) pushConfirmations(c *client, ctx *commands.Ctx, start int) {
	if ctx != &c.ctx || !c.ReplyOff && !c.SkipThis || ctx.W.Len() <= start {
		return
	}
	q := s.ensureQueue(c)
	q.proto.Store(int32(c.Proto))
	q.reply(ctx.W.Bytes()[start:])
	ctx.W.Truncate(start)
}

// kindCount is the count a confirmation reports: channels and patterns together, or shard
// channels.
func (p *psState) kindCount(kind commands.SubKind) int {
	if kind == commands.SubShard {
		return len(p.subs[commands.SubShard])
	}
	return len(p.subs[commands.SubChannel]) + len(p.subs[commands.SubPattern])
}

// Unsubscribe implements UNSUBSCRIBE, PUNSUBSCRIBE and SUNSUBSCRIBE.
func (s *Server) Unsubscribe(ctx *commands.Ctx, kind commands.SubKind, names [][]byte) {
	c := clientOf(ctx)
	if c == nil {
		ctx.W.Error("ERR subscriptions are not allowed here")
		return
	}
	word := commands.SubNames[kind].Unsub
	defer s.pushConfirmations(c, ctx, ctx.W.Len())
	s.ps.mu.Lock()
	defer s.ps.mu.Unlock()
	if len(names) == 0 {
		names = c.ps.names(kind)
		if len(names) == 0 {
			commands.WriteSubReply(ctx.W, word, nil, c.ps.kindCount(kind))
			return
		}
	}
	for _, name := range names {
		s.unsubscribeLocked(c, kind, name)
		commands.WriteSubReply(ctx.W, word, name, c.ps.kindCount(kind))
	}
}

// names returns c's subscriptions of kind in the order they were made.
func (p *psState) names(kind commands.SubKind) [][]byte {
	m := p.subs[kind]
	list := make([]string, 0, len(m))
	for n := range m {
		list = append(list, n)
	}
	sort.Slice(list, func(i, j int) bool { return m[list[i]] < m[list[j]] })
	out := make([][]byte, len(list))
	for i, n := range list {
		out[i] = []byte(n)
	}
	return out
}

// unsubscribeLocked removes one subscription; s.ps.mu is held.
func (s *Server) unsubscribeLocked(c *client, kind commands.SubKind, name []byte) {
	mine := c.ps.subs[kind]
	if _, ok := mine[string(name)]; !ok {
		return
	}
	delete(mine, string(name))
	c.ps.n--
	all := s.ps.subs[kind]
	if set := all[string(name)]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(all, string(name))
		}
	}
}

// unsubscribeAll drops every subscription of c without replies (RESET, disconnect).
func (s *Server) unsubscribeAll(c *client) {
	if c.ps.n == 0 {
		return
	}
	s.ps.mu.Lock()
	for kind := range c.ps.subs {
		for name := range c.ps.subs[kind] {
			s.unsubscribeLocked(c, commands.SubKind(kind), []byte(name))
		}
	}
	s.ps.mu.Unlock()
}

// Publish implements PUBLISH and SPUBLISH: it queues the message for every subscriber of the
// channel and, for PUBLISH, every subscriber of a matching pattern, and returns the number of
// deliveries.
func (s *Server) Publish(channel, message []byte, shard bool) int64 {
	kind := commands.SubChannel
	if shard {
		kind = commands.SubShard
	}
	limit := *s.ps.limit.Load()
	var n int64
	var enc [2][]byte // the message in RESP2 and RESP3
	var cut []*client
	deliver := func(c *client, kind commands.SubKind, pattern []byte, enc *[2][]byte) {
		n++
		p := 0
		if c.ps.q.proto.Load() == 3 {
			p = 1
		}
		if enc[p] == nil {
			enc[p] = commands.AppendMessage(nil, p+2, commands.SubNames[kind].Message, pattern, channel, message)
		}
		if !c.ps.q.push(enc[p], limit) {
			cut = append(cut, c)
		}
	}
	s.ps.mu.RLock()
	for c := range s.ps.subs[kind][string(channel)] {
		deliver(c, kind, nil, &enc)
	}
	if !shard {
		for pattern, set := range s.ps.subs[commands.SubPattern] {
			if !glob.Match([]byte(pattern), channel, false) {
				continue
			}
			var penc [2][]byte
			for c := range set {
				deliver(c, commands.SubPattern, []byte(pattern), &penc)
			}
		}
	}
	s.ps.mu.RUnlock()
	for _, c := range cut {
		s.cutOff(c)
	}
	return n
}

// cutOff closes a subscriber that passed its output limit.
func (s *Server) cutOff(c *client) {
	if c.x.killed.CompareAndSwap(false, true) {
		s.log.Warn("client closed for overcoming of output buffer limits", "id", c.ID, "addr", c.Addr,
			"class", "pubsub")
		c.conn.NetConn().Close()
	}
}

// Channels implements PUBSUB CHANNELS and SHARDCHANNELS.
func (s *Server) Channels(pattern []byte, shard bool) [][]byte {
	kind := commands.SubChannel
	if shard {
		kind = commands.SubShard
	}
	s.ps.mu.RLock()
	var out [][]byte
	for name := range s.ps.subs[kind] {
		if pattern == nil || glob.Match(pattern, []byte(name), false) {
			out = append(out, []byte(name))
		}
	}
	s.ps.mu.RUnlock()
	slices.SortFunc(out, bytes.Compare)
	return out
}

// NumSub implements PUBSUB NUMSUB and SHARDNUMSUB for one channel.
func (s *Server) NumSub(channel []byte, shard bool) int64 {
	kind := commands.SubChannel
	if shard {
		kind = commands.SubShard
	}
	s.ps.mu.RLock()
	defer s.ps.mu.RUnlock()
	return int64(len(s.ps.subs[kind][string(channel)]))
}

// NumPat implements PUBSUB NUMPAT: the number of distinct patterns.
func (s *Server) NumPat() int64 {
	s.ps.mu.RLock()
	defer s.ps.mu.RUnlock()
	return int64(len(s.ps.subs[commands.SubPattern]))
}

// Reset implements RESET: it leaves MULTI and MONITOR, forgets watched keys and subscriptions, and returns
// the connection to database 0, RESP2, no name, replies on and the default user (which needs
// AUTH again when requirepass is set), as Redis 7.0's clearClientConnectionState does.
func (s *Server) Reset(ctx *commands.Ctx) {
	if c := clientOf(ctx); c != nil {
		c.tx.endMulti()
		s.unwatchAll(c)
		s.unsubscribeAll(c)
		s.disableTracking(c) // tracking.go
		s.dropMonitor(c)     // monitor.go
	}
	cl := ctx.Client
	cl.DB, cl.Proto, cl.Name = 0, 2, ""
	cl.ReplyOff, cl.SkipNext, cl.NoTouch = false, false, false
	cl.User = "default"
	cl.Authed = s.acl.DefaultAuthed() // the state a new connection starts in (acl.go, admit)
	cl.ACLUser = s.acl.Default()
	ctx.W.Proto = 2
	ctx.W.Status("RESET")
}

// queueReply puts the reply of c's command, in c.w, into c's outbound queue, ahead of the
// messages that arrived since the command subscribed.
func (s *Server) queueReply(c *client) {
	q := c.ps.q
	q.proto.Store(int32(c.Proto))
	q.reply(c.w.Bytes())
	c.w.Reset()
}

// drainOutput waits (up to a second) until c's queued output is written, before QUIT closes
// the connection.
func (s *Server) drainOutput(c *client) {
	if q := c.ps.q; q != nil {
		q.drain(time.Second)
	}
}

// dropPubSub forgets a closing client's subscriptions and stops its writer.
func (s *Server) dropPubSub(c *client) {
	s.unsubscribeAll(c)
	if q := c.ps.q; q != nil {
		q.close()
	}
}

// publishEvents publishes keyspace events (__keyspace@<db>__:<key> with the event name,
// __keyevent@<db>__:<event> with the key) in the classes notify-keyspace-events enables.
func (s *Server) publishEvents(events []commands.Event) {
	f := s.ke.Classes()
	if f&(config.NotifyKeyspace|config.NotifyKeyevent) == 0 {
		return
	}
	var ch []byte
	for _, ev := range events {
		if f&ev.Class == 0 {
			continue
		}
		if f&config.NotifyKeyspace != 0 {
			ch = append(ch[:0], "__keyspace@"...)
			ch = strconv.AppendInt(ch, int64(ev.DB), 10)
			ch = append(ch, "__:"...)
			ch = append(ch, ev.Key...)
			s.Publish(ch, []byte(ev.Name), false)
		}
		if f&config.NotifyKeyevent != 0 {
			ch = append(ch[:0], "__keyevent@"...)
			ch = strconv.AppendInt(ch, int64(ev.DB), 10)
			ch = append(ch, "__:"...)
			ch = append(ch, ev.Name...)
			s.Publish(ch, ev.Key, false)
		}
	}
}

// outQueue is a subscriber's pending output, written to its socket by its own goroutine. It is
// a list of pieces: the client's replies (copied) and the messages, whose encoding is shared by
// every subscriber of one protocol and never modified. The writer takes up to writeBatch bytes
// at a time, so what the limits count is, as in Redis, the output still held by the server
// (plus one batch being written), not what the kernel has accepted.
type outQueue struct {
	mu        sync.Mutex
	cond      *sync.Cond
	nc        net.Conn
	pieces    [][]byte
	head      int   // pieces before head are taken
	pending   int64 // bytes in pieces[head:]
	inflight  int64 // bytes the writer is writing now
	holdAt    int   // >= 0: the current command's reply goes at pieces[holdAt]; the writer waits
	closed    bool  // connection gone or cut off: nothing more is written
	softSince time.Time
	proto     atomic.Int32
	sending   []byte // what the writer is writing, for the log record of a panic (panics.go)
}

const writeBatch = 64 << 10

// run writes the queue to the socket until the queue is closed or a write fails.
func (q *outQueue) run() {
	var scratch []byte
	defer q.recoverPanic() // panics.go
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for !q.closed && (q.head == len(q.pieces) || q.holdAt >= 0) {
			q.cond.Wait()
		}
		if q.closed {
			return
		}
		var out []byte
		if first := q.pieces[q.head]; len(first) >= writeBatch || q.head+1 == len(q.pieces) {
			out = first
			q.pieces[q.head] = nil
			q.head++
		} else {
			scratch = scratch[:0]
			for q.head < len(q.pieces) && len(scratch)+len(q.pieces[q.head]) <= writeBatch {
				scratch = append(scratch, q.pieces[q.head]...)
				q.pieces[q.head] = nil
				q.head++
			}
			out = scratch
		}
		if q.head == len(q.pieces) {
			q.pieces, q.head = q.pieces[:0], 0
		}
		q.pending -= int64(len(out))
		q.inflight = int64(len(out))
		err := q.write(out)
		q.inflight = 0
		if err != nil {
			q.drop()
		}
		q.cond.Broadcast() // drain waits for an empty queue
	}
}

// write writes out to the connection with q.mu released meanwhile (held again on return, even
// by a panic).
func (q *outQueue) write(out []byte) error {
	q.mu.Unlock()
	defer q.mu.Lock()
	q.sending = out
	if g, ok := q.nc.(*guardConn); ok && g.srv.panicHook != nil {
		g.srv.panicPoint("deliver", out)
	}
	_, err := q.nc.Write(out)
	q.sending = nil
	return err
}

// recoverPanic ends a panic of the writer goroutine: it is logged and counted, the queue is
// dropped and the client's connection closed (panics.go).
func (q *outQueue) recoverPanic() {
	r := recover()
	if r == nil {
		return
	}
	if g, ok := q.nc.(*guardConn); ok {
		var id int64
		if g.owner != nil {
			id = g.owner.ID
			g.owner.x.killed.Store(true)
		}
		g.srv.clientPanic(r, "delivering pushed messages", id, quoteInput(q.sending))
	}
	q.mu.Lock()
	q.drop()
	q.mu.Unlock()
	q.nc.Close()
}

// drop discards the queue and closes it; q.mu is held.
func (q *outQueue) drop() {
	q.closed = true
	q.pieces, q.head, q.pending, q.holdAt = nil, 0, 0, -1
	q.cond.Broadcast()
}

// push queues a message (shared, not copied) and reports false when that takes the subscriber
// past limit, in which case the queue is dropped and closed.
func (q *outQueue) push(p []byte, limit config.OutputLimit) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return true
	}
	q.pieces = append(q.pieces, p)
	q.pending += int64(len(p))
	used := q.pending + q.inflight
	over := limit.Hard > 0 && used >= limit.Hard
	if !over && limit.Soft > 0 && used >= limit.Soft {
		now := time.Now()
		if q.softSince.IsZero() {
			q.softSince = now
		} else if now.Sub(q.softSince) > time.Duration(limit.SoftSeconds)*time.Second {
			over = true
		}
	} else if !over {
		q.softSince = time.Time{}
	}
	if over {
		q.drop()
		return false
	}
	if q.holdAt < 0 {
		q.cond.Signal()
	}
	return true
}

// hold keeps the writer from writing until the current command's reply is queued.
func (q *outQueue) hold() {
	q.mu.Lock()
	if q.holdAt < 0 && !q.closed {
		q.holdAt = len(q.pieces)
	}
	q.mu.Unlock()
}

// reply queues a copy of the reply of the client's command, where hold left room for it.
func (q *outQueue) reply(p []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || len(p) == 0 && q.holdAt < 0 {
		q.holdAt = -1
		return
	}
	cp := append([]byte(nil), p...)
	if q.holdAt >= 0 {
		q.pieces = slices.Insert(q.pieces, q.holdAt, cp)
		q.holdAt = -1
	} else {
		q.pieces = append(q.pieces, cp)
	}
	q.pending += int64(len(cp))
	q.cond.Signal()
}

// drain waits until everything queued is written, the queue is closed, or d passes.
func (q *outQueue) drain(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		q.mu.Lock()
		empty := q.closed || q.pending == 0 && q.inflight == 0
		q.mu.Unlock()
		if empty {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// close stops the writer and drops what is pending.
func (q *outQueue) close() {
	q.mu.Lock()
	q.drop()
	q.mu.Unlock()
}
