// Package testutil holds helpers shared by Strata's test packages: starting
// a Strata server or a reference redis-server, a raw RESP client, and a
// transcript runner that compares the two servers reply by reply.
package testutil

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/server"
)

// Instance is a running server under test: either Strata (Server != nil) or
// an external redis-server.
type Instance struct {
	// Name is "strata" or "redis"; used in failure messages.
	Name string
	// Addr is host:port of the listening server.
	Addr string
	// Dir is the data directory.
	Dir string
	// Server is the Strata server; nil for redis-server.
	Server *server.Server

	cfg    *config.Config
	logger *slog.Logger
	mu     sync.Mutex
	closed bool

	// redis-server process state.
	cmd  *exec.Cmd
	done chan struct{}
	out  *syncBuffer
}

// EnvRequireExternal makes StartRedis fail rather than skip when
// redis-server is not installed (set it to 1 in CI).
const EnvRequireExternal = "STRATA_REQUIRE_EXTERNAL"

// tWriter forwards log output to t.Log while the test is running, and to
// stderr once it has finished (server goroutines may log late).
type tWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *tWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return os.Stderr.Write(p)
	}
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// StartStrata starts a Strata server on 127.0.0.1 with a random port and a
// fresh temporary data directory (unless an option sets Dir), with the
// metrics listener disabled, and closes it when the test ends. Log records
// below Warn are discarded; the rest go to the test log (to stderr for a fuzz
// target's server).
func StartStrata(t testing.TB, opts ...func(*config.Config)) *Instance {
	t.Helper()
	cfg := config.Default()
	cfg.Bind = []string{"127.0.0.1"}
	cfg.Port = 0
	cfg.Dir = ""
	cfg.MetricsAddr = "" // many instances run at once: no fixed metrics port
	for _, o := range opts {
		o(cfg)
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	// A fuzz target's F may not log while the target runs: its server logs to stderr.
	_, fuzzing := t.(*testing.F)
	w := &tWriter{t: t, done: fuzzing}
	// Registered before the Close cleanup, so it runs after it.
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	inst := &Instance{
		Name:   "strata",
		Dir:    cfg.Dir,
		cfg:    cfg,
		logger: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if err := inst.startStrata(); err != nil {
		t.Fatalf("start strata: %v", err)
	}
	t.Cleanup(func() {
		if err := inst.Close(); err != nil {
			t.Errorf("close strata: %v", err)
		}
	})
	return inst
}

func (inst *Instance) startStrata() error {
	srv, err := server.New(inst.cfg, inst.logger)
	if err != nil {
		return fmt.Errorf("server.New: %w", err)
	}
	if err := srv.Start(); err != nil {
		srv.Close()
		return fmt.Errorf("Start: %w", err)
	}
	inst.mu.Lock()
	inst.Server = srv
	inst.Addr = srv.Addr()
	inst.closed = false
	inst.mu.Unlock()
	return nil
}

// Restart closes a Strata server and starts a new one on the same data
// directory and configuration. The address may change.
func (inst *Instance) Restart(t testing.TB) {
	t.Helper()
	if inst.Server == nil {
		t.Fatalf("Restart: %s instance is not a Strata server", inst.Name)
	}
	if err := inst.Close(); err != nil {
		t.Fatalf("restart: close: %v", err)
	}
	if err := inst.startStrata(); err != nil {
		t.Fatalf("restart: %v", err)
	}
}

// Close stops the server. It is safe to call more than once.
func (inst *Instance) Close() error {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if inst.closed {
		return nil
	}
	inst.closed = true
	if inst.Server != nil {
		return inst.Server.Close()
	}
	if inst.cmd != nil && inst.cmd.Process != nil {
		inst.cmd.Process.Kill()
		<-inst.done // the goroutine started in startRedisOnce calls Wait
	}
	return nil
}

// RedisServerPath returns the path of redis-server on PATH, or "".
func RedisServerPath() string {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// MaybeStartRedis starts a reference redis-server if one is installed, and
// returns nil otherwise (or fails the test if STRATA_REQUIRE_EXTERNAL=1).
// Use it where a comparison with redis is optional.
func MaybeStartRedis(t testing.TB) *Instance {
	t.Helper()
	if RedisServerPath() == "" {
		if os.Getenv(EnvRequireExternal) == "1" {
			t.Fatalf("redis-server not on PATH and %s=1", EnvRequireExternal)
		}
		return nil
	}
	return StartRedis(t)
}

// StartRedis starts a reference redis-server on a free loopback port with
// persistence disabled, waits until it answers PING, and kills it when the
// test ends. Without redis-server on PATH the test is skipped, or fails if
// STRATA_REQUIRE_EXTERNAL=1. args are more directives for its command line
// ("--enable-debug-command", "yes").
func StartRedis(t testing.TB, args ...string) *Instance {
	t.Helper()
	path := RedisServerPath()
	if path == "" {
		if os.Getenv(EnvRequireExternal) == "1" {
			t.Fatalf("redis-server not on PATH and %s=1", EnvRequireExternal)
		}
		t.Skip("redis-server not on PATH; install redis-server to run differential tests")
	}
	dir := t.TempDir()
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		inst, err := startRedisOnce(path, dir, args...)
		if err == nil {
			t.Cleanup(func() { inst.Close() })
			return inst
		}
		lastErr = err
	}
	t.Fatalf("start redis-server: %v", lastErr)
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startRedisOnce(path, dir string, args ...string) (*Instance, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, append([]string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
	}, args...)...)
	out := &syncBuffer{}
	cmd.Stdout = out
	cmd.Stderr = out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	inst := &Instance{
		Name: "redis",
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Dir:  dir,
		cmd:  cmd,
		done: make(chan struct{}),
		out:  out,
	}
	go func() {
		cmd.Wait()
		close(inst.done)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-inst.done:
			return nil, fmt.Errorf("redis-server exited early (port %d): %s", port, out.String())
		default:
		}
		if pingOK(inst.Addr) {
			return inst, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	inst.Close()
	return nil, fmt.Errorf("redis-server on port %d did not answer PING: %s", port, out.String())
}

func pingOK(addr string) bool {
	c, err := Dial(addr)
	if err != nil {
		return false
	}
	defer c.Close()
	c.Timeout = time.Second
	r, err := c.Do("PING")
	return err == nil && r.Kind == KindSimple && r.Str == "PONG"
}

// Log returns what redis-server printed so far ("" for Strata).
func (inst *Instance) Log() string {
	if inst.out == nil {
		return ""
	}
	return inst.out.String()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
