// Package resp writes Redis's wire protocol: RESP2 and RESP3 replies built in a buffer, with the
// encodings that differ between the two (nulls, maps, sets, doubles, booleans, pushes, verbatim
// strings) chosen by the protocol the client speaks, and doubles formatted as Redis prints them.
// Requests are read by redcon's parser; this package only writes.
package resp

import (
	"math"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Writer builds RESP replies in a buffer. Proto selects RESP2 or RESP3 encodings for the types
// that differ (nulls, maps, sets, doubles, booleans, pushes).
type Writer struct {
	b     []byte
	Proto int
}

// NewWriter returns a Writer that appends to buf.
func NewWriter(buf []byte, proto int) *Writer { return &Writer{b: buf, Proto: proto} }

// Bytes returns the encoded replies.
func (w *Writer) Bytes() []byte { return w.b }

// Reset empties the buffer, keeping its memory.
func (w *Writer) Reset() { w.b = w.b[:0] }

// bigReply is the buffer size from which a reply buffer is kept for the next large reply: a
// client that reads a large value borrows the buffer an earlier large reply left, instead of
// allocating a new one for the garbage collector to free later, so that a series of GETs of
// 50 MiB values holds one such buffer rather than several. The spare buffer is dropped after
// bigSpareIdle without use.
const (
	bigReply     = 1 << 20
	bigSpareIdle = 5 * time.Second
)

var bigSpare struct {
	sync.Mutex
	b     []byte
	timer *time.Timer
}

// grow makes room for n more bytes, borrowing the spare buffer for a large reply.
func (w *Writer) grow(n int) {
	need := len(w.b) + n
	if need <= cap(w.b) {
		return
	}
	if need > bigReply {
		bigSpare.Lock()
		b := bigSpare.b
		if cap(b) >= need {
			bigSpare.b = nil
		}
		bigSpare.Unlock()
		if cap(b) >= need {
			w.b = append(b[:0], w.b...)
			return
		}
	}
	w.b = slices.Grow(w.b, n)
}

// Release empties the buffer and, when it is large, keeps it for the next large reply.
func (w *Writer) Release() {
	if b := w.b; cap(b) > bigReply {
		bigSpare.Lock()
		if cap(b) > cap(bigSpare.b) {
			bigSpare.b = b[:0]
		}
		if bigSpare.timer == nil {
			bigSpare.timer = time.AfterFunc(bigSpareIdle, dropSpare)
		} else {
			bigSpare.timer.Reset(bigSpareIdle)
		}
		bigSpare.Unlock()
	}
	w.b = nil
}

func dropSpare() {
	bigSpare.Lock()
	bigSpare.b = nil
	bigSpare.Unlock()
}

// Len returns the number of buffered bytes.
func (w *Writer) Len() int { return len(w.b) }

// Truncate drops everything after the first n bytes.
func (w *Writer) Truncate(n int) { w.b = w.b[:n] }

// Raw appends already encoded RESP.
func (w *Writer) Raw(p []byte) { w.b = append(w.b, p...) }

// Status writes a simple string (+OK).
func (w *Writer) Status(s string) {
	w.b = append(w.b, '+')
	w.b = appendClean(w.b, s)
	w.b = append(w.b, '\r', '\n')
}

// OK writes +OK.
func (w *Writer) OK() { w.b = append(w.b, "+OK\r\n"...) }

// Error writes an error reply; msg starts with its code, as in "ERR syntax error".
func (w *Writer) Error(msg string) {
	w.b = append(w.b, '-')
	w.b = appendClean(w.b, msg)
	w.b = append(w.b, '\r', '\n')
}

// appendClean replaces CR and LF, which would break a simple-string line, with spaces.
func appendClean(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

// Int writes an integer.
func (w *Writer) Int(n int64) {
	w.b = append(w.b, ':')
	w.b = strconv.AppendInt(w.b, n, 10)
	w.b = append(w.b, '\r', '\n')
}

func (w *Writer) header(c byte, n int) {
	w.b = append(w.b, c)
	w.b = strconv.AppendInt(w.b, int64(n), 10)
	w.b = append(w.b, '\r', '\n')
}

// Bulk writes a bulk string.
func (w *Writer) Bulk(p []byte) {
	w.header('$', len(p))
	w.b = append(w.b, p...)
	w.b = append(w.b, '\r', '\n')
}

// BulkSpace writes the header of a bulk string of n bytes and returns the n bytes of the reply
// for the caller to fill, so that a large value can be read straight into the reply.
func (w *Writer) BulkSpace(n int) []byte {
	w.header('$', n)
	start := len(w.b)
	w.grow(n + 2)
	w.b = w.b[:start+n]
	w.b = append(w.b, '\r', '\n')
	return w.b[start : start+n]
}

// BulkString writes a bulk string.
func (w *Writer) BulkString(s string) {
	w.header('$', len(s))
	w.b = append(w.b, s...)
	w.b = append(w.b, '\r', '\n')
}

// BulkInt writes n as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [20]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Null writes a null bulk string ($-1 in RESP2, _ in RESP3).
func (w *Writer) Null() {
	if w.Proto == 3 {
		w.b = append(w.b, "_\r\n"...)
	} else {
		w.b = append(w.b, "$-1\r\n"...)
	}
}

// NullArray writes a null array (*-1 in RESP2, _ in RESP3).
func (w *Writer) NullArray() {
	if w.Proto == 3 {
		w.b = append(w.b, "_\r\n"...)
	} else {
		w.b = append(w.b, "*-1\r\n"...)
	}
}

// Array writes an array header of n elements.
func (w *Writer) Array(n int) { w.header('*', n) }

// Map writes a map header of n pairs (a flat array of 2n elements in RESP2).
func (w *Writer) Map(n int) {
	if w.Proto == 3 {
		w.header('%', n)
	} else {
		w.header('*', 2*n)
	}
}

// Set writes a set header (an array in RESP2).
func (w *Writer) Set(n int) {
	if w.Proto == 3 {
		w.header('~', n)
	} else {
		w.header('*', n)
	}
}

// Push writes a push header (an array in RESP2).
func (w *Writer) Push(n int) {
	if w.Proto == 3 {
		w.header('>', n)
	} else {
		w.header('*', n)
	}
}

// Bool writes a boolean (:1 or :0 in RESP2).
func (w *Writer) Bool(v bool) {
	switch {
	case w.Proto == 3 && v:
		w.b = append(w.b, "#t\r\n"...)
	case w.Proto == 3:
		w.b = append(w.b, "#f\r\n"...)
	case v:
		w.b = append(w.b, ":1\r\n"...)
	default:
		w.b = append(w.b, ":0\r\n"...)
	}
}

// Double writes a double: a RESP3 double, or in RESP2 a bulk string formatted as Redis 7.0
// formats scores ("%.17g", "inf", "-inf").
func (w *Writer) Double(f float64) {
	var tmp [32]byte
	w.DoubleText(FormatScore(tmp[:0], f))
}

// DoubleText writes a double already formatted as s: a RESP3 double, a bulk string in RESP2.
func (w *Writer) DoubleText(s []byte) {
	if w.Proto == 3 {
		w.b = append(w.b, ',')
		w.b = append(w.b, s...)
		w.b = append(w.b, '\r', '\n')
		return
	}
	w.Bulk(s)
}

// FormatScore appends f as Redis 7.0 prints a double: "%.17g", with "inf" and "-inf".
func FormatScore(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// Verbatim writes a RESP3 verbatim string of format "txt", a bulk string in RESP2, as Redis
// does for INFO and CLIENT LIST.
func (w *Writer) Verbatim(s string) {
	if w.Proto != 3 {
		w.BulkString(s)
		return
	}
	w.b = append(w.b, '=')
	w.b = strconv.AppendInt(w.b, int64(len(s)+4), 10)
	w.b = append(w.b, "\r\ntxt:"...)
	w.b = append(w.b, s...)
	w.b = append(w.b, '\r', '\n')
}
