package storage

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// formatElementLists is the format version whose lists hold one element per record.
const formatElementLists = 1

// convertLists rewrites the lists of a format-1 data directory as nodes, then records
// FormatVersion. Open calls it before anything else reads the keyspace. Each list is copied
// under a fresh object ID and its metadata switched in one batch that also queues the old ID
// for the collector, so a conversion cut short by a crash resumes with the lists not yet
// converted (their metadata still has the old, shorter form).
func (s *Store) convertLists() error {
	if s.disk.readOnly.Load() {
		return fmt.Errorf("%w: data directory %s has format %d and no room to convert it", ErrUnknownFormat, s.opts.Dir, formatElementLists)
	}
	it := s.db().NewIterator(util.BytesPrefix([]byte{tagMeta}), nil)
	defer it.Release()
	converted := 0
	for it.Next() {
		var m Meta
		if decodeMeta(it.Value(), &m) != nil || m.Type != TypeList || !m.legacy {
			continue
		}
		if err := s.convertList(append([]byte(nil), it.Key()...), m); err != nil {
			return fmt.Errorf("convert list %q: %w", it.Key(), err)
		}
		converted++
	}
	if err := it.Error(); err != nil {
		return err
	}
	if converted > 0 {
		s.log.Info("converted lists to nodes", "lists", converted, "format", FormatVersion)
	}
	return s.putRaw(sysFormat, []byte(strconv.Itoa(FormatVersion)), &opt.WriteOptions{Sync: true})
}

// convertList copies the elements of the format-1 list m, whose metadata record is mk, into
// nodes under a fresh object ID.
func (s *Store) convertList(mk []byte, m Meta) error {
	id, err := s.newID()
	if err != nil {
		return err
	}
	seq, err := s.newID()
	if err != nil {
		return err
	}
	var b leveldb.Batch
	w := &ListWriter{id: id, lim: s.listLimit(), start: ListMiddle, last: ListMiddle, next: ListMiddle}
	el := s.db().NewIterator(&util.Range{Start: elemKey(nil, m.ID, m.Head), Limit: elemKey(nil, m.ID, m.Tail)}, nil)
	for el.Next() {
		w.append(&b, el.Value())
	}
	el.Release()
	if err := el.Error(); err != nil {
		return err
	}
	old := m.ID
	w.finish(&b, &m)
	m.legacy = false
	if m.Size == 0 {
		return fmt.Errorf("%w: no elements", errCorrupt)
	}
	b.Put(mk, encodeMeta(nil, &m))
	b.Put(garbageKey(seq), binary.BigEndian.AppendUint64([]byte{metaVersion, garbageObject}, old))
	return s.commitBatch(&b, nil)
}
