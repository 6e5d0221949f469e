package server

import (
	"net"
	"strconv"
)

// Protocol limits that Redis applies while reading a request.
const (
	inlineMax        = 64 * 1024 // PROTO_INLINE_MAX_SIZE
	maxMultibulk     = 1<<31 - 1 // INT_MAX
	headerLineMax    = 64 * 1024
	errTooBigInline  = "ERR Protocol error: too big inline request"
	errBulkLength    = "ERR Protocol error: invalid bulk length"
	errMultiLength   = "ERR Protocol error: invalid multibulk length"
	errTooBigMbulk   = "ERR Protocol error: too big mbulk count string"
	errTooBigBulkCnt = "ERR Protocol error: too big bulk count string"
)

// guardConn watches the RESP framing of everything a client sends, before the request parser
// buffers it, and enforces Redis's limits: a bulk length over proto-max-bulk-len, an absurd
// multibulk count or an oversized inline request is answered with Redis's protocol error and
// the connection is closed, without allocating what the header announced. Bytes before the
// offending header are passed on, so earlier pipelined commands are still answered first.
type guardConn struct {
	net.Conn
	maxBulk int64
	srv     *Server

	state   int   // what the next byte starts
	args    int64 // bulk strings left in the current multibulk
	skip    int64 // payload bytes (and CRLF) left to pass
	line    []byte
	inline  int
	failure string
}

const (
	stCommand = iota // start of a request
	stMulti          // inside "*N" header line
	stBulkHdr        // expecting "$N" line
	stBulkLen        // inside "$N" header line
	stInline         // inside an inline request
	stPayload        // skipping payload bytes
)

func (g *guardConn) Read(p []byte) (int, error) {
	if g.failure != "" {
		g.Conn.Write([]byte("-" + g.failure + "\r\n"))
		return 0, net.ErrClosed
	}
	n, err := g.Conn.Read(p)
	if n > 0 {
		g.srv.stats.netIn.Add(int64(n))
		if bad, ok := g.scan(p[:n]); !ok {
			if bad == 0 {
				g.Conn.Write([]byte("-" + g.failure + "\r\n"))
				return 0, net.ErrClosed
			}
			return bad, nil
		}
	}
	return n, err
}

func (g *guardConn) Write(p []byte) (int, error) {
	g.srv.stats.netOut.Add(int64(len(p)))
	return g.Conn.Write(p)
}

// scan advances the framing state over b. On a violation it sets g.failure and returns the
// number of bytes before the offending request and false.
func (g *guardConn) scan(b []byte) (int, bool) {
	reqStart := 0
	for i := 0; i < len(b); {
		switch g.state {
		case stCommand:
			reqStart = i
			if b[i] == '*' {
				g.state, g.line = stMulti, g.line[:0]
				i++
			} else {
				g.state, g.inline = stInline, 0
			}
		case stInline:
			j := i
			for j < len(b) && b[j] != '\n' {
				j++
			}
			g.inline += j - i
			if g.inline > inlineMax {
				return g.fail(reqStart, errTooBigInline)
			}
			if j < len(b) {
				g.state = stCommand
				j++
			}
			i = j
		case stMulti, stBulkLen:
			c := b[i]
			i++
			if c != '\n' {
				if len(g.line) >= headerLineMax {
					if g.state == stMulti {
						return g.fail(reqStart, errTooBigMbulk)
					}
					return g.fail(reqStart, errTooBigBulkCnt)
				}
				g.line = append(g.line, c)
				continue
			}
			line := g.line
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			n, err := strconv.ParseInt(string(line), 10, 64)
			if g.state == stMulti {
				if err != nil || n > maxMultibulk {
					return g.fail(reqStart, errMultiLength)
				}
				g.args = n
				g.state = stBulkHdr
				if n <= 0 {
					g.state = stCommand
				}
				continue
			}
			if err != nil || n < 0 || n > g.maxBulk {
				return g.fail(reqStart, errBulkLength)
			}
			g.skip, g.state = n+2, stPayload
		case stBulkHdr:
			if b[i] != '$' {
				// The request parser answers this one with Redis's text.
				g.state = stCommand
				return len(b), true
			}
			g.state, g.line = stBulkLen, g.line[:0]
			i++
		case stPayload:
			take := min(g.skip, int64(len(b)-i))
			g.skip -= take
			i += int(take)
			if g.skip == 0 {
				g.args--
				g.state = stBulkHdr
				if g.args == 0 {
					g.state = stCommand
				}
			}
		}
	}
	return len(b), true
}

func (g *guardConn) fail(before int, msg string) (int, bool) {
	g.failure = msg
	return before, false
}
