package commands

import (
	"math"
	"math/big"
	"strconv"
	"strings"

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
	m, err := c.Txn.GetMeta(c.Args[1])
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
		if cur, err = ParseInt(v); err != nil {
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
	var tmp [20]byte
	if err := c.Txn.SetString(c.Args[1], strconv.AppendInt(tmp[:0], cur, 10), at); err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(cur)
}

// parseLongDouble parses b as Redis's string2ld (strtold) does: decimal or hexadecimal
// ("0x1p3"), "inf", no surrounding spaces.
func parseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) > 5000 || b[0] == ' ' || b[len(b)-1] == ' ' || strings.ContainsAny(string(b), "_oObB") {
		return nil, false
	}
	s := string(b)
	base := 10
	if u := strings.TrimLeft(s, "+-"); len(u) > 1 && u[0] == '0' && (u[1] == 'x' || u[1] == 'X') {
		base = 0
	} else if strings.ContainsAny(s, "xXpP") {
		return nil, false
	}
	f, _, err := big.ParseFloat(s, base, longDoublePrec, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	return f, true
}

// formatLongDouble formats f as Redis's ld2string in human mode: "%.17Lf" without trailing zeros.
func formatLongDouble(f *big.Float) string {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
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
	cur := new(big.Float).SetPrec(longDoublePrec)
	var at int64
	if m != nil {
		raw, err := c.Txn.StringValue(m)
		if err != nil {
			c.Fail(err)
			return
		}
		v, ok := parseLongDouble(raw)
		if !ok {
			c.W.Error(ErrNotFloat)
			return
		}
		cur, at = v, m.Expire
	}
	incr, ok := parseLongDouble(c.Args[2])
	if !ok {
		c.W.Error(ErrNotFloat)
		return
	}
	if cur.IsInf() || incr.IsInf() {
		c.W.Error(ErrIncrFloatNaN)
		return
	}
	sum := new(big.Float).SetPrec(longDoublePrec).Add(cur, incr)
	if sum.MantExp(nil) > 16384 {
		c.W.Error(ErrIncrFloatNaN)
		return
	}
	s := formatLongDouble(sum)
	if err := c.Txn.SetString(c.Args[1], []byte(s), at); err != nil {
		c.Fail(err)
		return
	}
	c.W.BulkString(s)
}
