package commands

import (
	"math"
	"math/big"
	"strings"
	"time"
)

// ParseTimeout parses a blocking command's timeout in seconds as Redis 7.0 does: a long double
// (decimal or hex, "inf" accepted, NaN refused), multiplied by 1000 and rounded up to whole
// milliseconds. 0 means forever. It returns the error text to answer, or "".
func ParseTimeout(b []byte) (time.Duration, string) {
	if len(b) == 0 || len(b) >= 5*1024 {
		return 0, ErrTimeoutInvalid
	}
	s := string(b)
	body := s
	if s[0] == '+' || s[0] == '-' {
		body = s[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		// Redis casts inf*1000 to an integer, which yields LLONG_MIN: "negative".
		return 0, ErrTimeoutNegative
	}
	if body == "" || strings.ContainsAny(body, "_ \t\r\n\v\f") || !(body[0] >= '0' && body[0] <= '9' || body[0] == '.') {
		return 0, ErrTimeoutInvalid
	}
	if len(body) > 1 && body[0] == '0' && strings.ContainsRune("bBoO", rune(body[1])) {
		return 0, ErrTimeoutInvalid // strtold knows no 0b or 0o prefixes
	}
	// 64 mantissa bits: the x87 long double Redis parses into.
	f, _, err := big.ParseFloat(s, 0, 64, big.ToNearestEven)
	if err != nil || f.IsInf() {
		return 0, ErrTimeoutInvalid
	}
	if f.Sign() != 0 {
		// Outside the long double range strtold reports ERANGE, which Redis refuses.
		if e := f.MantExp(nil); e > 16384 || e < -16445 {
			return 0, ErrTimeoutInvalid
		}
	}
	ms := new(big.Float).SetPrec(64).Mul(f, big.NewFloat(1000))
	if ms.Cmp(big.NewFloat(math.Exp2(63))) >= 0 {
		return 0, ErrTimeoutNegative // the conversion overflows to LLONG_MIN in Redis
	}
	n, acc := ms.Int64()
	if acc == big.Below && ms.Sign() > 0 {
		n++ // ceil
	}
	if n < 0 {
		return 0, ErrTimeoutNegative
	}
	if n > 1<<42 { // over a century: as good as forever
		return 0, ""
	}
	return time.Duration(n) * time.Millisecond, ""
}

// blockTimeout parses argument i as a timeout, answering Redis's errors.
func blockTimeout(c *Ctx, i int) (time.Duration, bool) {
	d, msg := ParseTimeout(c.Args[i])
	if msg != "" {
		c.W.Error(msg)
		return 0, false
	}
	return d, true
}

// BLPOP, BRPOP key [key ...] timeout
func cmdBPop(c *Ctx) {
	timeout, ok := blockTimeout(c, len(c.Args)-1)
	if !ok {
		return
	}
	left := c.Cmd.Name[1] == 'l'
	keys := c.Args[1 : len(c.Args)-1]
	for _, k := range keys {
		vals, err := c.Txn.ListPop(k, left, 1)
		if err != nil {
			listFail(c, err)
			return
		}
		if vals != nil {
			c.Effect(popVerb(left), k)
			c.W.Array(2)
			c.W.Bulk(k)
			c.W.Bulk(vals[0])
			return
		}
	}
	if c.NonBlocking {
		c.W.NullArray()
		return
	}
	c.Block(keys, timeout)
}

// blockingMove is BLMOVE and BRPOPLPUSH once the arguments are parsed.
func blockingMove(c *Ctx, fromLeft, toLeft bool, timeout time.Duration) {
	m, err := c.Txn.ListMeta(c.Args[1])
	if err != nil {
		listFail(c, err)
		return
	}
	if m != nil {
		listMove(c, c.Args[1], c.Args[2], fromLeft, toLeft)
		if c.Cmd.Name == "brpoplpush" {
			c.Effect(verbRPopLPush, c.Args[1], c.Args[2])
		} else {
			c.Effect(verbLMove, c.Args[1], c.Args[2], c.Args[3], c.Args[4])
		}
		return
	}
	if c.NonBlocking {
		c.W.Null()
		return
	}
	c.Block(c.Args[1:2], timeout)
}

// BRPOPLPUSH source destination timeout
func cmdBRPopLPush(c *Ctx) {
	timeout, ok := blockTimeout(c, 3)
	if !ok {
		return
	}
	blockingMove(c, false, true, timeout)
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
func cmdBLMove(c *Ctx) {
	from, ok := listWhere(c, c.Args[3])
	if !ok {
		return
	}
	to, ok := listWhere(c, c.Args[4])
	if !ok {
		return
	}
	timeout, ok := blockTimeout(c, 5)
	if !ok {
		return
	}
	blockingMove(c, from, to, timeout)
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
func cmdBLMPop(c *Ctx) {
	a, ok := parseMPop(c, 2)
	if !ok {
		return
	}
	timeout, ok := blockTimeout(c, 1)
	if !ok {
		return
	}
	if mpopServe(c, a.keys, a.left, a.count) {
		return
	}
	if c.NonBlocking {
		c.W.NullArray()
		return
	}
	c.Block(a.keys, timeout)
}
