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
