package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// migrateBatch is the number of keys one MIGRATE ... KEYS call moves for the small keys.
const migrateBatch = 1000

// measureMigrate starts a redis-server on the file as the source and times MIGRATE ... COPY
// of every key into a fresh Strata and into a fresh redis-server, alternating which goes first.
func measureMigrate(dir, name, file string, n, size int) error {
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
	src, stopSrc, err := startRedis(dir, file)
	if err != nil {
		return err
	}
	defer stopSrc()
	fmt.Printf("\nMIGRATE of %s from redis-server: %.1f MB\n", name, mb)
	var ratios []float64
	for round := 0; round < *rounds; round++ {
		times := map[string]time.Duration{}
		order := []string{"strata", "redis"}
		if round%2 == 1 {
			order = []string{"redis", "strata"}
		}
		for _, who := range order {
			addr, stop, err := startTarget(dir, who)
			if err != nil {
				return fmt.Errorf("%s: %w", who, err)
			}
			d, err := migrateAll(src, addr, n, size)
			stop()
			if err != nil {
				return fmt.Errorf("MIGRATE into %s: %w", who, err)
			}
			times[who] = d
		}
		ts, tr := times["strata"], times["redis"]
		ratio := ts.Seconds() / tr.Seconds()
		ratios = append(ratios, ratio)
		fmt.Printf("  round %d: into strata %6.2fs %9.0f keys/s %7.1f MB/s | into redis-server %6.2fs %9.0f keys/s %7.1f MB/s | strata/redis time %.2f\n",
			round+1, ts.Seconds(), float64(n)/ts.Seconds(), mb/ts.Seconds(),
			tr.Seconds(), float64(n)/tr.Seconds(), mb/tr.Seconds(), ratio)
	}
	slices.Sort(ratios)
	fmt.Printf("  median strata/redis time: %.2f\n", ratios[len(ratios)/2])
	return nil
}

// migrateAll moves every key of the source to addr with MIGRATE ... COPY REPLACE: the small
// keys migrateBatch at a time, the large ones one at a time.
func migrateAll(src, addr string, n, size int) (time.Duration, error) {
	c, err := net.Dial("tcp", src)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	host, port, _ := net.SplitHostPort(addr)
	batch := migrateBatch
	if size >= 1<<20 {
		batch = 1
	}
	start := time.Now()
	for i := 0; i < n; i += batch {
		args := []string{"MIGRATE", host, port, "", "0", "600000", "COPY", "REPLACE", "KEYS"}
		for j := i; j < min(i+batch, n); j++ {
			args = append(args, "key:"+strconv.Itoa(j))
		}
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := c.Write([]byte(b.String())); err != nil {
			return 0, err
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if !strings.HasPrefix(line, "+OK") {
			return 0, fmt.Errorf("MIGRATE of keys %d..: %s", i, strings.TrimSpace(line))
		}
	}
	return time.Since(start), nil
}

// startTarget starts an empty Strata or redis-server and returns its address.
func startTarget(dir, who string) (string, func(), error) {
	if who == "redis" {
		return startRedis(dir, "target-empty.rdb")
	}
	data := filepath.Join(dir, "strata-target")
	os.RemoveAll(data)
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(*strataBin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", data,
		"--metrics-addr", "")
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait(); os.RemoveAll(data) }
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err := waitPong(addr); err != nil {
		stop()
		return "", nil, err
	}
	return addr, stop, nil
}

// startRedis starts redis-server with file (in dir) as its RDB and waits until it has loaded.
func startRedis(dir, file string) (string, func(), error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(*redisBin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--dbfilename", file, "--save", "", "--appendonly", "no", "--daemonize", "no")
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait() }
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err := waitPong(addr); err != nil {
		stop()
		return "", nil, err
	}
	return addr, stop, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitPong(addr string) error {
	for deadline := time.Now().Add(30 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pong(addr) {
			return nil
		}
	}
	return errors.New(addr + " did not answer PING")
}
