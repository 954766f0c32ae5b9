#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# End-to-end tests of the idlelab CLI against real SQLite files: every
# benchmark runs briefly into a fresh database whose rows are then checked
# for consistency; report and info output parse; every kind of bad input
# exits 2 with a message and leaves the database byte-for-byte unchanged.
. tests/lib.sh

DB=$T_TMP/t.db
q() { sqlite3 -batch -noheader "$DB" "$@"; }

# --- every benchmark, briefly -------------------------------------------
bench_ok() {
	name=$1; shift
	"$IDLELAB" bench "$name" --db "$DB" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "bench $name runs"
	elif [ $rc -eq 3 ]; then
		ok "bench $name # SKIP unsupported here: $(cat "$T_TMP/err")"
	else
		not_ok "bench $name runs (exit $rc)"
		sed 's/^/#   /' "$T_TMP/err"
	fi
}
bench_ok timer_wake --param samples=300 --param interval_us=200
bench_ok futex_wake --param samples=300
bench_ok membarrier_ipi --param samples=300
bench_ok tlb_shootdown --param samples=300 --raw
bench_ok tsc_gaps --param duration_ms=200

runs=$(q "SELECT count(*) FROM runs")
check "five runs stored" [ "$runs" -eq 5 ]
check "every ok run has summaries" [ "$(q "SELECT count(*) FROM runs r WHERE status='ok' AND NOT EXISTS (SELECT 1 FROM summaries s WHERE s.run_uuid=r.uuid)")" -eq 0 ]
check "timer_wake: 300 samples per placed CPU" [ "$(q "SELECT count(*) FROM summaries s JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='timer_wake' AND s.metric='wake_latency' AND s.count<>300")" -eq 0 ]
check "summaries ordered min<=p50<=p99<=max" [ "$(q "SELECT count(*) FROM summaries WHERE count>0 AND NOT (min<=p50 AND p50<=p99 AND p99<=p999 AND p999<=max*1.001+1)")" -eq 0 ]
check "mean between min and max" [ "$(q "SELECT count(*) FROM summaries WHERE count>0 AND (mean<min OR mean>max)")" -eq 0 ]
check "every summary has a histogram" [ "$(q "SELECT count(*) FROM summaries s WHERE NOT EXISTS (SELECT 1 FROM histograms h WHERE h.summary_id=s.id)")" -eq 0 ]
check "raw samples stored with --raw only" [ "$(q "SELECT count(DISTINCT r.bench) FROM raw_samples x JOIN summaries s ON s.id=x.summary_id JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench NOT IN ('tlb_shootdown','tsc_gaps')")" -eq 0 ]
check "raw sample count equals summary count" [ "$(q "SELECT count(*) FROM raw_samples x JOIN summaries s ON s.id=x.summary_id JOIN runs r ON r.uuid=s.run_uuid WHERE r.bench='tlb_shootdown' AND x.count=s.count")" -ge 1 ]
# Issue 22, item 3: a row of one run whose samples are all stored raw
# prints the exact order statistic the run stored, not a bucket midpoint.
want=$(q "SELECT group_concat(s.grp || ':' || s.p50, ' ') FROM summaries s JOIN runs r ON r.uuid = s.run_uuid WHERE r.bench = 'tlb_shootdown' AND s.metric = 'call_latency' AND s.count > 0 ORDER BY s.grp")
got=$("$IDLELAB" report --db "$DB" --bench tlb_shootdown --format json | jq -r '[.. | objects | select(has("median") and .metric == "call_latency") | "\(.targets):\(.median)"] | join(" ")')
check "one raw run: the table's medians are its stored exact p50s ($got)" [ -n "$want" -a "$got" = "$want" ]
check "counters never 0 when not ok" [ "$(q "SELECT count(*) FROM counters WHERE status<>'ok' AND (value IS NOT NULL OR reason IS NULL OR reason='')")" -eq 0 ]
check "software counters counted" [ "$(q "SELECT count(*) FROM counters WHERE event LIKE '%context-switches%' AND status='ok'")" -ge 1 ]
check "env snapshots before and after" [ "$(q "SELECT count(*) FROM run_env WHERE phase IN ('before','after')")" -ge 8 ]
check "machine fingerprint stored" [ "$(q "SELECT count(*) FROM machines WHERE json_valid(fingerprint) AND length(hwloc_xml)>100")" -eq 1 ]
check "db check passes" "$IDLELAB" db check --db "$DB"

# --- report and info parse -------------------------------------------
"$IDLELAB" report --db "$DB" --format json >"$T_TMP/r.json" 2>"$T_TMP/err"
check "report --format json parses" jq -e '.rows | length >= 5' "$T_TMP/r.json"
check "report json rows carry percentiles" jq -e '[.rows[] | select(.nr_samples > 0 and .p99 != null) | (.p99 >= .median and .p99 <= .max)] | all' "$T_TMP/r.json"
"$IDLELAB" report --db "$DB" --format csv >"$T_TMP/r.csv"
check "report csv has header and rows" [ "$(wc -l <"$T_TMP/r.csv")" -ge 6 ]
"$IDLELAB" report --db "$DB" >"$T_TMP/r.md"
check "report md has the seed-002 columns" grep -q 'Nr samples | Min | Max | Median | Avg | Stddev | p99 | p99.9' "$T_TMP/r.md"
"$IDLELAB" info --json >"$T_TMP/info.json"
check "info --json parses" jq -e '.cpu.vendor and .kernel.release' "$T_TMP/info.json"
check "list --json parses" sh -c "'$IDLELAB' list --json | jq -e 'length >= 5' >/dev/null"

# --- bad input: exit 2, a message, and the database untouched ----------
sum_before=$(cat "$DB" "$DB-wal" 2>/dev/null | sha256sum)
rows_before=$(q "SELECT count(*) FROM runs")
expect_exit "unknown benchmark" 2 "$IDLELAB" bench nosuch --db "$DB"
grep -q "nosuch" "$T_TMP/err" && ok "message names the benchmark" || not_ok "message names the benchmark"
expect_exit "near-miss benchmark suggests" 2 "$IDLELAB" bench timer_wak --db "$DB"
grep -q "did you mean 'timer_wake'" "$T_TMP/err" && ok "suggestion printed" || not_ok "suggestion printed"
expect_exit "unknown parameter" 2 "$IDLELAB" bench timer_wake --param nosuch=1 --db "$DB"
grep -q "nosuch" "$T_TMP/err" && ok "message names the parameter" || not_ok "message names the parameter"
expect_exit "non-numeric value" 2 "$IDLELAB" bench timer_wake --param samples=abc --db "$DB"
grep -q "abc" "$T_TMP/err" && ok "message names the value" || not_ok "message names the value"
expect_exit "negative value" 2 "$IDLELAB" bench timer_wake --param samples=-5 --db "$DB"
expect_exit "param without =" 2 "$IDLELAB" bench timer_wake --param samples --db "$DB"
expect_exit "bad CPU list" 2 "$IDLELAB" bench timer_wake --cpus 1-x --db "$DB"
expect_exit "reversed range" 2 "$IDLELAB" bench timer_wake --cpus 3-1 --db "$DB"
expect_exit "offline CPU" 2 "$IDLELAB" bench timer_wake --cpus 999 --db "$DB"
grep -q "999" "$T_TMP/err" && ok "message names the CPU" || not_ok "message names the CPU"
expect_exit "pairs benchmark given a list" 2 "$IDLELAB" bench futex_wake --cpus 0 --db "$DB"
expect_exit "unknown event" 2 "$IDLELAB" bench timer_wake --events nosuch_event_xyz --db "$DB"
grep -q "nosuch_event_xyz" "$T_TMP/err" && ok "message names the event" || not_ok "message names the event"
expect_exit "unknown flag" 2 "$IDLELAB" bench timer_wake --bogus --db "$DB"
expect_exit "unknown command" 2 "$IDLELAB" benhc
expect_exit "bad report format" 2 "$IDLELAB" report --db "$DB" --format xml
expect_exit "bad db action" 2 "$IDLELAB" db frobnicate --db "$DB"
sum_after=$(cat "$DB" "$DB-wal" 2>/dev/null | sha256sum)
check "database unchanged by bad input" [ "$sum_before" = "$sum_after" ]
check "no run added by bad input" [ "$(q "SELECT count(*) FROM runs")" -eq "$rows_before" ]

# --- foreign and newer databases are refused and left untouched ---------
F=$T_TMP/foreign.db
sqlite3 "$F" "CREATE TABLE customers(id INTEGER, name TEXT); INSERT INTO customers VALUES (1, 'x');"
fsum=$(sha256sum <"$F")
expect_exit "foreign database refused (bench)" 2 "$IDLELAB" bench tsc_gaps --param duration_ms=10 --db "$F"
grep -qi "not an idlelab database" "$T_TMP/err" && ok "foreign: clear message" || not_ok "foreign: clear message"
expect_exit "foreign database refused (report)" 2 "$IDLELAB" report --db "$F"
expect_exit "foreign database refused (migrate)" 2 "$IDLELAB" db migrate --db "$F"
check "foreign database untouched" [ "$fsum" = "$(sha256sum <"$F")" ]
check "no WAL created beside the foreign file" [ ! -e "$F-wal" ]

T=$T_TMP/text.db
echo "hello, this is not sqlite" >"$T"
tsum=$(sha256sum <"$T")
expect_exit "text file refused" 2 "$IDLELAB" bench tsc_gaps --param duration_ms=10 --db "$T"
check "text file untouched" [ "$tsum" = "$(sha256sum <"$T")" ]

N=$T_TMP/newer.db
cp "$DB" "$N"
rm -f "$N-wal" "$N-shm"
sqlite3 "$N" "PRAGMA user_version=999;"
nsum=$(sha256sum <"$N")
expect_exit "newer schema refused" 2 "$IDLELAB" bench tsc_gaps --param duration_ms=10 --db "$N"
grep -q "newer" "$T_TMP/err" && ok "newer: clear message" || not_ok "newer: clear message"
expect_exit "newer schema refused (report)" 2 "$IDLELAB" report --db "$N"
check "newer database untouched" [ "$nsum" = "$(sha256sum <"$N")" ]

# --- migrate is idempotent --------------------------------------------
"$IDLELAB" db migrate --db "$DB" >/dev/null 2>&1
v1=$(q "PRAGMA user_version")
"$IDLELAB" db migrate --db "$DB" >/dev/null 2>&1
check "migrate twice is idempotent" [ "$v1" = "$(q "PRAGMA user_version")" ] && [ "$v1" -ge 1 ]

# --- SIGINT mid-run keeps what was measured, as interrupted ---------------
S=$T_TMP/sig.db
"$IDLELAB" bench timer_wake --db "$S" --cpus 0 --param samples=10000000 >/dev/null 2>"$T_TMP/err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit 4 (interrupted)" [ "$rc" -eq 4 ]
check "SIGINT: run stored as interrupted" [ "$(sqlite3 "$S" "SELECT status FROM runs")" = interrupted ]
check "SIGINT: samples up to then kept" [ "$(sqlite3 "$S" "SELECT sum(count) FROM summaries")" -gt 0 ]
check "SIGINT: database consistent" "$IDLELAB" db check --db "$S"
# A cut-short run enters no figure: it is listed apart, with its samples.
n=$(sqlite3 "$S" "SELECT sum(count) FROM summaries")
"$IDLELAB" report --db "$S" >"$T_TMP/rep" 2>&1
check "SIGINT: the interrupted run is in no row of the table" \
	awk '/^Not measured:/ { exit } /^\| [^|]* \| timer_wake \|/ { f = 1 } END { exit f }' "$T_TMP/rep"
check "SIGINT: it is listed under Not measured, with its $n samples" \
	grep -q "^| [^|]* | timer_wake | interrupted | 1 | $n |" "$T_TMP/rep"
"$IDLELAB" report --db "$S" --format json >"$T_TMP/rep.json" 2>&1
check "SIGINT: and in the JSON's not_measured, with its samples" \
	sh -c "jq -e '.not_measured[0].status == \"interrupted\" and .not_measured[0].samples == $n' '$T_TMP/rep.json'"

# --- every subcommand has --help ----------------------------------------
for c in info list bench report db; do
	check "$c --help" sh -c "'$IDLELAB' $c --help | grep -q usage"
done

# --- the option tables (harness/cli/cli_opts.h) -----------------------------
# --help is generated from the same table --list-options prints.
for c in info list bench report db restore merge import export publish run; do
	"$IDLELAB" $c --help >"$T_TMP/help"
	miss=
	for o in $("$IDLELAB" $c --list-options); do
		grep -qE -- "--$o( |\$)" "$T_TMP/help" || miss="$miss --$o"
	done
	check "$c --help shows every option of its table${miss:+ (missing:$miss)}" [ -z "$miss" ]
done
check "--list-options stays out of --help" sh -c "! '$IDLELAB' bench --help | grep -q list-options"
expect_exit "long-only option without its argument" 2 "$IDLELAB" bench timer_wake --db "$DB" --counters
check "message names the long option" grep -q "option --counters: missing argument" "$T_TMP/err"
expect_exit "short option without its argument" 2 "$IDLELAB" report -d
check "message names the short option" grep -q "option -d: invalid or missing argument" "$T_TMP/err"
expect_exit "a bad value stops at its option" 2 "$IDLELAB" export --db "$DB" --what everything --help
check "clustered short flags still parse" sh -c "'$IDLELAB' bench -jh | grep -q usage"
t_done
