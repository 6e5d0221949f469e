package tests

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// TestSIGTERMStopsRunningScript runs the built binary, starts a Lua script that never ends
// after it wrote a key (alone, and inside MULTI/EXEC between two SETs), sends SIGTERM, and
// expects a clean exit within seconds: shutdown stops the script, whose writes were never
// acknowledged and are dropped, with the rest of its EXEC. The data directory then opens with
// the acknowledged write and none of the others.
func TestSIGTERMStopsRunningScript(t *testing.T) {
	const endless = "redis.call('set', 'k', 'script') while true do end"
	for _, tc := range []struct {
		name  string
		queue [][]string // sent after MULTI; nil: the script runs alone
	}{
		{name: "eval"},
		{name: "exec", queue: [][]string{{"SET", "a", "1"}, {"EVAL", endless, "0"}, {"SET", "b", "1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := buildStrata(t)
			dir := t.TempDir()
			cmd, addr := startBinary(t, bin, "--dir", dir)
			c, err := testutil.Dial(addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			clExpect(t, c, "OK", "SET", "before", "v0")
			last := []string{"EVAL", endless, "0"}
			if tc.queue != nil {
				clExpect(t, c, "OK", "MULTI")
				for _, q := range tc.queue {
					clExpect(t, c, "QUEUED", q...)
				}
				last = []string{"EXEC"}
			}
			if err := c.Send(last...); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // the script is running
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("strata exited with %v after SIGTERM, want status 0", err)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatal("strata still running 10s after SIGTERM while a script ran")
			}
			inst := testutil.StartStrata(t, func(c *config.Config) { c.Dir = dir })
			rdb := testutil.Client(t, inst)
			ctx := context.Background()
			if v, err := rdb.Get(ctx, "before").Result(); err != nil || v != "v0" {
				t.Errorf("acknowledged write after restart: %q %v", v, err)
			}
			for _, k := range []string{"k", "a", "b"} {
				if n, err := rdb.Exists(ctx, k).Result(); err != nil || n != 0 {
					t.Errorf("%s: an unacknowledged write of the stopped script's command survived: exists %d %v", k, n, err)
				}
			}
		})
	}
}
