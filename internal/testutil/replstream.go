package testutil

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Propagated is one command of a master's write stream with the database it runs in. MULTI
// and EXEC carry DB -1: where a SELECT falls around them does not matter to a replica.
type Propagated struct {
	DB   int
	Args []string
}

// String renders the command as "db: ARGS".
func (p Propagated) String() string {
	return fmt.Sprintf("%d: %s", p.DB, strings.Join(p.Args, " "))
}

// StreamRecorder collects a master's write stream as Propagated commands, tracking SELECT
// and leaving it out, and dropping the link's own traffic (PING, REPLCONF).
type StreamRecorder struct {
	mu   sync.Mutex
	db   int
	cmds []Propagated
	err  error
	wake chan struct{}
}

// NewStreamRecorder returns an empty recorder whose stream starts in database 0.
func NewStreamRecorder() *StreamRecorder { return &StreamRecorder{wake: make(chan struct{}, 1)} }

// Add records one batch of commands that run in database db, as a Strata receiver of
// committed writes gets them (server.SetPropagate); a SELECT among them moves the stream.
func (r *StreamRecorder) Add(db int, cmds [][][]byte) {
	r.mu.Lock()
	r.db = db
	for _, c := range cmds {
		args := make([]string, len(c))
		for i, a := range c {
			args[i] = string(a)
		}
		r.addLocked(args)
	}
	r.mu.Unlock()
	r.notify()
}

func (r *StreamRecorder) addLocked(args []string) {
	if len(args) == 0 {
		return
	}
	name := strings.ToUpper(args[0])
	switch name {
	case "SELECT":
		if len(args) == 2 {
			r.db, _ = strconv.Atoi(args[1])
		}
		return
	case "PING", "REPLCONF":
		return
	}
	args[0] = name
	db := r.db
	if name == "MULTI" || name == "EXEC" {
		db = -1
	}
	r.cmds = append(r.cmds, Propagated{DB: db, Args: args})
}

func (r *StreamRecorder) notify() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Commands returns a copy of what was recorded so far.
func (r *StreamRecorder) Commands() []Propagated {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Propagated(nil), r.cmds...)
}

// Reset forgets what was recorded.
func (r *StreamRecorder) Reset() {
	r.mu.Lock()
	r.cmds = nil
	r.mu.Unlock()
}

// WaitFor waits until a recorded command satisfies match, or d passes, and reports whether one
// did. It fails when the link broke.
func (r *StreamRecorder) WaitFor(d time.Duration, match func(Propagated) bool) (bool, error) {
	deadline := time.Now().Add(d)
	for {
		r.mu.Lock()
		err := r.err
		for _, c := range r.cmds {
			if match(c) {
				r.mu.Unlock()
				return true, nil
			}
		}
		r.mu.Unlock()
		if err != nil {
			return false, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, nil
		}
		select {
		case <-r.wake:
		case <-time.After(min(left, 50*time.Millisecond)):
		}
	}
}

// AttachReplica connects to the redis-server at addr as a replica (RawReplica), and records the command stream that
// follows until the test ends. It sets repl-diskless-sync-delay to 0 on the server first, so
// the sync starts at once.
func AttachReplica(t testing.TB, addr string) *StreamRecorder {
	t.Helper()
	admin := Connect(t, addr)
	if r, err := admin.Do("CONFIG", "SET", "repl-diskless-sync-delay", "0"); err != nil || r.IsError() {
		t.Fatalf("CONFIG SET repl-diskless-sync-delay: %v %v", r, err)
	}
	nc, br, _ := RawReplica(t, addr)
	rec := NewStreamRecorder()
	go rec.readStream(br)
	// After a diskless payload the master starts the command stream on the first ACK that
	// follows its own end of the transfer: the recorder acknowledges every 50ms, as a replica
	// does every second.
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for {
			if _, err := nc.Write(EncodeCommand("REPLCONF", "ACK", "0")); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	// The link is complete once the master lists the replica online: until then its snapshot
	// child may still run, and a FLUSHALL, which stops that child, would drop the link.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r, err := admin.Do("INFO", "replication")
		if err != nil {
			t.Fatalf("INFO replication: %v", err)
		}
		if strings.Contains(r.Str, "state=online") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica link never came online: %s", r.Str)
		}
	}
	return rec
}

// RawReplica connects to the master at addr as a replica does (REPLCONF listening-port, capa
// eof capa psync2, PSYNC ? -1) and reads past the payload of the full sync. It returns the
// connection, closed when the test ends, its reader at the start of the command stream, and
// the offset FULLRESYNC named. The caller sends the ACKs.
func RawReplica(t testing.TB, addr string) (net.Conn, *bufio.Reader, int64) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	br := bufio.NewReader(nc)
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	port := strconv.Itoa(nc.LocalAddr().(*net.TCPAddr).Port)
	for _, cmd := range [][]string{{"PING"}, {"REPLCONF", "listening-port", port}, {"REPLCONF", "capa", "eof", "capa", "psync2"}} {
		if _, err := nc.Write(EncodeCommand(cmd...)); err != nil {
			t.Fatalf("replica handshake %v: %v", cmd, err)
		}
		if r, err := ReadReply(br); err != nil || r.IsError() {
			t.Fatalf("replica handshake %v: %v %v", cmd, r, err)
		}
	}
	if _, err := nc.Write(EncodeCommand("PSYNC", "?", "-1")); err != nil {
		t.Fatalf("PSYNC: %v", err)
	}
	r, err := ReadReply(br)
	f := strings.Fields(r.Str)
	if err != nil || len(f) != 3 || f[0] != "FULLRESYNC" {
		t.Fatalf("PSYNC: %v %v", r, err)
	}
	offset, _ := strconv.ParseInt(f[2], 10, 64)
	if err := skipRDB(br); err != nil {
		t.Fatalf("full sync payload: %v", err)
	}
	nc.SetDeadline(time.Time{})
	return nc, br, offset
}

// skipRDB reads past the RDB payload of a full sync: "$<len>\r\n" and len bytes, or the
// diskless form "$EOF:<40-byte mark>\r\n" ending with the mark. Newlines the master sends
// while it prepares the payload come first.
func skipRDB(br *bufio.Reader) error {
	var line string
	for line == "" {
		l, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimRight(l, "\r\n")
	}
	if !strings.HasPrefix(line, "$") {
		return fmt.Errorf("unexpected %q", line)
	}
	if mark, ok := strings.CutPrefix(line, "$EOF:"); ok {
		var tail []byte
		for !strings.HasSuffix(string(tail), mark) {
			b, err := br.ReadByte()
			if err != nil {
				return err
			}
			tail = append(tail, b)
			if len(tail) > 2*len(mark) {
				tail = tail[len(tail)-len(mark):]
			}
		}
		return nil
	}
	n, err := strconv.ParseInt(line[1:], 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("bad payload length %q", line)
	}
	_, err = io.CopyN(io.Discard, br, n)
	return err
}

func (r *StreamRecorder) readStream(br *bufio.Reader) {
	for {
		rep, err := ReadReply(br)
		if err != nil {
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
			r.notify()
			return
		}
		args := make([]string, len(rep.Elems))
		for i, e := range rep.Elems {
			args[i] = e.Str
		}
		r.mu.Lock()
		r.addLocked(args)
		r.mu.Unlock()
		r.notify()
	}
}

// TimeTolerance is how far two absolute times in milliseconds (PXAT, PEXPIREAT and RESTORE
// ABSTTL values) may lie apart in streams that DiffStreams takes to be equal: the two servers
// run the same transcript one after the other.
const TimeTolerance = 60_000

// DiffStreams compares two recorded streams command by command and returns a description of
// the first difference, or "". Arguments that both read as Unix times in milliseconds (after
// 2001) are equal within TimeTolerance.
func DiffStreams(want, got []Propagated) string {
	for i := 0; i < max(len(want), len(got)); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("command %d: missing %s%s", i, want[i], context(want, got, i))
		case i >= len(want):
			return fmt.Sprintf("command %d: extra %s%s", i, got[i], context(want, got, i))
		case !samePropagated(want[i], got[i]):
			return fmt.Sprintf("command %d: want %s, got %s%s", i, want[i], got[i], context(want, got, i))
		}
	}
	return ""
}

func context(want, got []Propagated, i int) string {
	render := func(s []Propagated) string {
		var b strings.Builder
		for j := max(0, i-3); j < min(len(s), i+4); j++ {
			fmt.Fprintf(&b, "\n    %s", s[j])
		}
		return b.String()
	}
	return "\n  want around it:" + render(want) + "\n  got around it:" + render(got)
}

func samePropagated(a, b Propagated) bool {
	if a.DB != b.DB || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i] == b.Args[i] {
			continue
		}
		x, err1 := strconv.ParseInt(a.Args[i], 10, 64)
		y, err2 := strconv.ParseInt(b.Args[i], 10, 64)
		if err1 != nil || err2 != nil || x < 1e12 || y < 1e12 || math.Abs(float64(x-y)) > TimeTolerance {
			return false
		}
	}
	return true
}
