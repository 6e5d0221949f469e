package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/tidwall/redcon"

	"github.com/strata-db/strata/config"
)

// This file holds the TLS listener (tls-port, tls-cert-file, tls-key-file, tls-ca-cert-file,
// tls-auth-clients): a second redcon server on the first bind address whose connections are
// TLS connections, served by the same accept, handle and closed callbacks, behind the same
// guardConn as plain ones. Handshakes run in their own goroutines, so a slow or silent client
// cannot hold up the others. server.go calls in through listenTLS and serveTLS (Start) and
// closeTLS (Close).

// tlsServer is the Server state of the TLS listener.
type tlsServer struct {
	ln   net.Listener // the handshaking listener, nil without tls-port
	rs   *redcon.Server
	done chan error
}

// handshakeTimeout bounds a client's TLS handshake.
const handshakeTimeout = 10 * time.Second

// tlsConfig builds the server's TLS configuration from the tls-* directives, as Redis reads
// them: a certificate and key are required, and client certificates are required (yes),
// checked when sent (optional) or ignored (no), against tls-ca-cert-file.
func tlsConfig(cfg *config.Config) (*tls.Config, error) {
	if cfg.TLSCertFile == "" || cfg.TLSKeyFile == "" {
		return nil, errors.New("tls-port needs tls-cert-file and tls-key-file")
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading tls-cert-file/tls-key-file: %w", err)
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if cfg.TLSCACertFile != "" {
		pem, err := os.ReadFile(cfg.TLSCACertFile)
		if err != nil {
			return nil, fmt.Errorf("reading tls-ca-cert-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls-ca-cert-file %s holds no PEM certificate", cfg.TLSCACertFile)
		}
		tc.ClientCAs = pool
	}
	switch cfg.TLSAuthClients {
	case "no":
		tc.ClientAuth = tls.NoClientCert
	case "optional":
		tc.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		tc.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if tc.ClientAuth != tls.NoClientCert && tc.ClientCAs == nil {
		return nil, errors.New("tls-auth-clients yes or optional needs tls-ca-cert-file (or set tls-auth-clients no)")
	}
	return tc, nil
}

// listenTLS opens the TLS listener on every bind address at tls-port when tls-port is set.
func (s *Server) listenTLS(hosts []string) error {
	if s.cfg.TLSPort == 0 {
		return nil
	}
	tc, err := tlsConfig(s.cfg)
	if err != nil {
		return err
	}
	raw, err := listenAll(hosts, s.cfg.TLSPort) // listen.go
	if err != nil {
		return fmt.Errorf("tls-port: %w", err)
	}
	s.tls.ln = newHandshakeListener(raw, tc, s.log)
	return nil
}

// serveTLS serves the TLS listener opened by listenTLS, if any.
func (s *Server) serveTLS() {
	if s.tls.ln == nil {
		return
	}
	ln := &guardListener{Listener: s.tls.ln, srv: s}
	s.tls.rs = redcon.NewServerNetwork("tcp", ln.Addr().String(), s.handle, s.accept, s.closed)
	s.tls.done = make(chan error, 1)
	go func() { s.tls.done <- s.tls.rs.Serve(ln) }()
}

// closeTLS stops the TLS listener and disconnects its clients.
func (s *Server) closeTLS() {
	switch {
	case s.tls.rs != nil:
		s.tls.rs.Close()
		<-s.tls.done
	case s.tls.ln != nil:
		s.tls.ln.Close()
	}
}

// TLSAddr returns the address of the TLS listener, or "" without one.
func (s *Server) TLSAddr() string {
	if s.tls.ln == nil {
		return ""
	}
	return s.tls.ln.Addr().String()
}

// handshakeListener accepts TCP connections and hands out the ones that completed a TLS
// handshake, each handshake in its own goroutine.
type handshakeListener struct {
	net.Listener
	cfg    *tls.Config
	log    *slog.Logger
	conns  chan net.Conn
	errs   chan error
	closed chan struct{}
	once   sync.Once
}

func newHandshakeListener(raw net.Listener, cfg *tls.Config, log *slog.Logger) *handshakeListener {
	l := &handshakeListener{Listener: raw, cfg: cfg, log: log, conns: make(chan net.Conn),
		errs: make(chan error), closed: make(chan struct{})}
	go l.acceptLoop()
	return l
}

func (l *handshakeListener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			select {
			case <-l.closed:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				l.Close()
				return
			}
			select {
			case l.errs <- err:
			case <-l.closed:
				return
			}
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors: do not spin
			continue
		}
		go l.handshake(c)
	}
}

func (l *handshakeListener) handshake(c net.Conn) {
	tc := tls.Server(c, l.cfg)
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
	err := tc.HandshakeContext(ctx)
	cancel()
	if err != nil {
		l.log.Debug("TLS handshake failed", "addr", c.RemoteAddr().String(), "err", err)
		c.Close()
		return
	}
	select {
	case l.conns <- tc:
	case <-l.closed:
		tc.Close()
	}
}

// Accept returns the next connection that completed its handshake.
func (l *handshakeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; connections still handshaking are closed when they finish.
func (l *handshakeListener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.closed)
		err = l.Listener.Close()
	})
	return err
}
