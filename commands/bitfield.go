package commands

import (
	"bytes"
	"math"
	"strings"
)

// parseBitfieldType parses a BITFIELD type: i1..i64 or u1..u63.
func parseBitfieldType(arg []byte) (signed bool, width int, ok bool) {
	// Redis reads the type as a C string: it ends at the first NUL.
	if i := strings.IndexByte(string(arg), 0); i >= 0 {
		arg = arg[:i]
	}
	if len(arg) == 0 || arg[0] != 'i' && arg[0] != 'u' {
		return false, 0, false
	}
	signed = arg[0] == 'i'
	n, err := ParseInt(arg[1:])
	if err != nil || n < 1 || signed && n > 64 || !signed && n > 63 {
		return false, 0, false
	}
	return signed, int(n), true
}

// getUnsignedBitfield reads width bits at bit offset off, most significant first. p must hold
// them all.
func getUnsignedBitfield(p []byte, off uint64, width int) uint64 {
	var v uint64
	for j := 0; j < width; j++ {
		v = v<<1 | uint64(p[off>>3]>>(7-off&7))&1
		off++
	}
	return v
}

// getSignedBitfield reads width bits at bit offset off as a two's complement integer.
func getSignedBitfield(p []byte, off uint64, width int) int64 {
	v := getUnsignedBitfield(p, off, width)
	if width < 64 && v&(1<<(width-1)) != 0 {
		v |= math.MaxUint64 << width
	}
	return int64(v)
}

// setUnsignedBitfield writes the low width bits of v at bit offset off, most significant first.
// p must hold them all.
func setUnsignedBitfield(p []byte, off uint64, width int, v uint64) {
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

// setSignedBitfield writes v as a width-bit two's complement integer at bit offset off.
func setSignedBitfield(p []byte, off uint64, width int, v int64) {
	setUnsignedBitfield(p, off, width, uint64(v))
}

// getBitfieldPadded reads a field as BITFIELD GET does: bits past the end of p are zero. An
// unsigned field (at most 63 bits) always fits the int64 result.
func getBitfieldPadded(p []byte, off uint64, width int, signed bool) int64 {
	var buf [9]byte
	b := off >> 3
	if b < uint64(len(p)) {
		copy(buf[:], p[b:])
	}
	if signed {
		return getSignedBitfield(buf[:], off-b*8, width)
	}
	return int64(getUnsignedBitfield(buf[:], off-b*8, width))
}

// checkUnsignedOverflow reports whether value+incr overflows a width-bit unsigned field: 1 above
// the maximum, -1 below zero, 0 not at all. On overflow *limit receives the wrapped or saturated
// value (for WRAP and SAT). It follows Redis's checkUnsignedBitfieldOverflow, quirks included:
// a value that is already out of range (SET u8 with -1) counts as an overflow upwards.
func checkUnsignedOverflow(value uint64, incr int64, width int, ow int, limit *uint64) int {
	max := uint64(1)<<width - 1
	if width == 64 {
		max = math.MaxUint64
	}
	maxincr := int64(max - value)
	minincr := -int64(value)
	if value > max || incr > 0 && incr > maxincr {
		switch ow {
		case overflowWrap:
			*limit = (value + uint64(incr)) &^ (math.MaxUint64 << width)
		case overflowSat:
			*limit = max
		}
		return 1
	}
	if incr < 0 && incr < minincr {
		switch ow {
		case overflowWrap:
			*limit = (value + uint64(incr)) &^ (math.MaxUint64 << width)
		case overflowSat:
			*limit = 0
		}
		return -1
	}
	return 0
}

// checkSignedOverflow is checkUnsignedOverflow for width-bit two's complement fields, following
// Redis's checkSignedBitfieldOverflow (including its wrapping intermediate arithmetic).
func checkSignedOverflow(value, incr int64, width int, ow int, limit *int64) int {
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
		case overflowWrap:
			wrap()
		case overflowSat:
			*limit = max
		}
		return 1
	}
	if value < min || width != 64 && incr < minincr || value < 0 && incr < 0 && incr < minincr {
		switch ow {
		case overflowWrap:
			wrap()
		case overflowSat:
			*limit = min
		}
		return -1
	}
	return 0
}

// bitfieldOp is one parsed GET, SET or INCRBY of BITFIELD.
type bitfieldOp struct {
	op     byte // 'g', 's' or 'i'
	signed bool
	width  int
	off    uint64
	arg    int64 // SET value or INCRBY increment
	ow     int
}

func cmdBitField(c *Ctx) {
	var ops []bitfieldOp
	ow := overflowWrap
	readonly := true
	var highest uint64 // highest bit written
	for j := 2; j < len(c.Args); j++ {
		rem := len(c.Args) - j - 1
		var op byte
		switch sub := strings.ToLower(c.Arg(j)); {
		case sub == "get" && rem >= 2:
			op = 'g'
		case sub == "set" && rem >= 3:
			op = 's'
		case sub == "incrby" && rem >= 3:
			op = 'i'
		case sub == "overflow" && rem >= 1:
			j++
			switch strings.ToLower(c.Arg(j)) {
			case "wrap":
				ow = overflowWrap
			case "sat":
				ow = overflowSat
			case "fail":
				ow = overflowFail
			default:
				c.W.Error(ErrBitfieldOvfType)
				return
			}
			continue
		default:
			c.W.Error(ErrSyntax)
			return
		}
		signed, width, ok := parseBitfieldType(c.Args[j+1])
		if !ok {
			c.W.Error(ErrBitfieldType)
			return
		}
		off, ok := parseBitOffset(c.Args[j+2], true, width, stringLimit(c))
		if !ok {
			c.W.Error(ErrBitOffset)
			return
		}
		o := bitfieldOp{op: op, signed: signed, width: width, off: off, ow: ow}
		if op != 'g' {
			readonly = false
			highest = max(highest, off+uint64(width)-1)
			if o.arg, ok = c.Int(j + 3); !ok {
				return
			}
			j++
		}
		ops = append(ops, o)
		j += 2
	}

	var v, cur []byte
	var at int64
	exists := false
	if readonly {
		var err error
		if v, _, err = c.Txn.GetString(c.Args[1]); err != nil {
			c.Fail(err)
			return
		}
	} else {
		if c.Cmd.Name == "bitfield_ro" {
			c.W.Error(ErrBitfieldRO)
			return
		}
		m, ok := stringMeta(c, c.Args[1])
		if !ok {
			return
		}
		if m != nil {
			var err error
			if cur, err = c.Txn.StringValue(m); err != nil {
				c.Fail(err)
				return
			}
			at, exists = m.Expire, true
		}
		v = grownCopy(cur, highest>>3)
	}

	start := c.W.Len()
	c.W.Array(len(ops))
	for _, o := range ops {
		switch {
		case o.op == 'g':
			c.W.Int(getBitfieldPadded(v, o.off, o.width, o.signed))
		case o.signed:
			old := getSignedBitfield(v, o.off, o.width)
			var nv, wrapped, ret int64
			var overflow int
			if o.op == 'i' {
				overflow = checkSignedOverflow(old, o.arg, o.width, o.ow, &wrapped)
				nv = old + o.arg
				if overflow != 0 {
					nv = wrapped
				}
				ret = nv
			} else {
				nv = o.arg
				if overflow = checkSignedOverflow(nv, 0, o.width, o.ow, &wrapped); overflow != 0 {
					nv = wrapped
				}
				ret = old
			}
			if overflow != 0 && o.ow == overflowFail {
				c.W.Null()
				continue
			}
			setSignedBitfield(v, o.off, o.width, nv)
			c.W.Int(ret)
		default:
			old := getUnsignedBitfield(v, o.off, o.width)
			var nv, wrapped, ret uint64
			var overflow int
			if o.op == 'i' {
				nv = old + uint64(o.arg)
				if overflow = checkUnsignedOverflow(old, o.arg, o.width, o.ow, &wrapped); overflow != 0 {
					nv = wrapped
				}
				ret = nv
			} else {
				nv = uint64(o.arg)
				if overflow = checkUnsignedOverflow(nv, 0, o.width, o.ow, &wrapped); overflow != 0 {
					nv = wrapped
				}
				ret = old
			}
			if overflow != 0 && o.ow == overflowFail {
				c.W.Null()
				continue
			}
			setUnsignedBitfield(v, o.off, o.width, nv)
			c.W.Int(int64(ret))
		}
	}
	if !readonly && !(exists && bytes.Equal(v, cur)) {
		// Written only when the key is created, grown or changed: SET of the bits already
		// there changes nothing, emits no event and touches no WATCH.
		if err := c.Txn.SetString(c.Args[1], v, at); err != nil {
			c.W.Truncate(start)
			c.Fail(err)
		}
	}
}
