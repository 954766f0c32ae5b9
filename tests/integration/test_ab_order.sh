#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The campaign orders against a drifting machine (issue 22, items 1 and
# 6), by simulation with fixed seeds (tools/ab-sim.c, deterministic, so
# never flaky): campaigns whose arms differ in nothing are flagged by the
# A/B table's verdict (a row's Mann-Whitney p, Holm-adjusted over the
# campaign's median, p99 and mean rows, below 0.05) at most at the
# nominal 5 % under the orders that randomise or alternate the arms,
# blocks (the default), interleaved and random, with and without drift;
# and above it under sequential with drift, the case that shows the test
# can fail.  Each order's median interval also covers 0 in at least 93 %
# (nominal 95 %, less two standard errors of a rate over 1000 campaigns).
#
# 1000 campaigns of 10 runs per arm as in BENCHMARKS.md §4, but 1000
# samples a run instead of 2000 (still enough for the p99 row to be
# tested), so that the six simulations take about 20 s under ASan.
. tests/lib.sh

SIM=$PWD/$BUILD/tools/ab-sim
[ -x "$SIM" ] || { not_ok "ab-sim built ($SIM)"; t_done; exit 1; }

# sim FILE ARGS...: one simulation into FILE, echoed as diagnostics.
sim() {
	f=$1; shift
	"$SIM" --campaigns 1000 --runs 10 --samples 1000 "$@" >"$f" 2>&1
	check "ab-sim $* runs" [ $? -eq 0 ]
	sed 's/^/#   /' "$f"
}
# field FILE ROW COLUMN: a rate (without %) of ab-sim's table.
field() {
	awk -v r="$2" -v c="$3" '$1 == "run-level" && $2 == r { sub("%", "", $c); print $c }' "$1"
}
at_most() { awk -v x="$1" -v m="$2" 'BEGIN { exit !(x != "" && x + 0 <= m + 0) }'; }
above() { awk -v x="$1" -v m="$2" 'BEGIN { exit !(x != "" && x + 0 > m + 0) }'; }

null_ok() {	# label, then ab-sim arguments: an order that should hold
	label=$1; shift
	sim "$T_TMP/out" --shift 0 "$@"
	any=$(field "$T_TMP/out" any-row 5)
	check "$label: the table flags at most 5 % of null campaigns ($any %)" at_most "$any" 5
	for st in median p99 mean; do
		h=$(field "$T_TMP/out" "$st" 5)
		check "$label: $st row called in at most 5 % ($h %)" at_most "$h" 5
	done
	cov=$(field "$T_TMP/out" median 3)
	check "$label: median interval covers 0 in at least 93 % ($cov %)" at_most 93 "$cov"
}

null_ok "blocks, no drift" --order blocks --seed 1
null_ok "blocks, 5 % drift" --order blocks --drift 5 --seed 5
cp "$T_TMP/out" "$T_TMP/blocks5"
null_ok "blocks, 20 % drift" --order blocks --drift 20 --seed 6
null_ok "interleaved, 5 % drift" --order interleaved --drift 5 --seed 5
null_ok "random, 5 % drift" --order random --drift 5 --seed 5

# The default order is blocks: the same campaigns without --order.
sim "$T_TMP/def" --drift 5 --seed 5
check "the default order is blocks: the same campaigns as --order blocks" \
	sh -c "grep -q '(order blocks)' '$T_TMP/def' && cmp -s '$T_TMP/def' '$T_TMP/blocks5'"

sim "$T_TMP/seq" --shift 0 --order sequential --drift 5 --seed 5
any=$(field "$T_TMP/seq" any-row 5)
check "sequential, 5 % drift: the table flags more than 10 % of null campaigns ($any %)" above "$any" 10
cov=$(field "$T_TMP/seq" median 3)
check "sequential, 5 % drift: median coverage falls below 90 % ($cov %)" above 90 "$cov"

expect_exit "ab-sim: unknown order refused" 2 "$SIM" --order abab
t_done
