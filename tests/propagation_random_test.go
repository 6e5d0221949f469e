package tests

import (
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// TestPropagationRandom runs the random command mix of TestRandomDiff (every data type,
// with relative and absolute expiries) on a redis-server with a recorded replica link
// and on Strata with a recorded receiver, and compares the two write streams command by
// command. STRATA_RANDOMDIFF_SEED sets the seed, STRATA_RANDOMDIFF_N the number of commands.
func TestPropagationRandom(t *testing.T) {
	n, seed := randomMixSize(t, 1500)
	p := startPropagationPair(t)
	rc, sc := dial(t, p.redis), dial(t, p.strata)
	g := &cmdGen{rng: rand.New(rand.NewSource(seed))}
	for i := 0; i < n; i++ {
		args, _ := g.next()
		if _, err := rc.Do(args...); err != nil {
			t.Fatalf("redis: %s: %v", quoteArgs(args), err)
		}
		if _, err := sc.Do(args...); err != nil {
			t.Fatalf("strata: %s: %v", quoteArgs(args), err)
		}
	}
	want, got := p.fence(t, rc, sc)
	if len(want) < n/10 {
		t.Fatalf("redis-server propagated only %d commands of %d", len(want), n)
	}
	t.Logf("%d commands propagated", len(want))
	maskRandomPops(want)
	maskRandomPops(got)
	if d := testutil.DiffStreams(want, got); d != "" {
		t.Errorf("write streams differ (seed %d): %s", seed, d)
	}
}

// randomMixSize returns the number of commands of a random command mix (n unless
// STRATA_RANDOMDIFF_N says) and its seed (the clock unless STRATA_RANDOMDIFF_SEED says), and
// logs both so that a failing run can be repeated.
func randomMixSize(t *testing.T, n int) (int, int64) {
	if s := os.Getenv("STRATA_RANDOMDIFF_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("STRATA_RANDOMDIFF_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (STRATA_RANDOMDIFF_SEED), %d commands", seed, n)
	return n, seed
}
