#!/usr/bin/env bash
# Long differential random test: tests/randomdiff_test.go's TestRandomDiff against redis-server
# (which must be installed), every mismatch reported.
#
#   scripts/randomdiff.sh [seed (default: time)] [commands per protocol (default 200000)]
#
# The same seed replays the same command sequence.
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-$(date +%s%N)}
n=${2:-200000}
echo "random differential test: seed $seed, $n commands in RESP2 and $n in RESP3"
STRATA_REQUIRE_EXTERNAL=1 STRATA_RANDOMDIFF_SEED=$seed STRATA_RANDOMDIFF_N=$n STRATA_RANDOMDIFF_ALL=1 \
	go test ./tests -run '^TestRandomDiff$' -count=1 -v -timeout 120m 2>&1 |
	grep -vE '^=== (RUN|PAUSE|CONT)'
