package commands

import (
	"bytes"
	"strings"

	"github.com/strata-db/strata/internal/bitops"
	"github.com/strata-db/strata/internal/num"
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
	n, err := num.ParseInt(arg)
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
	on, err := num.ParseInt(c.Args[3])
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
	if off>>3 < uint64(len(cur)) && bitops.Get(cur, off) == int(on) {
		// Nothing changes: skip rewriting the string.
		c.W.Int(on)
		return
	}
	v := grownCopy(cur, off>>3)
	old := bitops.Get(v, off)
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
	c.W.Int(int64(bitops.Get(v, off)))
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
		from, to, nonEmpty = bitops.Range(n, start, end, isBit)
	default:
		c.W.Error(ErrSyntax)
		return
	}
	if !nonEmpty {
		c.W.Int(0)
		return
	}
	c.W.Int(bitops.Count(v, from, to))
}

func cmdBitPos(c *Ctx) {
	bit, err := num.ParseInt(c.Args[2])
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
		from, to, nonEmpty = bitops.Range(n, start, end, isBit)
	default:
		c.W.Error(ErrSyntax)
		return
	}
	if !nonEmpty {
		c.W.Int(-1)
		return
	}
	pos := bitops.Find(v, from, to, int(bit))
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
	n, err := num.ParseInt(arg[1:])
	if err != nil || n < 1 || signed && n > 64 || !signed && n > 63 {
		return false, 0, false
	}
	return signed, int(n), true
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
	ow := bitops.Wrap
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
				ow = bitops.Wrap
			case "sat":
				ow = bitops.Sat
			case "fail":
				ow = bitops.Fail
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
			c.W.Int(bitops.GetPadded(v, o.off, o.width, o.signed))
		case o.signed:
			old := bitops.GetSigned(v, o.off, o.width)
			var nv, wrapped, ret int64
			var overflow int
			if o.op == 'i' {
				overflow = bitops.CheckSignedOverflow(old, o.arg, o.width, o.ow, &wrapped)
				nv = old + o.arg
				if overflow != 0 {
					nv = wrapped
				}
				ret = nv
			} else {
				nv = o.arg
				if overflow = bitops.CheckSignedOverflow(nv, 0, o.width, o.ow, &wrapped); overflow != 0 {
					nv = wrapped
				}
				ret = old
			}
			if overflow != 0 && o.ow == bitops.Fail {
				c.W.Null()
				continue
			}
			bitops.SetSigned(v, o.off, o.width, nv)
			c.W.Int(ret)
		default:
			old := bitops.GetUnsigned(v, o.off, o.width)
			var nv, wrapped, ret uint64
			var overflow int
			if o.op == 'i' {
				nv = old + uint64(o.arg)
				if overflow = bitops.CheckUnsignedOverflow(old, o.arg, o.width, o.ow, &wrapped); overflow != 0 {
					nv = wrapped
				}
				ret = nv
			} else {
				nv = uint64(o.arg)
				if overflow = bitops.CheckUnsignedOverflow(nv, 0, o.width, o.ow, &wrapped); overflow != 0 {
					nv = wrapped
				}
				ret = old
			}
			if overflow != 0 && o.ow == bitops.Fail {
				c.W.Null()
				continue
			}
			bitops.SetUnsigned(v, o.off, o.width, nv)
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
