package storage

import (
	"bytes"
)

// Sets use the layout described in hash.go: DataKey(id, member) -> empty value.

// SetAdd adds members to set key, creating it when missing and keeping its expiry, and returns
// how many were new.
func (t *Txn) SetAdd(key []byte, members [][]byte) (int64, error) {
	m, err := t.collectionFor(key, TypeSet)
	if err != nil {
		return 0, err
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
	_, ok, err := t.getSub(m.ID, member)
	return ok, err
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
		_, ok, err := t.getSub(m.ID, mem)
		if err != nil {
			return nil, err
		}
		out[i] = ok
	}
	return out, nil
}

// SetEach calls fn with every member of set m in byte order until fn returns false. The slice is
// valid only during the call.
func (t *Txn) SetEach(m *Meta, fn func(member []byte) bool) error {
	return t.eachData(m.ID, func(sub, _ []byte) bool { return fn(sub) })
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
	_, ok, err := t.getSub(sm.ID, member)
	if err != nil || !ok || bytes.Equal(src, dst) {
		return ok, err
	}
	t.del(DataKey(nil, sm.ID, member))
	if err := t.putMetaSize(src, sm, sm.Size-min(1, sm.Size)); err != nil {
		return false, err
	}
	if dm == nil {
		id, err := t.NewID()
		if err != nil {
			return false, err
		}
		dm = &Meta{Type: TypeSet, ID: id}
	} else if _, ok, err := t.getSub(dm.ID, member); err != nil || ok {
		return err == nil, err
	}
	t.put(DataKey(nil, dm.ID, member), nil)
	return true, t.putMetaSize(dst, dm, dm.Size+1)
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

// cursor is one set's iterator in a merge.
type cursor struct {
	it *Iter
	ok bool
}

func (c *cursor) next() bool {
	c.ok = c.it.Next()
	return c.ok
}

func (c *cursor) member() []byte { return c.it.Key()[DataPrefixLen:] }

// openCursors starts one iterator per set, positioned on its first member.
func (t *Txn) openCursors(metas []*Meta) []*cursor {
	cs := make([]*cursor, len(metas))
	for i, m := range metas {
		cs[i] = &cursor{it: t.iterData(m.ID)}
		cs[i].next()
	}
	return cs
}

func closeCursors(cs []*cursor) error {
	var first error
	for _, c := range cs {
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
	cs := t.openCursors(order)
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
	cs := t.openCursors(metas)
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
	cs := t.openCursors(metas)
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
	for _, mem := range members {
		t.put(DataKey(nil, id, mem), nil)
	}
	return int64(len(members)), t.PutMeta(dst, &Meta{Type: TypeSet, ID: id, Size: uint64(len(members))})
}
