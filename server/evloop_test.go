package server

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
)

func modelServer(tb testing.TB, model string) *Server {
	tb.Helper()
	cfg := config.Default()
	cfg.Bind = []string{"127.0.0.1"}
	cfg.Port = 0
	cfg.Dir = tb.TempDir()
	cfg.MetricsAddr = ""
	cfg.IOModel = model
	s, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// roundTrip sends req and reads until want has arrived.
func roundTrip(tb testing.TB, nc net.Conn, r *bufio.Reader, req []byte, want []byte) {
	tb.Helper()
	if _, err := nc.Write(req); err != nil {
		tb.Fatal(err)
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil {
		tb.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		tb.Fatalf("got %q, want %q", got, want)
	}
}

// TestLoopDetachesAndTakesBack: a blocking command pipelined with others detaches its
// connection, the commands after it are answered in order once it times out, other clients of
// the loop are served meanwhile, and the connection goes back to its loop afterwards.
func TestLoopDetachesAndTakesBack(t *testing.T) {
	s := modelServer(t, "loop")
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(nc)
	other, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetDeadline(time.Now().Add(10 * time.Second))
	or := bufio.NewReader(other)

	if _, err := nc.Write([]byte("PING\r\nBLPOP nolist 0.3\r\nPING\r\nSET k v\r\n")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	roundTrip(t, other, or, []byte("GET k\r\n"), []byte("$-1\r\n")) // the loop is not held
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Fatalf("another client waited %v for the blocked one", d)
	}
	want := "+PONG\r\n*-1\r\n+PONG\r\n+OK\r\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil || string(got) != want {
		t.Fatalf("got %q (%v), want %q", got, err, want)
	}
	var lc *loopConn
	deadline := time.Now().Add(2 * time.Second)
	for {
		s.mu.Lock()
		for _, c := range s.clients {
			if strings.HasSuffix(c.Addr, nc.LocalAddr().String()) {
				lc, _ = c.conn.(*loopConn)
			}
		}
		s.mu.Unlock()
		if lc == nil {
			t.Fatal("the client is not a loop connection")
		}
		if !lc.detached.Load() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the connection was not taken back by its loop")
		}
		time.Sleep(10 * time.Millisecond)
	}
	roundTrip(t, nc, r, []byte("GET k\r\n"), []byte("$1\r\nv\r\n"))
}

// BenchmarkConnPing is one PING round trip on loopback, as redis-benchmark without
// pipelining sends it, through each io-model.
func BenchmarkConnPing(b *testing.B) {
	benchConn(b, []byte("*1\r\n$4\r\nPING\r\n"), []byte("+PONG\r\n"))
}

// BenchmarkConnGetPipelined16 is a round trip of 16 pipelined GETs of a 3-byte value.
func BenchmarkConnGetPipelined16(b *testing.B) {
	req := bytes.Repeat([]byte("*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n"), 16)
	want := bytes.Repeat([]byte("$3\r\nxxx\r\n"), 16)
	benchConn(b, req, want, []byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$3\r\nxxx\r\n"), []byte("+OK\r\n"))
}

func benchConn(b *testing.B, req, want []byte, setup ...[]byte) {
	for _, model := range []string{"loop", "goroutine"} {
		b.Run(model, func(b *testing.B) {
			s := modelServer(b, model)
			nc, err := net.Dial("tcp", s.Addr())
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			r := bufio.NewReader(nc)
			for i := 0; i+1 < len(setup); i += 2 {
				roundTrip(b, nc, r, setup[i], setup[i+1])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				roundTrip(b, nc, r, req, want)
			}
		})
	}
}
