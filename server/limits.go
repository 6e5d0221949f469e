package server

import (
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
)

// This file holds the server's side of hostile conditions: refusing writes while the disk
// fails (MISCONF, as Redis does when it cannot persist), the client output buffer limit of
// normal clients (pubsub.go applies the pubsub class to subscribers), the client query buffer
// limit, Redis's request limits before AUTH, and TCP keepalive. server.go calls in through
// wrapConn and linkGuard (accepting a connection), dispatch, cutOff and outputOverLimit
// (handle); protocol.go's guardConn through limitState, queryLimitClose and writeNormal.

// dispatch runs one command through commands.Dispatch; cmd is commands.Lookup of its name. While the storage reports a write
// error, write commands that pass the dispatcher's gates (known, right arity, authenticated) are
// refused with MISCONF instead, as Redis refuses them while it cannot persist; reads go on, and
// PING gets MISCONF too, as in Redis, so a health check sees the state. A write whose commit
// fails on the disk gets the same reply.
func (s *Server) dispatch(ctx *commands.Ctx, cmd *commands.Command) {
	requirePass := s.Config().RequirePass != ""
	if err := s.store.WriteError(); err != nil {
		if cmd != nil && (cmd.Flags&commands.FlagWrite != 0 || cmd.Name == "ping") && cmd.CheckArity(len(ctx.Args)) &&
			(!requirePass || ctx.Client.Authed) {
			ctx.W.Error(misconfText(err))
			return
		}
	}
	start := ctx.W.Len()
	commands.DispatchCommand(ctx, cmd, requirePass)
	if ctx.Cmd == nil || ctx.W.Len() == start || ctx.W.Bytes()[start] != '-' {
		return
	}
	if err := s.store.WriteError(); err != nil && strings.HasPrefix(string(ctx.W.Bytes()[start:]), "-ERR storage error") {
		ctx.W.Truncate(start)
		ctx.W.Error(misconfText(err))
	}
}

// misconfText describes a storage write error in Redis's words (commands.MisconfError).
func misconfText(err error) string { return commands.MisconfError(err) }

// wrapConn wraps an accepted connection in guardConn, with TCP keepalive set as Redis sets it
// (anetKeepAlive): probes after tcp-keepalive seconds of silence, then every third of that,
// the connection dropped after 3 unanswered; tcp-keepalive 0 turns keepalive off.
func (s *Server) wrapConn(c net.Conn) *guardConn {
	cfg := s.Config()
	if tc, ok := c.(*net.TCPConn); ok {
		if cfg.TCPKeepAlive > 0 {
			idle := time.Duration(cfg.TCPKeepAlive) * time.Second
			tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: idle,
				Interval: max(idle/3, time.Second), Count: 3})
		} else {
			tc.SetKeepAlive(false)
		}
	}
	g := &guardConn{Conn: c, maxBulk: s.cfg.ProtoMaxBulkLen, srv: s}
	g.qlimit = cfg.ClientQueryBufferLimit
	return g
}

// limitState is the part of guardConn this file owns.
type limitState struct {
	qlimit    int64 // client-query-buffer-limit
	reqBytes  int64 // bytes received of the request not yet complete
	overQuery bool  // past qlimit: the connection is closed without a reply

	// client-output-buffer-limit, class normal. cl and olim are set by outputOverLimit on the
	// connection goroutine while limits apply; queued and softSince are used only there and
	// by writeNormal, which runs there too (a subscriber's writer goroutine takes the plain
	// path: cl.ps.q is set before that goroutine starts).
	cl        *client
	olim      config.OutputLimit
	queued    int64     // reply bytes handed to the connection's buffer since its last flush
	softSince time.Time // since when the unsent bytes are past the soft limit
	cut       atomic.Bool

	// Requests of unauthenticated clients (see unauthMultibulkMax).
	owner     *client // set by linkGuard when the client is accepted
	reqUnauth bool    // the request being received was started before AUTH
	held      []byte  // a request held back until the commands before it have run
}

// linkGuard lets c's guardConn see c's authentication.
func linkGuard(c *client) {
	if g, ok := c.conn.NetConn().(*guardConn); ok {
		g.owner = c
		c.guard = g
	}
}

// errOutputLimit fails the writes of a client cut off by client-output-buffer-limit.
var errOutputLimit = errors.New("client output buffer limit reached")

// queryLimitClose logs the client that sent past client-query-buffer-limit and returns the
// error that closes its connection. Like Redis, the server answers nothing.
func (g *guardConn) queryLimitClose() error {
	g.srv.log.Warn("closing client that reached max query buffer length", "addr", g.RemoteAddr().String(),
		"qbuf", g.reqBytes, "client-query-buffer-limit", g.qlimit)
	return net.ErrClosed
}

// normalLimit caches the parsed client-output-buffer-limit of class normal per configuration.
var normalLimit atomic.Pointer[struct {
	cfg *config.Config
	lim config.OutputLimit
}]

func (s *Server) normalOutputLimit() config.OutputLimit {
	cfg := s.Config()
	if c := normalLimit.Load(); c != nil && c.cfg == cfg {
		return c.lim
	}
	lim := cfg.OutputLimits("normal")
	normalLimit.Store(&struct {
		cfg *config.Config
		lim config.OutputLimit
	}{cfg, lim})
	return lim
}

// cutOff reports whether c was cut off by its output buffer limit; handle then skips what is
// left of its pipeline, as Redis stops reading from a client it is closing.
func (c *client) cutOff() bool {
	g, ok := c.conn.NetConn().(*guardConn)
	return ok && g.cut.Load()
}

// outputOverLimit applies client-output-buffer-limit (class normal) to a reply about to join
// what the connection has buffered since its last flush (replies of a pipeline are flushed
// together). Past the hard limit, or past the soft limit for longer than its seconds, the
// client is closed without what it was owed, and it reports true. Redis counts the same way:
// its output buffer holds every reply not yet written to the socket.
func (s *Server) outputOverLimit(c *client) bool {
	g, ok := c.conn.NetConn().(*guardConn)
	if !ok {
		return false
	}
	lim := s.normalOutputLimit()
	if lim.Hard <= 0 && lim.Soft <= 0 {
		g.cl = nil
		return false
	}
	g.cl, g.olim = c, lim
	g.queued += int64(c.w.Len())
	over := lim.Hard > 0 && g.queued >= lim.Hard
	if !over && lim.Soft > 0 && g.queued >= lim.Soft {
		now := time.Now()
		if g.softSince.IsZero() {
			g.softSince = now
		} else if now.Sub(g.softSince) > time.Duration(lim.SoftSeconds)*time.Second {
			over = true
		}
	}
	if !over {
		return false
	}
	s.cutOutput(g, c, g.queued)
	c.w.Reset()
	c.conn.Close() // redcon flushes its buffer into guardConn.Write, which drops it
	return true
}

func (s *Server) cutOutput(g *guardConn, c *client, pending int64) {
	if !g.cut.CompareAndSwap(false, true) {
		return
	}
	c.x.killed.Store(true)
	s.log.Warn("client closed for overcoming of output buffer limits", "id", c.ID, "addr", c.Addr,
		"class", "normal", "pending", pending, "hard", g.olim.Hard, "soft", g.olim.Soft,
		"soft-seconds", g.olim.SoftSeconds)
}

// writeNormal writes a flush of a normal client's replies while client-output-buffer-limit
// applies. A socket that does not take them keeps the unsent bytes pending: while they are past
// the soft limit the write waits at most until the soft seconds are up, then the client is
// closed.
func (g *guardConn) writeNormal(p []byte) (int, error) {
	lim := g.olim
	g.queued = 0
	written, deadline := 0, false
	defer func() {
		if deadline {
			g.Conn.SetWriteDeadline(time.Time{})
		}
	}()
	for {
		if pending := int64(len(p) - written); lim.Soft > 0 && pending >= lim.Soft {
			now := time.Now()
			if g.softSince.IsZero() {
				g.softSince = now
			}
			until := g.softSince.Add(time.Duration(lim.SoftSeconds) * time.Second)
			if !now.Before(until) {
				g.srv.cutOutput(g, g.cl, pending)
				g.Conn.Close()
				return written, errOutputLimit
			}
			g.Conn.SetWriteDeadline(until)
			deadline = true
		} else {
			g.softSince = time.Time{}
			if deadline {
				g.Conn.SetWriteDeadline(time.Time{})
				deadline = false
			}
		}
		n, err := g.Conn.Write(p[written:])
		written += n
		if err == nil {
			return written, nil
		}
		if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			return written, err
		}
	}
}
