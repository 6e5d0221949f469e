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
		// internal/ holds leaves: nothing of Strata's, nothing outside the standard library.
		"internal/glob":    {mod, "github.com/"},
		"internal/cmddoc":  {mod, "github.com/"},
		"internal/hll":     {mod, "github.com/"},
		"internal/geohash": {mod, "github.com/"},
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
