package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/util"
)

// vlogOptions are the options of the value-log tests: values from 1 KiB go to the log, files
// of 64 KiB, so that a few writes make several files.
func vlogOptions(dir string) Options {
	return Options{Dir: dir, Databases: 4, DisableBackgrnd: true,
		LargeValueThreshold: 1024, ValueLogFileSize: 64 << 10}
}

func vlogOpen(t testing.TB, o Options) *Store {
	t.Helper()
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// vlogValue returns a deterministic value of n bytes for key k and version ver.
func vlogValue(k string, ver, n int) []byte {
	r := rand.New(rand.NewPCG(uint64(len(k))*7919+uint64(ver), uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	copy(b, k)
	return b
}

func vlogSet(t testing.TB, s *Store, db int, k string, v []byte, expire int64) {
	t.Helper()
	write(t, s, db, k, func(tx *Txn) error { return tx.SetString([]byte(k), v, expire) })
}

func vlogMeta(t testing.TB, s *Store, db int, k string) *Meta {
	t.Helper()
	tx := s.Begin(db, [][]byte{[]byte(k)}, false)
	defer tx.Abort()
	m, err := tx.rawMeta(tx.phys, []byte(k))
	if err != nil {
		t.Fatal(err)
	}
	if m != nil {
		m.Value = append([]byte(nil), m.Value...)
	}
	return m
}

func vlogLiveRecords(t testing.TB, s *Store) int {
	t.Helper()
	mustFlush(t, s)
	it := s.db().NewIterator(util.BytesPrefix(sysVLive), nil)
	defer it.Release()
	n := 0
	for it.Next() {
		n++
	}
	return n
}

func vlogFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, vlogDirName, "*.vlog"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func vlogCheck(t testing.TB, s *Store) {
	t.Helper()
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

func vlogExpect(t testing.TB, s *Store, db int, k string, want []byte) {
	t.Helper()
	tx := s.Begin(db, [][]byte{[]byte(k)}, false)
	defer tx.Abort()
	v, ok, err := tx.GetString([]byte(k))
	if err != nil {
		t.Fatalf("GET %s: %v", k, err)
	}
	if want == nil {
		if ok {
			t.Fatalf("%s exists (%d bytes), want absent", k, len(v))
		}
		return
	}
	if !ok || !bytes.Equal(v, want) {
		t.Fatalf("%s: %d bytes (exists %v), want %d bytes", k, len(v), ok, len(want))
	}
}

func TestVLogPointerRoundTrip(t *testing.T) {
	for _, p := range []vptr{{}, {file: 1, off: 24, n: 65536, crc: 0xdeadbeef},
		{file: 1<<32 - 1, off: 1<<62 - 1, n: 1 << 62, crc: 1<<32 - 1}} {
		b := encodeVPtr(nil, p)
		if len(b) != vlogPtrLen {
			t.Fatalf("%+v encodes to %d bytes", p, len(b))
		}
		q, err := decodeVPtr(b)
		if err != nil || q != p {
			t.Fatalf("round trip of %+v: %+v, %v", p, q, err)
		}
		m := &Meta{Type: TypeString, Enc: EncValueLog, Value: b}
		if got, ok := vptrOf(m); !ok || got != p || m.StringLen() != int(p.n) {
			t.Fatalf("vptrOf = %+v %v, StringLen %d", got, ok, m.StringLen())
		}
	}
	bad := [][]byte{nil, {1}, make([]byte, vlogPtrLen-1), make([]byte, vlogPtrLen+1),
		append([]byte{2}, make([]byte, vlogPtrLen-1)...)}
	overflow := encodeVPtr(nil, vptr{file: 1, off: 1 << 62, n: 1 << 62})
	overflow[5] = 0xff // offset past MaxInt64
	bad = append(bad, overflow)
	for _, b := range bad {
		if _, err := decodeVPtr(b); err == nil {
			t.Errorf("decodeVPtr(%x) accepted", b)
		}
	}
	k := vliveKey(7, 1234)
	e, ok := decodeVLive(k, vliveValue(vptr{file: 7, off: 1234, n: 99, crc: 5}, 3, []byte("key")))
	if !ok || e.p != (vptr{file: 7, off: 1234, n: 99, crc: 5}) || e.phys != 3 || string(e.key) != "key" {
		t.Fatalf("live record round trip: %+v %v", e, ok)
	}
}

func FuzzDecodeVLogPointer(f *testing.F) {
	f.Add(encodeVPtr(nil, vptr{file: 1, off: 24, n: 100, crc: 9}))
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, vlogPtrLen))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeVPtr(b)
		if err != nil {
			return
		}
		if p.off < 0 || p.n < 0 || p.off+p.n < p.off {
			t.Fatalf("decoded an impossible pointer %+v", p)
		}
		if !bytes.Equal(encodeVPtr(nil, p), b) {
			t.Fatalf("%x decodes to %+v, which encodes differently", b, p)
		}
		decodeVLive(append(vliveKey(0, 0)[:len(sysVLive)], b...), b) // must not panic
	})
}

func TestVLogWriteReadOverwriteDeleteExpire(t *testing.T) {
	dir := t.TempDir()
	o := vlogOptions(dir)
	o.ValueLogFileSize = 16 << 10
	s := vlogOpen(t, o)
	small := []byte("small value")
	big1 := vlogValue("big", 1, 20000)
	vlogSet(t, s, 0, "small", small, 0)
	vlogSet(t, s, 0, "big", big1, 0)
	edge := vlogValue("edge", 1, 1024) // exactly the threshold
	vlogSet(t, s, 0, "edge", edge, 0)
	vlogSet(t, s, 0, "under", vlogValue("under", 1, 1023), 0)
	if m := vlogMeta(t, s, 0, "small"); m.Enc != EncInline {
		t.Fatalf("small value encoding %d", m.Enc)
	}
	if m := vlogMeta(t, s, 0, "under"); m.Enc != EncInline {
		t.Fatalf("1023-byte value encoding %d", m.Enc)
	}
	for _, k := range []string{"big", "edge"} {
		m := vlogMeta(t, s, 0, k)
		if m.Enc != EncValueLog || len(m.Value) != vlogPtrLen {
			t.Fatalf("%s: encoding %d, %d-byte value", k, m.Enc, len(m.Value))
		}
	}
	vlogExpect(t, s, 0, "small", small)
	vlogExpect(t, s, 0, "big", big1)
	vlogExpect(t, s, 0, "edge", edge)

	// StringLen needs no read; ReadStringInto fills an exact buffer.
	tx := s.Begin(0, [][]byte{[]byte("big")}, false)
	m, err := tx.GetMetaOf([]byte("big"), TypeString)
	if err != nil || m.StringLen() != len(big1) {
		t.Fatalf("StringLen %d, %v", m.StringLen(), err)
	}
	dst := make([]byte, m.StringLen())
	if err := tx.ReadStringInto(m, dst); err != nil || !bytes.Equal(dst, big1) {
		t.Fatalf("ReadStringInto: %v", err)
	}
	if err := tx.ReadStringInto(m, dst[1:]); err == nil {
		t.Fatal("ReadStringInto into a short buffer succeeded")
	}
	tx.Abort()
	if n := vlogLiveRecords(t, s); n != 2 {
		t.Fatalf("%d live records, want 2", n)
	}
	vlogCheck(t, s)

	// Overwrite (large over large, small over large), delete, expire.
	big2 := vlogValue("big", 2, 30000)
	vlogSet(t, s, 0, "big", big2, 0)
	vlogExpect(t, s, 0, "big", big2)
	vlogSet(t, s, 0, "edge", []byte("now small"), 0)
	vlogExpect(t, s, 0, "edge", []byte("now small"))
	if n := vlogLiveRecords(t, s); n != 1 {
		t.Fatalf("%d live records after overwrites, want 1", n)
	}
	vlogSet(t, s, 0, "exp", vlogValue("exp", 1, 5000), time.Now().UnixMilli()+30)
	vlogSet(t, s, 0, "del", vlogValue("del", 1, 5000), 0)
	write(t, s, 0, "del", func(tx *Txn) error { _, err := tx.Delete([]byte("del")); return err })
	vlogExpect(t, s, 0, "del", nil)
	time.Sleep(50 * time.Millisecond)
	if _, err := s.ExpireStep(100); err != nil {
		t.Fatal(err)
	}
	vlogExpect(t, s, 0, "exp", nil)
	if n := vlogLiveRecords(t, s); n != 1 {
		t.Fatalf("%d live records after delete and expiry, want 1", n)
	}
	// EXPIRE-style rewrites keep the pointer.
	write(t, s, 0, "big", func(tx *Txn) error {
		m, err := tx.GetMeta([]byte("big"))
		if err != nil {
			return err
		}
		m.Expire = time.Now().UnixMilli() + 3600_000
		return tx.PutMeta([]byte("big"), m)
	})
	vlogExpect(t, s, 0, "big", big2)
	if n := vlogLiveRecords(t, s); n != 1 {
		t.Fatalf("%d live records after EXPIRE, want 1", n)
	}
	vlogCheck(t, s)

	// Everything but big2 is garbage: the collector leaves the active file and big2's.
	before := s.ValueLogStats()
	if n, err := s.CollectValueLog(); err != nil || n == 0 {
		t.Fatalf("CollectValueLog = %d, %v", n, err)
	}
	after := s.ValueLogStats()
	if after.Bytes >= before.Bytes || after.LiveBytes != int64(len(big2)) {
		t.Fatalf("value log before %+v, after %+v", before, after)
	}
	vlogExpect(t, s, 0, "big", big2)
	vlogCheck(t, s)

	// A clean restart trusts the files; the values are there.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, vlogDirName, vlogCleanName)); err != nil {
		t.Fatalf("no CLEAN marker after close: %v", err)
	}
	s = vlogOpen(t, o)
	defer s.Close()
	if _, err := os.Stat(filepath.Join(dir, vlogDirName, vlogCleanName)); !os.IsNotExist(err) {
		t.Fatalf("CLEAN marker still there after open: %v", err)
	}
	vlogExpect(t, s, 0, "big", big2)
	vlogExpect(t, s, 0, "small", small)
	vlogCheck(t, s)

	// With the threshold off, large values stay inline, and the old pointers still resolve.
	o.LargeValueThreshold = 0
	s.Close()
	s = vlogOpen(t, o)
	vlogSet(t, s, 0, "inline", vlogValue("inline", 1, 20000), 0)
	if m := vlogMeta(t, s, 0, "inline"); m.Enc != EncInline {
		t.Fatal("threshold 0 still offloads")
	}
	vlogExpect(t, s, 0, "big", big2)
	vlogCheck(t, s)
}

// lastRecord returns the file holding key's value and the offset of the key's record.
func vlogRecordOf(t testing.TB, s *Store, k string) (string, int64, vptr) {
	t.Helper()
	p, ok := vptrOf(vlogMeta(t, s, 0, k))
	if !ok {
		t.Fatalf("%s has no value-log pointer", k)
	}
	return filepath.Join(s.opts.Dir, vlogDirName, vlogFileName(p.file)), p.off - vlogRecHeader - int64(len(k)), p
}

func TestVLogTornTailIsDroppedWithItsKey(t *testing.T) {
	for _, damage := range []string{"truncate", "flip"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			o := vlogOptions(dir)
			o.ValueLogFileSize = 1 << 20
			s := vlogOpen(t, o)
			a, b := vlogValue("a", 1, 10000), vlogValue("b", 1, 10000)
			vlogSet(t, s, 0, "a", a, 0)
			vlogSet(t, s, 0, "b", b, 0)
			vlogSet(t, s, 0, "c", []byte("inline"), 0)
			path, recB, pb := vlogRecordOf(t, s, "b")
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			// A crash: no CLEAN marker, and b's record only partly on disk.
			os.Remove(filepath.Join(dir, vlogDirName, vlogCleanName))
			switch damage {
			case "truncate":
				if err := os.Truncate(path, pb.off+pb.n/2); err != nil {
					t.Fatal(err)
				}
			case "flip":
				f, err := os.OpenFile(path, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteAt([]byte{0x55 ^ b[5000]}, pb.off+5000)
				f.Close()
			}
			s = vlogOpen(t, o)
			defer s.Close()
			vlogExpect(t, s, 0, "a", a)
			vlogExpect(t, s, 0, "b", nil) // its pointer is gone with its value
			vlogExpect(t, s, 0, "c", []byte("inline"))
			if n := s.DBSize(0); n != 2 {
				t.Fatalf("DBSIZE %d, want 2", n)
			}
			if st, err := os.Stat(path); err != nil || st.Size() != recB {
				t.Fatalf("file after recovery: %v, size %d, want %d", err, st.Size(), recB)
			}
			vlogCheck(t, s)
			// Appends continue after the good records.
			b2 := vlogValue("b", 2, 10000)
			vlogSet(t, s, 0, "b", b2, 0)
			vlogExpect(t, s, 0, "b", b2)
			vlogCheck(t, s)
		})
	}
}

func TestVLogPointerIsCommittedAfterTheValue(t *testing.T) {
	s := vlogOpen(t, vlogOptions(t.TempDir()))
	defer s.Close()
	fail := errors.New("disk full")
	var sawMeta bool
	vlogWriteHook = func(p vptr) error {
		// The record is written; nothing refers to it yet, on disk or in the batch.
		if _, err := s.db().Get(metaKey(nil, s.dbmap[0], []byte("k")), nil); err == nil {
			sawMeta = true
		}
		if _, err := s.db().Get(vliveKey(p.file, p.off), nil); err == nil {
			sawMeta = true
		}
		return fail
	}
	defer func() { vlogWriteHook = nil }()
	tx := s.Begin(0, [][]byte{[]byte("k")}, true)
	err := tx.SetString([]byte("k"), vlogValue("k", 1, 5000), 0)
	tx.Abort()
	if !errors.Is(err, fail) {
		t.Fatalf("SetString = %v, want the write error", err)
	}
	if sawMeta {
		t.Fatal("a pointer existed before its value was written")
	}
	vlogExpect(t, s, 0, "k", nil)
	if n := vlogLiveRecords(t, s); n != 0 {
		t.Fatalf("%d live records after a failed write", n)
	}
	vlogWriteHook = nil
	v := vlogValue("k", 2, 5000)
	vlogSet(t, s, 0, "k", v, 0)
	vlogExpect(t, s, 0, "k", v)
	vlogCheck(t, s)
}

func TestVLogFsyncModes(t *testing.T) {
	for _, mode := range []string{"always", "everysec", "no"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			o := vlogOptions(dir)
			o.Fsync = mode
			s := vlogOpen(t, o)
			for i := 0; i < 20; i++ {
				vlogSet(t, s, 0, fmt.Sprint("k", i), vlogValue("k", i, 9000), 0)
			}
			if mode == "always" && s.vlog.unsynced() != 0 {
				t.Fatalf("%d bytes unsynced with appendfsync always", s.vlog.unsynced())
			}
			s.vlog.sync()
			if s.vlog.unsynced() != 0 || s.vlog.sealed == 0 {
				t.Fatalf("after sync: %d unsynced, sealed mark %d", s.vlog.unsynced(), s.vlog.sealed)
			}
			// A flush seals the active file: it is synced, and appends go on in a new one.
			vlogSet(t, s, 0, "k0", vlogValue("k", 0, 9000), 0)
			act := s.vlog.actNum.Load()
			if err := s.vlog.flush(); err != nil {
				t.Fatal(err)
			}
			if s.vlog.unsynced() != 0 || s.vlog.sealed != act {
				t.Fatalf("after flush: %d unsynced, sealed mark %d, want %d", s.vlog.unsynced(), s.vlog.sealed, act)
			}
			vlogSet(t, s, 0, "k1", vlogValue("k", 1, 9000), 0)
			if p, _ := vptrOf(vlogMeta(t, s, 0, "k1")); p.file != act+1 {
				t.Fatalf("append after a flush went to file %d, want %d", p.file, act+1)
			}
			s.Close()
			os.Remove(filepath.Join(dir, vlogDirName, vlogCleanName))
			s = vlogOpen(t, o)
			defer s.Close()
			for i := 0; i < 20; i++ {
				vlogExpect(t, s, 0, fmt.Sprint("k", i), vlogValue("k", i, 9000))
			}
			vlogCheck(t, s)
		})
	}
}
