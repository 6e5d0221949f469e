package commands

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/strata-db/strata/storage"
)

func init() {
	dstAndNumKeys := func(args [][]byte) [][]byte {
		if len(args) < 2 {
			return nil
		}
		return append([][]byte{args[1]}, zNumKeysAt(2)(args)...)
	}
	register(
		&Command{Name: "zunion", Arity: -3, Flags: FlagReadonly, Keys: zNumKeysAt(1), Handler: cmdZSetOp},
		&Command{Name: "zinter", Arity: -3, Flags: FlagReadonly, Keys: zNumKeysAt(1), Handler: cmdZSetOp},
		&Command{Name: "zdiff", Arity: -3, Flags: FlagReadonly, Keys: zNumKeysAt(1), Handler: cmdZSetOp},
		&Command{Name: "zintercard", Arity: -3, Flags: FlagReadonly, Keys: zNumKeysAt(1), Handler: cmdZSetOp},
		// FirstKey..LastKey name the destination only, as COMMAND reports it; Keys finds them all.
		&Command{Name: "zunionstore", Arity: -4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1,
			Keys: dstAndNumKeys, Handler: cmdZSetOp},
		&Command{Name: "zinterstore", Arity: -4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1,
			Keys: dstAndNumKeys, Handler: cmdZSetOp},
		&Command{Name: "zdiffstore", Arity: -4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1,
			Keys: dstAndNumKeys, Handler: cmdZSetOp},
	)
}

type zsetOp int

const (
	zopUnion zsetOp = iota
	zopInter
	zopDiff
)

type zaggregate int

const (
	zaggSum zaggregate = iota
	zaggMin
	zaggMax
)

// zaggregateInto folds val into *target as Redis's zunionInterAggregate does; a sum of +inf and
// -inf counts as 0.
func zaggregateInto(target *float64, val float64, agg zaggregate) {
	switch agg {
	case zaggSum:
		*target += val
		if math.IsNaN(*target) {
			*target = 0
		}
	case zaggMin:
		if val < *target {
			*target = val
		}
	case zaggMax:
		if val > *target {
			*target = val
		}
	}
}

// zsrc is one input of ZUNION, ZINTER or ZDIFF: a sorted set, a plain set (every member scores
// 1), or a missing key (empty).
type zsrc struct {
	key    []byte
	z      *storage.ZSet // sorted set, or nil
	set    *storage.Meta // plain set, or nil
	weight float64
}

func (s *zsrc) size() int64 {
	switch {
	case s.z != nil:
		return s.z.Len()
	case s.set != nil:
		return int64(s.set.Size)
	}
	return 0
}

// each calls fn with every member and its (unweighted) score.
func (s *zsrc) each(t *storage.Txn, fn func(member []byte, score float64) bool) error {
	switch {
	case s.z != nil:
		return s.z.Members(fn)
	case s.set != nil:
		return t.SetEach(s.set, func(m []byte) bool { return fn(m, 1) })
	}
	return nil
}

// find returns member's (unweighted) score in s.
func (s *zsrc) find(t *storage.Txn, member []byte) (float64, bool, error) {
	switch {
	case s.z != nil:
		return s.z.Score(member)
	case s.set != nil:
		ok, err := t.SetIsMember(s.key, member)
		return 1, ok, err
	}
	return 0, false, nil
}

func cmdZSetOp(c *Ctx) {
	var dst []byte
	numIdx := 1
	op := zopUnion
	name := c.Cmd.Name
	if strings.HasSuffix(name, "store") {
		dst, numIdx = c.Args[1], 2
		name = strings.TrimSuffix(name, "store")
	}
	cardOnly := name == "zintercard"
	switch name {
	case "zinter", "zintercard":
		op = zopInter
	case "zdiff":
		op = zopDiff
	}
	setnum, ok := c.Int(numIdx)
	if !ok {
		return
	}
	if setnum < 1 {
		c.W.Error(fmt.Sprintf(errZInputKey, c.Cmd.Name))
		return
	}
	if setnum > int64(len(c.Args)-numIdx-1) {
		c.W.Error(ErrSyntax)
		return
	}
	srcs := make([]zsrc, setnum)
	j := numIdx + 1
	for i := range srcs {
		key := c.Args[j]
		j++
		srcs[i] = zsrc{key: key, weight: 1}
		m, err := c.Txn.GetMeta(key)
		if err != nil {
			c.Fail(err)
			return
		}
		switch {
		case m == nil:
		case m.Type == storage.TypeZSet:
			if srcs[i].z, err = c.Txn.ZSet(key); err != nil {
				c.Fail(err)
				return
			}
		case m.Type == storage.TypeSet:
			srcs[i].set = m
		default:
			c.W.Error(ErrWrongType)
			return
		}
	}
	agg := zaggSum
	withScores := false
	limit := int64(0)
	for remaining := len(c.Args) - j; remaining > 0; remaining = len(c.Args) - j {
		opt := c.Args[j]
		switch {
		case op != zopDiff && !cardOnly && remaining >= len(srcs)+1 && zfold(opt, "weights"):
			j++
			for i := range srcs {
				w, ok := zParseScore(c.Args[j])
				if !ok {
					c.W.Error(errZWeightFloat)
					return
				}
				srcs[i].weight = w
				j++
			}
		case op != zopDiff && !cardOnly && remaining >= 2 && zfold(opt, "aggregate"):
			switch a := c.Args[j+1]; {
			case zfold(a, "sum"):
				agg = zaggSum
			case zfold(a, "min"):
				agg = zaggMin
			case zfold(a, "max"):
				agg = zaggMax
			default:
				c.W.Error(ErrSyntax)
				return
			}
			j += 2
		case dst == nil && !cardOnly && zfold(opt, "withscores"):
			withScores = true
			j++
		case cardOnly && remaining >= 2 && zfold(opt, "limit"):
			n, ok := zRangeLong(c, j+1, 0, math.MaxInt64, errZLimitNegative)
			if !ok {
				return
			}
			limit = n
			j += 2
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if op != zopDiff {
		// Smallest inputs first, as Redis orders them (a stable sort, as glibc's qsort is here).
		slices.SortStableFunc(srcs, func(a, b zsrc) int {
			return int(min(max(a.size()-b.size(), -1), 1))
		})
	}
	var res []storage.ZEntry
	var card int64
	var err error
	switch op {
	case zopInter:
		res, card, err = zinter(c.Txn, srcs, agg, cardOnly, limit)
	case zopUnion:
		res, err = zunion(c.Txn, srcs, agg)
	default:
		res, err = zdiff(c.Txn, srcs)
	}
	if err != nil {
		c.Fail(err)
		return
	}
	switch {
	case cardOnly:
		c.W.Int(card)
	case dst != nil:
		n, err := c.Txn.ZStore(dst, res)
		if err != nil {
			c.Fail(err)
			return
		}
		if n > 0 {
			c.Signal(dst)
		}
		c.W.Int(n)
	default:
		zWriteEntries(c.W, res, withScores)
	}
}

// zsortEntries orders entries as a sorted set does: by score, then by member bytes.
func zsortEntries(es []storage.ZEntry) {
	slices.SortFunc(es, func(a, b storage.ZEntry) int {
		switch {
		case a.Score < b.Score:
			return -1
		case a.Score > b.Score:
			return 1
		}
		return bytes.Compare(a.Member, b.Member)
	})
}

// zweighted returns weight*score, with the NaN of 0*inf counted as 0.
func zweighted(weight, score float64) float64 {
	v := weight * score
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func zinter(t *storage.Txn, srcs []zsrc, agg zaggregate, cardOnly bool, limit int64) ([]storage.ZEntry, int64, error) {
	var out []storage.ZEntry
	var card int64
	if srcs[0].size() == 0 {
		return nil, 0, nil
	}
	var ferr error
	err := srcs[0].each(t, func(m []byte, s float64) bool {
		score := zweighted(srcs[0].weight, s)
		for j := 1; j < len(srcs); j++ {
			v, ok, err := srcs[j].find(t, m)
			if err != nil {
				ferr = err
				return false
			}
			if !ok {
				return true
			}
			zaggregateInto(&score, v*srcs[j].weight, agg)
		}
		if cardOnly {
			card++
			return limit == 0 || card < limit
		}
		out = append(out, storage.ZEntry{Member: append([]byte(nil), m...), Score: score})
		return true
	})
	if err == nil {
		err = ferr
	}
	zsortEntries(out)
	return out, card, err
}

func zunion(t *storage.Txn, srcs []zsrc, agg zaggregate) ([]storage.ZEntry, error) {
	var out []storage.ZEntry
	index := map[string]int{}
	for i := range srcs {
		src := &srcs[i]
		err := src.each(t, func(m []byte, s float64) bool {
			score := zweighted(src.weight, s)
			if k, ok := index[string(m)]; ok {
				zaggregateInto(&out[k].Score, score, agg)
				return true
			}
			index[string(m)] = len(out)
			out = append(out, storage.ZEntry{Member: append([]byte(nil), m...), Score: score})
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	zsortEntries(out)
	return out, nil
}

func zdiff(t *storage.Txn, srcs []zsrc) ([]storage.ZEntry, error) {
	var out []storage.ZEntry
	if srcs[0].size() == 0 {
		return nil, nil
	}
	var ferr error
	err := srcs[0].each(t, func(m []byte, s float64) bool {
		for j := 1; j < len(srcs); j++ {
			_, ok, err := srcs[j].find(t, m)
			if err != nil {
				ferr = err
				return false
			}
			if ok {
				return true
			}
		}
		out = append(out, storage.ZEntry{Member: append([]byte(nil), m...), Score: s})
		return true
	})
	if err == nil {
		err = ferr
	}
	zsortEntries(out)
	return out, err
}
