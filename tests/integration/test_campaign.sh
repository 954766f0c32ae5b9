#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `idlelab run` end to end: a 12-run campaign is killed with SIGKILL at
# random points and resumed each time; afterwards the database passes
# integrity_check, holds no duplicate plan entry, and its set of completed
# (plan_index, param_hash) equals that of an uninterrupted run of the same
# campaign in another database.  Also: refusal without --resume, --only,
# --dry-run (plan, hashes, estimate, no file created), SIGINT then
# --resume, kmod benchmarks stored as skipped, the progress line on a TTY
# only (bench's too), and every class of bad campaign file giving exit 2 with its
# "FILE:LINE: key 'x'" message.
. tests/lib.sh

export IDLELAB_STATE_DIR="$T_TMP/state"
q() { sqlite3 -batch -noheader "$1" "$2"; }

# --- the durability campaign: 12 short runs --------------------------------
C=$T_TMP/durable.yaml
cat >"$C" <<'EOF'
name: durable
description: kill -9 and resume
groups:
  - bench: tsc_gaps
    cpus: "0"
    repetitions: 3
    matrix: {duration_ms: [100, 150]}
  - bench: timer_wake
    cpus: "0-1"
    repetitions: 3
    matrix: {samples: 50, interval_us: [1000, 2000]}
EOF

REF=$T_TMP/ref.db
t0=$(date +%s%N)
"$IDLELAB" run "$C" --db "$REF" >"$T_TMP/ref.out" 2>"$T_TMP/ref.err"
rc=$?
t1=$(date +%s%N)
check "uninterrupted campaign exits 0" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T_TMP/ref.err" | head -5
check "uninterrupted: 12 runs ok" [ "$(q "$REF" "SELECT count(*) FROM runs WHERE campaign='durable' AND status='ok'")" -eq 12 ]
check "summary line printed" grep -q '^campaign durable: 12 ok, 0 failed' "$T_TMP/ref.out"
check "one line per run" [ "$(grep -c '^\[[0-9]*/12\] #' "$T_TMP/ref.out")" -eq 12 ]
ref_ms=$(( (t1 - t0) / 1000000 ))
diag "uninterrupted campaign took $ref_ms ms"

# Without --resume, a campaign already in the database is refused.
expect_exit "rerun without --resume refused" 2 "$IDLELAB" run "$C" --db "$REF"
check "refusal says why and what to do" grep -q "already holds 12 .*--resume" "$T_TMP/err"
check "refusal adds nothing" [ "$(q "$REF" "SELECT count(*) FROM runs")" -eq 12 ]
"$IDLELAB" run "$C" --db "$REF" --resume >"$T_TMP/out" 2>&1
rc=$?
check "--resume of a finished campaign runs nothing" sh -c "[ $rc -eq 0 ] && grep -q '12 already done' '$T_TMP/out'"
check "still 12 runs" [ "$(q "$REF" "SELECT count(*) FROM runs")" -eq 12 ]

# Kill -9 at random points, resuming each time: each kill lands in the
# first 60 % of the time the *remaining* runs should take, so it hits
# startup, a run, a commit or the gap between runs, and rarely misses.
rand() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
DB=$T_TMP/killed.db
kills=0
i=0
while [ $kills -lt 4 ] && [ $i -lt 12 ]; do
	i=$((i + 1))
	stored=$(q "$DB" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
	[ "$stored" -ge 12 ] && break
	args="--resume"
	[ $i -eq 1 ] && args=""
	# shellcheck disable=SC2086
	"$IDLELAB" run "$C" --db "$DB" $args >"$T_TMP/k.out" 2>"$T_TMP/k.err" &
	pid=$!
	ms=$(( $(rand) % (ref_ms * (12 - stored) / 12 * 6 / 10 + 1) ))
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	if kill -9 "$pid" 2>/dev/null; then
		kills=$((kills + 1))
		diag "killed after ${ms} ms; $(q "$DB" "SELECT count(*) FROM runs" 2>/dev/null || echo 0) runs stored"
	fi
	# (braces: the shell's own "Killed" report goes to /dev/null too)
	{ wait "$pid"; } 2>/dev/null
done
"$IDLELAB" run "$C" --db "$DB" --resume >"$T_TMP/k.out" 2>"$T_TMP/k.err"
rc=$?
check "final --resume completes" [ $rc -eq 0 ]
check "killed at least three times" [ "$kills" -ge 3 ]
check "integrity_check ok after kills" [ "$(q "$DB" "PRAGMA integrity_check")" = ok ]
check "db check passes after kills" sh -c "'$IDLELAB' db check --db '$DB' >/dev/null"
check "no duplicate plan entries" [ "$(q "$DB" "SELECT count(*) - count(DISTINCT plan_index) FROM runs WHERE campaign='durable'")" -eq 0 ]
q "$REF" "SELECT plan_index || ' ' || param_hash FROM runs WHERE campaign='durable' AND status='ok' ORDER BY plan_index" >"$T_TMP/ref.set"
q "$DB" "SELECT plan_index || ' ' || param_hash FROM runs WHERE campaign='durable' AND status='ok' ORDER BY plan_index" >"$T_TMP/db.set"
check "completed set equals the uninterrupted campaign's" cmp -s "$T_TMP/ref.set" "$T_TMP/db.set"
check "every completed run has its summaries" [ "$(q "$DB" "SELECT count(*) FROM runs r WHERE status='ok' AND NOT EXISTS (SELECT 1 FROM summaries s WHERE s.run_uuid=r.uuid)")" -eq 0 ]

# --- --dry-run: the plan, its hashes and an estimate; nothing written -------
NEW=$T_TMP/never.db
"$IDLELAB" run "$C" --db "$NEW" --dry-run >"$T_TMP/dry" 2>"$T_TMP/dry.err"
check "dry-run exits 0" [ $? -eq 0 ]
check "dry-run creates no database" [ ! -e "$NEW" ]
check "dry-run lists 12 entries" [ "$(awk '$1 ~ /^[0-9]+$/' "$T_TMP/dry" | wc -l)" -eq 12 ]
check "dry-run prints an estimate" grep -Eq '^estimated duration: [0-9]+:[0-9]{2} for 12 runs' "$T_TMP/dry"
awk '$1 ~ /^[0-9]+$/ { print $1 " " $6 }' "$T_TMP/dry" >"$T_TMP/dry.set"
check "dry-run hashes are the stored ones" cmp -s "$T_TMP/dry.set" "$T_TMP/ref.set"
check "dry-run shows repetitions" grep -q ' 3/3 ' "$T_TMP/dry"
check "dry-run shows params" grep -q 'interval_us=2000;samples=50' "$T_TMP/dry"

# A constraint across parameters (each value valid alone) is the
# benchmark's check op: --dry-run refuses it, naming the group's line.
cat >"$T_TMP/inverted.yaml" <<'EOF'
name: inverted
groups:
  - bench: tsc_gaps
    cpus: "0"
    params: {duration_ms: 10}
  - bench: timer_wake
    cpus: "0"
    params: {interval_us: 500, interval_max_us: 100}
EOF
expect_exit "dry-run refuses interval_max_us < interval_us" 2 "$IDLELAB" run "$T_TMP/inverted.yaml" --db "$NEW" --dry-run
check "the refusal names the file, the group's line and the key" grep -q "inverted.yaml:6: group 'timer_wake'.*interval_max_us" "$T_TMP/err"
check "the refused dry-run creates no database" [ ! -e "$NEW" ]
"$IDLELAB" run "$C" --db "$REF" --dry-run --resume >"$T_TMP/dry2" 2>&1
check "dry-run --resume marks done entries" [ "$(grep -c ' done ' "$T_TMP/dry2")" -eq 12 ]
"$IDLELAB" run "$C" --db "$NEW" --dry-run --only 'tsc*' >"$T_TMP/dry3" 2>&1
check "dry-run --only filters" [ "$(awk '$1 ~ /^[0-9]+$/' "$T_TMP/dry3" | wc -l)" -eq 6 ]

# --- --only keeps plan indices; --resume fills in the rest ------------------
S=$T_TMP/small.yaml
cat >"$S" <<'EOF'
name: small
groups:
  - {bench: timer_wake, name: tw, cpus: "0", matrix: {samples: 20, interval_us: 100}}
  - {bench: tsc_gaps, cpus: "0", params: {duration_ms: 10}, repetitions: 2}
EOF
O=$T_TMP/only.db
"$IDLELAB" run "$S" --db "$O" --only tsc_gaps >/dev/null 2>"$T_TMP/err"
check "--only runs the matching group" [ "$(q "$O" "SELECT group_concat(plan_index) FROM (SELECT plan_index FROM runs ORDER BY plan_index)")" = "1,2" ]
"$IDLELAB" run "$S" --db "$O" --only tw --resume >/dev/null 2>&1
check "--only by group name, then resume" [ "$(q "$O" "SELECT group_concat(plan_index) FROM (SELECT plan_index FROM runs ORDER BY plan_index)")" = "0,1,2" ]
expect_exit "--only matching nothing" 2 "$IDLELAB" run "$S" --db "$O" --only 'nosuch*'
"$IDLELAB" run "$S" --db "$O" --name small-b >/dev/null 2>&1
check "--name stores a second instance" [ "$(q "$O" "SELECT count(*) FROM runs WHERE campaign='small-b' AND status='ok'")" -eq 3 ]
expect_exit "bad --name" 2 "$IDLELAB" run "$S" --db "$O" --name 'a b'

# --- SIGINT stops, stores the run as interrupted, --resume finishes ---------
L=$T_TMP/long.yaml
cat >"$L" <<'EOF'
name: long
groups:
  - {bench: tsc_gaps, cpus: "0", params: {duration_ms: 4000}}
  - {bench: tsc_gaps, name: short, cpus: "0", params: {duration_ms: 10}}
EOF
I=$T_TMP/int.db
"$IDLELAB" run "$L" --db "$I" >/dev/null 2>"$T_TMP/err" &
pid=$!
# The signal must land while the first entry measures, whatever the load:
# not after a fixed sleep (a starved start-up made that race), but once
# tsc_gaps's measuring thread exists, with the entry long enough that a
# starved test shell still signals within it.
i=0
while [ "$(ls "/proc/$pid/task" 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -INT "$pid"
wait "$pid"
check "SIGINT exits 4" [ $? -eq 4 ]
check "SIGINT: the run is stored interrupted" [ "$(q "$I" "SELECT status FROM runs WHERE plan_index=0")" = interrupted ]
check "SIGINT: the campaign stopped" [ "$(q "$I" "SELECT count(*) FROM runs")" -eq 1 ]
check "SIGINT: message says how to resume" grep -q -- "--resume" "$T_TMP/err"
"$IDLELAB" run "$L" --db "$I" --resume >"$T_TMP/out" 2>&1
check "--resume reruns the interrupted entry" [ "$(q "$I" "SELECT group_concat(status) FROM (SELECT status FROM runs ORDER BY plan_index)")" = "ok,ok" ]

# --- kmod benchmarks without their device are stored as skipped -------------
kmod=""
for b in cstate_wake ipi_storm gaps_irqoff wbinvd; do
	if "$IDLELAB" list --json 2>/dev/null | jq -e --arg b "$b" '.[] | select(.name == $b) | select(.supported == false)' >/dev/null 2>&1; then
		kmod=$b
		break
	fi
done
if [ -n "$kmod" ]; then
	K=$T_TMP/kmod.yaml
	printf 'name: kmod\ngroups:\n  - {bench: %s}\n  - {bench: tsc_gaps, cpus: "0", params: {duration_ms: 10}}\n' "$kmod" >"$K"
	"$IDLELAB" run "$K" --db "$T_TMP/kmod.db" >"$T_TMP/out" 2>"$T_TMP/err"
	check "absent kmod: campaign still exits 0" [ $? -eq 0 ]
	check "absent kmod: stored as skipped with a reason" [ "$(q "$T_TMP/kmod.db" "SELECT count(*) FROM runs WHERE bench='$kmod' AND status='skipped' AND length(status_reason) > 0")" -ge 1 ]
	check "absent kmod: the rest ran" [ "$(q "$T_TMP/kmod.db" "SELECT status FROM runs WHERE bench='tsc_gaps'")" = ok ]
	"$IDLELAB" run "$K" --db "$T_TMP/kmod.db" --resume >/dev/null 2>&1
	check "absent kmod: --resume retries skipped, no duplicates" [ "$(q "$T_TMP/kmod.db" "SELECT count(*) FROM runs")" -eq "$(q "$T_TMP/kmod.db" "SELECT count(DISTINCT plan_index) FROM runs")" ]
else
	skip "absent kmod stored as skipped" "no unsupported kmod benchmark registered here"
fi

# --- the progress line: on a TTY only ---------------------------------------
P=$T_TMP/p.yaml
printf 'name: p\ngroups:\n  - {bench: tsc_gaps, cpus: "0", params: {duration_ms: 10}, repetitions: 2}\n' >"$P"
"$IDLELAB" run "$P" --db "$T_TMP/p1.db" >/dev/null 2>"$T_TMP/err"
check "no progress line when stderr is not a TTY" sh -c "! grep -q ETA '$T_TMP/err'"
if script -qec "'$IDLELAB' run '$P' --db '$T_TMP/p2.db'" /dev/null >"$T_TMP/tty" 2>&1; then
	check "progress line on a TTY" grep -q '\[1/2\] tsc_gaps .*ETA [0-9][0-9]:[0-9][0-9]' "$T_TMP/tty"
else
	skip "progress line on a TTY" "script(1) could not run"
fi
# bench's: a run estimated at 1 s or more, on a TTY only, cleared after
# the run, and never with --quiet (issue 20).
B="'$IDLELAB' bench tsc_gaps --cpus 0 -p duration_ms=1200"
"$IDLELAB" bench tsc_gaps --cpus 0 -p duration_ms=1200 --db "$T_TMP/b1.db" \
	>/dev/null 2>"$T_TMP/err"
check "bench: no progress line when stderr is not a TTY" sh -c "! grep -q ETA '$T_TMP/err'"
if script -qec "$B --db '$T_TMP/b2.db'" /dev/null >"$T_TMP/tty" 2>&1; then
	check "bench: progress line on a TTY, then cleared" \
		grep -q "tsc_gaps cpus=0  ETA 00:0[0-9]..\\[K" "$T_TMP/tty"
	script -qec "$B --db '$T_TMP/b3.db' --quiet" /dev/null >"$T_TMP/tty" 2>&1
	check "bench --quiet: no progress line" [ ! -s "$T_TMP/tty" ]
	script -qec "'$IDLELAB' bench tsc_gaps --cpus 0 -p duration_ms=10 --db '$T_TMP/b4.db'" \
		/dev/null >"$T_TMP/tty" 2>&1
	check "bench: no progress line for a short run" sh -c "! grep -q ETA '$T_TMP/tty'"
else
	skip "bench: progress line on a TTY" "script(1) could not run"
fi

# --- bad campaign files: exit 2, FILE:LINE: key, nothing written ------------
bad() {
	name=$1; want=$2
	f=$T_TMP/bad.yaml
	cat >"$f"
	"$IDLELAB" run "$f" --db "$T_TMP/bad.db" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF "$f:$want" "$T_TMP/err" && [ ! -e "$T_TMP/bad.db" ]; then
		ok "bad file: $name"
	else
		not_ok "bad file: $name (exit $rc)"
		sed 's/^/#   /' "$T_TMP/err" | head -3
	fi
}
bad "unknown key" "3: key 'grups': unknown key in the campaign (did you mean 'groups'?)" <<'EOF'
name: x
description: y
grups: []
EOF
bad "wrong type" "4: key 'repetitions': expected a number, got a list" <<'EOF'
name: x
groups:
  - bench: tsc_gaps
    repetitions: [2]
EOF
bad "unknown benchmark" "3: key 'bench': unknown benchmark 'tsc_gap' (did you mean 'tsc_gaps'?)" <<'EOF'
name: x
groups:
  - bench: tsc_gap
EOF
bad "unknown parameter" "6: key 'intervl_us': benchmark timer_wake has no parameter 'intervl_us' (did you mean 'interval_us'?)" <<'EOF'
name: x
groups:
  - bench: timer_wake
    matrix:
      samples: [10]
      intervl_us: [1]
EOF
bad "bad value" "5: key 'samples': 'lots'" <<'EOF'
name: x
groups:
  - bench: timer_wake
    params:
      samples: lots
EOF
bad "empty matrix list" "5: key 'interval_us': empty list" <<'EOF'
name: x
groups:
  - bench: timer_wake
    matrix:
      interval_us: []
EOF
bad "impossible placement" "4: key 'cpus': " <<'EOF'
name: x
groups:
  - bench: timer_wake
    cpus: "0,999"
EOF
bad "pairs benchmark without pairs" "4: key 'cpus': '0-1': futex_wake needs CPU pairs" <<'EOF'
name: x
groups:
  - bench: futex_wake
    cpus: "0-1"
EOF
bad "environment typo" "3: key 'cpuidle_onyl': unknown key in environment (did you mean 'cpuidle_only'?)" <<'EOF'
name: x
environment:
  cpuidle_onyl: [C1]
groups:
  - bench: tsc_gaps
EOF
bad "YAML syntax" "2: YAML syntax error: mapping values are not allowed" <<'EOF'
name: x
description: a: b
groups:
  - bench: tsc_gaps
EOF
printf 'name: ev\ngroups:\n  - {bench: tsc_gaps, cpus: "0", events: nosuch_event_xyz}\n' >"$T_TMP/ev.yaml"
expect_exit "bad event name: exit 2" 2 "$IDLELAB" run "$T_TMP/ev.yaml" --db "$T_TMP/ev2.db"
check "bad event: message names file:line and the event" grep -q "ev.yaml:3: .*nosuch_event_xyz" "$T_TMP/err"
check "bad event: nothing stored" [ ! -e "$T_TMP/ev2.db" ]
expect_exit "missing campaign file" 2 "$IDLELAB" run "$T_TMP/nosuch.yaml"
expect_exit "no campaign file" 2 "$IDLELAB" run
expect_exit "unknown flag" 2 "$IDLELAB" run "$S" --bogus
check "run --help" sh -c "'$IDLELAB' run --help | grep -q usage"

# --- --scale: the smoke-test override ----------------------------------------
Q=data/campaigns/quick.yaml
"$IDLELAB" run "$Q" --scale 0.01 --db "$T_TMP/sc.db" >"$T_TMP/sc.out" 2>"$T_TMP/sc.err"
check "run --scale 0.01 of quick.yaml exits 0" [ $? -eq 0 ]
sq() { sqlite3 "$T_TMP/sc.db" "$1"; }
check "scaled: timer_wake samples 2000 -> 20, interval_us kept at 500" \
	[ "$(sq "SELECT json_extract(params, '\$.samples') || '/' || json_extract(params, '\$.interval_us') FROM runs WHERE bench='timer_wake'")" = "20/500" ]
check "scaled: tsc_gaps duration_ms 1000 -> 10" \
	[ "$(sq "SELECT json_extract(params, '\$.duration_ms') FROM runs WHERE bench='tsc_gaps'")" = 10 ]
check "scaled: every run ok" [ "$(sq "SELECT count(*) FROM runs WHERE status <> 'ok'")" = 0 ]
"$IDLELAB" run "$Q" --scale 0.01 --dry-run --db "$T_TMP/sc.db" >"$T_TMP/scd.out" 2>&1
check "--dry-run shows the scale" grep -q '^scale: 0.01 ' "$T_TMP/scd.out"
"$IDLELAB" run "$Q" --resume --dry-run --db "$T_TMP/sc.db" >"$T_TMP/scr.out" 2>&1
check "a scaled run does not resume as an unscaled one" \
	sh -c "! grep -q ' done ' '$T_TMP/scr.out'"
cp "$T_TMP/sc.db" "$T_TMP/sc.before"
for v in 0 2 -1 abc 0.5x; do
	expect_exit "--scale $v refused: exit 2" 2 "$IDLELAB" run "$Q" --scale "$v" --db "$T_TMP/sc.db"
	check "--scale $v: the message names the flag" grep -q -- "--scale '$v'" "$T_TMP/err"
done
check "refused --scale leaves the database byte-identical" cmp "$T_TMP/sc.db" "$T_TMP/sc.before"

# --- the shipped campaigns expand here ---------------------------------------
for f in data/campaigns/*.yaml; do
	"$IDLELAB" run "$f" --db "$T_TMP/ship.db" --dry-run >/dev/null 2>"$T_TMP/err"
	rc=$?
	check "$f: --dry-run" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || sed 's/^/# /' "$T_TMP/err"
done
check "shipped campaigns create no database" [ ! -e "$T_TMP/ship.db" ]
t_done
