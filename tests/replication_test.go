package tests

import (
	"regexp"
	"strings"
	"testing"
)

// infoFields parses an INFO section into its field names, in order, and values.
func infoFields(text string) ([]string, map[string]string) {
	var names []string
	vals := map[string]string{}
	for _, line := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			names = append(names, k)
			vals[k] = v
		}
	}
	return names, vals
}

// TestInfoReplicationMaster: a master without replicas reports the fields INFO replication has
// on redis-server, in its order, with the same values but for its own replication ID; CONFIG
// SET repl-backlog-size shows there.
func TestInfoReplicationMaster(t *testing.T) {
	t.Parallel()
	var want []string
	for _, inst := range servers(t) {
		c := dial(t, inst)
		mustDo(t, c, "OK", "CONFIG", "SET", "repl-backlog-size", "2000000")
		r, err := c.Do("INFO", "replication")
		if err != nil {
			t.Fatal(err)
		}
		names, vals := infoFields(r.Str)
		if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(vals["master_replid"]) {
			t.Errorf("%s: master_replid %q", inst.Name, vals["master_replid"])
		}
		delete(vals, "master_replid")
		var got []string
		for _, n := range names {
			if v, ok := vals[n]; ok {
				got = append(got, n+":"+v)
			}
		}
		if want == nil {
			want = []string{"role:master", "connected_slaves:0", "master_failover_state:no-failover",
				"master_replid2:0000000000000000000000000000000000000000", "master_repl_offset:0",
				"second_repl_offset:-1", "repl_backlog_active:0", "repl_backlog_size:2000000",
				"repl_backlog_first_byte_offset:0", "repl_backlog_histlen:0"}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: INFO replication\n%s\nwant\n%s", inst.Name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
