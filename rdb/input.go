package rdb

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strconv"
)

// input is the byte source of a reader: a buffered stream (an RDB file) or
// a byte slice held whole (a DUMP payload, src == nil). It keeps the CRC-64
// of every byte consumed, and bounds every length it reads.
type input struct {
	src    io.Reader
	buf    []byte
	r, w   int // unread window buf[r:w]
	hashed int // buf[:hashed] is already in crc
	crc    uint64
	off    int64 // bytes consumed before buf[0]
	max    int64 // bound on one string or blob
	err    error // sticky read error of src
	alias  bool  // readBytes may return a slice of buf (bytes input only)
}

const inputBufSize = 64 << 10

func newStreamInput(src io.Reader, max int64) *input {
	return &input{src: src, buf: make([]byte, inputBufSize), max: max}
}

func newBytesInput(b []byte, max int64) *input {
	return &input{buf: b, w: len(b), max: max}
}

// offset returns the number of bytes consumed so far.
func (in *input) offset() int64 { return in.off + int64(in.r) }

// remaining returns the bytes left in a slice input, or -1 for a stream.
func (in *input) remaining() int64 {
	if in.src == nil {
		return int64(in.w - in.r)
	}
	return -1
}

// checksum returns the CRC-64 of every byte consumed so far.
func (in *input) checksum() uint64 {
	in.crc = crcUpdate(in.crc, in.buf[in.hashed:in.r])
	in.hashed = in.r
	return in.crc
}

// fill makes at least one more byte available, or fails at the end of data.
func (in *input) fill() error {
	if in.src == nil || in.err != nil {
		if in.err != nil && !errors.Is(in.err, io.EOF) {
			return in.err
		}
		return corrupt("unexpected end of data at offset %d", in.offset())
	}
	in.checksum()
	n := copy(in.buf, in.buf[in.r:in.w])
	in.off += int64(in.r)
	in.r, in.w, in.hashed = 0, n, 0
	for in.w == n {
		m, err := in.src.Read(in.buf[in.w:])
		in.w += m
		if err != nil {
			in.err = err
			if in.w == n {
				return in.fill()
			}
		}
	}
	return nil
}

func (in *input) readByte() (byte, error) {
	if in.r == in.w {
		if err := in.fill(); err != nil {
			return 0, err
		}
	}
	c := in.buf[in.r]
	in.r++
	return c, nil
}

// readFull fills p from the input.
func (in *input) readFull(p []byte) error {
	for len(p) > 0 {
		if in.r == in.w {
			if err := in.fill(); err != nil {
				return err
			}
		}
		n := copy(p, in.buf[in.r:in.w])
		in.r += n
		p = p[n:]
	}
	return nil
}

// readBytes returns the next n bytes in a new slice. The length is checked
// against the bound and, for a slice input, against what remains; a stream
// grows the result as data arrives, so a false claim fails at the end of
// data without a large allocation.
func (in *input) readBytes(n uint64) ([]byte, error) {
	if n > uint64(in.max) {
		return nil, ErrTooLarge
	}
	if rem := in.remaining(); rem >= 0 && n > uint64(rem) {
		return nil, corrupt("length %d exceeds the %d bytes left", n, rem)
	}
	if in.src == nil && in.alias {
		out := in.buf[in.r : in.r+int(n) : in.r+int(n)]
		in.r += int(n)
		return out, nil
	}
	if in.src == nil {
		out := make([]byte, n)
		copy(out, in.buf[in.r:])
		in.r += int(n)
		return out, nil
	}
	out := make([]byte, 0, min(n, inputBufSize))
	for uint64(len(out)) < n {
		if in.r == in.w {
			if err := in.fill(); err != nil {
				return nil, err
			}
		}
		k := min(uint64(in.w-in.r), n-uint64(len(out)))
		out = append(out, in.buf[in.r:in.r+int(k)]...)
		in.r += int(k)
	}
	return out, nil
}

// skip discards n bytes.
func (in *input) skip(n uint64) error {
	for n > 0 {
		if in.r == in.w {
			if err := in.fill(); err != nil {
				return err
			}
		}
		k := min(uint64(in.w-in.r), n)
		in.r += int(k)
		n -= k
	}
	return nil
}

func (in *input) readUint32LE() (uint32, error) {
	var b [4]byte
	err := in.readFull(b[:])
	return binary.LittleEndian.Uint32(b[:]), err
}

func (in *input) readUint64LE() (uint64, error) {
	var b [8]byte
	err := in.readFull(b[:])
	return binary.LittleEndian.Uint64(b[:]), err
}

// readLen reads a length; encoded reports a special string encoding, whose
// number is then returned as n.
func (in *input) readLen() (n uint64, encoded bool, err error) {
	c, err := in.readByte()
	if err != nil {
		return 0, false, err
	}
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3f), false, nil
	case 1:
		d, err := in.readByte()
		return uint64(c&0x3f)<<8 | uint64(d), false, err
	case 3:
		return uint64(c & 0x3f), true, nil
	}
	switch c {
	case 0x80:
		var b [4]byte
		err := in.readFull(b[:])
		return uint64(binary.BigEndian.Uint32(b[:])), false, err
	case 0x81:
		var b [8]byte
		err := in.readFull(b[:])
		return binary.BigEndian.Uint64(b[:]), false, err
	}
	return 0, false, corrupt("unknown length encoding 0x%02x", c)
}

// readLength reads a plain length, refusing a string encoding.
func (in *input) readLength() (uint64, error) {
	n, enc, err := in.readLen()
	if err == nil && enc {
		err = corrupt("string encoding where a length belongs")
	}
	return n, err
}

// readString reads a string in any of its encodings: raw, integer or LZF.
func (in *input) readString() ([]byte, error) {
	n, enc, err := in.readLen()
	if err != nil {
		return nil, err
	}
	if !enc {
		return in.readBytes(n)
	}
	var b [4]byte
	switch n {
	case 0:
		err = in.readFull(b[:1])
		return strconv.AppendInt(nil, int64(int8(b[0])), 10), err
	case 1:
		err = in.readFull(b[:2])
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b[:]))), 10), err
	case 2:
		err = in.readFull(b[:4])
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b[:]))), 10), err
	case 3:
		return in.readLZF()
	}
	return nil, corrupt("unknown string encoding %d", n)
}

// lzfMaxRatio bounds how much LZF expands: a 3-byte back reference yields
// at most 264 bytes.
const lzfMaxRatio = 88

func (in *input) readLZF() ([]byte, error) {
	clen, err := in.readLength()
	if err != nil {
		return nil, err
	}
	ulen, err := in.readLength()
	if err != nil {
		return nil, err
	}
	if ulen > uint64(in.max) {
		return nil, ErrTooLarge
	}
	if clen == 0 || ulen > clen*lzfMaxRatio {
		return nil, corrupt("LZF lengths %d/%d impossible", clen, ulen)
	}
	c, err := in.readBytes(clen)
	if err != nil {
		return nil, err
	}
	return lzfDecompress(c, int(ulen))
}

// readMillis reads an 8-byte little-endian millisecond time.
func (in *input) readMillis() (int64, error) {
	v, err := in.readUint64LE()
	return int64(v), err
}

// readBinaryDouble reads an 8-byte little-endian IEEE 754 double.
func (in *input) readBinaryDouble() (float64, error) {
	v, err := in.readUint64LE()
	return math.Float64frombits(v), err
}

// readStringDouble reads a score of the oldest sorted set encoding: a
// length byte (253 NaN, 254 +inf, 255 -inf) and that many ASCII bytes.
func (in *input) readStringDouble() (float64, error) {
	c, err := in.readByte()
	if err != nil {
		return 0, err
	}
	switch c {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	var b [255]byte
	if err := in.readFull(b[:c]); err != nil {
		return 0, err
	}
	return parseScore(b[:c])
}

// parseScore parses a score written as text.
func parseScore(b []byte) (float64, error) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, corrupt("invalid score %q", b)
	}
	return f, nil
}
