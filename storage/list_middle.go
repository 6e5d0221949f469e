package storage

import "bytes"

// The list operations that change the middle of a list (LSET, LINSERT, LREM, LTRIM) and LPOS.
// They read the nodes they need in order (listWalk) and hand the rewritten span to listReplace,
// which first keys every node by its start (the head node may be keyed otherwise, see
// listnode.go) and keeps the nodes contiguous.

// listWalk calls fn for the nodes of list m in order from the one that holds absolute index a,
// towards the tail, or towards the head when reverse, until fn returns false. The node's
// elements are valid only during the call.
func (t *Txn) listWalk(key []byte, m *Meta, a uint64, reverse bool, fn func(n listNode) bool) error {
	lo, hi := listKeys(m)
	if reverse {
		hi = elemKey(nil, m.ID, max(a, m.First)+1) // the head node's key may lie above a
	} else if a != m.Head {
		start, _, err := t.nodeRecordAt(key, m, a)
		if err != nil {
			return err
		}
		lo = elemKey(nil, m.ID, m.nodeKey(start))
	}
	it := t.Iterate(lo, hi, reverse)
	var elems [][]byte
	next := ^uint64(0) // the start (forward) or end (reverse) the next node must have
	for it.Next() {
		var err error
		start := m.nodeStart(elemIndex(it.Key()))
		elems, err = decodeListNode(it.Value(), elems[:0])
		n := listNode{start, elems}
		if err != nil || len(elems) == 0 || n.end() > m.Tail || start < m.Head ||
			next != ^uint64(0) && (!reverse && start != next || reverse && n.end() != next) {
			it.Close()
			return errListNode(key, start)
		}
		if next = n.end(); reverse {
			next = start
		}
		if !fn(n) {
			break
		}
	}
	return it.Close()
}

// cloneElems returns a copy of elems that owns its bytes.
func cloneElems(elems [][]byte) [][]byte {
	size := 0
	for _, e := range elems {
		size += len(e)
	}
	buf := make([]byte, 0, size)
	out := make([][]byte, len(elems))
	for i, e := range elems {
		buf = append(buf, e...)
		out[i] = buf[len(buf)-len(e) : len(buf) : len(buf)]
	}
	return out
}

// listReplace replaces the nodes of list m that start at olds, which cover exactly the
// absolute indexes [s, e), with elems packed into new nodes, and updates m's Head, Tail, Last
// and First (not Size); every node is keyed by its start afterwards. When the number of
// elements changes, the nodes on the side of [s, e) that holds fewer elements are renumbered:
// those after it when the span grows or shrinks at the tail's end, those before it otherwise.
func (t *Txn) listReplace(key []byte, m *Meta, olds []uint64, s, e uint64, elems [][]byte) error {
	delta := uint64(len(elems)) - (e - s) // two's complement: negative when the span shrinks
	chunks := packList(elems, t.s.listLimit())
	atTail := e == m.Tail
	for _, x := range olds {
		t.del(elemKey(nil, m.ID, m.nodeKey(x)))
	}
	if s == m.Head { // the head node is replaced: its successors are keyed by their start
		if m.Last == m.First {
			m.Last = m.Head
		}
		m.First = m.Head
	} else if err := t.listNormalize(key, m); err != nil {
		return err
	}
	// Growing or shrinking at the tail's end always renumbers the (no) nodes after the span.
	after := m.Tail-e <= s-m.Head
	base := s
	moved, lastMoved := false, uint64(0)
	if delta != 0 {
		lo, hi := e, m.Tail
		if !after {
			lo, hi = m.Head, s
			delta = -delta
			base = s + delta
		}
		// A node moves to x+delta; walking away from the direction of the move, no later
		// deletion hits a key already written.
		it := t.Iterate(elemKey(nil, m.ID, lo), elemKey(nil, m.ID, hi), int64(delta) > 0)
		for it.Next() {
			x := elemIndex(it.Key())
			t.put(elemKey(nil, m.ID, x+delta), it.Value())
			t.del(elemKey(nil, m.ID, x))
			if !moved || x+delta > lastMoved {
				moved, lastMoved = true, x+delta
			}
		}
		if err := it.Close(); err != nil {
			return err
		}
		if after {
			m.Tail += delta
		} else {
			m.Head += delta
			m.First = m.Head
		}
	}
	at := base
	for _, c := range chunks {
		t.putListNode(m.ID, at, c)
		if atTail {
			m.Last = at
		}
		at += uint64(len(c))
	}
	switch {
	case moved && after:
		m.Last = lastMoved
	case atTail && len(chunks) == 0 && m.Tail > m.Head:
		m.Last = m.Tail // stale: found by a seek
		n, err := t.listNodeAt(key, m, m.Tail-1)
		if err != nil {
			return err
		}
		m.Last = n.start
	}
	return nil
}

// ListTrim keeps only positions start..stop of the list at key (LTRIM rules) and deletes the
// list when nothing is kept. A missing key is left alone.
//
// Cost: deleting everything only rewrites the metadata (the collector reclaims the nodes).
// When the trimmed elements are no more than the kept ones, the trimmed nodes are deleted and
// the two nodes at the new ends rewritten. Else the kept elements are copied under a fresh
// object ID and the old one is queued for the collector.
func (t *Txn) ListTrim(key []byte, start, stop int64) error {
	m, err := t.ListMeta(key)
	if err != nil || m == nil {
		return err
	}
	lo, hi, ok := ListRangeIndexes(int64(m.Size), start, stop)
	if !ok {
		return t.PutMeta(key, nil)
	}
	kept := uint64(hi - lo)
	if kept == m.Size {
		return nil
	}
	nh, nt := m.Head+uint64(lo), m.Head+uint64(hi)
	if kept < m.Size-kept {
		id, err := t.NewID()
		if err != nil {
			return err
		}
		w := t.NewListWriter(id)
		err = t.listWalk(key, m, nh, false, func(n listNode) bool {
			for i, e := range n.elems {
				if a := n.start + uint64(i); a >= nh && a < nt {
					w.Append(t, e)
				}
			}
			return n.end() < nt
		})
		if err != nil {
			return err
		}
		nm := *m
		w.Finish(t, &nm)
		if nm.Size != kept {
			return errListCorrupt(key, kept, nm.Size)
		}
		return t.PutMeta(key, &nm) // queues the old object ID for the collector
	}
	if nt < m.Tail {
		var olds []uint64
		var keep [][]byte
		s := nt
		err := t.listWalk(key, m, m.Tail-1, true, func(n listNode) bool {
			if n.end() <= nt {
				return false
			}
			olds = append(olds, n.start)
			if n.start < nt {
				s, keep = n.start, cloneElems(n.elems[:nt-n.start])
				return false
			}
			return true
		})
		if err != nil {
			return err
		}
		if err := t.listReplace(key, m, olds, s, m.Tail, keep); err != nil {
			return err
		}
	}
	if nh > m.Head {
		var olds []uint64
		var keep [][]byte
		e := nh
		err := t.listWalk(key, m, m.Head, false, func(n listNode) bool {
			if n.start >= nh {
				return false
			}
			olds = append(olds, n.start)
			if n.end() > nh {
				e, keep = n.end(), cloneElems(n.elems[nh-n.start:])
				return false
			}
			return true
		})
		if err != nil {
			return err
		}
		if err := t.listReplace(key, m, olds, m.Head, e, keep); err != nil {
			return err
		}
	}
	m.Size = kept
	return t.PutMeta(key, m)
}

// ListRem removes the first count occurrences of val (count > 0 from the head, count < 0 from
// the tail, 0 all) and returns how many it removed. A list left empty is deleted.
//
// Cost: one scan from the chosen end up to the last removal (the whole list when fewer than
// |count| occurrences exist); the nodes from the first to the last one with a removal are
// rewritten, and the nodes on the shorter side of them renumbered.
func (t *Txn) ListRem(key []byte, count int64, val []byte) (int64, error) {
	m, err := t.ListMeta(key)
	if err != nil || m == nil {
		return 0, err
	}
	limit := uint64(0) // 0: all
	if count > 0 {
		limit = uint64(count)
	} else if count < 0 {
		limit = uint64(-(count + 1)) + 1
	}
	reverse := count < 0
	from := m.Head
	if reverse {
		from = m.Tail - 1
	}
	// The nodes from the first with a removal, in scan order, with their surviving elements;
	// span is how many of them reach the last removal.
	var olds, ends []uint64
	var kept [][][]byte
	span, removed := 0, uint64(0)
	err = t.listWalk(key, m, from, reverse, func(n listNode) bool {
		var keep [][]byte
		hit := false
		for i := range n.elems {
			j := i
			if reverse {
				j = len(n.elems) - 1 - i
			}
			if (limit == 0 || removed < limit) && bytes.Equal(n.elems[j], val) {
				removed++
				hit = true
				continue
			}
			keep = append(keep, n.elems[j])
		}
		if hit || len(olds) > 0 {
			olds, ends, kept = append(olds, n.start), append(ends, n.end()), append(kept, cloneElems(keep))
			if hit {
				span = len(olds)
			}
		}
		return limit == 0 || removed < limit
	})
	if err != nil || removed == 0 {
		return 0, err
	}
	if removed == m.Size {
		return int64(removed), t.PutMeta(key, nil)
	}
	olds, kept = olds[:span], kept[:span]
	var elems [][]byte
	for i := range kept {
		if reverse {
			k := kept[len(kept)-1-i]
			for j := len(k) - 1; j >= 0; j-- {
				elems = append(elems, k[j])
			}
		} else {
			elems = append(elems, kept[i]...)
		}
	}
	s, e := olds[0], ends[span-1]
	if reverse {
		s, e = olds[span-1], ends[0]
	}
	if err := t.listReplace(key, m, olds, s, e, elems); err != nil {
		return 0, err
	}
	m.Size -= removed
	return int64(removed), t.PutMeta(key, m)
}

// ListInsert inserts val before or after the first occurrence of pivot (from the head) and
// returns the new length, -1 when pivot is not found, and 0 when the key does not exist.
//
// Cost: a scan up to the pivot, then the pivot's node is rewritten (split if it outgrows its
// bound) and the nodes on the shorter side of it renumbered.
func (t *Txn) ListInsert(key []byte, before bool, pivot, val []byte) (int64, error) {
	m, err := t.ListMeta(key)
	if err != nil || m == nil {
		return 0, err
	}
	var node listNode
	found := false
	err = t.listWalk(key, m, m.Head, false, func(n listNode) bool {
		for i, e := range n.elems {
			if !bytes.Equal(e, pivot) {
				continue
			}
			if !before {
				i++
			}
			elems := make([][]byte, 0, len(n.elems)+1)
			elems = append(append(append(elems, n.elems[:i]...), val), n.elems[i:]...)
			node, found = listNode{n.start, cloneElems(elems)}, true
			return false
		}
		return true
	})
	if err != nil || !found {
		if err == nil {
			return -1, nil
		}
		return 0, err
	}
	if err := t.listReplace(key, m, []uint64{node.start}, node.start, node.end()-1, node.elems); err != nil {
		return 0, err
	}
	m.Size++
	return int64(m.Size), t.PutMeta(key, m)
}

// ListPos returns the positions of the elements equal to val, as LPOS does: rank (non-zero)
// picks the rank-th match, counting from the tail when negative; count is the most positions to
// return (0: all); maxlen bounds how many elements are compared (0: no bound). exists reports
// whether the key exists.
func (t *Txn) ListPos(key, val []byte, rank, count, maxlen int64) (positions []int64, exists bool, err error) {
	m, err := t.ListMeta(key)
	if err != nil || m == nil {
		return nil, false, err
	}
	reverse := rank < 0
	skip := rank - 1 // matches to pass over
	from := m.Head
	if reverse {
		skip, from = -rank-1, m.Tail-1
	}
	compared := int64(0)
	err = t.listWalk(key, m, from, reverse, func(n listNode) bool {
		for i := range n.elems {
			j := i
			if reverse {
				j = len(n.elems) - 1 - i
			}
			if maxlen > 0 && compared >= maxlen {
				return false
			}
			compared++
			if !bytes.Equal(n.elems[j], val) {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			positions = append(positions, int64(n.start+uint64(j)-m.Head))
			if count > 0 && int64(len(positions)) >= count {
				return false
			}
		}
		return true
	})
	return positions, true, err
}
