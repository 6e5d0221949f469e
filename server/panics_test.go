package server

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
)

// syncLog collects a server's log records for a test.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestClientPanicsAreContained makes each kind of goroutine that serves a client panic, through
// the test hook, on input of its own: the client whose input caused it is disconnected, the
// panic is logged with that input and counted in INFO, and the server goes on serving the other
// clients (a bystander, and new connections).
func TestClientPanicsAreContained(t *testing.T) {
	cfg := config.Default()
	cfg.Bind = []string{"127.0.0.1"}
	cfg.Port = 0
	cfg.Dir = t.TempDir()
	cfg.MetricsAddr = ""
	logs := &syncLog{}
	s, err := New(cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	s.panicHook = func(point string, input []byte) {
		if bytes.Contains(input, []byte("boom-"+point)) {
			panic("injected at " + point)
		}
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	bystander := blockDial(t, s)
	must(t, bystander.do("SET", "k", "v"), "OK")

	// closed reads until the server closes c, failing on anything but a clean close or reset.
	closed := func(c *blockClient, what string) {
		t.Helper()
		c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, err := io.ReadAll(c.r)
		if err != nil && !strings.Contains(err.Error(), "reset") {
			t.Fatalf("%s: the connection was not closed: %v (received %q)", what, err, got)
		}
		if len(got) > 0 {
			t.Fatalf("%s: received %q before the close", what, got)
		}
	}
	want := int64(0)
	check := func(what, input string) {
		t.Helper()
		want++
		if n := s.stats.panics.Load(); n != want {
			t.Fatalf("%s: %d panics counted, want %d", what, n, want)
		}
		if info := bystander.do("INFO", "stats"); !strings.Contains(info, fmt.Sprintf("client_panics:%d\r\n", want)) {
			t.Fatalf("%s: INFO stats lacks client_panics:%d", what, want)
		}
		must(t, bystander.do("GET", "k"), "v")
		must(t, blockDial(t, s).do("PING"), "PONG")
		if log := logs.String(); !strings.Contains(log, "injected at") || !strings.Contains(log, input) {
			t.Fatalf("%s: the log does not show the panic with its input %q:\n%s", what, input, log)
		}
	}

	t.Run("reading", func(t *testing.T) {
		c := blockDial(t, s)
		c.nc.Write([]byte("PING\r\nECHO boom-read\r\n"))
		closed(c, "reading")
		check("reading", "boom-read")
	})
	t.Run("command", func(t *testing.T) {
		c := blockDial(t, s)
		c.nc.Write([]byte("ECHO boom-command\r\nSET k other\r\n"))
		closed(c, "command")
		check("command", "ECHO boom-command")
	})
	t.Run("writing", func(t *testing.T) {
		c := blockDial(t, s)
		c.send("ECHO", "boom-write")
		closed(c, "writing")
		check("writing", "boom-write")
	})
	t.Run("blocked", func(t *testing.T) {
		c := blockDial(t, s)
		c.send("BLPOP", "panics:list", "0")
		blockWaitFor(t, "the client to block", func() bool { return s.Stats().BlockedClients == 1 })
		c.nc.Write([]byte("ECHO boom-blocked\r\n"))
		closed(c, "blocked")
		blockWaitFor(t, "the client to leave", func() bool { return s.Stats().BlockedClients == 0 })
		check("blocked", "boom-blocked")
		must(t, bystander.do("RPUSH", "panics:list", "x"), ":1")
	})
	t.Run("pubsub delivery", func(t *testing.T) {
		c := blockDial(t, s)
		must(t, c.do("SUBSCRIBE", "ch"), "[subscribe ch :1]")
		must(t, bystander.do("PUBLISH", "ch", "boom-deliver"), ":1")
		closed(c, "pubsub delivery")
		check("pubsub delivery", "boom-deliver")
	})
	t.Run("tracking push", func(t *testing.T) {
		c := blockDial(t, s)
		c.do("HELLO", "3")
		must(t, c.do("CLIENT", "TRACKING", "on"), "OK")
		must(t, c.do("GET", "boom-deliver-tracked"), "nil")
		must(t, bystander.do("SET", "boom-deliver-tracked", "1"), "OK")
		closed(c, "tracking push")
		check("tracking push", "boom-deliver-tracked")
	})
}

func must(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
