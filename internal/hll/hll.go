package hll

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// Layout constants of Redis's HyperLogLog.
const (
	P          = 14     // bits of the hash that pick a register
	Q          = 64 - P // bits of the hash whose first set bit gives a register value
	Registers  = 1 << P // number of registers
	HeaderSize = 16     // magic, encoding, three unused bytes, cached cardinality
	DenseSize  = HeaderSize + (Registers*6+7)/8
	Dense      = 0 // encoding byte of the dense representation
	Sparse     = 1 // encoding byte of the sparse representation

	// DefaultSparseMaxBytes is Redis's default hll-sparse-max-bytes.
	DefaultSparseMaxBytes = 3000

	registerMax   = 63
	sparseValMax  = 32
	sparseValLen  = 4
	sparseZeroLen = 64
	sparseXZLen   = 16384
	seed          = 0xadc83b19
	alphaInf      = 0.721347520444481703680 // 0.5/ln(2)
)

// ErrCorrupt reports a sparse value whose opcodes do not describe exactly Registers registers,
// or a value of an unknown encoding.
var ErrCorrupt = errors.New("hll: corrupted value")

// New returns an empty HyperLogLog: sparse, all registers zero, cached cardinality 0.
func New() []byte {
	v := make([]byte, HeaderSize, 64)
	copy(v, "HYLL")
	v[4] = Sparse
	return appendXZero(v, Registers)
}

// Valid reports whether v is a string Redis takes for a HyperLogLog: the magic, a known
// encoding, and for the dense encoding the exact size. The sparse opcodes are checked later,
// by the functions that read them.
func Valid(v []byte) bool {
	if len(v) < HeaderSize || string(v[:4]) != "HYLL" || v[4] > Sparse {
		return false
	}
	return v[4] != Dense || len(v) == DenseSize
}

// Encoding returns v's encoding byte (Dense or Sparse).
func Encoding(v []byte) byte { return v[4] }

// Cached returns the cached cardinality of v and whether it is valid.
func Cached(v []byte) (uint64, bool) {
	if v[HeaderSize-1]&0x80 != 0 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(v[8:HeaderSize]), true
}

// SetCached stores card as v's cached cardinality, in place.
func SetCached(v []byte, card uint64) { binary.LittleEndian.PutUint64(v[8:HeaderSize], card) }

// Invalidate marks v's cached cardinality stale, in place.
func Invalidate(v []byte) { v[HeaderSize-1] |= 0x80 }

// Hash is MurmurHash64A as Redis computes it, reading 8-byte blocks little endian.
func Hash(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ uint64(len(key))*m
	for len(key) >= 8 {
		k := binary.LittleEndian.Uint64(key)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		key = key[8:]
	}
	if len(key) > 0 {
		for i := len(key) - 1; i >= 0; i-- {
			h ^= uint64(key[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// PatLen returns the register an element hashes to and the value it offers that register: the
// position, from 1, of the first set bit of the hash above the index bits (Q+1 when none is).
func PatLen(elem []byte) (index int, count uint8) {
	h := Hash(elem, seed)
	index = int(h & (Registers - 1))
	h >>= P
	h |= 1 << Q
	return index, uint8(bits.TrailingZeros64(h) + 1)
}

// getDense returns register i of the packed registers r.
func getDense(r []byte, i int) uint8 {
	b := i * 6 / 8
	fb := uint(i * 6 & 7)
	b0, b1 := uint(r[b]), uint(0)
	if b+1 < len(r) {
		b1 = uint(r[b+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & registerMax)
}

// setDense stores val in register i of the packed registers r.
func setDense(r []byte, i int, val uint8) {
	b := i * 6 / 8
	fb := uint(i * 6 & 7)
	v := uint(val)
	r[b] = byte(uint(r[b])&^(registerMax<<fb) | v<<fb)
	if b+1 < len(r) {
		r[b+1] = byte(uint(r[b+1])&^(registerMax>>(8-fb)) | v>>(8-fb))
	}
}

// GetRegister returns register i of a dense value.
func GetRegister(v []byte, i int) uint8 { return getDense(v[HeaderSize:], i) }

// appendXZero appends XZERO opcodes covering n zero registers.
func appendXZero(v []byte, n int) []byte {
	for n > 0 {
		l := min(n, sparseXZLen)
		v = append(v, byte((l-1)>>8)|0x40, byte(l-1))
		n -= l
	}
	return v
}

// Opcodes of the sparse encoding.
func isZero(b byte) bool  { return b&0xc0 == 0 }
func isXZero(b byte) bool { return b&0xc0 == 0x40 }
func isVal(b byte) bool   { return b&0x80 != 0 }
func zeroLen(b byte) int  { return int(b&0x3f) + 1 }
func xzeroLen(b0, b1 byte) int {
	return (int(b0&0x3f)<<8 | int(b1)) + 1
}
func valValue(b byte) uint8       { return (b>>2)&0x1f + 1 }
func valLen(b byte) int           { return int(b&3) + 1 }
func valOp(val uint8, n int) byte { return byte(val-1)<<2 | byte(n-1) | 0x80 }

// eachRun calls fn for each run of the sparse registers s (the bytes after the header) with
// its first register, length and value, and reports ErrCorrupt unless the runs cover exactly
// Registers registers.
func eachRun(s []byte, fn func(first, n int, val uint8)) error {
	idx := 0
	for p := 0; p < len(s); {
		var n int
		var val uint8
		switch {
		case isZero(s[p]):
			n = zeroLen(s[p])
			p++
		case isXZero(s[p]):
			if p+1 >= len(s) {
				return ErrCorrupt
			}
			n = xzeroLen(s[p], s[p+1])
			p += 2
		default:
			n, val = valLen(s[p]), valValue(s[p])
			p++
		}
		if idx+n > Registers {
			return ErrCorrupt
		}
		if fn != nil {
			fn(idx, n, val)
		}
		idx += n
	}
	if idx != Registers {
		return ErrCorrupt
	}
	return nil
}

// ToDense returns v in the dense encoding (v itself when it is dense already), keeping the magic
// and the cached cardinality.
func ToDense(v []byte) ([]byte, error) {
	if v[4] == Dense {
		return v, nil
	}
	d := make([]byte, DenseSize)
	copy(d, v[:HeaderSize])
	d[4] = Dense
	r := d[HeaderSize:]
	err := eachRun(v[HeaderSize:], func(first, n int, val uint8) {
		if val != 0 {
			for i := first; i < first+n; i++ {
				setDense(r, i, val)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Add adds elem to the HyperLogLog v, which the caller owns (it may be changed in place), and
// returns the resulting value and whether a register changed. A sparse value whose sparse form
// would pass sparseMax bytes is promoted to dense.
func Add(v, elem []byte, sparseMax int) ([]byte, bool, error) {
	index, count := PatLen(elem)
	return Set(v, index, count, sparseMax)
}

// Set raises register index of v to count if it is lower, as Add does for an element.
func Set(v []byte, index int, count uint8, sparseMax int) ([]byte, bool, error) {
	switch v[4] {
	case Dense:
		r := v[HeaderSize:]
		if getDense(r, index) >= count {
			return v, false, nil
		}
		setDense(r, index, count)
		Invalidate(v)
		return v, true, nil
	case Sparse:
		return sparseSet(v, index, count, sparseMax)
	}
	return nil, false, ErrCorrupt
}

// sparseSet is Set for a sparse value: it rewrites the opcode that covers index into up to
// three opcodes, merges adjacent equal VAL opcodes near the change, and promotes the value to
// dense when count does not fit a VAL opcode or the value would grow past sparseMax bytes.
func sparseSet(v []byte, index int, count uint8, sparseMax int) ([]byte, bool, error) {
	if count > sparseValMax {
		return promote(v, index, count)
	}
	s := v[HeaderSize:]
	first, span, p, prev := 0, 0, 0, -1
	for p < len(s) {
		b, oplen := s[p], 1
		switch {
		case b&0x80 != 0:
			span = int(b&3) + 1
		case b&0x40 == 0:
			span = int(b&0x3f) + 1
		default:
			if p+1 >= len(s) {
				return nil, false, ErrCorrupt
			}
			span = xzeroLen(b, s[p+1])
			oplen = 2
		}
		if index < first+span {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= len(s) {
		return nil, false, ErrCorrupt
	}
	op := s[p]
	oldlen := 1
	var runlen int
	switch {
	case isZero(op):
		runlen = zeroLen(op)
	case isXZero(op):
		runlen, oldlen = xzeroLen(op, s[p+1]), 2
	default:
		runlen = valLen(op)
		if valValue(op) >= count {
			return v, false, nil
		}
	}
	if runlen == 1 && !isXZero(op) {
		s[p] = valOp(count, 1)
	} else {
		var seq [5]byte
		n := 0
		last := first + span - 1
		zeros := func(l int) {
			if l > sparseZeroLen {
				seq[n], seq[n+1] = byte((l-1)>>8)|0x40, byte(l-1)
				n += 2
			} else {
				seq[n] = byte(l - 1)
				n++
			}
		}
		if isVal(op) {
			cur := valValue(op)
			if index != first {
				seq[n] = valOp(cur, index-first)
				n++
			}
			seq[n] = valOp(count, 1)
			n++
			if index != last {
				seq[n] = valOp(cur, last-index)
				n++
			}
		} else {
			if index != first {
				zeros(index - first)
			}
			seq[n] = valOp(count, 1)
			n++
			if index != last {
				zeros(last - index)
			}
		}
		delta := n - oldlen
		if delta > 0 && len(v)+delta > sparseMax {
			return promote(v, index, count)
		}
		at, end := HeaderSize+p, len(v)
		if delta > 0 {
			v = append(v, seq[:delta]...) // room for the longer sequence
		}
		copy(v[at+n:], v[at+oldlen:end])
		copy(v[at:], seq[:n])
		v = v[:end+delta]
		s = v[HeaderSize:]
	}
	// Merge adjacent VAL opcodes of the same value, scanning up to five opcodes from the one
	// before the change.
	p = max(prev, 0)
	for scan := 5; p < len(s) && scan > 0; scan-- {
		switch {
		case isXZero(s[p]):
			p += 2
			continue
		case isZero(s[p]):
			p++
			continue
		}
		if p+1 < len(s) && isVal(s[p+1]) && valValue(s[p]) == valValue(s[p+1]) {
			if l := valLen(s[p]) + valLen(s[p+1]); l <= sparseValLen {
				s[p+1] = valOp(valValue(s[p]), l)
				copy(s[p:], s[p+1:])
				s = s[:len(s)-1]
				v = v[:len(v)-1]
				continue
			}
		}
		p++
	}
	Invalidate(v)
	return v, true, nil
}

// promote converts v to dense and sets register index to count there.
func promote(v []byte, index int, count uint8) ([]byte, bool, error) {
	d, err := ToDense(v)
	if err != nil {
		return nil, false, err
	}
	setDense(d[HeaderSize:], index, count)
	Invalidate(d)
	return d, true, nil
}

// Merge raises each of max's registers to v's register where v's is higher.
func Merge(max *[Registers]uint8, v []byte) error {
	switch v[4] {
	case Dense:
		r := v[HeaderSize:]
		for i := range max {
			if x := getDense(r, i); x > max[i] {
				max[i] = x
			}
		}
		return nil
	case Sparse:
		return eachRun(v[HeaderSize:], func(first, n int, val uint8) {
			for i := first; i < first+n; i++ {
				if val > max[i] {
					max[i] = val
				}
			}
		})
	}
	return ErrCorrupt
}

// Count estimates the cardinality of v from its registers, ignoring the cache.
func Count(v []byte) (uint64, error) {
	var histo [64]int
	switch v[4] {
	case Dense:
		r := v[HeaderSize:]
		for i := 0; i < Registers; i++ {
			histo[getDense(r, i)]++
		}
	case Sparse:
		err := eachRun(v[HeaderSize:], func(_, n int, val uint8) { histo[val] += n })
		if err != nil {
			return 0, err
		}
	default:
		return 0, ErrCorrupt
	}
	return estimate(&histo), nil
}

// CountRegisters estimates the cardinality of a set of registers given one byte each.
func CountRegisters(r *[Registers]uint8) uint64 {
	var histo [64]int
	for _, x := range r {
		histo[x&registerMax]++
	}
	return estimate(&histo)
}

// estimate is the improved estimator over the histogram of register values.
func estimate(histo *[64]int) uint64 {
	m := float64(Registers)
	z := m * tau((m-float64(histo[Q+1]))/m)
	for j := Q; j >= 1; j-- {
		z += float64(histo[j])
		z *= 0.5
	}
	z += m * sigma(float64(histo[0])/m)
	return uint64(math.Round(alphaInf * m * m / z)) // halves away from zero, as C's llround
}

func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zp := z
		z += x * y
		y += y
		if zp == z {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zp := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if zp == z {
			return z / 3
		}
	}
}

// Decode describes the opcodes of a sparse value as PFDEBUG DECODE does: "z:N" for ZERO,
// "Z:N" for XZERO and "v:VALUE,N" for VAL, separated by spaces.
func Decode(v []byte) string {
	s := v[HeaderSize:]
	out := make([]byte, 0, 8*len(s))
	for p := 0; p < len(s); {
		if len(out) > 0 {
			out = append(out, ' ')
		}
		switch {
		case isZero(s[p]):
			out = append(out, "z:"...)
			out = appendInt(out, zeroLen(s[p]))
			p++
		case isXZero(s[p]):
			var b1 byte
			if p+1 < len(s) {
				b1 = s[p+1]
			}
			out = append(out, "Z:"...)
			out = appendInt(out, xzeroLen(s[p], b1))
			p += 2
		default:
			out = append(out, "v:"...)
			out = appendInt(out, int(valValue(s[p])))
			out = append(out, ',')
			out = appendInt(out, valLen(s[p]))
			p++
		}
	}
	return string(out)
}

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}
