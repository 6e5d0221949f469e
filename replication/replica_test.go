package replication

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

// fakeHost records what the replica applies; the snapshot goes into a real store.
type fakeHost struct {
	st  *storage.Store
	mu  sync.Mutex
	log []string
}

func (h *fakeHost) Store() *storage.Store { return h.st }
func (h *fakeHost) Apply(args [][]byte, at Point) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, fmt.Sprintf("%s @%d/%d", bytes.Join(args, []byte(" ")), at.Offset, at.DB))
}
func (h *fakeHost) ResetMaster(db int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, fmt.Sprintf("reset %d", db))
}
func (h *fakeHost) Replaced() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, "replaced")
}
func (h *fakeHost) applied() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.log...)
}

// fakeMaster is one connection of a scripted master.
type fakeMaster struct {
	t  *testing.T
	c  net.Conn
	cr *commandReader
}

func (m *fakeMaster) expect(prefix string) string {
	m.t.Helper()
	m.c.SetDeadline(time.Now().Add(10 * time.Second))
	args, _, err := m.cr.next()
	if err != nil {
		m.t.Fatalf("master: waiting for %q: %v", prefix, err)
	}
	got := string(bytes.Join(args, []byte(" ")))
	if !strings.HasPrefix(got, prefix) {
		m.t.Fatalf("master: got %q, want %q...", got, prefix)
	}
	return got
}

func (m *fakeMaster) send(s string) {
	m.t.Helper()
	if _, err := io.WriteString(m.c, s); err != nil {
		m.t.Fatal(err)
	}
}

func command(args ...string) string {
	s := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		s += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	return s
}

// handshake reads the replica's handshake and returns its PSYNC.
func (m *fakeMaster) handshake() string {
	m.expect("PING")
	m.send("+PONG\r\n")
	m.expect("AUTH u p")
	m.send("+OK\r\n")
	m.expect("REPLCONF listening-port 7777")
	m.send("+OK\r\n")
	m.expect("REPLCONF capa eof capa psync2")
	m.send("+OK\r\n")
	return m.expect("PSYNC")
}

func snapshot(t *testing.T) []byte {
	var b bytes.Buffer
	w, err := rdb.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.SelectDB(0)
	w.Key([]byte("a"), -1)
	w.String([]byte("from the snapshot"))
	w.SelectDB(2)
	w.Key([]byte("l"), time.Now().Add(time.Hour).UnixMilli())
	w.List(2)
	w.Member([]byte("x"))
	w.Member([]byte("y"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func startLink(t *testing.T) (*fakeHost, *Replica, net.Listener) {
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), Databases: 4, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	h := &fakeHost{st: st}
	r := Start(Options{Host: h, MasterHost: "127.0.0.1", MasterPort: ln.Addr().(*net.TCPAddr).Port,
		User: "u", Password: "p", ListeningPort: 7777, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { r.Stop() })
	return h, r, ln
}

func accept(t *testing.T, ln net.Listener) *fakeMaster {
	t.Helper()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &fakeMaster{t: t, c: c, cr: &commandReader{br: bufio.NewReader(c), maxBulk: 1 << 20}}
}

// TestReplicaLink follows a scripted master: a diskless full synchronisation into the store,
// the stream with its offsets (GETACK answered with the bytes before it), a cut link, and a
// partial resynchronisation from the next byte in the database the stream had selected.
func TestReplicaLink(t *testing.T) {
	h, r, ln := startLink(t)
	id := strings.Repeat("5a", 20)
	m := accept(t, ln)
	if got := m.handshake(); got != "PSYNC ? -1" {
		t.Fatalf("first PSYNC %q", got)
	}
	mark := strings.Repeat("m", 40)
	m.send("+FULLRESYNC " + id + " 100\r\n\n\n$EOF:" + mark + "\r\n" + string(snapshot(t)) + mark)
	m.expect("REPLCONF ACK 100")

	rec, _ := h.st.SystemRecord(PointRecord)
	if p, ok := ParsePoint(rec); !ok || p != (Point{ID: id, Offset: 100}) {
		t.Fatalf("point record after the snapshot %q", rec)
	}
	tx := h.st.Begin(2, [][]byte{[]byte("l")}, false)
	meta, err := tx.GetMeta([]byte("l"))
	tx.Abort()
	if err != nil || meta == nil || meta.Type != storage.TypeList || meta.Size != 2 || meta.Expire == 0 {
		t.Fatalf("list from the snapshot: %+v %v", meta, err)
	}

	sel, set, ping := command("SELECT", "1"), command("SET", "k", "v"), command("PING")
	getack := command("REPLCONF", "GETACK", "*")
	multi := command("MULTI") + command("INCR", "n") + command("EXEC")
	m.send(sel + set + ping + multi + getack)
	off := 100 + len(sel+set+ping+multi)
	m.expect("REPLCONF ACK " + strconv.Itoa(off))
	off += len(getack)
	for r.Status().Point.Offset != int64(off) {
		time.Sleep(time.Millisecond)
	}
	m.c.Close()

	m = accept(t, ln)
	if got, want := m.handshake(), fmt.Sprintf("PSYNC %s %d", id, off+1); got != want {
		t.Fatalf("PSYNC after the cut: %q, want %q", got, want)
	}
	m.send("+CONTINUE\r\n")
	m.expect("REPLCONF ACK " + strconv.Itoa(off))
	m.send(command("DEL", "k"))
	off += len(command("DEL", "k"))
	for r.Status().Point.Offset != int64(off) {
		time.Sleep(time.Millisecond)
	}
	at := func(n int) int { return 100 + n }
	want := []string{
		"replaced", "reset 0",
		fmt.Sprintf("SELECT 1 @%d/1", at(len(sel))),
		fmt.Sprintf("SET k v @%d/1", at(len(sel+set))),
		fmt.Sprintf("MULTI @%d/1", at(len(sel+set+ping+command("MULTI")))),
		fmt.Sprintf("INCR n @%d/1", at(len(sel+set+ping+command("MULTI")+command("INCR", "n")))),
		fmt.Sprintf("EXEC @%d/1", at(len(sel+set+ping+multi))),
		"reset 1",
		fmt.Sprintf("DEL k @%d/1", off),
	}
	if got := h.applied(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("applied\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	st := r.Status()
	if st.State != StateConnected || st.FullSyncs != 1 || st.PartialSyncs != 1 || st.Point.DB != 1 {
		t.Fatalf("status %+v", st)
	}
}

// TestReplicaBadSnapshot: a snapshot that is corrupt, or cut by the master going away, fails
// the synchronisation and leaves the keyspace and its point as they were; the replica asks for
// a full synchronisation again.
func TestReplicaBadSnapshot(t *testing.T) {
	h, r, ln := startLink(t)
	id := strings.Repeat("ab", 20)
	old := Point{ID: strings.Repeat("cd", 20), Offset: 1}.Record()
	if err := h.st.PutSystemRecord(PointRecord, old); err != nil {
		t.Fatal(err) // the point of the data before
	}
	tx := h.st.Begin(0, [][]byte{[]byte("a")}, true)
	if err := tx.SetString([]byte("a"), []byte("before"), 0); err != nil || tx.Commit() != nil {
		t.Fatal(err)
	}
	good := snapshot(t)
	bad := append([]byte(nil), good...)
	bad[len(bad)-3] ^= 0xff // the checksum
	for i, payload := range []string{
		"$" + strconv.Itoa(len(bad)) + "\r\n" + string(bad),
		"$" + strconv.Itoa(len(good)) + "\r\n" + string(good[:len(good)/2]), // then the master goes
	} {
		m := accept(t, ln)
		if got := m.handshake(); got != "PSYNC ? -1" {
			t.Fatalf("attempt %d: PSYNC %q", i, got)
		}
		m.send("+FULLRESYNC " + id + " 7\r\n" + payload)
		if i == 1 {
			m.c.Close()
		}
		deadline := time.Now().Add(10 * time.Second)
		for r.State() != StateConnect {
			if time.Now().After(deadline) {
				t.Fatalf("attempt %d: state %v", i, r.State())
			}
			time.Sleep(time.Millisecond)
		}
		m.c.Close()
		if rec, _ := h.st.SystemRecord(PointRecord); !bytes.Equal(rec, old) {
			t.Fatalf("attempt %d: point record %q after a failed load", i, rec)
		}
		tx := h.st.Begin(0, [][]byte{[]byte("a")}, false)
		v, _, _ := tx.GetString([]byte("a"))
		tx.Abort()
		if string(v) != "before" || h.st.DBSize(2) != 0 {
			t.Fatalf("attempt %d: the keyspace changed: a=%q, db 2 has %d keys", i, v, h.st.DBSize(2))
		}
	}
	m := accept(t, ln)
	if got := m.handshake(); got != "PSYNC ? -1" {
		t.Fatalf("after failures: PSYNC %q", got)
	}
	m.send("+FULLRESYNC " + id + " 7\r\n$" + strconv.Itoa(len(good)) + "\r\n" + string(good))
	m.expect("REPLCONF ACK 7")
	if st := r.Status(); st.FullSyncs != 1 || st.Point.ID != id {
		t.Fatalf("status %+v", st)
	}
	tx = h.st.Begin(0, [][]byte{[]byte("a")}, false)
	v, _, _ := tx.GetString([]byte("a"))
	tx.Abort()
	if string(v) != "from the snapshot" || h.st.DBSize(2) != 1 {
		t.Fatalf("after the load: a=%q, db 2 has %d keys", v, h.st.DBSize(2))
	}
	if err := storage.CheckInvariants(h.st); err != nil {
		t.Fatal(err)
	}
}
