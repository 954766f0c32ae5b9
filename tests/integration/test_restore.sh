#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Environment control with guaranteed restore, end to end, against a fake
# sysfs tree (tests/fixtures/envctl/mktree.sh under IDLELAB_SYSFS_ROOT):
# a campaign that asks for PM QoS 0, only C1, the performance governor
# and pinned frequencies must leave every file of the tree byte-identical
# to before - on a normal exit, on each of SIGINT, SIGTERM and SIGHUP sent
# mid-run, and after a kill -9 followed by `idlelab restore` or by the
# next `idlelab run`.  The journal must exist while the controls are
# applied and be gone afterwards.
. tests/lib.sh

ROOT=$T_TMP/root
export IDLELAB_SYSFS_ROOT="$ROOT"
export IDLELAB_STATE_DIR="$T_TMP/state"
JOURNAL=$IDLELAB_STATE_DIR/restore-journal.json
q() { sqlite3 -batch -noheader "$1" "$2"; }

sh tests/fixtures/envctl/mktree.sh "$ROOT"
sums() { (cd "$ROOT" && find . -type f | sort | xargs sha256sum); }
sums >"$T_TMP/orig.sums"
same() { sums >"$T_TMP/now.sums"; cmp -s "$T_TMP/now.sums" "$T_TMP/orig.sums"; }
changed() { ! same; }
disable_of() { cat "$ROOT/sys/devices/system/cpu/cpu$1/cpuidle/state$2/disable"; }

# A long run to signal, then a short one that must not start.
L=$T_TMP/long.yaml
cat >"$L" <<'EOF'
name: envlong
environment:
  pm_qos_us: 0
  cpuidle_only: [C1]
  governor: performance
  pin_freq_khz: max
groups:
  - {bench: tsc_gaps, cpus: "0", params: {duration_ms: 4000}}
  - {bench: tsc_gaps, name: after, cpus: "0", params: {duration_ms: 10}}
EOF
S=$T_TMP/short.yaml
sed -e 's/envlong/envshort/' -e 's/duration_ms: 4000/duration_ms: 20/' "$L" >"$S"

# --- normal exit --------------------------------------------------------
DB=$T_TMP/n.db
"$IDLELAB" run "$S" --db "$DB" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "normal exit: exit 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$T_TMP/err" | head -5
check "normal exit: tree byte-identical" same
check "normal exit: journal removed" [ ! -e "$JOURNAL" ]
check "runs record the applied state" [ "$(q "$DB" "SELECT count(*) FROM run_attrs WHERE key='envctl' AND cpu=0 AND value LIKE 'governor=performance min_khz=3500000 max_khz=3500000 disabled=POLL,C1E,C6'")" -eq 2 ]
check "runs record the state before" [ "$(q "$DB" "SELECT count(*) FROM run_attrs WHERE key='envctl.before' AND cpu=1 AND value LIKE 'governor=schedutil min_khz=800000 max_khz=3000000 disabled=C6'")" -eq 2 ]
check "runs record the PM QoS held" [ "$(q "$DB" "SELECT count(*) FROM run_attrs WHERE key='envctl.pm_qos_us' AND value='0'")" -eq 2 ]
check "runs record the PM QoS before" [ "$(q "$DB" "SELECT count(*) FROM run_attrs WHERE key='envctl.pm_qos_us.before' AND value='2000000000'")" -eq 2 ]

# Start the long campaign; return once its controls are applied.
start_long() {
	"$IDLELAB" run "$L" --db "$1" >"$T_TMP/out" 2>"$T_TMP/err" &
	pid=$!
	n=0
	while [ ! -e "$JOURNAL" ] && [ $n -lt 100 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	sleep 0.5
}

# --- each signal mid-campaign -------------------------------------------
for sig in INT TERM HUP; do
	DB=$T_TMP/$sig.db
	start_long "$DB"
	check "$sig: journal exists during the run" [ -e "$JOURNAL" ]
	check "$sig: POLL disabled during the run" [ "$(disable_of 0 0)" = 1 ]
	check "$sig: C1 left enabled during the run" [ "$(disable_of 1 1)" = 0 ]
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	check "$sig: exit 4" [ $rc -eq 4 ]
	check "$sig: tree byte-identical" same
	check "$sig: journal removed" [ ! -e "$JOURNAL" ]
	check "$sig: run stored interrupted, the next not started" [ "$(q "$DB" "SELECT group_concat(status) FROM runs")" = interrupted ]
	check "$sig: says the environment is restored" grep -q "environment is restored" "$T_TMP/err"
done

# --- kill -9, then `idlelab restore` -------------------------------------
DB=$T_TMP/k.db
start_long "$DB"
kill -9 "$pid"
{ wait "$pid"; } 2>/dev/null
check "kill -9: the controls stay applied" changed
check "kill -9: the journal stays" [ -e "$JOURNAL" ]
jq -e '.version == 1 and (.entries | length) == 12 and ([.entries[] | .original_hex | length > 0] | all)' "$JOURNAL" >/dev/null
check "kill -9: journal is JSON with originals" [ $? -eq 0 ]
"$IDLELAB" restore >"$T_TMP/out" 2>"$T_TMP/err"
check "restore: exit 0" [ $? -eq 0 ]
check "restore: says what it did" grep -q "restored 12 settings" "$T_TMP/out"
check "restore: tree byte-identical" same
check "restore: journal removed" [ ! -e "$JOURNAL" ]
"$IDLELAB" restore >"$T_TMP/out" 2>&1
check "restore again: nothing to restore, exit 0" sh -c "[ $? -eq 0 ] && grep -q 'nothing to restore' '$T_TMP/out'"

# --- kill -9, then the next `idlelab run` restores first ----------------
DB=$T_TMP/k2.db
start_long "$DB"
kill -9 "$pid"
{ wait "$pid"; } 2>/dev/null
check "kill -9 (2): controls applied" changed
P=$T_TMP/plain.yaml
printf 'name: plain\ngroups:\n  - {bench: tsc_gaps, cpus: "0", params: {duration_ms: 10}}\n' >"$P"
"$IDLELAB" run "$P" --db "$DB" >"$T_TMP/out" 2>"$T_TMP/err"
check "next run: exit 0" [ $? -eq 0 ]
check "next run: notice on stderr" grep -q "notice: restored 12 settings .*killed" "$T_TMP/err"
check "next run: tree byte-identical" same
check "next run: journal removed" [ ! -e "$JOURNAL" ]
"$IDLELAB" run "$L" --db "$DB" --resume --only after >"$T_TMP/out" 2>&1
check "resume after kill -9 restores at its end too" same

# --- a live campaign's journal is not touched ---------------------------
DB=$T_TMP/live.db
start_long "$DB"
"$IDLELAB" restore >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "restore during a live campaign: exit 1" [ $rc -eq 1 ]
check "restore during a live campaign: names the pid" grep -q "pid $pid" "$T_TMP/err"
check "restore during a live campaign: nothing restored" changed
expect_exit "a second controlling campaign is refused" 1 "$IDLELAB" run "$S" --db "$T_TMP/live2.db"
kill -TERM "$pid"
wait "$pid"
check "after the live campaign: tree byte-identical" same

# --- a control this machine lacks, strictly: exit 3, nothing changed ------
# (the default, runs stored unsupported: tests/integration/test_env_missing.sh)
U=$T_TMP/unsup.yaml
sed -e 's/\[C1\]/[C1, C9]/' "$S" >"$U"
expect_exit "unknown idle state: exit 3" 3 "$IDLELAB" run "$U" --db "$T_TMP/u.db" \
	--env-missing abort
check "unknown idle state: message names it" grep -q "no idle state named 'C9'" "$T_TMP/err"
check "unknown idle state: tree unchanged" same
check "unknown idle state: no journal" [ ! -e "$JOURNAL" ]
check "unknown idle state: no run stored" [ "$(q "$T_TMP/u.db" "SELECT count(*) FROM runs")" -eq 0 ]
check "restore --help" sh -c "'$IDLELAB' restore --help | grep -q usage"
expect_exit "restore takes no arguments" 2 "$IDLELAB" restore extra
t_done
