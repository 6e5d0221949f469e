package replication

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestEOFReader reads a diskless payload delivered a byte at a time and in one piece, with the
// command stream right after the mark: it returns the payload exactly and leaves the stream.
func TestEOFReader(t *testing.T) {
	mark := strings.Repeat("0123456789", 4)
	payload := bytes.Repeat([]byte("REDIS0009 payload 012345678 "), 5000)
	after := "*1\r\n$4\r\nPING\r\n"
	for name, src := range map[string]func() io.Reader{
		"whole": func() io.Reader { return strings.NewReader(string(payload) + mark + after) },
		"bytes": func() io.Reader { return iotest.OneByteReader(strings.NewReader(string(payload) + mark + after)) },
	} {
		br := bufio.NewReaderSize(src(), 4096)
		e := &eofReader{br: br, mark: []byte(mark)}
		got, err := io.ReadAll(e)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("%s: read %d bytes, %v; want %d", name, len(got), err, len(payload))
		}
		cr := &commandReader{br: br, maxBulk: 1 << 20}
		args, n, err := cr.next()
		if err != nil || len(args) != 1 || string(args[0]) != "PING" || n != int64(len(after)) {
			t.Fatalf("%s: after the mark %q %d %v", name, args, n, err)
		}
	}
	// A payload cut before its mark is an error, not a short success.
	e := &eofReader{br: bufio.NewReader(strings.NewReader("REDIS0009 truncated")), mark: []byte(mark)}
	if _, err := io.ReadAll(e); err == nil {
		t.Fatal("truncated payload read without error")
	}
}

// TestCommandReader counts each command's bytes, skips keepalive newlines, and refuses
// malformed or oversized input.
func TestCommandReader(t *testing.T) {
	in := "\n*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"
	cr := &commandReader{br: bufio.NewReader(strings.NewReader(in)), maxBulk: 16}
	args, n, err := cr.next()
	if err != nil || len(args) != 2 || string(args[1]) != "3" || n != int64(1+len("*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n")) {
		t.Fatalf("first: %q %d %v", args, n, err)
	}
	args, n, err = cr.next()
	if err != nil || len(args) != 3 || len(args[2]) != 0 || n != int64(len("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n")) {
		t.Fatalf("second: %q %d %v", args, n, err)
	}
	if _, _, err := cr.next(); err != io.EOF {
		t.Fatalf("at the end: %v", err)
	}
	for _, bad := range []string{"PING\r\n", "*0\r\n", "*1\r\n$17\r\n", "*1\r\n+OK\r\n", "*1\r\n$2\r\nabcd\r\n", "*99999999999\r\n"} {
		cr := &commandReader{br: bufio.NewReader(strings.NewReader(bad)), maxBulk: 16}
		if _, _, err := cr.next(); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestPointRecord(t *testing.T) {
	p := Point{ID: strings.Repeat("ab", 20), Offset: 12345, DB: 7}
	got, ok := ParsePoint(p.Record())
	if !ok || got != p {
		t.Fatalf("round trip %+v %v", got, ok)
	}
	for _, bad := range []string{"", "x 1 2", p.ID + " 1", p.ID + " x 0", p.ID + " 1 -1"} {
		if _, ok := ParsePoint([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
