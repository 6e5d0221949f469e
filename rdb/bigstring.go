package rdb

import (
	"fmt"
	"io"
)

// Strings written from a reader, for values too large to hold in memory (a value-log value in
// a full synchronisation's RDB or an export).

const (
	// StreamedStringMin is the length above which StringFrom copies a string raw, in pieces,
	// rather than reading it whole. LZF needs the whole string in memory (with as much again
	// for its output), so such a string is not compressed even under rdbcompression yes;
	// Redis too writes a string raw when it cannot compress it, and every reader loads both.
	StreamedStringMin = 1 << 20
	// stringPiece is the size of the pieces a streamed string is copied in.
	stringPiece = 1 << 20
)

// StringFrom writes a string value of n bytes read from r. A string of up to
// StreamedStringMin bytes is read whole and written as String writes it; a longer one is
// written raw, its length first, then its bytes copied from r a piece at a time through one
// buffer that the writer keeps, and counted in the file's CRC-64 as they go. A failed read
// fails the writer: the output is cut in the middle of the string and must be dropped.
func (vw *ValueWriter) StringFrom(n int64, r io.Reader) error {
	if n < 0 {
		return fmt.Errorf("rdb: string of length %d", n)
	}
	if n <= StreamedStringMin {
		s := make([]byte, n)
		if _, err := io.ReadFull(r, s); err != nil {
			return err
		}
		return vw.String(s)
	}
	if err := vw.begin(TypeString, KindString, 0); err != nil {
		return err
	}
	o := vw.out
	o.length(uint64(n))
	if o.piece == nil {
		o.piece = make([]byte, stringPiece)
	}
	for left := n; left > 0 && o.err == nil; {
		p := o.piece[:min(left, int64(len(o.piece)))]
		if _, err := io.ReadFull(r, p); err != nil {
			o.err = fmt.Errorf("rdb: reading a string of %d bytes: %w", n, err)
			break
		}
		o.write(p)
		left -= int64(len(p))
	}
	return o.err
}
