// Command compare measures Strata against redis-server (and optionally any other
// Redis-protocol server) on the same machine, alternating the servers over several rounds,
// and prints a Markdown report with the median of each workload and the ratio to Redis.
//
//	go run ./bench/compare -rounds 3 -workloads 1,2,4 > docs/benchmarks.md
//
// Workloads:
//
//  1. redis-benchmark -n N -t set,incr,get,lpush,lpop,lrange,mset (50 clients), with and without -P 16
//  2. the rest of redis-benchmark's default tests, and -r 1000000 random keys for SET and GET
//  3. a pipelined load of -load-keys keys with 100-byte values, RSS and data size every 10%,
//     then random GETs with p50/p99 latency
//  4. the LevelDB/ForestDB point-operation test: 10,000 keys of 255-1022 random uppercase
//     letters, 960-byte values; timed add, get, update to 1,920 bytes, delete; data size after
//     the update and after BGREWRITEAOF
package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

var (
	rounds    = flag.Int("rounds", 3, "rounds; servers alternate within each round")
	requests  = flag.Int("n", 100000, "requests per redis-benchmark test")
	workloads = flag.String("workloads", "1,2,4,go", "comma-separated workloads to run (1-4, go for the Go benchmarks)")
	loadKeys  = flag.Int("load-keys", 20_000_000, "keys loaded by workload 3")
	other     = flag.String("other", "", "host:port of another Redis-protocol server to add as a column")
	strataBin = flag.String("strata", "", "Strata binary (built from ./cmd/strata when empty)")
	cacheSize = flag.String("block-cache", "256mb", "leveldb-block-cache-size for Strata")
)

// server is one benchmarked server.
type server struct {
	name string
	addr string
	pid  int
	dir  string
	cmd  *exec.Cmd
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	bin := *strataBin
	if bin == "" {
		bin = filepath.Join(os.TempDir(), "strata-bench")
		run("go", "build", "-o", bin, "./cmd/strata")
	}
	want := map[string]bool{}
	for _, w := range strings.Split(*workloads, ",") {
		want[strings.TrimSpace(w)] = true
	}
	fmt.Printf("# Strata benchmarks\n\n")
	fmt.Printf("Generated %s by `go run ./bench/compare %s`.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(os.Args[1:], " "))
	fmt.Printf("Machine: %d cores (`nproc`), %s memory, disk: %s. %s, %s.\n\n", runtime.NumCPU(), memTotal(), diskInfo(), redisVersion(), runtime.Version())
	fmt.Printf("Each figure is the median over %d rounds; within a round the servers run one after the other. Ratios are Strata/Redis.\n\n", *rounds)

	if want["1"] {
		tests := "set,incr,get,lpush,lpop,lrange,mset"
		rbTable("Workload 1: redis-benchmark, 50 clients, no pipelining", bin, []string{"-n", strconv.Itoa(*requests), "-t", tests}, nil)
		rbTable("Workload 1: redis-benchmark, 50 clients, -P 16", bin, []string{"-n", strconv.Itoa(*requests), "-t", tests, "-P", "16"}, nil)
	}
	if want["2"] {
		rbTable("Workload 2: redis-benchmark, the rest of the default tests", bin, []string{"-n", strconv.Itoa(*requests), "-t", "ping_inline,ping_mbulk,rpush,rpop,sadd,hset,spop,zadd,zpopmin,lrange_100,lrange_300,lrange_500,lrange_600"}, nil)
		rbTable("Workload 2: SET and GET over 1,000,000 random keys (-r 1000000)", bin, []string{"-n", strconv.Itoa(*requests), "-t", "set,get", "-r", "1000000"}, nil)
	}
	if want["3"] {
		workload3(bin)
	}
	if want["4"] {
		workload4(bin)
	}
	if want["go"] {
		goBenchmarks()
	}
}

// goBenchmarks runs the Go benchmarks of the dispatcher and storage with -benchmem.
func goBenchmarks() {
	args := []string{"test", "-run", "^$", "-bench", "Dispatch|HSet|List|RawLevelDB", "-benchmem", "-benchtime", "20000x", "./commands/", "./storage/"}
	out := runOut("go", args...)
	fmt.Printf("## Go benchmarks\n\n`go %s`\n\n```\n", strings.Join(args, " "))
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Benchmark") {
			fmt.Println(l)
		}
	}
	fmt.Printf("```\n\nThe dispatcher benchmarks run SET and GET through commands.Dispatch and storage, without the network. The RawLevelDB benchmarks run goleveldb alone, with Strata's options: one Put per write as each SET commits, a Get, a 100-record range.\n\n")
}

// rbTable runs redis-benchmark with args against every server over the rounds and prints a table.
func rbTable(title, bin string, args []string, _ []string) {
	results := map[string]map[string][]float64{} // server -> test -> rps per round
	var order []string
	for r := 0; r < *rounds; r++ {
		for _, s := range servers(bin, r) {
			out := runOut("redis-benchmark", append([]string{"-h", host(s.addr), "-p", port(s.addr), "--csv", "-c", "50"}, args...)...)
			stop(s)
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				log.Fatalf("redis-benchmark output: %v\n%s", err, out)
			}
			for _, row := range rows[1:] {
				rps, _ := strconv.ParseFloat(row[1], 64)
				if results[s.name] == nil {
					results[s.name] = map[string][]float64{}
				}
				if r == 0 && s.name == "redis" {
					order = append(order, row[0])
				}
				results[s.name][row[0]] = append(results[s.name][row[0]], rps)
			}
		}
	}
	fmt.Printf("## %s\n\n`redis-benchmark -c 50 %s`\n\n", title, strings.Join(args, " "))
	cols := []string{"strata", "redis"}
	if *other != "" {
		cols = append(cols, "other")
	}
	fmt.Printf("| test | %s | strata/redis |", strings.Join(cols, " rps | ")+" rps")
	if *other != "" {
		fmt.Printf(" other/redis |")
	}
	fmt.Printf("\n|---|%s---|", strings.Repeat("---:|", len(cols)))
	if *other != "" {
		fmt.Printf("---|")
	}
	fmt.Println()
	for _, test := range order {
		fmt.Printf("| %s |", test)
		med := map[string]float64{}
		for _, c := range cols {
			med[c] = median(results[c][test])
			fmt.Printf(" %.0f |", med[c])
		}
		fmt.Printf(" %.2f |", med["strata"]/med["redis"])
		if *other != "" {
			fmt.Printf(" %.2f |", med["other"]/med["redis"])
		}
		fmt.Println()
	}
	fmt.Println()
}

// servers starts a fresh Strata and redis-server for one round (and names the other server),
// in an order that alternates between rounds.
func servers(bin string, round int) []*server {
	list := []*server{startStrata(bin), startRedis()}
	if round%2 == 1 {
		list[0], list[1] = list[1], list[0]
	}
	if *other != "" {
		list = append(list, &server{name: "other", addr: *other})
	}
	return list
}

func freePort() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

func startStrata(bin string) *server {
	dir, _ := os.MkdirTemp("", "strata-bench-data-")
	p := freePort()
	cmd := exec.Command(bin, "--port", p, "--dir", dir, "--metrics-addr", "", "--leveldb-block-cache-size", *cacheSize, "--loglevel", "warning")
	return launch("strata", cmd, "127.0.0.1:"+p, dir)
}

func startRedis() *server {
	dir, _ := os.MkdirTemp("", "redis-bench-data-")
	p := freePort()
	cmd := exec.Command("redis-server", "--port", p, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	return launch("redis", cmd, "127.0.0.1:"+p, dir)
}

func launch(name string, cmd *exec.Cmd, addr, dir string) *server {
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		log.Fatalf("start %s: %v", name, err)
	}
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return &server{name: name, addr: addr, pid: cmd.Process.Pid, dir: dir, cmd: cmd}
		}
		time.Sleep(25 * time.Millisecond)
	}
	log.Fatalf("%s did not start on %s", name, addr)
	return nil
}

// stop ends a server this program started, by its PID, and removes its data.
func stop(s *server) {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	os.RemoveAll(s.dir)
}

func host(addr string) string { h, _, _ := net.SplitHostPort(addr); return h }
func port(addr string) string { _, p, _ := net.SplitHostPort(addr); return p }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func run(name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s %v: %v", name, args, err)
	}
}

func runOut(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		log.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

func memTotal() string {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "MemTotal:") {
			kb, _ := strconv.ParseFloat(strings.Fields(sc.Text())[1], 64)
			return fmt.Sprintf("%.1f GiB", kb/1024/1024)
		}
	}
	return "?"
}

func diskInfo() string {
	out, err := exec.Command("df", "-h", os.TempDir()).Output()
	if err != nil {
		return "?"
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	f := strings.Fields(lines[len(lines)-1])
	if len(f) < 4 {
		return "?"
	}
	return fmt.Sprintf("%s %s total, %s free (df -h %s)", f[0], f[1], f[3], os.TempDir())
}

func redisVersion() string {
	out, err := exec.Command("redis-server", "--version").Output()
	if err != nil {
		return "redis-server not found"
	}
	return strings.TrimSpace(strings.SplitN(string(out), " sha=", 2)[0])
}
