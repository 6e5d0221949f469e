package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Lists
//
// A list's metadata holds Head and Tail counters: its elements occupy the absolute indexes
// [Head, Tail), packed in nodes keyed by the index of their first element, but for the head
// node, keyed by the metadata's First (listnode.go). A new list starts with Head = Tail =
// ListMiddle; a push on the left lowers Head and a push on the right raises Tail, so an
// element's position is its index minus Head. A list that becomes empty is deleted.
//
// Costs. A push or pop at either end reads and rewrites one node under an unchanged key (the
// head node's key is First, the tail node's Last), without decoding it. LINDEX and LSET read
// one node, found with one reverse seek; LRANGE reads the nodes that hold the range, one point
// read each, so LRANGE 0 99 of a list of any length is usually one read. Middle operations (LINSERT, LREM) rewrite the
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

// elemKey returns the LevelDB key of the list node of list id keyed by i: its start, or First
// for the head node.
func elemKey(dst []byte, id, i uint64) []byte {
	dst = DataKey(dst, id, nil)
	return binary.BigEndian.AppendUint64(dst, i)
}

// elemIndex returns the index in the node key k.
func elemIndex(k []byte) uint64 { return binary.BigEndian.Uint64(k[DataPrefixLen:]) }

// nodeStart returns the absolute index at which the node of list m keyed by k starts.
func (m *Meta) nodeStart(k uint64) uint64 {
	if k == m.First {
		return m.Head
	}
	return k
}

// nodeKey returns the key of the node of list m that starts at absolute index start.
func (m *Meta) nodeKey(start uint64) uint64 {
	if start == m.Head {
		return m.First
	}
	return start
}

// listKeys returns the bounds of the node keys of list m.
func listKeys(m *Meta) (lo, hi []byte) {
	lo = DataKey(nil, m.ID, nil)
	return lo, prefixEnd(lo)
}

// listNode is a node read from a list: the index of its first element and its elements.
type listNode struct {
	start uint64
	elems [][]byte
}

func (n *listNode) end() uint64 { return n.start + uint64(len(n.elems)) }

// nodeRecord reads the record of the node of list m keyed by k. It must not be modified.
func (t *Txn) nodeRecord(key []byte, m *Meta, k uint64) ([]byte, error) {
	v, ok, err := t.get(elemKey(nil, m.ID, k))
	if err == nil && !ok {
		err = errListNode(key, m.nodeStart(k))
	}
	return v, err
}

// nodeRecordAt returns the start and the record of the node of list m that holds absolute
// index a (Head <= a < Tail): the tail node from its start on, else the node with the greatest
// key not above a, or the head node when that is none or First. The record must not be
// modified.
func (t *Txn) nodeRecordAt(key []byte, m *Meta, a uint64) (uint64, []byte, error) {
	if last := m.nodeStart(m.Last); a >= last || a == m.Head {
		k := m.Last
		if a < last {
			k = m.First
		}
		v, err := t.nodeRecord(key, m, k)
		return m.nodeStart(k), v, err
	}
	lo, _ := listKeys(m)
	it := t.Iterate(lo, elemKey(nil, m.ID, a+1), true)
	k, v := m.First, []byte(nil) // none: the head node, keyed above a
	if it.Next() {
		k, v = elemIndex(it.Key()), append([]byte(nil), it.Value()...)
	}
	err := it.Close()
	if err == nil && v == nil {
		v, err = t.nodeRecord(key, m, k)
	}
	return m.nodeStart(k), v, err
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

// putListNode stages the node of list id keyed by k.
func (t *Txn) putListNode(id, k uint64, elems [][]byte) {
	t.put(elemKey(nil, id, k), encodeListNode(nil, elems))
}

// nodeRec is a node record built in the transaction's scratch buffer and not staged yet: a
// push or a pop stages the record it ends with after the metadata, so that staging the
// metadata, which reads the old one, does not first index the record in the overlay.
type nodeRec struct {
	k   uint64
	rec []byte
}

// nodeBuf returns the transaction's scratch buffer for a node record, emptied.
func (t *Txn) nodeBuf() []byte { return t.lbuf[:0] }

// putNodeRecord stages record rec, built in the scratch buffer, under the node key k of list id.
// The buffer is kept for the next record unless a large element made it outgrow the biggest
// node bound (64 KB): pooled transactions must not hold that memory.
func (t *Txn) putNodeRecord(id, k uint64, rec []byte) {
	t.put(elemKey(nil, id, k), rec)
	if t.lbuf = rec; cap(rec) > 64<<10 {
		t.lbuf = nil
	}
}

// putMetaThenNode stages list metadata m, then the node record n, if any.
func (t *Txn) putMetaThenNode(key []byte, m *Meta, n nodeRec) error {
	if err := t.PutMeta(key, m); err != nil {
		return err
	}
	if n.rec != nil {
		t.putNodeRecord(m.ID, n.k, n.rec)
	}
	return nil
}

// rekeyHead stores the head node of list m, whose record is v, under its start, so that
// every node of m is keyed by its start.
func (t *Txn) rekeyHead(m *Meta, v []byte) {
	t.del(elemKey(nil, m.ID, m.First))
	t.put(elemKey(nil, m.ID, m.Head), v)
	if m.Last == m.First {
		m.Last = m.Head
	}
	m.First = m.Head
}

// listNormalize rekeys the head node of list m under its start when it is not, as the middle
// operations expect of every node.
func (t *Txn) listNormalize(key []byte, m *Meta) error {
	if m.First == m.Head {
		return nil
	}
	v, err := t.nodeRecord(key, m, m.First)
	if err == nil {
		t.rekeyHead(m, v)
	}
	return err
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

// endMeta is ListMeta decoded into t's scratch t.lmeta, for ListPush and ListPop, which do not
// keep the metadata past their return: they read it without allocating.
func (t *Txn) endMeta(key []byte) (*Meta, error) {
	m, err := t.getMetaInto(t.db, key, &t.lmeta)
	if err != nil || m == nil {
		return nil, err
	}
	if m.Type != TypeList {
		return nil, ErrWrongType
	}
	return m, nil
}

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
	m, err := t.endMeta(key)
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
		m = &Meta{Type: TypeList, ID: id, Head: ListMiddle, Tail: ListMiddle, Last: ListMiddle, First: ListMiddle}
	}
	if len(vals) == 0 {
		return int64(m.Size), nil
	}
	var last nodeRec
	if left {
		last, err = t.listPushLeft(key, m, vals)
	} else {
		last, err = t.listPushRight(key, m, vals)
	}
	if err != nil {
		return 0, err
	}
	m.Size += uint64(len(vals))
	return int64(m.Size), t.putMetaThenNode(key, m, last)
}

// listPushRight appends vals to the tail node of m while it has room, then to new nodes,
// keyed by their start. The tail node is extended at the byte level, under its key. It returns
// the last record written, not staged.
func (t *Txn) listPushRight(key []byte, m *Meta, vals [][]byte) (last nodeRec, err error) {
	lim := t.s.listLimit()
	var body []byte // the encoded elements of the tail node
	var count uint64
	nk, size := m.Tail, 0
	if m.Size > 0 {
		v, err := t.nodeRecord(key, m, m.Last)
		if err != nil {
			return last, err
		}
		start := m.nodeStart(m.Last)
		var ok bool
		if count, body, ok = nodeHeader(v); !ok || start+count != m.Tail {
			return last, errListNode(key, start)
		}
		if m.Last == m.First && m.First >= m.Tail {
			// A lone head node keyed at or past Tail (pushes on the left, then pops on the
			// right) would sort after the nodes begun at Tail.
			t.rekeyHead(m, v)
		}
		nk, size = m.Last, len(v)
	}
	for i := 0; i < len(vals); {
		j := i + nodeRoom(lim, count, size, vals[i:])
		if j == i { // the tail node is full
			nk, body, count, size = m.Tail, nil, 0, 0
			continue
		}
		rec := binary.AppendUvarint(t.nodeBuf(), count+uint64(j-i))
		rec = append(rec, body...)
		for _, e := range vals[i:j] {
			rec = appendElem(rec, e)
		}
		if j == len(vals) {
			last = nodeRec{nk, rec}
		} else {
			t.putNodeRecord(m.ID, nk, rec)
		}
		if m.Size == 0 && i == 0 {
			m.First = nk
		}
		m.Last = nk
		m.Tail += uint64(j - i)
		nk, body, count, size = m.Tail, nil, 0, 0
		i = j
	}
	return last, nil
}

// nodeRoom returns how many of vals, from the first on, a node of count elements and size
// bytes can take.
func nodeRoom(lim nodeLimit, count uint64, size int, vals [][]byte) int {
	k := 0
	for ; k < len(vals); k++ {
		sz := elemSize(vals[k])
		if !lim.fits(int(count)+k, size, sz) {
			break
		}
		size += sz
	}
	return k
}

// listPushLeft prepends vals, one by one, to the head node of m while it has room, then to
// new nodes. The head node grows at the byte level under its key, First, which so stays put
// while Head moves below it. A full head node is rekeyed under its start before a new head
// node is begun; a new node is keyed by its start after the push. It returns the last record
// written, not staged.
func (t *Txn) listPushLeft(key []byte, m *Meta, vals [][]byte) (last nodeRec, err error) {
	lim := t.s.listLimit()
	var v, body []byte // the stored head node's record and its encoded elements
	var count uint64
	if m.Size > 0 {
		if v, err = t.nodeRecord(key, m, m.First); err != nil {
			return last, err
		}
		var ok bool
		if count, body, ok = nodeHeader(v); !ok || count > m.Tail-m.Head {
			return last, errListNode(key, m.Head)
		}
	}
	size := len(v)
	for i := 0; i < len(vals); {
		j := i + nodeRoom(lim, count, size, vals[i:])
		if j == i { // the stored head node is full
			if m.First != m.Head {
				t.rekeyHead(m, v)
			}
			v, body, count, size = nil, nil, 0, 0
			continue
		}
		m.Head -= uint64(j - i)
		nk := m.Head
		if v != nil {
			if nk = m.First; j < len(vals) && m.First != m.Head { // full after this push
				t.del(elemKey(nil, m.ID, m.First))
				nk = m.Head
			}
			if m.Last == m.First {
				m.Last = nk
			}
		} else if m.Size == 0 && i == 0 {
			m.Last = nk
		}
		rec := binary.AppendUvarint(t.nodeBuf(), count+uint64(j-i))
		for x := j - 1; x >= i; x-- {
			rec = appendElem(rec, vals[x])
		}
		rec = append(rec, body...)
		if j == len(vals) {
			last = nodeRec{nk, rec}
		} else {
			t.putNodeRecord(m.ID, nk, rec)
		}
		m.First = nk
		v, body, count, size = nil, nil, 0, 0
		i = j
	}
	return last, nil
}

// ListPop removes and returns up to count elements from the left or the right of the list at
// key, in pop order. It returns nil when the key does not exist. A list left empty is deleted.
// The slice of a one-element result is t's own, reused by t's next ListPop.
func (t *Txn) ListPop(key []byte, left bool, count int64) ([][]byte, error) {
	m, err := t.endMeta(key)
	if err != nil || m == nil || count <= 0 {
		return nil, err
	}
	n := min(uint64(count), m.Size)
	out := t.pops[:0:1] // a pop of one element, the common case, allocates no slice
	if n > 1 {
		out = make([][]byte, 0, n)
	}
	var last nodeRec
	if left {
		last, err = t.listPopLeft(key, m, n, &out)
	} else {
		last, err = t.listPopRight(key, m, n, &out)
	}
	if err != nil {
		return nil, err
	}
	m.Size -= n
	if m.Size == 0 {
		return out, t.PutMeta(key, nil)
	}
	return out, t.putMetaThenNode(key, m, last)
}

// listPopLeft cuts the first elements off the head node of m, which keeps its key, and
// deletes the head nodes it empties; the next node, keyed by its start, becomes the head node.
// It returns the record of the node left partly popped, not staged.
func (t *Txn) listPopLeft(key []byte, m *Meta, n uint64, out *[][]byte) (nodeRec, error) {
	for uint64(len(*out)) < n {
		v, err := t.nodeRecord(key, m, m.First)
		if err != nil {
			return nodeRec{}, err
		}
		count, body, ok := nodeHeader(v)
		if !ok || count > m.Tail-m.Head {
			return nodeRec{}, errListNode(key, m.Head)
		}
		take := min(n-uint64(len(*out)), count)
		off, ok := nodeSplit(body, take, nil)
		if !ok {
			return nodeRec{}, errListNode(key, m.Head)
		}
		nodeSplit(bytes.Clone(body[:off]), take, out)
		m.Head += take
		if take < count {
			rec := binary.AppendUvarint(t.nodeBuf(), count-take)
			return nodeRec{m.First, append(rec, body[off:]...)}, nil
		}
		t.del(elemKey(nil, m.ID, m.First))
		m.First = m.Head
	}
	return nodeRec{}, nil
}

// listPopRight cuts the last elements off the tail node of m, which keeps its key, and
// deletes the tail nodes it empties. It returns the record of the node left partly popped,
// not staged.
func (t *Txn) listPopRight(key []byte, m *Meta, n uint64, out *[][]byte) (nodeRec, error) {
	start := m.nodeStart(m.Last)
	v, err := t.nodeRecord(key, m, m.Last)
	for err == nil {
		count, body, ok := nodeHeader(v)
		if !ok || start < m.Head || start+count != m.Tail {
			return nodeRec{}, errListNode(key, start)
		}
		take := min(n-uint64(len(*out)), count)
		off, ok := nodeSplit(body, count-take, nil)
		from := len(*out)
		if _, cut := nodeSplit(bytes.Clone(body[off:]), take, out); !ok || !cut {
			return nodeRec{}, errListNode(key, start)
		}
		slices.Reverse((*out)[from:])
		m.Tail -= take
		if take < count {
			rec := binary.AppendUvarint(t.nodeBuf(), count-take)
			return nodeRec{m.Last, append(rec, body[:off]...)}, nil
		}
		t.del(elemKey(nil, m.ID, m.Last))
		if m.Tail == m.Head {
			return nodeRec{}, nil
		}
		if start, v, err = t.nodeRecordAt(key, m, m.Tail-1); err == nil {
			m.Last = m.nodeKey(start)
			if uint64(len(*out)) == n {
				return nodeRec{}, nil
			}
		}
	}
	return nodeRec{}, err
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
	lo, hi := listKeys(m)
	it := t.Iterate(lo, hi, false)
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
