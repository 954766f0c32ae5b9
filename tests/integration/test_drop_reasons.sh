#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# summaries.dropped split by reason (schema 4, 004_drop_reasons.sql): a
# real timer_wake run at a 1 us interval, which overruns on every machine,
# stores its missed periods as reason overrun and the reports show them;
# a database at schema 3 (built from migrations 001-003, holding that run
# and an imported cyclictest run) still reports, exports and merges read
# as it is, and `db migrate` upgrades it, leaving the reasons of a row
# that dropped samples unknown (NULL) and those of a row that dropped none
# 0; db check names a split that does not add up; `--events none` opens
# no counters and says so.
. tests/lib.sh

q() { sqlite3 "$1" "$2"; }
NEW=$T_TMP/new.db

"$IDLELAB" bench timer_wake --db "$NEW" --cpus 0 --param samples=200 \
	--param interval_us=1 --param priority=0 >"$T_TMP/out" 2>"$T_TMP/err"
check "timer_wake at 1 us runs" [ $? -eq 0 ]
# wake_latency holds the drops; wake_latency_corrected back-fills them.
over=$(q "$NEW" "SELECT dropped_overrun FROM summaries WHERE metric = 'wake_latency'")
check "overruns stored as reason overrun ($over)" [ "${over:-0}" -gt 0 ]
check "no other reason, and the total is theirs" [ "$(q "$NEW" "SELECT dropped || ' ' || dropped_range || dropped_race || dropped_lost || dropped_slept FROM summaries WHERE metric = 'wake_latency'")" = "$over 0000" ]
check "the corrected series holds the back-filled periods, none dropped" \
	[ "$(q "$NEW" "SELECT (c.count - w.count) || ' ' || c.dropped FROM summaries c JOIN summaries w ON w.run_uuid = c.run_uuid AND w.metric = 'wake_latency' WHERE c.metric = 'wake_latency_corrected'")" = "$over 0" ]
check "missed periods recorded alike" [ "$(q "$NEW" "SELECT sum(value) FROM run_attrs WHERE key = 'missed_periods'")" -eq "$over" ]
"$IDLELAB" report --db "$NEW" >"$T_TMP/r.md"
check "report: drops by reason" grep -q "| timer_wake | .* | $over | overrun $over |" "$T_TMP/r.md"
"$IDLELAB" report --db "$NEW" --format csv >"$T_TMP/r.csv"
check "report csv: the five reasons" sh -c "head -1 '$T_TMP/r.csv' | grep -q ',dropped_range,dropped_overrun,dropped_race,dropped_lost,dropped_slept,run_median_min,run_median_max\$' && grep ',wake_latency,' '$T_TMP/r.csv' | grep -q ',0,$over,0,0,0,[0-9]*,[0-9]*\$'"
"$IDLELAB" report --db "$NEW" --format json >"$T_TMP/r.json"
check "report json: dropped_by_reason" [ "$(jq '.rows[0].dropped_by_reason.overrun' "$T_TMP/r.json")" -eq "$over" ]
check "counters on by default" [ "$(q "$NEW" "SELECT value FROM run_attrs WHERE key = 'counters'")" = on ]
"$IDLELAB" import cyclictest tests/fixtures/cyclictest/us.json --db "$NEW" >"$T_TMP/out" 2>&1
check "db check passes" "$IDLELAB" db check --db "$NEW"

# --- a schema-3 database ---------------------------------------------------
OLD=$T_TMP/old.db
cat schemas/001_*.sql schemas/002_*.sql schemas/003_*.sql | sqlite3 "$OLD"
sqlite3 "$OLD" "PRAGMA user_version = 3;
	ATTACH '$NEW' AS n;
	INSERT INTO machines SELECT * FROM n.machines;
	INSERT INTO runs SELECT * FROM n.runs;
	INSERT INTO run_attrs SELECT * FROM n.run_attrs;
	INSERT INTO summaries SELECT id, run_uuid, metric, unit, cpu, cpu2, grp,
		count, min, max, mean, stddev, p50, p90, p99, p999, p9999,
		dropped, early, dropped_raw FROM n.summaries;
	INSERT INTO histograms SELECT * FROM n.histograms;"
check "schema-3 fixture: three summaries, one with drops" [ "$(q "$OLD" "SELECT count(*) || ' ' || sum(dropped > 0) FROM summaries")" = "3 1" ]
sum3=$(sha256sum <"$OLD")
"$IDLELAB" report --db "$OLD" >"$T_TMP/o.md" 2>"$T_TMP/err"
check "report reads a schema-3 file" [ $? -eq 0 ]
check "report: its reasons not recorded" grep -q "| $over | not recorded (stored before schema 4) |" "$T_TMP/o.md"
"$IDLELAB" report --db "$OLD" --format csv >"$T_TMP/o.csv"
check "report csv: empty reasons where not recorded" grep -q ",$over,0,,,,,,[0-9]*,[0-9]*\$" "$T_TMP/o.csv"
"$IDLELAB" export --db "$OLD" --what summaries --format csv >"$T_TMP/o.exp" 2>"$T_TMP/err"
check "export reads a schema-3 file" sh -c "head -1 '$T_TMP/o.exp' | grep -q 'dropped,early,dropped_range,dropped_overrun,dropped_race,dropped_lost,dropped_slept\$'"
"$IDLELAB" report --db "$OLD" --kind states --format csv >"$T_TMP/o.st" 2>"$T_TMP/err"
check "grouped reports read a schema-3 file" [ -s "$T_TMP/o.st" ]
check "reading left the schema-3 file alone" [ "$(sha256sum <"$OLD")" = "$sum3" ]

M=$T_TMP/merged.db
"$IDLELAB" merge --quiet "$M" "$OLD" >"$T_TMP/out" 2>&1
check "merge takes a schema-3 input" [ $? -eq 0 ]
check "merge: unknown reasons stay unknown, no drops split into 0" [ "$(q "$M" "SELECT group_concat(dropped || ':' || coalesce(dropped_overrun, 'null'), ' ') FROM (SELECT * FROM summaries ORDER BY dropped)")" = "0:0 0:0 $over:null" ]
check "merge: db check passes" "$IDLELAB" db check --db "$M"

MIG=$T_TMP/mig.db
cp "$OLD" "$MIG"
"$IDLELAB" db migrate --db "$MIG" >"$T_TMP/out" 2>&1
check "db migrate upgrades schema 3" [ "$(q "$MIG" 'PRAGMA user_version')" -ge 4 ]
check "migrated: reasons of a row with drops NULL, of one without 0" [ "$(q "$MIG" "SELECT group_concat(dropped || ':' || coalesce(dropped_range, 'n') || coalesce(dropped_overrun, 'n') || coalesce(dropped_race, 'n') || coalesce(dropped_lost, 'n') || coalesce(dropped_slept, 'n'), ' ') FROM (SELECT * FROM summaries ORDER BY dropped)")" = "0:00000 0:00000 $over:nnnnn" ]
check "migrated: the view shows the reasons" q "$MIG" "SELECT dropped_overrun FROM v_report_hist LIMIT 1"
check "migrated: db check passes" "$IDLELAB" db check --db "$MIG"
check "migrated: a half-split row is refused" sh -c "! sqlite3 '$MIG' \"UPDATE summaries SET dropped_range = 1 WHERE dropped > 0\" 2>/dev/null"

# --- db check names a split that does not add up ----------------------------
BAD=$T_TMP/bad.db
cp "$NEW" "$BAD"
sqlite3 "$BAD" "PRAGMA ignore_check_constraints = 1; UPDATE summaries SET dropped_race = dropped_race + 1 WHERE dropped > 0"
"$IDLELAB" db check --db "$BAD" >"$T_TMP/chk" 2>&1
check "db check fails on a bad split" [ $? -eq 1 ]
check "db check names it" grep -q "by reason range 0, overrun $over, race 1, lost 0, slept 0" "$T_TMP/chk"

# --- --events none ----------------------------------------------------------
E=$T_TMP/ev.db
"$IDLELAB" bench timer_wake --db "$E" --cpus 0 --events none --param samples=20 \
	--param priority=0 >"$T_TMP/out" 2>"$T_TMP/err"
check "--events none runs" [ $? -eq 0 ]
check "--events none: no counter rows" [ "$(q "$E" "SELECT count(*) FROM counters")" -eq 0 ]
check "--events none: recorded as off" [ "$(q "$E" "SELECT value FROM run_attrs WHERE key = 'counters'")" = "off (events: none)" ]
t_done
