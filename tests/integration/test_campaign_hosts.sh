#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One campaign run on two hosts (two host UUIDs, t_new_host) merges into one fleet
# database, and --resume on one host never counts the other's runs as done.
. tests/lib.sh
cat >"$T_TMP/c.yaml" <<'YAML'
name: hosts
groups:
  - bench: tsc_gaps
    cpus: "0"
    repetitions: 2
    params: {duration_ms: 20}
YAML
for h in a b; do
	t_new_host "$T_TMP/state-$h"
	IDLELAB_STATE_DIR=$T_TMP/state-$h "$IDLELAB" run "$T_TMP/c.yaml" --db "$T_TMP/$h.db" >/dev/null 2>&1
	check "host $h: campaign ran" [ "$(sqlite3 "$T_TMP/$h.db" "SELECT count(*) FROM runs WHERE status='ok'")" -eq 2 ]
done
"$IDLELAB" merge "$T_TMP/fleet.db" "$T_TMP/a.db" "$T_TMP/b.db" >"$T_TMP/out" 2>&1
check "same campaign from two hosts merges" [ $? -eq 0 ]
check "fleet holds both hosts' runs" [ "$(sqlite3 "$T_TMP/fleet.db" "SELECT count(*) FROM runs")" -eq 4 ]
check "fleet holds two machines" [ "$(sqlite3 "$T_TMP/fleet.db" "SELECT count(DISTINCT machine_uuid) FROM runs")" -eq 2 ]
cp "$T_TMP/fleet.db" "$T_TMP/shared.db"
IDLELAB_STATE_DIR=$T_TMP/state-a "$IDLELAB" run "$T_TMP/c.yaml" --db "$T_TMP/shared.db" --resume >/dev/null 2>&1
check "resume on host a adds nothing" [ "$(sqlite3 "$T_TMP/shared.db" "SELECT count(*) FROM runs")" -eq 4 ]
t_new_host "$T_TMP/state-c"
IDLELAB_STATE_DIR=$T_TMP/state-c "$IDLELAB" run "$T_TMP/c.yaml" --db "$T_TMP/shared.db" --resume >/dev/null 2>&1
check "resume on a new host c runs its own plan" [ "$(sqlite3 "$T_TMP/shared.db" "SELECT count(*) FROM runs")" -eq 6 ]
t_done
