package storage

import (
	"encoding/binary"
)

// rawMeta returns the metadata of key in phys as stored, expired or not.
func (t *Txn) rawMeta(phys uint32, key []byte) (*Meta, error) {
	m := new(Meta)
	if ok, err := t.rawMetaInto(phys, key, m); err != nil || !ok {
		return nil, err
	}
	return m, nil
}

// rawMetaInto decodes the stored metadata of key into m and reports whether there was any.
func (t *Txn) rawMetaInto(phys uint32, key []byte, m *Meta) (bool, error) {
	return t.rawMetaOf(phys, key, m, true)
}

// rawMetaOf is rawMetaInto; without stream, a stream's state is left out (decodeMetaOf).
func (t *Txn) rawMetaOf(phys uint32, key []byte, m *Meta, stream bool) (bool, error) {
	t.buf = metaKey(t.buf[:0], phys, key)
	v, ok, err := t.get(t.buf)
	if err != nil || !ok {
		return false, err
	}
	if stream && t.xpeek {
		return true, decodeMetaX(v, m, true, &t.pxmeta)
	}
	return true, decodeMetaOf(v, m, stream)
}

// physOf returns the physical keyspace of logical database db: t's own (which a shadow load
// points elsewhere, shadow.go) or the store's map.
func (t *Txn) physOf(db int) uint32 {
	if db == t.db {
		return t.phys
	}
	return t.s.dbmap[db]
}

// GetMetaIn returns the metadata of a live key in logical database db, or nil when the key does
// not exist or has expired. In a write transaction an expired key is deleted on the way
// (expired.go); in a read transaction the lookup counts as a keyspace hit or miss
// (KeyspaceStats), and an expired key is deleted once the transaction ends (expireLazily).
func (t *Txn) GetMetaIn(db int, key []byte) (*Meta, error) {
	return t.getMetaInto(db, key, new(Meta))
}

// getMetaInto is GetMetaIn decoding into m, which it returns when the key is live.
func (t *Txn) getMetaInto(db int, key []byte, m *Meta) (*Meta, error) {
	phys := t.physOf(db)
	ok, err := t.rawMetaInto(phys, key, m)
	if err != nil || !ok {
		if err == nil && !t.write {
			t.misses++
		}
		return nil, err
	}
	if t.isExpired(m) {
		if t.write {
			t.deleteExpired(db, phys, key, m)
		} else {
			t.misses++
			t.noteExpiredIn(db, phys, key)
		}
		return nil, nil
	}
	if !t.write {
		t.hits++
	}
	return m, nil
}

// NoteExpired records that a read transaction found key expired while walking t's database
// (SCAN, RANDOMKEY): it is deleted once the transaction ends, as a read's lazy expiry deletes
// the keys it looks up.
func (t *Txn) NoteExpired(key []byte) { t.noteExpiredIn(t.db, t.phys, key) }

func (t *Txn) noteExpiredIn(db int, phys uint32, key []byte) {
	if !t.write && db == t.db && phys == t.s.dbmap[db] && len(t.lazy) < lazyMax {
		t.lazy = append(t.lazy, append([]byte(nil), key...))
	}
}

// PeekMeta is GetMeta decoding into a Meta of t's own instead of a new one, for a command that
// is done with one key's metadata before it looks up the next (GET, INCR): the result is
// valid until t's next PeekMeta or its release.
func (t *Txn) PeekMeta(key []byte) (*Meta, error) { return t.getMetaInto(t.db, key, &t.pmeta) }

// PeekStreamMeta is StreamMetaOf decoding into a Meta and a StreamMeta of t's own, as PeekMeta,
// for XADD, which looks up no other key's metadata: the result is valid until t's next
// PeekStreamMeta or its release.
func (t *Txn) PeekStreamMeta(key []byte) (*Meta, error) {
	t.xpeek = true
	m, err := t.getMetaInto(t.db, key, &t.pmeta)
	t.xpeek = false
	if err != nil || m == nil {
		return nil, err
	}
	if m.Type != TypeStream {
		return nil, ErrWrongType
	}
	return m, nil
}

// GetMeta is GetMetaIn for t's database.
func (t *Txn) GetMeta(key []byte) (*Meta, error) { return t.GetMetaIn(t.db, key) }

// GetMetaOf returns key's metadata if it holds type want, nil if it does not exist, and
// ErrWrongType if it holds another type.
func (t *Txn) GetMetaOf(key []byte, want Type) (*Meta, error) {
	m, err := t.GetMeta(key)
	if err != nil || m == nil {
		return nil, err
	}
	if m.Type != want {
		return nil, ErrWrongType
	}
	return m, nil
}

// PutMetaIn stores m as key's metadata in db, keeping the expiry index, the key counters and the
// garbage queue in step with whatever the key held before.
func (t *Txn) PutMetaIn(db int, key []byte, m *Meta) error {
	phys := t.physOf(db)
	ok, err := t.rawMetaOf(phys, key, &t.oldMeta, false) // what is replaced: its object and expiry
	if err != nil {
		return err
	}
	old := &t.oldMeta
	if !ok {
		old = nil
	}
	// A large string's value goes to the value log; m then holds the pointer (vlog.go).
	if m, err = t.storeLarge(phys, key, old, m); err != nil {
		return err
	}
	t.writeMeta(phys, key, old, m)
	t.flushChunk()
	return nil
}

// PutMeta is PutMetaIn for t's database.
func (t *Txn) PutMeta(key []byte, m *Meta) error { return t.PutMetaIn(t.db, key, m) }

// DeleteIn deletes key from db and reports whether a live key was there.
func (t *Txn) DeleteIn(db int, key []byte) (bool, error) {
	phys := t.physOf(db)
	old := &t.oldMeta
	if ok, err := t.rawMetaInto(phys, key, old); err != nil || !ok {
		return false, err
	}
	if t.isExpired(old) {
		t.deleteExpired(db, phys, key, old)
		return false, nil
	}
	t.writeMeta(phys, key, old, nil)
	return true, nil
}

// Delete is DeleteIn for t's database.
func (t *Txn) Delete(key []byte) (bool, error) { return t.DeleteIn(t.db, key) }

// writeMeta replaces old (nil: absent) with m (nil: delete) for key in phys.
func (t *Txn) writeMeta(phys uint32, key []byte, old, m *Meta) {
	// The value log's live index gains m's pointer and loses old's, in this batch (vlog.go).
	t.relinkValueLog(phys, key, old, m)
	var dk, dx int64
	sameExpire := old != nil && m != nil && old.Expire == m.Expire
	if old != nil {
		dk--
		if old.Expire != 0 {
			dx--
			if !sameExpire {
				t.kbuf = expireKey(t.kbuf[:0], old.Expire, phys, key)
				t.del(t.kbuf)
			}
		}
		if old.Type.IsCollection() && (m == nil || m.ID != old.ID) {
			t.queueGarbage(garbageObject, old.ID)
		}
	}
	if m == nil {
		t.kbuf = metaKey(t.kbuf[:0], phys, key)
		t.del(t.kbuf)
	} else {
		dk++
		if m.Expire != 0 {
			dx++
			if !sameExpire {
				t.kbuf = expireKey(t.kbuf[:0], m.Expire, phys, key)
				t.put(t.kbuf, nil)
			}
		}
		t.kbuf = metaKey(t.kbuf[:0], phys, key)
		t.vbuf = encodeMeta(t.vbuf[:0], m)
		t.put(t.kbuf, t.vbuf)
	}
	t.addDelta(phys, dk, dx)
}

// queueGarbage records an object ID or a physical keyspace for the collector.
func (t *Txn) queueGarbage(kind byte, id uint64) {
	seq, err := t.s.newID()
	if err != nil {
		return
	}
	v := []byte{metaVersion, kind}
	v = binary.BigEndian.AppendUint64(v, id)
	t.put(garbageKey(seq), v)
	t.garbage = true
	if kind == garbageObject {
		t.garbageObjs++
	}
}

// NewID returns a fresh object ID for a new collection.
func (t *Txn) NewID() (uint64, error) { return t.s.newID() }

// Exists reports whether key is live in t's database.
func (t *Txn) Exists(key []byte) (bool, error) {
	m, err := t.GetMeta(key)
	return m != nil, err
}

// FlushDB empties logical database db at once: it gets a fresh physical keyspace and the old
// one is queued for the collector. t must be exclusive.
func (t *Txn) FlushDB(db int) {
	s := t.s
	old := s.dbmap[db]
	maxPhys := uint32(0)
	for _, p := range s.dbmap {
		maxPhys = max(maxPhys, p)
	}
	if v, err := s.db().Get([]byte("!physhigh"), nil); err == nil && len(v) == 4 {
		maxPhys = max(maxPhys, binary.BigEndian.Uint32(v))
	}
	fresh := maxPhys + 1
	t.put([]byte("!physhigh"), binary.BigEndian.AppendUint32(nil, fresh))
	s.dbmap[db] = fresh
	if db == t.db {
		t.phys = fresh
	}
	t.put(sysDBMap, s.encodeDBMap())
	s.counterMu.Lock()
	t.del(counterKey(old))
	delete(s.keys, old)
	delete(s.expires, old)
	s.counterMu.Unlock()
	t.queueGarbage(garbageDB, uint64(old))
}

// SwapDB swaps logical databases a and b. t must be exclusive.
func (t *Txn) SwapDB(a, b int) {
	s := t.s
	s.dbmap[a], s.dbmap[b] = s.dbmap[b], s.dbmap[a]
	t.phys = s.dbmap[t.db]
	t.put(sysDBMap, s.encodeDBMap())
}
