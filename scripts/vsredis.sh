#!/usr/bin/env bash
# Throughput and p99 latency of Strata against redis-server: starts each in turn on a free
# loopback port with a fresh data directory, runs the same redis-benchmark tests against it,
# and alternates the two over the rounds. Each line: round, server, then per test
# "TEST rps p99_ms". STRATA_ARGS and REDIS_ARGS add directives to either server's command line.
#
#   scripts/vsredis.sh STRATA_BIN TESTS ROUNDS [redis-benchmark options...]
#   STRATA_ARGS="--appendfsync always" REDIS_ARGS="--appendonly yes --appendfsync always" \
#     scripts/vsredis.sh /tmp/strata set 3 -c 50 -n 20000
set -euo pipefail
if [ $# -lt 3 ]; then
	sed -n '2,9p' "$0" >&2
	exit 2
fi
bin=$1 tests=$2 rounds=$3
shift 3
for r in $(seq "$rounds"); do
	for kind in strata redis; do
		dir=$(mktemp -d)
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
		if [ $kind = strata ]; then
			# shellcheck disable=SC2086
			"$bin" --port "$port" --dir "$dir" --metrics-addr "" ${STRATA_ARGS:-} >/dev/null 2>&1 &
		else
			# shellcheck disable=SC2086
			redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly no ${REDIS_ARGS:-} >/dev/null 2>&1 &
		fi
		pid=$!
		for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
		out=$(redis-benchmark -p "$port" -t "$tests" --csv "$@" 2>/dev/null |
			tail -n +2 | tr -d '"' | awk -F, '{printf "%s %s %s  ", $1, $2, $7}')
		echo "$r $kind $out"
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		rm -rf "$dir"
	done
done
