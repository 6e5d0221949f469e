package server

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
)

// TestProtectedRefuses checks protected mode's decision for client addresses: only loopback
// ones (127.0.0.0/8, ::1) get in while the default user has no password.
func TestProtectedRefuses(t *testing.T) {
	cases := []struct {
		mode   string
		nopass bool
		remote string
		refuse bool
	}{
		{"yes", true, "127.0.0.1:5000", false},
		{"yes", true, "127.8.9.10:5000", false},
		{"yes", true, "[::1]:5000", false},
		{"yes", true, "[::ffff:127.0.0.1]:5000", false},
		{"yes", true, "192.0.2.2:5000", true},
		{"yes", true, "10.1.2.3:5000", true},
		{"yes", true, "[2001:db8::1]:5000", true},
		{"yes", true, "0.0.0.0:5000", true},
		{"yes", true, "not an address", true},
		{"yes", false, "192.0.2.2:5000", false}, // a password: anyone may try to AUTH
		{"no", true, "192.0.2.2:5000", false},
	}
	for _, c := range cases {
		if got := protectedRefuses(c.mode, c.nopass, c.remote); got != c.refuse {
			t.Errorf("protected-mode %s, nopass %v, client %s: refuse %v, want %v", c.mode, c.nopass, c.remote, got, c.refuse)
		}
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key to dir.
func selfSigned(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "strata"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(k)
	cert, key = filepath.Join(dir, "s.crt"), filepath.Join(dir, "s.key")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return cert, key
}

// TestTLSConfig checks how the tls-* directives become a crypto/tls configuration.
func TestTLSConfig(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	cfg := config.Default()
	cfg.TLSCertFile, cfg.TLSKeyFile, cfg.TLSCACertFile = cert, key, cert
	for mode, want := range map[string]tls.ClientAuthType{"yes": tls.RequireAndVerifyClientCert,
		"optional": tls.VerifyClientCertIfGiven, "no": tls.NoClientCert} {
		cfg.TLSAuthClients = mode
		tc, err := tlsConfig(cfg)
		if err != nil || tc.ClientAuth != want || tc.MinVersion != tls.VersionTLS12 || len(tc.Certificates) != 1 {
			t.Errorf("tls-auth-clients %s: %+v, %v", mode, tc, err)
		}
	}
	cfg.TLSCACertFile = ""
	for _, mode := range []string{"yes", "optional"} {
		cfg.TLSAuthClients = mode
		if _, err := tlsConfig(cfg); err == nil || !strings.Contains(err.Error(), "tls-ca-cert-file") {
			t.Errorf("tls-auth-clients %s without a CA: %v", mode, err)
		}
	}
	cfg.TLSAuthClients = "no"
	if _, err := tlsConfig(cfg); err != nil {
		t.Errorf("tls-auth-clients no without a CA: %v", err)
	}
	cfg.TLSKeyFile = ""
	if _, err := tlsConfig(cfg); err == nil {
		t.Error("no key accepted")
	}
}

// TestTLSSilentClient checks that a client that connects to the TLS port and never completes a
// handshake does not hold up the next one.
func TestTLSSilentClient(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cfg := config.Default()
	cfg.Dir, cfg.Port, cfg.MetricsAddr, cfg.Bind = dir, 0, "", []string{"127.0.0.1"}
	cfg.TLSPort, cfg.TLSCertFile, cfg.TLSKeyFile, cfg.TLSAuthClients = port, cert, key, "no"
	s, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	silent, err := net.Dial("tcp", s.TLSAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	pool := x509.NewCertPool()
	caPEM, _ := os.ReadFile(cert)
	pool.AppendCertsFromPEM(caPEM)
	start := time.Now()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 3 * time.Second}, "tcp", s.TLSAddr(), &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	c.Write([]byte("PING\r\n"))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != "+PONG\r\n" || time.Since(start) > 2*time.Second {
		t.Errorf("PING over TLS behind a silent client: %q, %v after %v", line, err, time.Since(start))
	}
}
