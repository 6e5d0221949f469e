// Command rdbimport measures `strata import` beside redis-server's own load of the same RDB
// file: it writes a file of small string keys and one of large string values, then in rounds
// that alternate which goes first times `strata import` into a fresh data directory and
// redis-server from its start until it answers PING (not -LOADING) with the file as its
// dbfilename, and prints keys/s, MB/s and the ratio of the two times, with the median ratio.
//
//	go build -o /tmp/strata-ri ./cmd/strata
//	go run ./bench/rdbimport -strata /tmp/strata-ri -dir /var/tmp/ri
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/strata-db/strata/rdb"
)

var (
	strataBin = flag.String("strata", "/tmp/strata-ri", "Strata binary (go build -o /tmp/strata-ri ./cmd/strata)")
	redisBin  = flag.String("redis", "redis-server", "redis-server binary")
	baseDir   = flag.String("dir", "", "directory for the files, on the disk under test (default: a temporary directory)")
	smallKeys = flag.Int("small", 1_000_000, "small keys in the first file (0 skips it)")
	smallSize = flag.Int("small-size", 32, "value size of a small key in bytes")
	largeKeys = flag.Int("large", 100, "large values in the second file (0 skips it)")
	largeMiB  = flag.Int("large-size", 50, "size of a large value in MiB")
	listElems = flag.Int("list", 0, "also a file of one list with this many 16-byte elements (0: none)")
	rounds    = flag.Int("rounds", 3, "rounds, alternating which of the two loads goes first")
	migrate   = flag.Bool("migrate", false, "time MIGRATE from a redis-server holding the file into Strata and into redis-server, instead of the loads")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rdbimport:", err)
		os.Exit(1)
	}
}

func run() error {
	dir := *baseDir
	if dir == "" {
		d, err := os.MkdirTemp("", "rdbimport-")
		if err != nil {
			return err
		}
		dir = d
		defer os.RemoveAll(d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Printf("rdbimport: %s, rounds %d, dir %s\n", strings.Join(os.Args[1:], " "), *rounds, dir)
	if *smallKeys > 0 {
		name := fmt.Sprintf("%d keys of %d bytes", *smallKeys, *smallSize)
		if *migrate {
			if err := measureMigrate(dir, name, "small.rdb", *smallKeys, *smallSize); err != nil {
				return err
			}
		} else if err := measure(dir, name, "small.rdb", *smallKeys, *smallSize); err != nil {
			return err
		}
	}
	if *largeKeys > 0 {
		name := fmt.Sprintf("%d values of %d MiB", *largeKeys, *largeMiB)
		if *migrate {
			if err := measureMigrate(dir, name, "large.rdb", *largeKeys, *largeMiB<<20); err != nil {
				return err
			}
		} else if err := measure(dir, name, "large.rdb", *largeKeys, *largeMiB<<20); err != nil {
			return err
		}
	}
	if *listElems > 0 {
		name := fmt.Sprintf("1 list of %d elements", *listElems)
		if err := measure(dir, name, "list.rdb", -*listElems, 16); err != nil {
			return err
		}
	}
	return nil
}

// measure writes the file and runs the rounds; n < 0 means one list of -n elements.
func measure(dir, name, file string, n, size int) error {
	path := filepath.Join(dir, file)
	defer os.Remove(path)
	if err := writeFile(path, n, size); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	mb := float64(fi.Size()) / 1e6
	fmt.Printf("\n%s: file %.1f MB\n", name, mb)
	keys, unit := n, "keys/s"
	if n < 0 {
		keys, unit = -n, "elements/s"
	}
	var ratios []float64
	for round := 0; round < *rounds; round++ {
		var ts, tr time.Duration
		var rss int64
		order := []string{"strata", "redis"}
		if round%2 == 1 {
			order = []string{"redis", "strata"}
		}
		for _, who := range order {
			var err error
			if who == "strata" {
				ts, rss, err = strataImport(dir, path)
			} else {
				tr, err = redisLoad(dir, file)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", who, err)
			}
		}
		ratio := ts.Seconds() / tr.Seconds()
		ratios = append(ratios, ratio)
		fmt.Printf("  round %d: strata import %6.2fs %9.0f %s %7.1f MB/s peak RSS %4d MiB | redis-server load %6.2fs %9.0f %s %7.1f MB/s | strata/redis time %.2f\n",
			round+1, ts.Seconds(), float64(keys)/ts.Seconds(), unit, mb/ts.Seconds(), rss>>20,
			tr.Seconds(), float64(keys)/tr.Seconds(), unit, mb/tr.Seconds(), ratio)
	}
	slices.Sort(ratios)
	fmt.Printf("  median strata/redis time: %.2f\n", ratios[len(ratios)/2])
	return nil
}

// writeFile writes an RDB of n string keys in database 0 with values of size bytes: random
// bytes, which LZF cannot shrink.
func writeFile(path string, n, size int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := rdb.NewWriter(bw)
	if err != nil {
		f.Close()
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, size)
	fill := func() {
		for i := 0; i+8 <= len(val); i += 8 {
			v := rng.Uint64()
			for j := 0; j < 8; j++ {
				val[i+j] = byte(v >> (8 * j))
			}
		}
	}
	err = errors.Join(w.SelectDB(0), w.ResizeDB(uint64(max(n, 1)), 0))
	if n < 0 {
		err = errors.Join(err, w.Key([]byte("list"), -1), w.List(uint64(-n)))
		for i := 0; i < -n && err == nil; i++ {
			err = w.Member(fmt.Appendf(val[:0], "%016d", i))
		}
		n = 0
	}
	key := make([]byte, 0, 32)
	for i := 0; i < n && err == nil; i++ {
		if size >= 1<<20 || i%1024 == 0 {
			fill()
		} else {
			val[i%len(val)] ^= byte(i) // distinct values without the cost of a full refill
		}
		key = strconv.AppendInt(append(key[:0], "key:"...), int64(i), 10)
		if err = w.Key(key, -1); err == nil {
			err = w.String(val)
		}
	}
	err = errors.Join(err, w.Close(), bw.Flush(), f.Sync(), f.Close())
	return err
}

// strataImport times `strata import` of path into a fresh data directory, removed after, and
// returns the process's peak resident memory.
func strataImport(dir, path string) (time.Duration, int64, error) {
	data := filepath.Join(dir, "strata-data")
	os.RemoveAll(data)
	defer os.RemoveAll(data)
	start := time.Now()
	cmd := exec.Command(*strataBin, "import", "--dir", data, path)
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%v: %s", err, out)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // kilobytes on Linux
	}
	return d, rss, nil
}

// redisLoad times redis-server from its start with file as its RDB until it answers PING.
func redisLoad(dir, file string) (time.Duration, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	start := time.Now()
	cmd := exec.Command(*redisBin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--dbfilename", file, "--save", "", "--appendonly", "no", "--daemonize", "no")
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() { cmd.Process.Kill(); <-exited }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := start.Add(30 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		select {
		case err := <-exited:
			exited <- err
			return 0, fmt.Errorf("redis-server exited: %v", err)
		default:
		}
		if pong(addr) {
			return time.Since(start), nil
		}
	}
	return 0, errors.New("redis-server did not answer PING")
}

// pong reports whether the server at addr answers PING with +PONG (a loading server answers
// -LOADING).
func pong(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}
