package server

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// MULTI/EXEC/DISCARD, WATCH/UNWATCH, and the gate that runs before the dispatcher for clients in
// a transaction or in RESP2 subscriber mode.
//
// After MULTI, handle passes each command to gate, which answers the errors Redis answers at
// queue time (unknown command, wrong arity, NOAUTH, a command flagged no-multi such as SAVE or
// SHUTDOWN, NOPERM, MISCONF; they make EXEC fail with EXECABORT) and
// queues the rest with a private copy of the arguments. EXEC takes one storage transaction over
// the union of the queued commands' keys (exclusive when a command needs the whole store), runs
// every command in it with commands.RunIn, marks the watchers of the keys the commands changed,
// and commits once: the transaction's writes reach LevelDB in one batch and no other client
// sees a part of them. It then publishes the commands' keyspace events and serves the clients
// blocked on keys the commands pushed to.
//
// WATCH registers (db, key) -> clients in a server-wide registry. A write command marks the
// watchers of the keys it changed before its commit, while it still holds the keys' locks
// (Ctx.OnWrite, called by commands.Run; EXEC does the same for its commands), so an EXEC, which
// checks its client's mark after taking its own locks, either sees the mark or runs before the
// write. FLUSHDB, FLUSHALL and SWAPDB mark the watchers of the keys that exist in the databases
// they change (KeyEvents.Flush, called inside their exclusive transaction). A watched key that
// had a time to live when it was watched fails EXEC once that time has passed, as in Redis 7.0,
// whether or not the expiry cycle has deleted it yet. Nothing of this runs while no client
// watches a key: write commands test one atomic word (commands.KeyEvents).

// txServer is the server's WATCH registry.
type txServer struct {
	mu      sync.Mutex
	watched map[watchKey]map[*client]int64 // watchers and the key's expiry when they watched it
	onWrite func(*commands.Ctx)            // s.onWrite, made once (a method value allocates)
}

type watchKey struct {
	db  int
	key string
}

// txState is one client's transaction and watches; only its connection goroutine uses it, but
// for dirty, which writers set.
type txState struct {
	active    bool // between MULTI and EXEC/DISCARD
	aborted   bool // a command was refused while queueing: EXEC answers EXECABORT
	exclusive bool // a queued command needs the whole store
	queue     []queuedCmd
	watches   []watchEntry
	dirty     atomic.Bool // a watched key was changed
}

type queuedCmd struct {
	cmd  *commands.Command
	args [][]byte
}

type watchEntry struct {
	k      watchKey
	expire int64 // unix ms when the key had a time to live at WATCH time, else 0
}

func (s *Server) initTx() {
	s.tx.watched = map[watchKey]map[*client]int64{}
	s.tx.onWrite = s.onWrite
	s.initTracking() // tracking.go
	s.ke.Flush = s.flushWatched
	s.ke.Touch = s.touch
	s.ke.SetClasses(notifyClasses(s.cfg))
	s.store.SetOnExpire(s.onExpire)
	s.store.SetOnExpireCommit(s.propagateExpired)  // cron.go
	s.store.SetOnExpireCycle(s.latencyExpireCycle) // latency.go
	s.setOutputLimit(s.cfg)
	commands.EnableKeyEvents()
}

func notifyClasses(cfg *config.Config) uint32 {
	f, err := config.ParseKeyspaceEvents(cfg.NotifyKeyspaceEvents)
	if err != nil {
		return 0
	}
	return f
}

// applyTxConfig applies the run-time directives of this file and pubsub.go after CONFIG SET.
func (s *Server) applyTxConfig(cfg *config.Config) {
	s.ke.SetClasses(notifyClasses(cfg))
	s.setOutputLimit(cfg)
}

// clientOf returns the server's client behind a command context, or nil for contexts the server
// built itself (served blocked commands).
func clientOf(ctx *commands.Ctx) *client {
	c, _ := ctx.Client.Conn.(*client)
	return c
}

// gate runs before the dispatcher for a client in MULTI or in subscriber mode. It answers the
// command and returns true when the command is refused, queued or (PING in RESP2 subscriber
// mode) answered here.
func (s *Server) gate(c *client, st *cmdState) bool {
	ctx := &c.ctx
	cmd := st.cmd
	requirePass := s.Config().RequirePass != ""
	if cmd == nil || !cmd.CheckArity(len(ctx.Args)) || !commands.ProtectedAllowed(ctx, cmd) ||
		requirePass && !c.Authed && cmd.Flags&commands.FlagNoAuth == 0 {
		commands.Dispatch(ctx, requirePass) // answers the error and runs nothing
		c.tx.aborted = c.tx.active
		return true
	}
	if c.tx.active && cmd.Flags&commands.FlagNoMulti != 0 { // SAVE, SHUTDOWN
		ctx.W.Error(commands.ErrNoMulti)
		c.tx.aborted = true
		return true
	}
	if c.ACLUser != nil {
		aclCtx := "toplevel"
		if c.tx.active {
			aclCtx = "multi"
		}
		if !commands.CheckACL(ctx, cmd, aclCtx) { // acl.go: NOPERM, ACL LOG
			c.tx.aborted = c.tx.active
			return true
		}
	}
	if cmd.Flags&commands.FlagWrite != 0 {
		if err := s.store.WriteError(); err != nil { // limits.go: the disk refuses writes
			ctx.W.Error(misconfText(err))
			c.tx.aborted = c.tx.active
			return true
		}
	}
	if c.ps.count() > 0 && c.Proto == 2 {
		switch cmd.Name {
		case "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe",
			"quit", "reset":
		case "ping":
			if len(ctx.Args) > 2 {
				ctx.W.Error(commands.ArityError("ping"))
				return true
			}
			ctx.Cmd = cmd
			ctx.W.Array(2)
			ctx.W.BulkString("pong")
			if len(ctx.Args) == 2 {
				ctx.W.Bulk(ctx.Args[1])
			} else {
				ctx.W.BulkString("")
			}
			return true
		default:
			ctx.W.Error(fmt.Sprintf("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "+
				"PING / QUIT / RESET are allowed in this context", fullName(cmd, ctx.Args)))
			c.tx.aborted = c.tx.active
			return true
		}
	}
	if c.tx.active && commands.QueuedInMulti(cmd) {
		size := 0
		for _, a := range ctx.Args {
			size += len(a)
		}
		arena := make([]byte, 0, size)
		args := make([][]byte, len(ctx.Args))
		for i, a := range ctx.Args {
			arena = append(arena, a...)
			args[i] = arena[len(arena)-len(a) : len(arena) : len(arena)]
		}
		c.tx.queue = append(c.tx.queue, queuedCmd{cmd, args})
		c.tx.exclusive = c.tx.exclusive || commands.ExecExclusive(cmd, args)
		ctx.W.Status("QUEUED")
		st.cmd = nil // counted when EXEC runs it, not now
		return true
	}
	return false
}

// fullName is Redis's name of a command in errors: "get", or "client|info" for a known
// subcommand of a container.
func fullName(cmd *commands.Command, args [][]byte) string {
	if len(cmd.Sub) > 0 && len(args) > 1 {
		sub := string(args[1])
		for _, known := range cmd.Sub {
			if len(sub) == len(known) && equalFold(sub, known) {
				return cmd.Name + "|" + known
			}
		}
	}
	return cmd.Name
}

func equalFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Multi implements MULTI.
func (s *Server) Multi(ctx *commands.Ctx) {
	c := clientOf(ctx)
	switch {
	case c == nil:
		ctx.W.Error("ERR MULTI is not allowed here")
	case c.tx.active:
		ctx.W.Error(commands.ErrNestedMulti)
	default:
		c.tx.active = true
		ctx.W.OK()
	}
}

// Discard implements DISCARD.
func (s *Server) Discard(ctx *commands.Ctx) {
	c := clientOf(ctx)
	if c == nil || !c.tx.active {
		ctx.W.Error(commands.ErrDiscardNoMulti)
		return
	}
	c.tx.endMulti()
	s.unwatchAll(c)
	ctx.W.OK()
}

func (t *txState) endMulti() {
	t.active, t.aborted, t.exclusive = false, false, false
	clear(t.queue)
	t.queue = t.queue[:0]
	if cap(t.queue) > 1024 {
		t.queue = nil
	}
}

// Watch implements WATCH: it records each key with its expiry, read under the keys' locks, so
// that no write of the keys can fall between the read and the registration.
func (s *Server) Watch(ctx *commands.Ctx) {
	c := clientOf(ctx)
	if c == nil {
		ctx.W.Error("ERR WATCH is not allowed here")
		return
	}
	if c.tx.active {
		ctx.W.Error(commands.ErrWatchInMulti)
		return
	}
	keys := ctx.Args[1:]
	db := ctx.Client.DB
	t := s.store.Begin(db, keys, false)
	defer t.Abort()
	added := 0
	s.tx.mu.Lock()
	for _, k := range keys {
		wk := watchKey{db, string(k)}
		dup := false
		for _, e := range c.tx.watches {
			dup = dup || e.k == wk
		}
		if dup {
			continue
		}
		var exp int64
		if m, err := t.GetMeta(k); err == nil && m != nil {
			exp = m.Expire
		}
		c.tx.watches = append(c.tx.watches, watchEntry{wk, exp})
		set := s.tx.watched[wk]
		if set == nil {
			set = map[*client]int64{}
			s.tx.watched[wk] = set
		}
		set[c] = exp
		added++
	}
	s.tx.mu.Unlock()
	s.ke.AddWatches(added)
	ctx.W.OK()
}

// Unwatch implements UNWATCH.
func (s *Server) Unwatch(ctx *commands.Ctx) {
	if c := clientOf(ctx); c != nil {
		s.unwatchAll(c)
	}
	ctx.W.OK()
}

// unwatchAll forgets c's watched keys and its dirty mark.
func (s *Server) unwatchAll(c *client) {
	if len(c.tx.watches) > 0 {
		s.tx.mu.Lock()
		for _, e := range c.tx.watches {
			if set := s.tx.watched[e.k]; set != nil {
				delete(set, c)
				if len(set) == 0 {
					delete(s.tx.watched, e.k)
				}
			}
		}
		s.tx.mu.Unlock()
		s.ke.AddWatches(-len(c.tx.watches))
		c.tx.watches = c.tx.watches[:0]
	}
	c.tx.dirty.Store(false)
}

// watchFailed reports whether EXEC must fail for c: a watched key was changed, or had a time to
// live that has passed (the key expired, logically, since WATCH).
func (c *client) watchFailed(now int64) bool {
	if c.tx.dirty.Load() {
		return true
	}
	for _, e := range c.tx.watches {
		if e.expire != 0 && e.expire <= now {
			return true
		}
	}
	return false
}

// touch marks the clients that watch key in db.
func (s *Server) touch(db int, key []byte) {
	s.tx.mu.Lock()
	for c := range s.tx.watched[watchKey{db, string(key)}] {
		c.tx.dirty.Store(true)
	}
	s.tx.mu.Unlock()
}

// touchChanged marks the watchers of what a command changed: the keys of its events when they
// are complete (Tracked), else every key it declares, in db. While clients track keys, it
// sends them the invalidations of the same keys (tracking.go).
func (s *Server) touchChanged(ctx *commands.Ctx, db int) {
	var changed [][]byte
	track := s.trk.armed.Load()
	if ctx.Tracked {
		for _, ev := range ctx.Events {
			s.touch(ev.DB, ev.Key)
			if track {
				changed = append(changed, ev.Key)
			}
		}
	} else {
		changed = commands.TxnKeys(ctx.Cmd, ctx.Args)
		for _, k := range changed {
			s.touch(db, k)
		}
	}
	if track && len(changed) > 0 {
		s.invalidateWrites(ctx, changed)
	}
}

// onWrite is Ctx.OnWrite: commands.Run calls it for a command that staged writes, before the
// commit, while the command's keys are locked.
func (s *Server) onWrite(ctx *commands.Ctx) {
	if s.ke.Watching() {
		s.touchChanged(ctx, ctx.Client.DB)
	}
}

// flushWatched is KeyEvents.Flush: FLUSHDB, FLUSHALL and SWAPDB mark the watchers of the keys
// that exist in a database they empty or swap (for SWAPDB, in either database), as Redis 7.0's
// touchAllWatchedKeysInDb does. It runs inside the command's exclusive transaction, before the
// command changes anything.
func (s *Server) flushWatched(ctx *commands.Ctx, dbs []int, swap bool) {
	if !swap && s.trk.armed.Load() {
		s.trackFlush() // tracking.go: FLUSHDB and FLUSHALL, not SWAPDB, as in Redis 7.0
	}
	t := ctx.Txn
	live := func(db int, key string) bool {
		m, err := t.GetMetaIn(db, []byte(key))
		return err != nil || m != nil
	}
	s.tx.mu.Lock()
	defer s.tx.mu.Unlock()
	for wk, set := range s.tx.watched {
		for i, db := range dbs {
			if wk.db != db {
				continue
			}
			hit := live(db, wk.key)
			if swap && !hit {
				hit = live(dbs[1-i], wk.key)
			}
			if hit {
				for c := range set {
					c.tx.dirty.Store(true)
				}
			}
			break
		}
	}
}

// onExpire is the store's expiry hook: the active expiry cycle deleted key. It publishes the
// "expired" event and marks the watchers that saw the key alive with its time to live (a key
// already expired when watched is, as in Redis 7.0, not a change when it is deleted).
func (s *Server) onExpire(db int, key []byte) {
	if s.ke.Classes()&config.NotifyExpired != 0 {
		s.publishEvents([]commands.Event{{Class: config.NotifyExpired, Name: "expired", DB: db, Key: key}})
	}
	if !s.ke.Watching() {
		return
	}
	s.tx.mu.Lock()
	for c, exp := range s.tx.watched[watchKey{db, string(key)}] {
		if exp != 0 {
			c.tx.dirty.Store(true)
		}
	}
	s.tx.mu.Unlock()
	if s.trk.armed.Load() {
		s.invalidateKeys(0, [][]byte{key}) // tracking.go
	}
}

// afterDispatch runs after the dispatcher ran a command on the normal path: it publishes the
// command's keyspace events once they are committed.
func (s *Server) afterDispatch(c *client) {
	ctx := &c.ctx
	if len(ctx.Events) > 0 {
		if r := c.w.Bytes(); len(r) > 0 && r[0] != '-' {
			s.publishEvents(ctx.Events)
		}
	}
}

// Exec implements EXEC.
func (s *Server) Exec(ctx *commands.Ctx) {
	c := clientOf(ctx)
	if c == nil || !c.tx.active {
		ctx.W.Error(commands.ErrExecNoMulti)
		return
	}
	queue, aborted, exclusive := c.tx.queue, c.tx.aborted, c.tx.exclusive
	c.tx.queue = nil
	c.tx.endMulti()
	if aborted {
		s.unwatchAll(c)
		ctx.W.Error(commands.ErrExecAbort)
		return
	}
	db := ctx.Client.DB
	var t *storage.Txn
	if exclusive {
		t = s.store.BeginExclusive(db)
	} else {
		var keys [][]byte
		write := false
		for _, q := range queue {
			if !commands.ExecDeferred(q.cmd) {
				keys = append(keys, commands.TxnKeys(q.cmd, q.args)...)
				write = write || q.cmd.Flags&commands.FlagWrite != 0
			}
		}
		t = s.store.Begin(db, keys, write)
	}
	if ctx.KeepExpired {
		t.KeepExpired() // the master client of a replica
	}
	done := false
	defer func() {
		if !done { // a panic outside the handlers (RunIn recovers theirs): release the store
			t.Abort()
		}
	}()
	// The watch marks are read with the locks held: a write of a watched key either marked
	// the client already or waits for this transaction.
	if c.watchFailed(time.Now().UnixMilli()) {
		done = true
		t.Abort()
		s.unwatchAll(c)
		ctx.W.NullArray()
		return
	}
	s.unwatchAll(c)

	w := resp.Writer{Proto: ctx.W.Proto}
	type part struct{ start, end int }
	parts := make([]part, len(queue))
	deferred := false
	watching := s.ke.Watching()
	var events []commands.Event
	var ready []commands.ReadyKey
	var effects commands.EffectLog // propagate.go: the writes, in MULTI/EXEC when several
	for i, q := range queue {
		if commands.ExecDeferred(q.cmd) {
			parts[i] = part{-1, -1}
			deferred = true
			continue
		}
		sub := commands.Ctx{Args: q.args, Cmd: q.cmd, Client: ctx.Client, Store: s.store, Txn: t,
			W: &w, Env: s, KE: ctx.KE, OnRead: ctx.OnRead, // OnRead: for the scripts EXEC runs
			Propagate: ctx.Propagate} // read by the command for what it records; EXEC sends it
		cmdDB := ctx.Client.DB
		before, mark := t.Writes(), t.Mark()
		start := w.Len()
		began := time.Now()
		failed := commands.RunIn(&sub)
		if q.cmd.Flags&commands.FlagReadonly != 0 {
			s.trackRead(&sub) // tracking.go: the keys a tracking client reads in EXEC
		}
		parts[i] = part{start, w.Len()}
		s.CountCall(&sub, began, w.Bytes()[start:])
		if sub.Txn != t {
			// Only COPY ... DB replaces a shared transaction, and ExecExclusive makes EXEC
			// exclusive for it; should another command do so, its transaction is the one to
			// commit from here on.
			slog.Error("command replaced the EXEC transaction", "command", q.cmd.Name)
			t = sub.Txn
		}
		if ctx.Client.DB != cmdDB {
			t.UseDB(ctx.Client.DB) // SELECT: EXEC is exclusive
		}
		if failed {
			if ctx.Propagate != nil {
				effects.AddExpired(&sub, t, mark) // LSET of an expired key deleted it
			}
			continue
		}
		if ctx.Propagate != nil {
			effects.AddCommand(cmdDB, &sub, t, mark)
		}
		events = append(events, sub.Events...)
		if watching && t.Writes() > before {
			s.touchChanged(&sub, cmdDB)
		}
		ready = signalChangedKeys(s, &sub, append(ready, sub.Ready...)) // blocking_stream.go
	}
	done = true
	if s.scriptsStopped.Load() && runsScript(queue) {
		t.Abort() // server.go: shutdown stopped its script, whose writes are dropped
		return
	}
	if ctx.BeforeCommit != nil && t.Writes() > 0 {
		ctx.BeforeCommit(t) // replica.go: the master client's offset
	}
	effects.SendOnCommit(t, ctx.Propagate)
	if err := t.Commit(); err != nil {
		ctx.Fail(err)
		return
	}
	if len(events) > 0 {
		s.publishEvents(events)
	}
	if len(ready) > 0 && totalWaiters.Load() > 0 {
		s.serveReady(ready) // blocking.go: the keys' types are judged now, after the whole transaction
	}
	var dw resp.Writer
	var dparts []part
	if deferred {
		// Commands that read store-wide state under the store's lock run now, after the
		// commit, and see the whole transaction.
		dw.Proto = w.Proto
		dparts = make([]part, len(queue))
		for i, q := range queue {
			if parts[i].start >= 0 {
				continue
			}
			sub := commands.Ctx{Args: q.args, Cmd: q.cmd, Client: ctx.Client, Store: s.store, W: &dw, Env: s}
			start := dw.Len()
			began := time.Now()
			commands.Run(&sub)
			dparts[i] = part{start, dw.Len()}
			r := dw.Bytes()[start:]
			s.CountCall(&sub, began, r)
		}
	}
	ctx.W.Array(len(queue))
	for i, p := range parts {
		if p.start >= 0 {
			ctx.W.Raw(w.Bytes()[p.start:p.end])
		} else {
			ctx.W.Raw(dw.Bytes()[dparts[i].start:dparts[i].end])
		}
	}
}

// CountCall counts a command EXEC or a script ran in INFO commandstats and errorstats, as Redis
// counts the calls made inside a transaction or a script (commands.CallCounter). An error that
// repeats one already counted (errCounted) counts as a failed call only.
func (s *Server) CountCall(sub *commands.Ctx, began time.Time, reply []byte) {
	failed := len(reply) > 0 && reply[0] == '-'
	cmd, errCounted := sub.Cmd, sub.ErrorCounted
	dur := time.Since(began)
	if sub.Script != nil { // a script's calls come from its own client, unnamed and unconnected
		s.slowLogCall(&commands.Client{Addr: "?:0"}, cmd, sub.Args, dur) // slowlog.go
	} else {
		s.slowLogCall(sub.Client, cmd, sub.Args, dur)
	}
	if s.monitorsOn() { // monitor.go
		s.feedMonitors(sub.Client, sub.Client.DB, cmd, sub.Args, sub.Script != nil)
	}

	s.buildCmdStats()
	if cs := s.x.cmdStats[cmd]; cs != nil {
		cs.calls.Add(1)
		cs.usec.Add(dur.Microseconds())
		s.latencyCall(cs, cmd, dur) // latency.go
		if failed {
			cs.failed.Add(1)
		}
	}
	if failed && !errCounted {
		s.countError(reply)
	}
}

// dropTx forgets a closing client's transaction and watches.
func (s *Server) dropTx(c *client) {
	c.tx.endMulti()
	s.unwatchAll(c)
}
