package commands

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"

	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// A digest is DEBUG DIGEST's 20-byte signature, computed with Redis 7.0's algorithm so that
// the same dataset has the same digest on Strata and on Redis: the SHA1 digests of the
// elements of a set, a hash or a sorted set are XORed together (their order does not count),
// those of a string or a list are mixed in order (mix: digest = SHA1(digest XOR SHA1(data))).
type digest [20]byte

// xor XORs SHA1(p) into d.
func (d *digest) xor(p []byte) {
	h := sha1.Sum(p)
	for i := range d {
		d[i] ^= h[i]
	}
}

// mix XORs SHA1(p) into d and replaces d with its own SHA1, so the order of mixes counts.
func (d *digest) mix(p []byte) {
	d.xor(p)
	*d = sha1.Sum(d[:])
}

// mixUint32 mixes n as 4 big-endian bytes (Redis's htonl of a type or database number).
func (d *digest) mixUint32(n uint32) { d.mix(binary.BigEndian.AppendUint32(nil, n)) }

// String returns the digest in hexadecimal, as DEBUG DIGEST answers it.
func (d *digest) String() string { return hex.EncodeToString(d[:]) }

// valueDigest is the ValueSink that digests one value into d as Redis's xorObjectDigest does.
type valueDigest struct {
	d     *digest
	order bool // a list: elements are mixed in order; a set's are XORed
	buf   []byte
}

// Redis's object type numbers, which the digest mixes in first.
const (
	redisTypeString = iota
	redisTypeList
	redisTypeSet
	redisTypeZSet
	redisTypeHash
)

func (v *valueDigest) String(s []byte) error {
	v.d.mixUint32(redisTypeString)
	v.d.mix(s)
	return nil
}

func (v *valueDigest) List(uint64) error { v.d.mixUint32(redisTypeList); v.order = true; return nil }
func (v *valueDigest) Set(uint64) error  { v.d.mixUint32(redisTypeSet); return nil }
func (v *valueDigest) ZSet(uint64) error { v.d.mixUint32(redisTypeZSet); return nil }
func (v *valueDigest) Hash(uint64) error { v.d.mixUint32(redisTypeHash); return nil }

func (v *valueDigest) Member(m []byte) error {
	if v.order {
		v.d.mix(m)
	} else {
		v.d.xor(m)
	}
	return nil
}

func (v *valueDigest) ScoredMember(m []byte, score float64) error {
	var e digest
	e.mix(m)
	v.buf = resp.FormatScore(v.buf[:0], score)
	e.mix(v.buf)
	v.d.xor(e[:])
	return nil
}

func (v *valueDigest) Field(f, val []byte) error {
	var e digest
	e.mix(f)
	e.mix(val)
	v.d.xor(e[:])
	return nil
}

// digestValue digests the value of the key whose metadata is m into d, then its expiry: a key
// with a time to live has the bytes "!!expire!!" XORed in, whatever the time.
func digestValue(t *storage.Txn, m *storage.Meta, d *digest) error {
	if err := DumpValue(t, m, &valueDigest{d: d}); err != nil {
		return err
	}
	if m.Expire != 0 {
		d.xor([]byte("!!expire!!"))
	}
	return nil
}

// debugDigest implements DEBUG DIGEST: the digest of every key of every database, with the
// keyspace held exclusively while it is read. Each database that holds keys mixes its number
// in, then XORs in the digest of each key's name and value. Keys whose time to live has
// passed but that are still stored count, as in Redis, where they stay until expired.
func debugDigest(c *Ctx) {
	t := c.Store.BeginExclusive(c.Client.DB)
	defer t.Abort()
	var final digest
	for db := range c.Store.Databases() {
		t.UseDB(db)
		it := t.ScanKeys(nil, nil)
		first := true
		for it.Next() {
			if first {
				final.mixUint32(uint32(db))
				first = false
			}
			var kd digest
			kd.mix(it.Key())
			if err := digestValue(t, it.Meta(), &kd); err != nil {
				it.Close()
				c.Fail(err)
				return
			}
			final.xor(kd[:])
		}
		if err := it.Close(); err != nil {
			c.Fail(err)
			return
		}
	}
	c.W.Status(final.String())
}

// debugDigestValue implements DEBUG DIGEST-VALUE key ...: the digest of each key's value (its
// name is not mixed in), 40 zeros for a missing key.
func debugDigestValue(c *Ctx) {
	keys := c.Args[2:]
	t := c.Store.BeginAt(c.Client.DB, keys, false, c.Now)
	defer t.Abort()
	digests := make([]digest, len(keys))
	for i, k := range keys {
		m, err := t.GetMeta(k)
		if err == nil && m != nil {
			err = digestValue(t, m, &digests[i])
		}
		if err != nil {
			c.Fail(err)
			return
		}
	}
	c.W.Array(len(keys))
	for i := range digests {
		c.W.Status(digests[i].String())
	}
}
