#!/usr/bin/env bash
# Crash soak: runs tests/crash_test.go's harness (TestCrashRecovery) for many SIGKILL cycles per
# fsync policy (appendfsync always, then everysec) and prints each cycle and the summaries.
#
#   scripts/crash-soak.sh [cycles (default 100)] [seed (default: time)]
#
# Every cycle writes from 8 clients, kills the server with SIGKILL at a random moment, runs
# `strata check` on a copy of the data directory, restarts the server and reads back every
# acknowledged write. It exits non-zero at the first violation.
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${1:-100}
seed=${2:-$(date +%s%N)}
log=$(mktemp -t strata-crash-soak.XXXXXX)
echo "crash soak: $cycles cycles per policy, seed $seed, full log in $log"
start=$(date +%s)
status=0
STRATA_CRASH_CYCLES=$cycles STRATA_CRASH_SEED=$seed \
	go test ./tests -run '^TestCrashRecovery$' -count=1 -v -timeout 120m >"$log" 2>&1 || status=$?
grep -E 'crash (cycle|summary)|recovery log|lost|FAIL|^(ok|PASS)' "$log" | sed 's/^ *//' || true
echo "crash soak: exit status $status after $(( $(date +%s) - start )) s"
exit $status
