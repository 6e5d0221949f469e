package rdb

import "encoding/binary"

// blob walks one packed encoding (listpack, ziplist, intset or zipmap)
// entry by entry, checking each entry's structure as it goes and the
// trailer (counts, tail offset) at the end. A value walks each blob twice:
// once to validate it whole before any element is delivered, as the deep
// sanitizer does, and once to deliver the elements. Only the blob's bytes
// are held, never a decoded copy.
type blob struct {
	format byte // 'l' listpack, 'z' ziplist, 'i' intset, 'm' zipmap
	b      []byte
	start  int // offset of the first entry
	end    int // offset of the terminator (the intset's size)
	header int // entry count the header declares, -1 for "unknown"

	pos, count int
	prevLen    int   // ziplist: length of the previous entry
	last       int   // ziplist: offset of the last entry
	width      int   // intset: bytes a member
	prevInt    int64 // intset: the previous member
	value      []byte
	pending    bool // zipmap: value is the next entry
}

// newBlob checks the header and terminator of a blob of object type t.
func newBlob(t byte, b []byte) (*blob, error) {
	z := &blob{b: b}
	switch t {
	case TypeSetIntset:
		z.format = 'i'
		if len(b) < 8 {
			return nil, corrupt("intset too short")
		}
		w := uint64(binary.LittleEndian.Uint32(b))
		n := uint64(binary.LittleEndian.Uint32(b[4:]))
		if w != 2 && w != 4 && w != 8 {
			return nil, corrupt("invalid intset encoding %d", w)
		}
		if 8+n*w != uint64(len(b)) {
			return nil, corrupt("intset size does not match its count")
		}
		z.width, z.start, z.end, z.header = int(w), 8, len(b), int(n)
	case TypeHashZipmap:
		z.format = 'm'
		if len(b) < 2 || b[len(b)-1] != 0xff {
			return nil, corrupt("zipmap not terminated")
		}
		z.start, z.end, z.header = 1, len(b)-1, int(b[0])
		if b[0] == 254 {
			z.header = -1
		}
	case TypeListZiplist, TypeZSetZiplist, TypeHashZiplist, TypeListQuicklist:
		z.format = 'z'
		if len(b) < 11 || uint64(len(b)) > 1<<32-1 || binary.LittleEndian.Uint32(b) != uint32(len(b)) {
			return nil, corrupt("ziplist size header does not match")
		}
		if b[len(b)-1] != 0xff {
			return nil, corrupt("ziplist not terminated")
		}
		z.start, z.end, z.last = 10, len(b)-1, 10
		z.header = int(binary.LittleEndian.Uint16(b[8:]))
		if z.header == 0xffff {
			z.header = -1
		}
	default:
		z.format = 'l'
		if len(b) < 7 || uint64(len(b)) > 1<<32-1 || binary.LittleEndian.Uint32(b) != uint32(len(b)) {
			return nil, corrupt("listpack size header does not match")
		}
		if b[len(b)-1] != 0xff {
			return nil, corrupt("listpack not terminated")
		}
		z.start, z.end = 6, len(b)-1
		z.header = int(binary.LittleEndian.Uint16(b[4:]))
		if z.header == 0xffff {
			z.header = -1
		}
	}
	z.rewind()
	return z, nil
}

// rewind restarts the walk at the first entry.
func (z *blob) rewind() {
	z.pos, z.count, z.prevLen, z.pending = z.start, 0, 0, false
}

// next returns the next entry; ok is false at the end, once the trailer
// has been checked.
func (z *blob) next() (e entry, ok bool, err error) {
	if z.pending {
		z.pending = false
		return entry{s: z.value}, true, nil
	}
	if z.pos >= z.end || z.format != 'i' && z.b[z.pos] == 0xff {
		return entry{}, false, z.finish()
	}
	next := 0
	switch z.format {
	case 'l':
		e, next, err = listpackEntry(z.b[:z.end], z.pos)
	case 'z':
		e, next, err = ziplistEntry(z.b[:z.end], z.pos, z.prevLen)
		z.prevLen, z.last = next-z.pos, z.pos
	case 'i':
		next = z.pos + z.width
		e = entry{i: signExtend(le(z.b[z.pos:next]), uint(8*z.width)), isInt: true}
		if z.count > 0 && e.i <= z.prevInt {
			return e, false, corrupt("intset members out of order")
		}
		z.prevInt = e.i
	case 'm':
		var field []byte
		field, z.value, next, err = zipmapEntry(z.b[:z.end], z.pos)
		e, z.pending = entry{s: field}, true
	}
	if err != nil {
		return e, false, err
	}
	z.pos = next
	z.count++
	return e, true, nil
}

// finish checks what the walk can only tell at the end.
func (z *blob) finish() error {
	if z.pos != z.end {
		return corrupt("packed entries do not reach the terminator")
	}
	if z.format == 'z' && int(binary.LittleEndian.Uint32(z.b[4:])) != z.last {
		return corrupt("ziplist tail offset is wrong")
	}
	if z.header >= 0 && z.header != z.count {
		return corrupt("packed value holds %d entries, header says %d", z.count, z.header)
	}
	return nil
}

// zipmapEntry decodes the field and value at b[p:], b ending before the
// terminator: a length (one byte below 254, or 254 and four bytes), the
// field, a length, a free-space byte, the value and the free space.
func zipmapEntry(b []byte, p int) (field, value []byte, next int, err error) {
	readLen := func(p int) (int, int, error) {
		if p >= len(b) {
			return 0, 0, corrupt("zipmap entry overruns the end")
		}
		if b[p] < 254 {
			return int(b[p]), p + 1, nil
		}
		if b[p] == 255 || p+5 > len(b) {
			return 0, 0, corrupt("zipmap entry overruns the end")
		}
		n := binary.LittleEndian.Uint32(b[p+1:])
		if n < 254 || uint64(n) > uint64(len(b)) {
			return 0, 0, corrupt("zipmap length invalid")
		}
		return int(n), p + 5, nil
	}
	l, q, err := readLen(p)
	if err != nil {
		return nil, nil, 0, err
	}
	if q+l > len(b) {
		return nil, nil, 0, corrupt("zipmap entry overruns the end")
	}
	field = b[q : q+l]
	if l, q, err = readLen(q + l); err != nil {
		return nil, nil, 0, err
	}
	if q >= len(b) {
		return nil, nil, 0, corrupt("zipmap entry overruns the end")
	}
	free := int(b[q])
	q++
	if q+l+free > len(b) {
		return nil, nil, 0, corrupt("zipmap entry overruns the end")
	}
	return field, b[q : q+l], q + l + free, nil
}
