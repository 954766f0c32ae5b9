#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 22, item 3: in the A/B table a run that kept every sample raw
# contributes the exact order statistics of its samples (its stored p50
# and p99, store_run.c), not its histogram's bucket midpoint.  Three real
# timer_wake runs a side, --raw; with an odd count the "S1 median of runs"
# of the median row is one run's value, so it must be one of the stored
# exact p50s, and the middle one.  The same for p99: 1200 samples a run,
# so that each run keeps at least 1000 and its p99 is estimable (10
# samples beyond it, il_tail_estimable()) and the row is compared; its
# histogram's midpoint had been half a bucket (15 ns at 50 us) off.
. tests/lib.sh

q() { sqlite3 "$1" "$2"; }
DB=$T_TMP/ab.db
for i in 1 2 3; do
	for iv in 100 101; do
		"$IDLELAB" bench timer_wake --db "$DB" --cpus 0 --raw \
			--param samples=1200 --param interval_us=$iv \
			--param priority=0 >"$T_TMP/out" 2>&1 ||
			not_ok "timer_wake interval_us=$iv run $i"
	done
done
check "every run kept every sample raw" [ "$(q "$DB" "SELECT count(*) FROM summaries s JOIN raw_samples x ON x.summary_id = s.id AND x.count = s.count WHERE s.metric = 'wake_latency'")" -eq 6 ]
check "every run has samples enough for p99" [ "$(q "$DB" "SELECT min(count) FROM summaries WHERE metric = 'wake_latency'")" -ge 1000 ]
"$IDLELAB" report --db "$DB" --format csv --compare params.interval_us=100 \
	--compare params.interval_us=101 >"$T_TMP/ab.csv" 2>"$T_TMP/err"
check "report --compare runs" [ $? -eq 0 ]
for side in 100 101; do
	col=9; [ "$side" = 101 ] && col=13
	want=$(q "$DB" "SELECT s.p50 FROM summaries s JOIN runs r ON r.uuid = s.run_uuid WHERE s.metric = 'wake_latency' AND json_extract(r.params, '\$.interval_us') = $side ORDER BY s.p50 LIMIT 1 OFFSET 1")
	got=$(awk -F, -v c="$col" '$2 == "wake_latency" && $5 == "median" { print $c }' "$T_TMP/ab.csv")
	check "interval_us=$side: median of runs $got is the middle run's exact p50 $want" [ "$got" = "$want.0" ]
	want=$(q "$DB" "SELECT s.p99 FROM summaries s JOIN runs r ON r.uuid = s.run_uuid WHERE s.metric = 'wake_latency' AND json_extract(r.params, '\$.interval_us') = $side ORDER BY s.p99 LIMIT 1 OFFSET 1")
	got=$(awk -F, -v c="$col" '$2 == "wake_latency" && $5 == "p99" { print $c }' "$T_TMP/ab.csv")
	check "interval_us=$side: p99 of runs $got is the middle run's exact p99 $want" [ "$got" = "$want.0" ]
done
check "the p99 row is estimable" sh -c "! grep '^timer_wake,wake_latency,.*,p99,.*not estimable' '$T_TMP/ab.csv'"
t_done
