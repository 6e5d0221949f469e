package storage

import (
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Snapshot is a consistent, read-only view of every database as of one instant, for a
// replication full synchronisation: its transactions read the keyspace as it was then while
// writes go on, and the value-log files it points into are kept until Release.
type Snapshot struct {
	s       *Store
	snap    *leveldb.Snapshot
	dbmap   []uint32
	keys    []int64 // per logical database
	expires []int64
}

// Snapshot waits for running transactions to finish, holds new ones off while it takes the
// view, and calls at, if not nil, in that instant: what at reads (a replication offset that
// every committed write has advanced) matches the view exactly. The caller calls Release.
func (s *Store) Snapshot(at func()) (*Snapshot, error) {
	s.global.Lock()
	defer s.global.Unlock()
	if err := s.Flush(); err != nil { // the view is LevelDB's: every commit must be in it
		return nil, err
	}
	snap, err := s.db().GetSnapshot()
	if err != nil {
		return nil, err
	}
	s.vlog.pin()
	sn := &Snapshot{s: s, snap: snap, dbmap: append([]uint32(nil), s.dbmap...)}
	s.counterMu.Lock()
	for _, p := range sn.dbmap {
		sn.keys = append(sn.keys, s.keys[p])
		sn.expires = append(sn.expires, s.expires[p])
	}
	s.counterMu.Unlock()
	if at != nil {
		at()
	}
	return sn, nil
}

// Release frees the view.
func (sn *Snapshot) Release() {
	if sn.snap == nil {
		return
	}
	sn.snap.Release()
	sn.snap = nil
	sn.s.vlog.unpin()
}

// Databases returns the number of logical databases.
func (sn *Snapshot) Databases() int { return len(sn.dbmap) }

// KeyCounts returns the number of keys, and of keys with an expiry, of database db in the view.
func (sn *Snapshot) KeyCounts(db int) (keys, expires int64) { return sn.keys[db], sn.expires[db] }

// FunctionLibraries returns the stored function libraries in the view, by name.
func (sn *Snapshot) FunctionLibraries() (map[string]string, error) {
	it := sn.snap.NewIterator(util.BytesPrefix(sysFuncPrefix), nil)
	defer it.Release()
	libs := map[string]string{}
	for it.Next() {
		libs[string(it.Key()[len(sysFuncPrefix):])] = string(it.Value())
	}
	return libs, it.Error()
}

// Begin returns a read-only transaction over database db of the view, judging expiry against
// now (unix milliseconds). It takes no lock; Abort releases it.
func (sn *Snapshot) Begin(db int, now int64) *Txn {
	t := txnPool.Get().(*Txn)
	t.s, t.db, t.write, t.exclusive = sn.s, db, false, false
	t.phys = sn.dbmap[db]
	t.now = now
	t.stripes = t.stripes[:0]
	t.snap = sn.snap
	return t
}
