package commands

import (
	"testing"

	"github.com/strata-db/strata/config"
)

func TestConfigMutableAreDirectives(t *testing.T) {
	known := map[string]bool{}
	for _, d := range config.Directives() {
		known[d.Name] = true
	}
	for name := range configMutable {
		if !known[name] {
			t.Errorf("mutable directive %q is not a config directive", name)
		}
	}
}
