#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The output scripts read (issue 20): `bench --json` and `run --json`
# parsed back with jq, one object per run for ok, unsupported, skipped and
# interrupted (SIGINT) runs, each field checked against the database;
# run's final tally object; --quiet; the 8-digit UUID that the plain
# lines show, pasted back as `report --run PREFIX`, with an ambiguous
# prefix refused (exit 2) naming both runs.
. tests/lib.sh

export IDLELAB_STATE_DIR="$T_TMP/state"
q() { sqlite3 -batch -noheader "$1" "$2"; }
DB=$T_TMP/lab.db

# A kmod benchmark whose device is absent here: unsupported under bench,
# skipped under run.
kmod=""
for b in cstate_wake ipi_storm gaps_irqoff wbinvd; do
	if "$IDLELAB" list --json 2>/dev/null | jq -e --arg b "$b" '.[] | select(.name == $b) | select(.supported == false)' >/dev/null 2>&1; then
		kmod=$b
		break
	fi
done

# --- bench --json, ok -------------------------------------------------------
"$IDLELAB" bench tsc_gaps --cpus 0 -p duration_ms=20 --db "$DB" --json >"$T_TMP/b.json" 2>"$T_TMP/b.err"
check "bench --json ok: exit 0" [ $? -eq 0 ]
check "bench --json: exactly one line on stdout" [ "$(wc -l <"$T_TMP/b.json")" -eq 1 ]
U=$(q "$DB" "SELECT uuid FROM runs ORDER BY start_ns DESC LIMIT 1")
check "bench --json ok: the fields" jq -e --arg u "$U" '
	.type == "run" and .uuid == $u and .bench == "tsc_gaps" and
	.status == "ok" and .reason == null and .campaign == null and
	.index == null and .group == null and .repetition == null and
	.cpus == "0" and .params.duration_ms == 20 and .stored == true and
	.kept == null and (.report.rows | length) > 0' "$T_TMP/b.json"
check "bench --json: every key is present" jq -e -s '
	length == 1 and (.[0] | keys) == (["bench","campaign","cpus","group","index","kept","params",
		  "reason","report","repetition","repetitions","status",
		  "stored","type","uuid"] | sort)' "$T_TMP/b.json"

# --- bench --json, unsupported -------------------------------------------------
if [ -n "$kmod" ]; then
	"$IDLELAB" bench "$kmod" --db "$DB" --json >"$T_TMP/u.json" 2>"$T_TMP/u.err"
	check "bench --json unsupported: exit 3" [ $? -eq 3 ]
	U=$(q "$DB" "SELECT uuid FROM runs WHERE bench = '$kmod'")
	R=$(q "$DB" "SELECT status_reason FROM runs WHERE bench = '$kmod'")
	check "bench --json unsupported: one line, status, the stored reason" \
		jq -e -s --arg u "$U" --arg r "$R" --arg b "$kmod" '
		length == 1 and .[0].uuid == $u and .[0].bench == $b and
		.[0].status == "unsupported" and .[0].reason == $r and
		($r | length) > 0 and .[0].report == null and .[0].stored' "$T_TMP/u.json"
else
	skip "bench --json unsupported" "every kmod benchmark is supported here"
	skip "bench --json unsupported: fields" "every kmod benchmark is supported here"
fi

# --- bench, SIGINT --------------------------------------------------------------
"$IDLELAB" bench tsc_gaps --cpus 0 -p duration_ms=3000 --db "$DB" --json >"$T_TMP/i.json" 2>"$T_TMP/i.err" &
pid=$!
sleep 0.7
kill -INT "$pid"
wait "$pid"
check "bench --json SIGINT: exit 4" [ $? -eq 4 ]
U=$(q "$DB" "SELECT uuid FROM runs WHERE status = 'interrupted'")
R=$(q "$DB" "SELECT status_reason FROM runs WHERE status = 'interrupted'")
check "bench --json SIGINT: interrupted, with the stored reason" \
	jq -e -s --arg u "$U" --arg r "$R" '
	length == 1 and .[0].uuid == $u and .[0].status == "interrupted" and
	.[0].reason == $r and ($r | length) > 0' "$T_TMP/i.json"

# --- bench plain: the UUID, and report --run PREFIX -----------------------------
"$IDLELAB" bench tsc_gaps --cpus 0 -p duration_ms=20 --db "$DB" >"$T_TMP/p.out" 2>"$T_TMP/p.err"
U=$(q "$DB" "SELECT uuid FROM runs ORDER BY start_ns DESC LIMIT 1")
P=$(echo "$U" | cut -c1-8)
check "bench names the run by its UUID's 8 digits" grep -q "^run $P tsc_gaps: ok\$" "$T_TMP/p.out"
"$IDLELAB" report --db "$DB" --run "$P" --format json >"$T_TMP/r.json" 2>"$T_TMP/r.err"
check "report --run PREFIX: exit 0" [ $? -eq 0 ]
check "report --run PREFIX: that run's rows only" \
	jq -e -s 'length == 1 and (.[0].rows | length) > 0 and all(.[0].rows[]; .runs == 1 and .params.duration_ms == 20)' "$T_TMP/r.json"
check "report --run PREFIX in upper case" sh -c "'$IDLELAB' report --db '$DB' --run $(echo "$P" | tr a-f A-F) --format json | jq -e -s 'length == 1 and (.[0].rows | length) > 0'"
expect_exit "report --run: a prefix of no run" 2 "$IDLELAB" report --db "$DB" --run 'zz'

# Two runs made to share a prefix (a foreign-key-free copy of the file):
# the prefix is refused with both UUIDs named, and more digits choose one.
cp "$DB" "$T_TMP/amb.db"
A=$(q "$T_TMP/amb.db" "SELECT uuid FROM runs WHERE status = 'ok' ORDER BY uuid LIMIT 1")
Bu=$(q "$T_TMP/amb.db" "SELECT uuid FROM runs WHERE status = 'ok' AND uuid <> '$A' LIMIT 1")
Bn=$(echo "$A" | cut -c1-8)$(echo "$Bu" | cut -c9-)
q "$T_TMP/amb.db" "UPDATE runs SET uuid = '$Bn' WHERE uuid = '$Bu'"
expect_exit "report --run: an ambiguous prefix is a usage error" 2 \
	"$IDLELAB" report --db "$T_TMP/amb.db" --run "$(echo "$A" | cut -c1-8)"
check "ambiguous prefix: both runs named" sh -c "grep -q '$A' '$T_TMP/err' && grep -q '$Bn' '$T_TMP/err'"
check "a longer prefix tells them apart" sh -c "'$IDLELAB' report --db '$T_TMP/amb.db' --run $(echo "$A" | cut -c1-13) >/dev/null"

# --- bench --quiet ----------------------------------------------------------------
n0=$(q "$DB" "SELECT count(*) FROM runs")
"$IDLELAB" bench tsc_gaps --cpus 0 -p duration_ms=20 --db "$DB" --quiet >"$T_TMP/q.out" 2>"$T_TMP/q.err"
rc=$?
check "bench --quiet: exit 0, nothing on stdout" sh -c "[ $rc -eq 0 ] && [ ! -s '$T_TMP/q.out' ]"
check "bench --quiet: the run is stored" [ "$(q "$DB" "SELECT count(*) FROM runs")" -eq $((n0 + 1)) ]

# --- run --json: skipped and ok, then the tally -----------------------------------
C=$T_TMP/c.yaml
if [ -n "$kmod" ]; then
	printf 'name: js\ngroups:\n  - {bench: %s}\n  - {bench: tsc_gaps, cpus: "0", repetitions: 2, params: {duration_ms: 10}}\n' "$kmod" >"$C"
else
	printf 'name: js\ngroups:\n  - {bench: tsc_gaps, name: first, cpus: "0", params: {duration_ms: 10}}\n  - {bench: tsc_gaps, cpus: "0", repetitions: 2, params: {duration_ms: 10}}\n' >"$C"
fi
R=$T_TMP/run.db
"$IDLELAB" run "$C" --db "$R" --json >"$T_TMP/c.json" 2>"$T_TMP/c.err"
check "run --json: exit 0" [ $? -eq 0 ]
check "run --json: every line is one JSON object" sh -c "
	[ \$(wc -l <'$T_TMP/c.json') -eq 4 ] &&
	while read -r l; do printf '%s\n' \"\$l\" | jq -e 'type == \"object\"' >/dev/null || exit 1; done <'$T_TMP/c.json'"
for i in 0 1 2; do
	row=$(q "$R" "SELECT uuid || '|' || bench || '|' || status || '|' || coalesce(status_reason, '') FROM runs WHERE plan_index = $i")
	check "run --json: plan index $i as stored" jq -e -s --argjson i "$i" --arg row "$row" '
		[.[] | select(.type == "run" and .index == $i)] | length == 1 and
		(.[0] | .campaign == "js" and .stored and
		 ([.uuid, .bench, .status, (.reason // "")] | join("|")) == $row)' "$T_TMP/c.json"
done
if [ -n "$kmod" ]; then
	check "run --json: the absent kmod is skipped, with its reason" jq -e -s '
		.[0].status == "skipped" and (.[0].reason | length) > 0 and
		.[0].repetition == 1 and .[0].repetitions == 1' "$T_TMP/c.json"
	sk=1; okn=2
else
	skip "run --json: skipped" "every kmod benchmark is supported here"
	sk=0; okn=3
fi
check "run --json: repetitions of the tsc_gaps group" jq -e -s '
	[.[] | select(.index == 1 or .index == 2) | [.group, .repetition, .repetitions]] ==
	[["tsc_gaps", 1, 2], ["tsc_gaps", 2, 2]]' "$T_TMP/c.json"
check "run --json: the tally is the last line" jq -e -s --argjson ok "$okn" --argjson sk "$sk" '
	.[-1] | .type == "campaign" and .campaign == "js" and .ok == $ok and
	.skipped == $sk and .failed == 0 and .interrupted == 0 and
	.already_done == 0 and .not_stored == 0 and .stopped == false and
	.resume == null and (.duration_ms | type) == "number"' "$T_TMP/c.json"
check "run --json: no human line on stdout" sh -c "[ -s '$T_TMP/c.json' ] && ! grep -q '^\\[\\|^campaign ' '$T_TMP/c.json'"
expect_exit "run --json --dry-run is refused" 2 "$IDLELAB" run "$C" --db "$R" --json --dry-run
check "run --json --dry-run: the message says why" grep -q -- "--dry-run prints the plan as text" "$T_TMP/err"

# --- run plain: the UUID in each line; --quiet ---------------------------------
R2=$T_TMP/run2.db
"$IDLELAB" run "$C" --db "$R2" >"$T_TMP/c.out" 2>"$T_TMP/c.err"
P=$(q "$R2" "SELECT substr(uuid, 1, 8) FROM runs WHERE plan_index = 2")
check "run names each run by its UUID's 8 digits" grep -q "^\\[3/3\\] #2 run $P tsc_gaps " "$T_TMP/c.out"
check "run's prefix goes back into report --run" sh -c "'$IDLELAB' report --db '$R2' --run $P --format json | jq -e -s 'length == 1 and (.[0].rows | length) > 0'"
R3=$T_TMP/run3.db
"$IDLELAB" run "$C" --db "$R3" --quiet >"$T_TMP/c.out" 2>"$T_TMP/c.err"
check "run --quiet: exit 0" [ $? -eq 0 ]
check "run --quiet: the summary only" sh -c "[ \$(wc -l <'$T_TMP/c.out') -eq 1 ] && grep -q '^campaign js: $okn ok' '$T_TMP/c.out'"
check "run --quiet: every run stored" [ "$(q "$R3" "SELECT count(*) FROM runs")" -eq 3 ]

# --- run --json, SIGINT -----------------------------------------------------------
L=$T_TMP/long.yaml
printf 'name: long\ngroups:\n  - {bench: tsc_gaps, cpus: "0", params: {duration_ms: 3000}}\n  - {bench: tsc_gaps, name: short, cpus: "0", params: {duration_ms: 10}}\n' >"$L"
I=$T_TMP/int.db
"$IDLELAB" run "$L" --db "$I" --json >"$T_TMP/l.json" 2>"$T_TMP/l.err" &
pid=$!
sleep 0.7
kill -INT "$pid"
wait "$pid"
check "run --json SIGINT: exit 4" [ $? -eq 4 ]
U=$(q "$I" "SELECT uuid FROM runs WHERE plan_index = 0 AND status = 'interrupted'")
Rr=$(q "$I" "SELECT status_reason FROM runs WHERE plan_index = 0")
check "run --json SIGINT: the interrupted run, its reason, then the tally" \
	jq -e -s --arg u "$U" --arg r "$Rr" '
	length == 2 and .[0].type == "run" and .[0].uuid == $u and
	.[0].index == 0 and .[0].status == "interrupted" and
	.[0].reason == $r and ($r | length) > 0 and
	.[1].type == "campaign" and .[1].interrupted == 1 and .[1].ok == 0 and
	.[1].stopped == true and (.[1].resume | test("--resume"))' "$T_TMP/l.json"
t_done
