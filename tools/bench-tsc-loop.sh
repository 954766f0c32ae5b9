#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BENCHMARKS.md figure 3: tsc_gaps' loop period (its resolution) against a
# bare rdtsc loop (tools/bare-rdtsc-loop.c) on the same CPU, alternately,
# ROUNDS times.  Prints both per round and the ratio of their medians.
#
# usage: tools/bench-tsc-loop.sh [CPU] [ROUNDS] [SECONDS]
set -eu
cd "$(dirname "$0")/.."
cpu=${1:-1}
rounds=${2:-5}
secs=${3:-2}
idlelab=${IDLELAB:-build/idlelab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/bare" tools/bare-rdtsc-loop.c
med() { sort -n | awk '{v[NR]=$1} END {print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
echo "round bare_ns tsc_gaps_ns"
i=1
while [ "$i" -le "$rounds" ]; do
	b=$("$tmp/bare" "$cpu" "$secs")
	rm -f "$tmp/db"*
	"$idlelab" bench tsc_gaps --db "$tmp/db" --cpus "$cpu" \
		--param duration_ms=$((secs * 1000)) >/dev/null
	g=$(sqlite3 "$tmp/db" "SELECT value FROM run_attrs WHERE key='loop_period_ns'")
	echo "$i $b $g" | tee -a "$tmp/all"
	i=$((i + 1))
done
b=$(awk '{print $2}' "$tmp/all" | med)
g=$(awk '{print $3}' "$tmp/all" | med)
echo "median bare $b ns, tsc_gaps $g ns, ratio $(awk -v b="$b" -v g="$g" 'BEGIN{printf "%.3f", g/b}')"
