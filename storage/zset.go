package storage

import (
	"bytes"
	"math"
	"slices"
)

// Sorted-set layout. A small sorted set is packed (packed.go). Otherwise, under the set's
// object ID every member has two records:
//
//	0x00 member                    → EncodeScore(score)   member record (ZSCORE, ZSCAN)
//	0x01 EncodeScore(score) member → empty                score index, ordered as Redis orders
//	                                                      the set: by score, then by member bytes
//
// The member count lives in Meta.Size, so ZCARD is O(1). Range queries by rank, score or lex walk
// the score index with one bounded iterator; a rank window skips its offset inside that iterator,
// so its cost grows with the offset (from whichever end of the set is nearer), as in other
// LevelDB-backed designs. -0 is stored as +0 (EncodeScore), as Redis's compact encoding does.
const (
	ZSetMemberTag = 0x00
	ZSetScoreTag  = 0x01
)

// ZSetMemberKey returns the key of member's record in the sorted set with object ID id.
func ZSetMemberKey(dst []byte, id uint64, member []byte) []byte {
	dst = DataKey(dst, id, nil)
	dst = append(dst, ZSetMemberTag)
	return append(dst, member...)
}

// ZSetScoreKey returns the score-index key of member with score in the sorted set id.
func ZSetScoreKey(dst []byte, id uint64, score float64, member []byte) []byte {
	dst = DataKey(dst, id, nil)
	dst = append(dst, ZSetScoreTag)
	dst = EncodeScore(dst, score)
	return append(dst, member...)
}

// zsetIndexHead is the length of a score-index key before the member.
const zsetIndexHead = DataPrefixLen + 1 + 8

// ZEntry is one member of a sorted set with its score.
type ZEntry struct {
	Member []byte
	Score  float64
}

// ScoreRange is a score interval; MinEx and MaxEx make an end exclusive.
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

// Empty reports whether no score can lie in r.
func (r ScoreRange) Empty() bool {
	return r.Min > r.Max || r.Min == r.Max && (r.MinEx || r.MaxEx)
}

// LexBound is one end of a lexicographic range: "-" (Inf -1), "+" (Inf 1), "[value" or
// "(value" (Ex).
type LexBound struct {
	Value []byte
	Ex    bool
	Inf   int
}

// LexRange is a lexicographic interval over member bytes.
type LexRange struct{ Min, Max LexBound }

// zcmpLex compares v with bound b as Redis's sdscmplex does, "-" and "+" being the smallest and
// largest strings.
func zcmpLex(v []byte, b LexBound) int {
	switch b.Inf {
	case -1:
		return 1
	case 1:
		return -1
	}
	return bytes.Compare(v, b.Value)
}

// GteMin reports whether v is at or above r's lower end.
func (r LexRange) GteMin(v []byte) bool {
	c := zcmpLex(v, r.Min)
	if r.Min.Ex {
		return c > 0
	}
	return c >= 0
}

// LteMax reports whether v is at or below r's upper end.
func (r LexRange) LteMax(v []byte) bool {
	c := zcmpLex(v, r.Max)
	if r.Max.Ex {
		return c < 0
	}
	return c <= 0
}

// Empty reports whether no string can lie in r.
func (r LexRange) Empty() bool {
	var c int
	switch {
	case r.Min.Inf != 0 && r.Min.Inf == r.Max.Inf:
		c = 0
	case r.Min.Inf == -1 || r.Max.Inf == 1:
		c = -1
	case r.Min.Inf == 1 || r.Max.Inf == -1:
		c = 1
	default:
		c = bytes.Compare(r.Min.Value, r.Max.Value)
	}
	return c > 0 || c == 0 && (r.Min.Ex || r.Max.Ex)
}

// ZSet is a sorted set opened in a transaction. Changes to a set of the record layout are
// staged in the transaction at once; a packed set (packed.go) is changed in memory. Save
// writes the packed record, converting the set when it has grown past zset-max-listpack-*,
// and the member count (or deletes the key once the set is empty).
type ZSet struct {
	t       *Txn
	key     []byte
	m       *Meta // nil while the set does not exist
	existed bool  // the key held a sorted set when opened
	dirty   bool  // the metadata changed
	kb      []byte

	// p holds a packed set's members and encoded scores, alternating, by score then member.
	p      [][]byte
	pdirty bool // p changed
	long   bool // a member longer than zset-max-listpack-value was added
}

// ZSet opens the sorted set at key. It returns ErrWrongType if key holds another type; a
// missing key gives an empty set that Put creates.
func (t *Txn) ZSet(key []byte) (*ZSet, error) {
	m, err := t.GetMetaOf(key, TypeZSet)
	if err != nil {
		return nil, err
	}
	z := &ZSet{t: t, key: key, m: m, existed: m != nil}
	return z, z.load()
}

// ZSetOf returns the sorted set whose metadata is m, for reading.
func (t *Txn) ZSetOf(m *Meta) (*ZSet, error) {
	z := &ZSet{t: t, m: m, existed: true}
	return z, z.load()
}

// Exists reports whether the set has members.
func (z *ZSet) Exists() bool { return z.m != nil && z.m.Size > 0 }

// Len returns the number of members.
func (z *ZSet) Len() int64 {
	if z.m == nil {
		return 0
	}
	return int64(z.m.Size)
}

// Score returns member's score and whether member is in the set.
func (z *ZSet) Score(member []byte) (float64, bool, error) {
	if z.m == nil {
		return 0, false, nil
	}
	if z.packed() {
		if i := z.pfind(member); i >= 0 {
			return DecodeScore(z.p[i+1]), true, nil
		}
		return 0, false, nil
	}
	z.kb = ZSetMemberKey(z.kb[:0], z.m.ID, member)
	v, ok, err := z.t.get(z.kb)
	if err != nil || !ok {
		return 0, false, err
	}
	if len(v) != 8 {
		return 0, false, errCorrupt
	}
	return DecodeScore(v), true, nil
}

// Put sets member's score. old and had are member's current state, as Score reports it.
func (z *ZSet) Put(member []byte, score, old float64, had bool) error {
	if had {
		if old == score { // -0 and +0 included: Redis leaves the member alone
			return nil
		}
		if z.packed() {
			i := z.pfind(member)
			z.p = slices.Delete(z.p, i, i+2)
		} else {
			z.kb = ZSetScoreKey(z.kb[:0], z.m.ID, old, member)
			z.t.del(z.kb)
		}
	} else {
		if z.m == nil {
			id, err := z.t.NewID()
			if err != nil {
				return err
			}
			z.m = &Meta{Type: TypeZSet, ID: id, Enc: z.t.newEnc(TypeZSet)}
		}
		z.m.Size++
		z.dirty = true
	}
	if z.packed() {
		lim := z.t.s.PackLimits()
		z.long = z.long || int64(len(member)) > lim.ZSetValue
		z.pinsert(member, score)
		if z.long || int64(z.m.Size) > lim.ZSetEntries {
			z.toRecords() // at once, as Redis converts: a long ZADD stays linear
		}
		return nil
	}
	z.kb = ZSetScoreKey(z.kb[:0], z.m.ID, score, member)
	z.t.put(z.kb, nil)
	z.kb = ZSetMemberKey(z.kb[:0], z.m.ID, member)
	z.t.put(z.kb, EncodeScore(nil, score))
	return nil
}

// Add sets member's score and reports whether member is new.
func (z *ZSet) Add(member []byte, score float64) (bool, error) {
	old, had, err := z.Score(member)
	if err != nil {
		return false, err
	}
	return !had, z.Put(member, score, old, had)
}

// Remove deletes member and reports whether it was there.
func (z *ZSet) Remove(member []byte) (bool, error) {
	score, had, err := z.Score(member)
	if err != nil || !had {
		return false, err
	}
	z.removeEntry(member, score)
	return true, nil
}

func (z *ZSet) removeEntry(member []byte, score float64) {
	if z.packed() {
		if i := z.pfind(member); i >= 0 {
			z.p = slices.Delete(z.p, i, i+2)
			z.pdirty = true
		}
		z.m.Size--
		z.dirty = true
		return
	}
	z.kb = ZSetScoreKey(z.kb[:0], z.m.ID, score, member)
	z.t.del(z.kb)
	z.kb = ZSetMemberKey(z.kb[:0], z.m.ID, member)
	z.t.del(z.kb)
	z.m.Size--
	z.dirty = true
}

// Save stages the set's metadata: the new member count, or the key's deletion when the set is
// empty. It keeps the key's expiry.
func (z *ZSet) Save() error {
	if z.pdirty && z.packed() && z.m.Size > 0 {
		if z.long || int64(z.m.Size) > z.t.s.PackLimits().ZSetEntries {
			z.toRecords()
		} else {
			z.pdirty = false
			z.t.putPacked(z.m.ID, z.p)
		}
	}
	if !z.dirty || z.m == nil {
		return nil
	}
	z.dirty = false
	if z.m.Size == 0 {
		if z.existed {
			z.existed = false
			_, err := z.t.Delete(z.key)
			return err
		}
		return nil
	}
	z.existed = true
	return z.t.PutMeta(z.key, z.m)
}

// toRecords converts the packed set to one record per member.
func (z *ZSet) toRecords() {
	z.t.unpack(z.m, z.p, 2, func(e [][]byte) {
		z.t.put(ZSetMemberKey(nil, z.m.ID, e[0]), e[1])
		z.t.put(ZSetScoreKey(nil, z.m.ID, DecodeScore(e[1]), e[0]), nil)
	})
	z.p, z.pdirty, z.dirty = nil, false, true
}

// indexBounds returns the first score-index key and the key just past the index.
func (z *ZSet) indexBounds() (start, end []byte) {
	start = append(DataKey(nil, z.m.ID, nil), ZSetScoreTag)
	end = append(DataKey(nil, z.m.ID, nil), ZSetScoreTag+1)
	return start, end
}

// scan walks the score index over [start, limit), calling fn with each member (valid during the
// call only) and score until fn returns false.
func (z *ZSet) scan(start, limit []byte, reverse bool, fn func(member []byte, score float64) bool) error {
	if bytes.Compare(start, limit) >= 0 {
		return nil
	}
	if z.packed() {
		return z.scanPacked(start, limit, reverse, fn)
	}
	it := z.t.Iterate(start, limit, reverse)
	for it.Next() {
		k := it.Key()
		if len(k) < zsetIndexHead {
			it.Close()
			return errCorrupt
		}
		if !fn(k[zsetIndexHead:], DecodeScore(k[DataPrefixLen+1:])) {
			break
		}
	}
	return it.Close()
}

// Scan calls fn for every member in score order (reverse: from the highest) until fn returns
// false. The member slice is valid during the call only.
func (z *ZSet) Scan(reverse bool, fn func(member []byte, score float64) bool) error {
	if !z.Exists() {
		return nil
	}
	start, end := z.indexBounds()
	return z.scan(start, end, reverse, fn)
}

// Members calls fn for every member in member order until fn returns false, reading the member
// records. The member slice is valid during the call only.
func (z *ZSet) Members(fn func(member []byte, score float64) bool) error {
	if !z.Exists() {
		return nil
	}
	if z.packed() {
		idx := make([]int, len(z.p)/2)
		for i := range idx {
			idx[i] = 2 * i
		}
		slices.SortFunc(idx, func(a, b int) int { return bytes.Compare(z.p[a], z.p[b]) })
		for _, i := range idx {
			if !fn(z.p[i], DecodeScore(z.p[i+1])) {
				break
			}
		}
		return nil
	}
	start := append(DataKey(nil, z.m.ID, nil), ZSetMemberTag)
	limit := append(DataKey(nil, z.m.ID, nil), ZSetMemberTag+1)
	it := z.t.Iterate(start, limit, false)
	for it.Next() {
		v := it.Value()
		if len(v) != 8 {
			it.Close()
			return errCorrupt
		}
		if !fn(it.Key()[DataPrefixLen+1:], DecodeScore(v)) {
			break
		}
	}
	return it.Close()
}

// zsetReverseCost is how many forward steps one backward step of an iterator is worth when
// choosing from which end to reach a rank window.
const zsetReverseCost = 4

// RangeByRank calls fn for the members at ranks start..stop (0-based, inclusive, within
// [0, Len())), in order from the lowest score, or from the highest when reverse is set. It
// walks from whichever end of the set is cheaper to reach the window from.
func (z *ZSet) RangeByRank(start, stop int64, reverse bool, fn func(member []byte, score float64) bool) error {
	n := z.Len()
	if start < 0 || stop >= n || start > stop {
		return nil
	}
	want := stop - start + 1
	lo, hi := z.indexBounds()
	// Skipping backwards costs more than forwards (LevelDB's memtable steps back with a search
	// from its head), so the window is reached from the far end only when that is much nearer.
	far := n - 1 - stop
	nearCost, farCost := start, far
	if reverse {
		nearCost *= zsetReverseCost
	} else {
		farCost *= zsetReverseCost
	}
	if farCost < nearCost {
		// Cheaper from the other end: collect the window in the opposite order, then replay it.
		buf := make([]ZEntry, 0, min(want, 1024))
		skip := far
		err := z.scan(lo, hi, !reverse, func(m []byte, s float64) bool {
			if skip > 0 {
				skip--
				return true
			}
			buf = append(buf, ZEntry{append([]byte(nil), m...), s})
			return int64(len(buf)) < want
		})
		if err != nil {
			return err
		}
		for i := len(buf) - 1; i >= 0; i-- {
			if !fn(buf[i].Member, buf[i].Score) {
				break
			}
		}
		return nil
	}
	skip, left := start, want
	return z.scan(lo, hi, reverse, func(m []byte, s float64) bool {
		if skip > 0 {
			skip--
			return true
		}
		left--
		return fn(m, s) && left > 0
	})
}

// scoreBounds returns the score-index keys bounding r.
func (z *ZSet) scoreBounds(r ScoreRange) (start, limit []byte) {
	head := append(DataKey(nil, z.m.ID, nil), ZSetScoreTag)
	start = EncodeScore(append([]byte(nil), head...), r.Min)
	if r.MinEx {
		start = prefixEnd(start)
	}
	limit = EncodeScore(head, r.Max)
	if !r.MaxEx {
		limit = prefixEnd(limit)
	}
	return start, limit
}

// zwindow skips offset entries, then passes at most count (negative: all) to fn, as Redis's
// LIMIT does. A negative offset selects nothing.
func zwindow(offset, count int64, fn func([]byte, float64) bool) func([]byte, float64) bool {
	return func(m []byte, s float64) bool {
		if offset > 0 {
			offset--
			return true
		}
		if count == 0 {
			return false
		}
		count--
		return fn(m, s) && count != 0
	}
}

// RangeByScore calls fn for the members with scores in r, from the lowest score (reverse: the
// highest), skipping offset of them and passing at most count (negative: all).
func (z *ZSet) RangeByScore(r ScoreRange, reverse bool, offset, count int64, fn func(member []byte, score float64) bool) error {
	if !z.Exists() || r.Empty() || offset < 0 || count == 0 {
		return nil
	}
	start, limit := z.scoreBounds(r)
	return z.scan(start, limit, reverse, zwindow(offset, count, fn))
}

// CountByScore returns the number of members with scores in r.
func (z *ZSet) CountByScore(r ScoreRange) (int64, error) {
	var n int64
	err := z.RangeByScore(r, false, 0, -1, func([]byte, float64) bool { n++; return true })
	return n, err
}

// endScore returns the lowest (or, with last, the highest) score in the set.
func (z *ZSet) endScore(last bool) (float64, bool, error) {
	var score float64
	found := false
	err := z.Scan(last, func(_ []byte, s float64) bool { score, found = s, true; return false })
	return score, found, err
}

// RangeByLex calls fn for the members in lex range r, skipping offset of them and passing at
// most count (negative: all). Lex ranges are meant for sets whose members all have the same
// score; on other sets the result follows Redis's compact encoding: walk the set in score order
// (reverse: from the highest), skip members below the range (above it, reverse), then take
// members while they stay in it. The walk seeks straight to the range within the end score.
func (z *ZSet) RangeByLex(r LexRange, reverse bool, offset, count int64, fn func(member []byte, score float64) bool) error {
	if !z.Exists() || r.Empty() || offset < 0 || count == 0 {
		return nil
	}
	lo, hi := z.indexBounds()
	if !reverse && r.Min.Inf == 0 {
		s0, ok, err := z.endScore(false)
		if err != nil || !ok {
			return err
		}
		lo = append(EncodeScore(lo, s0), r.Min.Value...)
		if r.Min.Ex {
			lo = append(lo, 0)
		}
	}
	if reverse && r.Max.Inf == 0 {
		s1, ok, err := z.endScore(true)
		if err != nil || !ok {
			return err
		}
		hi = append(EncodeScore(append(DataKey(nil, z.m.ID, nil), ZSetScoreTag), s1), r.Max.Value...)
		if !r.Max.Ex {
			hi = append(hi, 0)
		}
	}
	inner := zwindow(offset, count, fn)
	seeking := true
	return z.scan(lo, hi, reverse, func(m []byte, s float64) bool {
		if seeking {
			if reverse && !r.LteMax(m) || !reverse && !r.GteMin(m) {
				return true
			}
			seeking = false
			// The first member found must lie in the range, whatever the offset.
			if reverse && !r.GteMin(m) || !reverse && !r.LteMax(m) {
				return false
			}
		} else if offset <= 0 {
			if reverse && !r.GteMin(m) || !reverse && !r.LteMax(m) {
				return false
			}
		}
		if offset > 0 {
			offset--
		}
		return inner(m, s)
	})
}

// CountByLex returns the number of members in lex range r.
func (z *ZSet) CountByLex(r LexRange) (int64, error) {
	var n int64
	err := z.RangeByLex(r, false, 0, -1, func([]byte, float64) bool { n++; return true })
	return n, err
}

// Rank returns member's 0-based rank from the lowest score (reverse: from the highest) and
// whether member is in the set. It counts the index entries on one side of the member.
func (z *ZSet) Rank(member []byte, reverse bool) (int64, bool, error) {
	if z.packed() {
		i := z.pfind(member)
		if i < 0 {
			return 0, false, nil
		}
		if reverse {
			return int64(len(z.p)-2-i) / 2, true, nil
		}
		return int64(i / 2), true, nil
	}
	score, ok, err := z.Score(member)
	if err != nil || !ok {
		return 0, false, err
	}
	lo, hi := z.indexBounds()
	key := ZSetScoreKey(nil, z.m.ID, score, member)
	if reverse {
		lo = append(key, 0)
	} else {
		hi = key
	}
	var n int64
	if bytes.Compare(lo, hi) < 0 {
		it := z.t.Iterate(lo, hi, false)
		for it.Next() {
			n++
		}
		if err := it.Close(); err != nil {
			return 0, false, err
		}
	}
	return n, true, nil
}

// zcollectEntries copies the entries fn-style range walkers produce.
func zcollectEntries(walk func(fn func([]byte, float64) bool) error) ([]ZEntry, error) {
	var out []ZEntry
	err := walk(func(m []byte, s float64) bool {
		out = append(out, ZEntry{append([]byte(nil), m...), s})
		return true
	})
	return out, err
}

func (z *ZSet) removeAll(es []ZEntry) int64 {
	for _, e := range es {
		z.removeEntry(e.Member, e.Score)
	}
	return int64(len(es))
}

// Pop removes and returns up to count members from the lowest end (max: the highest), in the
// order they are popped.
func (z *ZSet) Pop(max bool, count int64) ([]ZEntry, error) {
	if count <= 0 || !z.Exists() {
		return nil, nil
	}
	es, err := zcollectEntries(func(fn func([]byte, float64) bool) error {
		left := count
		return z.Scan(max, func(m []byte, s float64) bool { left--; return fn(m, s) && left > 0 })
	})
	if err != nil {
		return nil, err
	}
	z.removeAll(es)
	return es, nil
}

// RemoveRangeByRank removes the members at ranks start..stop (0-based, inclusive, within
// [0, Len())) and returns how many it removed.
func (z *ZSet) RemoveRangeByRank(start, stop int64) (int64, error) {
	es, err := zcollectEntries(func(fn func([]byte, float64) bool) error { return z.RangeByRank(start, stop, false, fn) })
	if err != nil {
		return 0, err
	}
	return z.removeAll(es), nil
}

// RemoveRangeByScore removes the members with scores in r and returns how many it removed.
func (z *ZSet) RemoveRangeByScore(r ScoreRange) (int64, error) {
	es, err := zcollectEntries(func(fn func([]byte, float64) bool) error { return z.RangeByScore(r, false, 0, -1, fn) })
	if err != nil {
		return 0, err
	}
	return z.removeAll(es), nil
}

// RemoveRangeByLex removes the members in lex range r (as RangeByLex selects them) and returns
// how many it removed.
func (z *ZSet) RemoveRangeByLex(r LexRange) (int64, error) {
	es, err := zcollectEntries(func(fn func([]byte, float64) bool) error { return z.RangeByLex(r, false, 0, -1, fn) })
	if err != nil {
		return 0, err
	}
	return z.removeAll(es), nil
}

// ZStore replaces whatever key holds with a sorted set of entries (members must be distinct),
// or deletes key when entries is empty. It returns the new set's size. The key loses any expiry.
func (t *Txn) ZStore(key []byte, entries []ZEntry) (int64, error) {
	if len(entries) == 0 {
		_, err := t.Delete(key)
		return 0, err
	}
	id, err := t.NewID()
	if err != nil {
		return 0, err
	}
	m := &Meta{Type: TypeZSet, ID: id, Size: uint64(len(entries)), Enc: t.newEnc(TypeZSet)}
	lim := t.s.PackLimits()
	if int64(len(entries)) > lim.ZSetEntries || slices.ContainsFunc(entries, func(e ZEntry) bool { return int64(len(e.Member)) > lim.ZSetValue }) {
		m.Enc = EncRecords
	}
	if err := t.PutMeta(key, m); err != nil {
		return 0, err
	}
	if m.Enc == EncPacked {
		z := &ZSet{t: t, key: key, m: m}
		for _, e := range entries {
			if math.IsNaN(e.Score) {
				return 0, errCorrupt
			}
			z.pinsert(e.Member, e.Score)
		}
		t.putPacked(id, z.p)
		return int64(len(entries)), nil
	}
	var kb []byte
	for _, e := range entries {
		if math.IsNaN(e.Score) {
			return 0, errCorrupt
		}
		kb = ZSetScoreKey(kb[:0], id, e.Score, e.Member)
		t.put(kb, nil)
		kb = ZSetMemberKey(kb[:0], id, e.Member)
		t.put(kb, EncodeScore(nil, e.Score))
	}
	return int64(len(entries)), nil
}
