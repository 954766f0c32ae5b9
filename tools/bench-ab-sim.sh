#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BENCHMARKS.md §4: the coverage and power of the A/B table's run-level
# intervals against the old pooled bootstrap, by simulation (tools/ab-sim.c,
# fixed seeds, so the figures reproduce exactly).  Usage:
#   tools/bench-ab-sim.sh [BUILD]      (default build; run `make tools` first)
# Prints one Markdown row per scenario: the coverage of the true shift by
# the 95 % interval and the rate at which a change is detected (the
# interval excludes 0), for the run-level median, p99 and mean and the
# pooled bootstrap of the median (1000 replicates, as the report used).
set -e
BUILD=${1:-build}
SIM=$BUILD/tools/ab-sim
[ -x "$SIM" ] || { echo "bench-ab-sim: $SIM missing: make BUILD=$BUILD tools" >&2; exit 2; }

row() {	# label, then ab-sim arguments
	label=$1; shift
	"$SIM" --campaigns 1000 --samples 2000 "$@" | awk -v l="$label" '
		$1 == "run-level" { sub("%", "", $3); sub("%", "", $4); c[$2] = $3; d[$2] = $4 }
		$1 == "pooled" { sub("%", "", $4); sub("%", "", $5); bc = $4; bd = $5 }
		END {
			printf "| %s | %s / %s | %s / %s | %s / %s | %s |\n", l,
				c["median"], d["median"], c["p99"], d["p99"],
				c["mean"], d["mean"], bc == "" ? "-" : bc " / " bd
		}'
}

echo "| scenario | median: coverage / detected % | p99 | mean | pooled bootstrap median |"
echo "|---|---:|---:|---:|---:|"
row "no shift, 10 runs per arm" --runs 10 --seed 1 --bootstrap 1000
row "+5 %, 10 runs per arm" --runs 10 --shift 5 --seed 2 --bootstrap 1000
row "+5 %, 5 runs per arm" --runs 5 --shift 5 --seed 3
row "+5 %, 20 runs per arm" --runs 20 --shift 5 --seed 4
row "no shift, 5 % drift, sequential AAA..BBB" --runs 10 --drift 5 --order sequential --seed 5
row "no shift, 5 % drift, interleaved ABAB" --runs 10 --drift 5 --order interleaved --seed 5
