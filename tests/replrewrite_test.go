package tests

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// TestReplicaOfConfigRewrite: CONFIG REWRITE after REPLICAOF host port writes the master into
// the configuration file, and after REPLICAOF NO ONE it removes the line, as Redis 7.0 does.
func TestReplicaOfConfigRewrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "strata.conf")
	if err := os.WriteFile(path, []byte("# the replica\nloglevel warning\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	master := testutil.StartStrata(t)
	replica := testutil.StartStrata(t, func(c *config.Config) {
		if err := c.LoadFile(path); err != nil {
			t.Fatal(err)
		}
	})
	replica.Server.SetConfigFile(path)
	rc := dial(t, replica)
	host, port, _ := net.SplitHostPort(master.Addr)

	mustDo(t, rc, "OK", "REPLICAOF", host, port)
	mustDo(t, rc, "OK", "CONFIG", "REWRITE")
	if cfg := loadConfigFile(t, path); cfg.ReplicaOf != host+" "+port {
		t.Errorf("replicaof read back as %q, want %q", cfg.ReplicaOf, host+" "+port)
	}

	mustDo(t, rc, "OK", "REPLICAOF", "NO", "ONE")
	mustDo(t, rc, "OK", "CONFIG", "REWRITE")
	if cfg := loadConfigFile(t, path); cfg.ReplicaOf != "" {
		t.Errorf("replicaof read back as %q after REPLICAOF NO ONE", cfg.ReplicaOf)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "replicaof") {
		t.Errorf("the rewritten file still names a master:\n%s", data)
	}
	if !strings.HasPrefix(string(data), "# the replica\nloglevel warning\n") {
		t.Errorf("the file's own lines were not kept:\n%s", data)
	}
}

// loadConfigFile reads a configuration file with the config package.
func loadConfigFile(t *testing.T, path string) *config.Config {
	t.Helper()
	cfg := config.Default()
	if err := cfg.LoadFile(path); err != nil {
		data, _ := os.ReadFile(path)
		t.Fatalf("loading the rewritten file: %v\n%s", err, data)
	}
	return cfg
}
