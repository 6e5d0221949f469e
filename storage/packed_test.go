package storage

import (
	"fmt"
	"strings"
	"testing"
)

// wantEnc fails unless key has encoding enc, records data records and size elements.
func wantEnc(t *testing.T, s *Store, key string, enc byte, records int, size uint64) {
	t.Helper()
	m := invMeta(t, s, key)
	if n := countData(t, s, m.ID); m.Enc != enc || n != records || m.Size != size {
		t.Fatalf("%q: encoding %d, %d records, size %d; want %d, %d, %d", key, m.Enc, n, m.Size, enc, records, size)
	}
	invCheck(t, s)
}

func hset(t *testing.T, s *Store, key string, nx bool, pairs ...string) int64 {
	t.Helper()
	var n int64
	invTxn(t, s, 0, []string{key}, func(tx *Txn) (err error) {
		n, err = tx.HashSet([]byte(key), bs(pairs...), nx)
		return err
	})
	return n
}

func hfields(t *testing.T, s *Store, key string) string {
	t.Helper()
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	m, err := tx.GetMetaOf([]byte(key), TypeHash)
	if err != nil || m == nil {
		t.Fatalf("%q: %v %v", key, m, err)
	}
	var out []string
	if err := tx.HashEach(m, func(f, v []byte) bool { out = append(out, string(f)+"="+string(v)); return true }); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func TestPackedHashEntriesThreshold(t *testing.T) {
	s := openTest(t, false)
	s.SetPackLimits(PackLimits{HashEntries: 4, HashValue: 8})
	if n := hset(t, s, "h", false, "b", "1", "a", "2", "", "empty", "b", "3"); n != 3 {
		t.Fatalf("HashSet added %d, want 3", n)
	}
	wantEnc(t, s, "h", EncPacked, 1, 3)
	// Insertion order, and an overwritten field keeps its place, as a listpack does.
	if got := hfields(t, s, "h"); got != "b=3 a=2 =empty" {
		t.Fatalf("fields %q", got)
	}
	hset(t, s, "h", false, "c", "4")
	wantEnc(t, s, "h", EncPacked, 1, 4)
	hset(t, s, "h", false, "d", "5") // the fifth field converts
	wantEnc(t, s, "h", EncRecords, 5, 5)
	if got := hfields(t, s, "h"); got != "=empty a=2 b=3 c=4 d=5" {
		t.Fatalf("fields after conversion %q", got)
	}
	invTxn(t, s, 0, []string{"h"}, func(tx *Txn) error {
		n, err := tx.HashDel([]byte("h"), bs("a", "b", "c", "d", "zz"))
		if n != 4 {
			t.Errorf("HashDel = %d, want 4", n)
		}
		return err
	})
	wantEnc(t, s, "h", EncRecords, 1, 1) // never converts back
	tx := s.Begin(0, nil, false)
	v, ok, err := tx.HashGet([]byte("h"), nil)
	tx.Abort()
	if err != nil || !ok || string(v) != "empty" {
		t.Fatalf("HashGet(\"\") = %q %v %v", v, ok, err)
	}
}

func TestPackedHashValueThreshold(t *testing.T) {
	s := openTest(t, false)
	s.SetPackLimits(PackLimits{HashEntries: 10, HashValue: 8})
	hset(t, s, "h", false, "f", "12345678")
	wantEnc(t, s, "h", EncPacked, 1, 1)
	// HSETNX of a field that exists, with a value too long: nothing is set or converted.
	if n := hset(t, s, "h", true, "f", "123456789"); n != 0 {
		t.Fatalf("nx set added %d", n)
	}
	wantEnc(t, s, "h", EncPacked, 1, 1)
	hset(t, s, "h", false, "f", "123456789")
	wantEnc(t, s, "h", EncRecords, 1, 1)
	if got := hfields(t, s, "h"); got != "f=123456789" {
		t.Fatalf("fields %q", got)
	}
	hset(t, s, "g", false, "123456789", "v") // a long field converts too
	wantEnc(t, s, "g", EncRecords, 1, 1)
}

// TestPackedHashLimitChanges: a new threshold applies to the writes after it, in both
// directions.
func TestPackedHashLimitChanges(t *testing.T) {
	s := openTest(t, false)
	for i := 0; i < 6; i++ {
		hset(t, s, "h", false, fmt.Sprint("f", i), "v")
	}
	wantEnc(t, s, "h", EncPacked, 1, 6)
	s.SetPackLimits(PackLimits{HashEntries: 3, HashValue: 64})
	wantEnc(t, s, "h", EncPacked, 1, 6) // untouched until written
	invTxn(t, s, 0, []string{"h"}, func(tx *Txn) error { _, err := tx.HashDel([]byte("h"), bs("f0")); return err })
	wantEnc(t, s, "h", EncPacked, 1, 5) // a delete never converts
	hset(t, s, "h", false, "f1", "w")   // an overwrite past the threshold converts
	wantEnc(t, s, "h", EncRecords, 5, 5)

	s.SetPackLimits(PackLimits{})
	hset(t, s, "zero", false, "a", "1")
	wantEnc(t, s, "zero", EncRecords, 1, 1)
	s.SetPackLimits(DefaultPackLimits)
	hset(t, s, "zero", false, "b", "1")
	wantEnc(t, s, "zero", EncRecords, 2, 2) // a converted hash stays so
	hset(t, s, "new", false, "b", "1")
	wantEnc(t, s, "new", EncPacked, 1, 1)
}

func TestPackedHashDeleteAndCopy(t *testing.T) {
	s := openTest(t, false)
	hset(t, s, "h", false, "a", "1", "b", "2")
	invTxn(t, s, 0, []string{"h", "c"}, func(tx *Txn) error {
		m, err := tx.GetMeta([]byte("h"))
		if err != nil {
			return err
		}
		cp := *m
		if cp.ID, err = tx.CopyData(m); err != nil {
			return err
		}
		return tx.PutMeta([]byte("c"), &cp)
	})
	wantEnc(t, s, "c", EncPacked, 1, 2)
	invTxn(t, s, 0, []string{"h"}, func(tx *Txn) error {
		_, err := tx.HashDel([]byte("h"), bs("a", "b"))
		return err
	})
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	invCheck(t, s)
	if got := hfields(t, s, "c"); got != "a=1 b=2" {
		t.Fatalf("copy %q", got)
	}
}

func TestPackWriter(t *testing.T) {
	s := openTest(t, false)
	s.SetPackLimits(PackLimits{HashEntries: 2, HashValue: 4})
	for _, tc := range []struct {
		key   string
		pairs []string
		enc   byte
		recs  int
	}{
		{"small", []string{"a", "1", "b", "2"}, EncPacked, 1},
		{"many", []string{"a", "1", "b", "2", "c", "3"}, EncRecords, 3},
		{"long", []string{"a", "12345"}, EncRecords, 1},
	} {
		invTxn(t, s, 0, []string{tc.key}, func(tx *Txn) error {
			id, err := tx.NewID()
			if err != nil {
				return err
			}
			w := tx.NewPackWriter(TypeHash, id)
			for i := 0; i < len(tc.pairs); i += 2 {
				if ok, err := w.Add(tx, []byte(tc.pairs[i]), []byte(tc.pairs[i+1]), 0); err != nil || !ok {
					t.Fatalf("%s: Add = %v %v", tc.key, ok, err)
				}
			}
			if ok, _ := w.Add(tx, []byte("a"), []byte("x"), 0); ok {
				t.Errorf("%s: a duplicate field was taken", tc.key)
			}
			m := &Meta{Type: TypeHash}
			w.Finish(tx, m)
			return tx.PutMeta([]byte(tc.key), m)
		})
		wantEnc(t, s, tc.key, tc.enc, tc.recs, uint64(len(tc.pairs)/2))
	}
}

// TestMetaEncodingByte: a collection of the record layout keeps format 2's metadata record,
// so directories written before packed collections read as they are.
func TestMetaEncodingByte(t *testing.T) {
	for _, enc := range []byte{EncRecords, EncPacked} {
		m := Meta{Type: TypeHash, ID: 7, Size: 3, Enc: enc}
		b := encodeMeta(nil, &m)
		if want := metaHeader + 16 + int(enc); len(b) != want {
			t.Fatalf("enc %d: %d bytes, want %d", enc, len(b), want)
		}
		var got Meta
		if err := decodeMeta(b, &got); err != nil || got.Type != m.Type || got.ID != m.ID || got.Size != m.Size || got.Enc != m.Enc {
			t.Fatalf("enc %d: decoded %+v, %v", enc, got, err)
		}
	}
	bad := append(encodeMeta(nil, &Meta{Type: TypeSet, ID: 1, Size: 1}), 9)
	if decodeMeta(bad, new(Meta)) == nil {
		t.Fatal("an unknown encoding byte decoded")
	}
}

func sadd(t *testing.T, s *Store, key string, members ...string) int64 {
	t.Helper()
	var n int64
	invTxn(t, s, 0, []string{key}, func(tx *Txn) (err error) {
		n, err = tx.SetAdd([]byte(key), bs(members...))
		return err
	})
	return n
}

func smembers(t *testing.T, s *Store, key string) string {
	t.Helper()
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	m, err := tx.GetMetaOf([]byte(key), TypeSet)
	if err != nil || m == nil {
		t.Fatalf("%q: %v %v", key, m, err)
	}
	var out []string
	if err := tx.SetEach(m, func(mem []byte) bool { out = append(out, string(mem)); return true }); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func TestPackedSetIntsetThreshold(t *testing.T) {
	s := openTest(t, false)
	s.SetPackLimits(PackLimits{SetIntEntries: 4})
	if n := sadd(t, s, "s", "10", "-3", "2", "10"); n != 3 {
		t.Fatalf("SetAdd = %d, want 3", n)
	}
	wantEnc(t, s, "s", EncPacked, 1, 3)
	if got := smembers(t, s, "s"); got != "-3 2 10" {
		t.Fatalf("members %q, want numeric order", got)
	}
	sadd(t, s, "s", "9223372036854775807")
	wantEnc(t, s, "s", EncPacked, 1, 4)
	sadd(t, s, "s", "5") // the fifth member converts
	wantEnc(t, s, "s", EncRecords, 5, 5)

	for _, m := range []string{"x", "01", "+1", "-0", "9223372036854775808", " 1"} {
		sadd(t, s, "n"+m, "1")
		wantEnc(t, s, "n"+m, EncPacked, 1, 1)
		sadd(t, s, "n"+m, m) // not an integer Redis would keep in an intset
		wantEnc(t, s, "n"+m, EncRecords, 2, 2)
	}
	sadd(t, s, "x", "a")
	wantEnc(t, s, "x", EncRecords, 1, 1)
}

func TestPackedSetOps(t *testing.T) {
	s := openTest(t, false)
	sadd(t, s, "a", "3", "1", "2", "20")
	sadd(t, s, "b", "2", "3", "4")
	sadd(t, s, "c", "10", "x", "2") // records
	wantEnc(t, s, "c", EncRecords, 3, 3)
	tx := s.Begin(0, nil, false)
	for _, tc := range []struct {
		op   SetOp
		keys []string
		want string
	}{
		{SetInter, []string{"a", "b"}, "2 3"},
		{SetInter, []string{"a", "b", "c"}, "2"},
		{SetUnion, []string{"a", "c"}, "1 10 2 20 3 x"},
		{SetDiff, []string{"a", "b", "c"}, "1 20"},
		{SetDiff, []string{"c", "a"}, "10 x"},
	} {
		var out []string
		if err := tx.SetCombine(tc.op, bs(tc.keys...), func(m []byte) bool { out = append(out, string(m)); return true }); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(out, " "); got != tc.want {
			t.Errorf("op %d %v = %q, want %q", tc.op, tc.keys, got, tc.want)
		}
	}
	tx.Abort()
	invTxn(t, s, 0, []string{"a", "d"}, func(tx *Txn) error {
		if ok, err := tx.SetMove([]byte("a"), []byte("d"), []byte("20")); err != nil || !ok {
			t.Errorf("SetMove = %v %v", ok, err)
		}
		if n, err := tx.SetStore([]byte("e"), bs("7", "-7", "0")); err != nil || n != 3 {
			t.Errorf("SetStore = %d %v", n, err)
		}
		return nil
	})
	wantEnc(t, s, "a", EncPacked, 1, 3)
	wantEnc(t, s, "d", EncPacked, 1, 1)
	wantEnc(t, s, "e", EncPacked, 1, 3)
	if got := smembers(t, s, "e"); got != "-7 0 7" {
		t.Fatalf("stored %q", got)
	}
	invTxn(t, s, 0, []string{"a"}, func(tx *Txn) error {
		out, err := tx.SetPop([]byte("a"), 2)
		if len(out) != 2 {
			t.Errorf("SetPop gave %q", out)
		}
		return err
	})
	wantEnc(t, s, "a", EncPacked, 1, 1)
	invTxn(t, s, 0, []string{"a"}, func(tx *Txn) error {
		n, err := tx.SetRem([]byte("a"), bs("1", "2", "3"))
		if n != 1 {
			t.Errorf("SetRem = %d", n)
		}
		return err
	})
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	invCheck(t, s)
}

// zrange returns the members of zset key in score order with their scores.
func zrange(t *testing.T, s *Store, key string) string {
	t.Helper()
	tx := s.Begin(0, nil, false)
	defer tx.Abort()
	z, err := tx.ZSet([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if err := z.Scan(false, func(m []byte, sc float64) bool { out = append(out, fmt.Sprintf("%s=%g", m, sc)); return true }); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func zadd(t *testing.T, s *Store, key string, kv ...any) {
	t.Helper()
	invTxn(t, s, 0, []string{key}, func(tx *Txn) error {
		z, err := tx.ZSet([]byte(key))
		if err != nil {
			return err
		}
		for i := 0; i < len(kv); i += 2 {
			if _, err := z.Add([]byte(kv[i].(string)), kv[i+1].(float64)); err != nil {
				return err
			}
		}
		return z.Save()
	})
}

func TestPackedZSetThresholds(t *testing.T) {
	s := openTest(t, false)
	s.SetPackLimits(PackLimits{ZSetEntries: 4, ZSetValue: 4})
	zadd(t, s, "z", "b", 2.0, "a", 2.0, "c", -1.0, "b", 0.5)
	wantEnc(t, s, "z", EncPacked, 1, 3)
	if got := zrange(t, s, "z"); got != "c=-1 b=0.5 a=2" {
		t.Fatalf("packed order %q", got)
	}
	tx := s.Begin(0, nil, false)
	z, _ := tx.ZSet([]byte("z"))
	r, ok, _ := z.Rank([]byte("b"), false)
	rr, _, _ := z.Rank([]byte("b"), true)
	n, _ := z.CountByScore(ScoreRange{Min: 0, Max: 2, MinEx: true})
	var window []string
	z.RangeByRank(1, 2, true, func(m []byte, _ float64) bool { window = append(window, string(m)); return true })
	var mem []string
	z.Members(func(m []byte, _ float64) bool { mem = append(mem, string(m)); return true })
	tx.Abort()
	if r != 1 || !ok || rr != 1 || n != 2 || fmt.Sprint(window) != "[b c]" || fmt.Sprint(mem) != "[a b c]" {
		t.Fatalf("rank %d %v, reverse %d, count %d, window %v, members %v", r, ok, rr, n, window, mem)
	}
	zadd(t, s, "z", "d", 3.0)
	wantEnc(t, s, "z", EncPacked, 1, 4)
	zadd(t, s, "z", "e", 4.0) // the fifth member converts
	wantEnc(t, s, "z", EncRecords, 10, 5)
	if got := zrange(t, s, "z"); got != "c=-1 b=0.5 a=2 d=3 e=4" {
		t.Fatalf("converted order %q", got)
	}
	zadd(t, s, "long", "x", 1.0)
	zadd(t, s, "long", "12345", 1.0) // a member longer than the value threshold converts
	wantEnc(t, s, "long", EncRecords, 4, 2)

	invTxn(t, s, 0, []string{"p"}, func(tx *Txn) error {
		_, err := tx.ZStore([]byte("p"), []ZEntry{{[]byte("y"), 2}, {[]byte("x"), 1}})
		return err
	})
	wantEnc(t, s, "p", EncPacked, 1, 2)
	invTxn(t, s, 0, []string{"p"}, func(tx *Txn) error {
		z, err := tx.ZSet([]byte("p"))
		if err != nil {
			return err
		}
		if es, err := z.Pop(false, 1); err != nil || len(es) != 1 || string(es[0].Member) != "x" {
			t.Errorf("Pop = %v %v", es, err)
		}
		return z.Save()
	})
	wantEnc(t, s, "p", EncPacked, 1, 1)
	invTxn(t, s, 0, []string{"p"}, func(tx *Txn) error {
		z, err := tx.ZSet([]byte("p"))
		if err != nil {
			return err
		}
		z.Remove([]byte("y"))
		return z.Save()
	})
	tx = s.Begin(0, nil, false)
	m, _ := tx.GetMeta([]byte("p"))
	tx.Abort()
	if m != nil {
		t.Fatalf("emptied zset remains: %+v", m)
	}
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	invCheck(t, s)
}

// TestFormat2CollectionsStayReadable opens a format-2 directory whose hash, set and sorted set
// have one record per element (16-byte collection metadata): they read and write as they are,
// keep that layout, and the directory is marked with the new format.
func TestFormat2CollectionsStayReadable(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, Databases: 1, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	s.SetPackLimits(PackLimits{})
	hset(t, s, "h", false, "b", "2", "a", "1")
	sadd(t, s, "s", "1", "2")
	zadd(t, s, "z", "m", 1.0)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"h", "s", "z"} {
		b, err := s.db().Get(metaKey(nil, s.dbmap[0], []byte(k)), nil)
		if err != nil || len(b) != metaHeader+16 {
			t.Fatalf("%s: metadata of %d bytes, want format 2's %d (%v)", k, len(b), metaHeader+16, err)
		}
	}
	if err := s.db().Put(sysFormat, []byte("2"), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(Options{Dir: dir, Databases: 1, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.db().Get(sysFormat, nil); string(v) != fmt.Sprint(FormatVersion) {
		t.Fatalf("format = %q", v)
	}
	hset(t, s, "h", false, "c", "3")
	sadd(t, s, "s", "3")
	zadd(t, s, "z", "n", 2.0)
	wantEnc(t, s, "h", EncRecords, 3, 3)
	wantEnc(t, s, "s", EncRecords, 3, 3)
	wantEnc(t, s, "z", EncRecords, 4, 2)
	if got := hfields(t, s, "h"); got != "a=1 b=2 c=3" {
		t.Fatalf("hash %q", got)
	}
	if got := zrange(t, s, "z"); got != "m=1 n=2" {
		t.Fatalf("zset %q", got)
	}
}
