#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# idlelab advise (issue 24) end to end on real databases: a machine
# without cpuidle (this one, or a fake tree that lacks it) answers
# no_cpuidle; a fake intel_idle tree whose counters never move gives
# samples of no state, so the answer is too_few_samples with the number
# a p99.99 bound needs; text and json agree; bad input exits 2; --map
# runs the map campaign first, then prints the declared table and the
# advice, and a second --map resumes rather than measuring again.  The state
# choice and the settings are covered by tests/unit/test_advise.c.
. tests/lib.sh

cp -r tests/fixtures/sysfs-intel "$T_TMP/still"
DB=$T_TMP/still.db
IDLELAB_SYSFS_ROOT=$T_TMP/still "$IDLELAB" bench idle_sweep --db "$DB" \
	--events none --quiet --param samples=3 --param idle_us=10,100 \
	--param wake=ipi >/dev/null 2>&1
check "an idle_sweep run on the fake intel_idle tree" \
	[ "$(sqlite3 "$DB" "SELECT status FROM runs")" = ok ]
"$IDLELAB" advise --db "$DB" --budget 'p99.99<=50us' --wake ipi \
	--format json >"$T_TMP/few.json" 2>"$T_TMP/err"
check "advise exits 0 with an answer" [ $? -eq 0 ]
check "too few samples, with how many a p99.99 bound needs" \
	[ "$(jq -r '.[0] | "\(.answer) \(.needs_samples) \(.runs) \(.states | length)"' "$T_TMP/few.json")" = \
	  "too_few_samples 29956 1 4" ]
check "declared latencies come from the fingerprint" \
	[ "$(jq -r '[.[0].states[].latency_us] | join(",")' "$T_TMP/few.json")" = "0,2,10,133" ]
check "no settings without an answer to enforce" \
	[ "$(jq -r '.[0].settings' "$T_TMP/few.json")" = null ]
"$IDLELAB" advise --db "$DB" --budget 'p99.99<=50us' >"$T_TMP/few.txt" 2>&1
check "text says the same" grep -q "^Answer: too few samples: 0 idle_sweep samples (wake=ipi) entered POLL alone; a bound on p99.99 at 95 % confidence needs at least 29956" "$T_TMP/few.txt"
check "timer runs are not ipi runs" \
	[ "$("$IDLELAB" advise --db "$DB" --budget 'p99.99<=50us' --wake timer --format json | jq -r '.[0].runs')" -eq 0 ]

rm -rf "$T_TMP/still/sys/devices/system/cpu/cpu0/cpuidle" \
	"$T_TMP/still/sys/devices/system/cpu/cpu1/cpuidle"
echo none >"$T_TMP/still/sys/devices/system/cpu/cpuidle/current_driver"
DB2=$T_TMP/none.db
IDLELAB_SYSFS_ROOT=$T_TMP/still "$IDLELAB" bench idle_sweep --db "$DB2" \
	--events none --quiet --param samples=3 --param idle_us=10 >/dev/null 2>&1
"$IDLELAB" advise --db "$DB2" --budget 'p99.99<=50us' --wake timer \
	--format json >"$T_TMP/none.json" 2>"$T_TMP/err"
check "a machine without cpuidle: no_cpuidle, with the reason" \
	[ "$(jq -r '.[0] | "\(.answer) \(.driver)"' "$T_TMP/none.json")" = "no_cpuidle none" ]
check "the reason names the driver" \
	sh -c "jq -r .[0].message \"$T_TMP/none.json\" | grep -q \"^no cpuidle states (cpuidle driver none\""

expect_exit "a budget without <= is a usage error" 2 \
	"$IDLELAB" advise --db "$DB" --budget 'p99<50us'
expect_exit "no budget is a usage error" 2 "$IDLELAB" advise --db "$DB"
expect_exit "an unknown wake source is a usage error" 2 \
	"$IDLELAB" advise --db "$DB" --budget 'p99<=50us' --wake nmi
expect_exit "a confidence out of range is a usage error" 2 \
	"$IDLELAB" advise --db "$DB" --budget 'p99<=50us' --confidence 1
expect_exit "a machine that matches none is a usage error" 2 \
	"$IDLELAB" advise --db "$DB" --budget 'p99<=50us' --machine nosuchhost
expect_exit "a missing database is a usage error" 2 \
	"$IDLELAB" advise --db "$T_TMP/missing.db" --budget 'p99<=50us'
check "advise wrote nothing to the database" \
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" -eq 1 ]

# --map: the map campaign, the declared table and the advice in one
# command (issue 24), on the fake intel_idle tree, the campaign shrunk.
MAP=$T_TMP/map.db
cp -r tests/fixtures/sysfs-intel "$T_TMP/maptree"
IDLELAB_SYSFS_ROOT=$T_TMP/maptree "$IDLELAB" advise --db "$MAP" \
	--budget 'p99.99<=50us' --map data/campaigns/idle-map.yaml \
	--scale 0.005 >"$T_TMP/map.txt" 2>"$T_TMP/map.err"
check "--map exits 0" [ $? -eq 0 ]
check "--map ran the campaign: one idle_sweep run per wake source" \
	[ "$(sqlite3 "$MAP" "SELECT group_concat(json_extract(params, '\$.wake'), ',') FROM (SELECT params FROM runs WHERE campaign = 'idle-map' AND bench = 'idle_sweep' AND status = 'ok' ORDER BY 1)")" = "ipi,timer" ]
check "--map prints the declared table, with the fake tree's states" \
	sh -c "grep -q '^### Declared against measured' '$T_TMP/map.txt' && grep -q '| C1E |' '$T_TMP/map.txt'"
check "... and then the advice" \
	sh -c "sed -n '/^### Declared/,\$p' '$T_TMP/map.txt' | grep -q '^Answer: '"
IDLELAB_SYSFS_ROOT=$T_TMP/maptree "$IDLELAB" advise --db "$MAP" \
	--budget 'p99.99<=50us' --map data/campaigns/idle-map.yaml \
	--scale 0.005 --format json >"$T_TMP/map.json" 2>"$T_TMP/map.err"
check "again: the map is resumed, not run twice, and json is the advice alone" \
	sh -c "[ \$(sqlite3 '$MAP' 'SELECT count(*) FROM runs') -eq 2 ] && jq -e '.[0].answer' '$T_TMP/map.json' >/dev/null"
expect_exit "--map of a missing campaign is a usage error" 2 \
	"$IDLELAB" advise --db "$T_TMP/none2.db" --budget 'p99<=50us' \
	--map "$T_TMP/nosuch.yaml"
check "... and creates no database" [ ! -e "$T_TMP/none2.db" ]
expect_exit "--scale without --map is a usage error" 2 \
	"$IDLELAB" advise --db "$DB" --budget 'p99<=50us' --scale 0.1
t_done
