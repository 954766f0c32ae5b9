#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BENCHMARKS.md §4: the coverage and power of the A/B table's run-level
# intervals, and how often the table's verdict calls a change, by
# simulation (tools/ab-sim.c, fixed seeds, so the figures reproduce
# exactly).  Usage:
#   tools/bench-ab-sim.sh [BUILD]      (default build; run `make tools` first)
#   BOOTSTRAP=1000 tools/bench-ab-sim.sh [BUILD]
# Prints one Markdown row per scenario: for the run-level median, p99 and
# mean, the coverage of the true shift by the 95 % interval, the rate at
# which that interval excludes 0, and the rate at which the table's
# verdict calls a change (its Mann-Whitney p, Holm-adjusted over the
# campaign's three rows, below 0.05); then the campaigns in which any row
# is called.  1000 campaigns of 2000 samples a run each, the order
# `blocks` unless the row says otherwise: about 1 minute.  BOOTSTRAP=B adds
# the old pooled bootstrap of the median (B replicates, 1000 as the report
# used) to the first two rows: about 12 minutes more.
set -e
BUILD=${1:-build}
SIM=$BUILD/tools/ab-sim
[ -x "$SIM" ] || { echo "bench-ab-sim: $SIM missing: make BUILD=$BUILD tools" >&2; exit 2; }
BOOT=${BOOTSTRAP:-}

row() {	# label, then ab-sim arguments
	label=$1; shift
	"$SIM" --campaigns 1000 --samples 2000 "$@" | awk -v l="$label" -v boot="$BOOT" '
		function pc(s) { sub("%", "", s); return s }
		$1 == "run-level" { c[$2] = pc($3); e[$2] = pc($4); h[$2] = pc($5) }
		$1 == "pooled" { bc = pc($4); bd = pc($5) }
		END {
			printf "| %s |", l
			split("median p99 mean", st, " ")
			for (i = 1; i <= 3; i++)
				printf " %s / %s / %s |", c[st[i]], e[st[i]], h[st[i]]
			printf " %s / %s |", e["any-row"], h["any-row"]
			if (boot != "")
				printf " %s |", bc == "" ? "-" : bc " / " bd
			printf "\n"
		}'
}
boot() { [ -n "$BOOT" ] && echo "--bootstrap $BOOT"; }

if [ -n "$BOOT" ]; then
	echo "| scenario | median: coverage / CI excludes 0 / Holm verdict % | p99 | mean | any row: CI excludes 0 / Holm % | pooled bootstrap median: coverage / detected % |"
	echo "|---|---:|---:|---:|---:|---:|"
else
	echo "| scenario | median: coverage / CI excludes 0 / Holm verdict % | p99 | mean | any row: CI excludes 0 / Holm % |"
	echo "|---|---:|---:|---:|---:|"
fi
# shellcheck disable=SC2046	# boot's words are meant to split
row "no shift, 10 runs per arm" --runs 10 --seed 1 $(boot)
# shellcheck disable=SC2046
row "+5 %, 10 runs per arm" --runs 10 --shift 5 --seed 2 $(boot)
row "+5 %, 5 runs per arm" --runs 5 --shift 5 --seed 3
row "+5 %, 20 runs per arm" --runs 20 --shift 5 --seed 4
row "+5 %, 10 runs per arm, interleaved" --runs 10 --shift 5 --order interleaved --seed 2
for o in sequential interleaved blocks random; do
	row "no shift, 5 % drift, $o" --runs 10 --drift 5 --order "$o" --seed 5
done
for o in sequential blocks; do
	row "no shift, 20 % drift, $o" --runs 10 --drift 20 --order "$o" --seed 6
done
row "no shift, arm B run sd 9 % (A 3 %)" --runs 10 --run-sd-b 9 --seed 7
row "+5 %, arm B run sd 9 % (A 3 %)" --runs 10 --shift 5 --run-sd-b 9 --seed 8
for o in sequential interleaved blocks random; do
	row "+5 %, carry-over 0.5, $o" --runs 10 --shift 5 --carry 0.5 --order "$o" --seed 9
done
