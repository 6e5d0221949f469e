package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
)

func blockServer(t *testing.T) *Server {
	t.Helper()
	return modelServer(t, config.Default().IOModel) // evloop_test.go
}

// blockClient is a raw RESP connection.
type blockClient struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func blockDial(t *testing.T, s *Server) *blockClient {
	t.Helper()
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &blockClient{t: t, nc: nc, r: bufio.NewReader(nc)}
}

func blockEncode(args ...string) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, "$"+strconv.Itoa(len(a))+"\r\n"+a+"\r\n"...)
	}
	return b
}

func (c *blockClient) send(args ...string) {
	c.t.Helper()
	if _, err := c.nc.Write(blockEncode(args...)); err != nil {
		c.t.Fatal(err)
	}
}

// read reads one reply and renders it compactly: simple strings and bulks as their text,
// integers as ":n", errors as "-text", nulls as "nil", arrays as "[a b]".
func (c *blockClient) read(timeout time.Duration) (string, error) {
	c.nc.SetReadDeadline(time.Now().Add(timeout))
	defer c.nc.SetReadDeadline(time.Time{})
	return blockReadReply(c.r)
}

func blockReadReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("empty line")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-', ':', ',', '#':
		return line, nil
	case '_':
		return "nil", nil
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "nil", nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		return string(b[:n]), nil
	case '*', '%', '~', '>':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "nil", nil
		}
		if line[0] == '%' {
			n *= 2
		}
		parts := make([]string, n)
		for i := range parts {
			if parts[i], err = blockReadReply(r); err != nil {
				return "", err
			}
		}
		return "[" + strings.Join(parts, " ") + "]", nil
	}
	return "", fmt.Errorf("unexpected reply line %q", line)
}

func (c *blockClient) do(args ...string) string {
	c.t.Helper()
	c.send(args...)
	r, err := c.read(5 * time.Second)
	if err != nil {
		c.t.Fatalf("%v: %v", args, err)
	}
	return r
}

// waiters returns how many clients are blocked on key in db.
func (s *Server) blockWaiters(db int, key string) int {
	r := s.blockRegistry()
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.keys[blockKey{db, key}]; l != nil {
		return l.Len()
	}
	return 0
}

func blockWaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestBlockServedInOrder(t *testing.T) {
	s := blockServer(t)
	var cs []*blockClient
	for i := 0; i < 4; i++ {
		c := blockDial(t, s)
		c.send("BLPOP", "k", "0")
		blockWaitFor(t, "waiter", func() bool { return s.blockWaiters(0, "k") == i+1 })
		cs = append(cs, c)
	}
	p := blockDial(t, s)
	if r := p.do("RPUSH", "k", "a", "b", "c"); r != ":3" {
		t.Fatalf("RPUSH = %s", r)
	}
	for i, want := range []string{"[k a]", "[k b]", "[k c]"} {
		if r, err := cs[i].read(5 * time.Second); err != nil || r != want {
			t.Fatalf("client %d: %q %v, want %s", i, r, err, want)
		}
	}
	if n := s.blockWaiters(0, "k"); n != 1 {
		t.Fatalf("%d waiters left, want 1", n)
	}
	if r := p.do("LPUSH", "k", "d"); r != ":1" {
		t.Fatalf("LPUSH = %s", r)
	}
	if r, err := cs[3].read(5 * time.Second); err != nil || r != "[k d]" {
		t.Fatalf("last client: %q %v", r, err)
	}
	if r := p.do("EXISTS", "k"); r != ":0" {
		t.Fatalf("list left behind: %s", r)
	}
}

func TestBlockTimeoutAndNull(t *testing.T) {
	s := blockServer(t)
	c := blockDial(t, s)
	start := time.Now()
	if r := c.do("BLPOP", "k", "0.1"); r != "nil" {
		t.Fatalf("BLPOP timeout = %s", r)
	}
	if d := time.Since(start); d < 90*time.Millisecond || d > 2*time.Second {
		t.Fatalf("timed out after %v", d)
	}
	if n := s.blockWaiters(0, "k"); n != 0 {
		t.Fatalf("%d waiters after timeout", n)
	}
	// RESP3: the null is '_'; BLMOVE times out with a null array, like Redis 7.0.
	if r := c.do("HELLO", "3"); strings.HasPrefix(r, "-") {
		t.Fatalf("HELLO 3: %s", r)
	}
	c.send("BLMOVE", "k", "d", "LEFT", "LEFT", "0.05")
	line, err := c.r.ReadString('\n')
	if err != nil || line != "_\r\n" {
		t.Fatalf("RESP3 timeout reply %q %v", line, err)
	}
	if r := c.do("HELLO", "2"); strings.HasPrefix(r, "-") {
		t.Fatal(r)
	}
	c.send("BRPOPLPUSH", "k", "d", "0.05")
	line, err = c.r.ReadString('\n')
	if err != nil || line != "*-1\r\n" {
		t.Fatalf("RESP2 BRPOPLPUSH timeout reply %q %v", line, err)
	}
}

func TestBlockDisconnectForgotten(t *testing.T) {
	s := blockServer(t)
	c := blockDial(t, s)
	c.send("BLPOP", "k", "0")
	blockWaitFor(t, "waiter", func() bool { return s.blockWaiters(0, "k") == 1 })
	c.nc.Close()
	blockWaitFor(t, "disconnect noticed", func() bool { return s.blockWaiters(0, "k") == 0 })
	p := blockDial(t, s)
	p.do("RPUSH", "k", "x")
	if r := p.do("LRANGE", "k", "0", "-1"); r != "[x]" {
		t.Fatalf("element consumed by a closed client: %s", r)
	}
}

func TestBlockPipelinedRepliesFlushed(t *testing.T) {
	s := blockServer(t)
	c := blockDial(t, s)
	var b []byte
	b = append(b, blockEncode("SET", "x", "1")...)
	b = append(b, blockEncode("BLPOP", "k", "0")...)
	b = append(b, blockEncode("PING")...)
	if _, err := c.nc.Write(b); err != nil {
		t.Fatal(err)
	}
	if r, err := c.read(2 * time.Second); err != nil || r != "OK" {
		t.Fatalf("reply before the blocked command: %q %v", r, err)
	}
	// The pipelined PING waits behind the blocked BLPOP.
	if r, err := c.read(100 * time.Millisecond); err == nil {
		t.Fatalf("got %q while BLPOP should block", r)
	}
	p := blockDial(t, s)
	p.do("RPUSH", "k", "v")
	if r, err := c.read(2 * time.Second); err != nil || r != "[k v]" {
		t.Fatalf("BLPOP: %q %v", r, err)
	}
	if r, err := c.read(2 * time.Second); err != nil || r != "PONG" {
		t.Fatalf("PING: %q %v", r, err)
	}
}

func TestBlockSeveralKeysAndDatabases(t *testing.T) {
	s := blockServer(t)
	c := blockDial(t, s)
	c.do("SELECT", "1")
	c.send("BLPOP", "k1", "k2", "k2", "0")
	blockWaitFor(t, "waiter", func() bool { return s.blockWaiters(1, "k1") == 1 && s.blockWaiters(1, "k2") == 1 })
	p := blockDial(t, s)
	p.do("RPUSH", "k2", "db0") // database 0: no one waits there
	if r, err := c.read(100 * time.Millisecond); err == nil {
		t.Fatalf("woken by a push to another database: %q", r)
	}
	p.do("SELECT", "1")
	p.do("RPUSH", "k2", "v")
	if r, err := c.read(2 * time.Second); err != nil || r != "[k2 v]" {
		t.Fatalf("BLPOP: %q %v", r, err)
	}
	if s.blockWaiters(1, "k1") != 0 || s.blockWaiters(1, "k2") != 0 {
		t.Fatal("served waiter still registered on its other key")
	}
}

// TestBlockMoveChains: a BLMOVE served by a push pushes in turn, which serves a BLPOP on its
// destination.
func TestBlockMoveChains(t *testing.T) {
	s := blockServer(t)
	a := blockDial(t, s)
	a.send("BLMOVE", "src", "mid", "LEFT", "RIGHT", "0")
	b := blockDial(t, s)
	b.send("BRPOPLPUSH", "mid", "dst", "0")
	c := blockDial(t, s)
	c.send("BLMPOP", "0", "2", "none", "dst", "LEFT", "COUNT", "5")
	blockWaitFor(t, "waiters", func() bool {
		return s.blockWaiters(0, "src") == 1 && s.blockWaiters(0, "mid") == 1 && s.blockWaiters(0, "dst") == 1
	})
	p := blockDial(t, s)
	p.do("LPUSH", "src", "x")
	for _, w := range []struct {
		c    *blockClient
		want string
	}{{a, "x"}, {b, "x"}, {c, "[dst [x]]"}} {
		if r, err := w.c.read(2 * time.Second); err != nil || r != w.want {
			t.Fatalf("got %q %v, want %s", r, err, w.want)
		}
	}
	if r := p.do("DBSIZE"); r != ":0" {
		t.Fatalf("keys left: %s", r)
	}
}

// TestBlockExactlyOnce: many blocked clients, pushes from several clients at once; every
// element goes to exactly one client or stays in the list.
func TestBlockExactlyOnce(t *testing.T) {
	s := blockServer(t)
	const waiters, pushers, perPusher = 20, 4, 8 // 32 elements for 20 waiters
	got := make(chan string, waiters)
	for i := 0; i < waiters; i++ {
		c := blockDial(t, s)
		cmd := []string{"BLPOP", "q", "0"}
		if i%2 == 1 {
			cmd = []string{"BRPOP", "other", "q", "0"}
		}
		c.send(cmd...)
		go func() {
			r, err := c.read(10 * time.Second)
			if err != nil {
				r = "error: " + err.Error()
			}
			got <- r
		}()
	}
	blockWaitFor(t, "waiters", func() bool { return s.blockWaiters(0, "q") == waiters })
	var wg sync.WaitGroup
	for p := 0; p < pushers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			c := blockDial(t, s)
			for i := 0; i < perPusher; i++ {
				c.send("RPUSH", "q", fmt.Sprintf("%d-%d", p, i))
				if _, err := c.read(5 * time.Second); err != nil {
					t.Error(err)
				}
			}
		}(p)
	}
	wg.Wait()
	seen := map[string]int{}
	for i := 0; i < waiters; i++ {
		r := <-got
		if !strings.HasPrefix(r, "[q ") {
			t.Fatalf("waiter reply %q", r)
		}
		seen[strings.TrimSuffix(strings.TrimPrefix(r, "[q "), "]")]++
	}
	c := blockDial(t, s)
	rest := c.do("LRANGE", "q", "0", "-1")
	for _, e := range strings.Fields(strings.Trim(rest, "[]")) {
		seen[e]++
	}
	if len(seen) != pushers*perPusher {
		t.Fatalf("%d distinct elements accounted for, want %d", len(seen), pushers*perPusher)
	}
	for e, n := range seen {
		if n != 1 {
			t.Fatalf("element %s delivered %d times", e, n)
		}
	}
}

// TestBlockTimeoutRacesServe: waiters with very short timeouts race pushes. An element is
// either delivered to one client or left in the list, never lost or duplicated.
func TestBlockTimeoutRacesServe(t *testing.T) {
	s := blockServer(t)
	const clients, rounds = 6, 30
	var mu sync.Mutex
	var delivered []string
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := blockDial(t, s)
			for j := 0; j < rounds; j++ {
				r := c.do("BLPOP", "q", "0.001")
				if r != "nil" {
					mu.Lock()
					delivered = append(delivered, strings.TrimSuffix(strings.TrimPrefix(r, "[q "), "]"))
					mu.Unlock()
				}
			}
		}()
	}
	p := blockDial(t, s)
	pushed := 0
	for wgDone := blockWGDone(&wg); ; pushed++ {
		select {
		case <-wgDone:
			goto check
		default:
		}
		p.do("RPUSH", "q", strconv.Itoa(pushed))
		time.Sleep(200 * time.Microsecond)
	}
check:
	rest := strings.Fields(strings.Trim(p.do("LRANGE", "q", "0", "-1"), "[]"))
	all := append(delivered, rest...)
	sort.Slice(all, func(i, j int) bool { a, _ := strconv.Atoi(all[i]); b, _ := strconv.Atoi(all[j]); return a < b })
	if len(all) != pushed {
		t.Fatalf("%d pushed, %d delivered + %d left", pushed, len(delivered), len(rest))
	}
	for i, e := range all {
		if e != strconv.Itoa(i) {
			t.Fatalf("element %d is %q: lost or duplicated", i, e)
		}
	}
	if n := s.blockWaiters(0, "q"); n != 0 {
		t.Fatalf("%d waiters left", n)
	}
}

func blockWGDone(wg *sync.WaitGroup) <-chan struct{} {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	return ch
}

func TestBlockCloseWithBlockedClient(t *testing.T) {
	s := blockServer(t)
	c := blockDial(t, s)
	c.send("BLPOP", "k", "0")
	blockWaitFor(t, "waiter", func() bool { return s.blockWaiters(0, "k") == 1 })
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs on a blocked client")
	}
}
