package storage

import "time"

// HoldExpiry stops the active expiry cycle from deleting keys until the given time (the zero
// time lifts a hold at once). Keys whose time to live passes meanwhile read as absent, as they
// always do, but stay stored and uncounted in Stats.ExpiredKeys until the hold ends: the
// server holds expiry while a CLIENT PAUSE is in force, so that a pause changes nothing in
// the keyspace.
func (s *Store) HoldExpiry(until time.Time) {
	if until.IsZero() {
		s.expiryHeld.Store(0)
		return
	}
	s.expiryHeld.Store(until.UnixNano())
}

// SetActiveExpire turns the active expiry cycle on or off (DEBUG SET-ACTIVE-EXPIRE): while it
// is off, keys whose time to live has passed read as absent and stay stored until it is on
// again.
func (s *Store) SetActiveExpire(on bool) { s.activeExpireOff.Store(!on) }

// lazyMax bounds the expired keys one read transaction deletes on its way out.
const lazyMax = 64

// expireLazily deletes the keys of database db that a read transaction found expired, each in
// a write transaction of its own that checks it is still expired, counts it in
// Stats.ExpiredKeys and reports it to the SetOnExpire function, as the active cycle does: the
// lazy expiry of Redis's reads, so that a key read after its time to live is counted at
// once. Nothing is deleted while a CLIENT PAUSE holds expiry.
func (s *Store) expireLazily(db int, keys [][]byte) {
	if s.expiryHeld.Load() > time.Now().UnixNano() || !s.writable() || s.expireByMaster.Load() {
		return // paused, refusing writes, or a replica, whose keys go with its master's DEL
	}
	for _, k := range keys {
		t := s.Begin(db, [][]byte{k}, true)
		m, err := t.rawMeta(t.phys, k)
		if err != nil || m == nil || m.Expire == 0 || m.Expire > t.now {
			t.Abort()
			continue
		}
		t.writeMeta(t.phys, k, m, nil)
		if fn := s.onExpireCommit.Load(); fn != nil {
			key := k
			t.OnCommitted(func() { (*fn)(db, key) }) // propagated as the active cycle's are
		}
		if t.Commit() != nil {
			continue
		}
		s.Stats.ExpiredKeys.Add(1)
		if fn := s.onExpire.Load(); fn != nil {
			(*fn)(db, k)
		}
	}
}
