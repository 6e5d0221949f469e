package commands

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/strata-db/strata/internal/cursor"
	"github.com/strata-db/strata/internal/glob"
	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// cursors maps the cursor numbers SCAN, HSCAN, SSCAN and ZSCAN issue to scan positions.
var cursors = cursor.NewTable()

func init() {
	register(
		&Command{Name: "scan", Arity: -2, Flags: FlagReadonly, Handler: cmdScan},
		&Command{Name: "keys", Arity: 2, Flags: FlagReadonly, Handler: cmdKeys},
		&Command{Name: "hscan", Arity: -3, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdCollScan},
		&Command{Name: "sscan", Arity: -3, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdCollScan},
		&Command{Name: "zscan", Arity: -3, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdCollScan},
	)
}

// scanOpts are the parsed options of SCAN and its siblings.
type scanOpts struct {
	count    int64
	pattern  []byte // nil: no MATCH (or MATCH *)
	typeName string // "": no TYPE
}

// parseScanOpts parses COUNT, MATCH and (for SCAN) TYPE from args[i:], replying on error.
func parseScanOpts(c *Ctx, i int, allowType bool) (scanOpts, bool) {
	o := scanOpts{count: 10}
	for ; i < len(c.Args); i += 2 {
		more := len(c.Args) - i
		switch opt := strings.ToLower(c.Arg(i)); {
		case opt == "count" && more >= 2:
			n, err := num.ParseInt(c.Args[i+1])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return o, false
			}
			if n < 1 {
				c.W.Error(ErrSyntax)
				return o, false
			}
			o.count = n
		case opt == "match" && more >= 2:
			o.pattern = c.Args[i+1]
			if len(o.pattern) == 1 && o.pattern[0] == '*' {
				o.pattern = nil
			}
		case opt == "type" && allowType && more >= 2:
			o.typeName = c.Arg(i + 1)
		default:
			c.W.Error(ErrSyntax)
			return o, false
		}
	}
	return o, true
}

// beginRead gives a command without key arguments (SCAN, KEYS, RANDOMKEY) a read transaction
// on its database, unless its caller already runs it inside one. The dispatcher commits (a
// no-op) and releases it.
func beginRead(c *Ctx) {
	if c.Txn == nil {
		c.Txn = c.Store.Begin(c.Client.DB, nil, false)
	}
}

// writeScanReply writes [cursor, elements].
func writeScanReply(c *Ctx, cursor uint64, elems [][]byte) {
	c.W.Array(2)
	var tmp [20]byte
	c.W.Bulk(strconv.AppendUint(tmp[:0], cursor, 10))
	c.W.Array(len(elems))
	for _, e := range elems {
		c.W.Bulk(e)
	}
}

// ---------------------------------------------------------------------------------------------
// SCAN and KEYS

func cmdScan(c *Ctx) {
	cur, ok := cursor.Parse(c.Args[1])
	if !ok {
		c.W.Error("ERR invalid cursor")
		return
	}
	o, ok := parseScanOpts(c, 2, true)
	if !ok {
		return
	}
	pos := cursors.Lookup(cur)
	beginRead(c)
	var prefix []byte
	if o.pattern != nil {
		prefix = glob.Prefix(o.pattern)
	}
	it := c.Txn.ScanKeys(prefix, pos.Start())
	var out [][]byte
	var last []byte
	examined := int64(0)
	more := false
	for it.Next() {
		if examined == o.count {
			more = true
			break
		}
		examined++
		k := it.Key()
		last = append(last[:0], k...)
		if it.Expired() {
			c.Txn.NoteExpired(k) // deleted once the scan is done, as Redis's SCAN expires it
			continue
		}
		if o.typeName != "" && !strings.EqualFold(o.typeName, it.Meta().Type.String()) ||
			o.pattern != nil && !glob.Match(o.pattern, k, false) {
			continue
		}
		out = append(out, append([]byte(nil), k...))
	}
	if err := it.Close(); err != nil {
		c.Fail(err)
		return
	}
	next := uint64(0)
	if more {
		next = cursors.Issue(last)
	}
	writeScanReply(c, next, out)
}

func cmdKeys(c *Ctx) {
	pattern := c.Args[1]
	all := len(pattern) == 1 && pattern[0] == '*'
	beginRead(c)
	var prefix []byte
	if !all {
		prefix = glob.Prefix(pattern)
	}
	it := c.Txn.ScanKeys(prefix, nil)
	var out [][]byte
	for it.Next() {
		if it.Expired() || !all && !glob.Match(pattern, it.Key(), false) {
			continue
		}
		out = append(out, append([]byte(nil), it.Key()...))
	}
	if err := it.Close(); err != nil {
		c.Fail(err)
		return
	}
	c.W.Array(len(out))
	for _, k := range out {
		c.W.Bulk(k)
	}
}

// ---------------------------------------------------------------------------------------------
// HSCAN, SSCAN, ZSCAN

// Element layouts within a collection's object: hash field -> value, set member -> empty,
// zset 0x00+member -> 8-byte score (and a 0x01 score index, which scans skip).
var zsetMemberPrefix = []byte{0x00}

func cmdCollScan(c *Ctx) {
	cur, ok := cursor.Parse(c.Args[2])
	if !ok {
		c.W.Error("ERR invalid cursor")
		return
	}
	want := map[string]storage.Type{"hscan": storage.TypeHash, "sscan": storage.TypeSet, "zscan": storage.TypeZSet}[c.Cmd.Name]
	m, err := c.Txn.GetMetaOf(c.Args[1], want)
	if err != nil {
		c.Fail(err)
		return
	}
	if m == nil {
		writeScanReply(c, 0, nil)
		return
	}
	o, ok := parseScanOpts(c, 3, false)
	if !ok {
		return
	}
	if m.Enc == storage.EncPacked {
		scanPacked(c, m, o)
		return
	}
	var sub []byte
	if want == storage.TypeZSet {
		sub = zsetMemberPrefix
	}
	pos := cursors.Lookup(cur)
	var prefix []byte
	if o.pattern != nil {
		prefix = glob.Prefix(o.pattern)
	}
	it := c.Txn.ScanData(m.ID, sub, prefix, pos.Start())
	type elem struct {
		name  []byte
		score float64
		value []byte
	}
	var out []elem
	var last []byte
	examined := int64(0)
	more := false
	skip := storage.DataPrefixLen + len(sub)
	for it.Next() {
		if examined == o.count {
			more = true
			break
		}
		examined++
		name := it.Key()[skip:]
		last = append(last[:0], name...)
		if o.pattern != nil && !glob.Match(o.pattern, name, false) {
			continue
		}
		e := elem{name: append([]byte(nil), name...)}
		switch want {
		case storage.TypeHash:
			e.value = append([]byte(nil), it.Value()...)
		case storage.TypeZSet:
			if len(it.Value()) == 8 {
				e.score = storage.DecodeScore(it.Value())
			}
		}
		out = append(out, e)
	}
	if err := it.Close(); err != nil {
		c.Fail(err)
		return
	}
	next := uint64(0)
	if more {
		next = cursors.Issue(last)
	}
	n := len(out)
	if want != storage.TypeSet {
		n *= 2
	}
	c.W.Array(2)
	var tmp [32]byte
	c.W.Bulk(strconv.AppendUint(tmp[:0], next, 10))
	c.W.Array(n)
	for _, e := range out {
		c.W.Bulk(e.name)
		switch want {
		case storage.TypeHash:
			c.W.Bulk(e.value)
		case storage.TypeZSet:
			c.W.Bulk(resp.FormatScore(tmp[:0], e.score))
		}
	}
}

// scanPacked answers HSCAN, SSCAN or ZSCAN of packed collection m as Redis answers a listpack
// or an intset: every element matching the pattern in one reply, in the collection's order,
// with cursor 0.
func scanPacked(c *Ctx, m *storage.Meta, o scanOpts) {
	var out [][]byte
	keep := func(name []byte, rest ...[]byte) bool {
		if o.pattern == nil || glob.Match(o.pattern, name, false) {
			out = append(out, bytes.Clone(name))
			for _, r := range rest {
				out = append(out, bytes.Clone(r))
			}
		}
		return true
	}
	var err error
	switch m.Type {
	case storage.TypeHash:
		err = c.Txn.HashEach(m, func(f, v []byte) bool { return keep(f, v) })
	case storage.TypeSet:
		err = c.Txn.SetEach(m, func(mem []byte) bool { return keep(mem) })
	case storage.TypeZSet:
		var z *storage.ZSet
		if z, err = c.Txn.ZSetOf(m); err == nil {
			var tmp [32]byte
			err = z.Scan(false, func(mem []byte, score float64) bool {
				return keep(mem, resp.FormatScore(tmp[:0], score))
			})
		}
	}
	if err != nil {
		c.Fail(err)
		return
	}
	writeScanReply(c, 0, out)
}
