#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The user-space IPI twins with an idle and a busy baseline, alternated:
# membarrier_ipi and tlb_shootdown (madvise, mprotect), each with
# baseline=idle then baseline=busy, ROUNDS times, SAMPLES timed calls per
# target count, on CPUs CPUS.  Prints the IPI tables (round medians,
# marginal cost against N = 0, the fit with its interval once there are
# enough runs) and, per configuration and N, the calls dropped because a
# target was off its CPU throughout.
#
#   tools/bench-ipi-baseline.sh [ROUNDS [SAMPLES [CPUS [TARGETS]]]]
#   defaults:                    5       2000      0-1   0,1
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-5}
samples=${2:-2000}
cpus=${3:-0-1}
targets=${4:-0,1}
idlelab=${IDLELAB:-build/idlelab}
db=$(mktemp -d)/ipi-baseline.db
trap 'rm -rf "$(dirname "$db")"' EXIT INT TERM

r=1
while [ "$r" -le "$rounds" ]; do
	for b in idle busy; do
		"$idlelab" bench membarrier_ipi --cpus "$cpus" --db "$db" \
			--param samples="$samples" --param targets="$targets" \
			--param baseline="$b" >/dev/null
		for m in madvise mprotect; do
			"$idlelab" bench tlb_shootdown --cpus "$cpus" --db "$db" \
				--param samples="$samples" --param targets="$targets" \
				--param mode="$m" --param baseline="$b" >/dev/null
		done
	done
	r=$((r + 1))
done
"$idlelab" report --db "$db" --kind ipi
echo
echo "Dropped calls (a target made no progress during the call), all rounds:"
sqlite3 -column -header "$db" "
SELECT r.bench, coalesce(json_extract(r.params, '\$.mode'), '-') AS mode,
       json_extract(r.params, '\$.baseline') AS baseline, s.grp AS targets,
       sum(s.count) AS timed, sum(s.dropped) AS dropped,
       printf('%.2f %%', 100.0 * sum(s.dropped) / (sum(s.count) + sum(s.dropped))) AS share
FROM summaries s JOIN runs r ON r.uuid = s.run_uuid
WHERE s.metric = 'call_latency'
GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;"
