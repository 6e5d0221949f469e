package server

import (
	"golang.org/x/sys/unix"

	"github.com/strata-db/strata/commands"
)

// A connection whose command may wait is served by a goroutine of its own until it is idle
// again (evloop.go).

// detach moves lc from the loop to a goroutine (runDetached).
func (l *eventLoop) detach(lc *loopConn) {
	l.flush(lc) // the goroutine writes what the socket did not take
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, lc.fd, nil)
	delete(l.conns, lc.fd)
	lc.outArmed = false
	lc.detached.Store(true)
	go l.s.runDetached(lc)
}

// needsGoroutine reports whether the command in args may wait, and so must not run in a loop:
// WAIT, DEBUG (SLEEP), a script (which must not keep the loop from answering BUSY), an EXEC
// that runs one, PSYNC and SYNC (which stream to the replica), and any command while CLIENT
// PAUSE holds commands. A blocking command runs in the loop: only its wait, once it has
// blocked, is detached (runCommands, resumeBlocked).
func (s *Server) needsGoroutine(c *client, args [][]byte) bool {
	if s.x.pauseUntil.Load() != 0 {
		return true
	}
	var cmd *commands.Command
	if c != nil {
		cmd = c.x.lookup(args[0]) // clients.go: handle finds it there again
	} else {
		cmd = commands.Lookup(args[0])
	}
	if cmd == nil {
		return false
	}
	if commands.IsScriptCommand(cmd) {
		return true
	}
	switch cmd.Name {
	case "wait", "waitaof", "debug", "psync", "sync", "shutdown":
		return true
	case "exec":
		return c != nil && runsScript(c.tx.queue)
	}
	return false
}

// runDetached serves a detached connection on its own goroutine, with blocking reads and writes
// through the request guard as the goroutine path does, until it can go back to its loop.
func (s *Server) runDetached(lc *loopConn) {
	g := lc.g
	if lc.blocked {
		lc.blocked = false
		s.resumeBlocked(lc)
	}
	lc.in = append(lc.in[:0], g.out...)
	g.out = g.out[:0]
	buf := make([]byte, 16<<10)
	for {
		pos := 0
		for pos < len(lc.in) && !lc.closeReq.Load() {
			cmd, n := lc.nextCommand(lc.in[pos:])
			if n == 0 {
				break
			}
			pos += n
			s.handle(lc, cmd)
		}
		lc.in = lc.in[:copy(lc.in, lc.in[pos:])]
		if lc.flushBlocking() != nil || lc.closeReq.Load() {
			s.finishDetached(lc)
			return
		}
		if s.canHandBack(lc) {
			g.out = append(append(g.out[:0:0], lc.in...), g.out...)
			lc.in = lc.in[:0]
			if c := lc.client(); c != nil && c.ps.q == nil {
				lc.sock.release() // no writer goroutine uses the socket
			}
			lc.detached.Store(false)
			lc.l.post(lc)
			return
		}
		n, err := g.Read(buf)
		lc.in = append(lc.in, buf[:n]...)
		if err != nil {
			s.finishDetached(lc)
			return
		}
	}
}

// canHandBack reports whether a detached connection can go back to its loop: nothing waits,
// the guard holds no bytes read meanwhile, and the client is not a replica link.
func (s *Server) canHandBack(lc *loopConn) bool {
	c := lc.client()
	if c == nil || c.x.killed.Load() || c.Quit || c.rep.Load() != nil || s.x.pauseUntil.Load() != 0 {
		return false
	}
	g := lc.g
	return len(g.held) == 0 && len(g.early) == 0 && !g.overQuery && g.failure == ""
}

// finishDetached closes a detached connection from its goroutine.
func (s *Server) finishDetached(lc *loopConn) {
	if lc.done {
		return
	}
	lc.done = true
	lc.sock.closeFD()
	s.closed(lc, nil)
}

// flushBlocking writes lc's pending replies through the request guard, waiting for the socket
// (the goroutine path's write: journal flush, output limits).
func (lc *loopConn) flushBlocking() error {
	if len(lc.out) == 0 {
		return nil
	}
	_, err := lc.g.Write(lc.out) // guardConn.write calls beforeReplies
	lc.out = lc.out[:0]
	if cap(lc.out) > largeReply {
		lc.out = nil
	}
	return err
}

// resumeBlocked waits for the answer of the command that blocked in the loop and queues it, on
// the goroutine the connection was detached to (the end of handle, which the loop left to it).
func (s *Server) resumeBlocked(lc *loopConn) {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	c := lc.client()
	defer func() {
		if r := recover(); r != nil {
			s.commandPanicked(r, lc, c, c.ctx.Args)
		}
	}()
	s.answer(lc, c)
}
