package rdb

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// fileOf writes one key "k" holding v, through String or StringFrom, as an RDB file.
func fileOf(t *testing.T, v []byte, from bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	if err == nil {
		err = w.Key([]byte("k"), -1)
	}
	if err == nil && from {
		err = w.StringFrom(int64(len(v)), iotest.HalfReader(bytes.NewReader(v)))
	} else if err == nil {
		err = w.String(v)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// valueOfFile reads the file's one key back; the reader checks the CRC-64 trailer.
func valueOfFile(file []byte) ([]byte, error) {
	rd, err := NewReader(bytes.NewReader(file), nil)
	if err != nil {
		return nil, err
	}
	rec, err := rd.Next()
	if err != nil {
		return nil, err
	}
	v, err := rec.Value.Bytes()
	if err != nil {
		return nil, err
	}
	if _, err := rd.Next(); err != io.EOF {
		return nil, err
	}
	return v, nil
}

func TestStringFrom(t *testing.T) {
	for _, n := range []int{0, 5, 1000, StreamedStringMin, StreamedStringMin + 1, 3*stringPiece + 12345} {
		// Compressible, so that String's LZF shows.
		v := bytes.Repeat([]byte("strata "), n/7+1)[:n]
		viaString, viaReader := fileOf(t, v, false), fileOf(t, v, true)
		got, err := valueOfFile(viaReader)
		if err != nil || !bytes.Equal(got, v) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
		if n <= StreamedStringMin {
			if !bytes.Equal(viaString, viaReader) {
				t.Fatalf("%d bytes: StringFrom wrote %d bytes, String %d", n, len(viaReader), len(viaString))
			}
			continue
		}
		// Raw: the value is in the file as it is, after its length.
		if !bytes.Contains(viaReader, v) || len(viaString) >= len(viaReader) {
			t.Fatalf("%d bytes: streamed file of %d bytes, compressed one of %d", n, len(viaReader), len(viaString))
		}
		// The trailer covers the streamed bytes: one flipped byte among them is caught.
		bad := bytes.Clone(viaReader)
		bad[len(bad)-20-n/2] ^= 1
		if _, err := valueOfFile(bad); !errors.Is(err, ErrChecksum) {
			t.Fatalf("%d bytes: a flipped byte in the streamed string gives %v", n, err)
		}
	}
}

func TestStringFromFailedRead(t *testing.T) {
	broken := errors.New("disk gone")
	for _, n := range []int{1000, 2 * StreamedStringMin} {
		w, err := NewWriter(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		w.Key([]byte("k"), -1)
		r := io.MultiReader(bytes.NewReader(make([]byte, n/2)), iotest.ErrReader(broken))
		if err := w.StringFrom(int64(n), r); !errors.Is(err, broken) {
			t.Fatalf("%d bytes: StringFrom = %v, want the read's error", n, err)
		}
		if err := w.Close(); err == nil {
			t.Fatalf("%d bytes: Close after a string cut short succeeded", n)
		}
	}
}
