package storage

import (
	"bytes"
	"slices"
	"sort"
)

// A packed sorted set (packed.go) is read into ZSet.p when opened: its members and encoded
// scores alternate, ordered as the score index orders them, so a range walk over the score
// index becomes a walk over p that compares each entry's score-index key with the bounds.

// load reads the record of a packed set.
func (z *ZSet) load() error {
	if !z.packed() {
		return nil
	}
	p, err := z.t.packedElems(z.m)
	if err == nil && len(p)%2 != 0 {
		err = errCorrupt
	}
	z.p = p
	return err
}

// packed reports whether the set is packed.
func (z *ZSet) packed() bool { return z.m != nil && z.m.Enc == EncPacked }

// pfind returns the index in p of member, or -1.
func (z *ZSet) pfind(member []byte) int { return packedFind(z.p, 2, member) }

// pinsert puts member with score at its place in p.
func (z *ZSet) pinsert(member []byte, score float64) {
	enc := EncodeScore(nil, score)
	i := sort.Search(len(z.p)/2, func(i int) bool {
		if c := bytes.Compare(z.p[2*i+1], enc); c != 0 {
			return c > 0
		}
		return bytes.Compare(z.p[2*i], member) >= 0
	})
	z.p = slices.Insert(z.p, 2*i, bytes.Clone(member), enc)
	z.pdirty = true
}

// scanPacked is scan over a packed set: its entries are in the order of their score-index keys.
func (z *ZSet) scanPacked(start, limit []byte, reverse bool, fn func(member []byte, score float64) bool) error {
	n := len(z.p) / 2
	for j := 0; j < n; j++ {
		i := j
		if reverse {
			i = n - 1 - j
		}
		member, enc := z.p[2*i], z.p[2*i+1]
		z.kb = append(append(append(DataKey(z.kb[:0], z.m.ID, nil), ZSetScoreTag), enc...), member...)
		if bytes.Compare(z.kb, start) < 0 || bytes.Compare(z.kb, limit) >= 0 {
			continue
		}
		if !fn(member, DecodeScore(enc)) {
			break
		}
	}
	return nil
}
