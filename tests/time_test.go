package tests

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTime: TIME answers seconds and microseconds of the server's clock, as redis-server does,
// and COMMAND INFO describes it as Redis does.
func TestTime(t *testing.T) {
	t.Parallel()
	var info []string
	for _, inst := range servers(t) {
		c := dial(t, inst)
		before := time.Now()
		r, err := c.Do("TIME")
		after := time.Now()
		if err != nil || len(r.Elems) != 2 {
			t.Fatalf("%s: TIME %v %v", inst.Name, r, err)
		}
		sec, err1 := strconv.ParseInt(r.Elems[0].Str, 10, 64)
		usec, err2 := strconv.ParseInt(r.Elems[1].Str, 10, 64)
		at := time.Unix(sec, usec*1000)
		if err1 != nil || err2 != nil || usec < 0 || usec > 999999 ||
			at.Before(before.Add(-time.Millisecond)) || at.After(after.Add(time.Millisecond)) {
			t.Errorf("%s: TIME %v outside [%v, %v]", inst.Name, r, before, after)
		}
		ci, err := c.Do("COMMAND", "INFO", "time")
		if err != nil {
			t.Fatal(err)
		}
		info = append(info, ci.String())
		mustDo(t, c, "(error) ERR wrong number of arguments for 'time' command", "TIME", "x")
	}
	if len(info) == 2 && info[0] != info[1] {
		t.Errorf("COMMAND INFO time:\n%s\nredis:\n%s", info[0], info[1])
	}
}

// TestBgRewriteAOF: BGREWRITEAOF answers as Redis does; in Strata it compacts the journal, and
// INFO persistence shows aof_rewrite_in_progress:1 until the compaction has run.
func TestBgRewriteAOF(t *testing.T) {
	t.Parallel()
	for _, inst := range servers(t) {
		c := dial(t, inst)
		mustDo(t, c, "OK", "SET", "k", "v")
		mustDo(t, c, "Background append only file rewriting started", "BGREWRITEAOF")
		mustDo(t, c, "(error) ERR wrong number of arguments for 'bgrewriteaof' command", "BGREWRITEAOF", "x")
		mustDo(t, c, "\"v\"", "GET", "k")
		if inst.Server == nil {
			continue
		}
		runs := inst.Server.Store().CompactInfo().Runs
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			r, err := c.Do("INFO", "persistence")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(r.Str, "aof_rewrite_in_progress:0") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("aof_rewrite_in_progress still 1: %s", r.Str)
			}
		}
		if n := inst.Server.Store().CompactInfo().Runs; n != 1 || runs > 1 {
			t.Errorf("compactions run: %d (before waiting %d), want 1", n, runs)
		}
	}
}
