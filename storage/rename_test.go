package storage

import (
	"fmt"
	"testing"
	"time"
)

// TestRenameMovesMetadataOnly: renaming a collection keeps its object ID (no sub-key is
// touched, nothing is queued), and the sub-keys stay reachable under the new name.
func TestRenameMovesMetadataOnly(t *testing.T) {
	s := openTest(t, false)
	for _, typ := range []Type{TypeHash, TypeSet, TypeZSet, TypeList} {
		t.Run(typ.String(), func(t *testing.T) {
			src, dst := "src:"+typ.String(), "dst:"+typ.String()
			m := invFill(t, s, 0, src, typ, 3000)
			before := invDataCount(t, s, m.ID)
			tx := s.Begin(0, [][]byte{[]byte(src), []byte(dst)}, true)
			ok, err := tx.Rename([]byte(src), []byte(dst))
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			if tx.batch.Len() > 6 {
				t.Fatalf("rename of a %d-element %s wrote %d records", m.Size, typ, tx.batch.Len())
			}
			if tx.garbage {
				t.Fatal("rename queued garbage")
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			got := invMeta(t, s, dst)
			if got.ID != m.ID || got.Size != m.Size || got.Type != typ {
				t.Fatalf("after rename: %+v, before %+v", got, m)
			}
			if n := invDataCount(t, s, m.ID); n != before {
				t.Fatalf("sub-keys %d -> %d", before, n)
			}
			if invGarbageLen(t, s) != 0 {
				t.Fatal("garbage queued")
			}
			invCheck(t, s)
			if _, err := s.Collect(); err != nil {
				t.Fatal(err)
			}
			if n := invDataCount(t, s, m.ID); n != before {
				t.Fatalf("collector reclaimed a renamed object: %d -> %d", before, n)
			}
		})
	}
}

func TestRenameReplacesAndKeepsExpiry(t *testing.T) {
	s := openTest(t, false)
	s.SetPackLimits(PackLimits{}) // one record per element, counted below
	at := time.Now().UnixMilli() + 100_000
	h := invFill(t, s, 0, "h", TypeHash, 100)
	invTxn(t, s, 0, []string{"h"}, func(tx *Txn) error {
		m, _ := tx.GetMeta([]byte("h"))
		m.Expire = at
		return tx.PutMeta([]byte("h"), m)
	})
	victim := invFill(t, s, 0, "victim", TypeSet, 100)
	invTxn(t, s, 0, []string{"h", "victim"}, func(tx *Txn) error {
		_, err := tx.Rename([]byte("h"), []byte("victim"))
		return err
	})
	m := invMeta(t, s, "victim")
	if m.ID != h.ID || m.Expire != at || m.Type != TypeHash {
		t.Fatalf("victim = %+v", m)
	}
	if k, x := s.KeyCounts(0); k != 1 || x != 1 {
		t.Fatalf("counts %d %d", k, x)
	}
	invCheck(t, s)
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	if n := invDataCount(t, s, victim.ID); n != 0 {
		t.Fatalf("replaced set left %d sub-keys", n)
	}
	if n := invDataCount(t, s, h.ID); n != 100 {
		t.Fatalf("renamed hash has %d sub-keys", n)
	}
	invCheck(t, s)

	// Renaming onto itself, a missing source, and an expired source.
	invTxn(t, s, 0, []string{"victim"}, func(tx *Txn) error {
		ok, err := tx.Rename([]byte("victim"), []byte("victim"))
		if !ok {
			return fmt.Errorf("self rename: %v %v", ok, err)
		}
		if ok, err := tx.Rename([]byte("missing"), []byte("x")); ok || err != nil {
			return fmt.Errorf("missing rename: %v %v", ok, err)
		}
		return tx.SetString([]byte("old"), []byte("v"), time.Now().UnixMilli()-1)
	})
	invTxn(t, s, 0, []string{"old", "new"}, func(tx *Txn) error {
		if ok, err := tx.Rename([]byte("old"), []byte("new")); ok || err != nil {
			return fmt.Errorf("expired rename: %v %v", ok, err)
		}
		return nil
	})
	invCheck(t, s)
	if k, _ := s.KeyCounts(0); k != 1 {
		t.Fatalf("keys %d", k)
	}
}

func TestRenameAcrossDatabases(t *testing.T) {
	s := openTest(t, false)
	z := invFill(t, s, 0, "z", TypeZSet, 500)
	at := time.Now().UnixMilli() + 100_000
	tx := s.BeginExclusive(0)
	m, _ := tx.GetMeta([]byte("z"))
	m.Expire = at
	if err := tx.PutMeta([]byte("z"), m); err != nil {
		t.Fatal(err)
	}
	if ok, err := tx.RenameIn(0, []byte("z"), 2, []byte("z")); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if k, x := s.KeyCounts(0); k != 0 || x != 0 {
		t.Fatalf("db0 counts %d %d", k, x)
	}
	if k, x := s.KeyCounts(2); k != 1 || x != 1 {
		t.Fatalf("db2 counts %d %d", k, x)
	}
	tx = s.Begin(2, nil, false)
	got, _ := tx.GetMeta([]byte("z"))
	tx.Abort()
	if got == nil || got.ID != z.ID || got.Expire != at {
		t.Fatalf("db2 z = %+v", got)
	}
	invCheck(t, s)
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	if n := invDataCount(t, s, z.ID); n != 1000 {
		t.Fatalf("moved zset has %d sub-keys", n)
	}
}

func TestCopyDataIsIndependent(t *testing.T) {
	s := openTest(t, false)
	for _, typ := range []Type{TypeHash, TypeSet, TypeZSet, TypeList} {
		src := "c:" + typ.String()
		m := invFill(t, s, 0, src, typ, 1200)
		invTxn(t, s, 0, []string{src, src + ":copy"}, func(tx *Txn) error {
			id, err := tx.CopyData(m)
			if err != nil {
				return err
			}
			cp := *m
			cp.ID = id
			return tx.PutMeta([]byte(src+":copy"), &cp)
		})
		c := invMeta(t, s, src+":copy")
		if c.ID == m.ID || invDataCount(t, s, c.ID) != invDataCount(t, s, m.ID) {
			t.Fatalf("%s copy: %+v", typ, c)
		}
		invCheck(t, s)
		invTxn(t, s, 0, []string{src}, func(tx *Txn) error { _, err := tx.Delete([]byte(src)); return err })
		if _, err := s.Collect(); err != nil {
			t.Fatal(err)
		}
		want := c.Size // a sub-key per element; a list packs them in nodes
		if typ == TypeList {
			want = 1
		}
		if invDataCount(t, s, m.ID) != 0 || uint64(invDataCount(t, s, c.ID)) < want {
			t.Fatalf("%s: original %d, copy %d sub-keys", typ, invDataCount(t, s, m.ID), invDataCount(t, s, c.ID))
		}
		invCheck(t, s)
	}
}
