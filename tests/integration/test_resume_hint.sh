#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 20, defect 7: the line a stopped campaign prints to finish it
# must carry every flag that decides its plan or its destination.  A
# campaign started with --db (a path with a space), --scale 0.5, --name
# and --only is stopped by SIGINT; the printed command, pasted as it is
# (from another directory), must finish that campaign in that database at
# that scale, and create no ./idlelab.db.  Then --resume without --scale
# is shown to continue at the stored scale, saying so.
. tests/lib.sh

export IDLELAB_STATE_DIR="$T_TMP/state"
q() { sqlite3 -batch -noheader "$1" "$2"; }
mkdir -p "$T_TMP/lab dir" "$T_TMP/elsewhere"
D="$T_TMP/lab dir/lab.db"
C=$T_TMP/ab.yaml
cat >"$C" <<'YAML'
name: ab
groups:
  - {bench: tsc_gaps, name: long, cpus: "0", params: {duration_ms: 3000}}
  - {bench: tsc_gaps, name: short, cpus: "0", params: {duration_ms: 20}}
  - {bench: timer_wake, name: other, cpus: "0", params: {samples: 40}}
YAML
"$IDLELAB" run "$C" --db "$D" --scale 0.5 --name ab-half --only 'long*' \
	>/dev/null 2>"$T_TMP/err" &
pid=$!
sleep 0.7
kill -INT "$pid"
wait "$pid"
check "SIGINT exits 4" [ $? -eq 4 ]
hint=$(sed -n 's/.*finish with: //p' "$T_TMP/err")
check "a resume hint is printed" [ -n "$hint" ]
for f in "--db '$D'" "--name ab-half" "--scale 0.5" "--only 'long\*'"; do
	check "the hint carries $f" sh -c 'printf "%s\n" "$1" | grep -q -- "$2"' sh "$hint" "$f"
done

# Pasted as it is, with idlelab being this build, from another directory.
idlelab() { "$IDLELAB" "$@"; }
(cd "$T_TMP/elsewhere" && eval "$hint") >"$T_TMP/out" 2>"$T_TMP/err2"
check "the pasted hint exits 0" [ $? -eq 0 ]
check "it created no ./idlelab.db" [ ! -e "$T_TMP/elsewhere/idlelab.db" ]
check "the interrupted entry finished ok, in the campaign's database" \
	[ "$(q "$D" "SELECT count(*) FROM runs WHERE campaign = 'ab-half' AND plan_index = 0 AND status = 'ok'")" = 1 ]
check "at the campaign's scale (duration_ms 3000 x 0.5)" \
	[ "$(q "$D" "SELECT json_extract(params, '\$.duration_ms') FROM runs WHERE plan_index = 0 AND status = 'ok'")" = 1500 ]
check "--only kept: the third group did not run" \
	[ "$(q "$D" "SELECT count(*) FROM runs WHERE bench = 'timer_wake'")" = 0 ]

# --resume without --scale reads the stored scale.
"$IDLELAB" run "$C" --db "$D" --name ab-half --resume >"$T_TMP/out" 2>"$T_TMP/err3"
check "--resume without --scale exits 0" [ $? -eq 0 ]
check "and says it resumes at the stored scale" \
	grep -q "resumes at the --scale 0.5 it was started with" "$T_TMP/err3"
check "the rest ran scaled (timer_wake samples 40 x 0.5)" \
	[ "$(q "$D" "SELECT json_extract(params, '\$.samples') FROM runs WHERE bench = 'timer_wake' AND status = 'ok'")" = 20 ]
check "no entry was stored twice" \
	[ "$(q "$D" "SELECT count(*) FROM runs WHERE status = 'ok'")" = 3 ]
t_done
