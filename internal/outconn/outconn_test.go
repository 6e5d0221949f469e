package outconn

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestCache: a connection given back is taken again (same socket, its LastDB kept), is closed
// once idle, and reply lines are read whole but kept to maxLine bytes.
func TestCache(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	cc := NewCache(200*time.Millisecond, 2, 8)
	name := ln.Addr().String()
	mc, err := cc.Take(name, time.Second)
	if err != nil || mc.LastDB != -1 {
		t.Fatalf("take: %v %v", mc, err)
	}
	peer := <-accepted
	if err := mc.Write([]byte("PING\r\n"), 2, time.Second); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := peer.Read(buf); err != nil || string(buf) != "PING\r\n" {
		t.Fatalf("peer read %q %v", buf, err)
	}
	peer.Write([]byte("+" + strings.Repeat("x", 20) + "\r\n+OK\r\n"))
	if line, err := mc.ReadLine(time.Second); err != nil || string(line) != "+xxxxxxx" {
		t.Fatalf("long line %q %v", line, err)
	}
	if line, err := mc.ReadLine(time.Second); err != nil || string(line) != "+OK" {
		t.Fatalf("next line %q %v", line, err)
	}
	mc.LastDB = 3
	cc.Give(name, mc)
	if cc.Len() != 1 {
		t.Fatalf("cached %d", cc.Len())
	}
	again, err := cc.Take(name, time.Second)
	if err != nil || again != mc || again.LastDB != 3 || cc.Len() != 0 {
		t.Fatalf("taken again: %v %v", again, err)
	}
	cc.Give(name, again)
	time.Sleep(500 * time.Millisecond)
	if cc.Len() != 0 {
		t.Fatal("idle connection not closed")
	}
	peer.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := peer.Read(buf); err == nil {
		t.Fatal("the idle connection is still open")
	}
	if _, err := mc.ReadLine(10 * time.Millisecond); err == nil || IsTimeout(err) {
		t.Fatalf("read on a closed connection: %v", err)
	}
}
