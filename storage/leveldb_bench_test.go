package storage

import (
	"fmt"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// The raw LevelDB benchmarks measure goleveldb alone, with Strata's options and without
// Strata's layers above it: one Put per operation (a journal record and a memtable insert),
// as each SET commits. They bound what any command that writes can reach.

// rawDB opens a LevelDB with Strata's default write buffer and block cache, closed when b ends.
func rawDB(b *testing.B) *leveldb.DB {
	db, err := leveldb.OpenFile(b.TempDir(), &opt.Options{WriteBuffer: 64 << 20, NoWriteMerge: true,
		BlockCacheCapacity: 256 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func benchRawPut(b *testing.B, key func(i int) []byte) {
	db := rawDB(b)
	val := []byte("xxx")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := db.Put(key(i), val, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawLevelDBPutSameKey writes one key over and over, as redis-benchmark's SET does.
func BenchmarkRawLevelDBPutSameKey(b *testing.B) {
	k := []byte("key:__rand_int__")
	benchRawPut(b, func(int) []byte { return k })
}

// BenchmarkRawLevelDBPutRandom writes keys drawn from a million, as SET with -r 1000000 does.
func BenchmarkRawLevelDBPutRandom(b *testing.B) {
	keys := make([][]byte, 1<<20)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key:%012d", (i*7919)%1000000))
	}
	benchRawPut(b, func(i int) []byte { return keys[i&(1<<20-1)] })
}

// BenchmarkRawLevelDBGet reads one key that was written many times, as redis-benchmark's GET
// does after its SET test.
func BenchmarkRawLevelDBGet(b *testing.B) {
	db := rawDB(b)
	k, val := []byte("key:__rand_int__"), []byte("xxx")
	for range 200000 {
		if err := db.Put(k, val, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := db.Get(k, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawLevelDBRange100 reads 100 consecutive records with an iterator, the records
// LRANGE 0 99 reads from a list of 600 elements.
func BenchmarkRawLevelDBRange100(b *testing.B) {
	db := rawDB(b)
	for i := range 600 {
		if err := db.Put([]byte(fmt.Sprintf("l:mylist:%08d", i)), []byte("xxx"), nil); err != nil {
			b.Fatal(err)
		}
	}
	start := []byte("l:mylist:00000000")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		it := db.NewIterator(nil, nil)
		n := 0
		for ok := it.Seek(start); ok && n < 100; ok = it.Next() {
			n++
		}
		it.Release()
		if n != 100 {
			b.Fatal(n)
		}
	}
}
