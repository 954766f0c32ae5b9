#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BENCHMARKS.md figure 1: idlelab's timer_wake against rt-tests' cyclictest
# on the same CPU, each run the way it is meant to be run, alternately.
#
# Both measure wake latency from an absolute clock_nanosleep on CLOCK_
# MONOTONIC, at the same interval, SCHED_FIFO priority 95, memory locked,
# PM QoS 0 us held on /dev/cpu_dma_latency (cyclictest's default; timer_wake
# gets pm_qos_us=0), and with nothing else of theirs on the measured CPU:
#  - cyclictest: -a CPU -t1 --mainaffinity=MAIN, so its main thread (which
#    wakes every 100 ms to print and poll) stays off the measured CPU; -q
#    with -N -h and --json, so nothing is printed per sample and the
#    histogram has one bucket per ns, rather than -v piped into awk on the
#    measured CPU;
#  - timer_wake: --cpus CPU with the idlelab process itself on MAIN
#    (taskset), --events none so no counter sits on the wake path, and
#    distance_us 0 (one thread).
# A third contender, cyclictest_v, is cyclictest the way the first version
# of this figure ran it: -a CPU -N -v piped into awk and tail, main thread
# not moved, so the printing main thread and the pipe compete for the
# measured CPU.  It is there to show what that did to the figures.
# The order is balanced: the six rounds of a cycle run the three in each of
# the six orders, so each runs before each other equally often, and a drift
# of the machine over the run (another job starting, the host's frequency)
# falls on all alike.  Each round prints
# min, p1, p5, p50 and p99 of both (percentile of rank ceil(p/100 * n) over
# every cycle, cyclictest's overflow counted as above every bucket;
# timer_wake's from its histogram, within 0.1 %, at the buckets' midpoints);
# then, per figure, the median over the rounds of each tool and the ratio
# timer_wake / cyclictest of those medians, and the median over the rounds
# of the ratio within each round (paired: the two ran minutes apart at
# most, so the machine's drift between rounds cancels).  A minimum over a few thousand samples is an
# extreme order statistic: p1 and p5 are the robust low figures.
#
# usage: tools/bench-harness-overhead.sh [CPU] [MAIN] [ROUNDS] [SAMPLES] [INTERVAL_US]
#        (ROUNDS a multiple of 6 keeps the order balanced)
# needs: make (build/idlelab), rt-tests (cyclictest), jq, sqlite3, util-linux
#        (taskset), root (SCHED_FIFO, mlockall, PM QoS)
set -eu
cd "$(dirname "$0")/.."
cpu=${1:-1}
main=${2:-0}
rounds=${3:-6}
n=${4:-5000}
intv=${5:-1000}
idlelab=${IDLELAB:-build/idlelab}
# cyclictest's histogram, in ns with -N: 2 ms, past which a cycle overflows.
hist_ns=2000000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "value count" lines, sorted by value, and the number of cycles on $1
# (those past the lines count as above them): min p1 p5 p50 p99.
pcts() {
	awk -v total="$1" '
		function rank(p) { r = p / 100 * total; return r == int(r) ? r : int(r) + 1 }
		BEGIN { np = split("1 5 50 99", ps, " "); for (i = 1; i <= np; i++) want[i] = rank(ps[i]) }
		{ if (NR == 1) min = $1; c += $2
		  for (i = 1; i <= np; i++) if (!(i in got) && c >= want[i]) got[i] = $1 }
		END { printf "%d", min
		      for (i = 1; i <= np; i++) printf " %s", (i in got) ? sprintf("%d", got[i]) : "overflow"
		      print "" }'
}

run_cyclictest() {
	cyclictest -m -p95 -i "$intv" -l "$n" -a "$cpu" -t1 --mainaffinity="$main" \
		-q -N -h "$hist_ns" --latency=0 --json="$tmp/c.json" >/dev/null
	cycles=$(jq '.thread[] | .cycles' "$tmp/c.json")
	jq -r '.thread[] | .histogram | to_entries[] | "\(.key) \(.value)"' "$tmp/c.json" |
		sort -n | pcts "$cycles" | awk -v m="$(jq '.thread[] | .min' "$tmp/c.json")" '{ $1 = m; print }'
}

run_cyclictest_v() {
	cyclictest -m -p95 -i "$intv" -l "$n" -a "$cpu" -t1 -N -v -q --latency=0 2>/dev/null |
		awk -F: 'NF == 3 && $1 + 0 == 0 { print $3 + 0 }' >"$tmp/v"
	sort -n "$tmp/v" | awk '{ print $1, 1 }' | pcts "$(wc -l <"$tmp/v")"
}

run_timer_wake() {
	rm -f "$tmp/db"*
	taskset -c "$main" "$idlelab" bench timer_wake --db "$tmp/db" --cpus "$cpu" \
		--events none --param samples="$n" --param interval_us="$intv" \
		--param priority=95 --param pm_qos_us=0 >/dev/null
	total=$(sqlite3 "$tmp/db" 'SELECT count FROM summaries')
	"$idlelab" export --db "$tmp/db" --what buckets --format csv |
		awk -F, 'NR > 1 { printf "%d %d\n", ($7 + $8) / 2, $9 }' | sort -n |
		pcts "$total" | awk -v m="$(sqlite3 "$tmp/db" 'SELECT min FROM summaries')" '{ $1 = m; print }'
}

echo "round first tool min_ns p1_ns p5_ns p50_ns p99_ns"
i=1
while [ "$i" -le "$rounds" ]; do
	case $((i % 6)) in
	1) order="cyclictest timer_wake cyclictest_v" ;;
	2) order="timer_wake cyclictest_v cyclictest" ;;
	3) order="cyclictest_v cyclictest timer_wake" ;;
	4) order="cyclictest cyclictest_v timer_wake" ;;
	5) order="timer_wake cyclictest cyclictest_v" ;;
	0) order="cyclictest_v timer_wake cyclictest" ;;
	esac
	first=${order%% *}
	for tool in $order; do
		res=$(run_"$tool") || { echo "round $i: $tool failed" >&2; exit 1; }
		echo "$i $first $tool $res" | tee -a "$tmp/all"
	done
	i=$((i + 1))
done
# The median of a column of numbers.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The median over the rounds of column $2 for tool $1.
med() { awk -v t="$1" -v c="$2" '$3 == t { print $c }' "$tmp/all" | median; }
# The median over the rounds of the within-round ratio $1 / $2 of column $3.
paired() {
	awk -v a="$1" -v b="$2" -v c="$3" '$3 == a { x[$1] = $c } $3 == b { y[$1] = $c }
		END { for (r in x) if ((r in y) && y[r] > 0) printf "%.4f\n", x[r] / y[r] }' "$tmp/all" | median | awk '{ printf "%.3f", $1 }'
}
col=4
for name in min p1 p5 p50 p99; do
	c=$(med cyclictest $col)
	t=$(med timer_wake $col)
	v=$(med cyclictest_v $col)
	echo "median_$name cyclictest $c timer_wake $t cyclictest_v $v ratio_timer_wake/cyclictest $(awk -v t="$t" -v c="$c" 'BEGIN { printf "%.3f", t / c }') ratio_timer_wake/cyclictest_v $(awk -v t="$t" -v c="$v" 'BEGIN { printf "%.3f", t / c }') paired_timer_wake/cyclictest $(paired timer_wake cyclictest $col) paired_cyclictest_v/cyclictest $(paired cyclictest_v cyclictest $col)"
	col=$((col + 1))
done
