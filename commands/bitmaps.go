package commands

import (
	"encoding/binary"
	"math/bits"
	"strings"

	"github.com/strata-db/strata/storage"
)

// Error replies of the bitmap family, byte for byte as Redis 7.0 sends them.
const (
	ErrBitPosArg       = "ERR The bit argument must be 1 or 0."
	ErrBitopNot        = "ERR BITOP NOT must be called with a single source key."
	ErrBitfieldType    = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	ErrBitfieldOvfType = "ERR Invalid OVERFLOW type specified"
	ErrBitfieldRO      = "ERR BITFIELD_RO only supports the GET subcommand"
)

func init() {
	register(
		&Command{Name: "setbit", Arity: 4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdSetBit},
		&Command{Name: "getbit", Arity: 3, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGetBit},
		&Command{Name: "bitcount", Arity: -2, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdBitCount},
		&Command{Name: "bitpos", Arity: -3, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdBitPos},
		&Command{Name: "bitop", Arity: -4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 2, LastKey: -1, Step: 1, Handler: cmdBitOp},
		&Command{Name: "bitfield", Arity: -2, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdBitField},
		&Command{Name: "bitfield_ro", Arity: -2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdBitField},
	)
}

// parseBitOffset parses a bit offset as Redis's getBitOffsetFromArgument does. With hash set and
// width > 0, "#N" means N*width. Offsets past the last bit of a string of limit bytes
// (proto-max-bulk-len, see stringLimit) are refused.
func parseBitOffset(arg []byte, hash bool, width int, limit int64) (uint64, bool) {
	usehash := hash && width > 0 && len(arg) > 0 && arg[0] == '#'
	if usehash {
		arg = arg[1:]
	}
	n, err := ParseInt(arg)
	if err != nil {
		return 0, false
	}
	if usehash {
		n *= int64(width) // wraps like Redis's C multiplication; a wrapped value fails below
	}
	if n < 0 || n>>3 >= limit {
		return 0, false
	}
	return uint64(n), true
}

// getBit returns bit off of p (0 for bits past the end). Bit 0 is the most significant bit of p[0].
func getBit(p []byte, off uint64) int {
	b := off >> 3
	if b >= uint64(len(p)) {
		return 0
	}
	return int(p[b]>>(7-off&7)) & 1
}

// BITFIELD overflow behaviours.
const (
	overflowWrap = iota
	overflowSat
	overflowFail
)

// countBits returns the number of set bits of p between bit positions from and to, inclusive.
// The positions must lie inside p and from <= to.
func countBits(p []byte, from, to int64) int64 {
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

// findBit returns the position of the first bit equal to bit in p between bit positions from
// and to, inclusive, or -1 if there is none. The positions must lie inside p and from <= to.
func findBit(p []byte, from, to int64, bit int) int64 {
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

// bitRange turns Redis's start/end arguments into an inclusive range of bit positions over a
// string of n bytes, as BITCOUNT and BITPOS do: negative values count from the end, the range is
// clamped to the string, and isBit selects bit rather than byte units. ok is false for an empty
// range.
func bitRange(n, start, end int64, isBit bool) (from, to int64, ok bool) {
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

// parseBitUnit parses the BYTE|BIT argument of BITCOUNT and BITPOS.
func parseBitUnit(arg []byte) (isBit, ok bool) {
	switch strings.ToLower(string(arg)) {
	case "bit":
		return true, true
	case "byte":
		return false, true
	}
	return false, false
}

// stringMeta returns key's metadata (nil when it does not exist), replying WRONGTYPE and
// returning false when it holds another type.
func stringMeta(c *Ctx, key []byte) (*storage.Meta, bool) {
	m, err := c.Txn.GetMeta(key)
	if err != nil {
		c.Fail(err)
		return nil, false
	}
	if m != nil && m.Type != storage.TypeString {
		c.W.Error(ErrWrongType)
		return nil, false
	}
	return m, true
}

// grownCopy returns a copy of cur zero-padded to at least lastByte+1 bytes, for writing bits up
// to byte index lastByte.
func grownCopy(cur []byte, lastByte uint64) []byte {
	v := make([]byte, max(uint64(len(cur)), lastByte+1))
	copy(v, cur)
	return v
}

func cmdSetBit(c *Ctx) {
	off, ok := parseBitOffset(c.Args[2], false, 0, stringLimit(c))
	if !ok {
		c.W.Error(ErrBitOffset)
		return
	}
	on, err := ParseInt(c.Args[3])
	if err != nil || on&^1 != 0 {
		c.W.Error(ErrBitValue)
		return
	}
	m, ok := stringMeta(c, c.Args[1])
	if !ok {
		return
	}
	var cur []byte
	var at int64
	if m != nil {
		if cur, err = c.Txn.StringValue(m); err != nil {
			c.Fail(err)
			return
		}
		at = m.Expire
	}
	if off>>3 < uint64(len(cur)) && getBit(cur, off) == int(on) {
		// Nothing changes: skip rewriting the string.
		c.W.Int(on)
		return
	}
	v := grownCopy(cur, off>>3)
	old := getBit(v, off)
	if on == 1 {
		v[off>>3] |= 1 << (7 - off&7)
	} else {
		v[off>>3] &^= 1 << (7 - off&7)
	}
	if err := c.Txn.SetString(c.Args[1], v, at); err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(int64(old))
}

func cmdGetBit(c *Ctx) {
	off, ok := parseBitOffset(c.Args[2], false, 0, stringLimit(c))
	if !ok {
		c.W.Error(ErrBitOffset)
		return
	}
	v, _, err := c.Txn.GetString(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(int64(getBit(v, off)))
}

func cmdBitCount(c *Ctx) {
	// Redis 7.0 looks the key up before it parses the range: a missing key answers 0 whatever
	// the arguments.
	v, exists, err := c.Txn.GetString(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	if !exists {
		c.W.Int(0)
		return
	}
	n := int64(len(v))
	from, to, nonEmpty := int64(0), n*8-1, n > 0
	switch len(c.Args) {
	case 2:
	case 4, 5:
		start, ok := c.Int(2)
		if !ok {
			return
		}
		end, ok := c.Int(3)
		if !ok {
			return
		}
		isBit := false
		if len(c.Args) == 5 {
			if isBit, ok = parseBitUnit(c.Args[4]); !ok {
				c.W.Error(ErrSyntax)
				return
			}
		}
		if start < 0 && end < 0 && start > end {
			c.W.Int(0)
			return
		}
		from, to, nonEmpty = bitRange(n, start, end, isBit)
	default:
		c.W.Error(ErrSyntax)
		return
	}
	if !nonEmpty {
		c.W.Int(0)
		return
	}
	c.W.Int(countBits(v, from, to))
}

func cmdBitPos(c *Ctx) {
	bit, err := ParseInt(c.Args[2])
	if err != nil {
		c.W.Error(ErrNotInteger)
		return
	}
	if bit != 0 && bit != 1 {
		c.W.Error(ErrBitPosArg)
		return
	}
	v, exists, err := c.Txn.GetString(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	if !exists {
		// A missing key is an endless run of zero bits.
		c.W.Int(-bit)
		return
	}
	n := int64(len(v))
	from, to, nonEmpty := int64(0), n*8-1, n > 0
	endGiven := false
	switch len(c.Args) {
	case 3:
	case 4, 5, 6:
		start, ok := c.Int(3)
		if !ok {
			return
		}
		isBit := false
		if len(c.Args) == 6 {
			if isBit, ok = parseBitUnit(c.Args[5]); !ok {
				c.W.Error(ErrSyntax)
				return
			}
		}
		end := n - 1
		if len(c.Args) >= 5 {
			if end, ok = c.Int(4); !ok {
				return
			}
			endGiven = true
		}
		from, to, nonEmpty = bitRange(n, start, end, isBit)
	default:
		c.W.Error(ErrSyntax)
		return
	}
	if !nonEmpty {
		c.W.Int(-1)
		return
	}
	pos := findBit(v, from, to, int(bit))
	if pos < 0 && bit == 0 && !endGiven {
		// Looking for a clear bit in a run of ones with no end given: the string is taken as
		// padded with zeros on the right, so the answer is the first bit after the range.
		pos = to + 1
	}
	c.W.Int(pos)
}

// BITOP operations.
const (
	bitopAnd = iota
	bitopOr
	bitopXor
	bitopNot
)

func cmdBitOp(c *Ctx) {
	var op int
	switch strings.ToLower(c.Arg(1)) {
	case "and":
		op = bitopAnd
	case "or":
		op = bitopOr
	case "xor":
		op = bitopXor
	case "not":
		op = bitopNot
	default:
		c.W.Error(ErrSyntax)
		return
	}
	if op == bitopNot && len(c.Args) != 4 {
		c.W.Error(ErrBitopNot)
		return
	}
	srcs := make([][]byte, len(c.Args)-3)
	maxLen := 0
	for i, k := range c.Args[3:] {
		v, _, err := c.Txn.GetString(k)
		if err != nil {
			c.Fail(err)
			return
		}
		srcs[i] = v
		maxLen = max(maxLen, len(v))
	}
	dest := c.Args[2]
	if maxLen == 0 {
		if _, err := c.Txn.Delete(dest); err != nil {
			c.Fail(err)
			return
		}
		c.W.Int(0)
		return
	}
	res := make([]byte, maxLen)
	if op == bitopNot {
		for i, b := range srcs[0] {
			res[i] = ^b
		}
	} else {
		// Missing bytes of shorter strings count as zeros.
		copy(res, srcs[0])
		for _, s := range srcs[1:] {
			switch op {
			case bitopAnd:
				for i := range res {
					if i < len(s) {
						res[i] &= s[i]
					} else {
						res[i] = 0
					}
				}
			case bitopOr:
				for i, b := range s {
					res[i] |= b
				}
			case bitopXor:
				for i, b := range s {
					res[i] ^= b
				}
			}
		}
	}
	if err := c.Txn.SetString(dest, res, 0); err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(int64(maxLen))
}
