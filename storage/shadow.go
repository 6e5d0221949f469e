package storage

import (
	"encoding/binary"
	"errors"
	"time"
)

// A Shadow loads a whole new keyspace beside the live one, which clients go on reading: each
// logical database is written into a fresh physical keyspace that no database maps to, and
// Install maps them all at once, in one batch, queueing the old keyspaces for the collector
// (what FLUSHALL does, but with the new data already there). Abort queues the new keyspaces
// instead. A replica loads a full synchronisation this way.
//
// The physical keyspaces of a shadow are recorded before anything is written to them, in the
// system record shadowRecord; Install and Abort delete it in their batch, and Open queues the
// keyspaces it still names for the collector, so a load cut short by a crash leaves nothing.
type Shadow struct {
	s    *Store
	phys []uint32 // per logical database: its new physical keyspace
	done bool
}

const shadowRecord = "shadow-load"

var physHighKey = []byte("!physhigh")

// ErrShadowDone is returned by a Shadow used after Install or Abort.
var ErrShadowDone = errors.New("storage: shadow load already installed or aborted")

// NewShadow reserves a fresh physical keyspace for every logical database.
func (s *Store) NewShadow() (*Shadow, error) {
	t := s.BeginExclusive(0)
	maxPhys := uint32(0)
	for _, p := range s.dbmap {
		maxPhys = max(maxPhys, p)
	}
	if v, err := s.db().Get(physHighKey, nil); err == nil && len(v) == 4 {
		maxPhys = max(maxPhys, binary.BigEndian.Uint32(v))
	}
	sh := &Shadow{s: s}
	var rec []byte
	for range s.dbmap {
		maxPhys++
		sh.phys = append(sh.phys, maxPhys)
		rec = binary.BigEndian.AppendUint32(rec, maxPhys)
	}
	t.put(physHighKey, binary.BigEndian.AppendUint32(nil, maxPhys))
	t.PutSystemRecord(shadowRecord, rec)
	if err := t.Commit(); err != nil {
		return nil, err
	}
	return sh, nil
}

// Begin starts a transaction that writes logical database db of the shadow; commit it in
// batches. It takes no key locks and runs beside the clients' transactions: no database maps
// to the shadow's keyspaces until Install, which waits for it.
func (sh *Shadow) Begin(db int) *Txn {
	t := sh.s.BeginAt(db, nil, true, time.Now().UnixMilli())
	if !sh.done && db < len(sh.phys) {
		t.phys = sh.phys[db]
	}
	return t
}

// Databases returns the number of logical databases the shadow holds.
func (sh *Shadow) Databases() int { return len(sh.phys) }

// Install maps every logical database to its shadow keyspace and queues the old ones for the
// collector, in one batch; stage, when set, adds its own records to that batch.
func (sh *Shadow) Install(stage func(t *Txn)) error {
	if sh.done {
		return ErrShadowDone
	}
	s := sh.s
	t := s.BeginExclusive(0)
	old := append([]uint32(nil), s.dbmap...)
	for db, p := range sh.phys {
		s.dbmap[db] = p
	}
	t.phys = s.dbmap[0]
	t.put(sysDBMap, s.encodeDBMap())
	s.counterMu.Lock()
	for _, p := range old {
		t.del(counterKey(p))
		delete(s.keys, p)
		delete(s.expires, p)
	}
	s.counterMu.Unlock()
	for _, p := range old {
		t.queueGarbage(garbageDB, uint64(p))
	}
	t.PutSystemRecord(shadowRecord, nil)
	if stage != nil {
		stage(t)
	}
	if err := t.Commit(); err != nil {
		// The batch did not land: the old keyspaces stay mapped. Their counters are read
		// back from disk, where the failed batch did not delete them.
		s.global.Lock()
		copy(s.dbmap, old)
		s.counterMu.Lock()
		for _, p := range old {
			v, _ := s.db().Get(counterKey(p), nil)
			s.keys[p], s.expires[p] = decodeCounters(v)
		}
		s.counterMu.Unlock()
		s.global.Unlock()
		return err
	}
	sh.done = true
	return nil
}

// Abort queues the shadow's keyspaces for the collector.
func (sh *Shadow) Abort() error {
	if sh.done {
		return nil
	}
	sh.done = true
	return sh.s.dropShadow(sh.phys)
}

// dropShadow queues the keyspaces of a shadow load for the collector and forgets the load.
func (s *Store) dropShadow(phys []uint32) error {
	t := s.BeginExclusive(0)
	s.counterMu.Lock()
	for _, p := range phys {
		t.del(counterKey(p))
		delete(s.keys, p)
		delete(s.expires, p)
	}
	s.counterMu.Unlock()
	for _, p := range phys {
		t.queueGarbage(garbageDB, uint64(p))
	}
	t.PutSystemRecord(shadowRecord, nil)
	return t.Commit()
}

// dropCrashedShadow queues the keyspaces of a shadow load that a crash cut short (Open).
func (s *Store) dropCrashedShadow() error {
	v, err := s.SystemRecord(shadowRecord)
	if err != nil || v == nil {
		return err
	}
	var phys []uint32
	for i := 0; i+4 <= len(v); i += 4 {
		p := binary.BigEndian.Uint32(v[i:])
		mapped := false
		for _, m := range s.dbmap {
			mapped = mapped || m == p
		}
		if !mapped {
			phys = append(phys, p)
		}
	}
	s.log.Warn("dropping the keyspace of a load cut short", "keyspaces", len(phys))
	return s.dropShadow(phys)
}
