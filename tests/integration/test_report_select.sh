#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A report's selection is checked against the dataset before any table
# is made (issue 20, defect 11).  A misspelled --compare key or name,
# `--bench nosuch` or `--run nosuch` gave empty tables with exit 0; they
# are usage errors (exit 2) naming the nearest known name.  A valid
# selection that matches no run says so on stderr and exits 0, and two
# --compare sides that select the same run are refused.  On the fixed
# fixture database (tests/helpers/mkfixture.c).
. tests/lib.sh

DB=$T_TMP/f.db
"$PWD/$BUILD/tests/mkfixture" "$DB" >/dev/null 2>&1
check "fixture written" [ -s "$DB" ]
run1=$(sqlite3 "$DB" "SELECT uuid FROM runs WHERE bench = 'timer_wake' AND status = 'ok' ORDER BY uuid LIMIT 1")

# refused NAME WANT ARGS...: exit 2, stderr holds WANT, no table printed.
refused() {
	what=$1; want=$2; shift 2
	expect_exit "$what: exit 2" 2 "$IDLELAB" report --db "$DB" "$@"
	check "$what: says $want" grep -qF -- "$want" "$T_TMP/err"
	check "$what: prints no table" [ ! -s "$T_TMP/out" ]
}

refused "misspelled params key" "did you mean 'interval_us'?" \
	--compare params.interval=200 --compare params.irq_mode=late
refused "misspelled attr key" "did you mean 'idle_state'?" \
	--compare attr.idle_stat=C1 --compare host=beta
refused "misspelled fingerprint path" "unknown fingerprint path 'cpu.modle'" \
	--compare fp.cpu.modle=x --compare host=beta
refused "misspelled host" "did you mean 'alpha'?" \
	--compare host=alpah --compare host=beta
refused "misspelled bench in a filter" "did you mean 'timer_wake'?" \
	--compare bench=timer_wak --compare host=beta
refused "reference other than 0 or 1" "use 0 or 1" \
	--compare reference=yes --compare host=beta
refused "--bench nosuch" "unknown benchmark 'nosuch'" --bench nosuch
refused "--bench near miss" "did you mean 'timer_wake'?" --bench timer_wak
refused "--run nosuch" "unknown run 'nosuch'" --run nosuch
near=$(echo "$run1" | sed 's/.$/x/')
refused "--run near miss" "did you mean '$run1'?" --run "$near"
refused "overlapping --compare sides" "both select run" \
	--compare params.irq_mode=early --compare params.interval_us=200

# valid NAME ARGS...: exit 0 with a table.
valid() {
	what=$1; shift
	"$IDLELAB" report --db "$DB" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
	check "$what: exit 0" [ $? -eq 0 ]
	check "$what: prints a table" [ -s "$T_TMP/out" ]
}

valid "disjoint sides" --compare params.irq_mode=early --compare params.irq_mode=late
check "disjoint sides: no notice" [ ! -s "$T_TMP/err" ]
valid "--run of a stored run" --run "$run1"
check "--run: its row" grep -q timer_wake "$T_TMP/out"
valid "--bench of a stored benchmark" --bench timer_wake
check "--bench: no notice" [ ! -s "$T_TMP/err" ]
valid "--bench of a benchmark with no runs" --bench wbinvd
check "--bench with no runs: says so" grep -q "notice: --bench 'wbinvd': the dataset holds no run" "$T_TMP/err"
valid "a side that matches nothing" --compare params.irq_mode=early \
	--compare params.irq_mode=none
check "a side that matches nothing: says so" \
	grep -q "notice: --compare 'params.irq_mode=none' matches no run" "$T_TMP/err"
t_done
