#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# --causes against ground truth, on the real kernel's tracefs:
#  1. a preemption of known length: a SCHED_FIFO 90 thread (disturb burst)
#     spins 3 ms every 50 ms on the measured CPU while tsc_gaps --causes
#     runs 2 s; >= 90 % of the gaps of 2.7-4 ms must name that thread by
#     pid, for 2.7-3.3 ms (3 ms within 10 %);
#  2. an interrupt of known rate: a SCHED_FIFO thread on the measured CPU
#     woken 100 times a second from the other CPU (disturb wake); >= 90 %
#     of the gaps naming it must also name the IPI that delivered the
#     wake (the reschedule or call_function_single vector);
#  3. an overrun: timer_wake with a 4 KiB per-CPU buffer must store a
#     lost-event count above 0, and the report must show it;
#  4. restore: a --causes run killed with -9 leaves its instance (and its
#     mount) behind; `idlelab restore` puts tracefs back as it was found;
#  5. a normal run leaves tracefs as it found it too, and bad values of the
#     options are usage errors.
# The spinner runs at SCHED_FIFO 50 (chrt) so the other work of a busy
# build machine cannot preempt it for 3 ms and pass for the burst; only
# the RT 90 disturbance and the kernel's own RT threads can.
. tests/lib.sh

export IDLELAB_STATE_DIR="$T_TMP/state"
DB=$T_TMP/c.db
DISTURB=$PWD/$BUILD/tests/disturb
q() { sqlite3 -batch -noheader "$DB" "$1"; }
TR=/sys/kernel/tracing
tracefs_state() {
	grep -c " $TR tracefs " /proc/mounts
	if grep -q " $TR tracefs " /proc/mounts; then
		ls "$TR/instances"
		cat "$TR/options/record-cmd"
	fi
}

# --- bad input, refused before anything is measured ------------------------
expect_exit "--causes-lean without --causes is a usage error" 2 \
	"$IDLELAB" bench tsc_gaps --causes-lean --db "$DB"
check "the message says it needs --causes" \
	grep -q -- "--causes-lean needs --causes" "$T_TMP/err"
expect_exit "--causes-threshold abc is a usage error" 2 \
	"$IDLELAB" bench tsc_gaps --causes --causes-threshold abc --db "$DB"
expect_exit "--causes-buffer-kb 0 is a usage error" 2 \
	"$IDLELAB" bench tsc_gaps --causes --causes-buffer-kb 0 --db "$DB"
printf 'name: bad\ngroups:\n  - {bench: tsc_gaps, causes: maybe}\n' >"$T_TMP/bad.yaml"
expect_exit "causes: maybe in a campaign is refused" 2 \
	"$IDLELAB" run "$T_TMP/bad.yaml" --db "$DB" --dry-run
check "the message names file, line and key" \
	grep -q "bad.yaml:3: key 'causes'" "$T_TMP/err"

# The CPU measured: the last one, the disturbances' source the first.
CPU=$(($(nproc) - 1))
if [ "$(id -u)" != 0 ]; then
	skip "causes ground truth" "needs root for tracefs and SCHED_FIFO"
	t_done; exit
fi
if [ ! -d $TR ]; then
	skip "causes ground truth" "no $TR: kernel without CONFIG_TRACING"
	t_done; exit
fi
if [ "$CPU" -lt 1 ]; then
	skip "causes ground truth" "needs two CPUs (one measured, one disturbing)"
	t_done; exit
fi
FIFO=""
if command -v chrt >/dev/null; then FIFO="chrt -f 50"; else diag "no chrt: the spinner runs SCHED_OTHER"; fi
tracefs_state >"$T_TMP/before"

# disturbed DISTURB-ARGS...: tsc_gaps --causes for 2 s on $CPU while the
# disturbance runs; sets rc, TID (the disturbing thread) and RUN.
# $LEAN (empty, or --causes-lean) goes on the command line.
LEAN=
disturbed() {
	"$DISTURB" "$@" >"$T_TMP/disturb.out" &
	DPID=$!
	sleep 0.5
	# shellcheck disable=SC2086
	$FIFO "$IDLELAB" bench tsc_gaps --cpus "$CPU" --param duration_ms=2000 \
		--causes $LEAN --db "$DB" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	wait $DPID
	TID=$(awk '/^ready/ {print $2}' "$T_TMP/disturb.out")
	RUN=$(q "SELECT uuid FROM runs ORDER BY start_ns DESC LIMIT 1")
}

# --- 1. the preemption of known length -----------------------------------
# Once with the full event list, once with --causes-lean's: the burst is
# a sched_switch away from the benchmark, which both record.
for LEAN in "" --causes-lean; do
	L=${LEAN:+ (lean)}
	disturbed burst "$CPU" 3000 50 4
	check "tsc_gaps --causes$L ran (exit $rc)" test "$rc" -eq 0
	check "the capture$L is stored as ok, on x86-tsc" \
		test "$(q "SELECT status || ' ' || clock FROM trace_captures WHERE run_uuid = '$RUN'")" = "ok x86-tsc"
	want=full
	[ -n "$LEAN" ] && want="lean: no sched_wakeup, no power:cpu_idle"
	check "the run says which event list it used$L" \
		test "$(q "SELECT value FROM run_attrs WHERE run_uuid = '$RUN' AND key = 'causes_events'")" = "$want"
	N=$(q "SELECT count(*) FROM cause_samples WHERE run_uuid = '$RUN'
		AND metric = 'gap' AND value_ns BETWEEN 2700000 AND 4000000")
	M=$(q "SELECT count(*) FROM cause_samples s WHERE run_uuid = '$RUN'
		AND metric = 'gap' AND value_ns BETWEEN 2700000 AND 4000000
		AND EXISTS (SELECT 1 FROM causes c WHERE c.run_uuid = s.run_uuid
			AND c.metric = s.metric AND c.cpu = s.cpu AND c.sample = s.sample
			AND c.kind = 'thread' AND c.name LIKE 'il-burst/$TID %'
			AND c.dur_ns BETWEEN 2700000 AND 3300000)")
	diag "gaps of 2.7-4 ms$L: $N, attributed to il-burst/$TID for 3 ms +-10 %: $M"
	# 40 bursts in 2 s; fewer than 20 seen means the disturbance was not.
	check "the bursts were seen as gaps$L ($N >= 20)" test "$N" -ge 20
	check "at least 90 % of them name the burst thread$L ($M of $N)" \
		test $((M * 10)) -ge $((N * 9))
done
LEAN=

# --- 2. the interrupt of known rate --------------------------------------
disturbed wake "$CPU" 0 10000 3
W="EXISTS (SELECT 1 FROM causes c WHERE c.run_uuid = s.run_uuid
	AND c.metric = s.metric AND c.cpu = s.cpu AND c.sample = s.sample"
N=$(q "SELECT count(*) FROM cause_samples s WHERE run_uuid = '$RUN'
	AND $W AND c.name LIKE 'il-wakee/$TID %')")
M=$(q "SELECT count(*) FROM cause_samples s WHERE run_uuid = '$RUN'
	AND $W AND c.name LIKE 'il-wakee/$TID %')
	AND $W AND c.kind = 'irq'
		AND c.name IN ('reschedule', 'call_function_single'))")
diag "gaps naming il-wakee/$TID: $N (200 wakes in 2 s), with the IPI's vector: $M"
check "tsc_gaps --causes ran (exit $rc)" test "$rc" -eq 0
check "the wakes were seen as gaps ($N >= 100)" test "$N" -ge 100
check "at least 90 % of them name the IPI vector ($M of $N)" \
	test $((M * 10)) -ge $((N * 9))

# --- 3. the overrun ------------------------------------------------------
"$IDLELAB" bench timer_wake --cpus "$CPU" --param samples=4000 \
	--param interval_us=100 --causes --causes-buffer-kb 4 --db "$DB" \
	>"$T_TMP/out3" 2>"$T_TMP/err3"
rc=$?
RUN=$(q "SELECT uuid FROM runs ORDER BY start_ns DESC LIMIT 1")
LOST=$(q "SELECT coalesce(sum(lost_events), -1) FROM trace_cpus WHERE run_uuid = '$RUN'")
diag "timer_wake with a 4 KiB buffer: $LOST events lost"
check "timer_wake --causes ran (exit $rc)" test "$rc" -eq 0
check "the clock is mono for a CLOCK_MONOTONIC benchmark" \
	test "$(q "SELECT clock FROM trace_captures WHERE run_uuid = '$RUN'")" = mono
check "the lost events are counted ($LOST > 0)" test "$LOST" -gt 0
"$IDLELAB" report --db "$DB" --kind causes >"$T_TMP/report" 2>&1
check "the causes report shows the lost events" \
	grep -q "lost events: $LOST" "$T_TMP/report"
check "the table's Lost events column holds it" \
	grep -Eq "\| mono \| [0-9]+ \| [0-9]+ \| $LOST \|" "$T_TMP/report"
check "the causes report names the burst thread in words" \
	grep -q "thread il-burst/" "$T_TMP/report"

# --- idle state per sample, and the plot -----------------------------------
"$IDLELAB" bench timer_wake --cpus "$CPU" --param samples=2000 --causes \
	--db "$DB" >/dev/null 2>&1
RUN=$(q "SELECT uuid FROM runs ORDER BY start_ns DESC LIMIT 1")
check "every timer_wake sample is grouped by the idle state it met" test \
	"$(q "SELECT sum(count) FROM cause_states WHERE run_uuid = '$RUN'")" = \
	"$(q "SELECT count FROM summaries WHERE run_uuid = '$RUN' AND metric = 'wake_latency'")"
drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
if [ "$drv" = none ] || [ -z "$drv" ]; then
	check "no cpuidle driver: the states say so" test \
		"$(q "SELECT group_concat(DISTINCT state_name) FROM cause_states WHERE run_uuid = '$RUN'")" = \
		"no cpuidle driver: state unknown"
else
	check "cpuidle driver $drv: states are cpuidle's names or 'not idle'" test \
		"$(q "SELECT count(*) FROM cause_states WHERE run_uuid = '$RUN'
		AND state_name <> 'not idle' AND (state IS NULL OR state_name = 'no cpuidle driver: state unknown')")" = 0
fi
# A lean capture records no cpu_idle: its rows say the state is unknown.
"$IDLELAB" bench timer_wake --cpus "$CPU" --param samples=500 --causes \
	--causes-lean --db "$DB" >/dev/null 2>&1
RUN=$(q "SELECT uuid FROM runs ORDER BY start_ns DESC LIMIT 1")
check "--causes-lean: every sample's state is 'cpu_idle not recorded'" test \
	"$(q "SELECT group_concat(DISTINCT state_name) || ' ' || sum(count) FROM cause_states WHERE run_uuid = '$RUN'")" = \
	"cpu_idle not recorded (--causes-lean): state unknown 500"
"$IDLELAB" report --db "$DB" --kind states >"$T_TMP/states" 2>&1
check "report --kind states has the rows of the states entered" \
	grep -Eq "\| (not idle|.* \(entered\)|no cpuidle driver: state unknown) \|" "$T_TMP/states"
if command -v gnuplot >/dev/null; then
	"$IDLELAB" report --db "$DB" --format html --output "$T_TMP/html" >/dev/null 2>&1
	check "the html page has the stacked bar of time lost per cause" \
		grep -q '<figure id="causes">' "$T_TMP/html/index.html"
else
	skip "the stacked bar of time lost per cause" "gnuplot not installed"
fi

# --- 4. restore after kill -9 ---------------------------------------------
tracefs_state >"$T_TMP/now"
check "tracefs is as it was after the runs" cmp -s "$T_TMP/before" "$T_TMP/now"
"$IDLELAB" bench tsc_gaps --cpus "$CPU" --param duration_ms=20000 --causes \
	--db "$DB" >/dev/null 2>&1 &
KPID=$!
i=0
while [ $i -lt 100 ] && [ ! -d "$TR/instances/idlelab-$KPID" ]; do
	sleep 0.1; i=$((i + 1))
done
check "the run made its instance" test -d "$TR/instances/idlelab-$KPID"
# The instance is made with record-cmd off (trace_capture.c,
# instance_make()); the top level's (on by default) is put back at once,
# well within the moment given here.
sleep 0.5
check "the instance records no comms (norecord-cmd), the top level still does" \
	test "$(grep record-cmd "$TR/instances/idlelab-$KPID/trace_options" 2>/dev/null)" = norecord-cmd -a \
	"$(cat "$TR/options/record-cmd" 2>/dev/null)" = 1
kill -9 $KPID
wait $KPID 2>/dev/null
check "kill -9 left the instance and the trace journal" \
	test -d "$TR/instances/idlelab-$KPID" -a -f "$IDLELAB_STATE_DIR/trace-journal.json"
check "the trace journal holds the top level's record-cmd" \
	grep -q 'options/record-cmd' "$IDLELAB_STATE_DIR/trace-journal.json"
# As if the kill had come while record-cmd was off, around the mkdir.
echo 0 >"$TR/options/record-cmd"
"$IDLELAB" restore >"$T_TMP/restore.out" 2>&1
check "idlelab restore succeeds" test $? -eq 0
tracefs_state >"$T_TMP/after"
check "tracefs is as it was found (mount and instances)" cmp -s "$T_TMP/before" "$T_TMP/after"
check "the trace journal is gone" test ! -e "$IDLELAB_STATE_DIR/trace-journal.json"
# Unmounted again when it was found so: the kernel keeps the option.
if grep -q " $TR tracefs " /proc/mounts; then
	rc_now=$(cat "$TR/options/record-cmd")
else
	mount -t tracefs nodev "$TR" && rc_now=$(cat "$TR/options/record-cmd")
	umount "$TR"
fi
check "restore put the top level's record-cmd back to 1 (it is ${rc_now:-unreadable})" \
	test "${rc_now:-}" = 1

# --- 4b. an instance file held open past the run's end --------------------
# rmdir of a tracefs instance is refused (EBUSY) while any process has one
# of its files open; the run retries for a second, then warns, keeps the
# journal and stores the capture as unavailable with the reason.
"$IDLELAB" bench tsc_gaps --cpus "$CPU" --param duration_ms=1000 --causes \
	--db "$DB" >/dev/null 2>"$T_TMP/busy.err" &
BPID=$!
i=0
while [ $i -lt 100 ] && [ ! -d "$TR/instances/idlelab-$BPID" ]; do
	sleep 0.1; i=$((i + 1))
done
sh -c 'exec 9<"$1"; exec sleep 8' sh "$TR/instances/idlelab-$BPID/trace" &
HPID=$!
wait $BPID
brc=$?
check "a run whose instance is held open still ends 0 (exit $brc)" test $brc -eq 0
check "and says tracefs was not put back, and how to" \
	grep -q "warning: cannot restore $TR/instances/idlelab-$BPID: .*Device or resource busy; .idlelab restore. puts it back" "$T_TMP/busy.err"
check "its capture is unavailable with that reason" \
	test "$(q "SELECT t.status FROM trace_captures t JOIN runs r ON r.uuid = t.run_uuid WHERE t.reason LIKE '%idlelab-$BPID%busy%'")" = unavailable
check "the trace journal is kept" test -f "$IDLELAB_STATE_DIR/trace-journal.json"
kill $HPID 2>/dev/null
wait $HPID 2>/dev/null
"$IDLELAB" restore >"$T_TMP/restore2.out" 2>&1
check "once the file is closed, idlelab restore puts tracefs back" \
	test $? -eq 0 -a ! -e "$IDLELAB_STATE_DIR/trace-journal.json"
tracefs_state >"$T_TMP/after2"
check "tracefs is as it was found again" cmp -s "$T_TMP/before" "$T_TMP/after2"

# --- 5. a campaign group with causes: true, and one without ---------------
cat >"$T_TMP/c.yaml" <<EOF
name: causes-keys
groups:
  - {bench: tsc_gaps, cpus: "$CPU", causes: true, params: {duration_ms: 100}}
  - {bench: tsc_gaps, name: plain, cpus: "$CPU", params: {duration_ms: 100}}
  - {bench: tsc_gaps, name: lean, cpus: "$CPU", causes: lean, params: {duration_ms: 100}}
EOF
"$IDLELAB" run "$T_TMP/c.yaml" --db "$DB" >/dev/null 2>&1
check "idlelab run with causes: true and causes: lean succeeds" test $? -eq 0
check "only the causes: true and lean runs have a capture, lean's lean" test "$(q "SELECT group_concat(r.plan_index || ':' || coalesce(t.status, 'none') || ':' || coalesce(a.value, '-'))
	FROM runs r LEFT JOIN trace_captures t ON t.run_uuid = r.uuid
	LEFT JOIN run_attrs a ON a.run_uuid = r.uuid AND a.key = 'causes_events'
	WHERE r.campaign = 'causes-keys' ORDER BY r.plan_index")" = \
	"0:ok:full,1:none:-,2:ok:lean: no sched_wakeup, no power:cpu_idle"
sed 's/causes: lean/causes: slim/' "$T_TMP/c.yaml" >"$T_TMP/bad.yaml"
"$IDLELAB" run "$T_TMP/bad.yaml" --db "$DB" --dry-run >/dev/null 2>"$T_TMP/err"
check "causes: slim is refused with file, line, key and the values allowed" \
	grep -q "bad.yaml:5: key 'causes': expected true, false or lean, got 'slim'" "$T_TMP/err"

# --- 6. merge, db check, export -------------------------------------------
M=$T_TMP/m.db
"$IDLELAB" merge "$M" "$DB" >/dev/null && "$IDLELAB" merge "$M" "$DB" >/dev/null
for tab in trace_captures trace_cpus cause_samples causes cause_totals; do
	check "merge copies $tab exactly once" test \
		"$(sqlite3 -batch -noheader "$M" "SELECT count(*) FROM $tab")" = "$(q "SELECT count(*) FROM $tab")"
done
check "db check passes on the merged file" "$IDLELAB" db check --db "$M"
sqlite3 "$M" "UPDATE causes SET share = 2 WHERE rowid = (SELECT min(rowid) FROM causes)"
"$IDLELAB" db check --db "$M" >"$T_TMP/chk" 2>&1
check "db check finds a share outside [0, 1]" grep -q "share outside" "$T_TMP/chk"
# A file of an older schema, opened read-only, has no causes tables: the
# reports must still work on it.
O=$T_TMP/old.db
cp "$DB" "$O"
sqlite3 "$O" "DROP TABLE causes; DROP TABLE cause_samples; DROP TABLE cause_totals;
	DROP TABLE cause_states; DROP TABLE trace_cpus; DROP TABLE trace_captures;
	PRAGMA user_version = 3"
chmod 444 "$O"
check "report --kind states works on a read-only schema-3 file" \
	"$IDLELAB" report --db "$O" --kind states
check "report --kind causes says why it has nothing there" sh -c \
	"'$IDLELAB' report --db '$O' --kind causes | grep -q 'schema predates'"
"$IDLELAB" export --db "$DB" --what causes --format csv >"$T_TMP/exp.csv"
check "export --what causes has a row per cause" test \
	"$(($(wc -l <"$T_TMP/exp.csv") - 1))" -ge "$(q "SELECT count(*) FROM causes")"
t_done
