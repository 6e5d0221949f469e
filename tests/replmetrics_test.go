package tests

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// scrapeSeries reads inst's /metrics and returns a function that finds a series' value, failing
// the test when the series is missing.
func scrapeSeries(t *testing.T, inst *testutil.Instance) func(series string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + inst.Server.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return func(series string) float64 {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` ([0-9.e+-]+)$`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("series %s missing from the /metrics of %s", series, inst.Addr)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
}

// TestReplicationMetrics: the /metrics of a master with one replica and of the replica show the
// configured backlog size and the bytes it holds, one full synchronisation and no refused
// partial one, the replica's lag, and on the replica its link up.
func TestReplicationMetrics(t *testing.T) {
	t.Parallel()
	withMetrics := func(c *config.Config) { c.MetricsAddr = "127.0.0.1:0" }
	master := testutil.StartStrata(t, withMetrics, func(c *config.Config) {
		if err := c.Set("repl-backlog-size", []string{"3mb"}); err != nil {
			t.Fatal(err)
		}
	})
	host, port, _ := net.SplitHostPort(master.Addr)
	replica := testutil.StartStrata(t, withMetrics, func(c *config.Config) { c.ReplicaOf = host + " " + port })
	mc, rc := dial(t, master), dial(t, replica)
	waitInSync(t, mc, rc)
	mustDo(t, mc, "OK", "SET", "k", "v")
	waitInSync(t, mc, rc)

	m := scrapeSeries(t, master)
	for _, c := range []struct {
		series string
		want   float64
	}{
		{"strata_repl_backlog_size_bytes", 3 << 20},
		{"strata_sync_full_total", 1},
		{"strata_sync_partial_ok_total", 0},
		{"strata_sync_partial_err_total", 0},
		{"strata_connected_replicas", 1},
	} {
		if v := m(c.series); v != c.want {
			t.Errorf("master: %s = %v, want %v", c.series, v, c.want)
		}
	}
	if v := m("strata_repl_backlog_bytes"); v <= 0 || v > 3<<20 {
		t.Errorf("master: strata_repl_backlog_bytes = %v after a write", v)
	}
	if v := m(`strata_replica_lag_bytes{replica="0"}`); v < 0 {
		t.Errorf(`master: strata_replica_lag_bytes{replica="0"} = %v`, v)
	}
	if v := m(`strata_replica_lag_seconds{replica="0"}`); v < 0 || v > 2 {
		t.Errorf(`master: strata_replica_lag_seconds{replica="0"} = %v for a replica that acknowledges every second`, v)
	}

	r := scrapeSeries(t, replica)
	if v := r("strata_master_link_up"); v != 1 {
		t.Errorf("replica: strata_master_link_up = %v", v)
	}
	if v := r("strata_repl_backlog_size_bytes"); v != 1<<20 {
		t.Errorf("replica: strata_repl_backlog_size_bytes = %v, want the default 1 MB", v)
	}
}
