package storage

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/util"
)

// ---- helpers shared by the invariant, rename, scan and reclaim tests (prefix inv) ----

// invCheck fails the test if the store's invariants do not hold.
func invCheck(t testing.TB, s *Store) {
	t.Helper()
	if err := CheckInvariants(s); err != nil {
		t.Fatalf("invariants: %v", err)
	}
}

// invTxn runs fn in a write transaction on db locking keys, and commits it.
func invTxn(t testing.TB, s *Store, db int, keys []string, fn func(tx *Txn) error) {
	t.Helper()
	var bk [][]byte
	for _, k := range keys {
		bk = append(bk, []byte(k))
	}
	tx := s.Begin(db, bk, true)
	if err := fn(tx); err != nil {
		tx.Abort()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// invFill creates a collection of type typ with n elements at key in db, in batches, and
// returns its metadata. Lists are built directly on the list layout.
func invFill(t testing.TB, s *Store, db int, key string, typ Type, n int) *Meta {
	t.Helper()
	const batch = 5000
	k := []byte(key)
	for done := 0; done < n; {
		end := min(done+batch, n)
		invTxn(t, s, db, []string{key}, func(tx *Txn) error {
			switch typ {
			case TypeHash:
				var pairs [][]byte
				for i := done; i < end; i++ {
					pairs = append(pairs, []byte(fmt.Sprintf("field:%08d", i)), []byte(fmt.Sprintf("value:%d", i)))
				}
				_, err := tx.HashSet(k, pairs, false)
				return err
			case TypeSet:
				var ms [][]byte
				for i := done; i < end; i++ {
					ms = append(ms, []byte(fmt.Sprintf("member:%08d", i)))
				}
				_, err := tx.SetAdd(k, ms)
				return err
			case TypeZSet:
				z, err := tx.ZSet(k)
				if err != nil {
					return err
				}
				for i := done; i < end; i++ {
					if _, err := z.Add([]byte(fmt.Sprintf("m:%08d", i)), float64(i%97)); err != nil {
						return err
					}
				}
				return z.Save()
			case TypeList:
				var vals [][]byte
				for i := done; i < end; i++ {
					vals = append(vals, []byte(fmt.Sprint(i)))
				}
				_, err := tx.ListPush(k, vals, false, false)
				return err
			}
			return fmt.Errorf("invFill: type %v", typ)
		})
		done = end
	}
	tx := s.Begin(db, [][]byte{k}, false)
	defer tx.Abort()
	m, err := tx.GetMeta(k)
	if err != nil || m == nil {
		t.Fatalf("invFill %q: %v %v", key, m, err)
	}
	return m
}

// invDataCount counts the sub-keys of object id on disk.
func invDataCount(t testing.TB, s *Store, id uint64) int {
	t.Helper()
	mustFlush(t, s)
	it := s.db().NewIterator(util.BytesPrefix(DataKey(nil, id, nil)), nil)
	defer it.Release()
	n := 0
	for it.Next() {
		n++
	}
	return n
}

// invGarbageLen counts the records of the garbage queue.
func invGarbageLen(t testing.TB, s *Store) int {
	t.Helper()
	mustFlush(t, s)
	it := s.db().NewIterator(util.BytesPrefix([]byte{tagGarbage}), nil)
	defer it.Release()
	n := 0
	for it.Next() {
		n++
	}
	return n
}

// invWorkload builds keys of every type, with and without expiry, in two databases.
func invWorkload(t testing.TB, s *Store) {
	t.Helper()
	future := time.Now().UnixMilli() + 3600_000
	for db := 0; db < 2; db++ {
		for i := 0; i < 20; i++ {
			key := fmt.Sprintf("str:%d", i)
			exp := int64(0)
			if i%3 == 0 {
				exp = future + int64(i)
			}
			invTxn(t, s, db, []string{key}, func(tx *Txn) error { return tx.SetString([]byte(key), []byte("v"), exp) })
		}
		for i, typ := range []Type{TypeHash, TypeSet, TypeZSet, TypeList} {
			key := fmt.Sprintf("coll:%s", typ)
			invFill(t, s, db, key, typ, 50+i)
			if i%2 == 0 {
				invTxn(t, s, db, []string{key}, func(tx *Txn) error {
					m, err := tx.GetMeta([]byte(key))
					if err != nil {
						return err
					}
					m.Expire = future
					return tx.PutMeta([]byte(key), m)
				})
			}
		}
	}
}

// ---- tests ----

func TestInvariantsHoldThroughAWorkload(t *testing.T) {
	s := openTest(t, false)
	invCheck(t, s)
	invWorkload(t, s)
	invCheck(t, s)

	// Overwrite and delete collections: their objects are queued, so the orphaned sub-keys are
	// covered, and after Collect they are gone.
	invTxn(t, s, 0, []string{"coll:hash", "coll:set"}, func(tx *Txn) error {
		if _, err := tx.Delete([]byte("coll:hash")); err != nil {
			return err
		}
		return tx.SetString([]byte("coll:set"), []byte("now a string"), 0)
	})
	invCheck(t, s)
	invTxn(t, s, 1, nil, func(tx *Txn) error { tx.FlushDB(1); return nil })
	invCheck(t, s)
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	invCheck(t, s)
	if n := invGarbageLen(t, s); n != 0 {
		t.Fatalf("garbage queue has %d records after Collect", n)
	}
	// Expire everything with an expiry, actively.
	invTxn(t, s, 0, []string{"coll:zset"}, func(tx *Txn) error {
		m, err := tx.GetMeta([]byte("coll:zset"))
		if err != nil {
			return err
		}
		m.Expire = time.Now().UnixMilli() - 1
		return tx.PutMeta([]byte("coll:zset"), m)
	})
	if _, err := s.ExpireStep(1000); err != nil {
		t.Fatal(err)
	}
	invCheck(t, s)
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	invCheck(t, s)
}

// TestInvariantsDetectViolations breaks the layout in each way the checker knows and expects
// a report naming it.
func TestInvariantsDetectViolations(t *testing.T) {
	cases := []struct {
		name   string
		want   string
		break_ func(t *testing.T, s *Store)
	}{
		{"size", "size 52, 51 sub-keys", func(t *testing.T, s *Store) {
			m := invMeta(t, s, "coll:set")
			m.Size++
			invRawMeta(t, s, "coll:set", m)
		}},
		{"zset index", "index entries", func(t *testing.T, s *Store) {
			m := invMeta(t, s, "coll:zset")
			if err := s.db().Delete(ZSetScoreKey(nil, m.ID, 0, []byte("m:00000000")), nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"list index", "outside", func(t *testing.T, s *Store) {
			m := invMeta(t, s, "coll:list")
			s.db().Put(DataKey(nil, m.ID, binary.BigEndian.AppendUint64(nil, m.Tail)), []byte("\x01\x01x"), nil)
		}},
		{"list head node", "the head node's key is", func(t *testing.T, s *Store) {
			m := invMeta(t, s, "coll:list")
			if err := s.db().Delete(DataKey(nil, m.ID, binary.BigEndian.AppendUint64(nil, m.First)), nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"list gap", "follows the node ending at", func(t *testing.T, s *Store) {
			m := invMeta(t, s, "coll:list")
			k := DataKey(nil, m.ID, binary.BigEndian.AppendUint64(nil, m.Last))
			v, err := s.db().Get(k, nil)
			if err != nil || m.Last == m.First {
				t.Fatalf("tail node: %v (last %d, first %d)", err, m.Last, m.First)
			}
			s.db().Delete(k, nil)
			s.db().Put(DataKey(nil, m.ID, binary.BigEndian.AppendUint64(nil, m.Last+1)), v, nil)
			m.Last, m.Tail = m.Last+1, m.Tail+1
			invRawMeta(t, s, "coll:list", m)
		}},
		{"missing expiry entry", "no expiry-index entry", func(t *testing.T, s *Store) {
			m := invMeta(t, s, "str:0")
			if err := s.db().Delete(expireKey(nil, m.Expire, s.dbmap[0], []byte("str:0")), nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"stale expiry entry", "no key", func(t *testing.T, s *Store) {
			s.db().Put(expireKey(nil, 12345, s.dbmap[0], []byte("nokey")), nil, nil)
		}},
		{"wrong expiry entry", "but the key expires at", func(t *testing.T, s *Store) {
			s.db().Put(expireKey(nil, 12345, s.dbmap[0], []byte("str:0")), nil, nil)
		}},
		{"counter", "counters say", func(t *testing.T, s *Store) {
			s.counterMu.Lock()
			s.keys[s.dbmap[0]]++
			s.counterMu.Unlock()
		}},
		{"orphan", "no key holds", func(t *testing.T, s *Store) {
			s.db().Put(DataKey(nil, 999999, []byte("orphan")), nil, nil)
		}},
		{"live object queued", "is queued as garbage", func(t *testing.T, s *Store) {
			m := invMeta(t, s, "coll:hash")
			tx := s.Begin(0, nil, true)
			tx.queueGarbage(garbageObject, m.ID)
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty collection", "empty", func(t *testing.T, s *Store) {
			id, _ := s.newID()
			invRawMeta(t, s, "emptyset", &Meta{Type: TypeSet, ID: id})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openTest(t, false)
			s.SetPackLimits(PackLimits{}) // the cases break records of the record layout
			invWorkload(t, s)
			invCheck(t, s)
			c.break_(t, s)
			err := CheckInvariants(s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a violation containing %q, got %v", c.want, err)
			}
		})
	}
}

func invMeta(t *testing.T, s *Store, key string) *Meta {
	t.Helper()
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	m, err := tx.GetMeta([]byte(key))
	if err != nil || m == nil {
		t.Fatalf("%q: %v %v", key, m, err)
	}
	c := *m
	return &c
}

// invRawMeta writes a metadata record directly, bypassing index and counters.
func invRawMeta(t *testing.T, s *Store, key string, m *Meta) {
	t.Helper()
	if err := s.db().Put(metaKey(nil, s.dbmap[0], []byte(key)), encodeMeta(nil, m), nil); err != nil {
		t.Fatal(err)
	}
}
