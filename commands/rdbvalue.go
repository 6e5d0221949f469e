package commands

import (
	"errors"
	"fmt"
	"io"

	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

// The adapter between RDB values (package rdb) and the keyspace, shared by DUMP, RESTORE,
// MIGRATE and the offline import and export tools. Values move element by element: RestoreValue
// stages each element in the transaction as it is decoded, DumpValue hands each stored element
// to the writer as it is read, so neither holds a whole key.

// RestoreStats says what RestoreValue stored and what it left out.
type RestoreStats struct {
	// Elements is the number of elements stored (1 for a string).
	Elements int64
	// DroppedFieldTTLs counts hash fields that carried a TTL in the RDB value: the fields are
	// stored without it, as Strata has no hash field expiry.
	DroppedFieldTTLs int64
	// ID is the object ID of a collection, 0 for a string.
	ID uint64
}

// errDuplicate reports a set member, hash field or sorted set member that a value holds twice;
// Redis refuses such values, so it wraps rdb.ErrCorrupt.
var errDuplicate = fmt.Errorf("%w: duplicate element", rdb.ErrCorrupt)

// RestoreValue stores v as key's value in txn's database with expiry expireAt (Unix
// milliseconds, 0 or less for none), replacing whatever key held. See RestoreValueStats.
func RestoreValue(txn *storage.Txn, key []byte, v *rdb.Value, expireAt int64) error {
	_, err := RestoreValueStats(txn, key, v, expireAt)
	return err
}

// RestoreValueStats is RestoreValue, and reports what it stored. Elements are staged in txn one
// at a time as v decodes them; a large string goes to the value log. A value that holds a
// member or field twice fails with an error wrapping rdb.ErrCorrupt, an empty one with
// rdb.ErrEmptyKey, streams and module values with rdb.ErrUnsupported. After an error txn holds
// part of the value and must be aborted.
func RestoreValueStats(txn *storage.Txn, key []byte, v *rdb.Value, expireAt int64) (RestoreStats, error) {
	_, st, err := RestoreValueInPieces(txn, key, v, expireAt, 0, nil)
	return st, err
}

// RestoreValueInPieces is RestoreValueStats for a caller that owns the store, such as the
// offline import: whenever the elements staged in txn reach pieceBytes, renew commits txn and
// returns a fresh transaction on the same database, in which the value goes on, so a huge
// collection never sits in one batch (renew nil: one transaction). The metadata is staged
// last, in the transaction returned, which the caller commits; until then the elements
// committed so far belong to no key and no reader sees them. After an error the returned
// transaction must be aborted, and the caller removes the elements committed under st.ID;
// renew returns a transaction to go on in (or to abort) even when its commit fails.
func RestoreValueInPieces(txn *storage.Txn, key []byte, v *rdb.Value, expireAt int64, pieceBytes int,
	renew func(*storage.Txn) (*storage.Txn, error)) (*storage.Txn, RestoreStats, error) {
	st, err := restoreValue(&txn, key, v, expireAt, pieceBytes, renew)
	return txn, st, err
}

func restoreValue(tp **storage.Txn, key []byte, v *rdb.Value, expireAt int64, pieceBytes int,
	renew func(*storage.Txn) (*storage.Txn, error)) (RestoreStats, error) {
	var st RestoreStats
	txn := *tp
	if expireAt < 0 {
		expireAt = 0
	}
	if v.Kind == rdb.KindString {
		s, err := v.Bytes()
		if err != nil {
			return st, err
		}
		st.Elements = 1
		return st, txn.SetString(key, s, expireAt)
	}
	if v.Kind == rdb.KindStream {
		return restoreStream(txn, key, v, expireAt) // streams_rdb.go
	}
	m := &storage.Meta{Expire: expireAt}
	switch v.Kind {
	case rdb.KindList:
		m.Type = storage.TypeList
	case rdb.KindSet:
		m.Type = storage.TypeSet
	case rdb.KindZSet:
		m.Type = storage.TypeZSet
	case rdb.KindHash:
		m.Type = storage.TypeHash
	default:
		return st, fmt.Errorf("%w: %s value", rdb.ErrUnsupported, v.Kind)
	}
	id, err := txn.NewID()
	if err != nil {
		return st, err
	}
	m.ID = id
	st.ID = id
	var lw *storage.ListWriter
	var pw *storage.PackWriter
	if m.Type == storage.TypeList {
		lw = txn.NewListWriter(id)
	} else {
		pw = txn.NewPackWriter(m.Type, id)
	}
	staged := 0
	for {
		e, err := v.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, err
		}
		if staged += len(e.Member) + len(e.Value) + 32; renew != nil && staged >= pieceBytes {
			txn, err = renew(txn)
			*tp, staged = txn, 0
			if err != nil {
				return st, err
			}
		}
		if lw != nil {
			lw.Append(txn, e.Member)
		} else if added, err := pw.Add(txn, e.Member, e.Value, e.Score); err != nil || !added {
			if err == nil {
				err = errDuplicate
			}
			return st, err
		}
		if e.ExpireAt != 0 {
			st.DroppedFieldTTLs++
		}
		m.Size++
		st.Elements++
	}
	if m.Size == 0 {
		return st, rdb.ErrEmptyKey
	}
	if lw != nil {
		lw.Finish(txn, m)
	} else {
		pw.Finish(txn, m)
	}
	return st, txn.PutMeta(key, m)
}

// errSizeMismatch reports a collection whose stored elements disagree with its metadata.
var errSizeMismatch = errors.New("commands: collection size differs from its metadata")

// ValueSink receives a value as DumpValue reads it: a string, or a collection's header (its
// type and element count) followed by its elements. *rdb.ValueWriter is one; DEBUG DIGEST's
// digest is another.
type ValueSink interface {
	String(s []byte) error
	List(n uint64) error
	Set(n uint64) error
	ZSet(n uint64) error
	Hash(n uint64) error
	Member(m []byte) error
	ScoredMember(m []byte, score float64) error
	Field(f, v []byte) error
}

// DumpValue writes the value of the key whose metadata is m to w: a string, or a collection
// announced with the element count m records, then its elements as they are read (a sorted
// set's in score order). A value-log string is read from its file. w is typically the
// ValueWriter embedded in an rdb.DumpWriter or an rdb.Writer (after its Key), taken by
// pointer because it keeps the value's state. A stream needs a sink that takes streams
// (StreamSink, as *rdb.ValueWriter does).
func DumpValue(txn *storage.Txn, m *storage.Meta, w ValueSink) error {
	if m.Type == storage.TypeStream {
		ss, ok := w.(StreamSink)
		if !ok {
			return fmt.Errorf("%w: stream values", rdb.ErrUnsupported)
		}
		return dumpStream(txn, m, ss) // streams_rdb.go
	}
	var err error
	switch m.Type {
	case storage.TypeString:
		s, err := txn.StringValue(m)
		if err != nil {
			return err
		}
		return w.String(s)
	case storage.TypeList:
		err = w.List(m.Size)
	case storage.TypeSet:
		err = w.Set(m.Size)
	case storage.TypeHash:
		err = w.Hash(m.Size)
	case storage.TypeZSet:
		err = w.ZSet(m.Size)
	default:
		return fmt.Errorf("commands: cannot dump a value of type %d", m.Type)
	}
	if err != nil {
		return err
	}
	var n uint64
	each := func(wr func() error) bool {
		if n++; n > m.Size {
			err = errSizeMismatch
			return false
		}
		err = wr()
		return err == nil
	}
	var ierr error
	switch m.Type {
	case storage.TypeList:
		ierr = txn.ListEach(m, func(v []byte) bool { return each(func() error { return w.Member(v) }) })
	case storage.TypeSet:
		ierr = txn.SetEach(m, func(mem []byte) bool { return each(func() error { return w.Member(mem) }) })
	case storage.TypeHash:
		ierr = txn.HashEach(m, func(f, v []byte) bool { return each(func() error { return w.Field(f, v) }) })
	case storage.TypeZSet:
		// In score order, so that a reader builds the set in order.
		var z *storage.ZSet
		if z, ierr = txn.ZSetOf(m); ierr == nil {
			ierr = z.Scan(false, func(mem []byte, score float64) bool {
				return each(func() error { return w.ScoredMember(mem, score) })
			})
		}
	}
	switch {
	case err != nil:
		return err
	case ierr != nil:
		return ierr
	case n != m.Size:
		return errSizeMismatch
	}
	return nil
}
