package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/scripting"
	"github.com/strata-db/strata/storage"
)

// The RDB tools move a whole keyspace between a Redis RDB file and a stopped server's data
// directory: import reads the file as a stream of records and stages each key's elements in
// storage transactions as they are decoded; export walks every database in key order and
// writes each value as it is read. Neither holds a whole key: memory is bounded by the largest
// element and by the batch size below.

// Import batches: a transaction is committed once it holds importBatchWrites records or
// importBatchBytes of input; a collection larger than importPieceBytes is committed in pieces
// inside the key (commands.RestoreValueInPieces), its metadata last, so LevelDB never receives
// a batch much larger than these bounds whatever the key.
const (
	importBatchWrites = 20000
	importBatchBytes  = 8 << 20
	importPieceBytes  = 8 << 20
)

// progressEvery is how often the progress line is redrawn on a terminal.
const progressEvery = 250 * time.Millisecond

// runRDBTool runs "import" or "export" and reports whether args named one of them.
func runRDBTool(args []string) bool {
	switch args[0] {
	case "import":
		fs := flag.NewFlagSet("import", flag.ExitOnError)
		dir := fs.String("dir", config.Default().Dir, "data directory of the stopped server")
		db := fs.Int("db", -1, "load every key into this database (default: each key's own)")
		replace := fs.Bool("replace", false, "replace keys that already exist (default: keep them)")
		fs.Usage = func() {
			fmt.Fprintln(fs.Output(), "usage: strata import --dir DATA [--db N] [--replace] dump.rdb")
			fs.PrintDefaults()
		}
		fs.Parse(args[1:])
		if fs.NArg() != 1 {
			fs.Usage()
			os.Exit(2)
		}
		im := &importer{db: *db, replace: *replace, progress: isTerminal(os.Stdout)}
		fail(im.run(*dir, fs.Arg(0)))
	case "export":
		fs := flag.NewFlagSet("export", flag.ExitOnError)
		dir := fs.String("dir", config.Default().Dir, "data directory of the stopped server")
		to := fs.String("to", "", "RDB file to write")
		fs.Parse(args[1:])
		if *to == "" {
			fail(fmt.Errorf("export: --to is required"))
		}
		fail(exportRDB(*dir, *to))
	default:
		return false
	}
	return true
}

// openForImport opens a data directory without background work, storing values as a server
// with the default configuration would: large strings go to the value log.
func openForImport(dir string) (*storage.Store, error) {
	cfg := config.Default()
	return storage.Open(storage.Options{Dir: dir, DisableBackgrnd: true,
		Databases: cfg.Databases, BlockSize: cfg.LevelDBBlockSize,
		Compression: cfg.LevelDBCompression, BloomBits: cfg.LevelDBBloomBits,
		LargeValueThreshold: int(cfg.LargeValueThreshold),
		Logger:              slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// isTerminal reports whether f is a terminal, where a progress line may be redrawn.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// tally counts keys per database and type, and what was left out and why.
type tally struct {
	keys    map[int]map[string]int64
	libs    []string
	skipped map[string]int64
}

func newTally() *tally {
	return &tally{keys: map[int]map[string]int64{}, skipped: map[string]int64{}}
}

// Key counts a key of type typ in database db.
func (t *tally) Key(db int, typ string) {
	if t.keys[db] == nil {
		t.keys[db] = map[string]int64{}
	}
	t.keys[db][typ]++
}

// Skip counts a key left out for reason.
func (t *tally) Skip(reason string) { t.skipped[reason]++ }

// Library records a function library.
func (t *tally) Library(name string) { t.libs = append(t.libs, name) }

func (t *tally) total() (n int64) {
	for _, m := range t.keys {
		for _, c := range m {
			n += c
		}
	}
	return n
}

// print writes the summary: one line per database with its keys by type, then each reason
// for skipping with its count.
func (t *tally) print(w io.Writer, verb string) {
	dbs := make([]int, 0, len(t.keys))
	for db := range t.keys {
		dbs = append(dbs, db)
	}
	sort.Ints(dbs)
	fmt.Fprintf(w, "%s %d keys\n", verb, t.total())
	for _, db := range dbs {
		types := make([]string, 0, len(t.keys[db]))
		var n int64
		for typ, c := range t.keys[db] {
			types = append(types, fmt.Sprintf("%s=%d", typ, c))
			n += c
		}
		sort.Strings(types)
		fmt.Fprintf(w, "  db%d: %d keys (%s)\n", db, n, strings.Join(types, " "))
	}
	reasons := make([]string, 0, len(t.skipped))
	for r := range t.skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	if len(t.libs) > 0 {
		fmt.Fprintf(w, "  function libraries: %s\n", strings.Join(t.libs, " "))
	}
	for _, r := range reasons {
		fmt.Fprintf(w, "  skipped %d: %s\n", t.skipped[r], r)
	}
}

// importer loads one RDB file into a store.
type importer struct {
	db       int // the database every key goes to, -1 for each key's own
	replace  bool
	progress bool

	st      *storage.Store
	r       *rdb.Reader
	txn     *storage.Txn
	txnDB   int
	mark    int64 // reader offset at the last commit
	pieces  int   // pieces of the current value committed so far
	empty   []bool
	tally   *tally
	started time.Time
	total   int64
	lastBar time.Time
}

// run imports the file at path into the data directory dir and prints the summary.
func (im *importer) run(dir, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		im.total = fi.Size()
	}
	if im.st, err = openForImport(dir); err != nil {
		return err
	}
	im.tally = newTally()
	im.started = time.Now()
	err = im.load(f)
	if im.txn != nil {
		if err == nil {
			err = im.txn.Commit()
		} else {
			im.txn.Abort()
		}
		im.txn = nil
	}
	if cerr := im.st.Close(); err == nil {
		err = cerr
	}
	if im.progress {
		fmt.Print("\r\033[K")
	}
	if errors.Is(err, rdb.ErrChecksum) {
		err = fmt.Errorf("%w: every record decoded, but a value may hold damaged bytes", err)
	}
	if err != nil {
		im.tally.print(os.Stderr, "before the error: imported")
		return fmt.Errorf("import %s: %w (keys already committed stay in %s; the directory remains usable)", path, err, dir)
	}
	secs := time.Since(im.started).Seconds()
	im.tally.print(os.Stdout, fmt.Sprintf("import of %s into %s done in %.1fs (%.0f keys/s, %.1f MB/s):",
		path, dir, secs, float64(im.tally.total())/secs, float64(im.total)/secs/1e6))
	return nil
}

// load reads every record of the file.
func (im *importer) load(f io.Reader) error {
	if im.db < -1 || im.db >= im.st.Databases() {
		return fmt.Errorf("--db %d out of range (databases = %d)", im.db, im.st.Databases())
	}
	im.empty = make([]bool, im.st.Databases())
	for db := range im.empty {
		im.empty[db] = im.st.DBSize(db) == 0
	}
	r, err := rdb.NewReader(f, nil)
	if err != nil {
		return err
	}
	im.r = r
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("at byte %d: %w", r.Offset(), err)
		}
		switch rec.Kind {
		case rdb.RecordFunction:
			im.function(rec.Payload)
		case rdb.RecordModuleAux:
			im.tally.Skip(fmt.Sprintf("module data of %s (Strata has no modules)", rec.Module))
		case rdb.RecordKey:
			if err := im.key(r, rec); err != nil {
				return fmt.Errorf("key %q (db %d) at byte %d: %w", rec.Key, rec.DB, r.Offset(), err)
			}
		}
		if im.txn != nil && (im.txn.Writes() >= importBatchWrites || r.Offset()-im.mark >= importBatchBytes) {
			if err := im.commit(r.Offset()); err != nil {
				return err
			}
		}
		if im.progress {
			im.bar()
		}
	}
}

// function loads a function library, as FUNCTION LOAD would (REPLACE with --replace).
func (im *importer) function(code []byte) {
	name, msg, err := scripting.For(im.st, commands.RedisVersion).LoadLibrary(im.st, string(code), im.replace)
	switch {
	case err != nil:
		im.tally.Skip(fmt.Sprintf("function library: %v", err))
	case msg != "":
		im.tally.Skip(fmt.Sprintf("function library: %s", strings.TrimPrefix(msg, "ERR ")))
	default:
		im.tally.Library(name)
	}
}

// key imports one key record.
func (im *importer) key(r *rdb.Reader, rec *rdb.Record) error {
	db := rec.DB
	if im.db >= 0 {
		db = im.db
	}
	v := rec.Value
	switch {
	case db >= im.st.Databases():
		im.tally.Skip(fmt.Sprintf("database %d does not exist (databases = %d; use --db)", db, im.st.Databases()))
		return nil
	case v.Kind == rdb.KindModule:
		im.tally.Skip("module values (Strata has no modules)")
		return nil
	case rec.ExpireAt >= 0 && rec.ExpireAt <= time.Now().UnixMilli():
		im.tally.Skip("already expired")
		return nil
	}
	if im.txn != nil && im.txnDB != db {
		if err := im.commit(r.Offset()); err != nil {
			return err
		}
	}
	if im.txn == nil {
		im.txn, im.txnDB = im.st.Begin(db, nil, true), db
	}
	old, err := im.txn.GetMeta(rec.Key)
	if err != nil {
		return err
	}
	if old != nil {
		if im.db < 0 && im.empty[db] {
			// The database was empty when the import began, so the key came from this
			// file: the file holds it twice, which Redis refuses to load.
			return errors.New("the file holds this key twice (redis-server refuses such a file too)")
		}
		if !im.replace {
			im.tally.Skip("key already exists (use --replace)")
			return nil
		}
	}
	im.pieces = 0
	txn, st, err := commands.RestoreValueInPieces(im.txn, rec.Key, v, rec.ExpireAt, importPieceBytes, im.renew)
	im.txn = txn
	switch {
	case errors.Is(err, rdb.ErrEmptyKey):
		// Nothing was staged for it: Redis skips empty keys on load too.
		im.tally.Skip("empty value")
		return nil
	case err != nil:
		im.txn.Abort()
		im.txn = nil
		if st.ID != 0 {
			return errors.Join(err, im.dropObject(db, st.ID))
		}
		return err
	}
	if st.DroppedFieldTTLs > 0 {
		im.tally.skipped["hash field TTLs (the fields are kept, without them: Strata has no field expiry)"] += st.DroppedFieldTTLs
	}
	im.tally.Key(db, v.Kind.String())
	if im.pieces > 0 {
		// The value's metadata goes out now: its committed pieces must not outlive it if a
		// later record fails.
		return im.commit(r.Offset())
	}
	return nil
}

// renew commits a transaction in the middle of a large value and begins the next.
func (im *importer) renew(txn *storage.Txn) (*storage.Txn, error) {
	im.pieces++
	err := txn.Commit()
	if im.progress {
		im.bar() // a large value takes a while: the line moves while it loads
	}
	return im.st.Begin(im.txnDB, nil, true), err
}

// commit writes the pending transaction; off is the reader's offset.
func (im *importer) commit(off int64) error {
	err := im.txn.Commit()
	im.txn, im.mark = nil, off
	return err
}

// dropObject deletes the elements of a value that failed after some of its pieces were
// committed: they belong to no key.
func (im *importer) dropObject(db int, id uint64) error {
	for {
		txn := im.st.Begin(db, nil, true)
		it := txn.ScanData(id, nil, nil, nil)
		var keys [][]byte
		for len(keys) < importBatchWrites && it.Next() {
			keys = append(keys, append([]byte(nil), it.Key()...))
		}
		if err := it.Close(); err != nil {
			txn.Abort()
			return err
		}
		if len(keys) == 0 {
			txn.Abort()
			return nil
		}
		for _, k := range keys {
			txn.DeleteData(k)
		}
		if err := txn.Commit(); err != nil {
			return err
		}
	}
}

// bar redraws the progress line, at most every progressEvery: bytes read of the file's size,
// keys and keys per second.
func (im *importer) bar() {
	off := im.r.Offset()
	now := time.Now()
	if now.Sub(im.lastBar) < progressEvery {
		return
	}
	im.lastBar = now
	secs := now.Sub(im.started).Seconds()
	keys := im.tally.total()
	pct := 100.0
	if im.total > 0 {
		pct = 100 * float64(off) / float64(im.total)
	}
	fmt.Printf("\r\033[K%5.1f%%  %s / %s  %d keys  %.0f keys/s  %.1f MB/s",
		pct, sizeText(off), sizeText(im.total), keys, float64(keys)/secs, float64(off)/secs/1e6)
}

// sizeText renders a byte count with a binary unit.
func sizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// exportRDB writes every database of the data directory dir to an RDB file at to: first to a
// temporary file beside it, renamed over to once complete.
func exportRDB(dir, to string) error {
	started := time.Now()
	st := openOffline(dir)
	tmp, err := os.CreateTemp(filepath.Dir(to), filepath.Base(to)+".tmp*")
	if err != nil {
		st.Close()
		return err
	}
	tl := newTally()
	err = writeRDB(st, tmp, tl)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), to)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("export: %w", err)
	}
	tl.print(os.Stdout, fmt.Sprintf("export of %s to %s done in %.1fs:", dir, to, time.Since(started).Seconds()))
	return nil
}

// writeRDB writes the file: aux fields, the function libraries, then each database with keys
// in key order, expired keys left out, from one consistent view of the store.
func writeRDB(st *storage.Store, f io.Writer, tl *tally) error {
	w, err := rdb.NewWriter(f)
	if err != nil {
		return err
	}
	now := time.Now()
	for _, kv := range [][2]string{{"redis-ver", commands.RedisVersion}, {"redis-bits", "64"},
		{"ctime", fmt.Sprint(now.Unix())}, {"used-mem", "0"}, {"aof-base", "0"}} {
		if err := w.Aux(kv[0], kv[1]); err != nil {
			return err
		}
	}
	sn, err := st.Snapshot(nil)
	if err != nil {
		return err
	}
	defer sn.Release()
	if err := commands.WriteKeyspace(w, sn, now.UnixMilli(), tl); err != nil {
		return err
	}
	return w.Close()
}
