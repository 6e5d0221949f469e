package commands

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/strata-db/strata/storage"
)

// Pops (ZPOPMIN, ZPOPMAX, ZMPOP and the core the blocking forms share) and ZRANDMEMBER.

func cmdZPop(c *Ctx) {
	if len(c.Args) > 3 {
		c.W.Error(ErrSyntax)
		return
	}
	count := int64(-1)
	if len(c.Args) == 3 {
		n, ok := zRangeLong(c, 2, 0, math.MaxInt64, ErrCountPositive)
		if !ok {
			return
		}
		count = n
	}
	nested := c.W.Proto == 3 && count != -1
	if !zpopGeneric(c, c.Args[1:2], c.Cmd.Name == "zpopmax", count, false, nested) {
		c.W.Array(0)
	}
}

func cmdZMPop(c *Ctx) {
	keys, max, count, ok := zmpopParse(c, 1)
	if ok && !zpopGeneric(c, keys, max, count, true, true) {
		c.W.NullArray()
	}
}

// zmpopParse parses "numkeys key [key ...] MIN|MAX [COUNT count]" starting at argument i,
// replying with Redis's errors when the arguments are bad.
func zmpopParse(c *Ctx, i int) (keys [][]byte, max bool, count int64, ok bool) {
	numKeys, ok := zRangeLong(c, i, 1, math.MaxInt64, errZNumKeys)
	if !ok {
		return nil, false, 0, false
	}
	// MIN|MAX must follow the keys; compared as numKeys, since i+1+numKeys overflows near 2^63.
	if numKeys >= int64(len(c.Args)-i-1) {
		c.W.Error(ErrSyntax)
		return nil, false, 0, false
	}
	whereIdx := i + 1 + int(numKeys)
	switch a := c.Args[whereIdx]; {
	case zfold(a, "min"):
	case zfold(a, "max"):
		max = true
	default:
		c.W.Error(ErrSyntax)
		return nil, false, 0, false
	}
	count = -1
	for j := whereIdx + 1; j < len(c.Args); j++ {
		if count == -1 && zfold(c.Args[j], "count") && j+1 < len(c.Args) {
			j++
			n, ok := zRangeLong(c, j, 1, math.MaxInt64, errZCount)
			if !ok {
				return nil, false, 0, false
			}
			count = n
			continue
		}
		c.W.Error(ErrSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return c.Args[i+1 : whereIdx], max, count, true
}

// zpopGeneric is the non-blocking core of ZPOPMIN, ZPOPMAX and ZMPOP, and of their blocking
// forms: it pops up to count members (-1: one, plain pop) from the lowest end (max: the highest)
// of the first key in keys that holds a sorted set, and replies as Redis's genericZpopCommand
// does: emitKey puts the key name first; nested gives [member, score] pairs (with emitKey:
// [key, [[member, score], ...]]), otherwise a flat array. A key of another type, met before any
// sorted set, gets WRONGTYPE. When no key holds a sorted set it writes nothing and returns false,
// so the caller replies (empty array, null) or blocks. It stages the writes in c.Txn.
func zpopGeneric(c *Ctx, keys [][]byte, max bool, count int64, emitKey, nested bool) bool {
	for _, key := range keys {
		z, err := c.Txn.ZSet(key)
		if err != nil {
			c.Fail(err)
			return true
		}
		if !z.Exists() {
			continue
		}
		if count == 0 {
			c.W.Array(0)
			return true
		}
		es, err := z.Pop(max, zmax64(count, 1))
		if err == nil {
			err = z.Save()
		}
		if err != nil {
			c.Fail(err)
			return true
		}
		if emitKey {
			zpopEffect(c, key, max, count, len(es))
		}
		w := c.W
		switch {
		case !nested && !emitKey:
			w.Array(2 * len(es))
		case nested && !emitKey:
			w.Array(len(es))
		case !nested && emitKey:
			w.Array(2*len(es) + 1)
			w.Bulk(key)
		default:
			w.Array(2)
			w.Bulk(key)
			w.Array(len(es))
		}
		for _, e := range es {
			if nested {
				w.Array(2)
			}
			w.Bulk(e.Member)
			w.Double(e.Score)
		}
		return true
	}
	return false
}

// zpopEffect records the propagated form of ZMPOP and the blocking pops, which pop n members
// of key: ZPOPMIN or ZPOPMAX key, with the count n unless the command pops one member without
// a count (BZPOPMIN, BZPOPMAX).
func zpopEffect(c *Ctx, key []byte, max bool, count int64, n int) {
	verb := verbZPopMin
	if max {
		verb = verbZPopMax
	}
	if count == -1 {
		c.Effect(verb, key)
		return
	}
	c.Effect(verb, key, numArg(int64(n)))
}

func zmax64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// ------------------------------------------------------------------------ ZRANDMEMBER

// zrandBatch bounds how many random picks are fetched in one walk of the set; zrandInMemory is
// the largest set read whole to serve many draws with repetition.
const (
	zrandBatch    = 1000
	zrandInMemory = 1 << 17
)

func cmdZRandMember(c *Ctx) {
	if len(c.Args) == 2 {
		z, ok := zOpen(c, 1)
		if !ok {
			return
		}
		if !z.Exists() {
			c.W.Null()
			return
		}
		r := rand.Int64N(z.Len())
		err := z.RangeByRank(r, r, false, func(m []byte, _ float64) bool { c.W.Bulk(m); return false })
		if err != nil {
			c.Fail(err)
		}
		return
	}
	l, ok := zRangeLong(c, 2, -math.MaxInt64, math.MaxInt64, "")
	if !ok {
		return
	}
	if len(c.Args) > 4 || len(c.Args) == 4 && !zfold(c.Args[3], "withscores") {
		c.W.Error(ErrSyntax)
		return
	}
	withScores := len(c.Args) == 4
	if withScores && (l < -math.MaxInt64/2 || l > math.MaxInt64/2) {
		// The reply would have more than 2^63 elements.
		c.W.Error(errValueRange)
		return
	}
	z, ok := zOpen(c, 1)
	if !ok {
		return
	}
	if !z.Exists() || l == 0 {
		c.W.Array(0)
		return
	}
	size := z.Len()
	if l < 0 || l == 1 {
		// Independent draws, in random order.
		count := uint64(l)
		if l < 0 {
			count = uint64(-l)
		}
		var es []storage.ZEntry
		if count > zrandBatch && size <= zrandInMemory {
			// Many draws from a small set: read it once.
			var err error
			es, err = zCollect(func(fn func([]byte, float64) bool) error { return z.Scan(false, fn) })
			if err != nil {
				c.Fail(err)
				return
			}
		}
		header := func(n int) { c.W.Array(zArrayLen(c.W, n, withScores)) }
		drawRepeated(c, count, header, func(n uint64) (int, error) { // bounds.go
			if es != nil {
				for i := uint64(0); i < n; i++ {
					e := es[rand.IntN(len(es))]
					zWriteEntry(c.W, e.Member, e.Score, withScores)
				}
				return int(n), nil
			}
			for left := n; left > 0; {
				k := min(left, zrandBatch)
				left -= k
				ranks := make([]int64, k)
				for i := range ranks {
					ranks[i] = rand.Int64N(size)
				}
				if err := zrandEmit(c, z, ranks, withScores); err != nil {
					return 0, err
				}
			}
			return int(n), nil
		})
		return
	}
	if l >= size {
		// The whole set, walked from the highest score as Redis walks it.
		es, err := zCollect(func(fn func([]byte, float64) bool) error { return z.Scan(true, fn) })
		if err != nil {
			c.Fail(err)
			return
		}
		zWriteEntries(c.W, es, withScores)
		return
	}
	// l distinct members (Floyd's sampling), in random order.
	picked := make(map[int64]struct{}, l)
	ranks := make([]int64, 0, l)
	for j := size - l; j < size; j++ {
		r := rand.Int64N(j + 1)
		if _, dup := picked[r]; dup {
			r = j
		}
		picked[r] = struct{}{}
		ranks = append(ranks, r)
	}
	rand.Shuffle(len(ranks), func(a, b int) { ranks[a], ranks[b] = ranks[b], ranks[a] })
	start := c.W.Len()
	c.W.Array(zArrayLen(c.W, len(ranks), withScores))
	if err := zrandEmit(c, z, ranks, withScores); err != nil {
		c.W.Truncate(start)
		c.Fail(err)
	}
}

// zrandEmit writes the members at ranks, in the order given, fetching them in one walk of the
// score index.
func zrandEmit(c *Ctx, z *storage.ZSet, ranks []int64, withScores bool) error {
	sorted := slices.Clone(ranks)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	got := make(map[int64]storage.ZEntry, len(sorted))
	var rank int64
	next := 0
	err := z.Scan(false, func(m []byte, s float64) bool {
		if rank == sorted[next] {
			got[rank] = storage.ZEntry{Member: append([]byte(nil), m...), Score: s}
			next++
		}
		rank++
		return next < len(sorted)
	})
	if err != nil {
		return err
	}
	for _, r := range ranks {
		e := got[r]
		zWriteEntry(c.W, e.Member, e.Score, withScores)
	}
	return nil
}

// zCollect copies the entries a walker produces.
func zCollect(walk func(fn func([]byte, float64) bool) error) ([]storage.ZEntry, error) {
	var out []storage.ZEntry
	err := walk(func(m []byte, s float64) bool {
		out = append(out, storage.ZEntry{Member: append([]byte(nil), m...), Score: s})
		return true
	})
	return out, err
}
