package commands

import (
	"math"
	"math/big"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

func cmdIncr(c *Ctx) {
	var by int64 = 1
	switch c.Cmd.Name {
	case "decr":
		by = -1
	case "incrby", "decrby":
		n, ok := c.Int(2)
		if !ok {
			return
		}
		if c.Cmd.Name == "decrby" {
			if n == math.MinInt64 {
				c.W.Error("ERR decrement would overflow")
				return
			}
			n = -n
		}
		by = n
	}
	m, err := c.Txn.PeekMeta(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	var cur, at int64
	if m != nil {
		if m.Type != storage.TypeString {
			c.W.Error(ErrWrongType)
			return
		}
		v, err := c.Txn.StringValue(m)
		if err != nil {
			c.Fail(err)
			return
		}
		if cur, err = num.ParseInt(v); err != nil {
			c.W.Error(ErrNotInteger)
			return
		}
		at = m.Expire
	}
	if by > 0 && cur > math.MaxInt64-by || by < 0 && cur < math.MinInt64-by {
		c.W.Error(ErrOverflow)
		return
	}
	cur += by
	if err := c.Txn.SetInt(c.Args[1], cur, at); err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(cur)
}

func cmdIncrByFloat(c *Ctx) {
	// Redis checks the key's type, then the current value, then the increment.
	m, err := c.Txn.GetMeta(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	if m != nil && m.Type != storage.TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	cur := new(big.Float).SetPrec(num.LongDoublePrec)
	var at int64
	if m != nil {
		raw, err := c.Txn.StringValue(m)
		if err != nil {
			c.Fail(err)
			return
		}
		v, ok := num.ParseLongDouble(raw)
		if !ok {
			c.W.Error(ErrNotFloat)
			return
		}
		cur, at = v, m.Expire
	}
	incr, ok := num.ParseLongDouble(c.Args[2])
	if !ok {
		c.W.Error(ErrNotFloat)
		return
	}
	if cur.IsInf() || incr.IsInf() {
		c.W.Error(ErrIncrFloatNaN)
		return
	}
	sum := new(big.Float).SetPrec(num.LongDoublePrec).Add(cur, incr)
	if sum.MantExp(nil) > 16384 {
		c.W.Error(ErrIncrFloatNaN)
		return
	}
	s := num.FormatLongDouble(sum)
	if err := c.Txn.SetString(c.Args[1], []byte(s), at); err != nil {
		c.Fail(err)
		return
	}
	c.Effect(verbSet, c.Args[1], []byte(s), wordKeepTTL)
	c.W.BulkString(s)
}
