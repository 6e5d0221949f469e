package tests

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// TestMetricsAfterWorkload scrapes /metrics after a small workload and checks that the series
// operators rely on are present with values that follow from the workload.
func TestMetricsAfterWorkload(t *testing.T) {
	inst := testutil.StartStrata(t, func(c *config.Config) { c.MetricsAddr = "127.0.0.1:0" })
	rdb := testutil.Client(t, inst)
	ctx := context.Background()
	for i := 0; i < 50; i++ {
		if err := rdb.Set(ctx, fmt.Sprint("k", i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	rdb.Get(ctx, "k1")
	rdb.Get(ctx, "nokey")
	rdb.Do(ctx, "MGET", "k2", "k3", "nokey")
	rdb.Do(ctx, "INCR", "k1") // fails: not an integer
	rdb.Do(ctx, "GET")        // rejected: wrong number of arguments
	rdb.Do(ctx, "SELECT", "3")

	resp, err := http.Get("http://" + inst.Server.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)

	value := func(series string) float64 {
		t.Helper()
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` ([0-9.e+-]+)$`)
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("series %s missing from /metrics", series)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	checks := []struct {
		series string
		ok     func(float64) bool
	}{
		{`strata_commands_processed_total{command="set"}`, func(v float64) bool { return v == 50 }},
		{`strata_commands_failed_total{command="incr"}`, func(v float64) bool { return v == 1 }},
		{`strata_command_duration_seconds_count{command="set"}`, func(v float64) bool { return v == 50 }},
		{`strata_command_duration_seconds_bucket{command="set",le="+Inf"}`, func(v float64) bool { return v == 50 }},
		{`strata_command_duration_seconds_bucket{command="set",le="5"}`, func(v float64) bool { return v == 50 }},
		{`strata_command_duration_seconds_bucket{command="set",le="1e-05"}`, func(v float64) bool { return v <= 50 }},
		{`strata_command_duration_seconds_sum{command="set"}`, func(v float64) bool { return v > 0 && v < 5 }},
		{`strata_error_replies_total{prefix="ERR"}`, func(v float64) bool { return v == 2 }},
		{`strata_commands_rejected_total{command="get"}`, func(v float64) bool { return v == 1 }},
		{`strata_keyspace_hits_total`, func(v float64) bool { return v == 3 }},
		{`strata_keyspace_misses_total`, func(v float64) bool { return v == 2 }},
		{`strata_keys{db="0"}`, func(v float64) bool { return v == 50 }},
		{`strata_keys_with_expiry{db="0"}`, func(v float64) bool { return v == 0 }},
		{`strata_connected_clients`, func(v float64) bool { return v >= 1 }},
		{`strata_connections_received_total`, func(v float64) bool { return v >= 1 }},
		{`strata_net_input_bytes_total`, func(v float64) bool { return v > 50*20 }},
		{`strata_net_output_bytes_total`, func(v float64) bool { return v > 50*5 }},
		{`strata_blocked_clients`, func(v float64) bool { return v == 0 }},
		{`strata_leveldb_level_bytes{level="0"}`, func(v float64) bool { return v >= 0 }},
		{`strata_leveldb_write_stalls_total`, func(v float64) bool { return v >= 0 }},
		{`strata_leveldb_compactions_total{kind="memtable"}`, func(v float64) bool { return v >= 0 }},
		{`strata_leveldb_block_cache_bytes`, func(v float64) bool { return v >= 0 }},
		{`strata_data_dir_bytes`, func(v float64) bool { return v > 0 }},
		{`strata_expired_keys_total`, func(v float64) bool { return v == 0 }},
		{`strata_gc_backlog`, func(v float64) bool { return v >= 0 }},
		{`go_goroutines`, func(v float64) bool { return v > 0 }},
		{`process_resident_memory_bytes`, func(v float64) bool { return v > 0 }},
	}
	for _, c := range checks {
		if v := value(c.series); !c.ok(v) {
			t.Errorf("%s = %v: implausible", c.series, v)
		}
	}
	// A command nobody called has no series: an idle server exports none per command.
	if strings.Contains(text, `command="lpush"`) {
		t.Error("series exported for LPUSH, which never ran")
	}
	ran := map[string]bool{}
	for _, m := range regexp.MustCompile(`\nstrata_command_duration_seconds_bucket\{command="([a-z_|-]+)"`).FindAllStringSubmatch(text, -1) {
		ran[m[1]] = true
	}
	if n := strings.Count(text, "\nstrata_command_duration_seconds_bucket{"); n != 15*len(ran) || len(ran) > 7 {
		t.Errorf("%d histogram buckets exported for the commands run (%v)", n, ran)
	}
	if !regexp.MustCompile(`strata_build_info\{goversion="go[^"]+",version="[^"]+"\} 1`).MatchString(text) {
		t.Error("strata_build_info missing")
	}
	if regexp.MustCompile(`command="[^"]*[A-Z]`).MatchString(text) {
		t.Error("a command label is not taken from the command table")
	}

	// Every metric the Grafana dashboard queries exists.
	dash, err := os.ReadFile("../contrib/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`\b((?:strata|process|go)_[a-z0-9_]+?)(?:_bucket)?\{`).FindAllStringSubmatch(string(dash), -1)
	if len(names) < 20 {
		t.Fatalf("found only %d metric queries in the dashboard", len(names))
	}
	for _, name := range names {
		if !strings.Contains(text, "\n"+name[1]) {
			t.Errorf("dashboard queries %s, which /metrics does not serve", name[1])
		}
	}
}
