package commands

import (
	"bytes"
	"container/list"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/strata-db/strata/internal/glob"
	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

func init() {
	register(
		&Command{Name: "scan", Arity: -2, Flags: FlagReadonly, Handler: cmdScan},
		&Command{Name: "keys", Arity: 2, Flags: FlagReadonly, Handler: cmdKeys},
		&Command{Name: "hscan", Arity: -3, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdCollScan},
		&Command{Name: "sscan", Arity: -3, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdCollScan},
		&Command{Name: "zscan", Arity: -3, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdCollScan},
	)
}

// ---------------------------------------------------------------------------------------------
// Cursors
//
// Keys and collection elements are iterated in byte order, so a scan's position is the last key
// (or member) it examined, and the next call resumes just after it: a key present for the whole
// scan is returned at least once however other clients write, and one that is deleted and
// re-created cannot be skipped either. Positions are arbitrary byte strings, but clients expect
// cursors to be numbers, so a server-side table maps cursor numbers to positions.
//
// A cursor is a 63-bit number (below 2^63, so clients that parse it as a signed 64-bit integer
// cope): the top 32 bits hold the first 4 bytes of the position, zero-padded, and the low 31 bits a
// sequence number that is never 0. Cursor 0 starts a scan and ends one. The table keeps the most
// recently issued cursors (LRU, bounded in entries and bytes). A cursor the table does not know
// (evicted, issued before a restart, or made up) restarts at its 4-byte prefix (trailing zero
// bytes dropped), which is never after the lost position: the guarantee holds, at the price of
// repeating some keys. A made-up small number has an empty prefix and restarts from the
// beginning. An issued number comes back only after 2^31 - 1 further cursors, and then is
// ambiguous only if its 4-byte prefix is the same as well.

const (
	cursorSeqBits   = 31
	cursorMaxItems  = 1 << 16
	cursorMaxBytes  = 64 << 20
	cursorPrefixLen = 4
)

// scanPos is where a scan resumes: strictly after key, or at key itself when inclusive.
type scanPos struct {
	key       []byte
	inclusive bool
}

type cursorEntry struct {
	cursor uint64
	pos    []byte
}

// cursorTable maps issued cursor numbers to scan positions.
type cursorTable struct {
	mu    sync.Mutex
	seq   uint64
	m     map[uint64]*list.Element
	lru   list.List // front: most recently issued
	bytes int
}

var cursors = &cursorTable{m: map[uint64]*list.Element{}}

// issue returns a new cursor number for position pos (the last key examined).
func (t *cursorTable) issue(pos []byte) uint64 {
	var pre [cursorPrefixLen]byte
	copy(pre[:], pos)
	hi := uint64(binary.BigEndian.Uint32(pre[:])) << cursorSeqBits
	t.mu.Lock()
	defer t.mu.Unlock()
	var cur uint64
	for {
		t.seq = t.seq%(1<<cursorSeqBits-1) + 1 // 1 .. 2^31-1
		cur = hi | t.seq
		if _, busy := t.m[cur]; !busy {
			break
		}
	}
	e := &cursorEntry{cursor: cur, pos: append([]byte(nil), pos...)}
	t.m[cur] = t.lru.PushFront(e)
	t.bytes += len(e.pos) + 64
	for t.lru.Len() > cursorMaxItems || t.bytes > cursorMaxBytes && t.lru.Len() > 1 {
		old := t.lru.Remove(t.lru.Back()).(*cursorEntry)
		delete(t.m, old.cursor)
		t.bytes -= len(old.pos) + 64
	}
	return cur
}

// lookup returns where the scan with cursor cur resumes.
func (t *cursorTable) lookup(cur uint64) scanPos {
	if cur == 0 {
		return scanPos{inclusive: true}
	}
	t.mu.Lock()
	el, ok := t.m[cur]
	var pos []byte
	if ok {
		pos = el.Value.(*cursorEntry).pos
	}
	t.mu.Unlock()
	if ok {
		return scanPos{key: pos}
	}
	var pre [cursorPrefixLen]byte
	binary.BigEndian.PutUint32(pre[:], uint32(cur>>cursorSeqBits))
	return scanPos{key: bytes.TrimRight(pre[:], "\x00"), inclusive: true}
}

// start returns the first key a scan resuming at p may return.
func (p scanPos) start() []byte {
	if p.inclusive {
		return p.key
	}
	return append(append([]byte(nil), p.key...), 0)
}

// parseCursor parses a cursor as Redis does with strtoul: optional sign, decimal digits, no
// leading space, nothing after; "" is 0 and "-n" wraps around. It reports false on anything
// else or on overflow.
func parseCursor(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	neg := false
	digits := b
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		digits = b[1:]
	}
	if len(digits) == 0 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
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
	cur, ok := parseCursor(c.Args[1])
	if !ok {
		c.W.Error("ERR invalid cursor")
		return
	}
	o, ok := parseScanOpts(c, 2, true)
	if !ok {
		return
	}
	pos := cursors.lookup(cur)
	beginRead(c)
	var prefix []byte
	if o.pattern != nil {
		prefix = glob.Prefix(o.pattern)
	}
	it := c.Txn.ScanKeys(prefix, pos.start())
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
		if it.Expired() ||
			o.typeName != "" && !strings.EqualFold(o.typeName, it.Meta().Type.String()) ||
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
		next = cursors.issue(last)
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
	cur, ok := parseCursor(c.Args[2])
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
	var sub []byte
	if want == storage.TypeZSet {
		sub = zsetMemberPrefix
	}
	// Redis answers a small (listpack or intset encoded) collection in one reply, whatever
	// COUNT says; so do we, in the order Redis's encoding has where it is deterministic.
	enc, err := objectEncoding(c.Txn, m)
	if err != nil {
		c.Fail(err)
		return
	}
	small := enc == "listpack" || enc == "intset"
	pos := scanPos{inclusive: true}
	if !small {
		pos = cursors.lookup(cur)
	}
	var prefix []byte
	if o.pattern != nil {
		prefix = glob.Prefix(o.pattern)
	}
	it := c.Txn.ScanData(m.ID, sub, prefix, pos.start())
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
		if !small && examined == o.count {
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
	switch {
	case enc == "intset":
		slices.SortFunc(out, func(a, b elem) int {
			x, _ := num.ParseInt(a.name)
			y, _ := num.ParseInt(b.name)
			return cmpInt(x, y)
		})
	case enc == "listpack" && want == storage.TypeZSet:
		slices.SortStableFunc(out, func(a, b elem) int {
			switch {
			case a.score < b.score:
				return -1
			case a.score > b.score:
				return 1
			}
			return bytes.Compare(a.name, b.name)
		})
	}
	next := uint64(0)
	if more {
		next = cursors.issue(last)
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

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
