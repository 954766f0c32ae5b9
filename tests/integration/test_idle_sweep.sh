#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# idle_sweep (issue 24): one wake_latency series per idle time d with
# every sample of it, for both wake sources; the entered state from the
# cpuidle usage counters, against fake sysfs trees whose counters never
# move (every sample is then "not_idle", never a guessed state) and which
# have no cpuidle at all (the run says why, and stores no state series);
# reads=both stores the no-reads twin of every d; --causes stores the
# state of every sample; bad parameters exit 2.
. tests/lib.sh

DB=$T_TMP/s.db
q() { sqlite3 "$1" "$2"; }

"$IDLELAB" bench idle_sweep --db "$DB" --events none --quiet \
	--param samples=5 --param idle_us=1,50,300 --param seed=7 >/dev/null 2>"$T_TMP/err"
check "timer sweep runs" [ $? -eq 0 ]
check "one wake_latency series per d, 5 samples each" \
	[ "$(q "$DB" "SELECT group_concat(grp || ':' || count, ' ') FROM (SELECT grp, count FROM summaries WHERE metric = 'wake_latency' ORDER BY grp)")" = "1:5 50:5 300:5" ]
check "the seed is recorded" \
	[ "$(q "$DB" "SELECT value FROM run_attrs WHERE key = 'seed'")" = 7 ]
check "the entered-state source is recorded for the target CPU" \
	[ "$(q "$DB" "SELECT count(*) FROM run_attrs WHERE key = 'entered_state' AND cpu = 1")" -eq 1 ]

DB2=$T_TMP/ipi.db
"$IDLELAB" bench idle_sweep --db "$DB2" --events none --quiet \
	--param samples=5 --param idle_us=20,200 --param wake=ipi >/dev/null 2>"$T_TMP/err"
check "ipi sweep runs" [ $? -eq 0 ]
check "every ipi sample is a sample or a counted race" \
	[ "$(q "$DB2" "SELECT sum(count + dropped_race) FROM summaries WHERE metric = 'wake_latency'")" -eq 10 ]

# A tree whose counters never move: the target never "entered" a state.
cp -r tests/fixtures/sysfs-intel "$T_TMP/still"
DB3=$T_TMP/still.db
IDLELAB_SYSFS_ROOT=$T_TMP/still "$IDLELAB" bench idle_sweep --db "$DB3" \
	--events none --quiet --param samples=4 --param idle_us=10,100 \
	--param reads=both >/dev/null 2>"$T_TMP/err"
check "sweep on the fake tree runs" [ $? -eq 0 ]
check "unmoved counters make not_idle samples, no state guessed" \
	[ "$(q "$DB3" "SELECT group_concat(metric || ':' || grp || ':' || count, ' ') FROM (SELECT metric, grp, count FROM summaries WHERE metric LIKE 'wake_latency_%' ORDER BY metric, grp)")" = \
	  "wake_latency_noreads:10:4 wake_latency_noreads:100:4 wake_latency_not_idle:10:4 wake_latency_not_idle:100:4" ]
check "the reads' own cost is recorded" \
	[ "$(q "$DB3" "SELECT count(*) FROM run_attrs WHERE key = 'state_read_ns_mean' AND cpu = 1 AND CAST(value AS INTEGER) > 0")" -eq 1 ]

# No cpuidle on the target CPU: unavailable, with the reason, never 0.
rm -rf "$T_TMP/still/sys/devices/system/cpu/cpu1/cpuidle"
DB4=$T_TMP/none.db
IDLELAB_SYSFS_ROOT=$T_TMP/still "$IDLELAB" bench idle_sweep --db "$DB4" \
	--events none --quiet --param samples=3 --param idle_us=10 >/dev/null 2>"$T_TMP/err"
check "sweep without cpuidle runs" [ $? -eq 0 ]
check "the entered state is unavailable, with the reason" \
	[ "$(q "$DB4" "SELECT value FROM run_attrs WHERE key = 'entered_state' AND cpu = 1")" = \
	  "unavailable: CPU 1 has no cpuidle states (cpuidle driver: intel_idle)" ]
check "no state series without cpuidle" \
	[ "$(q "$DB4" "SELECT count(*) FROM summaries WHERE metric != 'wake_latency'")" -eq 0 ]

# --causes: the per-d series share one metric, and their samples' idle
# states are pooled per metric, CPU and state (the run used to be lost to
# the cause_states key).
if [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing/events/power ]; then
	DB5=$T_TMP/causes.db
	"$IDLELAB" bench idle_sweep --db "$DB5" --events none --quiet --causes \
		--param samples=10 --param idle_us=10,200 >/dev/null 2>"$T_TMP/err"
	check "a --causes sweep is stored" [ $? -eq 0 ]
	check "every sample of both idle times has its state, pooled" \
		[ "$(sqlite3 "$DB5" "SELECT sum(count) FROM cause_states WHERE metric = 'wake_latency' AND cpu = 1")" -eq 20 ]
else
	skip "a --causes sweep is stored" "needs root and tracefs's power events"
	skip "every sample of both idle times has its state, pooled" "needs root and tracefs's power events"
fi

expect_exit "an unknown wake source is a usage error" 2 \
	"$IDLELAB" bench idle_sweep --db "$T_TMP/x.db" --param wake=nmi
expect_exit "a one-CPU pair is a usage error" 2 \
	"$IDLELAB" bench idle_sweep --db "$T_TMP/x.db" --cpus pairs:1-1
expect_exit "an idle time of 0 is a usage error" 2 \
	"$IDLELAB" bench idle_sweep --db "$T_TMP/x.db" --param idle_us=0,5
t_done
