// Package outconn keeps Strata's outgoing connections to other servers: a cache of idle
// connections by "host:port", as Redis caches MIGRATE's sockets, with reads of one reply line
// and chunked writes, each within a timeout. A caller takes a connection out while it uses it,
// so two callers reaching the same server at once use two connections.
package outconn

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// Conn is a connection taken from a Cache.
type Conn struct {
	conn    net.Conn
	r       *bufio.Reader
	maxLine int
	LastDB  int64 // the database last SELECTed on the connection, -1 for none
	idle    *time.Timer
}

// Cache keeps idle connections by "host:port". It is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	conns   map[string]*Conn
	idle    time.Duration
	max     int
	maxLine int
}

// NewCache returns a cache that closes a connection idle for idle, keeps at most max (a new one
// beyond that closes one at random), and keeps reply lines up to maxLine bytes.
func NewCache(idle time.Duration, max, maxLine int) *Cache {
	return &Cache{conns: map[string]*Conn{}, idle: idle, max: max, maxLine: maxLine}
}

// Len returns the number of idle connections cached.
func (cc *Cache) Len() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return len(cc.conns)
}

// Take returns the cached connection to name, removing it from the cache, or dials a new one
// within timeout.
func (cc *Cache) Take(name string, timeout time.Duration) (*Conn, error) {
	cc.mu.Lock()
	mc := cc.conns[name]
	delete(cc.conns, name)
	cc.mu.Unlock()
	if mc != nil {
		mc.idle.Stop()
		return mc, nil
	}
	conn, err := net.DialTimeout("tcp", name, timeout)
	if err != nil {
		return nil, err
	}
	return &Conn{conn: conn, r: bufio.NewReaderSize(conn, 4096), maxLine: cc.maxLine, LastDB: -1}, nil
}

// Give puts mc back in the cache under name, to be closed once idle.
func (cc *Cache) Give(name string, mc *Conn) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.conns[name] != nil {
		mc.conn.Close() // another MIGRATE cached one meanwhile
		return
	}
	if len(cc.conns) >= cc.max {
		for n, other := range cc.conns {
			other.idle.Stop()
			other.conn.Close()
			delete(cc.conns, n)
			break
		}
	}
	cc.conns[name] = mc
	mc.idle = time.AfterFunc(cc.idle, func() {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		if cc.conns[name] == mc {
			delete(cc.conns, name)
			mc.conn.Close()
		}
	})
}

// ReadLine reads one reply line within timeout, without its line ending, keeping at most the
// cache's maxLine bytes of it.
func (mc *Conn) ReadLine(timeout time.Duration) ([]byte, error) {
	mc.conn.SetReadDeadline(time.Now().Add(timeout))
	var line []byte
	for {
		part, err := mc.r.ReadSlice('\n')
		if len(line) < mc.maxLine {
			line = append(line, part[:min(len(part), mc.maxLine-len(line))]...)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
	line = bytes.TrimRight(line, "\r\n")
	if len(line) == 0 {
		return nil, errors.New("empty reply line")
	}
	return line, nil
}

// Write sends p in pieces of at most chunk bytes, each within timeout.
func (mc *Conn) Write(p []byte, chunk int, timeout time.Duration) error {
	for len(p) > 0 {
		n := min(len(p), chunk)
		mc.conn.SetWriteDeadline(time.Now().Add(timeout))
		if _, err := mc.conn.Write(p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// Close closes the connection (one that failed is not given back).
func (mc *Conn) Close() error { return mc.conn.Close() }

// IsTimeout reports an error that is a timeout.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
