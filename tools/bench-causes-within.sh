#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BENCHMARKS.md section 6: what --causes costs timer_wake's median, with and
# without tracing side by side in one run.
#
# Separate runs, even adjacent ones, can differ by more than the cost
# asked about on a shared virtual machine (their medians moved by 50 % from
# one second to the next here), so this one runs timer_wake --causes once
# (SAMPLES wakes at INTERVAL_US on CPU, SCHED_FIFO 95, PM QoS 0 us) and,
# from another CPU, turns the capture's events off and on again every
# TOGGLE_S seconds by rewriting its instance's set_event: off, no
# tracepoint is hooked at all, as in a run without --causes.  Every sample
# is attributed (--causes-threshold 1), so a sample whose window holds its
# own timer interrupt (irq local_timer) was traced and one without it was
# not: the data say which phase each sample fell in, with no clock to
# line up.  The TRIM first and last samples of each phase are left out
# (the text patching of the toggle sends IPIs to every CPU).  Printed: per
# run the median over adjacent phase pairs of (traced phase median /
# untraced phase median), and the medians of all traced and all untraced
# samples; then the median of the runs' pair ratios.
#
# FILTERS=1 also filters the two events lean leaves out, once the capture
# is on: power:cpu_idle 'state != 4294967295' (no idle exits) and
# sched_wakeup 'prio != 4' (not the benchmark's own SCHED_FIFO 95 wakes).
#
# usage: tools/bench-causes-within.sh [full|lean] [RUNS] [CPU] [SAMPLES] [INTERVAL_US] [TOGGLE_S] [TRIM]
# needs: make (build/idlelab), sqlite3, root (tracefs), a second CPU
set -eu
cd "$(dirname "$0")/.."
mode=${1:-full}
runs=${2:-3}
cpu=${3:-1}
n=${4:-20000}
intv=${5:-500}
period=${6:-0.1}
trim=${7:-10}
idlelab=${IDLELAB:-build/idlelab}
case $mode in
full) lean= ;;
lean) lean=--causes-lean ;;
*) echo "usage: $0 [full|lean] [RUNS] [CPU] [SAMPLES] [INTERVAL_US] [TOGGLE_S] [TRIM]" >&2; exit 2 ;;
esac
other=0
[ "$cpu" = 0 ] && other=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export IDLELAB_STATE_DIR="${IDLELAB_STATE_DIR:-$tmp/state}"
TR=/sys/kernel/tracing
# The events trace_capture.c enables, as set_event names them.
ev="irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit irq_vectors:* nmi:nmi_handler sched:sched_switch"
[ "$mode" = full ] && ev="$ev sched:sched_wakeup power:cpu_idle"

# median of the numbers on stdin
median() { sort -n | awk '{v[NR]=$1} END {if (NR) print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }

# This shell, the toggler, stays off the measured CPU; idlelab gets every
# CPU back, as in a run of its own, and binds its worker itself.
all=0-$(($(nproc) - 1))
taskset -cp "$other" $$ >/dev/null
r=1
while [ "$r" -le "$runs" ]; do
	rm -f "$tmp/db"*
	# shellcheck disable=SC2086
	taskset -c "$all" "$idlelab" bench timer_wake --db "$tmp/db" --cpus "$cpu" \
		--param samples="$n" --param interval_us="$intv" \
		--param priority=95 --param pm_qos_us=0 \
		--causes $lean --causes-threshold 1 >"$tmp/out" 2>&1 &
	bp=$!
	# The toggler (this shell, on the other CPU) starts once the capture is on.
	inst=
	i=0
	while [ $i -lt 400 ]; do
		inst=$(ls -d "$TR"/instances/idlelab-"$bp" 2>/dev/null || true)
		[ -n "$inst" ] && [ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] && break
		sleep 0.05
		i=$((i + 1))
	done
	if [ -n "${FILTERS:-}" ] && [ -n "$inst" ]; then
		echo 'state != 4294967295' >"$inst/events/power/cpu_idle/filter"
		echo 'prio != 4' >"$inst/events/sched/sched_wakeup/filter"
	fi
	k=0
	while kill -0 "$bp" 2>/dev/null && [ -n "$inst" ] && [ -d "$inst" ]; do
		sleep "$period"
		if [ $((k % 2)) = 0 ]; then
			{ echo >"$inst/set_event"; } 2>/dev/null || true
		else
			{ echo "$ev" >"$inst/set_event"; } 2>/dev/null || true
		fi
		k=$((k + 1))
	done
	if ! wait "$bp"; then
		cat "$tmp/out" >&2
		exit 1
	fi
	# sample value traced(0/1), in the order the samples were taken
	sqlite3 -batch -noheader -separator ' ' "$tmp/db" "
		SELECT s.value_ns, EXISTS (SELECT 1 FROM causes c
			WHERE c.run_uuid = s.run_uuid AND c.metric = s.metric
			  AND c.cpu = s.cpu AND c.sample = s.sample
			  AND c.kind = 'irq' AND c.name = 'local_timer')
		FROM cause_samples s WHERE s.metric = 'wake_latency'
		ORDER BY s.sample" >"$tmp/s"
	# phase number, traced, value: the trimmed inside of each phase
	awk -v trim="$trim" '
		NR == FNR { if (FNR == 1 || $2 != last) { p++; last = $2 } len[p]++; next }
		FNR == 1 || $2 != prev { q++; prev = $2; pos = 0 }
		{ pos++; if (pos > trim && pos <= len[q] - trim) print q, $2, $1 }
	' "$tmp/s" "$tmp/s" >"$tmp/p"
	# per phase: number, traced, median (phases with 10 samples left)
	sort -k1,1n -k3,3n "$tmp/p" | awk '
		function out() { if (c >= 10) print ph, tr, (c%2)?v[(c+1)/2]:(v[c/2]+v[c/2+1])/2 }
		$1 != ph { if (NR > 1) out(); ph = $1; tr = $2; c = 0 }
		{ v[++c] = $3 }
		END { out() }
	' | sort -k1,1n >"$tmp/m"
	# adjacent phases, one traced and one not: traced / untraced
	awk 'NR > 1 && $1 == ph + 1 && $2 != tr {
		print ($2 ? $3 / m : m / $3) }
		{ ph = $1; tr = $2; m = $3 }' "$tmp/m" >"$tmp/ratios"
	pr=$(median <"$tmp/ratios")
	on=$(awk '$2 == 1 {print $3}' "$tmp/p" | median)
	off=$(awk '$2 == 0 {print $3}' "$tmp/p" | median)
	echo "$pr" >>"$tmp/runs"
	printf 'run %d (%s): %d toggles, %d samples, %d phase pairs: median pair ratio %.4f; all traced samples %s ns, all untraced %s ns\n' \
		"$r" "$mode" "$k" "$(wc -l <"$tmp/s")" "$(wc -l <"$tmp/ratios")" \
		"$pr" "$on" "$off"
	r=$((r + 1))
done
printf '%s: median of the %d runs'"'"' pair ratios %.4f\n' "$mode" "$runs" \
	"$(median <"$tmp/runs")"
