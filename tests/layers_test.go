package tests

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportLayers keeps the imports one way: cmd -> server -> commands -> storage -> goleveldb,
// with config as a leaf. storage knows nothing of RESP or metrics; commands knows nothing of sockets.
func TestImportLayers(t *testing.T) {
	const mod = "github.com/strata-db/strata/"
	forbidden := map[string][]string{
		"storage":  {mod + "commands", mod + "server", mod + "config", "github.com/tidwall/redcon", "github.com/prometheus/", "net"},
		"commands": {mod + "server", "github.com/tidwall/redcon"},
		"config":   {mod + "storage", mod + "commands", mod + "server", "github.com/"},
		// internal/ holds leaves: nothing of Strata's, nothing outside the standard library.
		"internal/glob": {mod, "github.com/"},
		// rdb is the RDB and DUMP codec, a leaf like internal/.
		"rdb": {mod, "github.com/"},
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
