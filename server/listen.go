package server

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The server listens on every address of the bind directive, as Redis does, and serves all of
// them as one listener (multiListener). server.go calls listenAll from Start for the port and
// tls.go for tls-port.

// listenRetries bounds how often listenAll picks a new port when port 0 was asked for and the
// port the first address got is taken on another.
const listenRetries = 8

// listenAll opens a TCP listener on each of addrs at port. As in Redis, "*" stands for every
// IPv4 address and "::*" for every IPv6 one, an address with a leading "-" is optional (left out
// when the machine does not have it), and an address whose family the machine lacks is left out.
// With port 0 the first listener's port, picked by the system, is used for the others too.
func listenAll(addrs []string, port int) (net.Listener, error) {
	for attempt := 0; ; attempt++ {
		lns, err := listenEach(addrs, port)
		if err == nil {
			if len(lns) == 1 {
				return lns[0], nil
			}
			return newMultiListener(lns), nil
		}
		if port != 0 || attempt == listenRetries || !errors.Is(err, syscall.EADDRINUSE) {
			return nil, err
		}
	}
}

func listenEach(addrs []string, port int) ([]net.Listener, error) {
	var lns []net.Listener
	fail := func(err error) ([]net.Listener, error) {
		for _, ln := range lns {
			ln.Close()
		}
		return nil, err
	}
	for _, a := range addrs {
		optional := strings.HasPrefix(a, "-")
		a = strings.TrimPrefix(a, "-")
		network, host := "tcp4", a
		switch {
		case a == "*":
			host = "0.0.0.0"
		case a == "::*":
			network, host = "tcp6", "::"
		case strings.Contains(a, ":"):
			network = "tcp6"
		}
		addr := net.JoinHostPort(host, strconv.Itoa(port))
		ln, err := net.Listen(network, addr)
		if err != nil {
			if optional && errors.Is(err, syscall.EADDRNOTAVAIL) || familyMissing(err) {
				continue
			}
			return fail(fmt.Errorf("listen %s: %w", addr, err))
		}
		if port == 0 {
			port = ln.Addr().(*net.TCPAddr).Port
		}
		lns = append(lns, ln)
	}
	if len(lns) == 0 {
		return nil, fmt.Errorf("none of the bind addresses %q can be listened on at port %d", addrs, port)
	}
	return lns, nil
}

// familyMissing reports whether err says that the machine lacks the address's family or
// protocol, which Redis skips even for addresses not marked optional.
func familyMissing(err error) bool {
	for _, e := range []syscall.Errno{syscall.ENOPROTOOPT, syscall.EPROTONOSUPPORT,
		syscall.ESOCKTNOSUPPORT, syscall.EPFNOSUPPORT, syscall.EAFNOSUPPORT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// multiListener accepts connections from several listeners, each accepting in its own goroutine.
// Its address is the first listener's.
type multiListener struct {
	lns    []net.Listener
	conns  chan net.Conn
	errs   chan error
	closed chan struct{}
	once   sync.Once
}

func newMultiListener(lns []net.Listener) *multiListener {
	m := &multiListener{lns: lns, conns: make(chan net.Conn), errs: make(chan error),
		closed: make(chan struct{})}
	for _, ln := range lns {
		go m.acceptLoop(ln)
	}
	return m
}

// acceptLoop hands ln's connections to Accept until the listener is closed. An accept error
// other than the close (too many open files) is passed on, then the loop waits a little before
// accepting again, so that it does not spin.
func (m *multiListener) acceptLoop(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			select {
			case m.errs <- err:
			case <-m.closed:
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		select {
		case m.conns <- c:
		case <-m.closed:
			c.Close()
			return
		}
	}
}

func (m *multiListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case err := <-m.errs:
		return nil, err
	case <-m.closed:
		return nil, net.ErrClosed
	}
}

func (m *multiListener) Close() error {
	var err error
	m.once.Do(func() {
		close(m.closed)
		for _, ln := range m.lns {
			if cerr := ln.Close(); err == nil {
				err = cerr
			}
		}
	})
	return err
}

func (m *multiListener) Addr() net.Addr { return m.lns[0].Addr() }

// addrs returns the addresses of the listeners.
func (m *multiListener) addrs() []string {
	out := make([]string, len(m.lns))
	for i, ln := range m.lns {
		out[i] = ln.Addr().String()
	}
	return out
}

// listenerAddrs returns the addresses ln listens on.
func listenerAddrs(ln net.Listener) []string {
	if m, ok := ln.(*multiListener); ok {
		return m.addrs()
	}
	return []string{ln.Addr().String()}
}
