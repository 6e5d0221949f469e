package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Lists
//
// A list's metadata holds Head and Tail counters; its elements occupy the indexes [Head, Tail),
// each at DataKey(id, BE64(index)). A new list starts with Head = Tail = ListMiddle, a push on
// the left writes at Head-1, a push on the right at Tail. So an element's position is
// index-Head: LINDEX is one point read and LRANGE one bounded iterator whose cost depends on
// offset and count, never on the list's length. A list that becomes empty is deleted.
//
// Middle operations keep the indexes contiguous. LINSERT and LREM move the elements on the
// shorter side of the change (O(min(p, N-p)) writes, plus the scan that finds the position).
// LTRIM deletes the trimmed indexes directly when they are fewer than the kept ones; otherwise
// it copies the kept elements under a fresh object ID and queues the old one for the collector,
// so its cost is O(min(trimmed, kept)) writes in the one batch.

// Errors of the list operations that have their own Redis reply.
var (
	// ErrNoSuchKey: LSET on a key that does not exist.
	ErrNoSuchKey = errors.New("storage: no such key")
	// ErrIndexOutOfRange: LSET at an index outside the list.
	ErrIndexOutOfRange = errors.New("storage: index out of range")
)

// errListCorrupt reports a list whose element records do not match its metadata.
func errListCorrupt(key []byte, want, got uint64) error {
	return fmt.Errorf("%w: list %q has %d elements where %d were expected", errCorrupt, key, got, want)
}

// elemKey returns the LevelDB key of the element at absolute index i of list id.
func elemKey(dst []byte, id, i uint64) []byte {
	dst = DataKey(dst, id, nil)
	return binary.BigEndian.AppendUint64(dst, i)
}

// ListElemKey returns the LevelDB key of the element at absolute index i of list id.
func ListElemKey(id, i uint64) []byte { return elemKey(nil, id, i) }

// elemIndex returns the absolute index of an element key.
func elemIndex(k []byte) uint64 { return binary.BigEndian.Uint64(k[DataPrefixLen:]) }

// listIter iterates the elements at absolute indexes [from, to) of list id.
func (t *Txn) listIter(id, from, to uint64, reverse bool) *Iter {
	return t.Iterate(elemKey(nil, id, from), elemKey(nil, id, to), reverse)
}

// ListRangeIndexes resolves LRANGE/LTRIM-style start and stop (negative counts from the end)
// against a list of size elements, as Redis does, and returns the positions [lo, hi). ok is
// false when the range is empty.
func ListRangeIndexes(size, start, stop int64) (lo, hi int64, ok bool) {
	if start < 0 {
		start += size
	}
	if stop < 0 {
		stop += size
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= size {
		return 0, 0, false
	}
	if stop >= size {
		stop = size - 1
	}
	return start, stop + 1, true
}

// ListMeta returns key's list metadata, nil if the key does not exist, ErrWrongType if it holds
// another type.
func (t *Txn) ListMeta(key []byte) (*Meta, error) { return t.GetMetaOf(key, TypeList) }

// ListLen returns the length of the list at key, 0 if it does not exist.
func (t *Txn) ListLen(key []byte) (int64, error) {
	m, err := t.ListMeta(key)
	if err != nil || m == nil {
		return 0, err
	}
	return int64(m.Size), nil
}

// ListPush pushes vals one by one on the left (head) or the right (tail) of the list at key and
// returns its new length. A missing key is created unless onlyExisting is set (LPUSHX, RPUSHX),
// in which case nothing happens and the length is 0.
func (t *Txn) ListPush(key []byte, vals [][]byte, left, onlyExisting bool) (int64, error) {
	m, err := t.ListMeta(key)
	if err != nil {
		return 0, err
	}
	if m == nil {
		if onlyExisting || len(vals) == 0 {
			return 0, nil
		}
		id, err := t.NewID()
		if err != nil {
			return 0, err
		}
		m = &Meta{Type: TypeList, ID: id, Head: ListMiddle, Tail: ListMiddle}
	}
	var k []byte
	for _, v := range vals {
		if left {
			m.Head--
			k = elemKey(k[:0], m.ID, m.Head)
		} else {
			k = elemKey(k[:0], m.ID, m.Tail)
			m.Tail++
		}
		t.put(k, v)
	}
	m.Size += uint64(len(vals))
	return int64(m.Size), t.PutMeta(key, m)
}

// ListPop removes and returns up to count elements from the left or the right of the list at
// key, in pop order. It returns nil when the key does not exist. A list left empty is deleted.
func (t *Txn) ListPop(key []byte, left bool, count int64) ([][]byte, error) {
	m, err := t.ListMeta(key)
	if err != nil || m == nil || count <= 0 {
		return nil, err
	}
	n := uint64(count)
	if n > m.Size {
		n = m.Size
	}
	out := make([][]byte, 0, n)
	var k []byte
	if n == 1 {
		i := m.Head
		if !left {
			i = m.Tail - 1
		}
		k = elemKey(k, m.ID, i)
		v, ok, err := t.get(k)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errListCorrupt(key, 1, 0)
		}
		out = append(out, append([]byte(nil), v...))
	} else {
		var it *Iter
		if left {
			it = t.listIter(m.ID, m.Head, m.Head+n, false)
		} else {
			it = t.listIter(m.ID, m.Tail-n, m.Tail, true)
		}
		var buf []byte
		var ends []int
		for it.Next() {
			buf = append(buf, it.Value()...)
			ends = append(ends, len(buf))
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
		if uint64(len(ends)) != n {
			return nil, errListCorrupt(key, n, uint64(len(ends)))
		}
		prev := 0
		for _, e := range ends {
			out = append(out, buf[prev:e:e])
			prev = e
		}
	}
	for j := uint64(0); j < n; j++ {
		if left {
			k = elemKey(k[:0], m.ID, m.Head)
			m.Head++
		} else {
			m.Tail--
			k = elemKey(k[:0], m.ID, m.Tail)
		}
		t.del(k)
	}
	m.Size -= n
	if m.Size == 0 {
		return out, t.PutMeta(key, nil)
	}
	return out, t.PutMeta(key, m)
}

// ListIndex returns the element at position index of the list at key (negative counts from the
// end); ok is false when the key does not exist or the index is out of range.
func (t *Txn) ListIndex(key []byte, index int64) ([]byte, bool, error) {
	m, err := t.ListMeta(key)
	if err != nil || m == nil {
		return nil, false, err
	}
	return t.listIndexOf(key, m, index)
}

// ListIndexOf is ListIndex for a list whose metadata the caller has already read.
func (t *Txn) ListIndexOf(key []byte, m *Meta, index int64) ([]byte, bool, error) {
	return t.listIndexOf(key, m, index)
}

func (t *Txn) listIndexOf(key []byte, m *Meta, index int64) ([]byte, bool, error) {
	size := int64(m.Size)
	if index < 0 {
		index += size
	}
	if index < 0 || index >= size {
		return nil, false, nil
	}
	v, ok, err := t.get(elemKey(nil, m.ID, m.Head+uint64(index)))
	if err == nil && !ok {
		err = errListCorrupt(key, 1, 0)
	}
	return v, ok, err
}

// ListSet replaces the element at position index (negative counts from the end). It returns
// ErrNoSuchKey when the key does not exist and ErrIndexOutOfRange outside the list.
func (t *Txn) ListSet(key []byte, index int64, val []byte) error {
	m, err := t.ListMeta(key)
	if err != nil {
		return err
	}
	if m == nil {
		return ErrNoSuchKey
	}
	size := int64(m.Size)
	if index < 0 {
		index += size
	}
	if index < 0 || index >= size {
		return ErrIndexOutOfRange
	}
	t.put(elemKey(nil, m.ID, m.Head+uint64(index)), val)
	return nil
}

// ListRange calls header once with the number of elements in positions start..stop of the list
// at key (Redis's LRANGE rules: negative counts from the end, out-of-range clamps; 0 for a
// missing key), then elem for each of them in order. It reads with one bounded iterator: the cost
// is O(offset + count) seeks and reads, independent of the list's length. A wrong type returns
// ErrWrongType before header is called. v is valid only during the call.
func (t *Txn) ListRange(key []byte, start, stop int64, header func(n int), elem func(v []byte)) error {
	m, err := t.ListMeta(key)
	if err != nil {
		return err
	}
	if m == nil {
		header(0)
		return nil
	}
	lo, hi, ok := ListRangeIndexes(int64(m.Size), start, stop)
	if !ok {
		header(0)
		return nil
	}
	n := uint64(hi - lo)
	header(int(n))
	if n == 1 {
		v, ok, err := t.get(elemKey(nil, m.ID, m.Head+uint64(lo)))
		if err == nil && !ok {
			err = errListCorrupt(key, 1, 0)
		}
		if err != nil {
			return err
		}
		elem(v)
		return nil
	}
	it := t.listIter(m.ID, m.Head+uint64(lo), m.Head+uint64(hi), false)
	got := uint64(0)
	for got < n && it.Next() {
		elem(it.Value())
		got++
	}
	if err := it.Close(); err != nil {
		return err
	}
	if got != n {
		return errListCorrupt(key, n, got)
	}
	return nil
}

// ListTrim keeps only positions start..stop of the list at key (LTRIM rules) and deletes the
// list when nothing is kept. A missing key is left alone.
//
// Cost: deleting everything only rewrites the metadata (the collector reclaims the elements).
// Otherwise, when the trimmed elements are no more than the kept ones, their keys are deleted in
// the batch (blind deletes, no reads): O(trimmed). Else the kept elements are copied under a
// fresh object ID and the old one is queued for the collector: O(kept).
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
	trimmed := m.Size - kept
	if trimmed == 0 {
		return nil
	}
	newHead, newTail := m.Head+uint64(lo), m.Head+uint64(hi)
	if trimmed <= kept {
		var k []byte
		for i := m.Head; i < newHead; i++ {
			k = elemKey(k[:0], m.ID, i)
			t.del(k)
		}
		for i := newTail; i < m.Tail; i++ {
			k = elemKey(k[:0], m.ID, i)
			t.del(k)
		}
		m.Head, m.Tail, m.Size = newHead, newTail, kept
		return t.PutMeta(key, m)
	}
	id, err := t.NewID()
	if err != nil {
		return err
	}
	it := t.listIter(m.ID, newHead, newTail, false)
	var k []byte
	i := ListMiddle
	for it.Next() {
		k = elemKey(k[:0], id, i)
		t.put(k, it.Value())
		i++
	}
	if err := it.Close(); err != nil {
		return err
	}
	if i-ListMiddle != kept {
		return errListCorrupt(key, kept, i-ListMiddle)
	}
	nm := *m
	nm.ID, nm.Head, nm.Tail, nm.Size = id, ListMiddle, ListMiddle+kept, kept
	return t.PutMeta(key, &nm) // queues the old object ID for the collector
}

// ListRem removes the first count occurrences of val (count > 0 from the head, count < 0 from
// the tail, 0 all) and returns how many it removed. A list left empty is deleted.
//
// Cost: one scan from the chosen end up to the last removal (the whole list when fewer than
// |count| occurrences exist), then the surviving elements on the shorter side of the removed
// span are moved over the gaps.
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
	// Positions (relative to Head) of the removed elements, in scan order.
	var pos []uint64
	it := t.listIter(m.ID, m.Head, m.Tail, count < 0)
	for it.Next() {
		if bytes.Equal(it.Value(), val) {
			pos = append(pos, elemIndex(it.Key())-m.Head)
			if limit != 0 && uint64(len(pos)) == limit {
				break
			}
		}
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	if len(pos) == 0 {
		return 0, nil
	}
	if count < 0 {
		for i, j := 0, len(pos)-1; i < j; i, j = i+1, j-1 {
			pos[i], pos[j] = pos[j], pos[i]
		}
	}
	removed := uint64(len(pos))
	if removed == m.Size {
		return int64(removed), t.PutMeta(key, nil)
	}
	if err := t.listCompact(m, pos); err != nil {
		return 0, err
	}
	m.Size -= removed
	return int64(removed), t.PutMeta(key, m)
}

// listCompact removes the elements at the ascending positions pos (relative to Head) from list
// m by moving the surviving elements of the shorter side over the gaps, and updates m.Head or
// m.Tail (not m.Size).
func (t *Txn) listCompact(m *Meta, pos []uint64) error {
	first, last := pos[0], pos[len(pos)-1]
	var k []byte
	if last+1 <= m.Size-first {
		// Move the head side right: walk [Head, Head+last] backwards. Writes land on positions
		// the iterator has already passed.
		it := t.listIter(m.ID, m.Head, m.Head+last+1, true)
		dst := m.Head + last
		r := len(pos) - 1
		for it.Next() {
			i := elemIndex(it.Key())
			if r >= 0 && i == m.Head+pos[r] {
				r--
				continue
			}
			if i != dst {
				k = elemKey(k[:0], m.ID, dst)
				t.put(k, it.Value())
			}
			dst--
		}
		if err := it.Close(); err != nil {
			return err
		}
		newHead := dst + 1
		for i := m.Head; i < newHead; i++ {
			k = elemKey(k[:0], m.ID, i)
			t.del(k)
		}
		m.Head = newHead
		return nil
	}
	// Move the tail side left: walk [Head+first, Tail) forwards.
	it := t.listIter(m.ID, m.Head+first, m.Tail, false)
	dst := m.Head + first
	r := 0
	for it.Next() {
		i := elemIndex(it.Key())
		if r < len(pos) && i == m.Head+pos[r] {
			r++
			continue
		}
		if i != dst {
			k = elemKey(k[:0], m.ID, dst)
			t.put(k, it.Value())
		}
		dst++
	}
	if err := it.Close(); err != nil {
		return err
	}
	for i := dst; i < m.Tail; i++ {
		k = elemKey(k[:0], m.ID, i)
		t.del(k)
	}
	m.Tail = dst
	return nil
}

// ListInsert inserts val before or after the first occurrence of pivot (from the head) and
// returns the new length, -1 when pivot is not found, and 0 when the key does not exist.
//
// Cost: a scan up to the pivot, then the elements on the shorter side of the insertion point
// move by one.
func (t *Txn) ListInsert(key []byte, before bool, pivot, val []byte) (int64, error) {
	m, err := t.ListMeta(key)
	if err != nil || m == nil {
		return 0, err
	}
	found := false
	var p uint64
	it := t.listIter(m.ID, m.Head, m.Tail, false)
	for it.Next() {
		if bytes.Equal(it.Value(), pivot) {
			found, p = true, elemIndex(it.Key())-m.Head
			break
		}
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	if !found {
		return -1, nil
	}
	q := p // position the new element takes
	if !before {
		q++
	}
	var k []byte
	if q <= m.Size-q {
		// Shift positions [0, q) one to the left.
		it := t.listIter(m.ID, m.Head, m.Head+q, false)
		for it.Next() {
			k = elemKey(k[:0], m.ID, elemIndex(it.Key())-1)
			t.put(k, it.Value())
		}
		if err := it.Close(); err != nil {
			return 0, err
		}
		m.Head--
		t.put(elemKey(k[:0], m.ID, m.Head+q), val)
	} else {
		// Shift positions [q, Size) one to the right, from the end.
		it := t.listIter(m.ID, m.Head+q, m.Tail, true)
		for it.Next() {
			k = elemKey(k[:0], m.ID, elemIndex(it.Key())+1)
			t.put(k, it.Value())
		}
		if err := it.Close(); err != nil {
			return 0, err
		}
		t.put(elemKey(k[:0], m.ID, m.Head+q), val)
		m.Tail++
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
	if reverse {
		skip = -rank - 1
	}
	lo, hi := m.Head, m.Tail
	if maxlen > 0 && uint64(maxlen) < m.Size {
		if reverse {
			lo = m.Tail - uint64(maxlen)
		} else {
			hi = m.Head + uint64(maxlen)
		}
	}
	it := t.listIter(m.ID, lo, hi, reverse)
	for it.Next() {
		if !bytes.Equal(it.Value(), val) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		positions = append(positions, int64(elemIndex(it.Key())-m.Head))
		if count > 0 && int64(len(positions)) >= count {
			break
		}
	}
	if err := it.Close(); err != nil {
		return nil, true, err
	}
	return positions, true, nil
}
