// Package bitops holds the bit arithmetic of Strata's bitmap commands over a string's bytes:
// single bits, counting and finding set or clear bits in a bit or byte range, and BITFIELD's
// signed and unsigned fields of 1 to 64 bits at any bit offset with Redis's overflow
// behaviours. Bit 0 is the most significant bit of the first byte, as in Redis.
package bitops

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Get returns bit off of p (0 for bits past the end). Bit 0 is the most significant bit of p[0].
func Get(p []byte, off uint64) int {
	b := off >> 3
	if b >= uint64(len(p)) {
		return 0
	}
	return int(p[b]>>(7-off&7)) & 1
}

// BITFIELD overflow behaviours.
const (
	Wrap = iota
	Sat
	Fail
)

// Count returns the number of set bits of p between bit positions from and to, inclusive.
// The positions must lie inside p and from <= to.
func Count(p []byte, from, to int64) int64 {
	first, last := from>>3, to>>3
	var n int64
	q := p[first : last+1]
	for len(q) >= 8 {
		n += int64(bits.OnesCount64(binary.LittleEndian.Uint64(q)))
		q = q[8:]
	}
	for _, b := range q {
		n += int64(bits.OnesCount8(b))
	}
	// Take off the bits of the edge bytes that lie outside the range.
	n -= int64(bits.OnesCount8(p[first] &^ (0xff >> (from & 7))))
	n -= int64(bits.OnesCount8(p[last] &^ (0xff << (7 - to&7))))
	return n
}

// Find returns the position of the first bit equal to bit in p between bit positions from
// and to, inclusive, or -1 if there is none. The positions must lie inside p and from <= to.
func Find(p []byte, from, to int64, bit int) int64 {
	var flip byte // xor makes the bit we look for a 1
	if bit == 0 {
		flip = 0xff
	}
	first, last := from>>3, to>>3
	for i := first; i <= last; i++ {
		if i > first && i+8 <= last {
			// Whole bytes inside the range: skip eight at a time while none matches.
			w := binary.BigEndian.Uint64(p[i:])
			if bit == 0 {
				w = ^w
			}
			if w == 0 {
				i += 7
				continue
			}
			return i*8 + int64(bits.LeadingZeros64(w))
		}
		v := p[i] ^ flip
		if i == first {
			v &= 0xff >> (from & 7)
		}
		if i == last {
			v &= 0xff << (7 - to&7)
		}
		if v != 0 {
			return i*8 + int64(bits.LeadingZeros8(v))
		}
	}
	return -1
}

// Range turns Redis's start/end arguments into an inclusive range of bit positions over a
// string of n bytes, as BITCOUNT and BITPOS do: negative values count from the end, the range is
// clamped to the string, and isBit selects bit rather than byte units. ok is false for an empty
// range.
func Range(n, start, end int64, isBit bool) (from, to int64, ok bool) {
	total := n
	if isBit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	if start > end {
		return 0, 0, false
	}
	if isBit {
		return start, end, true
	}
	return start * 8, end*8 + 7, true
}

// GetUnsigned reads width bits at bit offset off, most significant first. p must hold
// them all.
func GetUnsigned(p []byte, off uint64, width int) uint64 {
	var v uint64
	for j := 0; j < width; j++ {
		v = v<<1 | uint64(p[off>>3]>>(7-off&7))&1
		off++
	}
	return v
}

// GetSigned reads width bits at bit offset off as a two's complement integer.
func GetSigned(p []byte, off uint64, width int) int64 {
	v := GetUnsigned(p, off, width)
	if width < 64 && v&(1<<(width-1)) != 0 {
		v |= math.MaxUint64 << width
	}
	return int64(v)
}

// SetUnsigned writes the low width bits of v at bit offset off, most significant first.
// p must hold them all.
func SetUnsigned(p []byte, off uint64, width int, v uint64) {
	for j := width - 1; j >= 0; j-- {
		shift := 7 - off&7
		if v>>j&1 != 0 {
			p[off>>3] |= 1 << shift
		} else {
			p[off>>3] &^= 1 << shift
		}
		off++
	}
}

// SetSigned writes v as a width-bit two's complement integer at bit offset off.
func SetSigned(p []byte, off uint64, width int, v int64) {
	SetUnsigned(p, off, width, uint64(v))
}

// GetPadded reads a field as BITFIELD GET does: bits past the end of p are zero. An
// unsigned field (at most 63 bits) always fits the int64 result.
func GetPadded(p []byte, off uint64, width int, signed bool) int64 {
	var buf [9]byte
	b := off >> 3
	if b < uint64(len(p)) {
		copy(buf[:], p[b:])
	}
	if signed {
		return GetSigned(buf[:], off-b*8, width)
	}
	return int64(GetUnsigned(buf[:], off-b*8, width))
}

// CheckUnsignedOverflow reports whether value+incr overflows a width-bit unsigned field: 1 above
// the maximum, -1 below zero, 0 not at all. On overflow *limit receives the wrapped or saturated
// value (for WRAP and SAT). It follows Redis's checkUnsignedBitfieldOverflow, quirks included:
// a value that is already out of range (SET u8 with -1) counts as an overflow upwards.
func CheckUnsignedOverflow(value uint64, incr int64, width int, ow int, limit *uint64) int {
	max := uint64(1)<<width - 1
	if width == 64 {
		max = math.MaxUint64
	}
	maxincr := int64(max - value)
	minincr := -int64(value)
	if value > max || incr > 0 && incr > maxincr {
		switch ow {
		case Wrap:
			*limit = (value + uint64(incr)) &^ (math.MaxUint64 << width)
		case Sat:
			*limit = max
		}
		return 1
	}
	if incr < 0 && incr < minincr {
		switch ow {
		case Wrap:
			*limit = (value + uint64(incr)) &^ (math.MaxUint64 << width)
		case Sat:
			*limit = 0
		}
		return -1
	}
	return 0
}

// CheckSignedOverflow is CheckUnsignedOverflow for width-bit two's complement fields, following
// Redis's checkSignedBitfieldOverflow (including its wrapping intermediate arithmetic).
func CheckSignedOverflow(value, incr int64, width int, ow int, limit *int64) int {
	max := int64(1)<<(width-1) - 1
	if width == 64 {
		max = math.MaxInt64
	}
	min := -max - 1
	maxincr := int64(uint64(max) - uint64(value))
	minincr := min - value
	wrap := func() {
		c := uint64(value) + uint64(incr)
		if width < 64 {
			mask := uint64(math.MaxUint64) << width
			if c&(1<<(width-1)) != 0 {
				c |= mask
			} else {
				c &^= mask
			}
		}
		*limit = int64(c)
	}
	if value > max || width != 64 && incr > maxincr || value >= 0 && incr > 0 && incr > maxincr {
		switch ow {
		case Wrap:
			wrap()
		case Sat:
			*limit = max
		}
		return 1
	}
	if value < min || width != 64 && incr < minincr || value < 0 && incr < 0 && incr < minincr {
		switch ow {
		case Wrap:
			wrap()
		case Sat:
			*limit = min
		}
		return -1
	}
	return 0
}
