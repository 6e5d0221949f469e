package tests

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportLayers keeps the imports one way: cmd -> server -> replication -> commands ->
// {scripting, acl} -> storage -> goleveldb, with config, rdb and internal/ as leaves. storage
// knows nothing of RESP, Lua, ACLs or metrics; commands knows nothing of sockets.
func TestImportLayers(t *testing.T) {
	const mod = "github.com/strata-db/strata/"
	forbidden := map[string][]string{
		"storage": {mod + "commands", mod + "server", mod + "config", mod + "replication", mod + "acl", mod + "scripting",
			"github.com/tidwall/redcon", "github.com/prometheus/", "github.com/yuin/gopher-lua", "net"},
		"commands":    {mod + "server", mod + "replication", "github.com/tidwall/redcon"},
		"replication": {mod + "server", "github.com/tidwall/redcon", "github.com/prometheus/"},
		"config":      {mod + "storage", mod + "commands", mod + "server", "github.com/"},
		// scripting is below commands: it reaches the command table through its Caller.
		"scripting": {mod + "commands", mod + "server", mod + "replication", "github.com/tidwall/redcon", "github.com/prometheus/"},
		// acl is the ACL model: it learns the commands from the command layer's specs and imports
		// nothing of Strata's but internal/.
		"acl": {mod + "commands", mod + "server", mod + "storage", mod + "config", mod + "scripting",
			"github.com/tidwall/redcon", "github.com/yuin/gopher-lua", "github.com/prometheus/"},
		// rdb is the RDB and DUMP codec: a leaf, standard library only.
		"rdb": {mod, "github.com/"},
	}
	// internal/ holds leaves: nothing of Strata's, nothing outside the standard library (the
	// test helpers excepted, which start servers).
	out, err := exec.Command("go", "list", mod+"internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list internal/...: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if name := strings.TrimPrefix(pkg, mod); name != "internal/testutil" {
			forbidden[name] = []string{mod, "github.com/"}
		}
	}
	if len(forbidden) < 8 {
		t.Fatalf("only %d packages checked: %v", len(forbidden), forbidden)
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == mod+pkg {
				continue
			}
			for _, b := range bad {
				if dep == b || strings.HasSuffix(b, "/") && strings.HasPrefix(dep, b) || strings.HasPrefix(dep, b+"/") {
					t.Errorf("%s imports %s", pkg, dep)
				}
			}
		}
	}
}
