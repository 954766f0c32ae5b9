#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BENCHMARKS.md figure 4: what --causes costs and how long it takes.
#  1. timer_wake on one CPU, in turn without --causes, with it, and with
#     --causes --causes-lean, ROUNDS times each (SAMPLES wakes at
#     INTERVAL_US, SCHED_FIFO 95, PM QoS 0 us): each round's median, and
#     for each capture the ratio of the per-mode medians of the rounds
#     (with / without) and the median of the per-round ratios: the
#     tracing cost on the measured CPU;
#  2. one tsc_gaps run and one timer_wake run of LONG_S seconds each with
#     --causes: the run's length against the attribution time stored in
#     trace_captures.attribution_ns (reading the buffers, attributing every
#     window, putting tracefs back), with the events kept and lost.
#
# usage: tools/bench-causes-overhead.sh [CPU] [ROUNDS] [SAMPLES] [INTERVAL_US] [LONG_S]
# needs: make (build/idlelab), sqlite3, jq, root (tracefs)
set -eu
cd "$(dirname "$0")/.."
cpu=${1:-1}
rounds=${2:-5}
n=${3:-5000}
intv=${4:-500}
long=${5:-60}
idlelab=${IDLELAB:-build/idlelab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export IDLELAB_STATE_DIR=${IDLELAB_STATE_DIR:-$tmp/state}

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }

echo "round mode median_ns"
i=1
while [ "$i" -le "$rounds" ]; do
	for mode in plain causes lean; do
		case $mode in
		plain) flag= ;;
		causes) flag=--causes ;;
		lean) flag="--causes --causes-lean" ;;
		esac
		rm -f "$tmp/db"*
		# shellcheck disable=SC2086
		"$idlelab" bench timer_wake --db "$tmp/db" --cpus "$cpu" \
			--param samples="$n" --param interval_us="$intv" \
			--param priority=95 --param pm_qos_us=0 $flag --json >"$tmp/j"
		echo "$i $mode $(jq -r '.rows[0].median' "$tmp/j")" | tee -a "$tmp/all"
	done
	i=$((i + 1))
done
p=$(awk '$2=="plain"{print $3}' "$tmp/all" | median)
for mode in causes lean; do
	c=$(awk -v m="$mode" '$2==m{print $3}' "$tmp/all" | median)
	# Paired: each round's capture against that round's plain run.
	pr=$(awk -v m="$mode" '$2=="plain"{p[$1]=$3} $2==m{print $3/p[$1]}' "$tmp/all" | median)
	echo "median of medians: plain $p ns, $mode $c ns, ratio $(echo "$c $p" | awk '{printf "%.3f", $1/$2}'); median of the paired ratios $(echo "$pr" | awk '{printf "%.3f", $1}')"
done

echo "run run_s attribution_s events_kept events_lost samples_stored"
for b in tsc_gaps timer_wake; do
	rm -f "$tmp/db"*
	if [ "$b" = tsc_gaps ]; then
		"$idlelab" bench tsc_gaps --db "$tmp/db" --cpus "$cpu" \
			--param duration_ms=$((long * 1000)) --causes >/dev/null
	else
		"$idlelab" bench timer_wake --db "$tmp/db" --cpus "$cpu" \
			--param samples=100000000 --param duration_ms=$((long * 1000)) \
			--param interval_us="$intv" --param priority=95 --causes >/dev/null
	fi
	sqlite3 -batch -noheader -separator ' ' "$tmp/db" "
		SELECT '$b', round((r.end_ns - r.start_ns) / 1e9, 1),
		  round(t.attribution_ns / 1e9, 3),
		  (SELECT sum(events) FROM trace_cpus c WHERE c.run_uuid = r.uuid),
		  (SELECT sum(lost_events) FROM trace_cpus c WHERE c.run_uuid = r.uuid),
		  (SELECT count(*) FROM cause_samples s WHERE s.run_uuid = r.uuid)
		FROM runs r JOIN trace_captures t ON t.run_uuid = r.uuid"
done
