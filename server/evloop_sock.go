package server

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sockConn is the socket of a loop connection, as the request guard's net.Conn. The loop reads
// and writes its descriptor directly; the descriptor is not in Go's network poller, whose epoll
// set would otherwise be woken by every request too. Blocking reads and writes (a detached
// connection's goroutine, a subscriber's writer, a replica stream) go through a Go net.Conn on
// a duplicate of the descriptor, made when first needed (goConn) and dropped when the
// connection goes back to its loop with no writer left. Deadlines set before that net.Conn
// exists apply to it once made.
type sockConn struct {
	mu     sync.Mutex
	fd     int // -1 once closed
	la, ra net.Addr
	gc     net.Conn // the Go net.Conn for blocking use, nil until needed
	rd, wd time.Time
	closed bool
}

// newSockConn takes the descriptor of nc, a TCP connection from Go's listener, out of Go's
// network poller: it keeps a duplicate and closes nc.
func newSockConn(nc net.Conn) (*sockConn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, errors.New("connection has no descriptor")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	raw.Control(func(p uintptr) { fd, derr = unix.FcntlInt(p, unix.F_DUPFD_CLOEXEC, 0) })
	if derr != nil {
		return nil, os.NewSyscallError("fcntl", derr)
	}
	s := &sockConn{fd: fd, la: nc.LocalAddr(), ra: nc.RemoteAddr()}
	nc.Close()
	return s, nil
}

// goConn returns the Go net.Conn for blocking reads and writes, making it if needed.
func (s *sockConn) goConn() (net.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, net.ErrClosed
	}
	if s.gc != nil {
		return s.gc, nil
	}
	fd, err := unix.FcntlInt(uintptr(s.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(fd), "client")
	gc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	gc.SetReadDeadline(s.rd)
	gc.SetWriteDeadline(s.wd)
	s.gc = gc
	return gc, nil
}

// release drops the Go net.Conn: the loop alone uses the socket again.
func (s *sockConn) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gc != nil {
		s.gc.Close()
		s.gc = nil
	}
}

func (s *sockConn) Read(p []byte) (int, error) {
	gc, err := s.goConn()
	if err != nil {
		return 0, err
	}
	return gc.Read(p)
}

func (s *sockConn) Write(p []byte) (int, error) {
	gc, err := s.goConn()
	if err != nil {
		return 0, err
	}
	return gc.Write(p)
}

// Close shuts the socket down, so that the peer and every reader see it closed at once; the
// loop or goroutine that owns the connection then closes the descriptor (closeFD).
func (s *sockConn) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return net.ErrClosed
	}
	s.closed = true
	if s.gc != nil {
		s.gc.Close()
	}
	if s.fd >= 0 {
		unix.Shutdown(s.fd, unix.SHUT_RDWR)
	}
	return nil
}

// closeFD closes the descriptor; the connection's owner calls it once, last.
func (s *sockConn) closeFD() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.gc != nil {
		s.gc.Close()
		s.gc = nil
	}
	if s.fd >= 0 {
		unix.Close(s.fd)
		s.fd = -1
	}
}

func (s *sockConn) LocalAddr() net.Addr  { return s.la }
func (s *sockConn) RemoteAddr() net.Addr { return s.ra }

func (s *sockConn) SetDeadline(t time.Time) error {
	s.SetReadDeadline(t)
	return s.SetWriteDeadline(t)
}

func (s *sockConn) SetReadDeadline(t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rd = t
	if s.gc != nil {
		return s.gc.SetReadDeadline(t)
	}
	return nil
}

func (s *sockConn) SetWriteDeadline(t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wd = t
	if s.gc != nil {
		return s.gc.SetWriteDeadline(t)
	}
	return nil
}
