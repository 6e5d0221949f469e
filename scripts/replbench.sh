#!/usr/bin/env bash
# replbench.sh measures replication side by side: a full synchronisation of a loaded master
# (Strata -> Strata, Strata -> redis-server, redis-server -> redis-server, in alternating
# rounds), and the lag of a replica while redis-benchmark writes to its master.
#
#   scripts/replbench.sh keys   [N=1000000] [ROUNDS=3]   full sync of N small keys
#   scripts/replbench.sh values [N=100] [MB=50] [ROUNDS=3] full sync of N values of MB megabytes
#   scripts/replbench.sh lag    [REQUESTS=2000000]        lag under redis-benchmark -t set -P 16
#
# STRATA_BIN is the strata binary (built from ./cmd/strata when unset). Everything runs on
# loopback ports from 21000 in a temporary directory, removed at the end.
set -euo pipefail

mode=${1:-keys}
work=$(mktemp -d /var/tmp/replbench.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

bin=${STRATA_BIN:-}
if [[ -z $bin ]]; then
	bin=$work/strata
	go build -o "$bin" ./cmd/strata
fi

port=21000
started_port=0
# start KIND NAME: starts strata or redis on the next port; sets started_port.
start() {
	local kind=$1 name=$2
	port=$((port + 1))
	mkdir -p "$work/$name"
	if [[ $kind == strata ]]; then
		"$bin" --port $port --dir "$work/$name" --metrics-addr "" --loglevel warning >"$work/$name.log" 2>&1 &
	else
		redis-server --port $port --dir "$work/$name" --save "" --appendonly no \
			--client-output-buffer-limit "replica 0 0 0" --repl-diskless-sync-delay 0 \
			--proto-max-bulk-len 1gb --loglevel warning >"$work/$name.log" 2>&1 &
	fi
	pids+=($!)
	until redis-cli -p $port ping >/dev/null 2>&1; do sleep 0.05; done
	started_port=$port
}

info() { redis-cli -p "$1" info replication | tr -d '\r' | grep "^$2:" | cut -d: -f2; }

# load_keys PORT N: N keys of about 100 bytes.
load_keys() {
	python3 - "$2" <<'EOF' | redis-cli -p "$1" --pipe >/dev/null
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
val = b"v" * 90
for i in range(n):
    k = b"key:%d" % i
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(val), val))
EOF
}

# load_values PORT N MB: N values of MB megabytes.
load_values() {
	python3 - "$2" "$3" <<'EOF' | redis-cli -p "$1" --pipe >/dev/null
import sys, os
n, mb = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout.buffer
chunk = os.urandom(1 << 20)
for i in range(n):
    k = b"big:%d" % i
    size = mb << 20
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n" % (len(k), k, size))
    for _ in range(mb):
        out.write(chunk)
    out.write(b"\r\n")
EOF
}

# sync_time MASTER_PORT REPLICA_KIND: starts an empty replica, points it at the master and
# prints the seconds until it is in sync, and the data the master sent.
sync_time() {
	local mport=$1 kind=$2
	start "$kind" "replica-$kind-$RANDOM"
	local rport=$started_port rpid=${pids[-1]}
	local out0
	out0=$(redis-cli -p "$mport" info stats | tr -d '\r' | grep "^total_net_repl_output_bytes:" | cut -d: -f2)
	local t0
	t0=$(date +%s.%N)
	redis-cli -p $rport replicaof 127.0.0.1 "$mport" >/dev/null
	while :; do
		if [[ $(info $rport master_link_status) == up && $(info $rport slave_repl_offset) == $(info "$mport" master_repl_offset) ]]; then
			break
		fi
		sleep 0.05
	done
	local t1
	t1=$(date +%s.%N)
	local out1
	out1=$(redis-cli -p "$mport" info stats | tr -d '\r' | grep "^total_net_repl_output_bytes:" | cut -d: -f2)
	awk -v a="$t0" -v b="$t1" -v bytes=$((out1 - out0)) 'BEGIN { printf "%.2f s, %.0f MB sent, %.1f MB/s\n", b - a, bytes / 1e6, bytes / 1e6 / (b - a) }'
	redis-cli -p $rport shutdown nosave >/dev/null 2>&1 || true
	wait "$rpid" 2>/dev/null || true # its files are gone only once it has exited
	rm -rf "$work"/replica-"$kind"-*
}

case $mode in
keys | values)
	if [[ $mode == keys ]]; then
		n=${2:-1000000} rounds=${3:-3}
		what="$n keys"
	else
		n=${2:-100} mb=${3:-50} rounds=${4:-3}
		what="$n values of $mb MB"
	fi
	start strata master-strata
	sm=$started_port
	start redis master-redis
	rm=$started_port
	for p in $sm $rm; do
		if [[ $mode == keys ]]; then load_keys $p "$n"; else load_values $p "$n" "$mb"; fi
	done
	echo "full synchronisation of $what ($(redis-cli -p $sm dbsize) keys on Strata, $(redis-cli -p $rm dbsize) on redis-server)"
	for r in $(seq 1 "$rounds"); do
		echo "round $r: Strata -> Strata:       $(sync_time $sm strata)"
		echo "round $r: Strata -> redis-server: $(sync_time $sm redis)"
		echo "round $r: redis -> redis-server:  $(sync_time $rm redis)"
	done
	;;
lag)
	requests=${2:-2000000}
	for kind in strata redis; do
		start $kind lag-master-$kind
		mport=$started_port
		start $kind lag-replica-$kind
		rport=$started_port
		redis-cli -p $rport replicaof 127.0.0.1 $mport >/dev/null
		until [[ $(info $rport master_link_status) == up ]]; do sleep 0.05; done
		redis-benchmark -p $mport -t set -P 16 -n "$requests" -r 1000000 -d 64 -q >"$work/bench-$kind.txt" 2>&1 &
		bench=$!
		samples=0 sum=0 maxlag=0
		while kill -0 $bench 2>/dev/null; do
			m=$(info $mport master_repl_offset) s=$(info $rport slave_repl_offset)
			lag=$((m - s))
			((lag < 0)) && lag=0
			samples=$((samples + 1)) sum=$((sum + lag))
			((lag > maxlag)) && maxlag=$lag
			sleep 0.1
		done
		t0=$(date +%s.%N)
		until [[ $(info $rport slave_repl_offset) == $(info $mport master_repl_offset) ]]; do sleep 0.01; done
		t1=$(date +%s.%N)
		rate=$(tr '\r' '\n' <"$work/bench-$kind.txt" | grep 'SET:' | tail -1)
		awk -v k=$kind -v n=$samples -v s=$sum -v mx=$maxlag -v a="$t0" -v b="$t1" -v r="$rate" \
			'BEGIN { printf "%s -> %s: %s; lag mean %.0f bytes, max %d bytes (%d samples); caught up %.2f s after the benchmark\n", k, k, r, s / (n ? n : 1), mx, n, b - a }'
	done
	;;
*)
	echo "usage: $0 keys|values|lag [args]" >&2
	exit 2
	;;
esac
