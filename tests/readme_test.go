package tests

import (
	"os"
	"strings"
	"testing"

	"github.com/strata-db/strata/config"
)

// TestREADMEDocumentsEveryDirective keeps README's configuration reference complete, and its
// two commands (start the server, run the tests) present.
func TestREADMEDocumentsEveryDirective(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, d := range config.Directives() {
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
