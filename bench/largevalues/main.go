// Command largevalues reproduces the cold-data offload test against a Strata binary and a
// redis-server: SETs of large random values to distinct keys, each timed, then GETs of random
// keys among them, each timed and checksummed; dd's time to write and fdatasync a value of the
// same size on the same disk; the data directory's size after every key is overwritten twice
// more and the value-log collector has run; and the Strata process's peak RSS.
//
//	go build -o /tmp/strata-lv ./cmd/strata
//	go run ./bench/largevalues -strata /tmp/strata-lv -dir /var/tmp/lv
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/maphash"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

var (
	strataBin  = flag.String("strata", "/tmp/strata-lv", "Strata binary (go build -o /tmp/strata-lv ./cmd/strata)")
	redisBin   = flag.String("redis", "redis-server", "redis-server binary; empty skips the comparison")
	baseDir    = flag.String("dir", "", "directory for the data, on the disk under test (default: a temporary directory)")
	keys       = flag.Int("n", 100, "keys, each SET once")
	sizeMiB    = flag.Int("size", 51, "value size in MiB")
	gets       = flag.Int("gets", 100, "GETs of random keys")
	overwrites = flag.Int("overwrites", 2, "further rounds of SETs over every key before measuring the space")
	fsync      = flag.String("appendfsync", "everysec", "Strata's appendfsync")
	gcWait     = flag.Duration("gc-wait", 3*time.Minute, "how long to wait for the collector to bring the space down")
	ddRuns     = flag.Int("dd-runs", 5, "dd runs before and after the SETs")
	ddSustain  = flag.Int("dd-sustained", 0, "also run dd this many times back to back after the test, for the disk's sustained rate and dd's own slowest/median")
	ddKeep     = flag.Bool("dd-keep", false, "dd writes a new file each time and keeps it until the end of the run, as the SETs keep their values (on a thinly provisioned disk, writes to blocks never written before cost more)")
	ddEvery    = flag.Int("dd-every", 0, "also run dd after every this many SETs of the first round (0: never), so that dd and the SETs meet the same disk state")
	extraArgs  = flag.String("strata-args", "", "extra Strata arguments, space separated")
	seed       = maphash.MakeSeed()
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "largevalues:", err)
		os.Exit(1)
	}
}

type report struct {
	lines []string
}

func (r *report) printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	fmt.Println(s)
	r.lines = append(r.lines, s)
}

func run() error {
	size := *sizeMiB << 20
	dir := *baseDir
	if dir == "" {
		d, err := os.MkdirTemp("", "largevalues-")
		if err != nil {
			return err
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Join(dir, "strata"))
	defer os.RemoveAll(filepath.Join(dir, "redis"))
	defer removeKeptDD(dir)
	r := &report{}
	r.printf("## Environment")
	r.printf("")
	r.printf("- date: %s", time.Now().UTC().Format(time.RFC3339))
	r.printf("- nproc: %d (GOMAXPROCS of this client %d)", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	r.printf("- memory: %s", memTotal())
	r.printf("- load average at start: %s", loadAvg())
	r.printf("- disk (df -h %s): %s", dir, strings.ReplaceAll(strings.TrimSpace(cmdOut("df", "-h", dir)), "\n", " | "))
	r.printf("- strata: %s %s, appendfsync %s; redis: %s", *strataBin, *extraArgs, *fsync, strings.TrimSpace(cmdOut(*redisBin, "--version")))
	r.printf("- workload: %d keys x %d MiB, %d GETs, %d overwrite rounds", *keys, *sizeMiB, *gets, *overwrites)
	r.printf("- dd: %d runs before and after, after every %d SETs (0: never), %d back to back at the end; each into a new file kept to the end: %v", *ddRuns, *ddEvery, *ddSustain, *ddKeep)
	r.printf("")

	dd1, err := ddTimes(dir, *sizeMiB, *ddRuns)
	if err != nil {
		return err
	}

	// Strata.
	sdir := filepath.Join(dir, "strata")
	os.RemoveAll(sdir)
	args := []string{"--dir", sdir, "--port", "0", "--metrics-addr", "", "--appendfsync", *fsync, "--loglevel", "warning"}
	if *extraArgs != "" {
		args = append(args, strings.Fields(*extraArgs)...)
	}
	st, err := startStrata(args)
	if err != nil {
		return err
	}
	defer st.stop()
	time.Sleep(500 * time.Millisecond)
	idle := procStatus(st.cmd.Process.Pid, "VmRSS")
	c, err := dial(st.addr)
	if err != nil {
		return err
	}
	val := make([]byte, size)
	sums := make([]uint64, *keys)
	setTimes := make([]time.Duration, *keys)
	var ddMid []time.Duration
	for i := range *keys {
		fill(val, i, 0)
		sums[i] = maphash.Bytes(seed, val)
		d, err := c.set(key(i), val)
		if err != nil {
			return fmt.Errorf("strata SET %d: %w", i, err)
		}
		setTimes[i] = d
		if *ddEvery > 0 && (i+1)%*ddEvery == 0 {
			dd, err := ddTimes(dir, *sizeMiB, 1)
			if err != nil {
				return err
			}
			ddMid = append(ddMid, dd...)
		}
	}
	setServer := c.cmdstat("set")
	dd2, err := ddTimes(dir, *sizeMiB, *ddRuns)
	if err != nil {
		return err
	}
	dds := append(append([]time.Duration(nil), dd1...), dd2...)

	order := make([]int, *gets)
	pick := rand.New(rand.NewPCG(42, 42))
	for i := range order {
		order[i] = pick.IntN(*keys)
	}
	if err := c.simple("CONFIG", "RESETSTAT"); err != nil {
		return err
	}
	getTimes, err := c.getAll(order, val, sums)
	if err != nil {
		return fmt.Errorf("strata: %w", err)
	}
	getServer := c.cmdstat("get")
	afterGets := procStatus(st.cmd.Process.Pid, "VmHWM")

	// The same GETs on a freshly started server: the peak RSS of reads alone.
	c.close()
	st.stop()
	if st, err = startStrata(args); err != nil {
		return err
	}
	defer st.stop()
	time.Sleep(500 * time.Millisecond)
	idle2 := procStatus(st.cmd.Process.Pid, "VmRSS")
	if c, err = dial(st.addr); err != nil {
		return err
	}
	getTimes2, err := c.getAll(order, val, sums)
	if err != nil {
		return fmt.Errorf("strata after a restart: %w", err)
	}
	getOnlyPeak := procStatus(st.cmd.Process.Pid, "VmHWM")

	// redis-server, with the same values and the same GETs.
	var redisSet, redisGet []time.Duration
	if *redisBin != "" {
		redisSet, redisGet, err = runRedis(dir, val, sums, order)
		if err != nil {
			return err
		}
	}

	// Overwrites, then the collector.
	var owTimes []time.Duration
	for round := 1; round <= *overwrites; round++ {
		for i := range *keys {
			fill(val, i, round)
			sums[i] = maphash.Bytes(seed, val)
			d, err := c.set(key(i), val)
			if err != nil {
				return fmt.Errorf("strata overwrite %d/%d: %w", round, i, err)
			}
			owTimes = append(owTimes, d)
		}
	}
	live := int64(*keys) * int64(size)
	start := time.Now()
	var used int64
	for {
		used = dirSize(sdir)
		if float64(used) <= 1.3*float64(live) || time.Since(start) > *gcWait {
			break
		}
		time.Sleep(time.Second)
	}
	gcTook := time.Since(start)
	all := make([]int, *keys)
	for i := range all {
		all[i] = i
	}
	if _, err := c.getAll(all, val, sums); err != nil {
		return fmt.Errorf("strata, reading back every key after the collector: %w", err)
	}
	peak := procStatus(st.cmd.Process.Pid, "VmHWM")
	endRSS := procStatus(st.cmd.Process.Pid, "VmRSS")
	c.close()

	r.printf("- load average at end: %s (other processes share the machine)", loadAvg())
	r.printf("")
	ddMed := median(dds)
	setMed, setMax := median(setTimes), slices.Max(setTimes)
	getMed := median(getTimes)
	r.printf("## Results")
	r.printf("")
	r.printf("| measure | value | target | |")
	r.printf("|---|---|---|---|")
	r.printf("| dd bs=1M count=%d conv=fdatasync, median of %d (before: %s; after: %s) | %s | | |",
		*sizeMiB, len(dds), fmtDurs(dd1), fmtDurs(dd2), ms(ddMed))
	r.printf("| Strata SET, median / slowest / fastest of %d | %s / %s / %s | | |", len(setTimes), ms(setMed), ms(setMax), ms(slices.Min(setTimes)))
	r.printf("| Strata SET percentiles p10 / p50 / p90 / p99 | %s / %s / %s / %s | | |",
		ms(pct(setTimes, 10)), ms(pct(setTimes, 50)), ms(pct(setTimes, 90)), ms(pct(setTimes, 99)))
	r.printf("| Strata SET, time inside the command (INFO commandstats usec_per_call; the rest is reading the request) | %s | | |", setServer)
	r.printf("| slowest SET / median SET | %.2f | <= 2 | %s |", ratio(setMax, setMed), pass(ratio(setMax, setMed) <= 2))
	r.printf("| median SET / dd (dd on an idle disk, before and after the SETs) | %.2f | <= 1.5 | %s |", ratio(setMed, ddMed), pass(ratio(setMed, ddMed) <= 1.5))
	if len(ddMid) > 0 {
		midMed := median(ddMid)
		r.printf("| dd interleaved with the SETs (after every %d), median of %d: %s | %s | | |", *ddEvery, len(ddMid), fmtDurs(ddMid), ms(midMed))
		r.printf("| median SET / interleaved dd | %.2f | <= 1.5 | %s |", ratio(setMed, midMed), pass(ratio(setMed, midMed) <= 1.5))
	}
	if *ddSustain > 0 {
		ds, err := ddTimes(dir, *sizeMiB, *ddSustain)
		if err != nil {
			return err
		}
		dm := median(ds)
		r.printf("| dd %d times back to back: median / slowest / fastest, slowest / median | %s / %s / %s, %.2f | | |",
			len(ds), ms(dm), ms(slices.Max(ds)), ms(slices.Min(ds)), ratio(slices.Max(ds), dm))
		r.printf("| median SET / median of back-to-back dd | %.2f | | |", ratio(setMed, dm))
		defer r.printf("\ndd back-to-back times in order (ms): %s", fmtDurs(ds))
	}
	r.printf("| Strata GET, median / slowest of %d (all checksums matched) | %s / %s | | |", len(getTimes), ms(getMed), ms(slices.Max(getTimes)))
	r.printf("| Strata GET, time inside the command (usec_per_call) | %s | | |", getServer)
	r.printf("| Strata GET after a restart, median / slowest | %s / %s | | |", ms(median(getTimes2)), ms(slices.Max(getTimes2)))
	if redisGet != nil {
		rmed := median(redisGet)
		r.printf("| redis-server SET median / GET median / GET slowest (checksums matched) | %s / %s / %s | | |", ms(median(redisSet)), ms(rmed), ms(slices.Max(redisGet)))
		r.printf("| Strata GET median / redis-server GET median | %.2f | <= 1.2 | %s |", ratio(getMed, rmed), pass(ratio(getMed, rmed) <= 1.2))
	}
	if len(owTimes) > 0 {
		r.printf("| overwrite SETs, median / slowest of %d | %s / %s | | |", len(owTimes), ms(median(owTimes)), ms(slices.Max(owTimes)))
	}
	r.printf("| data directory after overwrites and collection (waited %s) / live bytes | %.3f (%s / %s) | <= 1.3 | %s |",
		gcTook.Round(time.Second), float64(used)/float64(live), mib(used), mib(live), pass(float64(used) <= 1.3*float64(live)))
	r.printf("| RSS idle / VmHWM after GETs / VmHWM at end / RSS at end | %s / %s / %s / %s | | |", mib(idle), mib(afterGets), mib(peak), mib(endRSS))
	r.printf("| GETs only (fresh process): RSS idle / VmHWM, peak above idle / value size | %s / %s, %.2f | < 4 | %s |",
		mib(idle2), mib(getOnlyPeak), float64(getOnlyPeak-idle2)/float64(size), pass(getOnlyPeak-idle2 < 4*int64(size)))
	over := peak - idle
	r.printf("| peak RSS above idle / value size | %.2f (%s) | < 4 | %s |", float64(over)/float64(size), mib(over), pass(over < 4*int64(size)))
	r.printf("")
	r.printf("Strata SET times in order (ms): %s", fmtDurs(setTimes))
	r.printf("")
	r.printf("Overwrite SET times in order (ms): %s", fmtDurs(owTimes))
	return nil
}

// pct returns the p-th percentile (nearest rank).
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

// simple sends a command and expects a +status reply.
func (c *client) simple(args ...string) error {
	if err := c.send(args...); err != nil {
		return err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+") {
		return fmt.Errorf("%v: %q", args, line)
	}
	return nil
}

func (c *client) send(args ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	_, err := c.conn.Write([]byte(b.String()))
	return err
}

// cmdstat returns the usec_per_call of a command from INFO commandstats, as milliseconds.
func (c *client) cmdstat(name string) string {
	if err := c.send("INFO", "commandstats"); err != nil {
		return "?"
	}
	line, err := c.r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "$") {
		return "?"
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	body := make([]byte, n+2)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(body), "\r\n") {
		if rest, ok := strings.CutPrefix(l, "cmdstat_"+name+":"); ok {
			for _, f := range strings.Split(rest, ",") {
				if v, ok := strings.CutPrefix(f, "usec_per_call="); ok {
					us, _ := strconv.ParseFloat(v, 64)
					return fmt.Sprintf("%.1f ms", us/1000)
				}
			}
		}
	}
	return "?"
}

func key(i int) string { return fmt.Sprintf("lv:%03d", i) }

// fill writes key i's value of the given round: random bytes from a seeded generator.
func fill(b []byte, i, round int) {
	var s [32]byte
	copy(s[:], fmt.Sprintf("largevalues %d %d", i, round))
	rand.NewChaCha8(s).Read(b)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

func fmtDurs(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%.0f", float64(d)/1e6))
	}
	return strings.Join(parts, " ") + " ms"
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func pass(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func memTotal() string {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "MemTotal:") {
			return strings.Join(strings.Fields(l)[1:], " ")
		}
	}
	return "?"
}

// loadAvg returns the load average and, where the kernel reports it, the CPU pressure (the
// share of time some runnable task waited for a CPU, over the last 60 s).
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	s := strings.Join(strings.Fields(string(b))[:3], " ")
	if p, err := os.ReadFile("/proc/pressure/cpu"); err == nil {
		for _, f := range strings.Fields(strings.SplitN(string(p), "\n", 2)[0]) {
			if v, ok := strings.CutPrefix(f, "avg60="); ok {
				s += ", CPU pressure " + v + "%"
			}
		}
	}
	return s
}

func cmdOut(name string, args ...string) string {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(%s: %v)", name, err)
	}
	return string(out)
}

// procStatus returns a /proc/PID/status field in bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field+":" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return -1
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// ddTimes runs dd runs times into a file in dir and returns the wall time of each.
func ddTimes(dir string, mib, runs int) ([]time.Duration, error) {
	path := filepath.Join(dir, "dd.bin")
	defer os.Remove(path)
	var out []time.Duration
	for range runs {
		os.Remove(path)
		if *ddKeep {
			ddSeq++
			path = filepath.Join(dir, fmt.Sprintf("dd-%04d.bin", ddSeq))
		}
		start := time.Now()
		cmd := exec.Command("dd", "if=/dev/zero", "of="+path, "bs=1M", fmt.Sprintf("count=%d", mib), "conv=fdatasync")
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("dd: %v: %s", err, b)
		}
		out = append(out, time.Since(start))
	}
	return out, nil // kept files are removed by removeKeptDD at the end of the run
}

var ddSeq int

func removeKeptDD(dir string) {
	kept, _ := filepath.Glob(filepath.Join(dir, "dd-*.bin"))
	for _, p := range kept {
		os.Remove(p)
	}
}

type server struct {
	cmd  *exec.Cmd
	addr string
}

func (s *server) stop() {
	if s.cmd.ProcessState == nil {
		s.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startStrata(args []string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	for i, a := range args {
		if a == "--port" {
			args[i+1] = strconv.Itoa(port)
		}
	}
	cmd := exec.Command(*strataBin, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	return s, waitUp(s)
}

func waitUp(s *server) error {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := dial(s.addr); err == nil {
			c.close()
			return nil
		}
	}
	s.cmd.Process.Kill()
	return fmt.Errorf("%s did not come up on %s", s.cmd.Path, s.addr)
}

// runRedis loads the values into a redis-server on a free loopback port and runs the GETs.
func runRedis(dir string, val []byte, sums []uint64, order []int) (sets, gets []time.Duration, err error) {
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	rdir := filepath.Join(dir, "redis")
	os.MkdirAll(rdir, 0o755)
	cmd := exec.Command(*redisBin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", rdir, "--proto-max-bulk-len", "1gb")
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	s := &server{cmd: cmd, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	defer func() { cmd.Process.Kill(); cmd.Wait() }() // by PID
	if err := waitUp(s); err != nil {
		return nil, nil, err
	}
	c, err := dial(s.addr)
	if err != nil {
		return nil, nil, err
	}
	defer c.close()
	rsums := make([]uint64, len(sums))
	for i := range sums {
		fill(val, i, 0)
		rsums[i] = maphash.Bytes(seed, val)
		d, err := c.set(key(i), val)
		if err != nil {
			return nil, nil, fmt.Errorf("redis SET %d: %w", i, err)
		}
		sets = append(sets, d)
	}
	gets, err = c.getAll(order, val, rsums)
	if err != nil {
		return nil, nil, fmt.Errorf("redis: %w", err)
	}
	return sets, gets, nil
}

// client speaks raw RESP over one connection.
type client struct {
	conn net.Conn
	r    *bufio.Reader
}

func dial(addr string) (*client, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, err
	}
	c := &client{conn: conn, r: bufio.NewReaderSize(conn, 1<<20)}
	if _, err := conn.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		conn.Close()
		return nil, err
	}
	line, err := c.r.ReadString('\n')
	if err != nil || line != "+PONG\r\n" {
		conn.Close()
		return nil, fmt.Errorf("PING: %q %v", line, err)
	}
	return c, nil
}

func (c *client) close() { c.conn.Close() }

// set sends SET k v and returns the time until its +OK arrived.
func (c *client) set(k string, v []byte) (time.Duration, error) {
	hdr := fmt.Sprintf("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n", len(k), k, len(v))
	start := time.Now()
	bufs := net.Buffers{[]byte(hdr), v, []byte("\r\n")}
	if _, err := bufs.WriteTo(c.conn); err != nil {
		return 0, err
	}
	line, err := c.r.ReadString('\n')
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if line != "+OK\r\n" {
		return 0, fmt.Errorf("SET %s: %q", k, line)
	}
	return d, nil
}

// get sends GET k and reads the value into buf; it returns the value and the time until the
// last byte arrived.
func (c *client) get(k string, buf []byte) ([]byte, time.Duration, error) {
	req := fmt.Sprintf("*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", len(k), k)
	start := time.Now()
	if _, err := c.conn.Write([]byte(req)); err != nil {
		return nil, 0, err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, 0, err
	}
	if !strings.HasPrefix(line, "$") {
		return nil, 0, fmt.Errorf("GET %s: %q", k, line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 0 || n > len(buf) {
		return nil, 0, fmt.Errorf("GET %s: %q", k, line)
	}
	if _, err := io.ReadFull(c.r, buf[:n+2]); err != nil {
		return nil, 0, err
	}
	d := time.Since(start)
	if !bytes.Equal(buf[n:n+2], []byte("\r\n")) {
		return nil, 0, errors.New("GET: no CRLF after the value")
	}
	return buf[:n], d, nil
}

// getAll GETs the keys in order, checks each value's checksum, and returns the times.
func (c *client) getAll(order []int, scratch []byte, sums []uint64) ([]time.Duration, error) {
	buf := make([]byte, len(scratch)+2)
	var out []time.Duration
	for _, i := range order {
		v, d, err := c.get(key(i), buf)
		if err != nil {
			return nil, err
		}
		if maphash.Bytes(seed, v) != sums[i] {
			return nil, fmt.Errorf("GET %s: checksum mismatch (%d bytes)", key(i), len(v))
		}
		out = append(out, d)
	}
	return out, nil
}
