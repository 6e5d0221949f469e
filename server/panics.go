package server

import (
	"fmt"
	"net"
	"runtime/debug"
	"strconv"
)

// A panic in a goroutine that serves a client ends in that goroutine: it is logged with what
// the goroutine was doing and the input involved (at most panicInputMax bytes of it), counted
// (INFO stats client_panics, the metric strata_client_panics_total), and that client's
// connection is closed; the process and every other client go on. The goroutines are the
// connection's own (the request guard reading and scanning requests, handle running a command
// and its gates, blocking, replies flushed to the socket), the watcher of a blocked client, and
// a subscriber's or tracking client's writer (pubsub.go). A panic inside a command's handler is
// answered as an internal error by the dispatcher (commands/dispatch.go) and does not close the
// connection. Not covered: redcon's own request parser, which gets only what the guard has
// framed.

// panicInputMax bounds the bytes of a request, command or reply quoted in a panic's log record.
const panicInputMax = 256

// panicPoint lets a test make a client's goroutine panic: s.panicHook, set before Start and
// only by tests, is called at each point with the input there.
func (s *Server) panicPoint(point string, input []byte) {
	if s.panicHook != nil {
		s.panicHook(point, input)
	}
}

// clientPanic logs and counts a recovered panic r of client id (0 when not known yet).
func (s *Server) clientPanic(r any, while string, id int64, input string) {
	s.stats.panics.Add(1)
	s.log.Error("panic while serving a client; closing its connection", "while", while,
		"client", id, "panic", fmt.Sprint(r), "input", input, "stack", string(debug.Stack()))
}

// quoteInput renders b for a log record, cut to panicInputMax bytes.
func quoteInput(b []byte) string {
	if len(b) <= panicInputMax {
		return strconv.Quote(string(b))
	}
	return strconv.Quote(string(b[:panicInputMax])) + "... (" + strconv.Itoa(len(b)) + " bytes)"
}

// quoteArgs renders a command's arguments, separated by spaces, for a log record, cut to
// panicInputMax bytes.
func quoteArgs(args [][]byte) string {
	var b []byte
	total := 0
	for i, a := range args {
		if i > 0 {
			total++
			if len(b) < panicInputMax {
				b = append(b, ' ')
			}
		}
		total += len(a)
		if room := panicInputMax - len(b); room > 0 {
			b = append(b, a[:min(len(a), room)]...)
		}
	}
	q := strconv.Quote(string(b[:min(len(b), panicInputMax)]))
	if total > panicInputMax {
		q += "... (" + strconv.Itoa(total) + " bytes)"
	}
	return q
}

// panicked handles a panic recovered in the request guard: it is logged and counted, the
// client leaves CLIENT LIST, and the error returned closes the connection.
func (g *guardConn) panicked(r any, while string, input []byte) error {
	var id int64
	if g.owner != nil {
		id = g.owner.ID
		g.owner.x.killed.Store(true)
	}
	if g.srv != nil {
		g.srv.clientPanic(r, while, id, quoteInput(input))
	}
	g.failure, g.out, g.early, g.held = "", nil, nil, nil
	g.broken = true
	g.Conn.Close()
	return net.ErrClosed
}
