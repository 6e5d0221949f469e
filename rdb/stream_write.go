package rdb

import (
	"encoding/binary"
	"errors"
)

// Writing streams: object type 19 (stream listpacks 2), which Redis 7.0 and later load. The
// caller announces the number of nodes, hands each node's entries (StreamNode builds its
// listpack: a master entry with the first entry's fields, then each entry as deltas from the
// node's first ID, its fields omitted when they are the master's), then the metadata and the
// consumer groups (StreamTail).

// Stream starts a stream of n listpack nodes (0 for an empty stream).
func (vw *ValueWriter) Stream(n uint64) error {
	if vw.open && !vw.complete() || vw.start == nil {
		return errValueState
	}
	vw.start(TypeStreamListpacks2)
	vw.start = nil
	vw.kind, vw.left, vw.open, vw.tailOwed = KindStream, n, true, true
	vw.out.length(n)
	return vw.out.err
}

var errStreamNode = errors.New("rdb: a stream node needs entries with fields, in ID order")

// StreamNode writes the next node of the stream: entries, at least one, in ID order.
func (vw *ValueWriter) StreamNode(entries []StreamEntry) error {
	if err := vw.element(KindStream); err != nil {
		return err
	}
	if len(entries) == 0 {
		return errStreamNode
	}
	master := entries[0].ID
	masterFields := entries[0].Fields
	var lp listpackBuilder
	lp.int(int64(len(entries)))
	lp.int(0)
	lp.int(int64(len(masterFields) / 2))
	for i := 0; i < len(masterFields); i += 2 {
		lp.str(masterFields[i])
	}
	lp.int(0)
	for _, e := range entries {
		if len(e.Fields) == 0 || len(e.Fields)%2 != 0 {
			return errStreamNode
		}
		same := sameFields(e.Fields, masterFields)
		flags := int64(0)
		if same {
			flags = streamFlagSameFields
		}
		lp.int(flags)
		lp.int(int64(e.ID.Ms - master.Ms))
		lp.int(int64(e.ID.Seq - master.Seq))
		nf := len(e.Fields) / 2
		if !same {
			lp.int(int64(nf))
		}
		for i, f := range e.Fields {
			if same && i%2 == 0 {
				continue
			}
			lp.str(f)
		}
		count := nf + 3
		if !same {
			count += nf + 1
		}
		lp.int(int64(count))
	}
	var key [16]byte
	binary.BigEndian.PutUint64(key[:], master.Ms)
	binary.BigEndian.PutUint64(key[8:], master.Seq)
	vw.out.str(key[:])
	vw.out.str(lp.finish())
	return vw.out.err
}

func sameFields(fv, master [][]byte) bool {
	if len(fv) != len(master) {
		return false
	}
	for i := 0; i < len(fv); i += 2 {
		if string(fv[i]) != string(master[i]) {
			return false
		}
	}
	return true
}

func (o *output) streamID(id StreamID) {
	o.length(id.Ms)
	o.length(id.Seq)
}

func (o *output) rawStreamID(id StreamID) {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:], id.Ms)
	binary.BigEndian.PutUint64(b[8:], id.Seq)
	o.write(b[:])
}

// StreamTail writes the stream's metadata and consumer groups once its nodes are written. A
// consumer's Pending IDs must be in its group's PEL.
func (vw *ValueWriter) StreamTail(tl *StreamTail) error {
	if !vw.open || vw.kind != KindStream || vw.left != 0 || !vw.tailOwed {
		return errValueState
	}
	o := vw.out
	o.length(tl.Length)
	o.streamID(tl.LastID)
	o.streamID(tl.FirstID)
	o.streamID(tl.MaxDeletedID)
	o.length(tl.EntriesAdded)
	o.length(uint64(len(tl.Groups)))
	for _, g := range tl.Groups {
		o.str(g.Name)
		o.streamID(g.LastID)
		o.length(uint64(g.EntriesRead))
		o.length(uint64(len(g.PEL)))
		for _, n := range g.PEL {
			o.rawStreamID(n.ID)
			o.uint64LE(uint64(n.DeliveryTime))
			o.length(n.DeliveryCount)
		}
		o.length(uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			o.str(c.Name)
			o.uint64LE(uint64(c.SeenTime))
			o.length(uint64(len(c.Pending)))
			for _, id := range c.Pending {
				o.rawStreamID(id)
			}
		}
	}
	vw.tailOwed = false
	return o.err
}

// listpackBuilder lays out a listpack: a 6-byte header (total bytes, element count), the
// entries, each followed by its back-length, and the 0xff terminator.
type listpackBuilder struct {
	b []byte
	n int
}

func (lp *listpackBuilder) entry(enc []byte) {
	if lp.b == nil {
		lp.b = make([]byte, 6, 256)
	}
	lp.b = append(lp.b, enc...)
	l := uint64(len(enc))
	switch {
	case l <= 127:
		lp.b = append(lp.b, byte(l))
	case l < 16383:
		lp.b = append(lp.b, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		lp.b = append(lp.b, byte(l>>14), byte((l>>7)&127)|128, byte(l&127)|128)
	case l < 268435455:
		lp.b = append(lp.b, byte(l>>21), byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	default:
		lp.b = append(lp.b, byte(l>>28), byte((l>>21)&127)|128, byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	}
	lp.n++
}

func (lp *listpackBuilder) int(v int64) {
	var e [9]byte
	switch {
	case v >= 0 && v <= 127:
		lp.entry([]byte{byte(v)})
	case v >= -4096 && v <= 4095:
		u := uint16(v) & 0x1fff
		lp.entry([]byte{0xc0 | byte(u>>8), byte(u)})
	case v >= -1<<15 && v < 1<<15:
		e[0] = 0xf1
		binary.LittleEndian.PutUint16(e[1:], uint16(v))
		lp.entry(e[:3])
	case v >= -1<<23 && v < 1<<23:
		e[0] = 0xf2
		binary.LittleEndian.PutUint32(e[1:], uint32(v))
		lp.entry(e[:4])
	case v >= -1<<31 && v < 1<<31:
		e[0] = 0xf3
		binary.LittleEndian.PutUint32(e[1:], uint32(v))
		lp.entry(e[:5])
	default:
		e[0] = 0xf4
		binary.LittleEndian.PutUint64(e[1:], uint64(v))
		lp.entry(e[:9])
	}
}

func (lp *listpackBuilder) str(s []byte) {
	var h []byte
	switch n := len(s); {
	case n < 64:
		h = []byte{0x80 | byte(n)}
	case n < 4096:
		h = []byte{0xe0 | byte(n>>8), byte(n)}
	default:
		h = []byte{0xf0, byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}
	}
	lp.entry(append(h, s...))
}

func (lp *listpackBuilder) finish() []byte {
	if lp.b == nil {
		lp.b = make([]byte, 6)
	}
	lp.b = append(lp.b, 0xff)
	binary.LittleEndian.PutUint32(lp.b, uint32(len(lp.b)))
	n := lp.n
	if n >= 65535 {
		n = 65535
	}
	binary.LittleEndian.PutUint16(lp.b[4:], uint16(n))
	return lp.b
}
