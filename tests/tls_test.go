package tests

import (
	"bufio"
	"context"
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
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/server"
)

// tlsFiles are PEM files made by tlsCerts: a CA, a server certificate for 127.0.0.1 and a
// client certificate, both signed by the CA, and a client certificate signed by another CA.
type tlsFiles struct {
	dir                       string
	ca, serverCert, serverKey string
	clientCert, clientKey     string
	strangerCert, strangerKey string
	caPool                    *x509.CertPool
	client, stranger          tls.Certificate
}

func tlsCerts(t *testing.T) *tlsFiles {
	t.Helper()
	dir := t.TempDir()
	f := &tlsFiles{dir: dir}
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	serial := int64(1)
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	makeCA := func(name string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
		key := newKey()
		serial++
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
			BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		cert, _ := x509.ParseCertificate(der)
		return cert, key, der
	}
	leaf := func(ca *x509.Certificate, caKey *ecdsa.PrivateKey, name string, usage x509.ExtKeyUsage, ips []net.IP) ([]byte, []byte) {
		key := newKey()
		serial++
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips,
			DNSNames: []string{"localhost"}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return der, kder
	}
	ca, caKey, caDER := makeCA("Strata test CA")
	f.ca = write("ca.crt", "CERTIFICATE", caDER)
	der, kder := leaf(ca, caKey, "strata", x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")})
	f.serverCert, f.serverKey = write("server.crt", "CERTIFICATE", der), write("server.key", "EC PRIVATE KEY", kder)
	der, kder = leaf(ca, caKey, "client", x509.ExtKeyUsageClientAuth, nil)
	f.clientCert, f.clientKey = write("client.crt", "CERTIFICATE", der), write("client.key", "EC PRIVATE KEY", kder)
	other, otherKey, _ := makeCA("Another CA")
	der, kder = leaf(other, otherKey, "stranger", x509.ExtKeyUsageClientAuth, nil)
	f.strangerCert, f.strangerKey = write("stranger.crt", "CERTIFICATE", der), write("stranger.key", "EC PRIVATE KEY", kder)
	f.caPool = x509.NewCertPool()
	f.caPool.AddCert(ca)
	var err error
	if f.client, err = tls.LoadX509KeyPair(f.clientCert, f.clientKey); err != nil {
		t.Fatal(err)
	}
	if f.stranger, err = tls.LoadX509KeyPair(f.strangerCert, f.strangerKey); err != nil {
		t.Fatal(err)
	}
	return f
}

// tlsFreePort returns a TCP port free on 127.0.0.1 a moment ago.
func tlsFreePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startTLS starts Strata with a TLS listener using f's certificates.
func startTLS(t *testing.T, f *tlsFiles, opts ...func(*config.Config)) (*testutil.Instance, string) {
	t.Helper()
	port := tlsFreePort(t)
	inst := testutil.StartStrata(t, append([]func(*config.Config){func(c *config.Config) {
		c.TLSPort, c.TLSCertFile, c.TLSKeyFile, c.TLSCACertFile = port, f.serverCert, f.serverKey, f.ca
	}}, opts...)...)
	return inst, inst.Server.TLSAddr()
}

// tlsClientConfig trusts f's CA and presents cert, if any.
func (f *tlsFiles) clientConfig(cert *tls.Certificate) *tls.Config {
	tc := &tls.Config{RootCAs: f.caPool, ServerName: "127.0.0.1"}
	if cert != nil {
		tc.Certificates = []tls.Certificate{*cert}
	}
	return tc
}

// tlsDo sends one inline command over a TLS connection and returns the first reply line.
func tlsDo(t *testing.T, c *tls.Conn, r *bufio.Reader, cmd string) string {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return strings.TrimRight(line, "\r\n")
}

// TestTLSGoRedis serves go-redis over TLS with client certificates required (tls-auth-clients
// yes): commands in RESP2 and RESP3, the same keyspace as the plain port, refused handshakes
// without a certificate or with one from another CA.
func TestTLSGoRedis(t *testing.T) {
	f := tlsCerts(t)
	inst, tlsAddr := startTLS(t, f)
	if tlsAddr == "" {
		t.Fatal("no TLS listener")
	}
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		rdb := testutil.Client(t, inst, func(o *redis.Options) {
			o.Addr, o.Protocol, o.TLSConfig = tlsAddr, proto, f.clientConfig(&f.client)
			o.DisableIdentity, o.ClientName = false, "tls"+strconv.Itoa(proto)
		})
		key := "tls:" + strconv.Itoa(proto)
		if err := rdb.Set(ctx, key, "over tls", 0).Err(); err != nil {
			t.Fatalf("RESP%d SET over TLS: %v", proto, err)
		}
		if v, err := rdb.Get(ctx, key).Result(); err != nil || v != "over tls" {
			t.Errorf("RESP%d GET over TLS = %q, %v", proto, v, err)
		}
		if n, err := rdb.RPush(ctx, key+":list", strings.Repeat("x", 100000), "y").Result(); err != nil || n != 2 {
			t.Errorf("RESP%d RPUSH of a large value over TLS = %d, %v", proto, n, err)
		}
	}
	plain := testutil.Client(t, inst)
	if v, err := plain.Get(ctx, "tls:2").Result(); err != nil || v != "over tls" {
		t.Errorf("plain port sees %q, %v", v, err)
	}
	list, err := plain.ClientList(ctx).Result()
	if err != nil || !strings.Contains(list, "name=tls2 ") || !strings.Contains(list, "name=tls3 ") {
		t.Errorf("CLIENT LIST lacks the TLS clients: %v\n%s", err, list)
	}
	for name, cert := range map[string]*tls.Certificate{"no certificate": nil, "another CA": &f.stranger} {
		tc := f.clientConfig(nil)
		if cert != nil {
			// Go's client only sends a certificate from a CA the server names; force it.
			tc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
		}
		rdb := testutil.Client(t, inst, func(o *redis.Options) { o.Addr, o.TLSConfig, o.MaxRetries = tlsAddr, tc, -1 })
		if err := rdb.Ping(ctx).Err(); err == nil {
			t.Errorf("%s: PING over TLS succeeded", name)
		}
	}
	// A plain-text client on the TLS port gets no RESP reply.
	c, err := net.DialTimeout("tcp", tlsAddr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("PING\r\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	if n, _ := c.Read(buf); strings.Contains(string(buf[:n]), "PONG") {
		t.Error("plain text answered on the TLS port")
	}
}

// TestTLSAuthClientsModes checks tls-auth-clients optional and no, and authentication over TLS.
func TestTLSAuthClientsModes(t *testing.T) {
	f := tlsCerts(t)
	ctx := context.Background()
	t.Run("optional", func(t *testing.T) {
		inst, addr := startTLS(t, f, func(c *config.Config) { c.TLSAuthClients = "optional" })
		for name, cert := range map[string]*tls.Certificate{"without": nil, "with": &f.client} {
			rdb := testutil.Client(t, inst, func(o *redis.Options) { o.Addr, o.TLSConfig = addr, f.clientConfig(cert) })
			if err := rdb.Ping(ctx).Err(); err != nil {
				t.Errorf("%s a certificate: %v", name, err)
			}
		}
		// Go's client only sends a certificate from a CA the server names; force it.
		tc := f.clientConfig(nil)
		tc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &f.stranger, nil }
		rdb := testutil.Client(t, inst, func(o *redis.Options) { o.Addr, o.TLSConfig, o.MaxRetries = addr, tc, -1 })
		if err := rdb.Ping(ctx).Err(); err == nil {
			t.Error("a certificate from another CA was accepted")
		}
	})
	t.Run("no", func(t *testing.T) {
		inst, addr := startTLS(t, f, func(c *config.Config) {
			c.TLSAuthClients, c.TLSCACertFile, c.RequirePass = "no", "", "pw"
		})
		c, err := tls.Dial("tcp", addr, f.clientConfig(nil))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r := bufio.NewReader(c)
		if got := tlsDo(t, c, r, "PING"); got != "-NOAUTH Authentication required." {
			t.Errorf("PING before AUTH over TLS: %q", got)
		}
		if got := tlsDo(t, c, r, "AUTH pw"); got != "+OK" {
			t.Errorf("AUTH over TLS: %q", got)
		}
		if got := tlsDo(t, c, r, "ACL WHOAMI"); got != "$7" {
			t.Errorf("ACL WHOAMI over TLS: %q", got)
		}
		_ = inst
	})
}

// TestTLSRedisCli connects redis-cli --tls with the client certificate.
func TestTLSRedisCli(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		if os.Getenv(testutil.EnvRequireExternal) == "1" {
			t.Fatalf("redis-cli not on PATH and %s=1", testutil.EnvRequireExternal)
		}
		t.Skip("redis-cli not installed; install redis-tools to run the TLS test with redis-cli")
	}
	if help, _ := exec.Command(cli, "--help").CombinedOutput(); !strings.Contains(string(help), "--tls") {
		t.Skip("redis-cli was built without TLS")
	}
	f := tlsCerts(t)
	_, addr := startTLS(t, f)
	host, port, _ := net.SplitHostPort(addr)
	run := func(cert bool, args ...string) (string, error) {
		a := []string{"--tls", "--cacert", f.ca, "-h", host, "-p", port}
		if cert {
			a = append(a, "--cert", f.clientCert, "--key", f.clientKey)
		}
		out, err := exec.Command(cli, append(a, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := run(true, "PING"); err != nil || out != "PONG" {
		t.Errorf("redis-cli --tls PING = %q, %v", out, err)
	}
	if out, err := run(true, "SET", "cli", "tls"); err != nil || out != "OK" {
		t.Errorf("redis-cli --tls SET = %q, %v", out, err)
	}
	if out, err := run(true, "GET", "cli"); err != nil || out != "tls" {
		t.Errorf("redis-cli --tls GET = %q, %v", out, err)
	}
	if out, _ := run(false, "PING"); out == "PONG" {
		t.Error("redis-cli without a client certificate got PONG")
	}
}

// TestTLSConfigErrors checks that a TLS listener that cannot work stops the server from
// starting, with a message naming the directive.
func TestTLSConfigErrors(t *testing.T) {
	f := tlsCerts(t)
	cases := []struct {
		set  func(c *config.Config)
		want string
	}{
		{func(c *config.Config) { c.TLSCertFile = "" }, "tls-cert-file"},
		{func(c *config.Config) { c.TLSKeyFile = filepath.Join(f.dir, "none.key") }, "tls-key-file"},
		{func(c *config.Config) { c.TLSKeyFile = f.clientKey }, "tls-key-file"},
		{func(c *config.Config) { c.TLSCACertFile = "" }, "tls-ca-cert-file"},
		{func(c *config.Config) { c.TLSCACertFile = f.serverKey }, "tls-ca-cert-file"},
	}
	for _, tc := range cases {
		cfg := config.Default()
		cfg.Dir, cfg.Port, cfg.MetricsAddr, cfg.Bind = t.TempDir(), 0, "", []string{"127.0.0.1"}
		cfg.TLSPort, cfg.TLSCertFile, cfg.TLSKeyFile, cfg.TLSCACertFile = tlsFreePort(t), f.serverCert, f.serverKey, f.ca
		tc.set(cfg)
		srv, err := server.New(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Start error %v, want one naming %s", err, tc.want)
			if err == nil {
				srv.Close()
			}
		}
	}
}
