package commands

import (
	"bytes"
	"math"
	"runtime"
	"runtime/debug"

	"github.com/strata-db/strata/storage"
)

func init() {
	register(&Command{Name: "memory", Arity: -2, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, Step: 1, Handler: cmdMemory,
		Sub: []string{"doctor", "help", "malloc-stats", "purge", "stats", "usage"}})
}

var memoryHelpLines = []string{
	"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
	"HELP",
	"    Prints this help.",
}

// memOverhead is what MEMORY USAGE adds per key and per element for the records around the
// bytes themselves (Strata's key and element records, which live on disk).
const memOverhead = 16

var memorySubs = map[string]clientSub{
	"help":         {2, func(c *Ctx) { writeHelp(c.W, memoryHelpLines) }},
	"usage":        {-3, memoryUsage},
	"doctor":       {2, func(c *Ctx) { c.W.Verbatim(memoryDoctor()) }},
	"malloc-stats": {2, func(c *Ctx) { c.W.Verbatim("Stats not supported for the current allocator\n") }},
	"purge":        {2, func(c *Ctx) { debug.FreeOSMemory(); c.W.OK() }},
	"stats":        {2, memoryStats},
}

// cmdMemory implements MEMORY USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE and HELP. Strata's
// data lives on disk: USAGE reports the bytes a key holds (key, values and per-record
// overhead, collections estimated from a sample of elements as Redis estimates them), STATS
// the Go heap.
func cmdMemory(c *Ctx) { runSub(c, "memory", memorySubs) }

func memoryUsage(c *Ctx) {
	key := c.Args[2]
	samples := int64(5)
	for j := 3; j < len(c.Args); j++ {
		if !bytes.EqualFold(c.Args[j], []byte("samples")) || j+1 >= len(c.Args) {
			c.W.Error(ErrSyntax)
			return
		}
		n, ok := c.Int(j + 1)
		if !ok {
			return
		}
		if n < 0 {
			c.W.Error(ErrSyntax)
			return
		}
		if n == 0 {
			n = math.MaxInt64
		}
		samples = n
		j++
	}
	m, ok := metaOrNull(c, key)
	if !ok {
		return
	}
	size := int64(len(key) + memOverhead)
	if m.Type == storage.TypeString {
		c.W.Int(size + int64(m.StringLen()))
		return
	}
	var seen, bytes int64
	each := func(parts ...[]byte) bool {
		for _, p := range parts {
			bytes += int64(len(p))
		}
		bytes += memOverhead
		seen++
		return seen < samples
	}
	var err error
	switch m.Type {
	case storage.TypeList:
		err = c.Txn.ListRange(key, 0, min(samples, int64(m.Size))-1, func(int) {}, func(v []byte) { each(v) })
	case storage.TypeHash:
		err = c.Txn.HashEach(m, func(f, v []byte) bool { return each(f, v) })
	case storage.TypeSet:
		err = c.Txn.SetEach(m, func(v []byte) bool { return each(v) })
	case storage.TypeZSet:
		var z *storage.ZSet
		if z, err = c.Txn.ZSet(key); err == nil {
			err = z.Members(func(v []byte, _ float64) bool { return each(v, make([]byte, 8)) })
		}
	case storage.TypeStream:
		err = c.Txn.StreamRange(m, storage.StreamID{}, storage.MaxStreamID, false, 0, func(_ storage.StreamID, fv [][]byte) bool {
			return each(append(fv, make([]byte, 16))...)
		})
	}
	if err != nil {
		c.Fail(err)
		return
	}
	if seen > 0 {
		size += bytes * int64(m.Size) / seen
	}
	c.W.Int(size)
}

func memoryStats(c *Ctx) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var keys int64
	if c.Store != nil {
		for db := 0; db < c.Store.Databases(); db++ {
			n, _ := c.Store.KeyCounts(db)
			keys += n
		}
	}
	fields := []struct {
		name string
		v    int64
	}{
		{"peak.allocated", int64(ms.HeapSys)},
		{"total.allocated", int64(ms.HeapAlloc)},
		{"startup.allocated", 0},
		{"replication.backlog", 0},
		{"clients.slaves", 0},
		{"clients.normal", 0},
		{"aof.buffer", 0},
		{"keys.count", keys},
		{"allocator.allocated", int64(ms.HeapAlloc)},
		{"allocator.active", int64(ms.HeapInuse)},
		{"allocator.resident", int64(ms.HeapSys - ms.HeapReleased)},
	}
	c.W.Map(len(fields))
	for _, f := range fields {
		c.W.BulkString(f.name)
		c.W.Int(f.v)
	}
}

func memoryDoctor() string {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc < 5<<20 {
		return "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n"
	}
	return "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base: Strata keeps its data on disk, and its memory is the Go heap, bounded by the caches it is configured with.\n"
}
