package storage

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"
)

// Packed collections
//
// A small hash, set or sorted set keeps all its elements in one record, DataKey(id, "") (the
// bare prefix of its object ID), and its metadata says so: Meta.Enc is EncPacked. The record is
// a list node's encoding (listnode.go) of a flat run of strings:
//
//	hash:        field, value, field, value, ...  in insertion order (HGETALL's order)
//	set:         member, member, ...              integers only, in numeric order (an intset)
//	sorted set:  member, score, member, score...  8-byte EncodeScore, by score then member
//
// so that a read of any element, or of the whole collection, is one LevelDB read. A write
// reads the record, changes it and writes it back. When a write takes the collection past its
// thresholds (PackLimits: the entries and element bytes of hash-max-listpack-*,
// set-max-intset-entries and zset-max-listpack-*), the collection converts to one record per
// element under the same object ID (EncRecords) and stays so, however small it becomes again.
// A collection of format version 2 has no encoding byte in its metadata and is EncRecords.

// Encodings of a hash, set or sorted set, stored in its metadata; the numbers never change.
const (
	EncRecords = 0 // one record per element (hash.go, set.go, zset.go)
	EncPacked  = 1 // every element in one record (packed.go)
)

// PackLimits are the thresholds below which a collection stays packed.
type PackLimits struct {
	HashEntries   int64 // hash-max-listpack-entries
	HashValue     int64 // hash-max-listpack-value: bytes of a field or a value
	SetIntEntries int64 // set-max-intset-entries
	ZSetEntries   int64 // zset-max-listpack-entries
	ZSetValue     int64 // zset-max-listpack-value: bytes of a member
}

// DefaultPackLimits are Redis 7.0's built-in thresholds, which Strata keeps: OBJECT ENCODING
// then answers as Redis does, and BenchmarkPacked shows the packed layout reading a whole
// small collection two to three times faster than one record per element, a point read as
// fast, and a write paying for rewriting the record.
var DefaultPackLimits = PackLimits{HashEntries: 512, HashValue: 64, SetIntEntries: 512, ZSetEntries: 128, ZSetValue: 64}

// packSetting holds the PackLimits in force (SetPackLimits).
type packSetting struct{ p atomic.Pointer[PackLimits] }

// SetPackLimits sets the thresholds of packed collections. They apply to the writes from now
// on: a packed collection converts when a write takes it past them, and one already converted
// stays so.
func (s *Store) SetPackLimits(l PackLimits) { s.pack.p.Store(&l) }

// PackLimits returns the thresholds in force.
func (s *Store) PackLimits() PackLimits {
	if p := s.pack.p.Load(); p != nil {
		return *p
	}
	return DefaultPackLimits
}

// packedKey returns the key of the record of packed collection id.
func packedKey(id uint64) []byte { return DataKey(nil, id, nil) }

// packedElems reads the strings of packed collection m. A collection not yet written has none.
// The strings alias the record, which must not be modified.
func (t *Txn) packedElems(m *Meta) ([][]byte, error) {
	v, ok, err := t.get(packedKey(m.ID))
	if err != nil || !ok {
		return nil, err
	}
	n, _ := listNodeCount(v)
	return decodeListNode(v, make([][]byte, 0, min(n, uint64(len(v)))))
}

// packedLookup returns the string after name in the record of packed collection m, whose
// elements are step strings each, without decoding the record: a hash's value, a sorted set's
// score, or for a set the member itself.
func (t *Txn) packedLookup(m *Meta, step int, name []byte) ([]byte, bool, error) {
	v, ok, err := t.get(packedKey(m.ID))
	if err != nil || !ok {
		return nil, false, err
	}
	n, w := binary.Uvarint(v)
	if w <= 0 {
		return nil, false, errCorrupt
	}
	v = v[w:]
	for i := uint64(0); i < n; i++ {
		l, w := binary.Uvarint(v)
		if w <= 0 || uint64(len(v)-w) < l {
			return nil, false, errCorrupt
		}
		e := v[w : w+int(l)]
		v = v[w+int(l):]
		if i%uint64(step) != 0 || !bytes.Equal(e, name) {
			continue
		}
		if step == 1 {
			return e, true, nil
		}
		if l, w = binary.Uvarint(v); w <= 0 || uint64(len(v)-w) < l {
			return nil, false, errCorrupt
		}
		return v[w : w+int(l)], true, nil
	}
	return nil, false, nil
}

// putPacked stages the record of packed collection id.
func (t *Txn) putPacked(id uint64, elems [][]byte) {
	size := uvarintLen(uint64(len(elems)))
	for _, e := range elems {
		size += elemSize(e)
	}
	t.put(packedKey(id), encodeListNode(make([]byte, 0, size), elems))
}

// unpack stages the conversion of packed collection m, whose new strings are elems, to one
// record per element: put is called with each element's strings and stages its records.
func (t *Txn) unpack(m *Meta, elems [][]byte, step int, put func(e [][]byte)) {
	t.del(packedKey(m.ID))
	for i := 0; i+step <= len(elems); i += step {
		put(elems[i : i+step])
	}
	m.Enc = EncRecords
}

// PackWriter builds a new hash, set or sorted set element by element, as RESTORE reads one: the
// elements are held while the collection fits the packed thresholds, and from the first that
// does not, staged one record each.
type PackWriter struct {
	typ    Type
	id     uint64
	lim    PackLimits
	elems  [][]byte // while packed: the record's strings
	n      uint64
	packed bool
}

// NewPackWriter returns a writer of the elements of a new collection of type typ (TypeHash,
// TypeSet or TypeZSet) with object ID id.
func (t *Txn) NewPackWriter(typ Type, id uint64) *PackWriter {
	return &PackWriter{typ: typ, id: id, lim: t.s.PackLimits(), packed: t.newEnc(typ) == EncPacked}
}

// Add adds an element: a hash's field and value, a set's member, or a sorted set's member and
// score. It reports false, staging nothing, when the collection already has that element.
func (w *PackWriter) Add(t *Txn, name, value []byte, score float64) (bool, error) {
	if w.packed {
		if packedFind(w.elems, packedStep(w.typ), name) >= 0 {
			return false, nil
		}
		w.elems = append(w.elems, bytes.Clone(name))
		switch w.typ {
		case TypeHash:
			w.elems = append(w.elems, bytes.Clone(value))
		case TypeZSet:
			w.elems = append(w.elems, EncodeScore(nil, score))
		}
		w.n++
		if w.fits(name, value) {
			return true, nil
		}
		w.packed = false
		m := Meta{Type: w.typ, ID: w.id}
		t.unpack(&m, w.elems, packedStep(w.typ), func(e [][]byte) { w.putRecords(t, e) })
		w.elems = nil
		return true, nil
	}
	k := DataKey(nil, w.id, name)
	if w.typ == TypeZSet {
		k = ZSetMemberKey(k[:0], w.id, name)
	}
	if _, dup, err := t.get(k); err != nil || dup {
		return false, err
	}
	switch w.typ {
	case TypeZSet:
		w.putRecords(t, [][]byte{name, EncodeScore(nil, score)})
	default:
		w.putRecords(t, [][]byte{name, value})
	}
	w.n++
	return true, nil
}

// fits reports whether the collection of w.n elements, the last added being name and value,
// may stay packed.
func (w *PackWriter) fits(name, value []byte) bool {
	switch w.typ {
	case TypeHash:
		return int64(w.n) <= w.lim.HashEntries && int64(len(name)) <= w.lim.HashValue && int64(len(value)) <= w.lim.HashValue
	case TypeSet:
		_, ok := intsetMember(name)
		return ok && int64(w.n) <= w.lim.SetIntEntries
	case TypeZSet:
		return int64(w.n) <= w.lim.ZSetEntries && int64(len(name)) <= w.lim.ZSetValue
	}
	return false
}

// putRecords stages the records of one element of the record layout: e holds its strings as
// a packed record does.
func (w *PackWriter) putRecords(t *Txn, e [][]byte) {
	switch w.typ {
	case TypeHash:
		t.put(DataKey(nil, w.id, e[0]), e[1])
	case TypeSet:
		t.put(DataKey(nil, w.id, e[0]), nil)
	case TypeZSet:
		t.put(ZSetMemberKey(nil, w.id, e[0]), e[1])
		t.put(ZSetScoreKey(nil, w.id, DecodeScore(e[1]), e[0]), nil)
	}
}

// Finish stages the record of a packed collection and fills m's ID, Size and Enc.
func (w *PackWriter) Finish(t *Txn, m *Meta) {
	m.ID, m.Size, m.Enc = w.id, w.n, EncRecords
	if w.packed && w.n > 0 {
		switch w.typ {
		case TypeSet:
			vals := make([]int64, len(w.elems))
			for i, e := range w.elems {
				vals[i], _ = intsetMember(e)
			}
			w.elems = sortIntset(w.elems, vals)
		case TypeZSet:
			z := &ZSet{t: t, m: &Meta{Type: TypeZSet, ID: w.id, Enc: EncPacked}}
			for i := 0; i < len(w.elems); i += 2 {
				z.pinsert(w.elems[i], DecodeScore(w.elems[i+1]))
			}
			w.elems = z.p
		}
		t.putPacked(w.id, w.elems)
		m.Enc = EncPacked
	}
}
