package storage

import (
	"bytes"
	"slices"
	"unsafe"

	"github.com/syndtr/goleveldb/leveldb"
)

// overlay indexes the records of a pending group (group.go) for reads: the latest record of
// each key, its value prefixed by opPut, or opDel alone. Records are appended to an arena that
// is never overwritten while the group is in use, so the index's keys are strings over the
// arena's bytes and an iterator may keep reading a snapshot of it. The sorted order that
// iterators walk is built when one asks for it after a change. Reset empties the overlay for
// reuse; the caller makes sure no iterator still reads it.
type overlay struct {
	arena  []byte
	index  map[string]int32 // key -> position in ents
	ents   []ovEnt
	sorted []ovEnt // ents in key order; nil once a record was added since it was built
}

// ovEnt is a record in the arena: its key at off, then its op byte and value.
type ovEnt struct{ off, klen, vlen uint32 }

func (o *overlay) key(arena []byte, e ovEnt) []byte {
	return arena[e.off : e.off+e.klen : e.off+e.klen]
}

func (o *overlay) val(arena []byte, e ovEnt) []byte {
	s := e.off + e.klen
	return arena[s : s+e.vlen : s+e.vlen]
}

// put records key with op (opPut or opDel) and, for opPut, val.
func (o *overlay) put(key []byte, op byte, val []byte) {
	e := ovEnt{off: uint32(len(o.arena)), klen: uint32(len(key)), vlen: uint32(1 + len(val))}
	o.arena = append(o.arena, key...)
	o.arena = append(o.arena, op)
	o.arena = append(o.arena, val...)
	o.sorted = nil
	if i, ok := o.index[string(key)]; ok {
		o.ents[i] = e
		return
	}
	if o.index == nil {
		o.index = make(map[string]int32)
	}
	k := o.arena[e.off : e.off+e.klen]
	o.index[unsafe.String(unsafe.SliceData(k), len(k))] = int32(len(o.ents))
	o.ents = append(o.ents, e)
}

// get returns key's op-prefixed value, valid until Reset.
func (o *overlay) get(key []byte) ([]byte, bool) {
	i, ok := o.index[string(key)]
	if !ok {
		return nil, false
	}
	return o.val(o.arena, o.ents[i]), true
}

func (o *overlay) size() int { return len(o.arena) }

// fill appends the latest record of every key to b, in the order the keys were first written.
func (o *overlay) fill(b *leveldb.Batch) {
	for _, e := range o.ents {
		if v := o.val(o.arena, e); v[0] == opDel {
			b.Delete(o.key(o.arena, e))
		} else {
			b.Put(o.key(o.arena, e), v[1:])
		}
	}
}

func (o *overlay) reset() {
	o.arena = o.arena[:0]
	clear(o.index)
	o.ents = o.ents[:0]
	o.sorted = nil
}

// iterator returns an iterator over the records in [start, limit) as they are now (limit nil:
// no upper bound).
func (o *overlay) iterator(start, limit []byte) *ovIter {
	if o.sorted == nil {
		o.sorted = slices.Clone(o.ents)
		slices.SortFunc(o.sorted, func(a, b ovEnt) int { return bytes.Compare(o.key(o.arena, a), o.key(o.arena, b)) })
	}
	it := &ovIter{o: o, arena: o.arena}
	cmp := func(e ovEnt, k []byte) int { return bytes.Compare(o.key(o.arena, e), k) }
	lo, _ := slices.BinarySearchFunc(o.sorted, start, cmp)
	hi := len(o.sorted)
	if limit != nil {
		hi, _ = slices.BinarySearchFunc(o.sorted, limit, cmp)
	}
	it.ents = o.sorted[lo:max(lo, hi)]
	return it
}

// ovIter walks a snapshot of an overlay's records in key order.
type ovIter struct {
	o     *overlay
	arena []byte
	ents  []ovEnt
	pos   int
}

func (it *ovIter) First() bool   { it.pos = 0; return it.pos < len(it.ents) }
func (it *ovIter) Last() bool    { it.pos = len(it.ents) - 1; return it.pos >= 0 }
func (it *ovIter) Next() bool    { it.pos++; return it.pos < len(it.ents) }
func (it *ovIter) Prev() bool    { it.pos--; return it.pos >= 0 }
func (it *ovIter) Key() []byte   { return it.o.key(it.arena, it.ents[it.pos]) }
func (it *ovIter) Value() []byte { return it.o.val(it.arena, it.ents[it.pos]) }
