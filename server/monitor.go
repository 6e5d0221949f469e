package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/commands"
)

// MONITOR: every command a client runs (after it ran; a script before it runs, so that the
// commands it calls follow it) is sent to the monitoring clients as one status line, as Redis
// formats it:
//
//	+1700000000.123456 [0 127.0.0.1:50000] "set" "key" "value"
//
// Commands a script or function calls show "lua" as their client. Administrative commands are
// not shown, and passwords are redacted. A monitor's output goes through its outbound queue
// (pubsub.go), cut off at client-output-buffer-limit pubsub so that a monitor that does not read
// cannot hold unbounded memory.

type monServer struct {
	mu      sync.RWMutex
	clients map[*client]struct{}
	n       atomic.Int32 // len(clients), read without the lock on every command
}

// Monitor implements MONITOR for the calling client (commands.Monitorer).
func (s *Server) Monitor(ctx *commands.Ctx) {
	c := clientOf(ctx)
	if c == nil {
		ctx.W.Error("ERR MONITOR is not allowed here")
		return
	}
	s.mon.mu.Lock()
	_, already := s.mon.clients[c]
	if !already {
		if s.mon.clients == nil {
			s.mon.clients = map[*client]struct{}{}
		}
		s.mon.clients[c] = struct{}{}
		s.mon.n.Add(1)
		c.x.monitor.Store(true)
	}
	s.mon.mu.Unlock()
	if already {
		return // Redis answers nothing to a second MONITOR
	}
	s.ensureQueue(c) // pubsub.go: from now on the client's output is queued
	ctx.W.OK()
}

// dropMonitor ends a client's MONITOR mode (RESET, or the connection closes).
func (s *Server) dropMonitor(c *client) {
	if !c.x.monitor.Swap(false) {
		return
	}
	s.mon.mu.Lock()
	if _, ok := s.mon.clients[c]; ok {
		delete(s.mon.clients, c)
		s.mon.n.Add(-1)
	}
	s.mon.mu.Unlock()
}

// monitorsOn reports whether some client monitors.
func (s *Server) monitorsOn() bool { return s.mon.n.Load() > 0 }

// feedMonitors sends a call of cmd with args, by cl in database db, to the monitors; script says
// that a script made the call.
func (s *Server) feedMonitors(cl *commands.Client, db int, cmd *commands.Command, args [][]byte, script bool) {
	if cmd == nil || !commands.Monitored(cmd, args) {
		return
	}
	line := []byte("+")
	now := time.Now()
	line = strconv.AppendInt(line, now.Unix(), 10)
	line = append(line, '.')
	us := strconv.Itoa(now.Nanosecond() / 1000)
	line = append(line, "000000"[len(us):]...)
	line = append(line, us...)
	line = append(line, " ["...)
	line = strconv.AppendInt(line, int64(db), 10)
	line = append(line, ' ')
	if script {
		line = append(line, "lua"...)
	} else {
		line = append(line, cl.Addr...)
	}
	line = append(line, "] "...)
	for i, a := range commands.RedactedArgs(cmd, args) {
		if i > 0 {
			line = append(line, ' ')
		}
		line = appendRepr(line, a)
	}
	line = append(line, '\r', '\n')

	limit := *s.ps.limit.Load()
	var cut []*client
	s.mon.mu.RLock()
	for m := range s.mon.clients {
		if q := m.ps.q; q != nil && !q.push(line, limit) {
			cut = append(cut, m)
		}
	}
	s.mon.mu.RUnlock()
	for _, m := range cut {
		m.conn.Close()
	}
}

// appendRepr appends a as a quoted string with C escapes, as Redis's sdscatrepr writes it.
func appendRepr(b, a []byte) []byte {
	b = append(b, '"')
	for _, ch := range a {
		switch ch {
		case '\\', '"':
			b = append(b, '\\', ch)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if ch >= ' ' && ch <= '~' {
				b = append(b, ch)
			} else {
				b = append(b, '\\', 'x', "0123456789abcdef"[ch>>4], "0123456789abcdef"[ch&15])
			}
		}
	}
	return append(b, '"')
}
