package storage

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// vlogReaderOf opens a reader over k's value in database 0 through tx (nil: a transaction of
// its own, ended at once, which the reader outlives).
func vlogReaderOf(t *testing.T, s *Store, tx *Txn, k string) *ValueReader {
	t.Helper()
	if tx == nil {
		tx = s.Begin(0, [][]byte{[]byte(k)}, false)
		defer tx.Abort()
	}
	m, err := tx.GetMetaOf([]byte(k), TypeString)
	if err != nil || m == nil {
		t.Fatalf("%s: %v, %v", k, m, err)
	}
	r, err := tx.StringReader(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// readPieces reads r to its end in pieces of n bytes.
func readPieces(r io.Reader, n int) ([]byte, error) {
	var out bytes.Buffer
	_, err := io.CopyBuffer(&out, struct{ io.Reader }{r}, make([]byte, n))
	return out.Bytes(), err
}

func TestVLogReaderReadsTheValue(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	v := vlogValue("k", 1, 50000)
	vlogSet(t, s, 0, "k", v, 0)
	for _, piece := range []int{1, 4096, 49999, 50000, 1 << 20} {
		r := vlogReaderOf(t, s, nil, "k")
		if r.Len() != int64(len(v)) {
			t.Fatalf("Len %d, want %d", r.Len(), len(v))
		}
		got, err := readPieces(r, piece)
		if err != nil || !bytes.Equal(got, v) {
			t.Fatalf("pieces of %d: %d bytes, %v; want the %d bytes written", piece, len(got), err, len(v))
		}
		if n, err := r.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Fatalf("read past the end: %d, %v", n, err)
		}
	}
	vlogSet(t, s, 0, "inline", []byte("small"), 0)
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	m, _ := tx.GetMetaOf([]byte("inline"), TypeString)
	if _, err := tx.StringReader(m); err == nil {
		t.Fatal("StringReader of an inline value succeeded")
	}
}

func TestVLogReaderDetectsDamage(t *testing.T) {
	for _, damage := range []string{"flip-first", "flip-last", "truncate"} {
		t.Run(damage, func(t *testing.T) {
			s := vlogOpen(t, vlogOptions(t.TempDir()))
			defer s.Close()
			v := vlogValue("k", 1, 30000)
			vlogSet(t, s, 0, "k", v, 0)
			path, _, p := vlogRecordOf(t, s, "k")
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			switch damage {
			case "flip-first":
				_, err = f.WriteAt([]byte{^v[0]}, p.off)
			case "flip-last":
				_, err = f.WriteAt([]byte{^v[len(v)-1]}, p.off+p.n-1)
			case "truncate":
				err = f.Truncate(p.off + p.n/2)
			}
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			want := "checksum mismatch"
			if damage == "truncate" {
				want = "ends"
			}
			got, err := readPieces(vlogReaderOf(t, s, nil, "k"), 4096)
			if !errors.Is(err, ErrValueLog) || !strings.Contains(err.Error(), want) {
				t.Fatalf("read of a damaged value: %d bytes, %v; want an error with %q", len(got), err, want)
			}
			if len(got) >= len(v) {
				t.Fatalf("all %d bytes of a damaged value were handed out", len(got))
			}
			// io.ReadFull, which keeps no error that comes with the bytes it asked for, sees it.
			if _, err := io.ReadFull(vlogReaderOf(t, s, nil, "k"), make([]byte, len(v))); !errors.Is(err, ErrValueLog) {
				t.Fatalf("io.ReadFull of a damaged value: %v", err)
			}
		})
	}
}

// TestVLogReaderOutlivesTheCollector: a reader opened from a snapshot goes on reading its value
// after the key was overwritten, the snapshot released and the value's file collected and
// deleted, and a reader of a live key after the collector moved the value away.
func TestVLogReaderOutlivesTheCollector(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	// File 1 holds k and filler; x starts file 2, so file 1 is sealed.
	k1, live := vlogValue("k", 1, 20000), vlogValue("live", 1, 20000)
	vlogSet(t, s, 0, "k", k1, 0)
	vlogSet(t, s, 0, "live", live, 0)
	vlogSet(t, s, 0, "filler", vlogValue("filler", 1, 30000), 0)
	vlogSet(t, s, 0, "x", vlogValue("x", 1, 20000), 0)
	path, _, p := vlogRecordOf(t, s, "k")
	if lp, _, _ := vlogRecordOf(t, s, "live"); lp != path || p.file != 1 {
		t.Fatalf("k in %s, live in %s: want both in file 1", path, lp)
	}

	sn, err := s.Snapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	stx := sn.Begin(0, time.Now().UnixMilli())
	fromSnap := vlogReaderOf(t, s, stx, "k")
	stx.Abort()
	fromLive := vlogReaderOf(t, s, nil, "live")
	heads := [2][]byte{make([]byte, 1000), make([]byte, 1000)}
	for i, r := range []*ValueReader{fromSnap, fromLive} {
		if _, err := io.ReadFull(r, heads[i]); err != nil {
			t.Fatal(err)
		}
	}

	vlogSet(t, s, 0, "k", vlogValue("k", 2, 20000), 0)
	write(t, s, 0, "filler", func(tx *Txn) error { _, err := tx.Delete([]byte("filler")); return err })
	// Pinned by the snapshot, file 1 stays; released, the collector moves live and deletes it.
	if _, err := s.CollectValueLog(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("file 1 is gone while the snapshot holds it: %v", err)
	}
	sn.Release()
	if n, err := s.CollectValueLog(); err != nil || n == 0 {
		t.Fatalf("CollectValueLog = %d, %v", n, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file 1 after its collection: %v", err)
	}
	if np, ok := vptrOf(vlogMeta(t, s, 0, "live")); !ok || np.file == 1 {
		t.Fatalf("live's pointer after the collection: %+v", np)
	}

	for i, c := range []struct {
		name string
		r    *ValueReader
		want []byte
	}{{"snapshot reader", fromSnap, k1}, {"live reader", fromLive, live}} {
		rest, err := readPieces(c.r, 4096)
		if err != nil || !bytes.Equal(append(heads[i], rest...), c.want) {
			t.Fatalf("%s after the collection: %d more bytes, %v", c.name, len(rest), err)
		}
	}
	vlogExpect(t, s, 0, "live", live)
	vlogCheck(t, s)
}
