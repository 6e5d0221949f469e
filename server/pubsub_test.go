package server

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
)

func newTestQueue(t *testing.T) (*outQueue, net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	q := &outQueue{nc: a, holdAt: -1}
	q.cond = sync.NewCond(&q.mu)
	go q.run()
	t.Cleanup(func() { q.close(); a.Close(); b.Close() })
	return q, b
}

func readN(t *testing.T, c net.Conn, n int) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, n)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	return string(buf)
}

// TestOutQueueHoldKeepsReplyFirst: messages queued while a command that subscribed is still
// running go out after that command's reply.
func TestOutQueueHoldKeepsReplyFirst(t *testing.T) {
	q, peer := newTestQueue(t)
	none := config.OutputLimit{}
	q.reply([]byte("r1;"))
	if got := readN(t, peer, 3); got != "r1;" {
		t.Fatalf("got %q", got)
	}
	q.hold()
	q.push([]byte("m1;"), none)
	q.push([]byte("m2;"), none)
	time.Sleep(20 * time.Millisecond) // the writer must not write while held
	q.reply([]byte("confirm;"))
	if got := readN(t, peer, 14); got != "confirm;m1;m2;" {
		t.Fatalf("got %q", got)
	}
	// Not held: a reply simply follows what is queued.
	q.push([]byte("m3;"), none)
	q.reply([]byte("r2;"))
	if got := readN(t, peer, 6); got != "m3;r2;" {
		t.Fatalf("got %q", got)
	}
}

// TestOutQueueLimits: the hard limit cuts at once, the soft limit after its seconds, and a
// queue that drains below the soft limit starts the clock again.
func TestOutQueueLimits(t *testing.T) {
	q := &outQueue{holdAt: -1}
	q.cond = sync.NewCond(&q.mu)
	msg := make([]byte, 100)
	hard := config.OutputLimit{Hard: 1000}
	for i := 0; i < 9; i++ {
		if !q.push(msg, hard) {
			t.Fatalf("cut after %d bytes", (i+1)*100)
		}
	}
	if q.push(msg, hard) {
		t.Fatal("not cut at the hard limit")
	}
	if !q.closed || q.pending != 0 || len(q.pieces) != 0 {
		t.Fatal("queue not dropped")
	}
	if !q.push(msg, hard) {
		t.Fatal("a closed queue reports a cut again")
	}

	q = &outQueue{holdAt: -1}
	q.cond = sync.NewCond(&q.mu)
	soft := config.OutputLimit{Soft: 200, SoftSeconds: 0}
	q.push(msg, soft)
	if !q.push(msg, soft) { // reaches the soft limit: the clock starts
		t.Fatal("cut on reaching the soft limit")
	}
	time.Sleep(5 * time.Millisecond)
	if q.push(msg, soft) {
		t.Fatal("not cut after the soft limit's time")
	}
}

// TestOutQueueDrain waits for queued output to be written.
func TestOutQueueDrain(t *testing.T) {
	q, peer := newTestQueue(t)
	big := make([]byte, 3*writeBatch+7)
	q.reply(big)
	q.push([]byte("tail"), config.OutputLimit{})
	done := make(chan struct{})
	go func() {
		q.drain(5 * time.Second)
		close(done)
	}()
	readN(t, peer, len(big)+4)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("drain did not return")
	}
}
