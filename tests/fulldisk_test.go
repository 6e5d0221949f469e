package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/storage"
)

// mountTmpfs mounts a tmpfs of the given size on a fresh directory and unmounts it when the
// test ends (after the cleanups registered later, such as closing a server using it). It skips
// the test unless it runs as root, which mount needs.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("full-disk test needs root to mount a small tmpfs (run the tests as root, e.g. in CI's container)")
	}
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s); the full-disk test needs a privileged environment", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// TestFullDisk fills a small tmpfs holding the data directory until writes fail, and checks
// that they fail with MISCONF, that reads and other clients keep working, that writes resume by
// themselves once space is freed, and that no acknowledged write is lost, across a restart too.
// It fills the disk twice: with small values (LevelDB's journal and tables) and with large ones
// (the value log).
//
// Under the race detector this test reports a race inside goleveldb: on a compaction error its
// compaction goroutine answers a waiter that may have closed the channel already (cAuto.ack
// recovers the resulting panic on purpose).
func TestFullDisk(t *testing.T) {
	t.Parallel()
	disk := mountTmpfs(t, "64m")
	// Ballast files free space when deleted. Each frees more than the database holds when it is
	// deleted: LevelDB's compactions need room to rewrite what was written before the disk
	// filled, and with less they take the freed space and fail again. A third file, never
	// deleted, keeps the room small so that the disk fills quickly.
	var ballast []string
	for i, size := range []int{24 << 20, 12 << 20, 12 << 20} {
		b := filepath.Join(disk, fmt.Sprintf("ballast%d", i))
		if err := os.WriteFile(b, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		ballast = append(ballast, b)
	}
	ballast = ballast[1:]
	dataDir := filepath.Join(disk, "data")
	inst := testutil.StartStrata(t, func(c *config.Config) {
		c.Dir = dataDir
		c.AppendFsync = "always"
		c.LevelDBWriteBufferSize = 1 << 20
		c.LevelDBCompression = "none"
	})
	c := dial(t, inst)
	reader := dial(t, inst)
	const want = "MISCONF Errors writing to the disk: No space left on device"
	acked := map[string]string{}

	for round, size := range []int{4000, 100 << 10} {
		value := strings.Repeat(string(rune('a'+round)), size)
		var failure, last string
		for i := 0; i < 20000 && failure == ""; i++ {
			key := fmt.Sprintf("fill%d:%05d", round, i)
			r, err := c.Do("SET", key, value)
			if err != nil {
				t.Fatalf("SET %s: %v", key, err)
			}
			switch {
			case r.Kind == testutil.KindSimple && r.Str == "OK":
				acked[key], last = value, key
			case r.IsError():
				failure = r.Str
			default:
				t.Fatalf("SET %s: %s", key, r)
			}
		}
		if failure == "" {
			t.Fatalf("round %d: 20000 SETs of %d bytes fit on a 64 MiB disk", round, size)
		}
		t.Logf("round %d: disk full after %d acknowledged SETs of %d bytes: %q", round, len(acked), size, failure)
		if failure != want {
			t.Errorf("round %d: first failing write answered %q, want %q", round, failure, want)
		}
		// While the disk is full: writes are refused, reads and read-only commands work.
		mustDo(t, c, "(error) "+want, "SET", "another", "x")
		mustDo(t, c, "(error) "+want, "INCR", "counter")
		mustDo(t, c, "(error) "+want, "RPUSH", "list", "x")
		mustDo(t, reader, `"`+value+`"`, "GET", last)
		mustDo(t, reader, fmt.Sprintf("(integer) %d", len(acked)), "DBSIZE")
		mustDo(t, reader, "PONG", "PING")
		mustDo(t, reader, "(integer) 1", "EXISTS", last)

		// Free space: writes come back without a restart.
		if err := os.Remove(ballast[round]); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			r, err := c.Do("SET", fmt.Sprintf("after%d", round), "space")
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind == testutil.KindSimple {
				acked[fmt.Sprintf("after%d", round)] = "space"
				break
			}
			if time.Now().After(deadline) {
				out, _ := exec.Command("sh", "-c", "df -k "+disk+"; du -ak "+disk+" | sort -n | tail -25").CombinedOutput()
				t.Fatalf("round %d: writes still fail 30 s after space was freed: %s\n%s", round, r, out)
			}
			time.Sleep(100 * time.Millisecond)
		}
		for i := 0; i < 20; i++ {
			key := fmt.Sprintf("again%d:%d", round, i)
			mustDo(t, c, "OK", "SET", key, value)
			acked[key] = value
		}
	}
	check := func(stage string) {
		t.Helper()
		for k, v := range acked {
			r, err := reader.Do("GET", k)
			if err != nil || r.Str != v {
				t.Fatalf("%s: acknowledged %s lost: %.40s %v", stage, k, r, err)
			}
		}
		if err := storage.CheckInvariants(inst.Server.Store()); err != nil {
			t.Fatalf("%s: invariants: %v", stage, err)
		}
	}
	check("after recovery")
	inst.Restart(t)
	reader = dial(t, inst)
	check("after restart")
}
