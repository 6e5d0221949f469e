package commands

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

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
		&Command{Name: "zmpop", Arity: -4, Flags: FlagWrite, Keys: numKeysAt(1), Handler: cmdZMPop},
	)
}

// numKeysAt returns a Keys function for commands whose argument i is a key count followed by
// that many keys. A malformed count gives the keys that are there; the handler reports the error.
func numKeysAt(i int) func(args [][]byte) [][]byte {
	return func(args [][]byte) [][]byte {
		if i >= len(args) {
			return nil
		}
		n, err := ParseInt(args[i])
		if err != nil || n < 1 {
			return nil
		}
		n = min(n, int64(len(args)-i-1))
		return args[i+1 : i+1+int(n)]
	}
}

// ----------------------------------------------------------------------- number parsing

func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// zfold reports whether b is the lower-case ASCII word s up to ASCII case, as strcasecmp
// compares (no Unicode folding).
func zfold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

func hasPrefixFold(b []byte, p string) bool { return len(b) >= len(p) && zfold(b[:len(p)], p) }

// strtod parses the longest prefix of s that C's strtod accepts (leading white space, sign,
// decimal or hexadecimal digits, "inf", "infinity", "nan"). It returns the value, the length of
// that prefix (0 when nothing converts) and whether strtod would set ERANGE to report an
// overflow or an underflow to zero.
func strtod(s []byte) (f float64, n int, erange bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	j, neg := i, false
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		neg = s[j] == '-'
		j++
	}
	sign := func(v float64) float64 {
		if neg {
			return -v
		}
		return v
	}
	rest := s[j:]
	switch {
	case hasPrefixFold(rest, "infinity"):
		return sign(math.Inf(1)), j + 8, false
	case hasPrefixFold(rest, "inf"):
		return sign(math.Inf(1)), j + 3, false
	case hasPrefixFold(rest, "nan"):
		k := j + 3
		if k < len(s) && s[k] == '(' {
			e := k + 1
			for e < len(s) && (isDigit(s[e]) || s[e] == '_' || 'a' <= s[e]|32 && s[e]|32 <= 'z') {
				e++
			}
			if e < len(s) && s[e] == ')' {
				k = e + 1
			}
		}
		return math.NaN(), k, false
	}
	hex := len(rest) >= 2 && rest[0] == '0' && rest[1]|32 == 'x'
	k, digits, nonzero := j, 0, false
	if hex {
		k += 2
	}
	isD := isDigit
	if hex {
		isD = isHexDigit
	}
	for k < len(s) && isD(s[k]) {
		nonzero = nonzero || s[k] != '0'
		k++
		digits++
	}
	if k < len(s) && s[k] == '.' {
		k++
		for k < len(s) && isD(s[k]) {
			nonzero = nonzero || s[k] != '0'
			k++
			digits++
		}
	}
	if digits == 0 {
		if hex { // "0x" without digits: strtod reads the "0"
			return sign(0), j + 1, false
		}
		return 0, 0, false
	}
	mant := s[j:k]
	var exp []byte
	if e := k; e < len(s) && (hex && s[e]|32 == 'p' || !hex && s[e]|32 == 'e') {
		e++
		if e < len(s) && (s[e] == '+' || s[e] == '-') {
			e++
		}
		if e < len(s) && isDigit(s[e]) {
			for e < len(s) && isDigit(s[e]) {
				e++
			}
			exp = s[k+1 : e]
			k = e
		}
	}
	lit := string(mant)
	if hex {
		lit += "p"
		if exp == nil {
			lit += "0"
		}
	} else if exp != nil {
		lit += "e"
	}
	lit += string(exp)
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, 0, false
		}
		erange = true
	}
	if v == 0 && nonzero {
		erange = true
	}
	return sign(v), k, erange
}

// parseScore parses a score, increment or weight as Redis's getDoubleFromObject does: the whole
// argument must be a number, no leading space, no NaN, no overflow or underflow to zero.
func parseScore(b []byte) (float64, bool) {
	if len(b) == 0 || isCSpace(b[0]) {
		return 0, false
	}
	f, n, erange := strtod(b)
	if n != len(b) || math.IsNaN(f) || erange && (math.IsInf(f, 0) || f == 0) {
		return 0, false
	}
	return f, true
}

// parseRangeScore parses one end of a score range as Redis's zslParseRange does: "(" makes it
// exclusive, then plain strtod up to the end of the C string.
func parseRangeScore(b []byte) (f float64, ex, ok bool) {
	if len(b) > 0 && b[0] == '(' {
		ex = true
		b = b[1:]
	}
	if i := slices.Index(b, 0); i >= 0 {
		b = b[:i]
	}
	f, n, _ := strtod(b)
	if n != len(b) || math.IsNaN(f) {
		return 0, false, false
	}
	return f, ex, true
}

func parseScoreRange(minArg, maxArg []byte) (storage.ScoreRange, bool) {
	var r storage.ScoreRange
	var ok1, ok2 bool
	r.Min, r.MinEx, ok1 = parseRangeScore(minArg)
	r.Max, r.MaxEx, ok2 = parseRangeScore(maxArg)
	return r, ok1 && ok2
}

// parseLexBound parses "-", "+", "(member" or "[member".
func parseLexBound(b []byte) (storage.LexBound, bool) {
	if len(b) == 0 {
		return storage.LexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return storage.LexBound{}, false
		}
		inf := 1
		if b[0] == '-' {
			inf = -1
		}
		return storage.LexBound{Inf: inf, Ex: true}, true
	case '(':
		return storage.LexBound{Value: b[1:], Ex: true}, true
	case '[':
		return storage.LexBound{Value: b[1:]}, true
	}
	return storage.LexBound{}, false
}

func parseLexRange(minArg, maxArg []byte) (storage.LexRange, bool) {
	lo, ok1 := parseLexBound(minArg)
	hi, ok2 := parseLexBound(maxArg)
	return storage.LexRange{Min: lo, Max: hi}, ok1 && ok2
}

// zRangeLong parses argument i as Redis's getRangeLongFromObjectOrReply does, replying msg (or
// Redis's generic texts when msg is empty) on error.
func zRangeLong(c *Ctx, i int, lo, hi int64, msg string) (int64, bool) {
	n, err := ParseInt(c.Args[i])
	if err != nil {
		if msg == "" {
			msg = ErrNotInteger
		}
		c.W.Error(msg)
		return 0, false
	}
	if n < lo || n > hi {
		if msg == "" {
			msg = "ERR value is out of range, value must between " + strconv.FormatInt(lo, 10) +
				" and " + strconv.FormatInt(hi, 10)
		}
		c.W.Error(msg)
		return 0, false
	}
	return n, true
}

// ----------------------------------------------------------------------------- replies

// zWriteEntry writes one member, with its score when withScores is set: flat in RESP2, a
// [member, score] pair in RESP3, as Redis 7.0 replies to ZRANGE WITHSCORES.
func zWriteEntry(w *Writer, member []byte, score float64, withScores bool) {
	if withScores && w.Proto == 3 {
		w.Array(2)
	}
	w.Bulk(member)
	if withScores {
		w.Double(score)
	}
}

// zArrayLen returns the array length of n entries in a ZRANGE-style reply.
func zArrayLen(w *Writer, n int, withScores bool) int {
	if withScores && w.Proto != 3 {
		return 2 * n
	}
	return n
}

// zWriteEntries writes entries as an array in ZRANGE's shape.
func zWriteEntries(w *Writer, es []storage.ZEntry, withScores bool) {
	w.Array(zArrayLen(w, len(es), withScores))
	for _, e := range es {
		zWriteEntry(w, e.Member, e.Score, withScores)
	}
}

// zDeferred streams entries after an array header whose length is only known at the end.
type zDeferred struct {
	w          *Writer
	start, n   int
	withScores bool
}

func zBeginDeferred(w *Writer, withScores bool) *zDeferred {
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
		f, ok := parseScore(c.Args[i+2*j])
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

// ------------------------------------------------------------------------------- pops

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
	numKeys, ok := zRangeLong(c, 1, 1, math.MaxInt64, errZNumKeys)
	if !ok {
		return
	}
	whereIdx := 2 + numKeys
	if whereIdx >= int64(len(c.Args)) {
		c.W.Error(ErrSyntax)
		return
	}
	var max bool
	switch a := c.Args[whereIdx]; {
	case zfold(a, "min"):
	case zfold(a, "max"):
		max = true
	default:
		c.W.Error(ErrSyntax)
		return
	}
	count := int64(-1)
	for j := int(whereIdx) + 1; j < len(c.Args); j++ {
		if count == -1 && zfold(c.Args[j], "count") && j+1 < len(c.Args) {
			j++
			n, ok := zRangeLong(c, j, 1, math.MaxInt64, errZCount)
			if !ok {
				return
			}
			count = n
			continue
		}
		c.W.Error(ErrSyntax)
		return
	}
	if count == -1 {
		count = 1
	}
	if !zpopGeneric(c, c.Args[2:whereIdx], max, count, true, true) {
		c.W.NullArray()
	}
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
		es, err := z.Pop(max, max64(count, 1))
		if err == nil {
			err = z.Save()
		}
		if err != nil {
			c.Fail(err)
			return true
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

func max64(a, b int64) int64 {
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
	z, ok := zOpen(c, 1)
	if !ok {
		return
	}
	if !z.Exists() || l == 0 {
		c.W.Array(0)
		return
	}
	size := z.Len()
	start := c.W.Len()
	if l < 0 || l == 1 {
		// Independent draws, in random order.
		count := l
		if l < 0 {
			count = -l
		}
		c.W.Array(zArrayLen(c.W, int(count), withScores))
		if count > zrandBatch && size <= zrandInMemory {
			// Many draws from a small set: read it once.
			es, err := zCollect(func(fn func([]byte, float64) bool) error { return z.Scan(false, fn) })
			if err != nil {
				c.W.Truncate(start)
				c.Fail(err)
				return
			}
			for ; count > 0; count-- {
				e := es[rand.IntN(len(es))]
				zWriteEntry(c.W, e.Member, e.Score, withScores)
			}
			return
		}
		for count > 0 {
			n := min(count, zrandBatch)
			count -= n
			ranks := make([]int64, n)
			for i := range ranks {
				ranks[i] = rand.Int64N(size)
			}
			if !zrandEmit(c, start, z, ranks, withScores) {
				return
			}
		}
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
	c.W.Array(zArrayLen(c.W, len(ranks), withScores))
	zrandEmit(c, start, z, ranks, withScores)
}

// zrandEmit writes the members at ranks, in the order given, fetching them in one walk of the
// score index.
func zrandEmit(c *Ctx, start int, z *storage.ZSet, ranks []int64, withScores bool) bool {
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
		c.W.Truncate(start)
		c.Fail(err)
		return false
	}
	for _, r := range ranks {
		e := got[r]
		zWriteEntry(c.W, e.Member, e.Score, withScores)
	}
	return true
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
