package server

import (
	"net"
	"sync/atomic"

	"github.com/strata-db/strata/internal/num"
)

// outBufKeep is the largest buffer of bytes for the parser that a connection keeps between reads.
const outBufKeep = 64 << 10

// Protocol limits that Redis applies while reading a request.
const (
	inlineMax        = 64 * 1024 // PROTO_INLINE_MAX_SIZE
	maxMultibulk     = 1<<31 - 1 // INT_MAX
	headerLineMax    = 64 * 1024
	errTooBigInline  = "ERR Protocol error: too big inline request"
	errUnbalanced    = "ERR Protocol error: unbalanced quotes in request"
	errBulkLength    = "ERR Protocol error: invalid bulk length"
	errMultiLength   = "ERR Protocol error: invalid multibulk length"
	errTooBigMbulk   = "ERR Protocol error: too big mbulk count string"
	errTooBigBulkCnt = "ERR Protocol error: too big bulk count string"

	// Before AUTH, while a password is required, Redis 7.0 takes at most 10 arguments of at
	// most 16 KiB each, so an unauthenticated client cannot make it allocate.
	unauthMultibulkMax = 10
	unauthBulkMax      = 16384
	errUnauthMultibulk = "ERR Protocol error: unauthenticated multibulk length"
	errUnauthBulk      = "ERR Protocol error: unauthenticated bulk length"
)

// guardConn sits between a client's socket and the request parser. It follows the RESP framing
// of everything the client sends and enforces Redis's limits before anything is buffered: a bulk
// length over proto-max-bulk-len, an absurd multibulk count or an oversized inline request is
// answered with Redis's protocol error and the connection is closed, without allocating what
// the header announced. Requests before the offending one are passed on, so earlier pipelined
// commands are still answered first. It also rewrites inline requests into multibulk form with
// Redis's quoting rules (sdssplitargs) and drops empty multibulks, which Redis ignores.
// bulkLimit is proto-max-bulk-len as it stands now (CONFIG SET changes it for every client).
func (g *guardConn) bulkLimit() int64 {
	if g.srv != nil {
		return g.srv.liveConfig().ProtoMaxBulkLen
	}
	return g.maxBulk
}

type guardConn struct {
	net.Conn
	maxBulk int64
	srv     *Server

	state   int    // what the next byte starts
	args    int64  // bulk strings left in the current multibulk
	skip    int64  // payload bytes (and CRLF) left to pass
	line    []byte // the header or inline line being received
	hdr     []byte // the current multibulk's header bytes, held until its count is known
	failure string

	in     []byte // raw bytes read from the socket
	out    []byte // bytes ready for the parser
	outBuf []byte // out's buffer, empty, reused once out is passed on

	limitState // limits.go: query and output buffer limits
	stageState // stage.go: large SET values streamed into the value log

	wakeFor atomic.Pointer[client] // tracking.go: set once a read deadline may wake this reader
	early   []byte                 // blocking.go: read from the socket while the client was blocked

	scanning []byte // the bytes being scanned, for the log record of a panic (panics.go)
	broken   bool   // a panic was recovered: the connection is closed

	lc *loopConn // evloop.go: the loop connection this guard belongs to, nil on the goroutine path
}

// Close closes the socket; the event loop that serves the connection, if one does, then frees
// the client (evloop.go).
func (g *guardConn) Close() error {
	err := g.Conn.Close()
	if g.lc != nil {
		g.lc.notifyClosed()
	}
	return err
}

const (
	stCommand = iota // start of a request
	stMulti          // inside "*N" header line
	stBulkHdr        // expecting "$N" line
	stBulkLen        // inside "$N" header line, held in line until it is complete and accepted
	stInline         // inside an inline request
	stPayload        // passing payload bytes
	stStaged         // writing payload bytes to a staged value (stage.go)
)

// Read passes the parser what the client sent, once framed and checked. A panic while reading
// or scanning closes this connection only (panics.go).
func (g *guardConn) Read(p []byte) (n int, err error) {
	if g.broken {
		return 0, net.ErrClosed
	}
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, g.panicked(r, "reading a request", g.scanning)
		}
	}()
	return g.read(p)
}

func (g *guardConn) read(p []byte) (int, error) {
	fresh := len(g.out) == 0 // what the loop scans starts g.out's buffer
	for len(g.out) == 0 {
		if len(g.held) > 0 {
			// The commands before the held request have run: scan it now that the
			// client's authentication is known.
			held := g.held
			g.held = nil
			g.scan(held)
			continue
		}
		if len(g.early) > 0 {
			// Bytes read while the client was blocked (blocking.go), before anything
			// still in the socket.
			early := g.early
			g.early = nil
			g.scan(early)
			continue
		}
		if g.overQuery {
			return 0, g.queryLimitClose() // limits.go: closed without a reply, as Redis does
		}
		if g.failure != "" {
			g.Conn.Write([]byte("-" + g.failure + "\r\n"))
			return 0, net.ErrClosed
		}
		if ok, err := g.readStaged(); ok { // stage.go
			if err != nil && len(g.out) == 0 {
				if g.wakeRead(err) {
					continue
				}
				return 0, err
			}
			continue
		}
		if n, ok, err := g.readPayload(p); ok {
			if n == 0 && g.wakeRead(err) { // tracking.go: woken to send invalidations
				continue
			}
			return n, err
		}
		if cap(g.in) < len(p) {
			g.in = make([]byte, len(p))
		}
		n, err := g.Conn.Read(g.in[:len(p)])
		if n > 0 {
			g.srv.stats.netIn.Add(int64(n))
			g.scan(g.in[:n])
		}
		if err != nil && len(g.out) == 0 {
			if g.wakeRead(err) { // tracking.go: woken to send invalidations
				continue
			}
			return 0, err
		}
	}
	if fresh {
		// The buffer is kept for the next requests unless a large request grew it.
		g.outBuf = nil
		if cap(g.out) <= outBufKeep {
			g.outBuf = g.out[:0]
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	if len(g.out) == 0 {
		g.out = g.outBuf
	}
	return n, nil
}

// readPayload reads the body of a bulk string straight into p, without the scanner's copies,
// when nothing else is pending: large values then cross the guard once. It leaves the closing
// CRLF to the scanner, and reports false when it did not apply.
func (g *guardConn) readPayload(p []byte) (int, bool, error) {
	if g.state != stPayload || g.skip <= 2 || len(g.held) > 0 || g.overQuery || g.failure != "" {
		return 0, false, nil
	}
	want := min(int64(len(p)), g.skip-2)
	if g.qlimit > 0 && g.reqBytes+want > g.qlimit {
		return 0, false, nil // the scanner closes the client for its query buffer
	}
	n, err := g.Conn.Read(p[:want])
	g.scanning = p[:n]
	g.srv.stats.netIn.Add(int64(n))
	g.capture(p[:n]) // stage.go
	g.skip -= int64(n)
	g.reqBytes += int64(n)
	if n > 0 {
		err = nil
	}
	return n, true, err
}

// Write sends replies to the client. A panic while writing closes this connection only
// (panics.go).
func (g *guardConn) Write(p []byte) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, g.panicked(r, "writing replies", p)
		}
	}()
	return g.write(p)
}

func (g *guardConn) write(p []byte) (int, error) {
	if g.srv.panicHook != nil {
		g.srv.panicPoint("write", p)
	}
	if g.cut.Load() {
		return 0, errOutputLimit // limits.go: cut off by client-output-buffer-limit
	}
	// What these replies acknowledge is written first (beforeReplies); if it cannot be, the
	// connection is closed rather than acknowledge a write LevelDB lacks.
	if err := g.srv.beforeReplies(g.owner); err != nil {
		return 0, err
	}
	g.srv.stats.netOut.Add(int64(len(p)))
	if g.cl != nil && g.cl.ps.q == nil {
		return g.writeNormal(p) // limits.go: a normal client with an output buffer limit
	}
	return g.Conn.Write(p)
}

// scan advances the framing state over b, appending what the parser should see to g.out.
// On a violation it sets g.failure and stops.
func (g *guardConn) scan(b []byte) {
	g.scanning = b
	if g.srv != nil && g.srv.panicHook != nil {
		g.srv.panicPoint("read", b)
	}
	// The request being received waits in the parser's buffer with every byte sent for it
	// until it is complete: that is the client's query buffer, which client-query-buffer-limit
	// bounds. carried counts its bytes in earlier reads, start is where it began in b.
	carried, start := g.reqBytes, 0
	for i := 0; i < len(b) && g.failure == ""; {
		if g.state == stCommand {
			carried, start = 0, i
		} else if g.qlimit > 0 && carried+int64(i-start) > g.qlimit {
			g.overQuery = true
			return
		}
		switch g.state {
		case stCommand:
			if n := g.wholeRequest(b[i:]); n > 0 {
				i += n // passed on as it came, in one copy
				continue
			}
			if b[i] == '*' {
				g.state, g.line, g.hdr = stMulti, g.line[:0], append(g.hdr[:0], '*')
				i++
			} else {
				g.state, g.line = stInline, g.line[:0]
			}
		case stInline:
			j := i
			for j < len(b) && b[j] != '\n' {
				j++
			}
			g.line = append(g.line, b[i:j]...)
			if len(g.line) > inlineMax {
				g.failure = errTooBigInline
				return
			}
			i = j
			if j < len(b) {
				i++
				g.state = stCommand
				g.inline()
			}
		case stMulti, stBulkLen:
			c := b[i]
			i++
			if g.state == stMulti {
				g.hdr = append(g.hdr, c)
			}
			if c != '\n' {
				if len(g.line) >= headerLineMax {
					g.failure = errTooBigBulkCnt
					if g.state == stMulti {
						g.failure = errTooBigMbulk
					}
					return
				}
				g.line = append(g.line, c)
				continue
			}
			line := g.line
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			n, err := num.ParseInt(line)
			if g.state == stMulti {
				if err != nil || n > maxMultibulk {
					g.failure = errMultiLength
					return
				}
				if n > 0 && g.owner != nil && !g.owner.Authed && len(g.out) > 0 {
					// Commands before this one (an AUTH?) have not run yet: hold the
					// request back until they have (Read scans it again).
					g.held = append(append(g.held[:0], g.hdr...), b[i:]...)
					g.state = stCommand
					return
				}
				g.reqUnauth = g.owner != nil && !g.owner.Authed
				if n > unauthMultibulkMax && g.reqUnauth {
					g.failure = errUnauthMultibulk
					return
				}
				g.args, g.state = n, stBulkHdr
				if n <= 0 {
					g.state = stCommand // an empty multibulk: Redis ignores it
				} else {
					g.out = append(g.out, g.hdr...)
					g.beginRequest(n) // stage.go
				}
				continue
			}
			if err != nil || n < 0 || n > g.bulkLimit() {
				g.failure = errBulkLength
				return
			}
			if n > unauthBulkMax && g.reqUnauth {
				g.failure = errUnauthBulk
				return
			}
			// The header reaches the parser whole, once it is accepted.
			g.out = append(append(append(g.out, '$'), g.line...), '\n')
			g.skip, g.state = n+2, stPayload
			if g.beginBulk(n) { // stage.go: a large SET value goes to the value log as it arrives
				g.state = stStaged
			}
		case stBulkHdr:
			if b[i] != '$' {
				// The request parser answers this one with Redis's text.
				g.out = append(g.out, b[i:]...)
				g.state = stCommand
				return
			}
			g.state, g.line = stBulkLen, g.line[:0]
			i++
		case stPayload:
			take := min(g.skip, int64(len(b)-i))
			if g.qlimit > 0 && carried+int64(i-start)+take > g.qlimit {
				g.overQuery = true // the request never reaches the parser whole
				return
			}
			g.out = append(g.out, b[i:i+int(take)]...)
			g.capture(b[i : i+int(take)]) // stage.go
			g.skip -= take
			i += int(take)
			if g.skip == 0 {
				g.endBulk()
				g.args--
				g.state = stBulkHdr
				if g.args == 0 {
					g.state = stCommand
				}
			}
		case stStaged:
			take := min(g.skip, int64(len(b)-i))
			if g.qlimit > 0 && carried+int64(i-start)+take > g.qlimit {
				g.overQuery = true
				return
			}
			if data := min(take, max(g.skip-2, 0)); data > 0 {
				g.streamInto(b[i : i+int(data)])
			}
			g.skip -= take
			i += int(take)
			if g.skip == 0 {
				g.endStream()
				g.endBulk()
				g.args--
				g.state = stBulkHdr
				if g.args == 0 {
					g.state = stCommand
				}
			}
		}
	}
	g.reqBytes = 0
	if g.state != stCommand {
		g.reqBytes = carried + int64(len(b)-start)
	}
}

// Bounds of the requests wholeRequest passes on at once.
const (
	wholeMaxArgs = 1024
	wholeMaxBulk = 4096
)

// wholeRequest passes on the multibulk request at the start of b in one copy when b holds all
// of it and it is an ordinary one, which the byte-by-byte scan would pass on unchanged: an
// authenticated client's, at most wholeMaxArgs arguments of at most wholeMaxBulk bytes each,
// written as plain decimal counts, none of them a value to stage (stage.go). It returns the
// request's length, or 0 to leave it to the scan, which then sees it from its first byte.
func (g *guardConn) wholeRequest(b []byte) int {
	if len(b) < 4 || b[0] != '*' || g.owner == nil || !g.owner.Authed {
		return 0
	}
	argc, p := wholeCount(b, 1)
	if argc <= 0 || argc > wholeMaxArgs {
		return 0
	}
	for i := 0; i < argc; i++ {
		if p >= len(b) || b[p] != '$' {
			return 0
		}
		n, q := wholeCount(b, p+1)
		if n < 0 || n > wholeMaxBulk || i == 2 && g.srv != nil && g.srv.store.CanStage(int64(n)) {
			return 0
		}
		p = q + n + 2 // the payload and its CRLF, as the scan takes them (unchecked)
		if p > len(b) {
			return 0
		}
	}
	if g.qlimit > 0 && int64(p) > g.qlimit {
		return 0
	}
	g.out = append(g.out, b[:p]...)
	g.reqUnauth = false
	g.beginRequest(int64(argc)) // stage.go
	g.argi = int64(argc)
	return p
}

// wholeCount reads the count of a request or bulk header at b[i:], plain decimal digits then
// CRLF without a leading zero, and returns it and the index after the LF; -1 when the header
// is not that (or not whole in b).
func wholeCount(b []byte, i int) (int, int) {
	n, start := 0, i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if i-start >= 9 {
			return -1, 0
		}
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == start || b[start] == '0' && i-start > 1 || i+1 >= len(b) || b[i] != '\r' || b[i+1] != '\n' {
		return -1, 0 // not a count the scan reads the same way (num.ParseInt refuses "02")
	}
	return n, i + 2
}

// inline turns the inline request in g.line into a multibulk request.
func (g *guardConn) inline() {
	line := g.line
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, ok := splitArgs(line)
	if !ok {
		g.failure = errUnbalanced
		return
	}
	if len(args) == 0 {
		return
	}
	g.out = appendMultibulk(g.out, args)
	g.beginRequest(int64(len(args))) // stage.go
}

func appendMultibulk(dst []byte, args [][]byte) []byte {
	dst = append(dst, '*')
	dst = appendUint(dst, len(args))
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = appendUint(dst, len(a))
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

func appendUint(dst []byte, n int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(dst, tmp[i:]...)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// splitArgs splits an inline request as Redis's sdssplitargs does: whitespace-separated words,
// double quotes with \xHH, \n, \r, \t, \b, \a escapes, single quotes with \' only. A closing
// quote must be followed by a space or the end of the line.
func splitArgs(line []byte) ([][]byte, bool) {
	var args [][]byte
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r' || line[i] == '\v' || line[i] == '\f') {
			i++
		}
		if i >= len(line) {
			return args, true
		}
		var cur []byte
		inDQ, inSQ, done := false, false, false
		for !done {
			switch {
			case inDQ:
				switch {
				case i >= len(line):
					return nil, false
				case line[i] == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, hexVal(line[i+2])<<4|hexVal(line[i+3]))
					i += 3
				case line[i] == '\\' && i+1 < len(line):
					i++
					c := line[i]
					switch c {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					}
					cur = append(cur, c)
				case line[i] == '"':
					if i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, line[i])
				}
			case inSQ:
				switch {
				case i >= len(line):
					return nil, false
				case line[i] == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case line[i] == '\'':
					if i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, line[i])
				}
			default:
				switch {
				case i >= len(line):
					done = true
				case line[i] == ' ' || line[i] == '\n' || line[i] == '\r' || line[i] == '\t':
					done = true
				case line[i] == '"':
					inDQ = true
				case line[i] == '\'':
					inSQ = true
				default:
					cur = append(cur, line[i])
				}
			}
			if i < len(line) {
				i++
			}
		}
		if cur == nil {
			cur = []byte{}
		}
		args = append(args, cur)
	}
}
