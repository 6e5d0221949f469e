package commands

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-db/strata/storage"
)

func init() {
	register(
		&Command{Name: "sort", Arity: -2, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1,
			Keys: sortKeys, Handler: cmdSort},
		&Command{Name: "sort_ro", Arity: -2, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdSort},
	)
}

// sortKeys returns SORT's keys: the sorted key and the STORE destination, if any (the last
// STORE given wins, as in the handler).
func sortKeys(args [][]byte) [][]byte {
	if len(args) < 2 {
		return nil
	}
	keys := [][]byte{args[1]}
	var dst []byte
	for i := 2; i+1 < len(args); i++ {
		switch {
		case bytes.EqualFold(args[i], []byte("store")):
			dst = args[i+1]
			i++
		case bytes.EqualFold(args[i], []byte("limit")):
			i += 2
		case bytes.EqualFold(args[i], []byte("by")), bytes.EqualFold(args[i], []byte("get")):
			i++
		}
	}
	if dst != nil {
		keys = append(keys, dst)
	}
	return keys
}

// sortItem is one element of the sorted key with what it sorts by.
type sortItem struct {
	elem  []byte
	score float64
	by    []byte // ALPHA with BY: the pattern's value, nil when missing
}

// sortArgs are SORT's parsed options.
type sortArgs struct {
	desc, alpha, dontSort bool
	start, count          int64
	by                    []byte
	gets                  [][]byte
	store                 []byte
}

// parseSort parses SORT's options in Redis 7.0's order, answering the first error.
func parseSort(c *Ctx) (sortArgs, bool) {
	a := sortArgs{count: -1}
	ro := c.Cmd.Name == "sort_ro"
	fullAccess := c.Client.ACLUser == nil || c.Client.ACLUser.MayReadAnyKey(c.Cmd.Name, c.Args)
	for j := 2; j < len(c.Args); j++ {
		left := len(c.Args) - j - 1
		opt := c.Args[j]
		switch {
		case bytes.EqualFold(opt, []byte("asc")):
			a.desc = false
		case bytes.EqualFold(opt, []byte("desc")):
			a.desc = true
		case bytes.EqualFold(opt, []byte("alpha")):
			a.alpha = true
		case bytes.EqualFold(opt, []byte("limit")) && left >= 2:
			var ok bool
			if a.start, ok = c.Int(j + 1); !ok {
				return a, false
			}
			if a.count, ok = c.Int(j + 2); !ok {
				return a, false
			}
			j += 2
		case !ro && bytes.EqualFold(opt, []byte("store")) && left >= 1:
			a.store = c.Args[j+1]
			j++
		case bytes.EqualFold(opt, []byte("by")) && left >= 1:
			a.by = c.Args[j+1]
			if bytes.IndexByte(a.by, '*') < 0 {
				a.dontSort = true
			} else if !fullAccess {
				c.W.Error("ERR BY option of SORT denied due to insufficient ACL permissions.")
				return a, false
			}
			j++
		case bytes.EqualFold(opt, []byte("get")) && left >= 1:
			if !fullAccess {
				c.W.Error("ERR GET option of SORT denied due to insufficient ACL permissions.")
				return a, false
			}
			a.gets = append(a.gets, c.Args[j+1])
			j++
		default:
			c.W.Error(ErrSyntax)
			return a, false
		}
	}
	return a, true
}

// cmdSort implements SORT and SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...]
// [ASC|DESC] [ALPHA] [STORE destination] as Redis 7.0: lists, sets and sorted sets, numeric or
// ALPHA order, BY and GET through string keys and hash fields ("*->field"), "#" for the element.
func cmdSort(c *Ctx) {
	a, ok := parseSort(c)
	if !ok {
		return
	}
	if (a.by != nil && !a.dontSort || len(a.gets) > 0) && !c.Txn.Exclusive() {
		// BY and GET patterns read keys the command table cannot declare: run alone. Nothing
		// was read or written yet, so switching is safe.
		c.Txn.Abort()
		c.Txn = c.Store.BeginExclusive(c.Client.DB)
	}
	m, err := c.Txn.GetMeta(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	typ := storage.TypeList
	if m != nil {
		typ = m.Type
	}
	if typ != storage.TypeList && typ != storage.TypeSet && typ != storage.TypeZSet {
		c.W.Error(ErrWrongType)
		return
	}
	if a.dontSort && typ == storage.TypeSet && (a.store != nil || c.Script != nil) {
		// A set's own order is not deterministic: what is stored or seen by a script is sorted.
		a.dontSort, a.alpha, a.by = false, true, nil
	}
	n := int64(0)
	if m != nil {
		n = int64(m.Size)
	}
	start := min(max(a.start, 0), n)
	count := min(max(a.count, -1), n)
	end := n - 1
	if count >= 0 {
		end = start + count - 1
	}
	if start >= n {
		start, end = n-1, n-2
	}
	end = min(end, n-1)

	var items []sortItem
	if m != nil {
		if items, ok = sortLoad(c, m, a, start, end); !ok {
			return
		}
		if a.dontSort && typ != storage.TypeSet {
			end -= start // sortLoad took the range itself
			start = 0
		}
	}
	if !a.dontSort {
		if !sortItems(c, items, a) {
			return
		}
	}
	sortReply(c, items, a, start, end)
}

// sortLoad reads the elements to sort: a list or sorted set in its own order, for the LIMIT
// range only when nothing is sorted; a set whole.
func sortLoad(c *Ctx, m *storage.Meta, a sortArgs, start, end int64) ([]sortItem, bool) {
	var items []sortItem
	add := func(e []byte) { items = append(items, sortItem{elem: bytes.Clone(e)}) }
	var err error
	switch m.Type {
	case storage.TypeList:
		from, to := int64(0), int64(-1)
		if a.dontSort {
			if end < start {
				return nil, true
			}
			from, to = start, end
			if a.desc {
				from, to = int64(m.Size)-1-end, int64(m.Size)-1-start
			}
		}
		err = c.Txn.ListRange(c.Args[1], from, to, func(int) {}, add)
		if a.dontSort && a.desc {
			slices.Reverse(items)
		}
	case storage.TypeSet:
		err = c.Txn.SetEach(m, func(e []byte) bool { add(e); return true })
	case storage.TypeZSet:
		var z *storage.ZSet
		if z, err = c.Txn.ZSet(c.Args[1]); err == nil {
			if a.dontSort {
				if end >= start {
					err = z.RangeByRank(start, end, a.desc, func(e []byte, _ float64) bool { add(e); return true })
				}
			} else {
				err = z.Members(func(e []byte, _ float64) bool { add(e); return true })
			}
		}
	}
	if err != nil {
		c.Fail(err)
		return nil, false
	}
	return items, true
}

// sortItems looks up what each element sorts by and sorts them; it answers Redis's error for
// a weight that is not a number.
func sortItems(c *Ctx, items []sortItem, a sortArgs) bool {
	for i := range items {
		by := items[i].elem
		if a.by != nil {
			v, found, err := sortLookup(c, a.by, items[i].elem)
			if err != nil {
				c.Fail(err)
				return false
			}
			if !found {
				continue
			}
			by = v
		}
		if a.alpha {
			if a.by != nil {
				items[i].by = by
			}
			continue
		}
		f, ok := sortScore(by)
		if !ok {
			c.W.Error("ERR One or more scores can't be converted into double")
			return false
		}
		items[i].score = f
	}
	slices.SortStableFunc(items, func(x, y sortItem) int {
		var cmp int
		switch {
		case !a.alpha:
			if cmp = compareFloat(x.score, y.score); cmp == 0 {
				cmp = bytes.Compare(x.elem, y.elem)
			}
		case a.by != nil:
			switch {
			case x.by == nil || y.by == nil:
				cmp = compareBool(x.by != nil, y.by != nil)
			default:
				cmp = bytes.Compare(x.by, y.by)
			}
		default:
			cmp = bytes.Compare(x.elem, y.elem)
		}
		if a.desc {
			return -cmp
		}
		return cmp
	})
	return true
}

func compareFloat(x, y float64) int {
	switch {
	case x > y:
		return 1
	case x < y:
		return -1
	}
	return 0
}

func compareBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
}

// sortScore reads a weight as C's strtod does for SORT: leading blanks, decimal or
// hexadecimal, "inf" and "infinity"; the whole string must be used, NaN and values out of
// range are refused. An empty string is 0.
func sortScore(b []byte) (float64, bool) {
	s := strings.TrimLeft(string(b), " \t\n\v\f\r")
	if s == "" {
		return 0, len(b) == 0 // blanks alone convert nothing
	}
	body := strings.TrimLeft(s, "+-")
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') &&
		!strings.ContainsAny(body, "pP") {
		s += "p0"
	}
	if strings.ContainsRune(s, '_') {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// sortLookup resolves a BY or GET pattern for element elem: "#" is the element itself; the
// first '*' is replaced by the element, naming a string key, or a hash field when the rest
// holds "->field". A pattern without '*', a missing key or a key of another type finds nothing.
func sortLookup(c *Ctx, pattern, elem []byte) ([]byte, bool, error) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return elem, true, nil
	}
	star := bytes.IndexByte(pattern, '*')
	if star < 0 {
		return nil, false, nil
	}
	rest := pattern[star+1:]
	var field []byte
	if f := bytes.Index(rest, []byte("->")); f >= 0 && f+2 < len(rest) {
		field, rest = rest[f+2:], rest[:f]
	}
	key := make([]byte, 0, star+len(elem)+len(rest))
	key = append(append(append(key, pattern[:star]...), elem...), rest...)
	m, err := c.Txn.GetMeta(key)
	if err != nil || m == nil {
		return nil, false, err
	}
	switch {
	case field != nil && m.Type == storage.TypeHash:
		return c.Txn.HashGet(key, field)
	case field == nil && m.Type == storage.TypeString:
		v, err := c.Txn.StringValue(m)
		return v, err == nil, err
	}
	return nil, false, nil
}

// sortReply answers the elements from start to end (or their GET values), or stores them as a
// list at the STORE destination and answers their number.
func sortReply(c *Ctx, items []sortItem, a sortArgs, start, end int64) {
	var out [][]byte
	var missing []bool // GET found nothing: null in a reply, "" when stored
	for j := start; j <= end && j >= 0; j++ {
		if len(a.gets) == 0 {
			out = append(out, items[j].elem)
			missing = append(missing, false)
			continue
		}
		for _, g := range a.gets {
			v, found, err := sortLookup(c, g, items[j].elem)
			if err != nil {
				c.Fail(err)
				return
			}
			out = append(out, bytes.Clone(v))
			missing = append(missing, !found)
		}
	}
	if a.store == nil {
		c.W.Array(len(out))
		for i, v := range out {
			if missing[i] {
				c.W.Null()
			} else {
				c.W.Bulk(v)
			}
		}
		return
	}
	if _, err := c.Txn.Delete(a.store); err != nil {
		c.Fail(err)
		return
	}
	if len(out) > 0 {
		for i := range out {
			if out[i] == nil {
				out[i] = []byte{}
			}
		}
		if _, err := c.Txn.ListPush(a.store, out, false, false); err != nil {
			c.Fail(err)
			return
		}
		c.Signal(a.store)
	}
	c.W.Int(int64(len(out)))
}
