package storage

import (
	"encoding/binary"
	"sync/atomic"

	"github.com/syndtr/goleveldb/leveldb"
)

// List nodes
//
// A list's elements are packed into nodes, each one record under the list's object ID:
// DataKey(id, BE64(k)) holds the elements of one run of absolute indexes as uvarint(count)
// followed by uvarint(len)+bytes for each element. The nodes cover [Head, Tail) without gaps,
// in the order of their keys. Every node but the first (the head node) is keyed by the index
// of its first element, its start; the head node starts at Head and is keyed by the
// metadata's First, which may lie below Head (after pops on the left) or above it (after
// pushes on the left), but below the key of the node after it. The metadata's Last is the key
// of the last node (the tail node), First when the list has one node.
//
// So a push or a pop at either end reads and rewrites one record under a key that does not
// change: a push on the left prepends the new elements' bytes to the head node's record
// without decoding it, a pop on the left cuts them off the front, and the same holds at the
// tail. Within a group commit (group.go) the records of many pushes to one list then cost
// LevelDB one record per node. The node that holds a position is found with one reverse seek,
// the greatest key not above it, or the head node when that is none or First. The middle
// operations (list_middle.go) first rekey the head node under its start, so that they see
// every node keyed by its start.
//
// A node grows while it stays within list-max-listpack-size (ListFill): a positive fill bounds
// the entries per node (and the bytes at 8 KB), a negative one the bytes only, -1 to -5 being
// 4, 8, 16, 32 and 64 KB. An element larger than the bound has a node of its own.

// DefaultListFill is Strata's list-max-listpack-size default: nodes of at most 32 elements.
// Redis's -2 (8 KB) makes every push and pop rewrite a node of up to 8 KB, a LevelDB write
// that cost LPUSH and LPOP a third to two thirds of their throughput under redis-benchmark,
// while 32 elements keep LRANGE 0 599 at about twenty point reads.
const DefaultListFill = 32

// listSafetyBytes bounds a node of a positive fill, as Redis does.
const listSafetyBytes = 8192

// fillSetting holds list-max-listpack-size for new and rewritten nodes (SetListFill).
type fillSetting struct{ v atomic.Int64 }

// SetListFill sets list-max-listpack-size, the bound of the list nodes written from now on.
// Nodes already written keep their size until a write rewrites them.
func (s *Store) SetListFill(fill int64) { s.fill.v.Store(fill - DefaultListFill) }

// ListFill returns list-max-listpack-size in force.
func (s *Store) ListFill() int64 { return s.fill.v.Load() + DefaultListFill }

// nodeLimit is the bound of one list node.
type nodeLimit struct{ entries, bytes int }

func (s *Store) listLimit() nodeLimit {
	f := s.ListFill()
	switch {
	case f > 0:
		return nodeLimit{entries: int(min(f, 1<<30)), bytes: listSafetyBytes}
	case f == 0:
		return nodeLimit{entries: 1, bytes: listSafetyBytes}
	case f < -5:
		f = -5
	}
	return nodeLimit{entries: 1 << 30, bytes: 4096 << (-f - 1)}
}

// elemSize is the bytes element v takes in a node.
func elemSize(v []byte) int { return uvarintLen(uint64(len(v))) + len(v) }

func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// fits reports whether a node of count elements and size bytes can take an element of sz bytes.
func (l nodeLimit) fits(count, size, sz int) bool {
	return count == 0 || count < l.entries && size+sz <= l.bytes
}

// appendElem appends the node encoding of element e to dst.
func appendElem(dst, e []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(e)))
	return append(dst, e...)
}

// nodeHeader splits node record v into its element count and its encoded elements, which
// alias v. ok is false for a record without elements.
func nodeHeader(v []byte) (count uint64, body []byte, ok bool) {
	n, w := binary.Uvarint(v)
	if w <= 0 || n == 0 || n > uint64(len(v)) {
		return 0, nil, false
	}
	return n, v[w:], true
}

// nodeSplit walks the first k elements of body, the encoded elements of a node, and returns
// the offset after them. When dst is not nil it appends each element to *dst, aliasing body
// with its capacity cut at its end, so that appending to one never overwrites the next.
func nodeSplit(body []byte, k uint64, dst *[][]byte) (int, bool) {
	off := 0
	for i := uint64(0); i < k; i++ {
		l, w := binary.Uvarint(body[off:])
		if w <= 0 || uint64(len(body)-off-w) < l {
			return 0, false
		}
		if off += w; dst != nil {
			*dst = append(*dst, body[off:off+int(l):off+int(l)])
		}
		off += int(l)
	}
	return off, true
}

// encodeListNode appends the node encoding of elems to dst.
func encodeListNode(dst []byte, elems [][]byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(elems)))
	for _, e := range elems {
		dst = appendElem(dst, e)
	}
	return dst
}

// listNodeCount returns the number of elements of node record v.
func listNodeCount(v []byte) (uint64, bool) {
	n, w := binary.Uvarint(v)
	return n, w > 0
}

// decodeListNode appends the elements of node record v to dst, aliasing v.
func decodeListNode(v []byte, dst [][]byte) ([][]byte, error) {
	n, w := binary.Uvarint(v)
	if w <= 0 || n > uint64(len(v)) {
		return dst, errCorrupt
	}
	v = v[w:]
	for i := uint64(0); i < n; i++ {
		l, w := binary.Uvarint(v)
		if w <= 0 || uint64(len(v)-w) < l {
			return dst, errCorrupt
		}
		dst = append(dst, v[w:w+int(l)])
		v = v[w+int(l):]
	}
	if len(v) != 0 {
		return dst, errCorrupt
	}
	return dst, nil
}

// packList splits elems into runs that each fit one node, in order.
func packList(elems [][]byte, lim nodeLimit) [][][]byte {
	var out [][][]byte
	first, size := 0, 0
	for i, e := range elems {
		sz := elemSize(e)
		if !lim.fits(i-first, size, sz) {
			out = append(out, elems[first:i])
			first, size = i, 0
		}
		size += sz
	}
	if first < len(elems) {
		out = append(out, elems[first:])
	}
	return out
}

// ListWriter builds a new list element by element, as RESTORE and the import tool read one:
// full nodes go to the transaction as they fill, so only one node is held.
type ListWriter struct {
	id    uint64
	lim   nodeLimit
	start uint64 // absolute index of the node being filled
	last  uint64 // start of the last node staged
	next  uint64 // absolute index of the next element
	node  []byte // the elements of the node being filled, each uvarint(len)+bytes
	count int
}

// NewListWriter returns a writer of the elements of a new list with object ID id.
func (t *Txn) NewListWriter(id uint64) *ListWriter {
	return &ListWriter{id: id, lim: t.s.listLimit(), start: ListMiddle, last: ListMiddle, next: ListMiddle}
}

// Append adds v at the tail of the list, staging a full node in t.
func (w *ListWriter) Append(t *Txn, v []byte) { w.append(&t.batch, v) }

func (w *ListWriter) append(b *leveldb.Batch, v []byte) {
	sz := elemSize(v)
	if !w.lim.fits(w.count, len(w.node), sz) {
		w.flush(b)
	}
	w.node = appendElem(w.node, v)
	w.count++
	w.next++
}

func (w *ListWriter) flush(b *leveldb.Batch) {
	if w.count == 0 {
		return
	}
	v := binary.AppendUvarint(make([]byte, 0, len(w.node)+4), uint64(w.count))
	b.Put(elemKey(nil, w.id, w.start), append(v, w.node...))
	w.last = w.start
	w.start, w.node, w.count = w.next, w.node[:0], 0
}

// Finish stages the last node in t and fills m's ID, Size, Head, Tail, Last and First.
func (w *ListWriter) Finish(t *Txn, m *Meta) { w.finish(&t.batch, m) }

func (w *ListWriter) finish(b *leveldb.Batch, m *Meta) {
	w.flush(b)
	m.ID, m.Head, m.Tail, m.Size, m.Last, m.First = w.id, ListMiddle, w.next, w.next-ListMiddle, w.last, ListMiddle
}

// nodeElems calls fn for the elements at offsets [from, to) of node record v (to is clamped
// to the node's count) and returns the count. The elements alias v.
func nodeElems(v []byte, from, to uint64, fn func(e []byte)) (uint64, error) {
	n, w := binary.Uvarint(v)
	if w <= 0 || n > uint64(len(v)) {
		return 0, errCorrupt
	}
	to = min(to, n)
	v = v[w:]
	for i := uint64(0); i < to; i++ {
		l, w := binary.Uvarint(v)
		if w <= 0 || uint64(len(v)-w) < l {
			return 0, errCorrupt
		}
		if i >= from {
			fn(v[w : w+int(l)])
		}
		v = v[w+int(l):]
	}
	return n, nil
}
