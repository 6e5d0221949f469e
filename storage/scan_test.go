package storage

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

func TestScanKeysOrderPrefixAndExpired(t *testing.T) {
	s := openTest(t, false)
	past := time.Now().UnixMilli() - 1
	for i := 0; i < 50; i++ {
		key := fmt.Sprintf("k:%02d", i)
		exp := int64(0)
		if i%10 == 0 {
			exp = past
		}
		invTxn(t, s, 0, []string{key}, func(tx *Txn) error { return tx.SetString([]byte(key), []byte("v"), exp) })
	}
	invTxn(t, s, 0, []string{"other"}, func(tx *Txn) error { return tx.SetString([]byte("other"), nil, 0) })
	invTxn(t, s, 1, []string{"k:99"}, func(tx *Txn) error { return tx.SetString([]byte("k:99"), nil, 0) })

	scan := func(prefix, from string) (live, expired []string) {
		tx := s.Begin(0, nil, false)
		defer tx.Abort()
		it := tx.ScanKeys([]byte(prefix), []byte(from))
		for it.Next() {
			if it.Expired() {
				expired = append(expired, string(it.Key()))
			} else {
				live = append(live, string(it.Key()))
			}
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	live, expired := scan("", "")
	if len(live) != 46 || len(expired) != 5 || live[45] != "other" {
		t.Fatalf("all: %d live (%v), %d expired", len(live), live, len(expired))
	}
	live, _ = scan("k:", "k:45")
	if fmt.Sprint(live) != "[k:45 k:46 k:47 k:48 k:49]" {
		t.Fatalf("from k:45: %v", live)
	}
	live, _ = scan("k:4", "")
	if len(live) != 9 || live[0] != "k:41" {
		t.Fatalf("prefix k:4: %v", live)
	}
	live, _ = scan("k:4", "k:3")
	if len(live) != 9 {
		t.Fatalf("prefix k:4 from k:3: %v", live)
	}
	live, _ = scan("k:", "k:\xff")
	if len(live) != 0 {
		t.Fatalf("past the prefix: %v", live)
	}
}

func TestScanDataAndRandomKey(t *testing.T) {
	s := openTest(t, false)
	s.SetPackLimits(PackLimits{}) // ScanData walks the records of a zset
	z := invFill(t, s, 0, "z", TypeZSet, 100)
	tx := s.Begin(0, nil, false)
	it := tx.ScanData(z.ID, []byte{ZSetMemberTag}, []byte("m:0000005"), []byte("m:00000055"))
	var got []string
	for it.Next() {
		got = append(got, string(it.Key()[DataPrefixLen+1:]))
		if len(it.Value()) != 8 {
			t.Fatal("score record")
		}
	}
	it.Close()
	tx.Abort()
	if fmt.Sprint(got) != "[m:00000055 m:00000056 m:00000057 m:00000058 m:00000059]" {
		t.Fatalf("ScanData: %v", got)
	}

	// RandomKey: nil on an empty database, never an expired key, and every key turns up.
	tx = s.Begin(1, nil, false)
	if k, err := tx.RandomKey(); k != nil || err != nil {
		t.Fatal(k, err)
	}
	tx.Abort()
	past := time.Now().UnixMilli() - 1
	for i := 0; i < 20; i++ {
		key := fmt.Sprintf("r%02d", i)
		exp := int64(0)
		if i%2 == 1 {
			exp = past
		}
		invTxn(t, s, 1, []string{key}, func(tx *Txn) error { return tx.SetString([]byte(key), nil, exp) })
	}
	seen := map[string]int{}
	for i := 0; i < 2000; i++ {
		tx := s.Begin(1, nil, false)
		k, err := tx.RandomKey()
		tx.Abort()
		if err != nil || k == nil {
			t.Fatal(k, err)
		}
		var n int
		fmt.Sscanf(string(k), "r%d", &n)
		if n%2 == 1 {
			t.Fatalf("RandomKey returned expired %q", k)
		}
		seen[string(k)]++
	}
	if len(seen) != 10 {
		t.Fatalf("RandomKey saw %d of 10 keys: %v", len(seen), seen)
	}
	if !bytes.Equal(PrefixEnd([]byte("a\xff")), []byte("b")) {
		t.Fatal("PrefixEnd")
	}
}
