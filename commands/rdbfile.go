package commands

import (
	"fmt"
	"sort"

	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

// RDBTally hears of what WriteKeyspace writes and what it leaves out.
type RDBTally interface {
	Library(name string)
	Key(db int, typ string)
	Skip(reason string)
}

// WriteKeyspace writes what follows an RDB file's aux fields, from the view sn: the function
// libraries in name order, then each database that has keys, with its keys in key order.
// Keys expired at now (unix milliseconds) and values without an RDB encoding are left out.
// One value at a time is held in memory, and of a value-log string only a piece. tl, when not nil, hears of each library and key
// written and of each key left out. The caller closes w.
func WriteKeyspace(w *rdb.Writer, sn *storage.Snapshot, now int64, tl RDBTally) error {
	libs, err := sn.FunctionLibraries()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(libs))
	for name := range libs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := w.Function([]byte(libs[name])); err != nil {
			return err
		}
		if tl != nil {
			tl.Library(name)
		}
	}
	for db := 0; db < sn.Databases(); db++ {
		keys, expires := sn.KeyCounts(db)
		if keys == 0 {
			continue
		}
		if err := w.SelectDB(db); err != nil {
			return err
		}
		if err := w.ResizeDB(uint64(keys), uint64(expires)); err != nil {
			return err
		}
		if err := writeDB(w, sn, db, now, tl); err != nil {
			return fmt.Errorf("db %d: %w", db, err)
		}
	}
	return nil
}

// writeDB writes the live keys of database db of sn.
func writeDB(w *rdb.Writer, sn *storage.Snapshot, db int, now int64, tl RDBTally) error {
	txn := sn.Begin(db, now)
	defer txn.Abort()
	it := txn.ScanKeys(nil, nil)
	for it.Next() {
		m := it.Meta()
		skip := ""
		switch {
		case it.Expired():
			skip = "already expired"
		case !m.Type.IsCollection() && m.Type != storage.TypeString:
			skip = fmt.Sprintf("values of type %s (no RDB encoding)", m.Type)
		}
		if skip != "" {
			if tl != nil {
				tl.Skip(skip)
			}
			continue
		}
		expireAt := int64(-1)
		if m.Expire != 0 {
			expireAt = m.Expire
		}
		if err := w.Key(it.Key(), expireAt); err != nil {
			it.Close()
			return err
		}
		if err := writeValue(w, txn, m); err != nil {
			it.Close()
			return fmt.Errorf("key %q: %w", it.Key(), err)
		}
		if tl != nil {
			tl.Key(db, m.Type.String())
		}
	}
	return it.Close()
}

// writeValue writes the value of the key whose metadata is m. A value-log string is copied
// from its file a piece at a time (rdb.ValueWriter.StringFrom), so that a large value costs the
// file writer no more memory than a piece of it; DUMP and MIGRATE payloads keep DumpValue's
// encoding, as their reply holds the whole value anyway.
func writeValue(w *rdb.Writer, txn *storage.Txn, m *storage.Meta) error {
	if m.Type != storage.TypeString || m.Enc != storage.EncValueLog {
		return DumpValue(txn, m, &w.ValueWriter)
	}
	r, err := txn.StringReader(m)
	if err != nil {
		return err
	}
	defer r.Close()
	return w.StringFrom(r.Len(), r)
}
