package commands

import (
	"math"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// Sorted-set command errors, byte for byte as Redis 7.0 sends them.
const (
	errZAddXXNX       = "ERR XX and NX options at the same time are not compatible"
	errZAddGTLTNX     = "ERR GT, LT, and/or NX options at the same time are not compatible"
	errZAddIncrPair   = "ERR INCR option supports a single increment-element pair"
	errZScoreNaN      = "ERR resulting score is not a number (NaN)"
	errZMinMaxFloat   = "ERR min or max is not a float"
	errZMinMaxLex     = "ERR min or max not valid string range item"
	errZWeightFloat   = "ERR weight value is not a float"
	errZLimitRank     = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	errZWithScoresLex = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	errZNumKeys       = "ERR numkeys should be greater than 0"
	errZCount         = "ERR count should be greater than 0"
	errZLimitNegative = "ERR LIMIT can't be negative"
	errZInputKey      = "ERR at least 1 input key is needed for '%s' command"
	errZRandRange     = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
)

func init() {
	key1 := func(c *Command) *Command { c.FirstKey, c.LastKey, c.Step = 1, 1, 1; return c }
	register(
		key1(&Command{Name: "zadd", Arity: -4, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdZAdd}),
		key1(&Command{Name: "zincrby", Arity: 4, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdZIncrBy}),
		key1(&Command{Name: "zscore", Arity: 3, Flags: FlagReadonly | FlagFast, Handler: cmdZScore}),
		key1(&Command{Name: "zmscore", Arity: -3, Flags: FlagReadonly | FlagFast, Handler: cmdZMScore}),
		key1(&Command{Name: "zcard", Arity: 2, Flags: FlagReadonly | FlagFast, Handler: cmdZCard}),
		key1(&Command{Name: "zrem", Arity: -3, Flags: FlagWrite | FlagFast, Handler: cmdZRem}),
		key1(&Command{Name: "zrank", Arity: 3, Flags: FlagReadonly | FlagFast, Handler: cmdZRank}),
		key1(&Command{Name: "zrevrank", Arity: 3, Flags: FlagReadonly | FlagFast, Handler: cmdZRank}),
		key1(&Command{Name: "zpopmin", Arity: -2, Flags: FlagWrite | FlagFast, Handler: cmdZPop}),
		key1(&Command{Name: "zpopmax", Arity: -2, Flags: FlagWrite | FlagFast, Handler: cmdZPop}),
		key1(&Command{Name: "zrandmember", Arity: -2, Flags: FlagReadonly, Handler: cmdZRandMember}),
		&Command{Name: "zmpop", Arity: -4, Flags: FlagWrite, Keys: zNumKeysAt(1), Handler: cmdZMPop},
	)
}

// zNumKeysAt returns a Keys function for commands whose argument i is a key count followed by
// that many keys. A malformed count gives the keys that are there; the handler reports the error.
func zNumKeysAt(i int) func(args [][]byte) [][]byte {
	return func(args [][]byte) [][]byte {
		if i >= len(args) {
			return nil
		}
		n, err := num.ParseInt(args[i])
		if err != nil || n < 1 {
			return nil
		}
		n = min(n, int64(len(args)-i-1))
		return args[i+1 : i+1+int(n)]
	}
}

// ----------------------------------------------------------------------------- replies

// zWriteEntry writes one member, with its score when withScores is set: flat in RESP2, a
// [member, score] pair in RESP3, as Redis 7.0 replies to ZRANGE WITHSCORES.
func zWriteEntry(w *resp.Writer, member []byte, score float64, withScores bool) {
	if withScores && w.Proto == 3 {
		w.Array(2)
	}
	w.Bulk(member)
	if withScores {
		w.Double(score)
	}
}

// zArrayLen returns the array length of n entries in a ZRANGE-style reply.
func zArrayLen(w *resp.Writer, n int, withScores bool) int {
	if withScores && w.Proto != 3 {
		return 2 * n
	}
	return n
}

// zWriteEntries writes entries as an array in ZRANGE's shape.
func zWriteEntries(w *resp.Writer, es []storage.ZEntry, withScores bool) {
	w.Array(zArrayLen(w, len(es), withScores))
	for _, e := range es {
		zWriteEntry(w, e.Member, e.Score, withScores)
	}
}

// zDeferred streams entries after an array header whose length is only known at the end.
type zDeferred struct {
	w          *resp.Writer
	start, n   int
	withScores bool
}

func zBeginDeferred(w *resp.Writer, withScores bool) *zDeferred {
	return &zDeferred{w: w, start: w.Len(), withScores: withScores}
}

func (d *zDeferred) emit(member []byte, score float64) bool {
	zWriteEntry(d.w, member, score, d.withScores)
	d.n++
	return true
}

func (d *zDeferred) finish() {
	body := append([]byte(nil), d.w.Bytes()[d.start:]...)
	d.w.Truncate(d.start)
	d.w.Array(zArrayLen(d.w, d.n, d.withScores))
	d.w.Raw(body)
}

// ------------------------------------------------------------------------------ ZADD

func cmdZAdd(c *Ctx)    { zaddGeneric(c, false) }
func cmdZIncrBy(c *Ctx) { zaddGeneric(c, true) }
func cmdZCard(c *Ctx)   { zWithSet(c, 1, func(z *storage.ZSet) { c.W.Int(z.Len()) }) }
func cmdZScore(c *Ctx)  { zscoreReply(c, false) }
func cmdZMScore(c *Ctx) { zscoreReply(c, true) }
func zOpen(c *Ctx, i int) (*storage.ZSet, bool) {
	z, err := c.Txn.ZSet(c.Args[i])
	if err != nil {
		c.Fail(err)
		return nil, false
	}
	return z, true
}

// zWithSet opens the sorted set at argument i and runs fn, replying WRONGTYPE for another type.
func zWithSet(c *Ctx, i int, fn func(z *storage.ZSet)) {
	if z, ok := zOpen(c, i); ok {
		fn(z)
	}
}

// zSave stages z's metadata, replying with the error if that fails.
func zSave(c *Ctx, z *storage.ZSet) bool {
	if err := z.Save(); err != nil {
		c.Fail(err)
		return false
	}
	return true
}

// zaddGeneric implements ZADD and ZINCRBY as Redis's zaddGenericCommand does: options, then
// every score, then the key; ZINCRBY is ZADD with INCR forced on.
func zaddGeneric(c *Ctx, incr bool) {
	var nx, xx, gt, lt, ch bool
	i := 2
opts:
	for ; i < len(c.Args); i++ {
		switch a := c.Args[i]; {
		case zfold(a, "nx"):
			nx = true
		case zfold(a, "xx"):
			xx = true
		case zfold(a, "ch"):
			ch = true
		case zfold(a, "incr"):
			incr = true
		case zfold(a, "gt"):
			gt = true
		case zfold(a, "lt"):
			lt = true
		default:
			break opts
		}
	}
	n := len(c.Args) - i
	if n == 0 || n%2 != 0 {
		c.W.Error(ErrSyntax)
		return
	}
	n /= 2
	switch {
	case nx && xx:
		c.W.Error(errZAddXXNX)
		return
	case gt && nx || lt && nx || gt && lt:
		c.W.Error(errZAddGTLTNX)
		return
	case incr && n > 1:
		c.W.Error(errZAddIncrPair)
		return
	}
	scores := make([]float64, n)
	for j := range scores {
		f, ok := zParseScore(c.Args[i+2*j])
		if !ok {
			c.W.Error(ErrNotFloat)
			return
		}
		scores[j] = f
	}
	z, ok := zOpen(c, 1)
	if !ok {
		return
	}
	var added, updated, processed int64
	var score float64
	if z.Exists() || !xx {
		for j, s := range scores {
			member := c.Args[i+2*j+1]
			cur, had, err := z.Score(member)
			if err != nil {
				c.Fail(err)
				return
			}
			if had {
				if nx {
					continue
				}
				if incr {
					s += cur
					if math.IsNaN(s) {
						c.W.Error(errZScoreNaN)
						return
					}
				}
				if lt && s >= cur || gt && s <= cur {
					continue
				}
				if s != cur {
					updated++
				}
			} else if xx {
				continue
			} else {
				added++
			}
			processed++
			score = s
			if err := z.Put(member, s, cur, had); err != nil {
				c.Fail(err)
				return
			}
		}
		if !zSave(c, z) {
			return
		}
		if added > 0 {
			c.Signal(c.Args[1]) // wakes clients blocked on the key (BZPOPMIN, BZMPOP)
		}
	}
	switch {
	case !incr && ch:
		c.W.Int(added + updated)
	case !incr:
		c.W.Int(added)
	case processed > 0:
		c.W.Double(score)
	default:
		c.W.Null()
	}
}

func zscoreReply(c *Ctx, multi bool) {
	z, ok := zOpen(c, 1)
	if !ok {
		return
	}
	if multi {
		c.W.Array(len(c.Args) - 2)
	}
	for _, member := range c.Args[2:] {
		s, ok, err := z.Score(member)
		if err != nil {
			c.Fail(err)
			return
		}
		if ok {
			c.W.Double(s)
		} else {
			c.W.Null()
		}
	}
}

func cmdZRem(c *Ctx) {
	z, ok := zOpen(c, 1)
	if !ok {
		return
	}
	var n int64
	for _, member := range c.Args[2:] {
		if !z.Exists() {
			break
		}
		removed, err := z.Remove(member)
		if err != nil {
			c.Fail(err)
			return
		}
		if removed {
			n++
		}
	}
	if zSave(c, z) {
		c.W.Int(n)
	}
}

func cmdZRank(c *Ctx) {
	z, ok := zOpen(c, 1)
	if !ok {
		return
	}
	rank, ok, err := z.Rank(c.Args[2], c.Cmd.Name == "zrevrank")
	switch {
	case err != nil:
		c.Fail(err)
	case !ok:
		c.W.Null()
	default:
		c.W.Int(rank)
	}
}
