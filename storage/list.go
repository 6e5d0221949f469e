package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Lists
//
// A list's metadata holds Head and Tail counters: its elements occupy the absolute indexes
// [Head, Tail), packed in nodes keyed by the index of their first element (listnode.go). A new
// list starts with Head = Tail = ListMiddle; a push on the left lowers Head and a push on the
// right raises Tail, so an element's position is its index minus Head, and the node holding a
// position is the one with the greatest start not above it. A list that becomes empty is
// deleted.
//
// Costs. A push or pop at either end reads and rewrites one node (the head node starts at
// Head, the tail node at the metadata's Last). LINDEX and LSET read one node, found with one
// reverse seek; LRANGE reads the nodes that hold the range, one point read each, so LRANGE 0 99
// of a list of any length is usually one read. Middle operations (LINSERT, LREM) rewrite the
// nodes they change and renumber the nodes on the shorter side of the change; LTRIM deletes the
// trimmed nodes when they are fewer than the kept elements, else copies the kept elements under
// a fresh object ID and queues the old one for the collector.

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

// errListNode reports a list whose node at index i is missing or malformed.
func errListNode(key []byte, i uint64) error {
	return fmt.Errorf("%w: list %q has no valid node at index %d", errCorrupt, key, i)
}

// elemKey returns the LevelDB key of the list node of list id that starts at absolute index i.
func elemKey(dst []byte, id, i uint64) []byte {
	dst = DataKey(dst, id, nil)
	return binary.BigEndian.AppendUint64(dst, i)
}

// elemIndex returns the absolute index at which the node of a node key starts.
func elemIndex(k []byte) uint64 { return binary.BigEndian.Uint64(k[DataPrefixLen:]) }

// listNode is a node read from a list: the index of its first element and its elements.
type listNode struct {
	start uint64
	elems [][]byte
}

func (n *listNode) end() uint64 { return n.start + uint64(len(n.elems)) }

// nodeRecord reads the record of the node of list m that starts at start.
func (t *Txn) nodeRecord(key []byte, m *Meta, start uint64) ([]byte, error) {
	v, ok, err := t.get(elemKey(nil, m.ID, start))
	if err == nil && !ok {
		err = errListNode(key, start)
	}
	return v, err
}

// nodeRecordAt returns the start and the record of the node of list m that holds absolute
// index a (Head <= a < Tail). The record is the caller's.
func (t *Txn) nodeRecordAt(key []byte, m *Meta, a uint64) (uint64, []byte, error) {
	if a == m.Head || a >= m.Last {
		start := m.Head
		if a >= m.Last {
			start = m.Last
		}
		v, err := t.nodeRecord(key, m, start)
		return start, v, err
	}
	it := t.Iterate(elemKey(nil, m.ID, m.Head), elemKey(nil, m.ID, a+1), true)
	var start uint64
	var v []byte
	err := errListNode(key, a)
	if it.Next() {
		start, v, err = elemIndex(it.Key()), append([]byte(nil), it.Value()...), nil
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return start, v, err
}

// decodeNode decodes record v of the node that starts at start, checking that it lies within
// list m.
func decodeNode(key []byte, m *Meta, start uint64, v []byte) (listNode, error) {
	elems, err := decodeListNode(v, nil)
	n := listNode{start, elems}
	if err != nil || len(elems) == 0 || start < m.Head || n.end() > m.Tail {
		return n, errListNode(key, start)
	}
	return n, nil
}

// listNode reads the node of list m that starts at start.
func (t *Txn) listNode(key []byte, m *Meta, start uint64) (listNode, error) {
	v, err := t.nodeRecord(key, m, start)
	if err != nil {
		return listNode{}, err
	}
	return decodeNode(key, m, start, v)
}

// listNodeAt reads the node of list m that holds absolute index a.
func (t *Txn) listNodeAt(key []byte, m *Meta, a uint64) (listNode, error) {
	start, v, err := t.nodeRecordAt(key, m, a)
	if err != nil {
		return listNode{}, err
	}
	n, err := decodeNode(key, m, start, v)
	if err == nil && n.end() <= a {
		err = errListNode(key, a)
	}
	return n, err
}

// putNode stages the node of list id that starts at start.
func (t *Txn) putListNode(id, start uint64, elems [][]byte) {
	t.put(elemKey(nil, id, start), encodeListNode(nil, elems))
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
		m = &Meta{Type: TypeList, ID: id, Head: ListMiddle, Tail: ListMiddle, Last: ListMiddle}
	}
	if len(vals) == 0 {
		return int64(m.Size), nil
	}
	if left {
		err = t.listPushLeft(key, m, vals)
	} else {
		err = t.listPushRight(key, m, vals)
	}
	if err != nil {
		return 0, err
	}
	m.Size += uint64(len(vals))
	return int64(m.Size), t.PutMeta(key, m)
}

// listPushRight appends vals to the tail node of m while it has room, then to new nodes.
func (t *Txn) listPushRight(key []byte, m *Meta, vals [][]byte) error {
	lim := t.s.listLimit()
	cur := listNode{start: m.Tail}
	size := 0
	if m.Size > 0 {
		v, err := t.nodeRecord(key, m, m.Last)
		if err != nil {
			return err
		}
		if cur, err = decodeNode(key, m, m.Last, v); err != nil {
			return err
		}
		size = len(v)
	}
	dirty := false
	for _, v := range vals {
		sz := elemSize(v)
		if !lim.fits(len(cur.elems), size, sz) {
			if dirty {
				t.putListNode(m.ID, cur.start, cur.elems)
			}
			cur, size = listNode{start: m.Tail}, 0
		}
		cur.elems = append(cur.elems, v)
		size += sz
		m.Tail++
		dirty = true
	}
	t.putListNode(m.ID, cur.start, cur.elems)
	m.Last = cur.start
	return nil
}

// listPushLeft prepends vals, one by one, to the head node of m while it has room, then to
// new nodes. A node's key is the index of its first element, so the head node moves.
func (t *Txn) listPushLeft(key []byte, m *Meta, vals [][]byte) error {
	lim := t.s.listLimit()
	var old listNode // the stored head node
	stored, isLast := m.Size > 0, true
	size := 0
	if stored {
		v, err := t.nodeRecord(key, m, m.Head)
		if err != nil {
			return err
		}
		if old, err = decodeNode(key, m, m.Head, v); err != nil {
			return err
		}
		size, isLast = len(v), m.Head == m.Last
	}
	var front [][]byte // the new elements of the node being filled, in push order
	flush := func() {
		if stored {
			t.del(elemKey(nil, m.ID, old.start))
		}
		b := binary.AppendUvarint(nil, uint64(len(front)+len(old.elems)))
		for i := len(front) - 1; i >= 0; i-- {
			b = binary.AppendUvarint(b, uint64(len(front[i])))
			b = append(b, front[i]...)
		}
		for _, e := range old.elems {
			b = binary.AppendUvarint(b, uint64(len(e)))
			b = append(b, e...)
		}
		t.put(elemKey(nil, m.ID, m.Head), b)
		if isLast {
			m.Last = m.Head
		}
	}
	for _, v := range vals {
		sz := elemSize(v)
		if !lim.fits(len(front)+len(old.elems), size, sz) {
			if len(front) > 0 {
				flush()
			}
			old, front, size, stored, isLast = listNode{}, front[:0], 0, false, false
		}
		front = append(front, v)
		size += sz
		m.Head--
	}
	flush()
	return nil
}

// ListPop removes and returns up to count elements from the left or the right of the list at
// key, in pop order. It returns nil when the key does not exist. A list left empty is deleted.
func (t *Txn) ListPop(key []byte, left bool, count int64) ([][]byte, error) {
	m, err := t.ListMeta(key)
	if err != nil || m == nil || count <= 0 {
		return nil, err
	}
	n := min(uint64(count), m.Size)
	out := make([][]byte, 0, n)
	if left {
		err = t.listPopLeft(key, m, n, &out)
	} else {
		err = t.listPopRight(key, m, n, &out)
	}
	if err != nil {
		return nil, err
	}
	m.Size -= n
	if m.Size == 0 {
		return out, t.PutMeta(key, nil)
	}
	return out, t.PutMeta(key, m)
}

func (t *Txn) listPopLeft(key []byte, m *Meta, n uint64, out *[][]byte) error {
	for uint64(len(*out)) < n {
		node, err := t.listNode(key, m, m.Head)
		if err != nil {
			return err
		}
		take := min(n-uint64(len(*out)), uint64(len(node.elems)))
		for _, e := range node.elems[:take] {
			*out = append(*out, append([]byte(nil), e...))
		}
		t.del(elemKey(nil, m.ID, m.Head))
		m.Head += take
		if take < uint64(len(node.elems)) {
			t.putListNode(m.ID, m.Head, node.elems[take:])
			if node.start == m.Last {
				m.Last = m.Head
			}
		}
	}
	return nil
}

func (t *Txn) listPopRight(key []byte, m *Meta, n uint64, out *[][]byte) error {
	node, err := t.listNode(key, m, m.Last)
	for err == nil {
		k := uint64(len(node.elems))
		take := min(n-uint64(len(*out)), k)
		for i := k; i > k-take; i-- {
			*out = append(*out, append([]byte(nil), node.elems[i-1]...))
		}
		m.Tail -= take
		if take < k {
			t.putListNode(m.ID, node.start, node.elems[:k-take])
			return nil
		}
		t.del(elemKey(nil, m.ID, node.start))
		if m.Tail == m.Head {
			return nil
		}
		if node, err = t.listNodeAt(key, m, m.Tail-1); err == nil {
			m.Last = node.start
			if uint64(len(*out)) == n {
				return nil
			}
		}
	}
	return err
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
	a := m.Head + uint64(index)
	start, v, err := t.nodeRecordAt(key, m, a)
	if err != nil {
		return nil, false, err
	}
	var elem []byte
	if _, err := nodeElems(v, a-start, a-start+1, func(e []byte) { elem = e }); err != nil || elem == nil {
		return nil, false, errListNode(key, start)
	}
	return elem, true, nil
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
	a := m.Head + uint64(index)
	node, err := t.listNodeAt(key, m, a)
	if err != nil {
		return err
	}
	node.elems[a-node.start] = val
	if err := t.listReplace(key, m, []uint64{node.start}, node.start, node.end(), node.elems); err != nil {
		return err
	}
	return t.PutMeta(key, m)
}

// ListRange calls header once with the number of elements in positions start..stop of the list
// at key (Redis's LRANGE rules: negative counts from the end, out-of-range clamps; 0 for a
// missing key), then elem for each of them in order. It reads the nodes that hold the range:
// the cost is one seek to the first and one point read per node, independent of the list's
// length. A wrong type returns ErrWrongType before header is called. v is valid only during
// the call.
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
	header(int(hi - lo))
	a, b := m.Head+uint64(lo), m.Head+uint64(hi)
	at, v, err := t.nodeRecordAt(key, m, a)
	for err == nil {
		var n uint64
		n, err = nodeElems(v, a-at, b-at, elem)
		if err != nil || n == 0 || at+n > m.Tail || at+n <= a {
			return errListNode(key, at)
		}
		if at+n >= b {
			return nil
		}
		a, at = at+n, at+n
		v, err = t.nodeRecord(key, m, at)
	}
	return err
}

// ListEach calls fn for each element of the list m, in order, until fn returns false. The
// element is valid only during the call.
func (t *Txn) ListEach(m *Meta, fn func(v []byte) bool) error {
	it := t.Iterate(elemKey(nil, m.ID, m.Head), elemKey(nil, m.ID, m.Tail), false)
	more := true
	for more && it.Next() {
		_, err := nodeElems(it.Value(), 0, ^uint64(0), func(e []byte) { more = more && fn(e) })
		if err != nil {
			it.Close()
			return fmt.Errorf("%w: list object %d", err, m.ID)
		}
	}
	return it.Close()
}
