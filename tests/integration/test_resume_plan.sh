#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A campaign is held to the plan it stored when it started
# (schemas/006_campaigns.sql, harness/cli/cmd_run_plan.c).  A campaign of two
# groups is started with --only the first, so half its plan is left; then:
#   - the file is edited (a matrix grows, as in issue 20's report): --resume
#     is refused with exit 2 before any run, naming the entries that
#     differ and how to start a new campaign, and the database is untouched;
#   - a --scale other than the stored one is refused the same way;
#   - the stored plan is made to differ from today's expansion of the
#     unchanged file (two entries swapped, as a new default order would):
#     --resume replays the stored plan, so each plan index gets the
#     stored entry's parameters, and says so;
#   - a stored plan this idlelab cannot render back is refused, naming it;
#   - a campaign begun before the table (no row) resumes as before.
. tests/lib.sh

export IDLELAB_STATE_DIR="$T_TMP/state"
q() { sqlite3 -batch -noheader "$1" "$2"; }
D=$T_TMP/plan.db
C=$T_TMP/c.yaml
# Sequential, so plan index = expansion order and the entries the test
# names sit where it says (the default, blocks, shuffles each block).
cat >"$C" <<'EOF'
name: held
defaults:
  order: sequential
groups:
  - name: first
    bench: timer_wake
    cpus: "0"
    params: {samples: 40}
    matrix: {interval_us: [200, 1000]}
  - name: second
    bench: timer_wake
    cpus: "0"
    params: {samples: 40}
    matrix: {interval_us: [300, 700]}
EOF
"$IDLELAB" run "$C" --db "$D" --only first >/dev/null 2>"$T_TMP/err"
check "the first half runs" [ "$(q "$D" "SELECT count(*) FROM runs")" = 2 ]
check "the whole plan is stored at the start (4 entries, the file's sha256)" sh -c \
	"[ \"\$(sqlite3 '$D' 'SELECT nplan, file_sha256 FROM campaigns WHERE name = \"held\"')\" = \"4|$(sha256sum "$C" | cut -d' ' -f1)\" ]"
cp "$D" "$T_TMP/before.db"

# An edited file: refused before anything runs.
cp "$C" "$T_TMP/orig.yaml"
sed -i 's/\[300, 700\]/[300, 500, 700]/' "$C"
sum0=$(sha256sum "$D" | cut -d' ' -f1)
expect_exit "a changed campaign file is refused under --resume (exit 2)" 2 \
	"$IDLELAB" run "$C" --db "$D" --resume
check "the message says the file changed and which entries differ" \
	grep -q "has changed since campaign 'held' started.*#3 was timer_wake (group second, cpus 0, interval_us=700" "$T_TMP/err"
check "and how to start a new campaign" grep -q -- "--name NEW" "$T_TMP/err"
check "nothing ran and the database is unchanged" \
	[ "$(sha256sum "$D" | cut -d' ' -f1)" = "$sum0" ]
cp "$T_TMP/orig.yaml" "$C"
expect_exit "a --scale other than the stored one is refused (exit 2)" 2 \
	"$IDLELAB" run "$C" --db "$D" --resume --scale 0.5
check "naming the stored scale" grep -q "planned with --scale 1, not 0.5" "$T_TMP/err"

# Today's expansion differs from the stored plan (entries 2 and 3 swapped,
# as a changed default order would do): the stored plan is replayed.
q "$D" "UPDATE campaigns SET plan = (
	SELECT json_group_array(json(CASE
		WHEN key = 2 THEN json_set(json_extract(plan, '\$[3]'), '\$.index', 2)
		WHEN key = 3 THEN json_set(json_extract(plan, '\$[2]'), '\$.index', 3)
		ELSE value END)) FROM json_each(plan)) WHERE name = 'held'"
"$IDLELAB" run "$C" --db "$D" --resume >/dev/null 2>"$T_TMP/err"
rc=$?
check "the resume on the stored plan succeeds (exit $rc)" [ "$rc" = 0 ]
check "it says the stored plan was replayed" \
	grep -q "resumes on the plan idlelab .* stored.*2 entries differently" "$T_TMP/err"
check "plan index 2 ran the stored entry (interval_us 700), not today's (300)" \
	[ "$(q "$D" "SELECT json_extract(params, '\$.interval_us') FROM runs WHERE plan_index = 2")" = 700 ]
check "plan index 3 likewise (300)" \
	[ "$(q "$D" "SELECT json_extract(params, '\$.interval_us') FROM runs WHERE plan_index = 3")" = 300 ]
check "each run's resume key is its stored entry's" [ "$(q "$D" "SELECT count(*) FROM runs r
	JOIN campaigns c ON c.name = r.campaign JOIN json_each(c.plan) p ON p.key = r.plan_index
	WHERE json_extract(p.value, '\$.hash') = r.param_hash")" = 4 ]

# A stored plan whose parameters this idlelab no longer takes.
cp "$T_TMP/before.db" "$D"
q "$D" "UPDATE campaigns SET plan = json_set(plan, '\$[2].params',
	'{\"interval_us\":300,\"nosuch\":1}') WHERE name = 'held'"
q "$D" "UPDATE campaigns SET plan = json_set(plan, '\$[3].hash', '0000000000000000') WHERE name = 'held'"
expect_exit "an unreplayable stored plan is refused (exit 2)" 2 \
	"$IDLELAB" run "$C" --db "$D" --resume
check "naming the entry and the idlelab that started it" \
	grep -q "cannot be replayed by this idlelab: entry #2 (timer_wake).*finish it with idlelab" "$T_TMP/err"

# Begun before stored plans: no row, and it resumes as before.
cp "$T_TMP/before.db" "$D"
q "$D" "DELETE FROM campaigns"
"$IDLELAB" run "$C" --db "$D" --resume >/dev/null 2>"$T_TMP/err"
check "a campaign with no stored plan resumes as before (exit $?)" \
	[ "$(q "$D" "SELECT count(*) FROM runs")" = 4 ]
check "and is not given a plan its first runs may not have come from" \
	[ "$(q "$D" "SELECT count(*) FROM campaigns")" = 0 ]

# merge carries the stored plans, and keeps the output's row on a clash.
cp "$T_TMP/before.db" "$T_TMP/one.db"
"$IDLELAB" merge "$T_TMP/merged.db" "$T_TMP/one.db" >/dev/null 2>"$T_TMP/err" ||
	sed 's/^/#   /' "$T_TMP/err"
check "merge copies the stored plan" [ "$(q "$T_TMP/merged.db" \
	"SELECT nplan FROM campaigns WHERE name = 'held'")" = 4 ]
t_done
