#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BENCHMARKS.md figure 9: what idle_sweep's per-state cpuidle reads cost.
# One run with reads=both, which interleaves, in one random order, samples
# whose target's usage counters are read around them (wake_latency) and
# samples without (wake_latency_noreads).  Prints per idle time d the two
# medians and their ratio, and the mean time of one read of every state.
# With ROOT, IDLELAB_SYSFS_ROOT points at that tree (a machine without
# cpuidle has no counters to read, so a fake tree stands in).
#
# usage: tools/bench-idle-sweep-overhead.sh [WAKE] [SAMPLES] [CPUS] [ROOT]
set -eu
cd "$(dirname "$0")/.."
wake=${1:-timer}
samples=${2:-500}
cpus=${3:-pairs:0-1}
root=${4:-}
idlelab=${IDLELAB:-build/idlelab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "$root" ]; then
	IDLELAB_SYSFS_ROOT=$root
	export IDLELAB_SYSFS_ROOT
fi
"$idlelab" bench idle_sweep --db "$tmp/db" --cpus "$cpus" --events none \
	--quiet --param reads=both --param wake="$wake" \
	--param samples="$samples" --param seed=1
echo "entered_state: $(sqlite3 "$tmp/db" "SELECT value FROM run_attrs WHERE key = 'entered_state' LIMIT 1")"
echo "state_read_ns_mean: $(sqlite3 "$tmp/db" "SELECT coalesce(max(value), 'none (no counters read)') FROM run_attrs WHERE key = 'state_read_ns_mean'")"
echo "d_us median_reads_ns median_noreads_ns ratio"
sqlite3 -separator ' ' "$tmp/db" "
	SELECT r.grp, r.p50, n.p50, printf('%.3f', 1.0 * r.p50 / n.p50)
	FROM summaries r JOIN summaries n ON n.grp = r.grp
	 AND n.metric = 'wake_latency_noreads'
	WHERE r.metric = 'wake_latency' ORDER BY r.grp"
