package storage

import (
	"bytes"
	"testing"
)

// TestExpiredInWriteTxn checks that a write transaction deletes an expired key on the way and
// reports it apart from its own writes, and that a KeepExpired transaction reads it as live.
func TestExpiredInWriteTxn(t *testing.T) {
	s := openTest(t, false)
	put := s.BeginAt(1, [][]byte{[]byte("k")}, true, 1000)
	if err := put.SetString([]byte("k"), []byte("v"), 2000); err != nil {
		t.Fatal(err)
	}
	if err := put.Commit(); err != nil {
		t.Fatal(err)
	}

	keep := s.BeginAt(1, [][]byte{[]byte("k")}, true, 3000)
	keep.KeepExpired()
	if m, err := keep.GetMeta([]byte("k")); err != nil || m == nil {
		t.Fatalf("KeepExpired: GetMeta = %v, %v; want the expired key", m, err)
	}
	expired, writes := keep.Since(TxnMark{})
	if len(expired) != 0 || writes != 0 {
		t.Fatalf("KeepExpired staged %d deletions, %d writes", len(expired), writes)
	}
	keep.Abort()

	tx := s.BeginAt(1, [][]byte{[]byte("k")}, true, 3000)
	if m, err := tx.GetMeta([]byte("k")); err != nil || m != nil {
		t.Fatalf("GetMeta of an expired key = %v, %v", m, err)
	}
	mark := tx.Mark()
	expired, writes = tx.Since(TxnMark{})
	if len(expired) != 1 || expired[0].DB != 1 || !bytes.Equal(expired[0].Key, []byte("k")) || writes != 0 {
		t.Fatalf("after the lazy deletion: expired %v, writes %d", expired, writes)
	}
	if err := tx.SetString([]byte("k"), []byte("w"), 0); err != nil {
		t.Fatal(err)
	}
	if expired, writes = tx.Since(mark); len(expired) != 0 || writes == 0 {
		t.Fatalf("after SET: expired %v, writes %d; want none and some", expired, writes)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
