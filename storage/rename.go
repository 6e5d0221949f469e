package storage

import "bytes"

// RenameIn moves key src of logical database srcDB to key dst of dstDB, with its expiry. The
// metadata record moves and keeps its object ID, so a collection's sub-keys stay where they
// are and the move is O(1) whatever the collection's size. Whatever dst held is replaced; if
// it was a collection, its object is queued for the collector. The moved object is not
// queued: PutMetaIn/DeleteIn would queue it, which is why renames need this method.
//
// RenameIn reports false, changing nothing, when src does not exist (an expired src is deleted
// on the way, as any write does). Renaming a key onto itself changes nothing. The caller holds
// the locks of both keys: striped locks within one database, an exclusive Txn across databases.
func (t *Txn) RenameIn(srcDB int, src []byte, dstDB int, dst []byte) (bool, error) {
	m, err := t.GetMetaIn(srcDB, src)
	if err != nil || m == nil {
		return false, err
	}
	srcPhys, dstPhys := t.s.dbmap[srcDB], t.s.dbmap[dstDB]
	if srcPhys == dstPhys && bytes.Equal(src, dst) {
		return true, nil
	}
	moved := *m
	moved.Value = append([]byte(nil), m.Value...) // m.Value may alias a buffer the writes reuse
	old, err := t.rawMeta(dstPhys, dst)
	if err != nil {
		return false, err
	}
	t.writeMeta(dstPhys, dst, old, &moved)
	t.unlinkMeta(srcPhys, src, &moved)
	return true, nil
}

// Rename is RenameIn within t's database.
func (t *Txn) Rename(src, dst []byte) (bool, error) { return t.RenameIn(t.db, src, t.db, dst) }

// unlinkMeta deletes key's metadata record m from phys, with its expiry-index entry and its
// share of the counters, without queueing its object: the object now belongs to another key.
func (t *Txn) unlinkMeta(phys uint32, key []byte, m *Meta) {
	var dx int64
	if m.Expire != 0 {
		dx = -1
		t.del(expireKey(nil, m.Expire, phys, key))
	}
	t.del(metaKey(nil, phys, key))
	t.addDelta(phys, -1, dx)
}

// CopyData copies the sub-keys of collection m under a fresh object ID and returns it. It is
// O(N) in the collection's size, as COPY is in Redis. The caller stores the new metadata (with
// the returned ID) through PutMetaIn. For a string, CopyData returns 0 and copies nothing.
func (t *Txn) CopyData(m *Meta) (uint64, error) {
	if !m.Type.IsCollection() {
		return 0, nil
	}
	id, err := t.s.newID()
	if err != nil {
		return 0, err
	}
	it := t.ScanData(m.ID, nil, nil, nil)
	var k []byte
	for it.Next() {
		k = DataKey(k[:0], id, it.Key()[DataPrefixLen:])
		t.put(k, it.Value())
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	return id, nil
}

// Exclusive reports whether t excludes every other transaction (BeginExclusive), as operations
// on several databases need.
func (t *Txn) Exclusive() bool { return t.exclusive }
