package server

import (
	"errors"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"
	"golang.org/x/sys/unix"
)

// With io-model loop (the default) plain TCP clients are served by a few event loops, each an
// epoll set owning many connections, as Redis serves them: a loop reads every ready socket
// once, runs every complete command it holds through handle, writes each connection's replies
// with one write, and waits again. No goroutine is parked per idle connection.
//
// A connection's descriptor is taken out of Go's network poller (sockConn, evloop_sock.go): the
// loop reads and writes it directly, and a connection that needs a goroutine is detached to
// one that reads and writes it through a Go net.Conn, as the goroutine path does.
// A connection is detached before a command that may wait (WAIT, DEBUG, a script, PSYNC, any
// command during CLIENT PAUSE); its goroutine runs that command and the rest of its input, and
// hands it back to its loop once the connection is idle in a state the loop serves, its unread
// bytes processed after, in order. A blocking command (BLPOP, XREAD BLOCK, ...) runs in the
// loop: one that can answer at once answers there, and one that must wait registers its
// blocked client there, in order with the other connections' commands, before the connection
// is detached for the wait alone. Subscribers, monitors and tracking
// clients stay in the loop: their output goes through their outbound queue's writer
// (pubsub.go), which other goroutines push to.
//
// Everything the request guard does (protocol.go: limits, inline requests, AUTH holds, staged
// values) happens in the loop too: the loop feeds the guard's scanner and parses what it
// passes on with redcon.ReadNextCommand.

// loopReadSize is the size of a loop's read buffer, shared by its connections.
const loopReadSize = 64 << 10

// eventLoop is one epoll set and the goroutine that waits on it.
type eventLoop struct {
	s      *Server
	epfd   int
	wakefd int               // an eventfd in the set: other goroutines post tasks through it
	conns  map[int]*loopConn // by descriptor; used by the loop goroutine only
	buf    []byte            // read buffer
	events []unix.EpollEvent // epoll_wait's output
	dirty  []*loopConn       // connections with replies to write at the end of the pass
	done   chan struct{}     // closed when the loop goroutine returns
	mu     sync.Mutex        // guards tasks and stop
	tasks  []*loopConn       // connections to register, take back, wake or close
	stop   bool              // the server is closing
	woken  atomic.Bool       // a wake is posted and not yet read
}

// loopConn is a client connection served by an event loop. It implements redcon.Conn for
// handle; its replies gather in out until the loop (or its goroutine, while detached) writes them.
type loopConn struct {
	l    *eventLoop
	g    *guardConn
	sock *sockConn // g.Conn
	fd   int
	ctx  any
	out  []byte   // replies not yet written
	in   []byte   // bytes for the parser while detached
	args [][]byte // ReadNextCommand's argument slice, reused

	detached  atomic.Bool // a goroutine serves it (runDetached)
	closeReq  atomic.Bool // Close was called: the owner flushes what it can and closes
	done      bool        // closed and unregistered; owner only
	outArmed  bool        // EPOLLOUT is in the descriptor's events; loop only
	pending   bool        // in the loop's dirty list
	softTimer bool        // a timer will post it when the soft output limit's seconds are up
	blocked   bool        // the command handle just ran blocked: its wait is to be detached
	passCmds  int         // commands run since the replies were last written; loop only
}

// startLoops starts n event loops (GOMAXPROCS when n is 0) and the goroutine that accepts
// connections from ln and hands each to a loop in turn.
func (s *Server) startLoops(ln net.Listener, n int) error {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	for i := 0; i < n; i++ {
		l, err := newEventLoop(s)
		if err != nil {
			s.stopLoops()
			return err
		}
		s.loops = append(s.loops, l)
		go l.run()
	}
	s.done = make(chan error, 1)
	go s.acceptLoop(ln)
	return nil
}

func newEventLoop(s *Server) (*eventLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	wfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("eventfd", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wfd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wfd, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(wfd)
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	return &eventLoop{s: s, epfd: epfd, wakefd: wfd, conns: map[int]*loopConn{},
		buf: make([]byte, loopReadSize), events: make([]unix.EpollEvent, 256),
		done: make(chan struct{})}, nil
}

// acceptLoop accepts connections until the listener is closed, then reports on s.done.
func (s *Server) acceptLoop(ln net.Listener) {
	next := 0
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				s.done <- nil
				return
			}
			s.log.Warn("accept", "err", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		g := nc.(*guardConn)
		l := s.loops[next%len(s.loops)]
		next++
		if err := l.adopt(g); err != nil {
			s.log.Warn("accept", "err", err)
			g.Conn.Close()
		}
	}
}

// adopt makes g a client of the loop, or closes it when the server refuses it.
func (l *eventLoop) adopt(g *guardConn) error {
	sock, err := newSockConn(g.Conn) // evloop_sock.go
	if err != nil {
		return err
	}
	g.Conn = sock
	lc := &loopConn{l: l, g: g, sock: sock, fd: sock.fd}
	if !l.s.accept(lc) { // server.go: maxclients, protected mode
		lc.flushBlocking()
		sock.closeFD()
		return nil
	}
	g.lc = lc
	l.post(lc)
	return nil
}

// post hands lc to the loop goroutine, which registers it, takes it back from its goroutine,
// sends its pending invalidations or closes it, as its state says.
func (l *eventLoop) post(lc *loopConn) {
	l.mu.Lock()
	l.tasks = append(l.tasks, lc)
	l.mu.Unlock()
	l.wake()
}

func (l *eventLoop) wake() {
	if l.woken.CompareAndSwap(false, true) {
		var one = [8]byte{1}
		unix.Write(l.wakefd, one[:])
	}
}

// run is the loop goroutine: it waits for ready descriptors and serves them until the server
// stops.
func (l *eventLoop) run() {
	defer close(l.done)
	for {
		n, err := unix.EpollWait(l.epfd, l.events, -1)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			l.s.log.Error("epoll_wait", "err", err)
			return
		}
		for i := 0; i < n; i++ {
			ev := l.events[i]
			fd := int(ev.Fd)
			if fd == l.wakefd {
				if l.runTasks() {
					l.flushDirty()
					l.shutdown()
					return
				}
				continue
			}
			if lc := l.conns[fd]; lc != nil {
				l.serve(lc, ev.Events)
			}
		}
		l.flushDirty()
	}
}

// runTasks serves the posted connections; it reports true when the loop is to stop.
func (l *eventLoop) runTasks() bool {
	var b [8]byte
	unix.Read(l.wakefd, b[:])
	l.woken.Store(false)
	l.mu.Lock()
	tasks, stop := l.tasks, l.stop
	l.tasks = nil
	l.mu.Unlock()
	for _, lc := range tasks {
		if lc.detached.Load() || lc.done {
			continue
		}
		if l.conns[lc.fd] != lc {
			// New, or handed back by its goroutine.
			ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(lc.fd)}
			if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, lc.fd, &ev); err != nil {
				l.finish(lc)
				continue
			}
			lc.outArmed = false
			l.conns[lc.fd] = lc
		}
		if c := lc.client(); c != nil && c.trk.pending.Load() {
			l.s.takeInbox(c) // tracking.go: invalidations delivered from other goroutines
		}
		lc.softTimer = false
		l.flush(lc) // pending output: the soft output limit's timer posts it
		l.process(lc)
	}
	return stop
}

// shutdown closes the loop's connections and its descriptors.
func (l *eventLoop) shutdown() {
	for _, lc := range l.conns {
		lc.closeReq.Store(true)
		l.finish(lc)
	}
	unix.Close(l.epfd)
	unix.Close(l.wakefd)
}

// serve handles the events of one connection: pending output, then what it sent.
func (l *eventLoop) serve(lc *loopConn, events uint32) {
	if events&unix.EPOLLOUT != 0 {
		l.flush(lc)
		if lc.done {
			return
		}
	}
	if events&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLERR|unix.EPOLLRDHUP) == 0 {
		return
	}
	n, err := lc.read(l.buf)
	if n > 0 {
		l.s.stats.netIn.Add(int64(n))
		if !lc.scan(l.buf[:n]) {
			l.finish(lc)
			return
		}
	}
	if n == 0 && err == nil || err != nil && err != unix.EAGAIN {
		// The peer closed its side or the connection failed: like Redis, the client is freed
		// without running what it sent after the last complete command read.
		l.process(lc)
		if !lc.detached.Load() {
			l.finish(lc)
		}
		return
	}
	l.process(lc)
}

// read reads once from lc's socket without waiting.
func (lc *loopConn) read(p []byte) (int, error) {
	n, err := unix.Read(lc.fd, p)
	if n < 0 {
		n = 0
	}
	return n, err
}

// scan feeds b to the request guard; it reports false when a panic closed the connection
// (panics.go).
func (lc *loopConn) scan(b []byte) (ok bool) {
	g := lc.g
	defer func() {
		if r := recover(); r != nil {
			g.panicked(r, "reading a request", g.scanning)
			ok = false
		}
	}()
	g.scan(b)
	return !g.broken
}

// process runs every complete command the guard has passed on, in the loop, and writes the
// replies; a command that may wait detaches the connection to a goroutine first.
func (l *eventLoop) process(lc *loopConn) {
	g := lc.g
	for !lc.done && !lc.closeReq.Load() {
		if !l.runCommands(lc) {
			return // detached
		}
		if lc.closeReq.Load() {
			break
		}
		// A request held until the commands before it ran (limits.go), then the bytes read
		// while the client was blocked (blocking.go), as guardConn.Read takes them.
		if next := takeBytes(&g.held, &g.early); next != nil {
			if !lc.scan(next) {
				l.finish(lc)
				return
			}
			continue
		}
		break
	}
	if !lc.done && !lc.closeReq.Load() {
		if g.overQuery {
			g.queryLimitClose() // limits.go: closed without a reply
			lc.out = lc.out[:0]
			lc.closeReq.Store(true)
		} else if g.failure != "" {
			lc.out = append(append(append(lc.out, '-'), g.failure...), '\r', '\n')
			lc.closeReq.Store(true)
		}
	}
	if lc.closeReq.Load() {
		l.finish(lc)
	} else if len(lc.out) > 0 && !lc.pending {
		lc.pending = true
		l.dirty = append(l.dirty, lc)
	}
}

// flushDirty writes the replies of the connections served in this pass: the first write
// flushes the journal records of all of them (storage/journal.go), the others find it done.
func (l *eventLoop) flushDirty() {
	for i, lc := range l.dirty {
		lc.pending = false
		l.dirty[i] = nil
		if lc.detached.Load() {
			continue // its goroutine writes them
		}
		l.flush(lc)
		if lc.closeReq.Load() {
			l.finish(lc)
		}
	}
	l.dirty = l.dirty[:0]
}

// takeBytes returns and clears the first non-empty slice of bufs, or nil.
func takeBytes(bufs ...*[]byte) []byte {
	for _, b := range bufs {
		if len(*b) > 0 {
			out := *b
			*b = nil
			return out
		}
	}
	return nil
}

// runCommands runs the complete commands at the head of the guard's output. It reports false
// when it detached the connection, whose goroutine then runs the rest.
func (l *eventLoop) runCommands(lc *loopConn) bool {
	g, s := lc.g, l.s
	buf := g.out
	pos := 0
	defer func() {
		if lc.detached.Load() {
			return
		}
		rest := copy(buf, buf[pos:])
		g.out = buf[:rest]
	}()
	for pos < len(buf) && !lc.closeReq.Load() {
		cmd, n := lc.nextCommand(buf[pos:])
		if n == 0 {
			break
		}
		if s.needsGoroutine(lc.client(), cmd.Args) {
			g.out = append(g.out[:0:0], buf[pos:]...)
			pos = len(buf)
			l.detach(lc)
			return false
		}
		pos += n
		lc.passCmds++
		s.handle(lc, cmd)
		if lc.blocked {
			// Blocked, registered on the loop: a goroutine waits, answers and runs the rest.
			g.out = append(g.out[:0:0], buf[pos:]...)
			pos = len(buf)
			l.detach(lc)
			return false
		}
	}
	return true
}

// nextCommand parses the first command in buf and returns it with the bytes it took, or 0
// bytes when buf holds no complete command. A protocol error is answered as redcon answers it
// and closes the connection: the rest of buf is taken.
func (lc *loopConn) nextCommand(buf []byte) (redcon.Command, int) {
	complete, args, _, rest, err := redcon.ReadNextCommand(buf, lc.args[:0])
	if err != nil {
		lc.out = redcon.AppendError(lc.out, "ERR "+err.Error())
		lc.closeReq.Store(true)
		return redcon.Command{}, 0
	}
	if !complete {
		return redcon.Command{}, 0
	}
	lc.args = args[:0]
	n := len(buf) - len(rest)
	return redcon.Command{Raw: buf[:n], Args: args}, n
}

// flush writes lc's pending replies without waiting: what the socket does not take waits for
// EPOLLOUT. What the replies acknowledge reaches the journal file first.
func (l *eventLoop) flush(lc *loopConn) {
	if lc.done {
		return
	}
	if len(lc.out) == 0 {
		if lc.outArmed { // written meanwhile by flushBlocking
			l.arm(lc, false)
		}
		return
	}
	g, s := lc.g, l.s
	cmds := lc.passCmds
	lc.passCmds = 0
	if c := lc.client(); c != nil {
		// The pass's commits, this connection's and the other connections' of the same pass,
		// are written as one group by the first of these calls. When a commit the replies
		// depend on was lost, the pass's only reply becomes the failure's error reply (MISCONF,
		// as for a commit that failed); with more replies, none is sent and the connection
		// closes.
		if err := s.flushReplies(c); err != nil {
			if cmds != 1 {
				c.x.killed.Store(true)
				lc.out = lc.out[:0]
				lc.closeReq.Store(true)
				return
			}
			lc.out = redcon.AppendError(lc.out[:0], misconfText(err))
		}
	}
	if s.panicHook != nil && !lc.writePoint() {
		lc.out = lc.out[:0]
		lc.closeReq.Store(true)
		return
	}
	if g.cut.Load() {
		lc.out = lc.out[:0] // limits.go: cut off by client-output-buffer-limit
		lc.closeReq.Store(true)
		return
	}
	n, err := unix.Write(lc.fd, lc.out)
	if n > 0 {
		s.stats.netOut.Add(int64(n))
	} else {
		n = 0
	}
	if err != nil && err != unix.EAGAIN {
		lc.out = lc.out[:0]
		lc.closeReq.Store(true)
		return
	}
	if n == len(lc.out) {
		lc.out = lc.out[:0]
		if cap(lc.out) > largeReply {
			lc.out = nil
		}
		g.queued, g.softSince = 0, time.Time{}
		if lc.outArmed {
			l.arm(lc, false)
		}
		return
	}
	lc.out = lc.out[:copy(lc.out, lc.out[n:])]
	g.queued = int64(len(lc.out)) // limits.go: unsent bytes count against the output limit
	if l.overOutputLimit(lc) {
		return
	}
	if !lc.outArmed {
		l.arm(lc, true)
	}
}

// overOutputLimit applies client-output-buffer-limit (class normal) to the replies the socket
// has not taken: past the hard limit, or past the soft limit for longer than its seconds, the
// client is closed. A timer posts the connection back when the soft seconds are up, so that a
// client that reads nothing is closed then too.
func (l *eventLoop) overOutputLimit(lc *loopConn) bool {
	g, c := lc.g, lc.client()
	if c == nil || c.ps.q != nil {
		return false
	}
	lim := l.s.normalOutputLimit()
	pending := int64(len(lc.out))
	over := lim.Hard > 0 && pending >= lim.Hard
	if !over && lim.Soft > 0 && pending >= lim.Soft {
		now, span := time.Now(), time.Duration(lim.SoftSeconds)*time.Second
		if g.softSince.IsZero() {
			g.softSince = now
		}
		if now.Sub(g.softSince) > span {
			over = true
		} else if !lc.softTimer {
			lc.softTimer = true
			time.AfterFunc(g.softSince.Add(span+10*time.Millisecond).Sub(now), func() { l.post(lc) })
		}
	} else if !over {
		g.softSince = time.Time{}
	}
	if !over {
		return false
	}
	g.olim = lim
	l.s.cutOutput(g, c, pending)
	lc.out = nil
	lc.closeReq.Store(true)
	return true
}

// writePoint is the panic point of a write (panics.go); it reports false when a panic closed
// the connection.
func (lc *loopConn) writePoint() (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			lc.g.panicked(r, "writing replies", lc.out)
			ok = false
		}
	}()
	lc.l.s.panicPoint("write", lc.out)
	return true
}

// arm sets whether the loop waits for lc's socket to take more output.
func (l *eventLoop) arm(lc *loopConn, out bool) {
	events := uint32(unix.EPOLLIN | unix.EPOLLRDHUP)
	if out {
		events |= unix.EPOLLOUT
	}
	ev := unix.EpollEvent{Events: events, Fd: int32(lc.fd)}
	if unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, lc.fd, &ev) == nil {
		lc.outArmed = out
	}
}

// finish closes lc and forgets it; the owner (the loop, or the goroutine while detached) calls it.
func (l *eventLoop) finish(lc *loopConn) {
	if lc.done {
		return
	}
	if len(lc.out) > 0 && !lc.g.cut.Load() && !lc.detached.Load() {
		l.flush(lc) // the replies before a QUIT, an error that closes, ...
	}
	lc.done = true
	if l.conns[lc.fd] == lc && !lc.detached.Load() {
		unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, lc.fd, nil)
		delete(l.conns, lc.fd)
	}
	lc.sock.closeFD()
	l.s.closed(lc, nil)
}

// stopLoops stops the event loops: their connections are closed.
func (s *Server) stopLoops() {
	for _, l := range s.loops {
		l.mu.Lock()
		l.stop = true
		l.mu.Unlock()
		l.wake()
	}
	for _, l := range s.loops {
		<-l.done
	}
}

// closeDetached closes the connections that goroutines serve now.
func (s *Server) closeDetached() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients {
		if lc, ok := c.conn.(*loopConn); ok && lc.detached.Load() {
			lc.g.Conn.Close()
		}
	}
}

// notifyClosed is called when the socket of a loop connection is closed by another goroutine
// (CLIENT KILL, the idle timeout, an output limit): the loop then frees the client.
func (lc *loopConn) notifyClosed() {
	lc.closeReq.Store(true)
	if !lc.detached.Load() {
		lc.l.post(lc)
	}
}

func (lc *loopConn) client() *client {
	c, _ := lc.ctx.(*client)
	return c
}
