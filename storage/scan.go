package storage

import (
	"bytes"
	"math/rand/v2"
)

// KeyIter walks the metadata records of one database in user-key order. It returns expired
// keys too (Expired reports them), so that callers can count them as examined work the way
// Redis's SCAN does; callers must not show them to clients.
type KeyIter struct {
	it   *Iter
	plen int
	now  int64
	key  []byte
	meta Meta
	err  error
}

// ScanKeys returns an iterator over the keys of t's database that start with prefix and are
// >= from. Metadata keys are ordered by user key within a physical keyspace, so this is one
// LevelDB range.
func (t *Txn) ScanKeys(prefix, from []byte) *KeyIter {
	start := metaKey(nil, t.phys, prefix)
	if bytes.Compare(from, prefix) > 0 {
		start = metaKey(nil, t.phys, from)
	}
	limit := prefixEnd(metaKey(nil, t.phys, prefix))
	return &KeyIter{it: t.Iterate(start, limit, false), plen: len(metaPrefix(t.phys)), now: t.now}
}

// Next moves to the next key and reports whether there is one.
func (k *KeyIter) Next() bool {
	if k.err != nil || !k.it.Next() {
		return false
	}
	k.key = k.it.Key()[k.plen:]
	if err := decodeMeta(k.it.Value(), &k.meta); err != nil {
		k.err = err
		return false
	}
	return true
}

// Key returns the current user key; it is valid until the next call to Next.
func (k *KeyIter) Key() []byte { return k.key }

// Meta returns the current key's metadata; it is valid until the next call to Next.
func (k *KeyIter) Meta() *Meta { return &k.meta }

// Expired reports whether the current key has expired (and so does not exist for clients).
func (k *KeyIter) Expired() bool { return k.meta.Expire != 0 && k.meta.Expire <= k.now }

// Close releases the iterator and returns the first error met.
func (k *KeyIter) Close() error {
	err := k.it.Close()
	if k.err != nil {
		return k.err
	}
	return err
}

// ScanData returns an iterator over the sub-keys base+x of collection id where x starts with
// prefix and x >= from. Key() of the returned Iter is the full LevelDB key: x starts at
// DataPrefixLen+len(base). base separates element kinds that share an object (zset member
// records live under 0x00, the score index under 0x01).
func (t *Txn) ScanData(id uint64, base, prefix, from []byte) *Iter {
	p := DataKey(nil, id, base)
	p = append(p, prefix...)
	start := p
	if bytes.Compare(from, prefix) > 0 {
		start = append(DataKey(nil, id, base), from...)
	}
	return t.Iterate(start, prefixEnd(p), false)
}

// RandomKey returns a random live key of t's database, or nil if it has none. It seeks to a
// random point between the first and the last key and takes the first live key from there,
// wrapping around once; keys after large gaps in the key space are favoured, which is a
// fair trade for O(log N).
func (t *Txn) RandomKey() ([]byte, error) {
	p := metaPrefix(t.phys)
	end := prefixEnd(p)
	t.s.counterMu.Lock()
	n := t.s.keys[t.phys]
	t.s.counterMu.Unlock()
	if n <= uniformRandomKeys {
		return t.randomKeyUniform(p, end)
	}
	it := t.Iterate(p, end, false)
	if !it.Next() {
		return nil, it.Close()
	}
	first := append([]byte(nil), it.Key()[len(p):]...)
	it.Close()
	it = t.Iterate(p, end, true)
	if !it.Next() {
		return nil, it.Close()
	}
	last := append([]byte(nil), it.Key()[len(p):]...)
	it.Close()
	target := randomBetween(first, last)
	for _, r := range [][2][]byte{{metaKey(nil, t.phys, target), end}, {p, metaKey(nil, t.phys, target)}} {
		it := t.Iterate(r[0], r[1], false)
		for it.Next() {
			var m Meta
			if err := decodeMeta(it.Value(), &m); err != nil {
				it.Close()
				return nil, err
			}
			if m.Expire == 0 || m.Expire > t.now {
				k := append([]byte(nil), it.Key()[len(p):]...)
				return k, it.Close()
			}
			t.NoteExpired(it.Key()[len(p):])
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// uniformRandomKeys is the database size up to which RANDOMKEY walks every key and picks one
// uniformly (reservoir sampling); above it, a random seek is cheaper and the bias of seeking
// into gaps of the key space is spread over many keys.
const uniformRandomKeys = 1000

func (t *Txn) randomKeyUniform(p, end []byte) ([]byte, error) {
	it := t.Iterate(p, end, false)
	var pick []byte
	live := 0
	for it.Next() {
		var m Meta
		if err := decodeMeta(it.Value(), &m); err != nil {
			it.Close()
			return nil, err
		}
		if m.Expire != 0 && m.Expire <= t.now {
			t.NoteExpired(it.Key()[len(p):])
			continue
		}
		live++
		if rand.IntN(live) == 0 {
			pick = append(pick[:0], it.Key()[len(p):]...)
		}
	}
	return pick, it.Close()
}

// randomBetween returns a random byte string s with a <= s <= b roughly uniform over the bytes
// where a and b first differ.
func randomBetween(a, b []byte) []byte {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	out := append([]byte(nil), b[:i]...)
	if i >= len(b) {
		return out
	}
	lo := 0
	if i < len(a) {
		lo = int(a[i])
	}
	hi := int(b[i])
	out = append(out, byte(lo+rand.IntN(hi-lo+1)))
	for j := 0; j < 8; j++ {
		out = append(out, byte(rand.IntN(256)))
	}
	return out
}

// PrefixEnd returns the smallest key greater than every key with prefix p, or nil if none is.
func PrefixEnd(p []byte) []byte { return prefixEnd(p) }
