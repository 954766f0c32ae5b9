#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 20, defect 9: a database that refuses a finished run (here, held
# by another writer past IDLELAB_BUSY_TIMEOUT_MS) must not cost the
# measurement, and the campaign summary must say what failed.
#   - the campaign stops with exit 1 and says the run was not stored,
#     why, where it was kept and the command that loads it;
#   - the kept file is an idlelab database holding exactly that run;
#   - `import pending` merges it in and removes it; the campaign then
#     resumes without measuring that entry again;
#   - the same for `idlelab bench`;
#   - `import pending` with nothing pending says so and exits 0;
#   - a bad IDLELAB_BUSY_TIMEOUT_MS is named in a warning.
. tests/lib.sh

export IDLELAB_STATE_DIR="$T_TMP/state"
q() { sqlite3 -batch -noheader "$1" "$2"; }
# Hold the write lock of database $1 for $2 s, in the background.
hold_lock() { (echo "BEGIN EXCLUSIVE;"; sleep "$2") | sqlite3 "$1" & }
D=$T_TMP/lab.db
C=$T_TMP/c.yaml
cat >"$C" <<'YAML'
name: lk
groups:
  - {bench: tsc_gaps, name: long, cpus: "0", params: {duration_ms: 1500}}
  - {bench: tsc_gaps, name: short, cpus: "0", params: {duration_ms: 20}, repetitions: 2}
YAML
export IDLELAB_BUSY_TIMEOUT_MS=200
"$IDLELAB" run "$C" --db "$D" >"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
# The campaign has registered the machine and stored its plan by now,
# and is measuring entry 0: take the lock for longer than that run.
sleep 0.7
hold_lock "$D" 4
wait "$pid"
check "a refused store exits 1" [ $? -eq 1 ]
wait
check "the summary says a run was measured but not stored, and why" \
	grep -q "^campaign lk: 1 run measured but NOT stored: .*database is locked" "$T_TMP/out"
check "stderr names where the measurement is kept" \
	grep -q "is kept in $D.pending/.*\.db" "$T_TMP/err"
check "and the command that loads it" \
	grep -q "load it with: idlelab import pending --db $D" "$T_TMP/err"
check "the campaign stopped: nothing after entry 0 ran" \
	[ "$(q "$D" "SELECT count(*) FROM runs")" = 0 ]
kept=$(ls "$D.pending"/*.db 2>/dev/null)
check "exactly one kept file" [ "$(echo "$kept" | wc -w)" = 1 ]
check "it holds entry 0, ok, with its summaries" \
	[ "$(q "$kept" "SELECT r.plan_index || ' ' || r.status || ' ' || (SELECT count(*) > 0 FROM summaries s WHERE s.run_uuid = r.uuid) FROM runs r")" = "0 ok 1" ]
check "and this machine's row with its fingerprint" \
	[ "$(q "$kept" "SELECT count(*) FROM machines WHERE fingerprint IS NOT NULL")" = 1 ]
check "no temporary file is left" [ -z "$(ls -A "$D.pending" | grep '^\.')" ]

"$IDLELAB" import pending --db "$D" >"$T_TMP/out" 2>"$T_TMP/err"
check "import pending exits 0" [ $? -eq 0 ]
check "it reports one run imported" grep -q "1 pending run imported, 0 left" "$T_TMP/out"
check "the run is in the database now" \
	[ "$(q "$D" "SELECT count(*) FROM runs WHERE plan_index = 0 AND status = 'ok'")" = 1 ]
check "the pending directory is gone" [ ! -e "$D.pending" ]
"$IDLELAB" run "$C" --db "$D" --resume >"$T_TMP/out" 2>"$T_TMP/err"
check "resume exits 0" [ $? -eq 0 ]
check "and runs only the two entries left" grep -q "2 ok, .*1 already done" "$T_TMP/out"
check "three runs, one per plan entry" \
	[ "$(q "$D" "SELECT count(DISTINCT plan_index) || ' ' || count(*) FROM runs")" = "3 3" ]

"$IDLELAB" import pending --db "$D" >"$T_TMP/out" 2>&1
check "import pending with nothing pending exits 0" [ $? -eq 0 ]
check "and says so" grep -q "no pending runs" "$T_TMP/out"
expect_exit "import pending takes no FILE (exit 2)" 2 "$IDLELAB" import pending x.db --db "$D"

# bench: the same refusal, the same keeping.
B=$T_TMP/bench.db
"$IDLELAB" bench tsc_gaps --cpus 0 --param duration_ms=20 --db "$B" >/dev/null 2>&1
"$IDLELAB" bench tsc_gaps --cpus 0 --param duration_ms=1500 --db "$B" >"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
sleep 0.7
hold_lock "$B" 4
wait "$pid"
check "bench: a refused store exits 1" [ $? -eq 1 ]
wait
check "bench: stderr names the kept file" grep -q "is kept in $B.pending/" "$T_TMP/err"
"$IDLELAB" import pending --db "$B" >/dev/null 2>&1
check "bench: import pending loads it" [ "$(q "$B" "SELECT count(*) FROM runs")" = 2 ]

IDLELAB_BUSY_TIMEOUT_MS=soon "$IDLELAB" import pending --db "$B" >/dev/null 2>"$T_TMP/err"
check "a bad IDLELAB_BUSY_TIMEOUT_MS is named in a warning" \
	grep -q "IDLELAB_BUSY_TIMEOUT_MS 'soon'" "$T_TMP/err"
t_done
