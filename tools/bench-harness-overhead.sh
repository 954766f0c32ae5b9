#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BENCHMARKS.md figure 1: idlelab's timer_wake against rt-tests' cyclictest
# on the same CPU, with the same interval, SCHED_FIFO priority and PM QoS
# (cyclictest holds /dev/cpu_dma_latency at 0 by default; timer_wake gets
# pm_qos_us=0), run alternately ROUNDS times.  Prints each round's median
# and minimum for both, and the ratios timer_wake/cyclictest of the
# per-tool medians of those figures: the harness overhead.
#
# usage: tools/bench-harness-overhead.sh [CPU] [ROUNDS] [SAMPLES] [INTERVAL_US]
# needs: make (build/idlelab), rt-tests (cyclictest), jq, root
set -eu
cd "$(dirname "$0")/.."
cpu=${1:-1}
rounds=${2:-5}
n=${3:-5000}
intv=${4:-500}
idlelab=${IDLELAB:-build/idlelab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median and min of one column of numbers
stats() { sort -n | awk '{v[NR]=$1} END {m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; print m, v[1]}'; }

echo "round tool median_ns min_ns"
i=1
while [ "$i" -le "$rounds" ]; do
	cyclictest -m -p95 --interval="$intv" -l "$n" -a "$cpu" -t1 -N -v -q \
		--latency=0 2>/dev/null |
		awk -F: 'NF==3 && $1+0==0 {print $3+0}' | tail -n +11 >"$tmp/c"
	echo "$i cyclictest $(stats <"$tmp/c")" | tee -a "$tmp/all"
	rm -f "$tmp/db"*
	"$idlelab" bench timer_wake --db "$tmp/db" --cpus "$cpu" \
		--param samples="$n" --param interval_us="$intv" \
		--param priority=95 --param pm_qos_us=0 --json >"$tmp/j"
	echo "$i timer_wake $(jq -r '.rows[0] | "\(.median) \(.min)"' "$tmp/j")" | tee -a "$tmp/all"
	i=$((i + 1))
done
for col in 3 4; do
	c=$(awk -v c=$col '$2=="cyclictest"{print $c}' "$tmp/all" | stats | cut -d' ' -f1)
	t=$(awk -v c=$col '$2=="timer_wake"{print $c}' "$tmp/all" | stats | cut -d' ' -f1)
	name=$([ $col = 3 ] && echo median || echo min)
	echo "ratio_$name timer_wake/cyclictest = $t / $c = $(awk -v t="$t" -v c="$c" 'BEGIN{printf "%.3f", t/c}')"
done
