package tests

import (
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// TestScriptingTranscripts compares the scripting and functions transcripts with redis-server.
func TestScriptingTranscripts(t *testing.T) {
	want := testutil.StartRedis(t)
	got := testutil.StartStrata(t)
	for _, f := range []string{"testdata/scripting.txt", "testdata/functions.txt"} {
		testutil.DiffFilesBetween(t, f, want, got)
	}
}
