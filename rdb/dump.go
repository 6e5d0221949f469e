package rdb

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// dumpFooter is the 2-byte RDB version and the 8-byte CRC-64 closing a
// DUMP payload.
const dumpFooter = 10

// DumpVersionOf returns the RDB version a DUMP payload is stamped with.
func DumpVersionOf(payload []byte) (int, bool) {
	if len(payload) < dumpFooter {
		return 0, false
	}
	return int(binary.LittleEndian.Uint16(payload[len(payload)-dumpFooter:])), true
}

// ParseDump checks a DUMP payload (object type, value, 2-byte little-endian
// RDB version, CRC-64 of all before it) and returns its value. A version
// above opts.MaxVersion fails with ErrVersion, a wrong checksum with
// ErrChecksum; those two are what RESTORE reports as "payload version or
// checksum are wrong". Errors in the value itself (ErrCorrupt,
// ErrUnsupported, ErrEmptyKey) come from ParseDump or from the Value's Next.
// Bytes after the value are ignored, as Redis's RESTORE ignores them. A nil
// opts means the defaults.
func ParseDump(payload []byte, opts *Options) (*Value, error) {
	ver, ok := DumpVersionOf(payload)
	if !ok || len(payload) < dumpFooter+1 {
		return nil, fmt.Errorf("%w: payload too short", ErrChecksum)
	}
	if ver > opts.maxVersion() {
		return nil, fmt.Errorf("%w: %d", ErrVersion, ver)
	}
	body := payload[:len(payload)-8]
	if binary.LittleEndian.Uint64(payload[len(payload)-8:]) != Checksum(body) {
		return nil, ErrChecksum
	}
	in := newBytesInput(payload[1:len(payload)-dumpFooter], opts.maxElementLen())
	in.alias = opts != nil && opts.AliasString && payload[0] == TypeString
	v, err := newValue(payload[0], in)
	if err != nil {
		return nil, err
	}
	if v.skip != nil {
		return nil, v.err
	}
	return v, nil
}

// DumpWriter writes a DUMP payload: one value through the embedded
// ValueWriter, then Close adds the RDB version (DumpVersion) and the
// CRC-64. Redis 6.2, 7.0 and later all RESTORE what it writes.
type DumpWriter struct {
	ValueWriter
	out output
}

// NewDumpWriter returns a writer of one DUMP payload to w.
func NewDumpWriter(w io.Writer) *DumpWriter {
	d := &DumpWriter{out: output{w: w}}
	d.ValueWriter.out = &d.out
	d.ValueWriter.start = func(t byte) { d.out.byte(t) }
	return d
}

// Close writes the footer once the value is complete, and flushes.
func (d *DumpWriter) Close() error {
	if !d.complete() {
		return errValueState
	}
	d.open = false
	d.out.write([]byte{DumpVersion, 0})
	d.out.uint64LE(d.out.sum())
	d.out.flush()
	return d.out.err
}

// DumpStringSize returns the size of the DUMP payload RawStringDump lays out for a string of
// n bytes.
func DumpStringSize(n int) int { return 1 + lengthSize(uint64(n)) + n + dumpFooter }

// RawStringDump lays out in dst, which holds DumpStringSize(n) bytes, the DUMP payload of a
// string of n bytes stored raw (no compression, as Redis stores a string LZF cannot shrink):
// fill is called with the n bytes where the string goes, and the footer is written after it.
// A caller with the string in a file reads it straight into place, so a large value takes
// one buffer, the reply's.
func RawStringDump(dst []byte, n int, fill func(body []byte) error) error {
	if len(dst) != DumpStringSize(n) {
		return errValueState
	}
	dst[0] = TypeString
	h := 1 + putLength(dst[1:], uint64(n))
	if err := fill(dst[h : h+n]); err != nil {
		return err
	}
	end := h + n
	dst[end], dst[end+1] = DumpVersion, 0
	binary.LittleEndian.PutUint64(dst[end+2:], Checksum(dst[:end+2]))
	return nil
}

func lengthSize(n uint64) int {
	switch {
	case n < 1<<6:
		return 1
	case n < 1<<14:
		return 2
	case n <= math.MaxUint32:
		return 5
	}
	return 9
}

// putLength writes n's RDB length encoding at the start of b and returns its size.
func putLength(b []byte, n uint64) int {
	switch {
	case n < 1<<6:
		b[0] = byte(n)
		return 1
	case n < 1<<14:
		b[0], b[1] = byte(n>>8)|0x40, byte(n)
		return 2
	case n <= math.MaxUint32:
		b[0] = 0x80
		binary.BigEndian.PutUint32(b[1:], uint32(n))
		return 5
	}
	b[0] = 0x81
	binary.BigEndian.PutUint64(b[1:], n)
	return 9
}
