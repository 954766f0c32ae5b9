#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 22, item 2c: a call a target slept through is dropped under its own
# reason, slept, not race (schema 7, 007_drop_slept.sql).  A real
# membarrier_ipi run is copied into a real schema-6 file (built from
# migrations 001-006) the way idlelab 6 stored it: its N=1 series made to
# have 50 slept-through calls (its sibling call_latency_slept holds them)
# and 2 genuine races, all 52 counted as race.  Read as it is, that file
# reports, exports and merges race 2, slept 50; `db migrate` rebuilds
# summaries with SQLite's table-rebuild procedure and keeps every
# histogram, raw sample, id and view, with the same split.
. tests/lib.sh

q() { sqlite3 "$1" "$2"; }
NEW=$T_TMP/new.db
"$IDLELAB" bench membarrier_ipi --db "$NEW" --raw --param samples=50 \
	>"$T_TMP/out" 2>"$T_TMP/err"
check "membarrier_ipi runs" [ $? -eq 0 ]
check "new rows have the slept column, and it is the sibling's count" [ "$(q "$NEW" "SELECT count(*) FROM summaries c JOIN summaries z ON z.run_uuid = c.run_uuid AND z.metric = 'call_latency_slept' AND z.grp = c.grp WHERE c.metric = 'call_latency' AND c.dropped_slept = z.count AND c.dropped_race + c.dropped_slept <= c.dropped")" -eq 2 ]

OLD=$T_TMP/old.db
cat schemas/001_*.sql schemas/002_*.sql schemas/003_*.sql schemas/004_*.sql \
	schemas/005_*.sql schemas/006_*.sql | sqlite3 "$OLD"
sqlite3 "$OLD" "PRAGMA user_version = 6;
	ATTACH '$NEW' AS n;
	INSERT INTO machines SELECT * FROM n.machines;
	INSERT INTO runs SELECT * FROM n.runs;
	INSERT INTO run_attrs SELECT * FROM n.run_attrs;
	INSERT INTO summaries SELECT id, run_uuid, metric, unit, cpu, cpu2, grp,
		count, min, max, mean, stddev, p50, p90, p99, p999, p9999,
		dropped, early, dropped_raw, dropped_range, dropped_overrun,
		dropped_race + dropped_slept, dropped_lost FROM n.summaries;
	INSERT INTO histograms SELECT * FROM n.histograms;
	INSERT INTO raw_samples SELECT * FROM n.raw_samples;
	-- N=1: 50 calls slept through (timed in the sibling, given N=1's own
	-- figures) and 2 races, all counted as race, as schema 6 did.
	UPDATE summaries SET (count, min, max, mean, stddev, p50, p90, p99,
		p999, p9999) = (SELECT c.count, c.min, c.max, c.mean, c.stddev,
		c.p50, c.p90, c.p99, c.p999, c.p9999 FROM summaries c
		WHERE c.metric = 'call_latency' AND c.grp = 1)
		WHERE metric = 'call_latency_slept' AND grp = 1;
	INSERT OR REPLACE INTO histograms SELECT z.id, h.layout, h.blob
		FROM summaries z, summaries c JOIN histograms h ON h.summary_id = c.id
		WHERE z.metric = 'call_latency_slept' AND z.grp = 1
		AND c.metric = 'call_latency' AND c.grp = 1;
	UPDATE summaries SET dropped = 52, dropped_range = 0, dropped_overrun = 0,
		dropped_race = 52, dropped_lost = 0
		WHERE metric = 'call_latency' AND grp = 1;"
check "schema-6 fixture: 52 race drops, 50 calls in the sibling" [ "$(q "$OLD" "SELECT c.dropped_race || ' ' || z.count FROM summaries c JOIN summaries z ON z.grp = c.grp AND z.metric = 'call_latency_slept' WHERE c.metric = 'call_latency' AND c.grp = 1")" = "52 50" ]
sum6=$(sha256sum <"$OLD")

"$IDLELAB" report --db "$OLD" >"$T_TMP/o.md" 2>"$T_TMP/err"
check "report reads the schema-6 file" [ $? -eq 0 ]
check "report: race and slept apart" grep -q "| 52 | race 2, slept 50 |" "$T_TMP/o.md"
"$IDLELAB" report --db "$OLD" --format csv >"$T_TMP/o.csv"
check "report csv: race 2, slept 50" sh -c "grep ',call_latency,' '$T_TMP/o.csv' | grep -q ',52,0,0,0,2,0,50,'"
"$IDLELAB" export --db "$OLD" --what summaries --format json >"$T_TMP/o.json"
check "export: race 2, slept 50" [ "$(jq -c '[.[] | select(.metric == "call_latency" and .grp == 1) | [.dropped_race, .dropped_slept]]' "$T_TMP/o.json")" = "[[2,50]]" ]
check "reading left the schema-6 file alone" [ "$(sha256sum <"$OLD")" = "$sum6" ]

M=$T_TMP/merged.db
"$IDLELAB" merge --quiet "$M" "$OLD" >"$T_TMP/out" 2>&1
check "merge takes a schema-6 input" [ $? -eq 0 ]
check "merge: race 2, slept 50" [ "$(q "$M" "SELECT dropped_race || ' ' || dropped_slept FROM summaries WHERE metric = 'call_latency' AND grp = 1")" = "2 50" ]
check "merge: db check passes" "$IDLELAB" db check --db "$M"

MIG=$T_TMP/mig.db
cp "$OLD" "$MIG"
before=$(q "$MIG" "SELECT (SELECT group_concat(id || metric || grp) FROM summaries) || ' ' || (SELECT count(*) FROM histograms) || ' ' || (SELECT count(*) FROM raw_samples)")
"$IDLELAB" db migrate --db "$MIG" >"$T_TMP/out" 2>&1
check "db migrate upgrades schema 6" [ "$(q "$MIG" 'PRAGMA user_version')" -eq 7 ]
check "migrated: race 2, slept 50; no drops 0, 0" [ "$(q "$MIG" "SELECT group_concat(dropped_race || ':' || dropped_slept, ' ') FROM (SELECT * FROM summaries WHERE metric = 'call_latency' ORDER BY grp)")" = "0:0 2:50" ]
check "migrated: every id, histogram and raw sample kept" [ "$(q "$MIG" "SELECT (SELECT group_concat(id || metric || grp) FROM summaries) || ' ' || (SELECT count(*) FROM histograms) || ' ' || (SELECT count(*) FROM raw_samples)")" = "$before" ]
check "migrated: histograms are non-empty" [ "$(q "$MIG" "SELECT count(*) FROM histograms")" -ge 4 ]
check "migrated: no dangling reference" [ -z "$(q "$MIG" "PRAGMA foreign_key_check")" ]
check "migrated: the views read, v_report with dropped_slept" [ "$(q "$MIG" "SELECT (SELECT nseries FROM v_runs) || ' ' || (SELECT sum(dropped_slept) FROM v_report_hist)")" = "4 50" ]
check "migrated: db check passes" "$IDLELAB" db check --db "$MIG"
check "migrated: a split that does not add up is refused" sh -c "! sqlite3 '$MIG' \"UPDATE summaries SET dropped_slept = 49 WHERE dropped = 52\" 2>/dev/null"
check "migrated: deleting a run still cascades" [ "$(q "$MIG" "PRAGMA foreign_keys = ON; DELETE FROM runs; SELECT count(*) FROM histograms")" -eq 0 ]
t_done
