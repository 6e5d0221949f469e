package replication

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync/atomic"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/scripting"
	"github.com/strata-db/strata/storage"
)

// Loading a full synchronisation's snapshot into the store.

// countingReader counts the bytes read through it (INFO's master_sync_read_bytes).
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// loadBatchKeys and loadBatchWrites bound one batch of a snapshot load.
const (
	loadBatchKeys   = 512
	loadBatchWrites = 16384
)

// Load stores the RDB snapshot read from src beside the live keyspace (a storage.Shadow,
// committed in batches of a few hundred keys) and then puts it in place of the whole keyspace
// at once, in one batch with the PointRecord of at, and tells h (Host.Replaced). Until then
// clients read the data of before, with the point of before; a load that fails leaves both.
// Nothing of the snapshot is held beyond one element and its function libraries, which
// replace the store's once the keyspace is in place. Module values are skipped and logged;
// keys of a database the store does not have are skipped too.
//
// The snapshot's repl-stream-db field, the database the master's stream had selected at the
// snapshot's offset, goes into at.DB: the stream goes on in that database.
func Load(h Host, src io.Reader, at *Point, maxBulk int64, log *slog.Logger) error {
	rr, err := rdb.NewReader(src, &rdb.Options{MaxElementLen: maxBulk})
	if err != nil {
		return err
	}
	st := h.Store()
	sh, err := st.NewShadow()
	if err != nil {
		return err
	}
	var t *storage.Txn
	installed := false
	defer func() {
		if t != nil {
			t.Abort()
		}
		if !installed {
			sh.Abort()
		}
	}()
	commit := func() error {
		if t == nil {
			return nil
		}
		err := t.Commit()
		t = nil
		return err
	}
	db, keys, skipped := 0, 0, 0
	var funcs []string
	for {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch rec.Kind {
		case rdb.RecordSelectDB:
			if err := commit(); err != nil {
				return err
			}
			db = rec.DB
		case rdb.RecordFunction:
			funcs = append(funcs, string(rec.Payload))
		case rdb.RecordAux:
			if string(rec.Aux) == "repl-stream-db" {
				if n, err := strconv.Atoi(string(rec.AuxValue)); err == nil && n >= 0 {
					at.DB = n
				}
			}
		case rdb.RecordKey:
			if db >= st.Databases() || rec.Value.Kind == rdb.KindModule {
				skipped++
				continue
			}
			if t == nil {
				t = sh.Begin(db)
			}
			_, err := commands.RestoreValueStats(t, rec.Key, rec.Value, rec.ExpireAt)
			if errors.Is(err, rdb.ErrEmptyKey) { // nothing was staged for it
				continue
			}
			if err != nil {
				return fmt.Errorf("key %q: %w", rec.Key, err)
			}
			keys++
			if keys%loadBatchKeys == 0 || t.Writes() > loadBatchWrites {
				if err := commit(); err != nil {
					return err
				}
			}
		}
	}
	if err := commit(); err != nil {
		return err
	}
	if skipped > 0 {
		log.Warn("keys of the master's snapshot not loaded (module values, databases past the databases directive)", "keys", skipped)
	}
	if err := sh.Install(func(t *storage.Txn) { t.PutSystemRecord(PointRecord, at.Record()) }); err != nil {
		return err
	}
	installed = true
	loadFunctions(st, funcs, log)
	h.Replaced()
	return nil
}

// loadFunctions replaces the function libraries with those of the master's snapshot, as a
// Redis replica's full synchronisation does: the libraries of before go, even when the
// snapshot has none. A library that does not compile here is logged and left out.
func loadFunctions(st *storage.Store, funcs []string, log *slog.Logger) {
	e := scripting.For(st, commands.RedisVersion)
	if len(funcs) == 0 && len(e.Libraries(st)) == 0 {
		return
	}
	if err := e.FlushLibraries(st); err != nil {
		log.Warn("function libraries not replaced by the master's", "err", err)
		return
	}
	for _, code := range funcs {
		name, msg, err := e.LoadLibrary(st, code, true)
		if err != nil || msg != "" {
			log.Warn("function library in the master's snapshot not loaded", "library", name, "reply", msg, "err", err)
		}
	}
}
