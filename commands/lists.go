package commands

import (
	"bytes"
	"errors"
	"math"
	"strings"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// List errors, as Redis 7.0 words them.
const (
	errListRankZero    = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	errListRankRange   = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	errListCountNeg    = "ERR COUNT can't be negative"
	errListMaxLenNeg   = "ERR MAXLEN can't be negative"
	errListNumKeys     = "ERR numkeys should be greater than 0"
	errListCountGtZero = "ERR count should be greater than 0"
)

func init() {
	const (
		w   = FlagWrite
		ro  = FlagReadonly
		oom = FlagDenyOOM
		f   = FlagFast
		blk = FlagBlocking
	)
	register(
		&Command{Name: "lpush", Arity: -3, Flags: w | oom | f, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdPush},
		&Command{Name: "rpush", Arity: -3, Flags: w | oom | f, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdPush},
		&Command{Name: "lpushx", Arity: -3, Flags: w | oom | f, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdPush},
		&Command{Name: "rpushx", Arity: -3, Flags: w | oom | f, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdPush},
		&Command{Name: "lpop", Arity: -2, Flags: w | f, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdPop},
		&Command{Name: "rpop", Arity: -2, Flags: w | f, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdPop},
		&Command{Name: "llen", Arity: 2, Flags: ro | f, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdLLen},
		&Command{Name: "lindex", Arity: 3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdLIndex},
		&Command{Name: "lset", Arity: 4, Flags: w | oom, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdLSet},
		&Command{Name: "lrange", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdLRange},
		&Command{Name: "ltrim", Arity: 4, Flags: w, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdLTrim},
		&Command{Name: "lrem", Arity: 4, Flags: w, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdLRem},
		&Command{Name: "linsert", Arity: 5, Flags: w | oom, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdLInsert},
		&Command{Name: "lpos", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdLPos},
		&Command{Name: "rpoplpush", Arity: 3, Flags: w | oom, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdRPopLPush},
		&Command{Name: "lmove", Arity: 5, Flags: w | oom, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdLMove},
		&Command{Name: "lmpop", Arity: -4, Flags: w, Keys: listNumKeysAt(1), Handler: cmdLMPop},
		&Command{Name: "blpop", Arity: -3, Flags: w | blk | FlagNoScript, FirstKey: 1, LastKey: -2, Step: 1, Handler: cmdBPop},
		&Command{Name: "brpop", Arity: -3, Flags: w | blk | FlagNoScript, FirstKey: 1, LastKey: -2, Step: 1, Handler: cmdBPop},
		&Command{Name: "brpoplpush", Arity: 4, Flags: w | oom | blk | FlagNoScript, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdBRPopLPush},
		&Command{Name: "blmove", Arity: 6, Flags: w | oom | blk | FlagNoScript, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdBLMove},
		&Command{Name: "blmpop", Arity: -5, Flags: w | blk, Keys: listNumKeysAt(2), Handler: cmdBLMPop},
	)
}

// listNumKeysAt returns the key extractor of a command whose argument i is numkeys and whose
// keys follow it (LMPOP, BLMPOP). It returns no keys when numkeys is not valid; the handler then
// answers the error before it touches any key.
func listNumKeysAt(i int) func(args [][]byte) [][]byte {
	return func(args [][]byte) [][]byte {
		if len(args) <= i {
			return nil
		}
		n, err := num.ParseInt(args[i])
		if err != nil || n < 1 || n > int64(len(args)-i-1) {
			return nil
		}
		return args[i+1 : i+1+int(n)]
	}
}

// listFail answers a storage error of a list operation.
func listFail(c *Ctx, err error) {
	switch {
	case errors.Is(err, storage.ErrNoSuchKey):
		c.W.Error(ErrNoSuchKey)
	case errors.Is(err, storage.ErrIndexOutOfRange):
		c.W.Error(ErrOutOfRangeIndex)
	default:
		c.Fail(err)
	}
}

// LPUSH, RPUSH, LPUSHX, RPUSHX key element [element ...]
func cmdPush(c *Ctx) {
	name := c.Cmd.Name
	left, onlyExisting := name[0] == 'l', name[len(name)-1] == 'x'
	n, err := c.Txn.ListPush(c.Args[1], c.Args[2:], left, onlyExisting)
	if err != nil {
		listFail(c, err)
		return
	}
	if n > 0 {
		c.Signal(c.Args[1])
	}
	c.W.Int(n)
}

// positiveLong parses a count as Redis's getPositiveLongFromObjectOrReply does: a non-integer
// and a negative number both get msg.
func positiveLong(c *Ctx, b []byte, msg string) (int64, bool) {
	n, err := num.ParseInt(b)
	if err != nil || n < 0 {
		c.W.Error(msg)
		return 0, false
	}
	return n, true
}

// LPOP, RPOP key [count]
func cmdPop(c *Ctx) {
	if len(c.Args) > 3 {
		c.W.Error(ArityError(c.Cmd.Name))
		return
	}
	left := c.Cmd.Name[0] == 'l'
	key := c.Args[1]
	if len(c.Args) == 2 {
		vals, err := c.Txn.ListPop(key, left, 1)
		switch {
		case err != nil:
			listFail(c, err)
		case vals == nil:
			c.W.Null()
		default:
			c.W.Bulk(vals[0])
		}
		return
	}
	count, ok := positiveLong(c, c.Args[2], ErrCountPositive)
	if !ok {
		return
	}
	if count == 0 {
		m, err := c.Txn.ListMeta(key)
		switch {
		case err != nil:
			listFail(c, err)
		case m == nil:
			c.W.NullArray()
		default:
			c.W.Array(0)
		}
		return
	}
	vals, err := c.Txn.ListPop(key, left, count)
	switch {
	case err != nil:
		listFail(c, err)
	case vals == nil:
		c.W.NullArray()
	default:
		c.W.Array(len(vals))
		for _, v := range vals {
			c.W.Bulk(v)
		}
	}
}

// LLEN key
func cmdLLen(c *Ctx) {
	n, err := c.Txn.ListLen(c.Args[1])
	if err != nil {
		listFail(c, err)
		return
	}
	c.W.Int(n)
}

// LINDEX key index
func cmdLIndex(c *Ctx) {
	m, err := c.Txn.ListMeta(c.Args[1])
	if err != nil {
		listFail(c, err)
		return
	}
	if m == nil {
		c.W.Null()
		return
	}
	idx, ok := c.Int(2)
	if !ok {
		return
	}
	v, found, err := c.Txn.ListIndexOf(c.Args[1], m, idx)
	switch {
	case err != nil:
		listFail(c, err)
	case !found:
		c.W.Null()
	default:
		c.W.Bulk(v)
	}
}

// LSET key index element
func cmdLSet(c *Ctx) {
	m, err := c.Txn.ListMeta(c.Args[1])
	if err != nil {
		listFail(c, err)
		return
	}
	if m == nil {
		c.W.Error(ErrNoSuchKey)
		return
	}
	idx, ok := c.Int(2)
	if !ok {
		return
	}
	if err := c.Txn.ListSet(c.Args[1], idx, c.Args[3]); err != nil {
		listFail(c, err)
		return
	}
	c.W.OK()
}

// LRANGE key start stop
func cmdLRange(c *Ctx) {
	start, ok := c.Int(2)
	if !ok {
		return
	}
	stop, ok := c.Int(3)
	if !ok {
		return
	}
	mark := c.W.Len()
	if err := c.Txn.ListRange(c.Args[1], start, stop, c.W.Array, c.W.Bulk); err != nil {
		c.W.Truncate(mark)
		listFail(c, err)
	}
}

// LTRIM key start stop
func cmdLTrim(c *Ctx) {
	start, ok := c.Int(2)
	if !ok {
		return
	}
	stop, ok := c.Int(3)
	if !ok {
		return
	}
	if err := c.Txn.ListTrim(c.Args[1], start, stop); err != nil {
		listFail(c, err)
		return
	}
	c.W.OK()
}

// LREM key count element
func cmdLRem(c *Ctx) {
	count, ok := c.Int(2)
	if !ok {
		return
	}
	n, err := c.Txn.ListRem(c.Args[1], count, c.Args[3])
	if err != nil {
		listFail(c, err)
		return
	}
	c.W.Int(n)
}

// LINSERT key BEFORE|AFTER pivot element
func cmdLInsert(c *Ctx) {
	var before bool
	switch strings.ToLower(c.Arg(2)) {
	case "before":
		before = true
	case "after":
	default:
		c.W.Error(ErrSyntax)
		return
	}
	n, err := c.Txn.ListInsert(c.Args[1], before, c.Args[3], c.Args[4])
	if err != nil {
		listFail(c, err)
		return
	}
	c.W.Int(n)
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
func cmdLPos(c *Ctx) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for i := 3; i < len(c.Args); i++ {
		opt := strings.ToLower(c.Arg(i))
		more := i+1 < len(c.Args)
		switch {
		case opt == "rank" && more:
			i++
			n, err := num.ParseInt(c.Args[i])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return
			}
			if n == 0 {
				c.W.Error(errListRankZero)
				return
			}
			rank = n
		case opt == "count" && more:
			i++
			n, ok := positiveLong(c, c.Args[i], errListCountNeg)
			if !ok {
				return
			}
			count = n
		case opt == "maxlen" && more:
			i++
			n, ok := positiveLong(c, c.Args[i], errListMaxLenNeg)
			if !ok {
				return
			}
			maxlen = n
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	limit := count
	if count == -1 {
		limit = 1
	}
	if rank == math.MinInt64 {
		// Redis 7.0 negates the rank in a long: LLONG_MIN stays negative, so every match from the
		// tail passes the rank test and its COUNT test never stops the scan.
		rank = -1
		if count > 0 {
			limit = 0
		}
	}
	pos, exists, err := c.Txn.ListPos(c.Args[1], c.Args[2], rank, limit, maxlen)
	if err != nil {
		listFail(c, err)
		return
	}
	if count != -1 {
		c.W.Array(len(pos))
		for _, p := range pos {
			c.W.Int(p)
		}
		return
	}
	if !exists || len(pos) == 0 {
		c.W.Null()
		return
	}
	c.W.Int(pos[0])
}

// listWhere parses LEFT or RIGHT, answering a syntax error otherwise.
func listWhere(c *Ctx, b []byte) (left, ok bool) {
	switch {
	case bytes.EqualFold(b, []byte("left")):
		return true, true
	case bytes.EqualFold(b, []byte("right")):
		return false, true
	}
	c.W.Error(ErrSyntax)
	return false, false
}

// listMove pops one element from src and pushes it on dst, answering the element, or a null
// when src does not exist. It signals dst.
func listMove(c *Ctx, src, dst []byte, fromLeft, toLeft bool) {
	vals, err := c.Txn.ListPop(src, fromLeft, 1)
	if err != nil {
		listFail(c, err)
		return
	}
	if vals == nil {
		c.W.Null()
		return
	}
	if _, err := c.Txn.ListPush(dst, vals, toLeft, false); err != nil {
		listFail(c, err) // the error reply aborts the pop too
		return
	}
	c.Signal(dst)
	c.W.Bulk(vals[0])
}

// RPOPLPUSH source destination
func cmdRPopLPush(c *Ctx) { listMove(c, c.Args[1], c.Args[2], false, true) }

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT
func cmdLMove(c *Ctx) {
	from, ok := listWhere(c, c.Args[3])
	if !ok {
		return
	}
	to, ok := listWhere(c, c.Args[4])
	if !ok {
		return
	}
	listMove(c, c.Args[1], c.Args[2], from, to)
}

// mpopArgs is a parsed [B]LMPOP.
type mpopArgs struct {
	keys  [][]byte
	left  bool
	count int64
}

// parseMPop parses numkeys key [key ...] LEFT|RIGHT [COUNT count] from argument i on, with
// Redis's errors.
func parseMPop(c *Ctx, i int) (mpopArgs, bool) {
	var a mpopArgs
	n, err := num.ParseInt(c.Args[i])
	if err != nil || n < 1 {
		c.W.Error(errListNumKeys)
		return a, false
	}
	// LEFT|RIGHT must follow the keys; compared as n, since i+n+1 overflows for n near 2^63.
	if n >= int64(len(c.Args)-i-1) {
		c.W.Error(ErrSyntax)
		return a, false
	}
	where := i + int(n) + 1
	a.keys = c.Args[i+1 : where]
	left, ok := listWhere(c, c.Args[where])
	if !ok {
		return a, false
	}
	a.left, a.count = left, -1
	for j := where + 1; j < len(c.Args); j++ {
		if a.count == -1 && bytes.EqualFold(c.Args[j], []byte("count")) && j+1 < len(c.Args) {
			j++
			n, err := num.ParseInt(c.Args[j])
			if err != nil || n < 1 {
				c.W.Error(errListCountGtZero)
				return a, false
			}
			a.count = n
			continue
		}
		c.W.Error(ErrSyntax)
		return a, false
	}
	if a.count == -1 {
		a.count = 1
	}
	return a, true
}

// mpopServe pops from the first non-empty list of keys and answers [key, [elements]]. It reports
// false, having written nothing, when every list is empty; a wrong type answers WRONGTYPE.
func mpopServe(c *Ctx, keys [][]byte, left bool, count int64) bool {
	for _, k := range keys {
		vals, err := c.Txn.ListPop(k, left, count)
		if err != nil {
			listFail(c, err)
			return true
		}
		if vals == nil {
			continue
		}
		c.Effect(popVerb(left), k, numArg(int64(len(vals)))) // [LR]POP key count
		c.W.Array(2)
		c.W.Bulk(k)
		c.W.Array(len(vals))
		for _, v := range vals {
			c.W.Bulk(v)
		}
		return true
	}
	return false
}

// popVerb returns LPOP or RPOP.
func popVerb(left bool) []byte {
	if left {
		return verbLPop
	}
	return verbRPop
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
func cmdLMPop(c *Ctx) {
	a, ok := parseMPop(c, 1)
	if !ok {
		return
	}
	if !mpopServe(c, a.keys, a.left, a.count) {
		c.W.NullArray()
	}
}
