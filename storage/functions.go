package storage

import (
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Function libraries (FUNCTION LOAD) live in system records, one per library:
//
//	'!' "fn:" name   the library's source code, shebang line included
//
// They belong to no logical database, so FLUSHALL and FLUSHDB leave them alone (as in Redis),
// and they are written outside any Txn: the caller (package commands) serialises library
// changes, and each change is one atomic LevelDB batch.
var sysFuncPrefix = []byte{tagSystem, 'f', 'n', ':'}

// FunctionLibraries returns every stored library: name -> code.
func (s *Store) FunctionLibraries() (map[string]string, error) {
	it := s.db().NewIterator(util.BytesPrefix(sysFuncPrefix), nil)
	defer it.Release()
	libs := map[string]string{}
	for it.Next() {
		libs[string(it.Key()[len(sysFuncPrefix):])] = string(it.Value())
	}
	return libs, it.Error()
}

// UpdateFunctionLibraries changes the stored libraries in one batch: with clear set every
// stored library is deleted first; then the libraries in del are deleted and those in put
// are written.
func (s *Store) UpdateFunctionLibraries(clear bool, del []string, put map[string]string) error {
	var b leveldb.Batch
	if clear {
		it := s.db().NewIterator(util.BytesPrefix(sysFuncPrefix), nil)
		for it.Next() {
			b.Delete(append([]byte(nil), it.Key()...))
		}
		it.Release()
		if err := it.Error(); err != nil {
			return err
		}
	}
	for _, name := range del {
		b.Delete(funcKey(name))
	}
	for name, code := range put {
		b.Put(funcKey(name), []byte(code))
	}
	if b.Len() == 0 {
		return nil
	}
	if err := s.commitBatch(&b, s.fsync.writeOptions()); err != nil {
		return err
	}
	s.unsynced.Store(true)
	return nil
}

func funcKey(name string) []byte {
	return append(append([]byte(nil), sysFuncPrefix...), name...)
}
