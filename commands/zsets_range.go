package commands

import (
	"github.com/strata-db/strata/storage"
)

func init() {
	key1 := func(c *Command) *Command { c.FirstKey, c.LastKey, c.Step = 1, 1, 1; return c }
	register(
		key1(&Command{Name: "zrange", Arity: -4, Flags: FlagReadonly, Handler: cmdZRange}),
		key1(&Command{Name: "zrevrange", Arity: -4, Flags: FlagReadonly, Handler: cmdZRange}),
		key1(&Command{Name: "zrangebyscore", Arity: -4, Flags: FlagReadonly, Handler: cmdZRange}),
		key1(&Command{Name: "zrevrangebyscore", Arity: -4, Flags: FlagReadonly, Handler: cmdZRange}),
		key1(&Command{Name: "zrangebylex", Arity: -4, Flags: FlagReadonly, Handler: cmdZRange}),
		key1(&Command{Name: "zrevrangebylex", Arity: -4, Flags: FlagReadonly, Handler: cmdZRange}),
		&Command{Name: "zrangestore", Arity: -5, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 2, Step: 1,
			Handler: cmdZRange},
		key1(&Command{Name: "zcount", Arity: 4, Flags: FlagReadonly | FlagFast, Handler: cmdZCount}),
		key1(&Command{Name: "zlexcount", Arity: 4, Flags: FlagReadonly | FlagFast, Handler: cmdZCount}),
		key1(&Command{Name: "zremrangebyrank", Arity: 4, Flags: FlagWrite, Handler: cmdZRemRange}),
		key1(&Command{Name: "zremrangebyscore", Arity: 4, Flags: FlagWrite, Handler: cmdZRemRange}),
		key1(&Command{Name: "zremrangebylex", Arity: 4, Flags: FlagWrite, Handler: cmdZRemRange}),
	)
}

type zrangeKind int

const (
	zrAuto zrangeKind = iota
	zrRank
	zrScore
	zrLex
)

type zrangeDir int

const (
	zdAuto zrangeDir = iota
	zdForward
	zdReverse
)

func cmdZRange(c *Ctx) {
	switch c.Cmd.Name {
	case "zrange":
		zrangeGeneric(c, 1, false, zrAuto, zdAuto)
	case "zrangestore":
		zrangeGeneric(c, 2, true, zrAuto, zdAuto)
	case "zrevrange":
		zrangeGeneric(c, 1, false, zrRank, zdReverse)
	case "zrangebyscore":
		zrangeGeneric(c, 1, false, zrScore, zdForward)
	case "zrevrangebyscore":
		zrangeGeneric(c, 1, false, zrScore, zdReverse)
	case "zrangebylex":
		zrangeGeneric(c, 1, false, zrLex, zdForward)
	case "zrevrangebylex":
		zrangeGeneric(c, 1, false, zrLex, zdReverse)
	}
}

// zrankWindow turns ZRANGE-style start/stop indexes into an inclusive 0-based window of a set
// of n members, reporting false when it is empty.
func zrankWindow(start, end, n int64) (int64, int64, bool) {
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start = max(start, 0)
	if start > end || start >= n {
		return 0, 0, false
	}
	return start, min(end, n-1), true
}

// zrangeGeneric implements ZRANGE, ZRANGESTORE and the older Z[REV]RANGE[BYSCORE|BYLEX] forms
// as Redis's zrangeGenericCommand does. argStart is the source key's index; kind and dir are
// fixed by the older commands and chosen by options for ZRANGE and ZRANGESTORE.
func zrangeGeneric(c *Ctx, argStart int, store bool, kind zrangeKind, dir zrangeDir) {
	minIdx, maxIdx := argStart+1, argStart+2
	withScores := false
	offset, limit := int64(0), int64(-1)
	for j := argStart + 3; j < len(c.Args); j++ {
		opt := c.Args[j]
		switch {
		case !store && zfold(opt, "withscores"):
			withScores = true
		case zfold(opt, "limit") && len(c.Args)-j-1 >= 2:
			var ok bool
			if offset, ok = c.Int(j + 1); !ok {
				return
			}
			if limit, ok = c.Int(j + 2); !ok {
				return
			}
			j += 2
		case dir == zdAuto && zfold(opt, "rev"):
			dir = zdReverse
		case kind == zrAuto && zfold(opt, "bylex"):
			kind = zrLex
		case kind == zrAuto && zfold(opt, "byscore"):
			kind = zrScore
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if kind == zrAuto {
		kind = zrRank
	}
	reverse := dir == zdReverse
	if limit != -1 && kind == zrRank {
		c.W.Error(errZLimitRank)
		return
	}
	if withScores && kind == zrLex {
		c.W.Error(errZWithScoresLex)
		return
	}
	if reverse && kind != zrRank {
		minIdx, maxIdx = maxIdx, minIdx
	}
	var start, end int64
	var sr storage.ScoreRange
	var lr storage.LexRange
	switch kind {
	case zrRank:
		var ok bool
		if start, ok = c.Int(minIdx); !ok {
			return
		}
		if end, ok = c.Int(maxIdx); !ok {
			return
		}
	case zrScore:
		var ok bool
		if sr, ok = zParseScoreRange(c.Args[minIdx], c.Args[maxIdx]); !ok {
			c.W.Error(errZMinMaxFloat)
			return
		}
	case zrLex:
		var ok bool
		if lr, ok = zParseLexRange(c.Args[minIdx], c.Args[maxIdx]); !ok {
			c.W.Error(errZMinMaxLex)
			return
		}
	}
	z, ok := zOpen(c, argStart)
	if !ok {
		return
	}
	walk := func(fn func([]byte, float64) bool) error {
		switch kind {
		case zrScore:
			return z.RangeByScore(sr, reverse, offset, limit, fn)
		case zrLex:
			return z.RangeByLex(lr, reverse, offset, limit, fn)
		}
		s, e, ok := zrankWindow(start, end, z.Len())
		if !ok {
			return nil
		}
		return z.RangeByRank(s, e, reverse, fn)
	}
	if store {
		es, err := zCollect(walk)
		var n int64
		if err == nil {
			n, err = c.Txn.ZStore(c.Args[1], es)
		}
		if err != nil {
			c.Fail(err)
			return
		}
		if n > 0 {
			c.Signal(c.Args[1])
		}
		c.W.Int(n)
		return
	}
	start0 := c.W.Len()
	d := zBeginDeferred(c.W, withScores)
	if err := walk(d.emit); err != nil {
		c.W.Truncate(start0)
		c.Fail(err)
		return
	}
	d.finish()
}

func cmdZCount(c *Ctx) {
	lex := c.Cmd.Name == "zlexcount"
	var sr storage.ScoreRange
	var lr storage.LexRange
	var ok bool
	if lex {
		if lr, ok = zParseLexRange(c.Args[2], c.Args[3]); !ok {
			c.W.Error(errZMinMaxLex)
			return
		}
	} else if sr, ok = zParseScoreRange(c.Args[2], c.Args[3]); !ok {
		c.W.Error(errZMinMaxFloat)
		return
	}
	z, ok := zOpen(c, 1)
	if !ok {
		return
	}
	var n int64
	var err error
	if lex {
		n, err = z.CountByLex(lr)
	} else {
		n, err = z.CountByScore(sr)
	}
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(n)
}

func cmdZRemRange(c *Ctx) {
	var start, end int64
	var sr storage.ScoreRange
	var lr storage.LexRange
	var ok bool
	switch c.Cmd.Name {
	case "zremrangebyrank":
		if start, ok = c.Int(2); !ok {
			return
		}
		if end, ok = c.Int(3); !ok {
			return
		}
	case "zremrangebyscore":
		if sr, ok = zParseScoreRange(c.Args[2], c.Args[3]); !ok {
			c.W.Error(errZMinMaxFloat)
			return
		}
	default:
		if lr, ok = zParseLexRange(c.Args[2], c.Args[3]); !ok {
			c.W.Error(errZMinMaxLex)
			return
		}
	}
	z, ok := zOpen(c, 1)
	if !ok {
		return
	}
	var n int64
	var err error
	switch c.Cmd.Name {
	case "zremrangebyrank":
		if s, e, ok := zrankWindow(start, end, z.Len()); ok {
			n, err = z.RemoveRangeByRank(s, e)
		}
	case "zremrangebyscore":
		n, err = z.RemoveRangeByScore(sr)
	default:
		n, err = z.RemoveRangeByLex(lr)
	}
	if err == nil {
		err = z.Save()
	}
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(n)
}
