package rdb

import "math/bits"

// LZF is the compression of long strings in RDB files and DUMP payloads.
// A block is a sequence of literal runs (a control byte below 32, then that
// many plus one bytes) and back references (three bits of length minus two,
// a further length byte when those bits are all set, and a 13-bit distance
// minus one).

const (
	lzfMaxLit   = 32
	lzfMaxOff   = 1 << 13
	lzfMaxRef   = 7 + 255 + 2
	lzfHashBits = 14
)

// lzfDecompress expands an LZF block into exactly n bytes.
func lzfDecompress(c []byte, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for i := 0; i < len(c); {
		ctrl := int(c[i])
		i++
		if ctrl < 32 {
			lit := ctrl + 1
			if i+lit > len(c) || len(out)+lit > n {
				return nil, corrupt("invalid LZF literal run")
			}
			out = append(out, c[i:i+lit]...)
			i += lit
			continue
		}
		l := ctrl >> 5
		if l == 7 {
			if i >= len(c) {
				return nil, corrupt("invalid LZF back reference")
			}
			l += int(c[i])
			i++
		}
		if i >= len(c) {
			return nil, corrupt("invalid LZF back reference")
		}
		ref := len(out) - (ctrl&0x1f)<<8 - int(c[i]) - 1
		i++
		l += 2
		if ref < 0 || len(out)+l > n {
			return nil, corrupt("invalid LZF back reference")
		}
		for k := 0; k < l; k++ { // the source may overlap what is written
			out = append(out, out[ref+k])
		}
	}
	if len(out) != n {
		return nil, corrupt("LZF data expands to %d bytes, not %d", len(out), n)
	}
	return out, nil
}

// lzfCompress compresses p, or returns nil when the result would not be
// at least 4 bytes shorter (the string is then stored raw).
func lzfCompress(p []byte) []byte {
	limit := len(p) - 4
	if limit <= 0 {
		return nil
	}
	out := make([]byte, 0, limit)
	// table holds the position+1 of the last 3-byte sequence seen with each
	// hash; short strings use a smaller one.
	shift := uint32(32 - min(lzfHashBits, bits.Len(uint(len(p)))+1))
	table := make([]int32, 1<<(32-shift))
	lit := 0 // index of the pending literal run's start
	flush := func(end int) {
		for lit < end {
			n := min(end-lit, lzfMaxLit)
			out = append(out, byte(n-1))
			out = append(out, p[lit:lit+n]...)
			lit += n
		}
	}
	i := 0
	for i+2 < len(p) {
		h := (uint32(p[i])<<16 | uint32(p[i+1])<<8 | uint32(p[i+2])) * 2654435761 >> shift
		ref := int(table[h]) - 1
		table[h] = int32(i + 1)
		if ref < 0 || i-ref > lzfMaxOff || p[ref] != p[i] || p[ref+1] != p[i+1] || p[ref+2] != p[i+2] {
			i++
			continue
		}
		n := 3
		for i+n < len(p) && n < lzfMaxRef && p[ref+n] == p[i+n] {
			n++
		}
		flush(i)
		off := i - ref - 1
		if n-2 < 7 {
			out = append(out, byte((n-2)<<5|off>>8), byte(off))
		} else {
			out = append(out, byte(7<<5|off>>8), byte(n-2-7), byte(off))
		}
		i += n
		lit = i
		if len(out) > limit {
			return nil
		}
	}
	flush(len(p))
	if len(out) > limit {
		return nil
	}
	return out
}
