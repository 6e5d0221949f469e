package tests

import (
	"os"
	"path"
	"strings"
	"testing"

	"github.com/strata-db/strata/config"
)

// TestREADMEDocumentsEveryDirective keeps README's configuration reference complete, and its
// two commands (start the server, run the tests) present; Redis's directives that Strata
// answers without acting on are listed in docs/operations.md instead.
func TestREADMEDocumentsEveryDirective(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	ops, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string // the first word of each `code` span of docs/operations.md
	for i, span := range strings.Split(string(ops), "`") {
		if f := strings.Fields(span); i%2 == 1 && len(f) > 0 {
			listed = append(listed, f[0])
		}
	}
	inOps := func(name string) bool {
		for _, l := range listed {
			if ok, _ := path.Match(l, name); ok || l == name {
				return true
			}
		}
		return false
	}
	for _, d := range config.Directives() {
		if config.Inert(d.Name) {
			if !inOps(d.Name) {
				t.Errorf("docs/operations.md does not list Redis's directive %q", d.Name)
			}
			continue
		}
		if !strings.Contains(readme, "| `"+d.Name+"` |") {
			t.Errorf("README's configuration reference lacks %q", d.Name)
		}
	}
	for _, cmd := range []string{"go run ./cmd/strata", "go test ./..."} {
		if !strings.Contains(readme, cmd) {
			t.Errorf("README lacks %q", cmd)
		}
	}
}
