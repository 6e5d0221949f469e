package commands

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/strata-db/strata/storage"
)

// streamBenchN is the length of the stream and of the list BenchmarkStreamVsList compares
// (STRATA_BENCH_STREAM_N overrides it).
func streamBenchN(b *testing.B) int {
	if s := os.Getenv("STRATA_BENCH_STREAM_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 200 {
			b.Fatalf("STRATA_BENCH_STREAM_N=%q", s)
		}
		return n
	}
	return 10_000_000
}

// loadStreamAndList fills stream "s" and list "l" with n entries each, 10,000 a transaction,
// straight through storage.
func loadStreamAndList(b *testing.B, st *storage.Store, n int) {
	val := []byte("xxx")
	fv := [][]byte{[]byte("f"), val}
	lim := storage.DefaultStreamLimits
	vals := make([][]byte, 10000)
	for i := range vals {
		vals[i] = val
	}
	for done := 0; done < n; done += len(vals) {
		k := min(len(vals), n-done)
		t := st.Begin(0, [][]byte{[]byte("s"), []byte("l")}, true)
		m, err := t.StreamMetaOf([]byte("s"))
		if err == nil && m == nil {
			m, err = t.NewStream()
		}
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < k; i++ {
			if err := t.StreamAppend(m, storage.StreamID{Ms: uint64(done + i + 1)}, fv, lim); err != nil {
				b.Fatal(err)
			}
		}
		if err := t.PutMeta([]byte("s"), m); err != nil {
			b.Fatal(err)
		}
		if _, err := t.ListPush([]byte("l"), vals[:k], false, false); err != nil {
			b.Fatal(err)
		}
		if err := t.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.CompactAll(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStreamVsList compares, through the dispatcher, a stream of n entries with a list
// of n elements: XADD with RPUSH, XRANGE of 100 entries (from the start, from the middle) with
// LRANGE 0 99 and a 100-element LRANGE in the middle. The store's pending commits are written
// to LevelDB after every 16 commands, as the server writes them after a pass over a client's
// pipeline of 16 (redis-benchmark -P 16); STRATA_BENCH_FLUSH_EVERY sets another interval.
func BenchmarkStreamVsList(b *testing.B) {
	n := streamBenchN(b)
	flushEvery := 16
	if s := os.Getenv("STRATA_BENCH_FLUSH_EVERY"); s != "" {
		flushEvery, _ = strconv.Atoi(s)
		flushEvery = max(flushEvery, 1)
	}
	c, run := benchCtx(b)
	run([]byte("PING")) // sets c.Store
	loadStreamAndList(b, c.Store, n)
	mid := strconv.Itoa(n / 2)
	midEnd := strconv.Itoa(n/2 + 99)
	bench := func(name string, args ...string) {
		argv := make([][]byte, len(args))
		for i, a := range args {
			argv[i] = []byte(a)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				run(argv...)
				if i++; i%flushEvery == 0 {
					if err := c.Store.Flush(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
	nn := "n=" + strconv.Itoa(n)
	// An unmeasured round first: the LevelDB work that follows the load (its compaction's
	// aftermath, the first reads of the tails) would otherwise fall on whichever command runs
	// first.
	for _, args := range [][]byte{[]byte("XADD s * f xxx"), []byte("RPUSH l xxx")} {
		argv := bytes.Fields(args)
		for i := 1; i <= 20000; i++ {
			run(argv...)
			if i%flushEvery == 0 {
				if err := c.Store.Flush(); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	// Three rounds, each command beside its list counterpart, so that a background compaction
	// or a neighbour's load weighs on both sides alike.
	for range 3 {
		bench(nn+"/XADD", "XADD", "s", "*", "f", "xxx")
		bench(nn+"/RPUSH", "RPUSH", "l", "xxx")
		bench(nn+"/XRANGE_-_+_COUNT_100", "XRANGE", "s", "-", "+", "COUNT", "100")
		bench(nn+"/LRANGE_0_99", "LRANGE", "l", "0", "99")
		bench(nn+"/XRANGE_middle_COUNT_100", "XRANGE", "s", mid, "+", "COUNT", "100")
		bench(nn+"/LRANGE_middle_100", "LRANGE", "l", mid, midEnd)
	}
}
