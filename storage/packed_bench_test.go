package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkPacked measures the commands of small collections in both layouts: packed (Redis's
// default thresholds) and one record per element (every threshold 0). Each operation is one
// transaction, committed and flushed as the server does after a command, on one of 10,000
// collections of 10 short elements, compacted first. Run with:
// go test ./storage/ -run '^$' -bench BenchmarkPacked -benchmem
func BenchmarkPacked(b *testing.B) {
	for _, layout := range []struct {
		name string
		lim  PackLimits
	}{{"packed", DefaultPackLimits}, {"records", PackLimits{}}} {
		b.Run(layout.name, func(b *testing.B) { benchPacked(b, layout.lim) })
	}
}

const (
	benchKeys  = 10_000
	benchElems = 10
)

func benchStore(b *testing.B, lim PackLimits) *Store {
	s, err := Open(Options{Dir: b.TempDir(), Databases: 1, DisableBackgrnd: true, BlockCache: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	s.SetPackLimits(lim)
	return s
}

// benchOp runs fn in one transaction over key, committing and flushing writes.
func benchOp(b *testing.B, s *Store, key []byte, write bool, fn func(tx *Txn) error) {
	tx := s.Begin(0, [][]byte{key}, write)
	if err := fn(tx); err != nil {
		b.Fatal(err)
	}
	if !write {
		tx.Abort()
		return
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
}

func benchPacked(b *testing.B, lim PackLimits) {
	s := benchStore(b, lim)
	key := func(kind string, i int) []byte { return []byte(kind + ":" + strconv.Itoa(i%benchKeys)) }
	for i := 0; i < benchKeys; i++ {
		benchOp(b, s, key("h", i), true, func(tx *Txn) error {
			var pairs [][]byte
			for j := 0; j < benchElems; j++ {
				pairs = append(pairs, []byte("field"+strconv.Itoa(j)), []byte("value"+strconv.Itoa(j)))
			}
			_, err := tx.HashSet(key("h", i), pairs, false)
			return err
		})
		benchOp(b, s, key("s", i), true, func(tx *Txn) error {
			var ms [][]byte
			for j := 0; j < benchElems; j++ {
				ms = append(ms, []byte(strconv.Itoa(1000+j)))
			}
			_, err := tx.SetAdd(key("s", i), ms)
			return err
		})
		benchOp(b, s, key("z", i), true, func(tx *Txn) error {
			z, err := tx.ZSet(key("z", i))
			if err != nil {
				return err
			}
			for j := 0; j < benchElems; j++ {
				z.Add([]byte("member"+strconv.Itoa(j)), float64(j))
			}
			return z.Save()
		})
	}
	if err := s.CompactAll(); err != nil {
		b.Fatal(err)
	}
	field, val := []byte("field5"), []byte("value-x")
	run := func(name string, write bool, fn func(tx *Txn, k []byte) error, kind string) {
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				k := key(kind, i)
				benchOp(b, s, k, write, func(tx *Txn) error { return fn(tx, k) })
				i++
			}
		})
	}
	// TYPE reads the metadata only: the floor of a read of a design that packs the elements
	// into the metadata record.
	run("TYPE", false, func(tx *Txn, k []byte) error {
		_, err := tx.GetMeta(k)
		return err
	}, "h")
	run("HSET", true, func(tx *Txn, k []byte) error {
		_, err := tx.HashSet(k, [][]byte{field, val}, false)
		return err
	}, "h")
	run("HGET", false, func(tx *Txn, k []byte) error {
		_, ok, err := tx.HashGet(k, field)
		if !ok {
			b.Fatal("HGET: no field")
		}
		return err
	}, "h")
	run("HGETALL", false, func(tx *Txn, k []byte) error {
		m, err := tx.GetMetaOf(k, TypeHash)
		if err != nil {
			return err
		}
		n := 0
		err = tx.HashEach(m, func(_, _ []byte) bool { n++; return true })
		if n != benchElems {
			b.Fatalf("HGETALL: %d fields", n)
		}
		return err
	}, "h")
	member := []byte("1005")
	run("SADD", true, func(tx *Txn, k []byte) error {
		_, err := tx.SetAdd(k, [][]byte{member})
		return err
	}, "s")
	run("SISMEMBER", false, func(tx *Txn, k []byte) error {
		ok, err := tx.SetIsMember(k, member)
		if !ok {
			b.Fatal("SISMEMBER: no member")
		}
		return err
	}, "s")
	run("SMEMBERS", false, func(tx *Txn, k []byte) error {
		m, err := tx.GetMetaOf(k, TypeSet)
		if err != nil {
			return err
		}
		return tx.SetEach(m, func([]byte) bool { return true })
	}, "s")
	score := 0.0
	run("ZADD", true, func(tx *Txn, k []byte) error {
		z, err := tx.ZSet(k)
		if err != nil {
			return err
		}
		score++
		if _, err := z.Add([]byte("member5"), score); err != nil {
			return err
		}
		return z.Save()
	}, "z")
	run("ZRANGE", false, func(tx *Txn, k []byte) error {
		z, err := tx.ZSet(k)
		if err != nil {
			return err
		}
		n := 0
		err = z.RangeByRank(0, z.Len()-1, false, func([]byte, float64) bool { n++; return true })
		if n != benchElems {
			b.Fatalf("ZRANGE: %d members", n)
		}
		return err
	}, "z")
}

// BenchmarkPackedHashDisk writes 100,000 hashes of 10 short fields in each layout, compacts
// the database and reports its LevelDB files' size. Run with:
// go test ./storage/ -run '^$' -bench BenchmarkPackedHashDisk -benchtime 1x
func BenchmarkPackedHashDisk(b *testing.B) {
	for _, layout := range []struct {
		name string
		lim  PackLimits
	}{{"packed", DefaultPackLimits}, {"records", PackLimits{}}} {
		b.Run(layout.name, func(b *testing.B) {
			for b.Loop() {
				dir := b.TempDir()
				s, err := Open(Options{Dir: dir, Databases: 1, DisableBackgrnd: true, BlockCache: 8 << 20})
				if err != nil {
					b.Fatal(err)
				}
				s.SetPackLimits(layout.lim)
				const hashes = 100_000
				for i := 0; i < hashes; i += 100 {
					var keys [][]byte
					for j := i; j < i+100; j++ {
						keys = append(keys, []byte(fmt.Sprintf("user:%08d", j)))
					}
					tx := s.Begin(0, keys, true)
					for j, k := range keys {
						var pairs [][]byte
						for f := 0; f < benchElems; f++ {
							pairs = append(pairs, []byte("field"+strconv.Itoa(f)), []byte(strconv.Itoa((i+j)*benchElems+f)))
						}
						if _, err := tx.HashSet(k, pairs, false); err != nil {
							b.Fatal(err)
						}
					}
					if err := tx.Commit(); err != nil {
						b.Fatal(err)
					}
				}
				if err := s.Flush(); err != nil {
					b.Fatal(err)
				}
				if err := s.CompactAll(); err != nil {
					b.Fatal(err)
				}
				size := ldbSize(b, dir)
				s.Close()
				b.ReportMetric(float64(size), "ldb-bytes")
				b.ReportMetric(float64(size)/hashes, "bytes/hash")
			}
		})
	}
}

// ldbSize returns the bytes of the LevelDB table files under dir.
func ldbSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && filepath.Ext(p) == ".ldb" {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}
