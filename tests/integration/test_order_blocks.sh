#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 22, item 1: randomised blocks are the default run order.
#   - a campaign that names no order runs every arm once per block, in a
#     seeded order, says so in --dry-run and stores it with every run;
#   - sequential is there on request, and report --compare warns when a
#     side's runs were planned that way; a blocks campaign gets no warning;
#   - report --paired pairs the runs of each block, and none of a
#     sequential campaign.
. tests/lib.sh

export IDLELAB_STATE_DIR="$T_TMP/state"
q() { sqlite3 -batch -noheader "$1" "$2"; }
D=$T_TMP/o.db
C=$T_TMP/ab.yaml
cat >"$C" <<'YAML'
name: ab
groups:
  - name: tw
    bench: timer_wake
    cpus: "0"
    repetitions: 4
    params: {samples: 20}
    matrix: {interval_us: [300, 700]}
YAML
"$IDLELAB" run "$C" --dry-run >"$T_TMP/dry" 2>&1
check "--dry-run names the default order and its seed" \
	grep -q "^order: group tw blocks, seed 1$" "$T_TMP/dry"
"$IDLELAB" run "$C" --db "$D" >/dev/null 2>"$T_TMP/err"
check "the campaign runs" [ "$(q "$D" "SELECT count(*) FROM runs WHERE status = 'ok'")" = 8 ]
check "every run stores plan_order 'blocks seed=1'" \
	[ "$(q "$D" "SELECT count(*) FROM run_attrs WHERE key = 'plan_order' AND value = 'blocks seed=1'")" = 8 ]
# Block k is plan indices 2k and 2k+1: both arms, repetition k+1.
blocks=$(q "$D" "SELECT plan_index / 2, group_concat(json_extract(params, '\$.interval_us'), '+') FROM
	(SELECT * FROM runs ORDER BY plan_index) GROUP BY plan_index / 2" | tr '\n' ' ')
check "each block holds both arms once ($blocks)" \
	[ "$(q "$D" "SELECT count(*) FROM (SELECT plan_index / 2 b, count(DISTINCT json_extract(params, '\$.interval_us')) n FROM runs GROUP BY b) WHERE n = 2")" = 4 ]
check "and the order within blocks varies" \
	[ "$(q "$D" "SELECT count(DISTINCT json_extract(params, '\$.interval_us')) FROM runs WHERE plan_index % 2 = 0")" = 2 ]
"$IDLELAB" report --db "$D" --compare params.interval_us=300 \
	--compare params.interval_us=700 >/dev/null 2>"$T_TMP/err"
check "--compare of a blocks campaign: no order warning" \
	sh -c "! grep -q 'sequential order' '$T_TMP/err'"

# --paired: the four blocks pair one run of each arm.
"$IDLELAB" report --db "$D" --compare campaign=ab,params.interval_us=300 \
	--compare campaign=ab,params.interval_us=700 --paired --format csv --table 2 \
	>"$T_TMP/paired.csv" 2>"$T_TMP/err"
check "--paired prints the paired table" sh -c "'$IDLELAB' report --db '$D' --compare campaign=ab,params.interval_us=300 --compare campaign=ab,params.interval_us=700 --paired | grep -q '^### A/B comparison, paired over blocks'"
check "--paired: 4 blocks paired, 0 runs unpaired, median row" \
	grep -q "^timer_wake,wake_latency,,median,ns,4,0," "$T_TMP/paired.csv"
check "--paired: 4 pairs are too few for a 95 % interval (6 are needed)" \
	grep -q "^timer_wake,wake_latency,,median,ns,4,0,.*too few blocks (4) for a 95% interval" "$T_TMP/paired.csv"
check "--paired csv: the interval as two numeric columns, lo and hi" sh -c \
	"head -n 1 '$T_TMP/paired.csv' | grep -q ',S2 shift 95% CI lo,S2 shift 95% CI hi,' && python3 tests/helpers/csv-numeric.py '$T_TMP/paired.csv' 0 >/dev/null"
expect_exit "--paired without --compare sides: exit 2" 2 "$IDLELAB" report --db "$D" --paired

sed 's/    repetitions: 4/    repetitions: 4\n    order: sequential/' "$C" >"$T_TMP/seq.yaml"
"$IDLELAB" run "$T_TMP/seq.yaml" --db "$D" --name ab-seq >/dev/null 2>&1
check "order: sequential on request: A A A A B B B B" \
	[ "$(q "$D" "SELECT group_concat(json_extract(params, '\$.interval_us'), ' ') FROM (SELECT params FROM runs WHERE campaign = 'ab-seq' ORDER BY plan_index)")" = "300 300 300 300 700 700 700 700" ]
"$IDLELAB" report --db "$D" --compare campaign=ab-seq,params.interval_us=300 \
	--compare campaign=ab-seq,params.interval_us=700 >/dev/null 2>"$T_TMP/err"
check "--compare warns that both sides were planned sequentially" \
	[ "$(grep -c "warning: --compare .*4 of its 4 runs were planned in sequential order" "$T_TMP/err")" = 2 ]
"$IDLELAB" report --db "$D" --compare campaign=ab-seq,params.interval_us=300 \
	--compare campaign=ab-seq,params.interval_us=700 --paired --format csv --table 2 \
	>"$T_TMP/pseq.csv" 2>/dev/null
check "--paired of a sequential campaign: no block, every run unpaired" \
	grep -q "^timer_wake,wake_latency,,median,ns,0,4,.*no block holds runs of both sides" "$T_TMP/pseq.csv"
t_done
