package resp

import (
	"math"
	"testing"
)

// TestEncodings: each reply type in RESP2 and RESP3, as Redis 7.0 writes them.
func TestEncodings(t *testing.T) {
	for _, tc := range []struct {
		name        string
		write       func(w *Writer)
		resp2, rsp3 string
	}{
		{"null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"map", func(w *Writer) { w.Map(1); w.BulkString("k"); w.Int(1) }, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"set", func(w *Writer) { w.Set(1); w.BulkString("m") }, "*1\r\n$1\r\nm\r\n", "~1\r\n$1\r\nm\r\n"},
		{"push", func(w *Writer) { w.Push(1); w.BulkString("p") }, "*1\r\n$1\r\np\r\n", ">1\r\n$1\r\np\r\n"},
		{"bool", func(w *Writer) { w.Bool(true); w.Bool(false) }, ":1\r\n:0\r\n", "#t\r\n#f\r\n"},
		{"double", func(w *Writer) { w.Double(1.5); w.Double(math.Inf(-1)) }, "$3\r\n1.5\r\n$4\r\n-inf\r\n", ",1.5\r\n,-inf\r\n"},
		{"verbatim", func(w *Writer) { w.Verbatim("a\nb") }, "$3\r\na\nb\r\n", "=7\r\ntxt:a\nb\r\n"},
		{"status and error lines", func(w *Writer) { w.Status("a\r\nb"); w.Error("ERR x\ny") }, "+a  b\r\n-ERR x y\r\n", "+a  b\r\n-ERR x y\r\n"},
		{"bulk space", func(w *Writer) { copy(w.BulkSpace(3), "abc"); w.BulkInt(-7) }, "$3\r\nabc\r\n$2\r\n-7\r\n", "$3\r\nabc\r\n$2\r\n-7\r\n"},
	} {
		for proto, want := range map[int]string{2: tc.resp2, 3: tc.rsp3} {
			w := NewWriter(nil, proto)
			tc.write(w)
			if got := string(w.Bytes()); got != want {
				t.Errorf("%s in RESP%d: %q, want %q", tc.name, proto, got, want)
			}
		}
	}
}
