package tests

import (
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// TestRestartKeepsData writes through go-redis, restarts Strata on the same
// data directory and reads the data back.
func TestRestartKeepsData(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := t.Context()
	c := testutil.Client(t, inst)
	if err := c.Set(ctx, "persist:a", "1", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	inst.Restart(t)
	c2 := testutil.Client(t, inst)
	v, err := c2.Get(ctx, "persist:a").Result()
	if err != nil || v != "1" {
		t.Fatalf("GET after restart: %q, %v", v, err)
	}
}
