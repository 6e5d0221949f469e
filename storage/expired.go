package storage

import "bytes"

// Expired keys in write transactions: a write transaction that meets a key whose time to live
// has passed deletes it on the way (GetMetaIn, DeleteIn) and remembers it, so that the command
// can propagate the deletion (a DEL before its own writes, as a replica does not expire keys
// itself) and tell its own writes from the deletions (Mark, Since). A transaction that applies
// a master's stream on a replica reads such keys as live instead (KeepExpired): the master
// decides when they go, and sends their DEL.

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
