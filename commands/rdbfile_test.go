package commands

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

// TestWriteKeyspaceStreamsValueLogStrings: the RDB of a store holding one 64 MB value-log
// string is written with far less memory than the value, and holds the value.
func TestWriteKeyspaceStreamsValueLogStrings(t *testing.T) {
	const size = 64 << 20
	s, err := storage.Open(storage.Options{Dir: t.TempDir(), Databases: 1, DisableBackgrnd: true,
		LargeValueThreshold: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	value := make([]byte, size)
	for i := range value {
		value[i] = byte(i*7 + i>>13) // LZF would compress it, were it read whole
	}
	tx := s.Begin(0, [][]byte{[]byte("big")}, true)
	if err := tx.SetString([]byte("big"), value, 0); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dump.rdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sn, err := s.Snapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Release()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w, err := rdb.NewWriter(f)
	if err == nil {
		err = WriteKeyspace(w, sn, 0, nil)
	}
	if err == nil {
		err = w.Close()
	}
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("WriteKeyspace of one %d-byte value allocated %d bytes; heap %d -> %d", size, grew, before.HeapAlloc, after.HeapAlloc)
	if grew > size/4 {
		t.Fatalf("WriteKeyspace of one %d-byte value allocated %d bytes, want under a quarter of it", size, grew)
	}

	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	// The file is a SELECTDB, a RESIZEDB, the key and the trailer, which the reader checks.
	rd, err := rdb.NewReader(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	var recs []rdb.RecordKind
	rec, err := rd.Next()
	for ; err == nil; rec, err = rd.Next() {
		recs = append(recs, rec.Kind)
		if rec.Kind == rdb.RecordKey {
			if got, err = rec.Value.Bytes(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err != io.EOF || len(recs) != 3 || !bytes.Equal(got, value) {
		t.Fatalf("the RDB holds records %v, %d bytes for big (want the %d written), then %v", recs, len(got), len(value), err)
	}
}
