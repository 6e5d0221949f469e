package tests

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// ackLog records, per writer, each write's send and acknowledgement times.
type ackLog struct {
	mu     sync.Mutex
	writes []ackedWrite
}

type ackedWrite struct {
	key         string
	sent, acked time.Time
}

func (l *ackLog) add(w ackedWrite) {
	l.mu.Lock()
	l.writes = append(l.writes, w)
	l.mu.Unlock()
}

// writeLoad runs writers clients, each SETting fresh keys until stop is closed, and records
// every acknowledged write.
func writeLoad(t *testing.T, addr string, writers int, stop <-chan struct{}) *ackLog {
	log := &ackLog{}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1, DisableIdentity: true})
			defer rdb.Close()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("w%d:%d", w, i)
				sent := time.Now()
				if err := rdb.Set(context.Background(), key, key, 0).Err(); err != nil {
					return
				}
				log.add(ackedWrite{key, sent, time.Now()})
			}
		}(w)
	}
	t.Cleanup(wg.Wait)
	go func() { <-stop; wg.Wait() }()
	return log
}

// TestBGSAVEIsPointInTime takes BGSAVE while clients write, starts a second server on the
// backup, and finds every write acknowledged before BGSAVE was sent and none sent after its
// reply. Writes in between raced the snapshot on other connections: either outcome is right.
func TestBGSAVEIsPointInTime(t *testing.T) {
	backup := filepath.Join(t.TempDir(), "backup")
	inst := testutil.StartStrata(t, func(c *config.Config) { c.BackupDir = backup })
	stop := make(chan struct{})
	log := writeLoad(t, inst.Addr, 4, stop)
	time.Sleep(300 * time.Millisecond)

	rdb := testutil.Client(t, inst)
	ctx := context.Background()
	asked := time.Now()
	if err := rdb.Do(ctx, "BGSAVE").Err(); err != nil {
		t.Fatal(err)
	}
	replied := time.Now()
	time.Sleep(200 * time.Millisecond)
	close(stop)
	deadline := time.Now().Add(30 * time.Second)
	for st := inst.Server.Store().BackupInfo(); st.InProgress || !st.LastOK; st = inst.Server.Store().BackupInfo() {
		if time.Now().After(deadline) {
			t.Fatalf("backup did not finish: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}

	restored := testutil.StartStrata(t, func(c *config.Config) { c.Dir = backup })
	check := testutil.Client(t, restored)
	var before, after int
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, w := range log.writes {
		n, err := check.Exists(ctx, w.key).Result()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case w.acked.Before(asked) && n != 1:
			t.Fatalf("%s acknowledged before BGSAVE was sent is missing from the backup", w.key)
		case w.sent.After(replied) && n != 0:
			t.Fatalf("%s sent after the BGSAVE reply is in the backup", w.key)
		}
		if w.acked.Before(asked) {
			before++
		} else if w.sent.After(replied) {
			after++
		}
	}
	if before == 0 || after == 0 {
		t.Fatalf("load too small to show anything: %d writes before, %d after", before, after)
	}
	t.Logf("%d writes before the snapshot all present, %d after all absent", before, after)
}

// TestSIGTERMUnderLoadKeepsAcknowledgedWrites runs the built binary with appendfsync always,
// sends SIGTERM during a write load, expects exit status 0, and finds every acknowledged
// write after a restart.
func TestSIGTERMUnderLoadKeepsAcknowledgedWrites(t *testing.T) {
	bin := buildStrata(t)
	dir := t.TempDir()
	cmd, addr := startBinary(t, bin, "--dir", dir, "--appendfsync", "always")
	stop := make(chan struct{})
	log := writeLoad(t, addr, 8, stop)
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	close(stop)
	if err != nil {
		t.Fatalf("strata exited with %v after SIGTERM, want status 0", err)
	}
	inst := testutil.StartStrata(t, func(c *config.Config) { c.Dir = dir })
	rdb := testutil.Client(t, inst)
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.writes) < 100 {
		t.Fatalf("only %d writes acknowledged; load too small", len(log.writes))
	}
	for _, w := range log.writes {
		if v, err := rdb.Get(context.Background(), w.key).Result(); err != nil || v != w.key {
			t.Fatalf("acknowledged write %s lost after SIGTERM: %q %v", w.key, v, err)
		}
	}
	t.Logf("%d acknowledged writes all present after SIGTERM and restart", len(log.writes))
}

// buildStrata builds the strata binary once per test binary run.
func buildStrata(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "strata-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "strata")
		out, err := exec.Command("go", "build", "-o", builtBin, "github.com/strata-db/strata/cmd/strata").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// startBinary runs the built server on a free loopback port and waits until it answers.
func startBinary(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, append([]string{"--port", fmt.Sprint(port), "--metrics-addr", ""}, args...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Log(sc.Text())
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return cmd, addr
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("strata did not start on %s", addr)
	return nil, ""
}
