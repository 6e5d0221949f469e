package storage

import (
	"errors"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// Named system records hold small server state outside every logical database:
//
//	'!' "sr:" name   the record's value
//
// FLUSHALL and FLUSHDB leave them alone. The replica side keeps its replication ID and
// offset in one (server/replica.go), staged in the batch of each write it applies
// (Txn.PutSystemRecord); Store.PutSystemRecord writes one alone, in a synced batch.
var sysRecordPrefix = []byte{tagSystem, 's', 'r', ':'}

func sysRecordKey(name string) []byte {
	return append(append([]byte(nil), sysRecordPrefix...), name...)
}

// SystemRecord returns the value of the named system record, or nil when there is none.
func (s *Store) SystemRecord(name string) ([]byte, error) {
	v, err := s.db().Get(sysRecordKey(name), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, nil
	}
	return v, err
}

// PutSystemRecord stages the named system record in t's batch, or its deletion when v is
// nil, so that it commits with t's writes.
func (t *Txn) PutSystemRecord(name string, v []byte) {
	if v == nil {
		t.del(sysRecordKey(name))
	} else {
		t.put(sysRecordKey(name), v)
	}
}

// PutSystemRecord writes the named system record, or deletes it when v is nil, and syncs
// the write to disk.
func (s *Store) PutSystemRecord(name string, v []byte) error {
	var b leveldb.Batch
	if v == nil {
		b.Delete(sysRecordKey(name))
	} else {
		b.Put(sysRecordKey(name), v)
	}
	if err := s.commitBatch(&b, &opt.WriteOptions{Sync: true}); err != nil {
		return err
	}
	s.unsynced.Store(true)
	return nil
}
