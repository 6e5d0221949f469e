package storage

import (
	"bytes"
	"errors"
	"slices"

	"github.com/strata-db/strata/internal/num"
)

// A set of at most set-max-intset-entries members that are all integers (as Redis's string2ll
// reads them) is packed (packed.go), its members in numeric order, and OBJECT ENCODING calls it
// an intset; any other set uses the layout described in hash.go: DataKey(id, member) -> empty.
// A small set of other members is not packed: Redis 7.0 has no listpack sets, and a set that
// converts at its first non-integer member needs no other threshold.

// SetAdd adds members to set key, creating it when missing and keeping its expiry, and returns
// how many were new.
func (t *Txn) SetAdd(key []byte, members [][]byte) (int64, error) {
	m, err := t.collectionFor(key, TypeSet)
	if err != nil {
		return 0, err
	}
	if m.Enc == EncPacked {
		return t.setAddPacked(key, m, members)
	}
	var added uint64
	for _, mem := range members {
		_, ok, err := t.getSub(m.ID, mem)
		if err != nil {
			return 0, err
		}
		if !ok {
			added++
			t.put(DataKey(nil, m.ID, mem), nil)
		}
	}
	if added == 0 {
		return 0, nil
	}
	return int64(added), t.putMetaSize(key, m, m.Size+added)
}

// intsetMember reports whether member can be in a packed set, and its value.
func intsetMember(member []byte) (int64, bool) {
	v, err := num.ParseInt(member)
	return v, err == nil
}

// setAddPacked is SetAdd on a packed set: integers go in numeric order, and the first other
// member, or a member past set-max-intset-entries, converts the set.
func (t *Txn) setAddPacked(key []byte, m *Meta, members [][]byte) (int64, error) {
	elems, err := t.packedElems(m)
	if err != nil {
		return 0, err
	}
	out := append(make([][]byte, 0, len(elems)+len(members)), elems...)
	fits := true
	var added uint64
	idx := packedIndex{step: 1} // only whether a member is there counts: inserts move the rest
	limit := t.s.PackLimits().SetIntEntries
	for _, mem := range members {
		if idx.find(out, mem) >= 0 {
			continue
		}
		added++
		idx.add(mem, len(out))
		v, ok := intsetMember(mem)
		if fits = fits && ok && int64(len(out)) < limit; !fits {
			out = append(out, mem) // the set converts: its order no longer matters
			continue
		}
		i, _ := slices.BinarySearchFunc(out, v, func(e []byte, v int64) int {
			x, _ := num.ParseInt(e)
			return cmpInt64(x, v)
		})
		out = slices.Insert(out, i, mem)
	}
	if added == 0 {
		return 0, nil
	}
	if !fits || int64(len(out)) > t.s.PackLimits().SetIntEntries {
		t.unpack(m, out, 1, func(e [][]byte) { t.put(DataKey(nil, m.ID, e[0]), nil) })
	} else {
		t.putPacked(m.ID, out)
	}
	return int64(added), t.putMetaSize(key, m, m.Size+added)
}

// sortIntset returns members, whose values are vals, in numeric order.
func sortIntset(members [][]byte, vals []int64) [][]byte {
	idx := make([]int, len(members))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpInt64(vals[a], vals[b]) })
	out := make([][]byte, len(idx))
	for i, j := range idx {
		out[i] = members[j]
	}
	return out
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// setHas reports whether set m holds member.
func (t *Txn) setHas(m *Meta, member []byte) (bool, error) {
	if m.Enc == EncPacked {
		_, ok, err := t.packedLookup(m, 1, member)
		return ok, err
	}
	_, ok, err := t.getSub(m.ID, member)
	return ok, err
}

// SetRem removes members from set key, deleting the key when it becomes empty, and returns how
// many were there.
func (t *Txn) SetRem(key []byte, members [][]byte) (int64, error) {
	return t.delSubs(key, TypeSet, members)
}

// SetIsMember reports whether member is in set key.
func (t *Txn) SetIsMember(key, member []byte) (bool, error) {
	m, err := t.GetMetaOf(key, TypeSet)
	if err != nil || m == nil {
		return false, err
	}
	return t.setHas(m, member)
}

// SetMembership reports for each of members whether it is in set key.
func (t *Txn) SetMembership(key []byte, members [][]byte) ([]bool, error) {
	m, err := t.GetMetaOf(key, TypeSet)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(members))
	if m == nil {
		return out, nil
	}
	for i, mem := range members {
		if out[i], err = t.setHas(m, mem); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SetEach calls fn with every member of set m until fn returns false: in numeric order while
// the set is packed, in byte order once it is not. The slice is valid only during the call.
func (t *Txn) SetEach(m *Meta, fn func(member []byte) bool) error {
	return t.eachElem(m, func(sub, _ []byte) bool { return fn(sub) })
}

// SetRandom picks n members of set m: distinct ones (at most m.Size) when distinct is set,
// otherwise n independent uniform draws in random order. The slice passed to fn is valid only
// during the call.
func (t *Txn) SetRandom(m *Meta, n uint64, distinct bool, fn func(member []byte)) error {
	f := func(sub, _ []byte) { fn(sub) }
	if distinct {
		return t.sampleDistinct(m, n, f)
	}
	return t.sampleRepeat(m, n, f)
}

// SetPop removes up to n members of set key chosen uniformly at random and returns them,
// deleting the key when it becomes empty. A missing key gives no members.
func (t *Txn) SetPop(key []byte, n uint64) ([][]byte, error) {
	m, err := t.GetMetaOf(key, TypeSet)
	if err != nil || m == nil || n == 0 {
		return nil, err
	}
	var out [][]byte
	// sampleDistinct hands over copies, so they may be kept.
	err = t.sampleDistinct(m, n, func(sub, _ []byte) { out = append(out, sub) })
	if err != nil {
		return nil, err
	}
	if n >= m.Size {
		// The whole set goes: drop the key, the collector reclaims the members.
		_, err = t.Delete(key)
		return out, err
	}
	if m.Enc == EncPacked {
		_, err = t.delPacked(key, m, out)
		return out, err
	}
	for _, mem := range out {
		t.del(DataKey(nil, m.ID, mem))
	}
	return out, t.putMetaSize(key, m, m.Size-min(uint64(len(out)), m.Size))
}

// SetMove moves member from set src to set dst, as SMOVE does: it reports false when src does
// not exist or lacks member, ErrWrongType when src or dst holds another type, and when src and
// dst are the same key only whether member is there.
func (t *Txn) SetMove(src, dst, member []byte) (bool, error) {
	sm, err := t.GetMeta(src)
	if err != nil || sm == nil {
		return false, err
	}
	dm, err := t.GetMeta(dst)
	if err != nil {
		return false, err
	}
	if sm.Type != TypeSet || dm != nil && dm.Type != TypeSet {
		return false, ErrWrongType
	}
	ok, err := t.setHas(sm, member)
	if err != nil || !ok || bytes.Equal(src, dst) {
		return ok, err
	}
	if _, err := t.delSubs(src, TypeSet, [][]byte{member}); err != nil {
		return false, err
	}
	_, err = t.SetAdd(dst, [][]byte{member})
	return err == nil, err
}

// SetOp is a set-algebra operation.
type SetOp int

// The operations of SINTER, SUNION and SDIFF.
const (
	SetInter SetOp = iota
	SetUnion
	SetDiff
)

// SetCombine computes op over the sets at keys and calls fn with each member of the result, in
// byte order, until fn returns false. Every key is checked first: one holding another type gives
// ErrWrongType. A missing key is an empty set. Each set is read by one iterator, and the sets are
// merged in step (the sub-keys of a set sort by member), so the work is linear in what is read
// and the memory constant. The slice passed to fn is valid only during the call.
func (t *Txn) SetCombine(op SetOp, keys [][]byte, fn func(member []byte) bool) error {
	metas := make([]*Meta, len(keys))
	missing := false
	for i, k := range keys {
		m, err := t.GetMetaOf(k, TypeSet)
		if err != nil {
			return err
		}
		metas[i] = m
		missing = missing || m == nil
	}
	switch op {
	case SetInter:
		if missing {
			return nil
		}
		return t.setInter(metas, fn)
	case SetDiff:
		if len(metas) == 0 || metas[0] == nil {
			return nil
		}
	}
	live := metas[:0]
	for _, m := range metas {
		if m != nil {
			live = append(live, m)
		}
	}
	if op == SetUnion {
		return t.setUnion(live, fn)
	}
	return t.setDiff(live, fn)
}

// cursor is one set's walk in a merge: an iterator over its records, or the members of a
// packed set in byte order.
type cursor struct {
	it    *Iter
	elems [][]byte
	cur   []byte
	ok    bool
}

func (c *cursor) next() bool {
	if c.it != nil {
		if c.ok = c.it.Next(); c.ok {
			c.cur = c.it.Key()[DataPrefixLen:]
		}
		return c.ok
	}
	if c.ok = len(c.elems) > 0; c.ok {
		c.cur, c.elems = c.elems[0], c.elems[1:]
	}
	return c.ok
}

func (c *cursor) member() []byte { return c.cur }

// openCursors starts one walk per set, positioned on its first member.
func (t *Txn) openCursors(metas []*Meta) ([]*cursor, error) {
	cs := make([]*cursor, 0, len(metas))
	for _, m := range metas {
		c := &cursor{}
		if m.Enc == EncPacked {
			elems, err := t.packedElems(m)
			if err != nil {
				return nil, errors.Join(err, closeCursors(cs))
			}
			c.elems = slices.SortedFunc(slices.Values(elems), bytes.Compare)
		} else {
			c.it = t.iterData(m.ID)
		}
		c.next()
		cs = append(cs, c)
	}
	return cs, nil
}

func closeCursors(cs []*cursor) error {
	var first error
	for _, c := range cs {
		if c.it == nil {
			continue
		}
		if err := c.it.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// setInter walks the sets in leapfrog fashion, driven by the smallest.
func (t *Txn) setInter(metas []*Meta, fn func([]byte) bool) error {
	small := 0
	for i, m := range metas {
		if m.Size < metas[small].Size {
			small = i
		}
	}
	order := append([]*Meta{metas[small]}, metas[:small]...)
	order = append(order, metas[small+1:]...)
	cs, err := t.openCursors(order)
	if err != nil {
		return err
	}
	lead := cs[0]
	var cand []byte
outer:
	for lead.ok {
		cand = append(cand[:0], lead.member()...)
		for _, c := range cs[1:] {
			for c.ok && bytes.Compare(c.member(), cand) < 0 {
				c.next()
			}
			if !c.ok {
				break outer
			}
			if !bytes.Equal(c.member(), cand) {
				// c is past cand: bring the leader up to it and start over.
				target := c.member()
				for lead.ok && bytes.Compare(lead.member(), target) < 0 {
					lead.next()
				}
				continue outer
			}
		}
		if !fn(cand) {
			break
		}
		lead.next()
	}
	return closeCursors(cs)
}

// setUnion merges the sets, emitting each member once.
func (t *Txn) setUnion(metas []*Meta, fn func([]byte) bool) error {
	cs, err := t.openCursors(metas)
	if err != nil {
		return err
	}
	var low []byte
	for {
		var min *cursor
		for _, c := range cs {
			if c.ok && (min == nil || bytes.Compare(c.member(), min.member()) < 0) {
				min = c
			}
		}
		if min == nil {
			break
		}
		low = append(low[:0], min.member()...)
		if !fn(low) {
			break
		}
		for _, c := range cs {
			if c.ok && bytes.Equal(c.member(), low) {
				c.next()
			}
		}
	}
	return closeCursors(cs)
}

// setDiff emits the members of the first set that no other set holds.
func (t *Txn) setDiff(metas []*Meta, fn func([]byte) bool) error {
	cs, err := t.openCursors(metas)
	if err != nil {
		return err
	}
	first, rest := cs[0], cs[1:]
	for ; first.ok; first.next() {
		e := first.member()
		found := false
		for _, c := range rest {
			for c.ok && bytes.Compare(c.member(), e) < 0 {
				c.next()
			}
			if c.ok && bytes.Equal(c.member(), e) {
				found = true
				break
			}
		}
		if !found && !fn(e) {
			break
		}
	}
	return closeCursors(cs)
}

// SetStore replaces whatever dst holds with a set of members, which must be distinct, and
// returns its size. An empty result deletes dst. The new set has no expiry.
func (t *Txn) SetStore(dst []byte, members [][]byte) (int64, error) {
	if len(members) == 0 {
		_, err := t.Delete(dst)
		return 0, err
	}
	id, err := t.NewID()
	if err != nil {
		return 0, err
	}
	m := &Meta{Type: TypeSet, ID: id, Size: uint64(len(members)), Enc: t.newEnc(TypeSet)}
	if m.Enc == EncPacked && int64(len(members)) <= t.s.PackLimits().SetIntEntries {
		vals := make([]int64, len(members))
		ok := true
		for i, mem := range members {
			if vals[i], ok = intsetMember(mem); !ok {
				break
			}
		}
		if ok {
			t.putPacked(id, sortIntset(members, vals))
			return int64(m.Size), t.PutMeta(dst, m)
		}
	}
	m.Enc = EncRecords
	for _, mem := range members {
		t.put(DataKey(nil, id, mem), nil)
	}
	return int64(m.Size), t.PutMeta(dst, m)
}
