package rdb

import (
	"encoding/binary"
	"fmt"
	"io"
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
