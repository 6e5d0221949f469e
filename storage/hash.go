package storage

import (
	"bytes"
	"math/rand/v2"
	"slices"
)

// A hash or set too large to be packed (packed.go) has one record per element under its object
// ID, and the metadata record holds the number of elements (Meta.Size):
//
//	hash field:  DataKey(id, field)  -> value
//	set member:  DataKey(id, member) -> empty
//
// Sub-keys sort by their bytes, so a walk over the ID's prefix yields fields and members in byte
// order. A collection that loses its last element is deleted; the collector reclaims whatever
// sub-keys are left under its ID.

// dataRange returns the bounds of every sub-key of collection id.
func dataRange(id uint64) (start, limit []byte) {
	start = DataKey(nil, id, nil)
	return start, prefixEnd(start)
}

// iterData returns one bounded iterator over the sub-keys of collection id.
func (t *Txn) iterData(id uint64) *Iter {
	start, limit := dataRange(id)
	return t.Iterate(start, limit, false)
}

// eachData calls fn with every sub-key (without the prefix) and value of collection id in byte
// order until fn returns false. The slices are valid only during the call.
func (t *Txn) eachData(id uint64, fn func(sub, val []byte) bool) error {
	it := t.iterData(id)
	for it.Next() {
		if !fn(it.Key()[DataPrefixLen:], it.Value()) {
			break
		}
	}
	return it.Close()
}

// getSub reads sub-key sub of collection id. A present empty value is returned as a non-nil
// empty slice, so callers can tell it from a missing one.
func (t *Txn) getSub(id uint64, sub []byte) ([]byte, bool, error) {
	t.buf = DataKey(t.buf[:0], id, sub)
	v, ok, err := t.get(t.buf)
	if ok && v == nil {
		v = []byte{}
	}
	return v, ok, err
}

// putMetaSize stores m with a new size, or deletes key when the collection became empty.
func (t *Txn) putMetaSize(key []byte, m *Meta, size uint64) error {
	if size == 0 {
		_, err := t.Delete(key)
		return err
	}
	m.Size = size
	return t.PutMeta(key, m)
}

// collectionFor returns key's metadata for a write that may create it: the live collection of
// type typ, or a fresh empty one (ID allocated, not yet stored) when key does not exist.
func (t *Txn) collectionFor(key []byte, typ Type) (*Meta, error) {
	m, err := t.GetMetaOf(key, typ)
	if err != nil || m != nil {
		return m, err
	}
	id, err := t.NewID()
	if err != nil {
		return nil, err
	}
	return &Meta{Type: typ, ID: id, Enc: t.newEnc(typ)}, nil
}

// newEnc returns the encoding of a new collection of type typ: packed unless its entries
// threshold is 0.
func (t *Txn) newEnc(typ Type) byte {
	lim := t.s.PackLimits()
	n := lim.HashEntries
	switch typ {
	case TypeSet:
		n = lim.SetIntEntries
	case TypeZSet:
		n = lim.ZSetEntries
	}
	if n > 0 {
		return EncPacked
	}
	return EncRecords
}

// HashGet returns the value of field in hash key and whether it exists. It returns ErrWrongType
// when key holds another type. The value must not be modified.
func (t *Txn) HashGet(key, field []byte) ([]byte, bool, error) {
	m, err := t.GetMetaOf(key, TypeHash)
	if err != nil || m == nil {
		return nil, false, err
	}
	if m.Enc == EncPacked {
		return t.packedLookup(m, 2, field)
	}
	return t.getSub(m.ID, field)
}

// packedFind returns the index of the string that names element name in the strings of a
// packed collection whose elements are step strings each, or -1.
func packedFind(elems [][]byte, step int, name []byte) int {
	for i := 0; i < len(elems); i += step {
		if bytes.Equal(elems[i], name) {
			return i
		}
	}
	return -1
}

// packedIndex finds names among the elements of a packed collection being built: by scanning
// while they are few, through a map once they are many, so that a long HSET or SADD on a packed
// key stays linear. The positions it gives hold while elements are only appended.
type packedIndex struct {
	step int
	m    map[string]int
}

func (x *packedIndex) find(elems [][]byte, name []byte) int {
	if x.m == nil {
		if len(elems)/x.step <= 64 {
			return packedFind(elems, x.step, name)
		}
		x.m = make(map[string]int, len(elems)/x.step)
		for i := 0; i < len(elems); i += x.step {
			x.m[string(elems[i])] = i
		}
	}
	if i, ok := x.m[string(name)]; ok {
		return i
	}
	return -1
}

// add records that name was added at position i.
func (x *packedIndex) add(name []byte, i int) {
	if x.m != nil {
		x.m[string(name)] = i
	}
}

// HashGetMany returns the values of fields in hash key, nil for a missing field or key.
func (t *Txn) HashGetMany(key []byte, fields [][]byte) ([][]byte, error) {
	m, err := t.GetMetaOf(key, TypeHash)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(fields))
	if m == nil {
		return out, nil
	}
	if m.Enc == EncPacked {
		elems, err := t.packedElems(m)
		for i, f := range fields {
			if j := packedFind(elems, 2, f); j >= 0 {
				out[i] = elems[j+1]
			}
		}
		return out, err
	}
	for i, f := range fields {
		v, _, err := t.getSub(m.ID, f)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// HashSet sets field/value pairs (pairs alternates fields and values) in hash key, creating it
// when missing and keeping its expiry, and returns how many fields were new. With nx set, fields
// that already exist are left alone.
func (t *Txn) HashSet(key []byte, pairs [][]byte, nx bool) (int64, error) {
	m, err := t.collectionFor(key, TypeHash)
	if err != nil {
		return 0, err
	}
	if m.Enc == EncPacked {
		return t.hashSetPacked(key, m, pairs, nx)
	}
	var added int64
	for i := 0; i+1 < len(pairs); i += 2 {
		_, ok, err := t.getSub(m.ID, pairs[i])
		if err != nil {
			return 0, err
		}
		if ok && nx {
			continue
		}
		if !ok {
			added++
		}
		t.put(DataKey(nil, m.ID, pairs[i]), pairs[i+1])
	}
	if added == 0 {
		return 0, nil
	}
	return added, t.putMetaSize(key, m, m.Size+uint64(added))
}

// hashSetPacked is HashSet on a packed hash. A field or value longer than
// hash-max-listpack-value converts the hash, unless nx leaves that field alone.
func (t *Txn) hashSetPacked(key []byte, m *Meta, pairs [][]byte, nx bool) (int64, error) {
	elems, err := t.packedElems(m)
	if err != nil {
		return 0, err
	}
	lim := t.s.PackLimits()
	out := append(make([][]byte, 0, len(elems)+len(pairs)), elems...)
	fits, changed := true, false
	var added int64
	idx := packedIndex{step: 2}
	for i := 0; i+1 < len(pairs); i += 2 {
		f, v := pairs[i], pairs[i+1]
		j := idx.find(out, f)
		if j >= 0 && nx {
			continue
		}
		fits = fits && int64(len(f)) <= lim.HashValue && int64(len(v)) <= lim.HashValue
		if j >= 0 {
			out[j+1], changed = v, true
			continue
		}
		idx.add(f, len(out))
		out = append(out, f, v)
		added++
		changed = true
	}
	if !fits || int64(len(out)/2) > lim.HashEntries {
		t.unpack(m, out, 2, func(e [][]byte) { t.put(DataKey(nil, m.ID, e[0]), e[1]) })
		return added, t.putMetaSize(key, m, m.Size+uint64(added))
	}
	if changed {
		t.putPacked(m.ID, out)
	}
	if added == 0 {
		return 0, nil
	}
	return added, t.putMetaSize(key, m, m.Size+uint64(added))
}

// HashDel deletes fields from hash key, deleting the key when it becomes empty, and returns how
// many fields existed.
func (t *Txn) HashDel(key []byte, fields [][]byte) (int64, error) {
	return t.delSubs(key, TypeHash, fields)
}

// delSubs deletes the sub-keys subs of collection key of type typ.
func (t *Txn) delSubs(key []byte, typ Type, subs [][]byte) (int64, error) {
	m, err := t.GetMetaOf(key, typ)
	if err != nil || m == nil {
		return 0, err
	}
	if m.Enc == EncPacked {
		return t.delPacked(key, m, subs)
	}
	var n uint64
	for _, s := range subs {
		_, ok, err := t.getSub(m.ID, s)
		if err != nil {
			return 0, err
		}
		if ok {
			n++
			t.del(DataKey(nil, m.ID, s))
		}
	}
	if n == 0 {
		return 0, nil
	}
	return int64(n), t.putMetaSize(key, m, m.Size-min(n, m.Size))
}

// delPacked deletes the elements named subs from packed hash or set m.
func (t *Txn) delPacked(key []byte, m *Meta, subs [][]byte) (int64, error) {
	elems, err := t.packedElems(m)
	if err != nil {
		return 0, err
	}
	step := packedStep(m.Type)
	out := make([][]byte, 0, len(elems))
	var n uint64
	for i := 0; i+step <= len(elems); i += step {
		if slices.ContainsFunc(subs, func(s []byte) bool { return bytes.Equal(s, elems[i]) }) {
			n++
			continue
		}
		out = append(out, elems[i:i+step]...)
	}
	if n == 0 {
		return 0, nil
	}
	if len(out) > 0 {
		t.putPacked(m.ID, out)
	}
	return int64(n), t.putMetaSize(key, m, m.Size-min(n, m.Size))
}

// packedStep is the number of strings per element in the record of a packed collection.
func packedStep(typ Type) int {
	if typ == TypeSet {
		return 1
	}
	return 2
}

// eachElem calls fn with every element of hash or set m until fn returns false: a hash's fields
// and values, a set's members (with a nil value); in insertion order for a packed hash, numeric
// order for a packed set, byte order otherwise. The slices are valid only during the call.
func (t *Txn) eachElem(m *Meta, fn func(sub, val []byte) bool) error {
	if m.Enc != EncPacked {
		return t.eachData(m.ID, fn)
	}
	elems, err := t.packedElems(m)
	if err != nil {
		return err
	}
	step := packedStep(m.Type)
	for i := 0; i+step <= len(elems); i += step {
		var val []byte
		if step == 2 {
			val = elems[i+1]
		}
		if !fn(elems[i], val) {
			break
		}
	}
	return nil
}

// HashEach calls fn with every field and value of hash m until fn returns false: in insertion
// order while the hash is packed, in field order once it is not. The slices are valid only
// during the call.
func (t *Txn) HashEach(m *Meta, fn func(field, value []byte) bool) error {
	return t.eachElem(m, fn)
}

// HashRandom picks n fields of hash m with their values. With distinct set the fields are
// distinct (at most m.Size of them); otherwise they are n independent uniform draws, in random
// order. fn is called once per pick; the slices are valid only during the call.
func (t *Txn) HashRandom(m *Meta, n uint64, distinct bool, fn func(field, value []byte)) error {
	if distinct {
		return t.sampleDistinct(m, n, fn)
	}
	return t.sampleRepeat(m, n, fn)
}

// sampleChunk bounds the memory of a sampling pass with repetitions: draws are served in chunks,
// one iterator pass each.
const sampleChunk = 1 << 16

// sampleDistinct calls fn with min(n, m.Size) distinct elements of collection m chosen uniformly
// (selection sampling, Knuth's algorithm S), in one pass over the collection, in random order;
// when that is the whole collection, in the order eachElem gives.
func (t *Txn) sampleDistinct(m *Meta, n uint64, fn func(sub, val []byte)) error {
	type pick struct{ sub, val []byte }
	var picks []pick
	need, left := min(n, m.Size), m.Size
	if need == 0 {
		return nil
	}
	if need == left {
		// Everything: take the whole collection as it is.
		err := t.eachElem(m, func(sub, val []byte) bool {
			picks = append(picks, pick{bytes.Clone(sub), bytes.Clone(val)})
			return uint64(len(picks)) < n
		})
		if err != nil {
			return err
		}
	} else {
		if err := t.eachElem(m, func(sub, val []byte) bool {
			if rand.Uint64N(left) < need {
				picks = append(picks, pick{bytes.Clone(sub), bytes.Clone(val)})
				need--
			}
			left--
			return need > 0 && left > 0
		}); err != nil {
			return err
		}
		rand.Shuffle(len(picks), func(i, j int) { picks[i], picks[j] = picks[j], picks[i] })
	}
	for _, p := range picks {
		fn(p.sub, p.val)
	}
	return nil
}

// sampleRepeat calls fn n times with a uniformly drawn element of collection m (repetitions
// allowed), in random order. Each chunk of draws is sorted by position and served by one pass.
func (t *Txn) sampleRepeat(m *Meta, n uint64, fn func(sub, val []byte)) error {
	if m.Size == 0 {
		return nil
	}
	type draw struct {
		pos uint64
		ord int
	}
	chunk := make([]draw, 0, min(n, sampleChunk))
	type elem struct {
		sub, val []byte
		ok       bool
	}
	found := make([]elem, 0, cap(chunk))
	for n > 0 {
		k := min(n, sampleChunk)
		n -= k
		chunk = chunk[:0]
		for i := 0; i < int(k); i++ {
			chunk = append(chunk, draw{rand.Uint64N(m.Size), i})
		}
		slices.SortFunc(chunk, func(a, b draw) int {
			switch {
			case a.pos < b.pos:
				return -1
			case a.pos > b.pos:
				return 1
			}
			return 0
		})
		found = found[:k]
		clear(found)
		var pos uint64
		i := 0
		err := t.eachElem(m, func(sub, val []byte) bool {
			if i < len(chunk) && chunk[i].pos == pos {
				s, v := bytes.Clone(sub), bytes.Clone(val)
				for ; i < len(chunk) && chunk[i].pos == pos; i++ {
					found[chunk[i].ord] = elem{s, v, true}
				}
			}
			pos++
			return i < len(chunk)
		})
		if err != nil {
			return err
		}
		for _, f := range found {
			if f.ok {
				fn(f.sub, f.val)
			}
		}
	}
	return nil
}
