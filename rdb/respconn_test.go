package rdb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// The differential tests talk to redis-server through this small RESP2 client: package rdb sits
// below the server, so its tests cannot use internal/testutil, which starts Strata servers.

// envRequireExternal is internal/testutil's switch: with it set to 1, tests that need
// redis-server fail instead of skipping without one.
const envRequireExternal = "STRATA_REQUIRE_EXTERNAL"

// respReply is one RESP2 reply: a status or error (Str), an integer (Int), a bulk string
// (Str; Nil for a null) or an array (Elems).
type respReply struct {
	Kind  byte // '+', '-', ':', '$' or '*'
	Str   string
	Int   int64
	Nil   bool
	Elems []respReply
}

// IsError reports an error reply.
func (r respReply) IsError() bool { return r.Kind == '-' }

// respConn is a connection to a RESP server.
type respConn struct {
	nc net.Conn
	r  *bufio.Reader
}

// dialRESP connects to addr.
func dialRESP(addr string) (*respConn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &respConn{nc: nc, r: bufio.NewReader(nc)}, nil
}

// Send writes one command without reading its reply.
func (c *respConn) Send(args ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	c.nc.SetDeadline(time.Now().Add(30 * time.Second))
	_, err := io.WriteString(c.nc, b.String())
	return err
}

// Do sends a command and reads its reply.
func (c *respConn) Do(args ...string) (respReply, error) {
	if err := c.Send(args...); err != nil {
		return respReply{}, err
	}
	return c.ReadReply()
}

// ReadReply reads one reply.
func (c *respConn) ReadReply() (respReply, error) {
	c.nc.SetDeadline(time.Now().Add(30 * time.Second))
	line, err := c.r.ReadString('\n')
	if err != nil {
		return respReply{}, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return respReply{}, errors.New("resp: bad line")
	}
	rep := respReply{Kind: line[0]}
	body := line[1 : len(line)-2]
	switch rep.Kind {
	case '+', '-':
		rep.Str = body
		return rep, nil
	}
	n, err := strconv.ParseInt(body, 10, 64)
	if err != nil {
		return rep, err
	}
	switch rep.Kind {
	case ':':
		rep.Int = n
	case '$':
		if n < 0 {
			rep.Nil = true
			break
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return rep, err
		}
		rep.Str = string(b[:n])
	case '*':
		for i := int64(0); i < n; i++ {
			e, err := c.ReadReply()
			if err != nil {
				return rep, err
			}
			rep.Elems = append(rep.Elems, e)
		}
	default:
		return rep, fmt.Errorf("resp: unexpected reply type %q", rep.Kind)
	}
	return rep, nil
}

// Close closes the connection.
func (c *respConn) Close() error { return c.nc.Close() }
