package storage

import "bytes"

// Expired keys and replication: a master propagates the deletion of every key whose time to
// live passed, and a replica deletes such keys only when that DEL comes. The active expiry
// cycle hands each deletion to SetOnExpireCommit's function, and a replica turns the cycle off
// (SetExpireByMaster). A write transaction that meets an expired key deletes it on the way
// (GetMetaIn, DeleteIn) and remembers it, so that the command can propagate the deletion
// before its own writes and tell those from the deletions (Mark, Since). A transaction that
// applies a master's stream on a replica reads such keys as live instead (KeepExpired).

// SetOnExpireCommit installs fn, which the active expiry cycle calls once the deletion of an
// expired key has committed, while the key is still locked: the server propagates the key's
// DEL there, in its place among the key's other writes. nil removes it.
func (s *Store) SetOnExpireCommit(fn func(db int, key []byte)) {
	if fn == nil {
		s.onExpireCommit.Store(nil)
		return
	}
	s.onExpireCommit.Store(&fn)
}

// SetExpireByMaster makes the active expiry cycle leave expired keys alone (on) or delete them
// again (off, as from Open): a replica's keys go when its master's DEL comes, while reads hide
// them meanwhile.
func (s *Store) SetExpireByMaster(on bool) { s.expireByMaster.Store(on) }

// ExpiredKey is a key of logical database DB that a write transaction deleted because its time
// to live had passed.
type ExpiredKey struct {
	DB  int
	Key []byte
}

// TxnMark is a point in a transaction's writes, for a caller that runs several commands in one
// transaction (EXEC, scripts) to tell what each staged.
type TxnMark struct{ writes, expired, expiredWrites int }

// Mark returns the current point of t's writes.
func (t *Txn) Mark() TxnMark { return TxnMark{t.batch.Len(), len(t.expired), t.expiredWrites} }

// Since returns the keys t deleted on expiry since m, and the number of other writes it staged
// since m. The keys stay valid until t ends.
func (t *Txn) Since(m TxnMark) (expired []ExpiredKey, writes int) {
	writes = t.batch.Len() - m.writes - (t.expiredWrites - m.expiredWrites)
	return t.expired[m.expired:], writes
}

// KeepExpired makes t read keys whose time to live has passed as live and never delete them on
// the way: a replica applies its master's writes so, and deletes a key when its master's DEL
// comes.
func (t *Txn) KeepExpired() { t.keepExpired = true }

// isExpired reports whether a key with metadata m has expired for t.
func (t *Txn) isExpired(m *Meta) bool {
	return m.Expire != 0 && m.Expire <= t.now && !t.keepExpired
}

// deleteExpired deletes key of logical database db (physical phys), whose metadata m says it
// has expired, and remembers it.
func (t *Txn) deleteExpired(db int, phys uint32, key []byte, m *Meta) {
	n := t.batch.Len()
	t.writeMeta(phys, key, m, nil)
	t.expired = append(t.expired, ExpiredKey{DB: db, Key: bytes.Clone(key)})
	t.expiredWrites += t.batch.Len() - n
}
