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
	const want = "MISCONF Errors writing to the AOF file: No space left on device"
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
		mustDo(t, reader, "(error) "+want, "PING")
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

// fillDisk writes a file in dir until the file system holding it has no room left, and returns
// the file's path: removing it frees the space again.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, chunk := range []int{1 << 20, 4 << 10, 512} {
		buf := make([]byte, chunk)
		for {
			if _, err := f.Write(buf); err != nil {
				break
			}
		}
	}
	if err := f.Sync(); err != nil {
		t.Logf("sync %s: %v", path, err)
	}
	return path
}

// awaitWrites sends SET key value until it is accepted, for up to 30 seconds, and reports what
// the disk held if it never is.
func awaitWrites(t *testing.T, c *testutil.Conn, disk, key, value string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := c.Do("SET", key, value)
		if err != nil {
			t.Fatal(err)
		}
		if r.Kind == testutil.KindSimple && r.Str == "OK" {
			return
		}
		if !r.IsError() || !strings.HasPrefix(r.Str, "MISCONF ") {
			t.Fatalf("SET %s while waiting for writes: %s", key, r)
		}
		if time.Now().After(deadline) {
			out, _ := exec.Command("sh", "-c", "df -k "+disk+"; du -ak "+disk+" | sort -n | tail -25").CombinedOutput()
			t.Fatalf("writes still fail 30 s after space was freed: %s\n%s", r, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestFullDiskStart starts a server on a data directory whose disk has no room left: it must
// start, answer reads of everything written before, refuse writes with MISCONF, and accept
// writes again once space is freed, without a restart; nothing acknowledged is lost.
func TestFullDiskStart(t *testing.T) {
	t.Parallel()
	disk := mountTmpfs(t, "48m")
	dataDir := filepath.Join(disk, "data")
	configure := func(c *config.Config) {
		c.Dir = dataDir
		c.AppendFsync = "always"
		c.LevelDBWriteBufferSize = 4 << 20
		c.LevelDBCompression = "none"
	}
	acked := map[string]string{}
	first := testutil.StartStrata(t, configure)
	c := dial(t, first)
	for i := 0; i < 300; i++ {
		key, value := fmt.Sprintf("small:%03d", i), strings.Repeat(fmt.Sprint(i%10), 1000)
		mustDo(t, c, "OK", "SET", key, value)
		acked[key] = value
	}
	for i := 0; i < 5; i++ {
		key, value := fmt.Sprintf("large:%d", i), strings.Repeat(fmt.Sprint(i), 100<<10)
		mustDo(t, c, "OK", "SET", key, value)
		acked[key] = value
	}
	mustDo(t, c, "(integer) 2", "HSET", "hash", "f1", "v1", "f2", "v2")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	filler := fillDisk(t, disk)
	inst := testutil.StartStrata(t, configure)
	c = dial(t, inst)
	const want = "MISCONF Errors writing to the AOF file: No space left on device"
	for k, v := range acked {
		mustDo(t, c, `"`+v+`"`, "GET", k)
	}
	mustDo(t, c, "1) \"f1\"\n2) \"v1\"\n3) \"f2\"\n4) \"v2\"", "HGETALL", "hash")
	mustDo(t, c, fmt.Sprintf("(integer) %d", len(acked)+1), "DBSIZE")
	mustDo(t, c, "(error) "+want, "SET", "another", "x")
	mustDo(t, c, "(error) "+want, "HSET", "hash", "f3", "v3")
	mustDo(t, c, "(error) "+want, "DEL", "small:000")
	mustDo(t, c, `"`+acked["small:000"]+`"`, "GET", "small:000")

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	awaitWrites(t, c, disk, "after", "space")
	acked["after"] = "space"
	for i := 0; i < 50; i++ {
		key, value := fmt.Sprintf("again:%d", i), strings.Repeat("z", 2000)
		mustDo(t, c, "OK", "SET", key, value)
		acked[key] = value
	}
	mustDo(t, c, "(integer) 1", "HSET", "hash", "f3", "v3")
	check := func(stage string) {
		t.Helper()
		for k, v := range acked {
			mustDo(t, c, `"`+v+`"`, "GET", k)
		}
		mustDo(t, c, `"v3"`, "HGET", "hash", "f3")
		if err := storage.CheckInvariants(inst.Server.Store()); err != nil {
			t.Fatalf("%s: invariants: %v", stage, err)
		}
	}
	check("after space returned")
	inst.Restart(t)
	c = dial(t, inst)
	check("after restart")
}

// TestFullDiskHeadroom fills the disk under the default write buffer (64 MiB), frees 40 MiB,
// and checks that writes resume and stay accepted: the journal reserves its room in steps, so
// a write needs room for itself, not for a whole journal. The memtable filled before the disk
// did cannot be flushed in 40 MiB, so the restart at the end opens read-only, from two journals,
// and must still read every acknowledged write.
func TestFullDiskHeadroom(t *testing.T) {
	t.Parallel()
	disk := mountTmpfs(t, "200m")
	keep := filepath.Join(disk, "ballast-kept")
	if err := os.WriteFile(keep, make([]byte, 50<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	freed := filepath.Join(disk, "ballast-freed")
	if err := os.WriteFile(freed, make([]byte, 40<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	inst := testutil.StartStrata(t, func(c *config.Config) {
		c.Dir = filepath.Join(disk, "data")
		c.AppendFsync = "always"
		c.LevelDBCompression = "none"
	})
	c := dial(t, inst)
	const want = "MISCONF Errors writing to the AOF file: No space left on device"
	acked := map[string]string{}
	value := strings.Repeat("v", 4000)
	failure := ""
	for i := 0; i < 100000 && failure == ""; i++ {
		key := fmt.Sprintf("fill:%06d", i)
		r, err := c.Do("SET", key, value)
		if err != nil {
			t.Fatalf("SET %s: %v", key, err)
		}
		switch {
		case r.Kind == testutil.KindSimple && r.Str == "OK":
			acked[key] = value
		case r.IsError():
			failure = r.Str
		default:
			t.Fatalf("SET %s: %s", key, r)
		}
	}
	t.Logf("disk full after %d acknowledged SETs: %q", len(acked), failure)
	if failure != want {
		t.Fatalf("first failing write answered %q, want %q", failure, want)
	}
	mustDo(t, c, "(error) "+want, "SET", "another", "x")

	if err := os.Remove(freed); err != nil {
		t.Fatal(err)
	}
	awaitWrites(t, c, disk, "after", "space")
	acked["after"] = "space"
	// Writes stay accepted over several probe periods.
	deadline := time.Now().Add(3 * time.Second)
	for i := 0; time.Now().Before(deadline) || i < 200; i++ {
		key := fmt.Sprintf("again:%05d", i)
		r, err := c.Do("SET", key, value)
		if err != nil {
			t.Fatal(err)
		}
		if r.Kind != testutil.KindSimple || r.Str != "OK" {
			t.Fatalf("SET %s after %d accepted writes with 40 MiB freed: %s", key, i, r)
		}
		acked[key] = value
		time.Sleep(10 * time.Millisecond)
	}
	inst.Restart(t)
	c = dial(t, inst)
	mustDo(t, c, "(error) "+want, "SET", "another", "x")
	for k, v := range acked {
		r, err := c.Do("GET", k)
		if err != nil || r.Str != v {
			t.Fatalf("after restart: acknowledged %s lost: %.40s %v", k, r, err)
		}
	}
}
