#!/usr/bin/env bash
# Runs units of Redis 7.0.15's own test suite against Strata (and, with --compare, against
# redis-server too), one unit at a time, each against a fresh server in external mode.
#
#   scripts/redis-suite.sh                 run every unit of tests/redis-suite/units.txt against
#                                          Strata; fail when a unit passes fewer tests than
#                                          tests/redis-suite/baseline.tsv records, or the server died
#   scripts/redis-suite.sh --record        the same, then write the counts into baseline.tsv
#   scripts/redis-suite.sh --compare       run every unit against redis-server and Strata and print
#                                          the Markdown table kept in docs/compatibility.md
#                                          (with --record too, also write baseline.tsv)
#   scripts/redis-suite.sh unit/type/list  only the units named
#
# Environment: REDIS_SUITE_SRC (the unpacked redis-7.0.15 source; fetched with `apt-get source
# redis` into /var/tmp/strata-redis-suite when absent), STRATA_BIN (built from ./cmd/strata when
# unset), REDIS_SUITE_UNIT_TIMEOUT (seconds per unit, default 150), REDIS_SUITE_TEST_TIMEOUT
# (seconds per test, default 30), REDIS_SUITE_OUT (directory for logs, default a temporary one).
#
# Tests excused for what Strata deliberately lacks are listed, each with its reason, in
# tests/redis-suite/excused.txt; the suite's own --ignore-encoding option stands for OBJECT
# ENCODING (DEBUG DIGEST is checked: Strata's digests are Redis's); the tag
# needs:config-maxmemory (Strata keeps its data on disk and never evicts: maxmemory is 0) is
# left out. Both servers start with
# enable-debug-command yes, as the suite's own configuration sets it, so that the needs:debug
# tests run.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

record=0
compare=0
units=()
for a in "$@"; do
	case "$a" in
	--record) record=1 ;;
	--compare) compare=1 ;;
	-h | --help) sed -n '2,24p' "$0"; exit 0 ;;
	*) units+=("$a") ;;
	esac
done
# units.txt lists one unit a line, optionally followed by its own per-test timeout in seconds
# (a unit with a test slower than the default under the suite's client).
declare -A unit_test_timeout
listed=()
while read -r u tt; do
	[[ -z "$u" || "$u" = \#* ]] && continue
	listed+=("$u")
	[ -n "$tt" ] && unit_test_timeout[$u]=$tt
done <tests/redis-suite/units.txt
if [ ${#units[@]} -eq 0 ]; then
	units=("${listed[@]}")
fi

unit_timeout=${REDIS_SUITE_UNIT_TIMEOUT:-150}
test_timeout=${REDIS_SUITE_TEST_TIMEOUT:-30}
out=${REDIS_SUITE_OUT:-$(mktemp -d)}
mkdir -p "$out"

# fetch_suite unpacks Debian's redis source package (it carries Redis's tests/ directory).
fetch_suite() {
	local cache=/var/tmp/strata-redis-suite
	local found
	found=$(ls -d "$cache"/redis-7.0.15 2>/dev/null | head -1)
	if [ -n "$found" ]; then echo "$found"; return; fi
	if ! grep -rqs '^Types: deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
			>/etc/apt/sources.list.d/strata-deb-src.sources
		apt-get update -qq >&2
	fi
	mkdir -p "$cache"
	(cd "$cache" && apt-get source -qq redis >&2) || return 1
	ls -d "$cache"/redis-7.0.15 2>/dev/null | head -1
}

src=${REDIS_SUITE_SRC:-}
if [ -z "$src" ]; then src=$(fetch_suite) || { echo "cannot fetch Redis's test suite" >&2; exit 1; }; fi
[ -x "$src/runtest" ] || { echo "no runtest in $src" >&2; exit 1; }

strata=${STRATA_BIN:-}
if [ -z "$strata" ]; then
	strata="$out/strata"
	go build -o "$strata" ./cmd/strata || exit 1
fi

excused="$out/excused.txt"
grep -v '^#' tests/redis-suite/excused.txt | grep . >"$excused" || true

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# run_unit SERVER UNIT: starts a fresh SERVER (strata or redis), runs UNIT against it and prints
# "ok err exceptions ignored seconds status".
run_unit() {
	local server=$1 unit=$2
	local port dir pid log start status
	port=$(free_port)
	dir=$(mktemp -d)
	log="$out/$server-${unit//\//_}.log"
	if [ "$server" = strata ]; then
		"$strata" --port "$port" --dir "$dir/data" --backup-dir "$dir/backup" --metrics-addr "" \
			--enable-debug-command yes >"$log.server" 2>&1 &
	else
		redis-server --port "$port" --dir "$dir" --save "" --appendonly no --enable-debug-command yes \
			>"$log.server" 2>&1 &
	fi
	pid=$!
	for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
	start=$(date +%s)
	(cd "$src" && timeout -k 5 "$unit_timeout" ./runtest --host 127.0.0.1 --port "$port" \
		--single "$unit" --tags "-needs:config-maxmemory" --durable --clients 1 --timeout "${unit_test_timeout[$unit]:-$test_timeout}" \
		--ignore-encoding --skipfile "$excused" \
		--baseport $((port % 20000 + 30000)) --portcount 200) 2>&1 |
		sed 's/\x1b\[[0-9;]*m//g' >"$log"
	local rc=${PIPESTATUS[0]}
	local secs=$(($(date +%s) - start))
	status=done
	[ "$rc" = 124 ] || [ "$rc" = 137 ] && status=timeout
	grep -q '^\[TIMEOUT\]' "$log" && status=timeout
	if ! kill -0 "$pid" 2>/dev/null; then status=server-died; fi
	kill "$pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		[ "$status" = done ] && status=no-shutdown
		kill -QUIT "$pid" 2>/dev/null
		sleep 1
		kill -9 "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	rm -rf "$dir"
	local ok err exc ign
	ok=$(grep -c '^\[ok\]:' "$log")
	err=$(grep -c '^\[err\]:' "$log")
	exc=$(grep -c '^\[exception\]:' "$log")
	ign=$(grep -c '^\[ignore\]:\|^\[skip\]:' "$log")
	echo "$ok $err $exc $ign $secs $status"
}

baseline=tests/redis-suite/baseline.tsv
declare -A want
if [ -f "$baseline" ]; then
	while IFS=$'\t' read -r u n _; do
		[[ "$u" = \#* || -z "$u" ]] && continue
		want[$u]=$n
	done <"$baseline"
fi

fail=0
results="$out/results.tsv"
: >"$results"
if [ "$compare" = 1 ]; then
	echo "| unit | redis-server ok | redis-server err | Strata ok | Strata err | Strata exceptions | Strata status |"
	echo "|---|---|---|---|---|---|---|"
else
	printf '%-28s %5s %5s %5s %5s %6s  %s\n' unit ok err exc ign secs status
fi
for u in "${units[@]}"; do
	if [ "$compare" = 1 ]; then
		read -r rok rerr _ _ _ _ < <(run_unit redis "$u")
	fi
	read -r ok err exc ign secs status < <(run_unit strata "$u")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$u" "$ok" "$err" "$exc" "$ign" "$secs" "$status" >>"$results"
	if [ "$compare" = 1 ]; then
		echo "| $u | $rok | $rerr | $ok | $err | $exc | $status |"
	fi
	note=
	if [ "$status" = server-died ] || [ "$status" = no-shutdown ]; then
		note=" FAIL: $status (server log: $out/strata-${u//\//_}.log.server)"
		fail=1
	elif [ -n "${want[$u]:-}" ] && [ "$ok" -lt "${want[$u]}" ]; then
		note=" FAIL: $ok passed, baseline ${want[$u]}"
		fail=1
	fi
	[ "$compare" = 1 ] && [ -n "$note" ] && echo "$u:$note" >&2
	[ "$compare" = 1 ] || printf '%-28s %5s %5s %5s %5s %6s  %s%s\n' "$u" "$ok" "$err" "$exc" "$ign" "$secs" "$status" "$note"
done

if [ "$record" = 1 ]; then
	[ -f "$baseline" ] && cp "$baseline" "$baseline.old"
	{
		echo "# Tests of each unit of Redis's suite that Strata passes (scripts/redis-suite.sh --record)."
		echo "# CI fails when a unit passes fewer. unit, ok, err, exceptions, status when recorded."
		for u in "${listed[@]}"; do
			line=$(awk -F'\t' -v u="$u" '$1 == u {print $1"\t"$2"\t"$3"\t"$4"\t"$7}' "$results")
			[ -z "$line" ] && [ -f "$baseline.old" ] && line=$(awk -F'\t' -v u="$u" '$1 == u' "$baseline.old")
			[ -n "$line" ] && echo "$line"
		done
	} >"$baseline.new"
	mv "$baseline.new" "$baseline"
	rm -f "$baseline.old"
	echo "recorded $baseline" >&2
fi
echo "logs: $out" >&2
exit $fail
