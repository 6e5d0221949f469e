package storage

import (
	"fmt"
	"strconv"
	"testing"
)

// BenchmarkListLayout measures the list operations redis-benchmark's list tests stress on a
// 200,000-element list of short elements: LRANGE 0 99 and 0 599 (one transaction each), LPUSH
// and LPOP of one element, for several list-max-listpack-size settings. Run with:
// go test ./storage/ -run '^$' -bench BenchmarkListLayout -benchmem
func BenchmarkListLayout(b *testing.B) {
	for _, fill := range []int64{-2, -1, 256, 128, 64, 32} {
		b.Run(fmt.Sprintf("fill=%d", fill), func(b *testing.B) { benchListLayout(b, fill) })
	}
}

func benchListLayout(b *testing.B, fill int64) {
	s, err := Open(Options{Dir: b.TempDir(), Databases: 1, DisableBackgrnd: true, BlockCache: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	s.SetListFill(fill)
	key := []byte("mylist")
	keys := [][]byte{key}
	vals := make([][]byte, 0, 1000)
	for i := 0; i < 200; i++ {
		vals = vals[:0]
		for j := 0; j < 1000; j++ {
			vals = append(vals, []byte(strconv.Itoa(i*1000+j)))
		}
		tx := s.Begin(0, keys, true)
		if _, err := tx.ListPush(key, vals, true, false); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.CompactAll(); err != nil {
		b.Fatal(err)
	}
	b.Run("LRANGE_0_99", func(b *testing.B) {
		for b.Loop() {
			tx := s.Begin(0, keys, false)
			n := 0
			err := tx.ListRange(key, 0, 99, func(int) {}, func([]byte) { n++ })
			tx.Abort()
			if err != nil || n != 100 {
				b.Fatalf("LRANGE 0 99: %d elements, %v", n, err)
			}
		}
	})
	b.Run("LRANGE_0_599", func(b *testing.B) {
		for b.Loop() {
			tx := s.Begin(0, keys, false)
			n := 0
			err := tx.ListRange(key, 0, 599, func(int) {}, func([]byte) { n++ })
			tx.Abort()
			if err != nil || n != 600 {
				b.Fatalf("LRANGE 0 599: %d elements, %v", n, err)
			}
		}
	})
	val := [][]byte{[]byte("xxx")}
	b.Run("LPUSH", func(b *testing.B) {
		for b.Loop() {
			tx := s.Begin(0, keys, true)
			if _, err := tx.ListPush(key, val, true, false); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LPOP", func(b *testing.B) {
		for b.Loop() {
			tx := s.Begin(0, keys, true)
			if _, err := tx.ListPop(key, true, 1); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
