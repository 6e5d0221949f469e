package server

import (
	"container/list"
	"errors"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/tidwall/redcon"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// Blocking commands (BLPOP, BRPOP, BRPOPLPUSH, BLMOVE, BLMPOP, BZPOPMIN, BZPOPMAX, BZMPOP,
// XREAD and XREADGROUP; the streams' own rules are in blocking_stream.go).
//
// A handler that finds nothing to pop calls Ctx.Block; the dispatcher then calls registerBlocked
// (Ctx.OnBlock) while the command's key locks are still held, so no push can slip between the
// emptiness check and the registration. The registry maps (db, key) to a FIFO of waiters.
//
// A command that pushes, or moves a key into place (RENAME, MOVE, COPY, SWAPDB), calls
// Ctx.Signal for its keys (with their database). After the command, or the whole EXEC or
// script, has committed, its connection goroutine serves the ready keys (serveReady): for each
// ready key, in order, it takes the key's waiters in the order they blocked and re-runs each
// one's command on that key alone, in a transaction that first checks the key's type: a list
// serves the list commands' waiters, a sorted set the sorted-set ones, and a key that is gone
// or of another type serves nobody (the waiters stay blocked). A served waiter is removed from
// all its keys and its reply handed to it over its channel. A served command may push (BLMOVE)
// and signal more keys, which join the queue. Serving is serialized by one mutex, and the
// registry mutex is never held while key locks are taken.
//
// The blocked client's own connection goroutine waits (waitBlocked) for its reply, its timeout,
// or the peer closing the connection. A waiter's state (waiting, serving, done) decides races:
// exactly one of serve, timeout and disconnect wins, and a timeout that hits while the server is
// re-running the waiter's command waits for the outcome. A blocked client costs a goroutine and a
// poller registration; nothing polls the disk.

// waiter states, guarded by blockRegistry.mu.
const (
	waitWaiting = iota
	waitServing
	waitDone
)

type blockKey struct {
	db  int
	key string
}

// waiter is one blocked client.
type waiter struct {
	clientID int64
	db       int
	proto    int
	cmd      *commands.Command
	args     [][]byte // a private copy: redcon reuses its read buffer
	keys     []blockKey
	elems    []*list.Element // this waiter's entry in each key's FIFO
	timeout  time.Duration   // 0: forever

	state  int
	ran    time.Duration // how long the serving run took (the slow log's duration)
	cancel bool          // a timeout or disconnect arrived while serving
	reply  chan []byte   // cap 1: the reply, or nil when cancelled during a serve that found nothing
}

// blockRegistry is one server's blocked clients.
type blockRegistry struct {
	mu       sync.Mutex
	keys     map[blockKey]*list.List // FIFO of *waiter
	pending  map[int64]*waiter       // registered, not yet picked up by the connection goroutine
	byClient map[int64]*waiter       // every registered waiter by client ID (CLIENT UNBLOCK)
	serveMu  sync.Mutex              // one serving pass at a time
}

// totalWaiters counts blocked clients across servers, so commands skip the registry when no
// client is blocked anywhere.
var totalWaiters atomic.Int64

// registries maps a server to its registry without keeping the server alive.
var registries sync.Map // weak.Pointer[Server] -> *blockRegistry

func (s *Server) blockRegistry() *blockRegistry {
	wp := weak.Make(s)
	if r, ok := registries.Load(wp); ok {
		return r.(*blockRegistry)
	}
	r := &blockRegistry{keys: map[blockKey]*list.List{}, pending: map[int64]*waiter{}, byClient: map[int64]*waiter{}}
	if prev, loaded := registries.LoadOrStore(wp, r); loaded {
		return prev.(*blockRegistry)
	}
	runtime.AddCleanup(s, func(wp weak.Pointer[Server]) { registries.Delete(wp) }, wp)
	return r
}

// registerBlocked is Ctx.OnBlock: it queues the client on every key it blocks on. It runs while
// the command's key locks are held.
func registerBlocked(ctx *commands.Ctx) {
	s, ok := ctx.Env.(*Server)
	if !ok {
		return
	}
	r := s.blockRegistry()
	w := &waiter{clientID: ctx.Client.ID, db: ctx.Client.DB, proto: ctx.Client.Proto, cmd: ctx.Cmd,
		timeout: ctx.BlockTimeout, reply: make(chan []byte, 1)}
	size := 0
	for _, a := range ctx.Args {
		size += len(a)
	}
	arena := make([]byte, 0, size)
	w.args = make([][]byte, len(ctx.Args))
	for i, a := range ctx.Args {
		arena = append(arena, a...)
		w.args[i] = arena[len(arena)-len(a) : len(arena) : len(arena)]
	}
	for _, k := range ctx.BlockKeys {
		bk := blockKey{w.db, string(k)}
		dup := false
		for _, o := range w.keys {
			dup = dup || o == bk
		}
		if !dup {
			w.keys = append(w.keys, bk)
		}
	}
	r.mu.Lock()
	for _, bk := range w.keys {
		l := r.keys[bk]
		if l == nil {
			l = list.New()
			r.keys[bk] = l
		}
		w.elems = append(w.elems, l.PushBack(w))
	}
	r.pending[w.clientID] = w
	r.byClient[w.clientID] = w
	r.mu.Unlock()
	totalWaiters.Add(1)
	if w.cmd.Name == "xreadgroup" {
		groupWaiters.Add(1) // blocking_stream.go
	}
}

// remove takes w off every key. r.mu must be held.
func (r *blockRegistry) remove(w *waiter) {
	for i, bk := range w.keys {
		if l := r.keys[bk]; l != nil {
			l.Remove(w.elems[i])
			if l.Len() == 0 {
				delete(r.keys, bk)
			}
		}
	}
	w.elems = nil
	if r.byClient[w.clientID] == w {
		delete(r.byClient, w.clientID)
	}
	totalWaiters.Add(-1)
	if w.cmd.Name == "xreadgroup" {
		groupWaiters.Add(-1)
	}
}

// errUnblocked is the reply of a client that CLIENT UNBLOCK ... ERROR wakes.
const errUnblocked = "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"

// UnblockClient implements CLIENT UNBLOCK: it wakes client id if it waits in a blocking
// command (any command that blocked through Ctx.Block), with the reply of its timeout or,
// withError, an -UNBLOCKED error, and reports whether it did. A client whose command is being
// served at that moment gets its served reply instead, and a client held by CLIENT PAUSE is
// not blocked in this sense: both answer 0.
func (s *Server) UnblockClient(id int64, withError bool) bool {
	r := s.blockRegistry()
	r.mu.Lock()
	w := r.byClient[id]
	if w == nil || w.state != waitWaiting {
		r.mu.Unlock()
		return false
	}
	w.state = waitDone
	r.remove(w)
	r.mu.Unlock()
	wr := resp.Writer{Proto: w.proto}
	if withError {
		wr.Raw([]byte(errUnblocked))
	} else {
		wr.NullArray() // every blocking command's timeout reply
	}
	w.reply <- wr.Bytes() // the waiting goroutine takes it as a served reply, or claim does
	return true
}

// afterBlocking is called by handle after the dispatcher: it suspends a blocked client until
// it is served, times out or goes away, and serves the clients blocked on keys the command
// pushed to.
func (s *Server) afterBlocking(conn redcon.Conn, c *client) {
	ctx := &c.ctx
	if ctx.Blocked {
		s.waitBlocked(conn, c)
	}
	if len(ctx.Ready) > 0 && totalWaiters.Load() > 0 {
		s.serveReady(ctx.Ready)
	}
}

// waitBlocked waits for the client's registered waiter to be served, time out, or lose its
// connection, and leaves the reply (if any) in c.w.
func (s *Server) waitBlocked(conn redcon.Conn, c *client) {
	defer c.x.blocked.Store(false)
	r := s.blockRegistry()
	r.mu.Lock()
	w := r.pending[c.ID]
	delete(r.pending, c.ID)
	r.mu.Unlock()
	if w == nil {
		c.w.NullArray()
		return
	}
	flushConn(conn) // replies to commands pipelined before this one
	var expired <-chan time.Time
	if w.timeout > 0 {
		t := time.NewTimer(w.timeout)
		defer t.Stop()
		expired = t.C
	}
	gone := make(chan struct{})
	stopWatch := watchPeerClose(conn, gone)
	var reply []byte
	served, disconnected := false, false
	select {
	case reply = <-w.reply:
		served = true
	case <-expired:
	case <-gone:
		disconnected = true
	case <-s.closing:
		disconnected = true
	}
	stopWatch()
	if !served {
		reply, served = r.claim(w)
	}
	switch {
	case served && reply != nil:
		// INFO commandstats and errorstats: BLMOVE's WRONGTYPE, CLIENT UNBLOCK's UNBLOCKED,
		// a destroyed group's NOGROUP (blocking_stream.go).
		s.countServedError(w.cmd, reply)
		if !c.ReplyOff {
			c.w.Raw(reply)
		}
		s.slowLogCall(&c.Client, w.cmd, w.args, w.ran) // slowlog.go: logged once served, as in Redis
	case disconnected:
		select {
		case <-gone:
			// The client closed its side: like Redis, which frees a client whose read sees
			// EOF, drop it with nothing of what it sent after the blocked command run.
			c.x.killed.Store(true)
			if c.guard != nil {
				c.guard.early = nil
			}
			conn.Close()
		default:
		}
	default:
		if !c.ReplyOff {
			c.w.NullArray()
		}
	}
}

// claim ends w's wait on a timeout or disconnect. If the server is re-running w's command at that
// moment, claim waits for the outcome and returns the reply when the command was served; if
// CLIENT UNBLOCK ended the wait first, claim returns the reply it left.
func (r *blockRegistry) claim(w *waiter) ([]byte, bool) {
	r.mu.Lock()
	switch w.state {
	case waitWaiting:
		w.state = waitDone
		r.remove(w)
		r.mu.Unlock()
		return nil, false
	case waitServing:
		w.cancel = true
	}
	r.mu.Unlock()
	reply := <-w.reply
	return reply, reply != nil
}

// serveReady serves the clients blocked on the ready keys, in the order the keys were
// signalled and, for each key, in the order the clients blocked. A key is judged by its type
// now, once the command or transaction that signalled it has committed: a list serves the
// clients of the list commands, a sorted set those of the sorted-set commands, and the others
// stay blocked, as do all of them when the key is gone or holds another type. Each served
// client's command runs again, on that key alone, until the key is empty.
func (s *Server) serveReady(ready []commands.ReadyKey) {
	r := s.blockRegistry()
	var queue []blockKey
	seen := map[blockKey]bool{}
	add := func(ready []commands.ReadyKey) {
		r.mu.Lock()
		for _, rk := range ready {
			if rk.Key == nil {
				queue = r.keysOfDB(rk.DB, queue, seen)
				continue
			}
			bk := blockKey{rk.DB, string(rk.Key)}
			if !seen[bk] && r.keys[bk] != nil {
				seen[bk] = true
				queue = append(queue, bk)
			}
		}
		r.mu.Unlock()
	}
	add(ready)
	if len(queue) == 0 {
		return
	}
	r.serveMu.Lock()
	defer r.serveMu.Unlock()
	for len(queue) > 0 {
		bk := queue[0]
		queue = queue[1:]
		delete(seen, bk) // a later push by a served command may make it ready again
		tried := map[*waiter]bool{}
		for {
			r.mu.Lock()
			var w *waiter
			if l := r.keys[bk]; l != nil {
				for e := l.Front(); e != nil; e = e.Next() {
					if cand := e.Value.(*waiter); cand.state == waitWaiting && !tried[cand] {
						w = cand
						break
					}
				}
			}
			if w == nil {
				r.mu.Unlock()
				break
			}
			w.state = waitServing
			r.mu.Unlock()

			began := time.Now()
			reply, outcome, more := s.runWaiter(w, bk.key)
			w.ran = time.Since(began)

			r.mu.Lock()
			if reply != nil || w.cancel {
				w.state = waitDone
				r.remove(w)
				r.mu.Unlock()
				w.reply <- reply
			} else {
				w.state = waitWaiting
				r.mu.Unlock()
			}
			if len(more) > 0 {
				add(more)
			}
			if outcome == serveEmpty {
				break // the key is gone or empty
			}
			tried[w] = true // served, or waiting for another type: on to the next client
		}
	}
}

// keysOfDB appends to queue the keys of database db that clients block on, sorted, that are
// not in seen yet, and marks them. r.mu must be held.
func (r *blockRegistry) keysOfDB(db int, queue []blockKey, seen map[blockKey]bool) []blockKey {
	var keys []string
	for bk := range r.keys {
		if bk.db == db && !seen[blockKey{db, bk.key}] {
			keys = append(keys, bk.key)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		seen[blockKey{db, k}] = true
		queue = append(queue, blockKey{db, k})
	}
	return queue
}

// Outcomes of re-running a waiter's command.
const (
	serveDone      = iota // the command answered (elements, or an error such as WRONGTYPE)
	serveEmpty            // the key is gone or empty: no later client of the key can be served
	serveWrongKind        // the key holds the other blocking type: this client stays blocked
)

// blockKind is the type of key each blocking command waits for.
var blockKind = map[string]storage.Type{
	"blpop": storage.TypeList, "brpop": storage.TypeList, "brpoplpush": storage.TypeList,
	"blmove": storage.TypeList, "blmpop": storage.TypeList,
	"bzpopmin": storage.TypeZSet, "bzpopmax": storage.TypeZSet, "bzmpop": storage.TypeZSet,
	"xread": storage.TypeStream, "xreadgroup": storage.TypeStream,
}

// runWaiter re-runs w's command on the ready key alone, in a transaction over the command's
// keys that first checks the key's type. It returns the reply (nil when the client stays
// blocked), the outcome, and the keys the command pushed to (BLMOVE's destination).
func (s *Server) runWaiter(w *waiter, key string) ([]byte, int, []commands.ReadyKey) {
	args := narrowArgs(w.cmd.Name, w.args, key)
	t := s.store.Begin(w.db, commands.TxnKeys(w.cmd, args), true)
	stream := blockKind[w.cmd.Name] == storage.TypeStream
	if stream {
		if reply, outcome, done := streamWaiterGone(t, w, args, key); done {
			return reply, outcome, nil // blocking_stream.go
		}
	}
	m, err := t.GetMeta([]byte(key))
	if err == nil && m == nil && t.Writes() > 0 {
		s.commitExpired(t, w.db) // the key had expired: the lookup deleted it
		return nil, serveEmpty, nil
	}
	if err != nil || m == nil || !stream && m.Type != storage.TypeList && m.Type != storage.TypeZSet {
		t.Abort()
		return nil, serveEmpty, nil // gone, unreadable, or a type no client blocks for
	}
	if m.Type != blockKind[w.cmd.Name] {
		t.Abort()
		return nil, serveWrongKind, nil
	}
	// The client's queued output (RESP3 tracking, pub/sub) is held until its reply is queued,
	// so that the invalidations its own command causes follow the reply.
	var q *outQueue
	if c := s.clientByID(w.clientID); c != nil {
		if q = c.trk.q.Load(); q != nil {
			q.hold()
		}
	}
	cl := commands.Client{ID: w.clientID, DB: w.db, Proto: w.proto, Authed: true}
	wr := resp.Writer{Proto: w.proto}
	ctx := commands.Ctx{Args: args, Cmd: w.cmd, Client: &cl, Store: s.store, Txn: t, W: &wr, Env: s,
		KE: &s.ke, Propagate: s.propagateFunc()}
	if failed := commands.RunIn(&ctx); failed {
		t.Abort() // BLMOVE to a destination of another type: the client gets the error
		return wr.Bytes(), serveDone, nil
	}
	if stream && streamNothing(wr.Bytes()) {
		t.Abort() // nothing new for this client: it stays blocked
		if q != nil {
			q.reply(nil)
		}
		return nil, serveWrongKind, nil
	}
	if wr.Len() == 0 || t.Writes() == 0 && !stream {
		t.Abort() // not expected: the key holds elements of the right type
		if q != nil {
			q.reply(nil) // releases the hold
		}
		return nil, serveEmpty, nil
	}
	s.tx.onWrite(&ctx)       // the pop marks watchers and invalidates tracked keys
	ctx.PropagateOnCommit(t) // the pop in its non-blocking form (LPOP, LMOVE, ZPOPMIN)
	if err := t.Commit(); err != nil {
		wr.Reset()
		ctx.Fail(err)
		return wr.Bytes(), serveDone, nil
	}
	if len(ctx.Events) > 0 {
		s.publishEvents(ctx.Events)
	}
	return wr.Bytes(), serveDone, ctx.Ready
}

// commitExpired commits t, which holds only the deletion of keys of database db found expired,
// and propagates their DELs: the client that was woken for such a key stays blocked, and the
// key is gone, as in Redis.
func (s *Server) commitExpired(t *storage.Txn, db int) {
	ctx := commands.Ctx{Client: &commands.Client{DB: db}, Store: s.store, Env: s, Propagate: s.propagateFunc()}
	var l commands.EffectLog
	l.AddExpired(&ctx, t, storage.TxnMark{})
	l.SendOnCommit(t, ctx.Propagate)
	if err := t.Commit(); err != nil {
		s.log.Warn("deleting an expired key", "err", err)
	}
}

// narrowArgs returns a blocking command's arguments with its keys replaced by key alone, so
// that the command pops from the key that became ready, whatever its other keys hold.
func narrowArgs(name string, args [][]byte, key string) [][]byte {
	k := []byte(key)
	switch name {
	case "blpop", "brpop", "bzpopmin", "bzpopmax":
		return [][]byte{args[0], k, args[len(args)-1]}
	case "blmpop", "bzmpop":
		n, err := strconv.Atoi(string(args[2]))
		if err != nil || n < 1 || 3+n > len(args) {
			return args
		}
		out := [][]byte{args[0], args[1], []byte("1"), k}
		return append(out, args[3+n:]...)
	case "xread", "xreadgroup":
		return commands.NarrowXRead(args, k)
	}
	return args // BLMOVE and BRPOPLPUSH block on their source alone
}

// blockedReadMax bounds what a blocked client's watcher reads ahead of the request parser.
// Past it the watcher stops reading: the rest waits in the socket, and a close behind it is
// seen once the blocked command is answered.
const blockedReadMax = 1 << 20

// watchPeerClose closes gone when the client closes its side of the connection (or it is reset)
// while the client is blocked. Like Redis, which keeps reading from a blocked client, it reads
// what the client sends meanwhile, into the request guard's early buffer (up to
// blockedReadMax), so that a close behind pipelined commands is seen too; the guard parses
// those bytes once the blocked command is answered. A waiting read costs a goroutine and a
// poller registration, nothing while the client is quiet. The returned stop function ends the
// watch; gone is closed only for a close or an error of the connection.
func watchPeerClose(conn redcon.Conn, gone chan struct{}) (stop func()) {
	g, ok := conn.NetConn().(*guardConn)
	if !ok {
		return func() {}
	}
	var stopping atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		if !g.watchRead(&stopping) {
			close(gone)
		}
	}()
	return func() {
		stopping.Store(true)
		g.Conn.SetReadDeadline(time.Now())
		<-done
		g.Conn.SetReadDeadline(time.Time{})
		if c := g.wakeFor.Load(); c != nil && c.trk.pending.Load() {
			g.Conn.SetReadDeadline(time.Now()) // tracking.go: wake the reader for them
		}
	}
}

// watchRead reads what a blocked client sends into g.early until stopping is set (a deadline
// then ends the read), the connection fails, or blockedReadMax bytes are buffered. It reports
// false when the connection closed or failed; a panic also counts as that (panics.go).
func (g *guardConn) watchRead(stopping *atomic.Bool) (open bool) {
	defer func() {
		if r := recover(); r != nil {
			g.panicked(r, "watching a blocked client", g.early)
			open = false
		}
	}()
	for len(g.early) < blockedReadMax {
		room := blockedReadMax - len(g.early)
		if cap(g.early)-len(g.early) < 512 {
			g.early = slices.Grow(g.early, min(max(512, len(g.early)), room))
		}
		free := g.early[len(g.early):cap(g.early)]
		n, err := g.Conn.Read(free[:min(len(free), room)])
		g.early = g.early[:len(g.early)+n]
		g.srv.stats.netIn.Add(int64(n))
		if g.srv.panicHook != nil {
			g.srv.panicPoint("blocked", g.early)
		}
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded) && stopping.Load():
			return true
		case errors.Is(err, os.ErrDeadlineExceeded):
			// A deadline set to wake the connection's reader for invalidations
			// (tracking.go): the watch's stop re-arms it if they are still pending. A stop
			// that came meanwhile set its own deadline first.
			g.Conn.SetReadDeadline(time.Time{})
			if stopping.Load() {
				return true
			}
		default:
			return false // orderly shutdown by the peer, or a reset
		}
	}
	return true
}
