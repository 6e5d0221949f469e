#!/usr/bin/env bash
# A/B throughput of two Strata builds: starts each in turn on a free loopback port with a fresh
# data directory, runs the same redis-benchmark tests against it, and alternates the two over
# the rounds, printing requests per second per test.
#
#   scripts/ab.sh BUILD_A BUILD_B TESTS ROUNDS [redis-benchmark options...]
#   N=1000000 scripts/ab.sh /tmp/strata-old /tmp/strata-new get,set 3 -P 16
set -euo pipefail
if [ $# -lt 4 ]; then
	sed -n '2,7p' "$0" >&2
	exit 2
fi
a=$1 b=$2 tests=$3 rounds=$4
shift 4
for r in $(seq "$rounds"); do
	for bin in "$a" "$b"; do
		dir=$(mktemp -d)
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
		"$bin" --port "$port" --dir "$dir" --metrics-addr "" >/dev/null 2>&1 &
		pid=$!
		for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
		out=$(redis-benchmark -p "$port" -t "$tests" -n "${N:-200000}" --csv "$@" 2>/dev/null |
			tail -n +2 | cut -d, -f1,2 | tr -d '"' | tr '\n' ' ')
		echo "$r $bin $out"
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		rm -rf "$dir"
	done
done
