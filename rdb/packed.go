package rdb

import (
	"encoding/binary"
	"strconv"
)

// entry is one element of a packed blob: a byte string or an integer.
// s points into the blob.
type entry struct {
	s     []byte
	i     int64
	isInt bool
}

// bytes returns the entry as Redis shows it: integers in decimal.
func (e entry) bytes() []byte {
	if e.isInt {
		return strconv.AppendInt(nil, e.i, 10)
	}
	return e.s
}

// score returns the entry as a sorted set score.
func (e entry) score() (float64, error) {
	if e.isInt {
		return float64(e.i), nil
	}
	return parseScore(e.s)
}

// key returns a string identifying the entry for duplicate checks.
func (e entry) key() string { return string(e.bytes()) }

func le(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// signExtend interprets the low bits of v as a two's complement integer.
func signExtend(v uint64, bits uint) int64 {
	shift := 64 - bits
	return int64(v<<shift) >> shift
}

// listpackEntry decodes the entry at b[p:], b ending before the terminator.
func listpackEntry(b []byte, p int) (entry, int, error) {
	var e entry
	c := b[p]
	need := func(n int) bool { return p+n <= len(b) }
	var hl, dl int // header and data lengths
	switch {
	case c&0x80 == 0:
		hl, e.isInt, e.i = 1, true, int64(c)
	case c&0xc0 == 0x80:
		hl, dl = 1, int(c&0x3f)
	case c&0xe0 == 0xc0:
		if !need(2) {
			return e, 0, corrupt("listpack entry overruns the end")
		}
		hl, e.isInt = 2, true
		e.i = signExtend(uint64(c&0x1f)<<8|uint64(b[p+1]), 13)
	case c&0xf0 == 0xe0:
		if !need(2) {
			return e, 0, corrupt("listpack entry overruns the end")
		}
		hl, dl = 2, int(c&0x0f)<<8|int(b[p+1])
	case c == 0xf0:
		if !need(5) {
			return e, 0, corrupt("listpack entry overruns the end")
		}
		hl = 5
		n := binary.LittleEndian.Uint32(b[p+1:])
		if uint64(n) > uint64(len(b)) {
			return e, 0, corrupt("listpack string overruns the end")
		}
		dl = int(n)
	case c >= 0xf1 && c <= 0xf4:
		width := [...]int{2, 3, 4, 8}[c-0xf1]
		if !need(1 + width) {
			return e, 0, corrupt("listpack entry overruns the end")
		}
		hl, e.isInt = 1+width, true
		e.i = signExtend(le(b[p+1:p+1+width]), uint(8*width))
	default:
		return e, 0, corrupt("invalid listpack encoding 0x%02x", c)
	}
	l := hl + dl
	bl := backlen(uint64(l))
	if !need(l + len(bl)) {
		return e, 0, corrupt("listpack entry overruns the end")
	}
	if !e.isInt {
		e.s = b[p+hl : p+l]
	}
	for i, x := range bl {
		if b[p+l+i] != x {
			return e, 0, corrupt("listpack back-length does not match its entry")
		}
	}
	return e, p + l + len(bl), nil
}

// backlen returns the back-length bytes stored after a listpack entry of
// l bytes, in the order they appear.
func backlen(l uint64) []byte {
	switch {
	case l <= 127:
		return []byte{byte(l)}
	case l < 16383:
		return []byte{byte(l >> 7), byte(l&127) | 128}
	case l < 2097151:
		return []byte{byte(l >> 14), byte(l>>7&127) | 128, byte(l&127) | 128}
	case l < 268435455:
		return []byte{byte(l >> 21), byte(l>>14&127) | 128, byte(l>>7&127) | 128, byte(l&127) | 128}
	}
	return []byte{byte(l >> 28), byte(l>>21&127) | 128, byte(l>>14&127) | 128, byte(l>>7&127) | 128, byte(l&127) | 128}
}

// ziplistEntry decodes the entry at b[p:], checking that it records the
// previous entry's length.
func ziplistEntry(b []byte, p, prevLen int) (entry, int, error) {
	var e entry
	overrun := corrupt("ziplist entry overruns the end")
	q := p
	if b[q] < 254 {
		if int(b[q]) != prevLen {
			return e, 0, corrupt("ziplist previous-length is wrong")
		}
		q++
	} else {
		if q+5 > len(b) {
			return e, 0, overrun
		}
		if uint64(binary.LittleEndian.Uint32(b[q+1:])) != uint64(prevLen) || b[q] != 254 {
			return e, 0, corrupt("ziplist previous-length is wrong")
		}
		q += 5
	}
	if q >= len(b) {
		return e, 0, overrun
	}
	c := b[q]
	var hl, dl int
	switch {
	case c>>6 == 0:
		hl, dl = 1, int(c&0x3f)
	case c>>6 == 1:
		if q+2 > len(b) {
			return e, 0, overrun
		}
		hl, dl = 2, int(c&0x3f)<<8|int(b[q+1])
	case c>>6 == 2:
		if q+5 > len(b) {
			return e, 0, overrun
		}
		n := binary.BigEndian.Uint32(b[q+1:])
		if uint64(n) > uint64(len(b)) {
			return e, 0, overrun
		}
		hl, dl = 5, int(n)
	case c >= 0xf1 && c <= 0xfd:
		hl, e.isInt, e.i = 1, true, int64(c&0x0f)-1
	default:
		var width int
		switch c {
		case 0xfe:
			width = 1
		case 0xc0:
			width = 2
		case 0xf0:
			width = 3
		case 0xd0:
			width = 4
		case 0xe0:
			width = 8
		default:
			return e, 0, corrupt("invalid ziplist encoding 0x%02x", c)
		}
		if q+1+width > len(b) {
			return e, 0, overrun
		}
		hl, e.isInt = 1, true
		e.i = signExtend(le(b[q+1:q+1+width]), uint(8*width))
		dl = width
	}
	if q+hl+dl > len(b) {
		return e, 0, overrun
	}
	if !e.isInt {
		e.s = b[q+hl : q+hl+dl]
	}
	return e, q + hl + dl, nil
}
