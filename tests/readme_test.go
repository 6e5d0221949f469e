package tests

import (
	"os"
	"os/exec"
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

// TestREADMELayoutListsEveryPackage keeps README's layout table in step with the packages.
func TestREADMELayoutListsEveryPackage(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(b), "## Layout")
	if !ok {
		t.Fatal("README has no Layout section")
	}
	layout, _, _ = strings.Cut(layout, "\n## ")
	out, err := exec.Command("go", "list", "github.com/strata-db/strata/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		name := strings.TrimPrefix(pkg, "github.com/strata-db/strata/")
		if strings.HasPrefix(name, "bench/") {
			name = "bench"
		}
		if !strings.Contains(layout, "| `"+name+"` |") {
			t.Errorf("README's layout does not list %s", name)
		}
	}
}
