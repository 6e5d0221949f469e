package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// conn is a minimal RESP client for the load workloads.
type conn struct {
	c  net.Conn
	r  *bufio.Reader
	w  *bufio.Writer
	nb []byte
}

func dial(addr string) *conn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 1<<16), w: bufio.NewWriterSize(c, 1<<16)}
}

func (c *conn) send(args ...[]byte) {
	c.nb = append(c.nb[:0], '*')
	c.nb = strconv.AppendInt(c.nb, int64(len(args)), 10)
	c.nb = append(c.nb, '\r', '\n')
	for _, a := range args {
		c.nb = append(c.nb, '$')
		c.nb = strconv.AppendInt(c.nb, int64(len(a)), 10)
		c.nb = append(c.nb, '\r', '\n')
		c.nb = append(c.nb, a...)
		c.nb = append(c.nb, '\r', '\n')
	}
	c.w.Write(c.nb)
}

// read reads one reply and returns its first line (bulk payloads are skipped).
func (c *conn) read() string {
	line, err := c.r.ReadString('\n')
	if err != nil {
		log.Fatal(err)
	}
	switch line[0] {
	case '$':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if n >= 0 {
			c.r.Discard(n + 2)
		}
	case '*':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		for i := 0; i < n; i++ {
			c.read()
		}
	case '-':
		log.Fatalf("server error: %s", line)
	}
	return line
}

func (c *conn) do(args ...[]byte) string {
	c.send(args...)
	c.w.Flush()
	return c.read()
}

func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// workload3 loads -load-keys keys with 100-byte values through 8 pipelined clients into Strata,
// printing the load rate, RSS and data size every 10%, then measures random GETs.
func workload3(bin string) {
	s := startStrata(bin)
	defer stop(s)
	total := *loadKeys
	fmt.Printf("## Workload 3: loading %d keys with 100-byte values, then random GETs (Strata only)\n\n", total)
	fmt.Printf("Strata runs with `--leveldb-block-cache-size %s`; 8 clients pipeline 100 SETs at a time.\n\n", *cacheSize)
	fmt.Printf("| loaded | keys/s since last row | RSS | peak RSS | data dir |\n|---:|---:|---:|---:|---:|\n")
	val := []byte(strings.Repeat("v", 100))
	const clients, pipe = 8, 100
	next := make(chan int, clients*2)
	done := make(chan int, clients)
	for w := 0; w < clients; w++ {
		go func() {
			c := dial(s.addr)
			n := 0
			for start := range next {
				for i := start; i < start+pipe && i < total; i++ {
					c.send([]byte("SET"), []byte(fmt.Sprintf("key:%012d", i)), val)
					n++
				}
				c.w.Flush()
				for i := start; i < start+pipe && i < total; i++ {
					c.read()
				}
			}
			done <- n
		}()
	}
	step := total / 10
	last, lastT := 0, time.Now()
	var peak int64
	for start := 0; start < total; start += pipe {
		next <- start
		if start > 0 && start/step != (start-pipe)/step || start+pipe >= total {
			r := rss(s.pid)
			peak = max(peak, r)
			if start%step < pipe || start+pipe >= total {
				loaded := min(start+pipe, total)
				rate := float64(loaded-last) / time.Since(lastT).Seconds()
				fmt.Printf("| %d | %.0f | %s | %s | %s |\n", loaded, rate, mib(r), mib(peak), mib(dirSize(s.dir)))
				last, lastT = loaded, time.Now()
			}
		}
	}
	close(next)
	for w := 0; w < clients; w++ {
		<-done
	}
	c := dial(s.addr)
	lat := make([]time.Duration, 0, 100000)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 100000; i++ {
		k := []byte(fmt.Sprintf("key:%012d", rng.Intn(total)))
		t0 := time.Now()
		c.do([]byte("GET"), k)
		lat = append(lat, time.Since(t0))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Printf("\nRandom GETs over the loaded keys (one client, 100,000 requests): p50 %v, p99 %v, max %v. Peak RSS %s.\n\n",
		lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1], mib(peak))
}

// workload4 is the point-operation test of the LevelDB/ForestDB comparison.
func workload4(bin string) {
	fmt.Printf("## Workload 4: point operations on 10,000 long keys\n\n")
	fmt.Printf("10,000 keys of 255-1,022 random uppercase letters, 960-byte values, one command at a time: add, get, update to 1,920 bytes, delete. Times are medians over the rounds; sizes are of Strata's data directory.\n\n")
	type res struct{ add, get, upd, del time.Duration }
	times := map[string][]res{}
	var afterUpd, afterCompact, live []float64
	for r := 0; r < *rounds; r++ {
		for _, s := range servers(bin, r) {
			if s.cmd == nil {
				continue
			}
			rng := rand.New(rand.NewSource(int64(r)))
			keys := make([][]byte, 10000)
			for i := range keys {
				k := make([]byte, 255+rng.Intn(1022-255+1))
				for j := range k {
					k[j] = byte('A' + rng.Intn(26))
				}
				keys[i] = k
			}
			v1, v2 := make([]byte, 960), make([]byte, 1920)
			rng.Read(v1)
			rng.Read(v2)
			c := dial(s.addr)
			timed := func(f func(k []byte)) time.Duration {
				t0 := time.Now()
				for _, k := range keys {
					f(k)
				}
				return time.Since(t0)
			}
			var x res
			x.add = timed(func(k []byte) { c.do([]byte("SET"), k, v1) })
			x.get = timed(func(k []byte) { c.do([]byte("GET"), k) })
			x.upd = timed(func(k []byte) { c.do([]byte("SET"), k, v2) })
			if s.name == "strata" {
				var lb int64
				for _, k := range keys {
					lb += int64(len(k) + len(v2))
				}
				live = append(live, float64(lb))
				time.Sleep(time.Second)
				afterUpd = append(afterUpd, float64(dirSize(s.dir)))
				c.do([]byte("BGREWRITEAOF"))
				for i := 0; i < 600; i++ {
					time.Sleep(100 * time.Millisecond)
					if !strings.Contains(infoField(c, "aof_rewrite_in_progress"), "1") {
						break
					}
				}
				afterCompact = append(afterCompact, float64(dirSize(s.dir)))
			}
			x.del = timed(func(k []byte) { c.do([]byte("DEL"), k) })
			times[s.name] = append(times[s.name], x)
			c.c.Close()
			stop(s)
		}
	}
	med := func(name string, f func(res) time.Duration) float64 {
		var v []float64
		for _, x := range times[name] {
			v = append(v, f(x).Seconds())
		}
		return median(v)
	}
	fmt.Printf("| operation | strata s | redis s | strata/redis time |\n|---|---:|---:|---:|\n")
	for _, op := range []struct {
		name string
		f    func(res) time.Duration
	}{{"add", func(x res) time.Duration { return x.add }}, {"get", func(x res) time.Duration { return x.get }},
		{"update", func(x res) time.Duration { return x.upd }}, {"delete", func(x res) time.Duration { return x.del }}} {
		a, b := med("strata", op.f), med("redis", op.f)
		fmt.Printf("| %s | %.3f | %.3f | %.2f |\n", op.name, a, b, a/b)
	}
	fmt.Printf("\nStrata data directory: %s after the update, %s after BGREWRITEAOF, for %s of live keys and values (%.2fx).\n\n",
		mib(int64(median(afterUpd))), mib(int64(median(afterCompact))), mib(int64(median(live))), median(afterCompact)/median(live))
}

// infoField returns the line of INFO that starts with name, or "".
func infoField(c *conn, name string) string {
	c.send([]byte("INFO"), []byte("everything"))
	c.w.Flush()
	line, err := c.r.ReadString('\n')
	if err != nil || line[0] != '$' {
		return ""
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	body := make([]byte, n+2)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return ""
	}
	for _, l := range strings.Split(string(body), "\r\n") {
		if strings.HasPrefix(l, name+":") {
			return l
		}
	}
	return ""
}
