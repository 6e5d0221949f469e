package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLatencyHistogram: LATENCY HISTOGRAM reports the calls of each command asked for (and of
// their subcommands) with a cumulative distribution, as redis-server shapes it; unknown names
// are skipped; CONFIG RESETSTAT clears them; LATENCY's other subcommands answer as Redis's do
// with no events.
func TestLatencyHistogram(t *testing.T) {
	t.Parallel()
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			c := dial(t, inst)
			mustDo(t, c, "OK", "CONFIG", "RESETSTAT")
			mustDo(t, c, "OK", "SET", "a", "b")
			mustDo(t, c, "OK", "SET", "c", "d")
			c.Do("CLIENT", "ID")
			r, err := c.Do("LATENCY", "HISTOGRAM", "set", "client", "nosuchcommand")
			if err != nil || len(r.Elems) != 4 {
				t.Fatalf("LATENCY HISTOGRAM: %v %v", r, err)
			}
			seen := map[string]string{}
			for i := 0; i+1 < len(r.Elems); i += 2 {
				h := r.Elems[i+1]
				if len(h.Elems) != 4 || h.Elems[0].Str != "calls" || h.Elems[2].Str != "histogram_usec" {
					t.Fatalf("entry %q: %v", r.Elems[i].Str, h)
				}
				buckets := h.Elems[3].Elems
				if len(buckets) < 2 || buckets[len(buckets)-1].Int != h.Elems[1].Int {
					t.Errorf("%s: buckets %v do not end at the call count %d", r.Elems[i].Str, buckets, h.Elems[1].Int)
				}
				seen[r.Elems[i].Str] = h.Elems[1].String()
			}
			if seen["set"] != "(integer) 2" || seen["client|id"] != "(integer) 1" {
				t.Errorf("histograms %v", seen)
			}
			mustDo(t, c, "OK", "CONFIG", "RESETSTAT")
			mustDo(t, c, "(empty array)", "LATENCY", "HISTOGRAM", "set")
			mustDo(t, c, "(empty array)", "LATENCY", "HISTORY", "command")
			mustDo(t, c, "(integer) 0", "LATENCY", "RESET", "nosuchevent")
			mustDo(t, c, "(error) ERR No samples available for event 'command'", "LATENCY", "GRAPH", "command")
			mustDo(t, c, "(error) ERR wrong number of arguments for 'latency|help' command", "LATENCY", "HELP", "x")
			if r, err := c.Do("LATENCY", "DOCTOR"); err != nil || !strings.Contains(r.String(), "atency") {
				t.Errorf("LATENCY DOCTOR: %v %v", r, err)
			}
		})
	}
}

// TestMemoryUsage: MEMORY USAGE answers at least the bytes a key holds, for a string and for
// collections estimated from samples (SAMPLES 0: all), on Strata as on redis-server; MEMORY
// STATS reports the key count.
func TestMemoryUsage(t *testing.T) {
	t.Parallel()
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			c := dial(t, inst)
			mustDo(t, c, "OK", "SET", "mem:s", strings.Repeat("v", 1000))
			args := []string{"HSET", "mem:h"}
			for i := 0; i < 100; i++ {
				args = append(args, fmt.Sprintf("field%03d", i), strings.Repeat("x", 20))
			}
			c.Do(args...)
			args = []string{"RPUSH", "mem:l"}
			for i := 0; i < 300; i++ {
				args = append(args, strings.Repeat("y", 30))
			}
			c.Do(args...)
			for key, least := range map[string]int64{"mem:s": 1000, "mem:h": 100 * 28, "mem:l": 300 * 30} {
				for _, extra := range [][]string{nil, {"SAMPLES", "0"}, {"SAMPLES", "3"}} {
					r, err := c.Do(append([]string{"MEMORY", "USAGE", key}, extra...)...)
					if err != nil || r.Int < least || r.Int > 20*least {
						t.Errorf("MEMORY USAGE %s %v = %v %v, want about %d", key, extra, r, err, least)
					}
				}
			}
			r, err := c.Do("MEMORY", "STATS")
			if err != nil || !strings.Contains(r.String(), "keys.count") {
				t.Errorf("MEMORY STATS: %v %v", r, err)
			}
		})
	}
}

// TestLatencyExpireCycle: an active expiry cycle that takes at least latency-monitor-threshold
// is an expire-cycle event in LATENCY LATEST and HISTORY. Expiry is held off (DEBUG
// SET-ACTIVE-EXPIRE 0) while 20,000 keys get a time to live of 1 ms, so the first cycle after
// it is let go meets them all and steps for its whole time budget; a cycle with nothing to do is
// no event.
func TestLatencyExpireCycle(t *testing.T) {
	t.Parallel()
	c := dial(t, debugStrata(t, "yes"))
	mustDo(t, c, "OK", "CONFIG", "SET", "latency-monitor-threshold", "20")
	time.Sleep(300 * time.Millisecond) // idle cycles
	mustDo(t, c, "(empty array)", "LATENCY", "HISTORY", "expire-cycle")
	mustDo(t, c, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	const n = 20000
	for i := 0; i < n; i += 1000 {
		args := []string{"MSET"}
		for j := i; j < i+1000; j++ {
			args = append(args, fmt.Sprintf("k%d", j), "v")
		}
		mustDo(t, c, "OK", args...)
	}
	for i := 0; i < n; i++ {
		if err := c.Send("PEXPIRE", fmt.Sprintf("k%d", i), "1"); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		if r, err := c.ReadReply(); err != nil || r.Int != 1 {
			t.Fatalf("PEXPIRE: %v %v", r, err)
		}
	}
	time.Sleep(5 * time.Millisecond)
	mustDo(t, c, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r, err := c.Do("LATENCY", "HISTORY", "expire-cycle")
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Elems) > 0 {
			if ms := r.Elems[0].Elems[1].Int; ms < 20 {
				t.Errorf("expire-cycle sample of %d ms, under the threshold", ms)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no expire-cycle event")
		}
	}
	if r, err := c.Do("LATENCY", "LATEST"); err != nil || !strings.Contains(r.String(), `"expire-cycle"`) {
		t.Errorf("LATENCY LATEST: %v %v", r, err)
	}
}
