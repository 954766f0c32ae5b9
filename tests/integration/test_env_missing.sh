#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `idlelab run --env-missing`: what a campaign does with an environment
# control that does not exist on this machine, against a fake sysfs tree
# (tests/fixtures/envctl/mktree.sh) whose CPUs have cpufreq but no cpuidle
# states, and a campaign asking for both cpuidle_only and pin_freq_khz.
#   default (unsupported): the runs are stored unsupported with the reason,
#     shown on each run's line; the control that exists (the pin) is
#     applied during the campaign and restored after it; exit 0;
#   abort: the old strict refusal, exit 3, nothing stored or changed;
#   run: the runs are measured (ok), each stores envctl.not_applied;
#   a bad action is a usage error naming the three;
#   --dry-run warns of the missing control and of a benchmark whose module
#     is not loaded, saying what a run would store, and changes nothing.
. tests/lib.sh

ROOT=$T_TMP/root
export IDLELAB_SYSFS_ROOT="$ROOT"
export IDLELAB_STATE_DIR="$T_TMP/state"
q() { sqlite3 -batch -noheader "$1" "$2"; }

sh tests/fixtures/envctl/mktree.sh "$ROOT"
rm -rf "$ROOT"/sys/devices/system/cpu/cpu*/cpuidle
sums() { (cd "$ROOT" && find . -type f | sort | xargs sha256sum); }
sums >"$T_TMP/orig.sums"
same() { sums >"$T_TMP/now.sums"; cmp -s "$T_TMP/now.sums" "$T_TMP/orig.sums"; }

C=$T_TMP/c.yaml
cat >"$C" <<'EOF2'
name: envmissing
environment:
  cpuidle_only: [C1]
  pin_freq_khz: max
groups:
  - {bench: tsc_gaps, cpus: "0", repetitions: 2, params: {duration_ms: 20}}
EOF2
why="cpuidle_only: this machine has no cpuidle states"

# --- default: unsupported, with the reason ------------------------------
DB=$T_TMP/u.db
"$IDLELAB" run "$C" --db "$DB" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "default: the campaign goes on, exit 0 ($rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$T_TMP/err" | head -5
check "default: both runs stored unsupported, the reason naming the control" \
	[ "$(q "$DB" "SELECT count(*) FROM runs WHERE status='unsupported' AND status_reason LIKE 'environment not applied here: $why%'")" -eq 2 ]
check "default: no run stored with another status" \
	[ "$(q "$DB" "SELECT count(*) FROM runs WHERE status<>'unsupported'")" -eq 0 ]
check "default: each run's line shows the reason" \
	[ "$(grep -c "unsupported: environment not applied here: $why" "$T_TMP/out")" -eq 2 ]
check "default: the tally counts 2 unsupported" \
	grep -q '0 ok, 0 failed, 2 unsupported' "$T_TMP/out"
check "default: stderr says what was left out and what happens" \
	grep -q "environment: not applied here: $why.*stored as unsupported" "$T_TMP/err"
check "default: the tree is restored" same

# --- abort: the strict behaviour ----------------------------------------
DB=$T_TMP/a.db
expect_exit "abort: refused, exit 3" 3 \
	"$IDLELAB" run "$C" --db "$DB" --env-missing abort
check "abort: the message names the control" grep -q "$why" "$T_TMP/err"
check "abort: no run stored" \
	[ "$(q "$DB" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" -eq 0 ]
check "abort: nothing changed" same

# --- run: measure anyway, the reason kept per run -----------------------
DB=$T_TMP/r.db
"$IDLELAB" run "$C" --db "$DB" --env-missing run >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "run: exit 0 ($rc)" [ $rc -eq 0 ]
check "run: both runs ok" \
	[ "$(q "$DB" "SELECT count(*) FROM runs WHERE status='ok'")" -eq 2 ]
check "run: each run stores envctl.not_applied with the reason" \
	[ "$(q "$DB" "SELECT count(*) FROM run_attrs WHERE key='envctl.not_applied' AND cpu=-1 AND value LIKE '$why%'")" -eq 2 ]
check "run: the control that exists was applied during the runs" \
	[ "$(q "$DB" "SELECT count(*) FROM run_attrs WHERE key='envctl' AND cpu=0 AND value LIKE '%min_khz=3500000 max_khz=3500000%'")" -eq 2 ]
check "run: the tree is restored" same

expect_exit "a bad action is a usage error" 2 \
	"$IDLELAB" run "$C" --db "$T_TMP/b.db" --env-missing maybe
check "the usage error names the actions" \
	grep -q "expected unsupported, abort or run" "$T_TMP/err"

# --- --dry-run: what a run would find missing, nothing changed ----------
D=$T_TMP/d.yaml
sed 's/^groups:$/groups:\n  - {bench: cstate_wake, cpus: "0", params: {samples: 10}}/' "$C" >"$D"
DB=$T_TMP/d.db
"$IDLELAB" run "$D" --db "$DB" --dry-run >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "dry-run: exit 0 ($rc)" [ $rc -eq 0 ]
check "dry-run: the plan is printed" grep -q 'estimated duration' "$T_TMP/out"
check "dry-run: warns of the missing control, with its file and line" \
	grep -q "d.yaml:[0-9]*: environment: not available here: $why" "$T_TMP/err"
check "dry-run: says its runs would be stored as unsupported" \
	grep -q "every run would be stored as unsupported with this reason" "$T_TMP/err"
check "dry-run: names the benchmark whose module is not loaded" \
	grep -q "cstate_wake: unsupported here: .*idlelab_cstate.*its 1 run would be stored as unsupported" "$T_TMP/err"
check "dry-run: no warning for a benchmark that runs here" \
	sh -c "! grep -q 'tsc_gaps: unsupported' '$T_TMP/err'"
check "dry-run: no database created" [ ! -e "$DB" ]
check "dry-run: the tree unchanged" same
"$IDLELAB" run "$D" --db "$DB" --dry-run --env-missing abort >/dev/null 2>"$T_TMP/err"
check "dry-run, abort: a run would refuse to start" \
	grep -q "a run would refuse to start (--env-missing abort)" "$T_TMP/err"
t_done
