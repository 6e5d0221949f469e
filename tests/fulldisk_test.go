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
// that they fail with MISCONF, that reads and other clients keep working, that writes resume
// by themselves once space is freed, and that no acknowledged write is lost, across a restart
// too.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	disk := mountTmpfs(t, "24m")
	// Ballast frees space when deleted.
	ballast := filepath.Join(disk, "ballast")
	if err := os.WriteFile(ballast, make([]byte, 6<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(disk, "data")
	inst := testutil.StartStrata(t, func(c *config.Config) {
		c.Dir = dataDir
		c.AppendFsync = "always"
		c.LevelDBWriteBufferSize = 1 << 20
		c.LevelDBCompression = "none"
	})
	c := dial(t, inst)
	reader := dial(t, inst)

	value := strings.Repeat("v", 4000)
	var acked []string
	var failure string
	for i := 0; i < 20000 && failure == ""; i++ {
		key := fmt.Sprintf("fill:%05d", i)
		r, err := c.Do("SET", key, value)
		if err != nil {
			t.Fatalf("SET %s: %v", key, err)
		}
		switch {
		case r.Kind == testutil.KindSimple && r.Str == "OK":
			acked = append(acked, key)
		case r.IsError():
			failure = r.Str
		default:
			t.Fatalf("SET %s: %s", key, r)
		}
	}
	if failure == "" {
		t.Fatalf("%d SETs of 4000 bytes fit on a 24 MiB disk", len(acked))
	}
	t.Logf("disk full after %d acknowledged SETs: %q", len(acked), failure)
	const want = "MISCONF Errors writing to the disk: No space left on device"
	if failure != want {
		t.Errorf("first failing write answered %q, want %q", failure, want)
	}
	// While the disk is full: writes are refused, reads and read-only commands work.
	mustDo(t, c, "(error) "+want, "SET", "another", "x")
	mustDo(t, c, "(error) "+want, "INCR", "counter")
	mustDo(t, reader, `"`+value+`"`, "GET", acked[0])
	mustDo(t, reader, `"`+value+`"`, "GET", acked[len(acked)-1])
	mustDo(t, reader, fmt.Sprintf("(integer) %d", len(acked)), "DBSIZE")
	mustDo(t, reader, "PONG", "PING")

	// Free space: writes come back without a restart.
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := c.Do("SET", "after", "space")
		if err != nil {
			t.Fatal(err)
		}
		if r.Kind == testutil.KindSimple {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("writes still fail 30 s after space was freed: %s", r)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i := 0; i < 200; i++ {
		mustDo(t, c, "OK", "SET", fmt.Sprintf("again:%d", i), value)
	}
	check := func(stage string) {
		t.Helper()
		for _, k := range acked {
			r, err := reader.Do("GET", k)
			if err != nil || r.Str != value {
				t.Fatalf("%s: acknowledged %s lost: %s %v", stage, k, r, err)
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
	mustDo(t, reader, `"space"`, "GET", "after")
}
