// Command reclaim measures what deleting a huge collection costs clients.
//
// It builds a hash of -fields fields with pipelined HSETs, measures the baseline throughput of
// `redis-benchmark -t get,set`, then runs redis-benchmark back to back while it deletes the hash
// and the background collector reclaims it. It reports the DEL round-trip time, the reclaim
// duration, the benchmark throughput of every run that overlapped the reclaim against the
// baseline, and the size of the data directory before the DEL and after the reclaim.
//
// By default it starts Strata in-process on a fresh temporary data directory. With -addr it
// uses a running server instead; pass its data directory with -dir to get the size figures.
//
//	go run ./bench/reclaim                         # in-process server, 1,000,000 fields
//	go run ./bench/reclaim -addr 127.0.0.1:6380 -dir /var/lib/strata
package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/server"
)

func main() {
	addr := flag.String("addr", "", "address of a running server (default: start Strata in-process)")
	dir := flag.String("dir", "", "data directory of the server, for the size figures")
	fields := flag.Int("fields", 1_000_000, "fields of the hash to delete")
	perCmd := flag.Int("per-command", 1000, "fields per pipelined HSET")
	clients := flag.Int("c", 50, "redis-benchmark clients")
	keyspace := flag.Int("r", 100_000, "redis-benchmark random keyspace (-r)")
	runSecs := flag.Float64("run", 1, "target duration of one redis-benchmark run, in seconds")
	baselineRuns := flag.Int("baseline-runs", 4, "redis-benchmark runs just before the DEL and just after the reclaim")
	cycles := flag.Int("cycles", 1, "build-delete-reclaim cycles")
	bench := flag.String("redis-benchmark", "redis-benchmark", "redis-benchmark binary")
	flag.Parse()

	var inproc *server.Server
	if *addr == "" {
		srv, d := startInProcess()
		defer srv.Close()
		defer os.RemoveAll(d)
		inproc = srv
		*addr, *dir = srv.Addr(), d
		fmt.Printf("in-process Strata on %s, data directory %s\n", *addr, *dir)
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatal(err)
	}
	c := dial(*addr)
	runner := &benchRunner{bin: *bench, host: host, port: port, clients: *clients, keyspace: *keyspace}
	runner.requests = 20_000
	probe := runner.run() // warm-up, and a first estimate of the rate
	runner.requests = max(2000, int(probe.total()**runSecs/2))
	fmt.Printf("load: %s -h %s -p %s -t get,set -c %d -r %d -n %d --csv, back to back\n",
		*bench, host, port, *clients, *keyspace, runner.requests)

	var ratios []float64
	for cycle := 1; cycle <= *cycles; cycle++ {
		fmt.Printf("\n== cycle %d of %d\n", cycle, *cycles)
		// 1. Build the hash, and let LevelDB settle.
		start := time.Now()
		fill(c, "bighash", *fields, *perCmd)
		fmt.Printf("built bighash: HLEN %s in %v (pipelined HSET, %d fields per command)\n",
			c.do("HLEN", "bighash"), time.Since(start).Round(time.Millisecond), *perCmd)
		if inproc != nil {
			if err := inproc.Store().CompactAll(); err != nil {
				log.Fatal(err)
			}
		} else {
			time.Sleep(5 * time.Second)
		}
		sizeBefore := dirSize(*dir)

		// 2. Runs before, during and after the reclaim, back to back.
		var mu sync.Mutex
		var runs []benchResult
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := runner.run()
				mu.Lock()
				runs = append(runs, r)
				mu.Unlock()
			}
		}()
		count := func() int { mu.Lock(); defer mu.Unlock(); return len(runs) }
		for count() < *baselineRuns {
			time.Sleep(10 * time.Millisecond)
		}
		stats0 := c.info()
		delConn := dial(*addr)
		t0 := time.Now()
		reply := delConn.do("DEL", "bighash")
		delLatency := time.Since(t0)
		delConn.nc.Close()
		var reclaimEnd time.Time
		for {
			st := c.info()
			if st["garbage_pending"] == 0 && st["reclaimed_keys"]-stats0["reclaimed_keys"] >= int64(*fields) {
				reclaimEnd = time.Now()
				break
			}
			if time.Since(t0) > 10*time.Minute {
				log.Fatal("reclaim did not finish in 10 minutes")
			}
			time.Sleep(20 * time.Millisecond)
		}
		stats1 := c.info()
		n0 := count()
		for count() < n0+*baselineRuns+1 {
			time.Sleep(10 * time.Millisecond)
		}
		close(stop)
		<-done

		fmt.Printf("DEL bighash -> %s in %v (round trip, while redis-benchmark runs)\n", reply, delLatency)
		fmt.Printf("reclaim of %d fields finished %v after the DEL (INFO reclaimed_keys +%d, leveldb_write_delay_ms +%d)\n",
			*fields, reclaimEnd.Sub(t0).Round(time.Millisecond), stats1["reclaimed_keys"]-stats0["reclaimed_keys"],
			stats1["leveldb_write_delay_ms"]-stats0["leveldb_write_delay_ms"])
		var before, after []benchResult
		var reqs, secs float64
		for _, r := range runs {
			overlap := overlapFrac(r.start, r.end, t0, reclaimEnd)
			what := ""
			switch {
			case overlap >= 0.5:
				reqs += float64(2 * runner.requests)
				secs += r.end.Sub(r.start).Seconds()
				what = "during"
			case overlap == 0 && r.end.Before(t0):
				before = append(before, r)
				what = "before"
			case overlap == 0:
				after = append(after, r)
				what = "after"
			}
			fmt.Printf("    %s  %-6s (overlap %3.0f%%)\n", r, what, overlap*100)
		}
		base := median(append(before[max(0, len(before)-*baselineRuns):], after[:min(len(after), *baselineRuns)]...))
		fmt.Printf("baseline: median of the %d runs before and after: %.0f req/s\n", *baselineRuns*2, base)
		if secs > 0 {
			rps := reqs / secs
			ratios = append(ratios, rps/base)
			fmt.Printf("during the reclaim: %.0f req/s = %.0f%% of the baseline\n", rps, 100*rps/base)
		}
		if *dir != "" {
			fmt.Printf("data directory: %s before the DEL, %s after the reclaim\n", sizeBefore, dirSize(*dir))
		}
	}
	if len(ratios) > 1 {
		sort.Float64s(ratios)
		fmt.Printf("\nthroughput during the reclaim over %d cycles: median %.0f%% of the baseline (min %.0f%%, max %.0f%%)\n",
			len(ratios), 100*ratios[len(ratios)/2], 100*ratios[0], 100*ratios[len(ratios)-1])
	}
}

// ---- in-process server ----

func startInProcess() (*server.Server, string) {
	d, err := os.MkdirTemp("", "strata-reclaim-bench-")
	if err != nil {
		log.Fatal(err)
	}
	cfg := config.Default()
	cfg.Bind = []string{"127.0.0.1"}
	cfg.Port = 0
	cfg.Dir = d
	cfg.MetricsAddr = ""
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := server.New(cfg, logger)
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		log.Fatal(err)
	}
	return srv, d
}

// ---- a minimal RESP client ----

type conn struct {
	nc net.Conn
	r  *bufio.Reader
	w  *bufio.Writer
}

func dial(addr string) *conn {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	return &conn{nc: nc, r: bufio.NewReaderSize(nc, 1<<16), w: bufio.NewWriterSize(nc, 1<<16)}
}

func (c *conn) send(args ...string) {
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
}

// read returns one reply, flattened to text; errors are fatal.
func (c *conn) read() string {
	line, err := c.r.ReadString('\n')
	if err != nil {
		log.Fatal(err)
	}
	line = strings.TrimRight(line, "\r\n")
	switch line[0] {
	case '-':
		log.Fatalf("server error: %s", line[1:])
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "(nil)"
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			log.Fatal(err)
		}
		return string(b[:n])
	case '*':
		n, _ := strconv.Atoi(line[1:])
		var parts []string
		for i := 0; i < n; i++ {
			parts = append(parts, c.read())
		}
		return strings.Join(parts, " ")
	}
	return line[1:]
}

func (c *conn) do(args ...string) string {
	c.send(args...)
	if err := c.w.Flush(); err != nil {
		log.Fatal(err)
	}
	return c.read()
}

// info returns the integer fields of INFO.
func (c *conn) info() map[string]int64 {
	out := map[string]int64{}
	for _, l := range strings.Split(c.do("INFO"), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), ":")
		if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil {
			out[k] = n
		}
	}
	return out
}

// fill builds key with n fields, perCmd fields per HSET, keeping 16 commands in flight.
func fill(c *conn, key string, n, perCmd int) {
	const depth = 16
	inFlight := 0
	for i := 0; i < n; i += perCmd {
		args := []string{"HSET", key}
		for j := i; j < min(i+perCmd, n); j++ {
			args = append(args, "field:"+strconv.Itoa(j), "value:"+strconv.Itoa(j))
		}
		c.send(args...)
		inFlight++
		if inFlight == depth {
			c.w.Flush()
			c.read()
			inFlight--
		}
	}
	c.w.Flush()
	for ; inFlight > 0; inFlight-- {
		c.read()
	}
}

// ---- redis-benchmark ----

type benchRunner struct {
	bin, host, port   string
	clients, keyspace int
	requests          int
}

type benchResult struct {
	start, end time.Time
	set, get   float64 // requests per second
}

func (r benchResult) total() float64 {
	if r.set == 0 || r.get == 0 {
		return 0
	}
	return 2 / (1/r.set + 1/r.get) // the rate of the whole run: equal request counts
}

func (r benchResult) String() string {
	return fmt.Sprintf("%s +%5.2fs  SET %7.0f  GET %7.0f  both %7.0f req/s",
		r.start.Format("15:04:05.000"), r.end.Sub(r.start).Seconds(), r.set, r.get, r.total())
}

func (b *benchRunner) run() benchResult {
	cmd := exec.Command(b.bin, "-h", b.host, "-p", b.port, "-t", "get,set", "-c", strconv.Itoa(b.clients),
		"-r", strconv.Itoa(b.keyspace), "-n", strconv.Itoa(b.requests), "--csv")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	res := benchResult{start: time.Now()}
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s: %v: %s", strings.Join(cmd.Args, " "), err, errb.String())
	}
	res.end = time.Now()
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		log.Fatalf("redis-benchmark output: %v: %q", err, out.String())
	}
	for _, row := range rows {
		if len(row) < 2 {
			continue
		}
		v, _ := strconv.ParseFloat(row[1], 64)
		switch row[0] {
		case "SET":
			res.set = v
		case "GET":
			res.get = v
		}
	}
	if res.total() == 0 {
		log.Fatalf("no SET/GET figures in redis-benchmark output %q", out.String())
	}
	return res
}

func median(rs []benchResult) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.total()
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

func overlapFrac(s, e, a, b time.Time) float64 {
	lo, hi := s, e
	if a.After(lo) {
		lo = a
	}
	if b.Before(hi) {
		hi = b
	}
	if !hi.After(lo) || !e.After(s) {
		return 0
	}
	return float64(hi.Sub(lo)) / float64(e.Sub(s))
}

// ---- sizes ----

// sizes is the size of a data directory: LevelDB tables (.ldb), LevelDB logs (.log, the write
// journal), the value log (vlog/) and everything else.
type sizes struct{ tables, logs, vlog, other int64 }

func (z sizes) total() int64 { return z.tables + z.logs + z.vlog + z.other }

func (z sizes) String() string {
	return fmt.Sprintf("%s (tables %s, journal %s, value log %s, other %s)",
		mib(z.total()), mib(z.tables), mib(z.logs), mib(z.vlog), mib(z.other))
}

func dirSize(dir string) sizes {
	var z sizes
	if dir == "" {
		return z
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case strings.HasPrefix(rel, "vlog"+string(filepath.Separator)):
			z.vlog += info.Size()
		case strings.HasSuffix(rel, ".ldb"):
			z.tables += info.Size()
		case strings.HasSuffix(rel, ".log"):
			z.logs += info.Size()
		default:
			z.other += info.Size()
		}
		return nil
	})
	if err != nil {
		log.Printf("size of %s: %v", dir, err)
	}
	return z
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
