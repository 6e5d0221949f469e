package commands

import (
	"bytes"
	"strings"

	"github.com/strata-db/strata/internal/bitops"
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
