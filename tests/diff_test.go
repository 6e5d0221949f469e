package tests

import (
	"testing"

	"github.com/strata-db/strata/internal/testutil"
)

// TestDiffTranscripts runs every transcript in testdata/ against Strata and
// a reference redis-server and compares the replies line by line. It is
// skipped when redis-server is not installed, unless
// STRATA_REQUIRE_EXTERNAL=1. Set STRATA_DIFF_REPORT=/path to collect the
// mismatches in a file.
func TestDiffTranscripts(t *testing.T) {
	testutil.DiffFiles(t, "testdata/*.txt")
}
