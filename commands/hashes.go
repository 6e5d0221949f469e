package commands

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// Hash command errors, byte for byte as Redis 7.0 sends them.
const (
	errHashNotInteger = "ERR hash value is not an integer"
	errHashNotFloat   = "ERR hash value is not a float"
	errIncrNaNOrInf   = "ERR value is NaN or Infinity"
	errRandCountRange = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	errValueRange     = "ERR value is out of range"
)

func init() {
	key1 := func(c *Command) *Command { c.FirstKey, c.LastKey, c.Step = 1, 1, 1; return c }
	register(
		key1(&Command{Name: "hset", Arity: -4, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdHSet}),
		key1(&Command{Name: "hmset", Arity: -4, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdHSet}),
		key1(&Command{Name: "hsetnx", Arity: 4, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdHSetNX}),
		key1(&Command{Name: "hget", Arity: 3, Flags: FlagReadonly | FlagFast, Handler: cmdHGet}),
		key1(&Command{Name: "hmget", Arity: -3, Flags: FlagReadonly | FlagFast, Handler: cmdHMGet}),
		key1(&Command{Name: "hgetall", Arity: 2, Flags: FlagReadonly, Handler: cmdHGetAll}),
		key1(&Command{Name: "hkeys", Arity: 2, Flags: FlagReadonly, Handler: cmdHGetAll}),
		key1(&Command{Name: "hvals", Arity: 2, Flags: FlagReadonly, Handler: cmdHGetAll}),
		key1(&Command{Name: "hdel", Arity: -3, Flags: FlagWrite | FlagFast, Handler: cmdHDel}),
		key1(&Command{Name: "hlen", Arity: 2, Flags: FlagReadonly | FlagFast, Handler: cmdHLen}),
		key1(&Command{Name: "hexists", Arity: 3, Flags: FlagReadonly | FlagFast, Handler: cmdHExists}),
		key1(&Command{Name: "hstrlen", Arity: 3, Flags: FlagReadonly | FlagFast, Handler: cmdHStrlen}),
		key1(&Command{Name: "hincrby", Arity: 4, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdHIncrBy}),
		key1(&Command{Name: "hincrbyfloat", Arity: 4, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdHIncrByFloat}),
		key1(&Command{Name: "hrandfield", Arity: -2, Flags: FlagReadonly, Handler: cmdHRandField}),
	)
}

// replyCounted writes an aggregate whose header announces n elements (header(n)), then the
// elements through body, which returns how many it wrote. Sizes come from metadata, so they
// should match; if they don't, the header is rewritten to the true count rather than sending a
// broken reply. A body error replaces the whole reply with the error.
func replyCounted(c *Ctx, n int, header func(int), body func() (int, error)) {
	start := c.W.Len()
	header(n)
	bodyStart := c.W.Len()
	got, err := body()
	if err != nil {
		c.W.Truncate(start)
		c.Fail(err)
		return
	}
	if got != n {
		elems := bytes.Clone(c.W.Bytes()[bodyStart:])
		c.W.Truncate(start)
		header(got)
		c.W.Raw(elems)
	}
}

func cmdHSet(c *Ctx) {
	if len(c.Args)%2 == 1 {
		c.W.Error(ArityError(c.Cmd.Name))
		return
	}
	n, err := c.Txn.HashSet(c.Args[1], c.Args[2:], false)
	switch {
	case err != nil:
		c.Fail(err)
	case c.Cmd.Name == "hmset":
		c.W.OK()
	default:
		c.W.Int(n)
	}
}

func cmdHSetNX(c *Ctx) {
	n, err := c.Txn.HashSet(c.Args[1], c.Args[2:4], true)
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(n)
}

func cmdHGet(c *Ctx) {
	v, ok, err := c.Txn.HashGet(c.Args[1], c.Args[2])
	switch {
	case err != nil:
		c.Fail(err)
	case !ok:
		c.W.Null()
	default:
		c.W.Bulk(v)
	}
}

func cmdHMGet(c *Ctx) {
	vals, err := c.Txn.HashGetMany(c.Args[1], c.Args[2:])
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Array(len(vals))
	for _, v := range vals {
		if v == nil {
			c.W.Null()
		} else {
			c.W.Bulk(v)
		}
	}
}

// cmdHGetAll serves HGETALL (a map), HKEYS and HVALS (arrays), each from one pass over the hash.
func cmdHGetAll(c *Ctx) {
	keys, vals := c.Cmd.Name != "hvals", c.Cmd.Name != "hkeys"
	header := c.W.Array
	if keys && vals {
		header = c.W.Map
	}
	m, ok := keyMeta(c, storage.TypeHash, func() { header(0) })
	if !ok {
		return
	}
	replyCounted(c, int(m.Size), header, func() (int, error) {
		n := 0
		err := c.Txn.HashEach(m, func(f, v []byte) bool {
			if keys {
				c.W.Bulk(f)
			}
			if vals {
				c.W.Bulk(v)
			}
			n++
			return true
		})
		return n, err
	})
}

func cmdHDel(c *Ctx) {
	n, err := c.Txn.HashDel(c.Args[1], c.Args[2:])
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(n)
}

func cmdHLen(c *Ctx) { replySize(c, storage.TypeHash) }

func cmdHExists(c *Ctx) {
	_, ok, err := c.Txn.HashGet(c.Args[1], c.Args[2])
	replyFlag(c, ok, err)
}

func cmdHStrlen(c *Ctx) {
	v, _, err := c.Txn.HashGet(c.Args[1], c.Args[2])
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(int64(len(v)))
}

func cmdHIncrBy(c *Ctx) {
	by, ok := c.Int(3)
	if !ok {
		return
	}
	key, field := c.Args[1], c.Args[2]
	v, found, err := c.Txn.HashGet(key, field)
	if err != nil {
		c.Fail(err)
		return
	}
	var cur int64
	if found {
		if cur, err = num.ParseInt(v); err != nil {
			c.W.Error(errHashNotInteger)
			return
		}
	}
	if by < 0 && cur < 0 && by < math.MinInt64-cur || by > 0 && cur > 0 && by > math.MaxInt64-cur {
		c.W.Error(ErrOverflow)
		return
	}
	cur += by
	var tmp [20]byte
	if _, err := c.Txn.HashSet(key, [][]byte{field, strconv.AppendInt(tmp[:0], cur, 10)}, false); err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(cur)
}

func cmdHIncrByFloat(c *Ctx) {
	incr, inf, ok := num.ParseHashLongDouble(c.Args[3])
	switch {
	case !ok:
		c.W.Error(ErrNotFloat)
		return
	case inf:
		c.W.Error(errIncrNaNOrInf)
		return
	}
	key, field := c.Args[1], c.Args[2]
	v, found, err := c.Txn.HashGet(key, field)
	if err != nil {
		c.Fail(err)
		return
	}
	cur := new(big.Float).SetPrec(num.LongDoublePrec)
	if found {
		f, inf, ok := num.ParseHashLongDouble(v)
		switch {
		case !ok:
			c.W.Error(errHashNotFloat)
			return
		case inf:
			c.W.Error(ErrIncrFloatNaN)
			return
		}
		cur = f
	}
	sum := new(big.Float).SetPrec(num.LongDoublePrec).Add(cur, incr)
	if sum.Sign() != 0 && sum.MantExp(nil) > num.LongDoubleMaxExp {
		c.W.Error(ErrIncrFloatNaN)
		return
	}
	s := num.FormatLongDouble(sum)
	if _, err := c.Txn.HashSet(key, [][]byte{field, []byte(s)}, false); err != nil {
		c.Fail(err)
		return
	}
	c.Effect(verbHSet, key, field, []byte(s))
	c.W.BulkString(s)
}

// randomPick looks up the collection of type typ at the command's key for a random pick of
// count l (HRANDFIELD, SRANDMEMBER): positive l asks for up to l distinct elements, negative l
// for -l elements that may repeat. It answers an empty array itself, or an error, and then
// returns ok false.
func randomPick(c *Ctx, typ storage.Type, l int64) (m *storage.Meta, count uint64, distinct, ok bool) {
	m, err := c.Txn.GetMetaOf(c.Args[1], typ)
	if err != nil {
		c.Fail(err)
		return nil, 0, false, false
	}
	if m == nil || l == 0 {
		c.W.Array(0)
		return nil, 0, false, false
	}
	distinct = l > 0
	count = uint64(l)
	if !distinct {
		count = uint64(-l)
	} else {
		count = min(count, m.Size)
	}
	return m, count, distinct, true
}

// parseRandCount parses the count of HRANDFIELD and SRANDMEMBER: any long except LONG_MIN.
func parseRandCount(c *Ctx, i int) (int64, bool) {
	n, ok := c.Int(i)
	if !ok {
		return 0, false
	}
	if n == math.MinInt64 {
		c.W.Error(errRandCountRange)
		return 0, false
	}
	return n, true
}

func cmdHRandField(c *Ctx) {
	if len(c.Args) == 2 {
		m, ok := keyMeta(c, storage.TypeHash, c.W.Null)
		if !ok {
			return
		}
		var field []byte
		if err := c.Txn.HashRandom(m, 1, true, func(f, _ []byte) { field = bytes.Clone(f) }); err != nil {
			c.Fail(err)
			return
		}
		if field == nil {
			c.W.Null()
			return
		}
		c.W.Bulk(field)
		return
	}
	l, ok := parseRandCount(c, 2)
	if !ok {
		return
	}
	withValues := false
	if len(c.Args) > 4 || len(c.Args) == 4 && !strings.EqualFold(c.Arg(3), "withvalues") {
		c.W.Error(ErrSyntax)
		return
	} else if len(c.Args) == 4 {
		withValues = true
		if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
			c.W.Error(errValueRange)
			return
		}
	}
	m, count, distinct, ok := randomPick(c, storage.TypeHash, l)
	if !ok {
		return
	}
	// RESP2 flattens field/value pairs; RESP3 nests each pair in an array of two.
	flat := withValues && c.W.Proto != 3
	header := func(n int) {
		if flat {
			c.W.Array(2 * n)
		} else {
			c.W.Array(n)
		}
	}
	draw := func(count uint64) (int, error) {
		n := 0
		err := c.Txn.HashRandom(m, count, distinct, func(f, v []byte) {
			if withValues && !flat {
				c.W.Array(2)
			}
			c.W.Bulk(f)
			if withValues {
				c.W.Bulk(v)
			}
			n++
		})
		return n, err
	}
	if !distinct {
		drawRepeated(c, count, header, draw) // bounds.go
		return
	}
	replyCounted(c, int(count), header, func() (int, error) { return draw(count) })
}
