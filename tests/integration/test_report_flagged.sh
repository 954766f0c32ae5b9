#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 22, item 9: a run during which a CPU's thermal-throttle counters
# rose is flagged beside its figures, never silently published.  This
# machine's CPUs have no such counters (a VM), so the snapshot must say
# so, with the reason, and no run is flagged; then a run is given the
# attribute the runner sets when the counters rise, and the report must
# list it in every format, the figures staying in the table.
. tests/lib.sh

export IDLELAB_STATE_DIR="$T_TMP/state"
q() { sqlite3 -batch -noheader "$1" "$2"; }
D=$T_TMP/t.db
"$IDLELAB" bench tsc_gaps --cpus 0 --param duration_ms=20 --db "$D" >/dev/null 2>&1
check "the bench run is stored" [ "$(q "$D" "SELECT count(*) FROM runs WHERE status = 'ok'")" = 1 ]
if [ -d /sys/devices/system/cpu/cpu0/thermal_throttle ]; then
	check "the snapshot holds cpu0's throttle counter" \
		[ "$(q "$D" "SELECT json_type(json, '\$.cpus.0.thermal.core_throttle_count') FROM run_env WHERE phase = 'before'")" = integer ]
else
	check "no thermal_throttle here: the snapshot says why" \
		sh -c "sqlite3 '$D' \"SELECT json FROM run_env WHERE phase = 'before'\" | grep -q 'no thermal-throttle counters'"
fi
"$IDLELAB" report --db "$D" >"$T_TMP/r0" 2>&1
check "no throttling: no flagged section" sh -c "! grep -q 'Flagged runs' '$T_TMP/r0'"

run=$(q "$D" "SELECT uuid FROM runs LIMIT 1")
q "$D" "INSERT INTO run_attrs (run_uuid, cpu, key, value) VALUES ('$run', 0, 'thermal_throttle_rose', 'core +3, package +0')"
"$IDLELAB" report --db "$D" >"$T_TMP/r1" 2>&1
check "md: the run is listed under Flagged runs" grep -q "^Flagged runs" "$T_TMP/r1"
check "md: with its id, CPU and what rose" \
	grep -q "| $(echo "$run" | cut -c1-8) | tsc_gaps | 0 | thermal_throttle_rose | core +3, package +0 |" "$T_TMP/r1"
check "md: its figures stay in the table" grep -q "^| .* | tsc_gaps |  | gap (ns) | 0 |" "$T_TMP/r1"
"$IDLELAB" report --db "$D" --format json >"$T_TMP/r.json" 2>&1
check "json: flagged carries the run" \
	jq -e --arg r "$(echo "$run" | cut -c1-8)" '.flagged | length == 1 and .[0].run == $r and .[0].cpu == 0' "$T_TMP/r.json"
# The stationarity check's flag (issue 22, item 9) is listed the same way.
q "$D" "INSERT INTO run_attrs (run_uuid, cpu, key, value) VALUES ('$run', 1, 'not_stationary', 'gap: first tenth''s middle half 10-20 ns, last tenth''s 40-50')"
"$IDLELAB" report --db "$D" >"$T_TMP/r2" 2>&1
check "md: a run that failed the stationarity check is flagged too" \
	grep -q "| $(echo "$run" | cut -c1-8) | tsc_gaps | 1 | not_stationary | gap: first tenth's middle half 10-20 ns" "$T_TMP/r2"
t_done
