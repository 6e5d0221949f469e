package replication

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

// TestWriteSnapshot: the RDB of a snapshot holds the keys committed before it, not those after,
// and carries the replication ID and offset it stands for.
func TestWriteSnapshot(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), Databases: 4, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(db int, k, v string) {
		txn := st.Begin(db, [][]byte{[]byte(k)}, true)
		if err := txn.SetString([]byte(k), []byte(v), 0); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 1000; i++ {
		put(i%3, fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i))
	}
	offset := int64(0)
	sn, err := st.Snapshot(func() { offset = 42 })
	if err != nil {
		t.Fatal(err)
	}
	put(0, "after", "x")
	var b bytes.Buffer
	ids := IDs{ID: NewID(), ID2: NoID, Offset: offset, SecondOffset: -1}
	if err := WriteSnapshot(&b, sn, ids, 0, true); err != nil {
		t.Fatal(err)
	}
	sn.Release()

	r, err := rdb.NewReader(bytes.NewReader(b.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	keys, aux := map[string]bool{}, map[string]string{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Kind {
		case rdb.RecordAux:
			aux[string(rec.Aux)] = string(rec.AuxValue)
		case rdb.RecordKey:
			keys[fmt.Sprintf("%d/%s", rec.DB, rec.Key)] = true
		}
	}
	if len(keys) != 1000 || !keys["1/k1"] || keys["0/after"] {
		t.Fatalf("%d keys in the snapshot (1/k1 %v, 0/after %v)", len(keys), keys["1/k1"], keys["0/after"])
	}
	if aux["repl-id"] != ids.ID || aux["repl-offset"] != "42" {
		t.Fatalf("aux fields %v", aux)
	}
}
