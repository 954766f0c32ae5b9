#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# report --kind declared (issue 24).  A real idle_sweep run on a fake
# intel_idle tree (POLL, C1, C1E 10/20 us, C6 133/600 us) whose counters
# never move has no sample in any state, so its per-d series are copied
# here, by SQL, as the series of samples that entered C1E alone: every
# sample at every d in C1E.  The table must then give C1E all of them,
# a measured residency of the shortest d (10 us, below the declared
# 20 us, which is flagged), no figure for the states nothing entered
# ("-", never 0), and a p99.99 interval of "too few" for 400 samples.
# A machine without cpuidle gets a note instead of rows; `all` is
# unchanged by the new kind (it stays out of it).  Two machine rows of one
# CPU model on two kernels flag the state whose declared figure changed.
# The html page has the table and, per block, a latency-against-idle-time
# plot and a CDF plot with a series per state entered.  Energy cells say
# unavailable with the reason where RAPL is not readable.
. tests/lib.sh

cp -r tests/fixtures/sysfs-intel "$T_TMP/still"
DB=$T_TMP/d.db
IDLELAB_SYSFS_ROOT=$T_TMP/still "$IDLELAB" bench idle_sweep --db "$DB" \
	--events none --quiet --param samples=200 --param idle_us=10,500 \
	>/dev/null 2>&1
check "the idle_sweep run is stored" [ "$(sqlite3 "$DB" "SELECT status FROM runs")" = ok ]
sh tests/helpers/state-series.sh "$DB" C1E
check "the database still checks" "$IDLELAB" db check --db "$DB"

"$IDLELAB" report --db "$DB" --kind declared --format json >"$T_TMP/d.json" 2>"$T_TMP/err"
check "the report runs" [ $? -eq 0 ]
# field STATE JQ: that state's row through JQ.
field() { jq -r ".[0].rows[] | select(.State == \"$1\") | $2" "$T_TMP/d.json"; }
check "C1E: declared 10/20 us and all 400 samples" \
	[ "$(field C1E '"\(.["Declared latency (us)"])/\(.["Declared residency (us)"])/\(.Samples)"')" = "10/20/400" ]
check "C1E's measured residency is the shortest d" \
	[ "$(field C1E '.["Measured residency (us)"]')" = 10 ]
check "and it is flagged below the declared one" \
	sh -c "echo '$(field C1E .Flags)' | grep -q 'entered below declared residency'"
# json (issue 20): an estimate and its interval are numbers, {est, lo, hi}.
check "p99.99 of 400 samples cannot be bounded: an estimate, null ends, the reason" \
	sh -c "[ \"\$(jq -r '.[0].rows[] | select(.State == \"C1E\") | .[\"p99.99 (us) [95 % CI]\"] | \"\\(.est | type) \\(.lo) \\(.hi)\"' '$T_TMP/d.json')\" = 'number null null' ] &&
		jq -r '.[0].rows[] | select(.State == \"C1E\") | .[\"p99.99 (us) [95 % CI]\"].note' '$T_TMP/d.json' | grep -q 'too few'"
check "p50 has an interval: est, lo and hi as numbers, lo <= est <= hi" \
	jq -e '.[0].rows[] | select(.State == "C1E") | .["p50 (us) [95 % CI]"] | (.est | type) == "number" and (.lo | type) == "number" and (.hi | type) == "number" and .lo <= .est and .est <= .hi' "$T_TMP/d.json"
check "C6, never entered: no figures (null), not 0" \
	[ "$(field C6 '"\(.Samples) \(.["p50 (us) [95 % CI]"]) \(.["Measured residency (us)"])"')" = "0 null null" ]

# csv (issue 20): each quantile column is three numeric ones, the estimate
# and its interval's lo and hi, which python3's csv module reads as floats
# or nothing: C1E has p50 and p99 with both ends and p99.99 alone.
"$IDLELAB" report --db "$DB" --kind declared --format csv >"$T_TMP/d.csv" 2>"$T_TMP/err"
check "csv: p50 as its estimate, lo and hi" sh -c "head -n 1 '$T_TMP/d.csv' | grep -q ',p50 (us) \[95 % CI\],p50 (us) \[95 % CI\] lo,p50 (us) \[95 % CI\] hi,'"
check "csv: python3's csv reads every quantile and end as a float (7 for C1E)" \
	python3 tests/helpers/csv-numeric.py "$T_TMP/d.csv" 7
check "csv: p99.99 of 400 samples, an estimate with empty ends" sh -c \
	"grep ',C1E,' '$T_TMP/d.csv' | grep -Eq ',400,([0-9.]+,){7},,'"

"$IDLELAB" report --db "$DB" --kind all >"$T_TMP/all.txt" 2>&1
check "all leaves the declared table out" sh -c "! grep -q 'Declared against measured' '$T_TMP/all.txt'"

# Energy (issue 24): the fake tree has no RAPL powercap zone, so every
# energy cell says unavailable with the reason, never 0; with a zone
# added, the run says it read it, and the cells are no longer
# unavailable ("-": no sample of the fake tree entered a state).
check "energy per wake: unavailable, with the reason" \
	[ "$(field C1E '.["Energy per wake (uJ)"]')" = "unavailable: no RAPL powercap zone (no /sys/class/powercap/intel-rapl:0)" ]
check "energy break-even: the same" \
	[ "$(field C1E '.["Energy break-even (us)"]')" = "$(field C1E '.["Energy per wake (uJ)"]')" ]
Z=$T_TMP/still/sys/class/powercap/intel-rapl:0
mkdir -p "$Z"
echo 123456 >"$Z/energy_uj"
echo 262143328850 >"$Z/max_energy_range_uj"
E=$T_TMP/e.db
IDLELAB_SYSFS_ROOT=$T_TMP/still "$IDLELAB" bench idle_sweep --db "$E" \
	--events none --quiet --param samples=3 --param idle_us=10 >/dev/null 2>&1
check "a readable zone: the run says it read the package energy" \
	sh -c "sqlite3 '$E' \"SELECT value FROM run_attrs WHERE key = 'energy'\" | grep -q '^RAPL package energy (1 powercap zone)'"
"$IDLELAB" report --db "$E" --kind declared --format json >"$T_TMP/e.json" 2>"$T_TMP/err"
check "... and no energy cell is unavailable or 0" \
	[ "$(jq -r '[.[0].rows[] | .["Energy per wake (uJ)"], .["Energy break-even (us)"]] | map(tostring) | unique | join(",")' "$T_TMP/e.json")" = null ]
rm -r "$T_TMP/still/sys/class"

# Two kernels of one CPU model (issue 24): a second machine row, copied
# by SQL from the first with an older kernel whose C6 declared 128 us and
# whose run is the same one copied, must flag C6 on both machines' rows,
# older kernel first, and leave C1 unflagged; a note says it once.  The
# runs' own declared tables are dropped, as in a database written before
# runs kept them: each machine row's fingerprint stands in.
K=$T_TMP/k.db
cp "$DB" "$K"
M2=00000000-0000-4000-8000-000000000002
sqlite3 "$K" "
DELETE FROM run_attrs WHERE key = 'declared_idle';
UPDATE machines SET fingerprint = json_set(fingerprint, '\$.kernel.release', '6.12.0-new');
INSERT INTO machines (uuid, hostname, first_seen, last_seen, fingerprint, hwloc_xml, is_reference, source)
SELECT '$M2', 'oldhost', first_seen, last_seen,
	json_set(fingerprint, '\$.kernel.release', '5.15.0-old', '\$.cpuidle.states[3].latency_us', 128),
	hwloc_xml, is_reference, source FROM machines;
CREATE TEMP TABLE r AS SELECT * FROM runs;
UPDATE r SET uuid = '00000000-0000-4000-8000-0000000000aa', machine_uuid = '$M2';
INSERT INTO runs SELECT * FROM r;
CREATE TEMP TABLE s AS SELECT * FROM summaries;
UPDATE s SET id = id + 100000, run_uuid = '00000000-0000-4000-8000-0000000000aa';
INSERT INTO summaries SELECT * FROM s;
INSERT INTO histograms (summary_id, layout, blob)
SELECT summary_id + 100000, layout, blob FROM histograms;"
"$IDLELAB" report --db "$K" --kind declared --format json >"$T_TMP/k.json" 2>"$T_TMP/err"
check "two kernels: the report runs" [ $? -eq 0 ]
kflags() { jq -r ".[0].rows[] | select(.State == \"$1\" and .Kernel == \"$2\") | .Flags" "$T_TMP/k.json"; }
check "C6 on the new kernel is flagged, old -> new, both kernels named" \
	[ "$(kflags C6 6.12.0-new)" = "declared latency 128 -> 133 us: kernel 5.15.0-old (oldhost) -> kernel 6.12.0-new ($(sqlite3 "$DB" 'SELECT hostname FROM machines'))" ]
check "... and on the old kernel's row the same" \
	[ "$(kflags C6 5.15.0-old)" = "$(kflags C6 6.12.0-new)" ]
check "C1, declared alike on both, is not flagged (null in json)" \
	[ "$(kflags C1 5.15.0-old) $(kflags C1 6.12.0-new)" = "null null" ]
check "a note names the model and the change once" \
	[ "$(jq -r '.[0].notes[]' "$T_TMP/k.json" | grep -c '^Declared table changed for .* from kernel 5.15.0-old (oldhost) to kernel 6.12.0-new (.*): C6 latency 128 -> 133 us\.$')" -eq 1 ]
sqlite3 "$K" "UPDATE machines SET fingerprint = json_set(fingerprint, '\$.kernel.release', '6.12.0-new') WHERE uuid = '$M2'"
"$IDLELAB" report --db "$K" --kind declared --format json >"$T_TMP/k2.json" 2>"$T_TMP/err"
check "one kernel, two tables: not a kernel change, no flag" \
	[ "$(jq -r '[.[0].rows[] | select(.State == "C6") | .Flags] | map(tostring) | join(" ")' "$T_TMP/k2.json")" = "null null" ]

# One machine upgraded in place (issue 24): its row keeps only the latest
# fingerprint, so the runs keep their own declared table.  Two fake trees
# name two kernels (/proc/sys/kernel/osrelease) and differ in C6's
# declared latency (128 us on the old one); both runs are one machine
# (one state directory, one host UUID).  C6 must be flagged on the
# machine's row under each kernel, C1 not, and a note says it once.
for k in old new; do
	cp -r tests/fixtures/sysfs-intel "$T_TMP/$k"
	mkdir -p "$T_TMP/$k/proc/sys/kernel"
done
echo 6.1.0-old >"$T_TMP/old/proc/sys/kernel/osrelease"
echo 6.12.0-new >"$T_TMP/new/proc/sys/kernel/osrelease"
for c in 0 1 2 3; do
	echo 128 >"$T_TMP/old/sys/devices/system/cpu/cpu$c/cpuidle/state3/latency"
done
U=$T_TMP/u.db
for k in old new; do
	IDLELAB_STATE_DIR=$T_TMP/one-host IDLELAB_SYSFS_ROOT=$T_TMP/$k \
		"$IDLELAB" bench idle_sweep --db "$U" --events none --quiet \
		--param samples=20 --param idle_us=10 >/dev/null 2>&1
done
check "upgrade: two ok runs, one machine" \
	[ "$(sqlite3 "$U" "SELECT count(*) || ' ' || count(DISTINCT machine_uuid) FROM runs WHERE status = 'ok'")" = "2 1" ]
check "upgrade: the machine row keeps the new kernel only" \
	[ "$(sqlite3 "$U" "SELECT json_extract(fingerprint, '\$.kernel.release') FROM machines")" = 6.12.0-new ]
check "upgrade: each run kept its kernel and C6's declared latency" \
	[ "$(sqlite3 "$U" "SELECT group_concat(json_extract(value, '\$.kernel.release') || '=' || json_extract(value, '\$.cpuidle.states[3].latency_us'), ' ') FROM (SELECT a.value FROM run_attrs a JOIN runs r ON r.uuid = a.run_uuid WHERE a.key = 'declared_idle' ORDER BY r.start_ns)")" = "6.1.0-old=128 6.12.0-new=133" ]
check "upgrade: the database still checks" "$IDLELAB" db check --db "$U"
"$IDLELAB" report --db "$U" --kind declared --format json >"$T_TMP/u.json" 2>"$T_TMP/err"
check "upgrade: the report runs" [ $? -eq 0 ]
H=$(sqlite3 "$U" 'SELECT hostname FROM machines')
uflags() { jq -r ".[0].rows[] | select(.State == \"$1\" and .Kernel == \"$2\") | .Flags" "$T_TMP/u.json"; }
check "upgrade: C6 on the new kernel is flagged, old -> new, one machine" \
	[ "$(uflags C6 6.12.0-new)" = "declared latency 128 -> 133 us: kernel 6.1.0-old ($H) -> kernel 6.12.0-new ($H)" ]
check "upgrade: ... and on the old kernel's row the same" \
	[ "$(uflags C6 6.1.0-old)" = "$(uflags C6 6.12.0-new)" ]
check "upgrade: C1, declared alike, is not flagged" \
	[ "$(uflags C1 6.1.0-old) $(uflags C1 6.12.0-new)" = "null null" ]
check "upgrade: a note names the change once" \
	[ "$(jq -r '.[0].notes[]' "$T_TMP/u.json" | grep -c "^Declared table changed for .* from kernel 6.1.0-old ($H) to kernel 6.12.0-new ($H): C6 latency 128 -> 133 us\.\$")" -eq 1 ]

# Plots (issue 24): with C1's series copied in too, the html page has the
# declared table, and per machine and wake source two SVGs, latency
# against idle time and the CDFs, each with a series named for C1 and
# C1E, and none for C6, which nothing entered.
P=$T_TMP/p.db
cp "$DB" "$P"
sqlite3 "$P" "
CREATE TEMP TABLE s AS SELECT * FROM summaries WHERE metric = 'wake_latency_in_C1E';
UPDATE s SET id = id + 100000, metric = 'wake_latency_in_C1';
INSERT INTO summaries SELECT * FROM s;
INSERT INTO histograms (summary_id, layout, blob)
SELECT h.summary_id + 100000, h.layout, h.blob FROM histograms h
JOIN summaries x ON x.id = h.summary_id WHERE x.metric = 'wake_latency_in_C1E';"
if command -v gnuplot >/dev/null 2>&1; then
	"$IDLELAB" report --db "$P" --kind declared --format html --output "$T_TMP/html" >"$T_TMP/out" 2>"$T_TMP/err"
	check "html: exit 0" [ $? -eq 0 ]
	check "html: the page has the declared table" \
		grep -q 'Declared against measured idle states' "$T_TMP/html/index.html"
	for plot in latency cdf; do
		svg=$T_TMP/html/declared00-$plot.svg
		check "html: the $plot plot is an SVG" sh -c "[ -s '$svg' ] && grep -q '<svg' '$svg'"
		check "html: the $plot plot has a series per state entered, C1 and C1E" \
			sh -c "grep -q '<title>C1</title>' '$svg' && grep -q '<title>C1E</title>' '$svg'"
		check "html: ... and none for C6, never entered" sh -c "! grep -q '<title>C6</title>' '$svg'"
	done
	check "html: the latency data has p50 and p99 per idle time, 2 per state" \
		[ "$(grep -c '^[0-9]' "$T_TMP/html/declared00-latency.dat")" -eq 4 ]
	check "html: the page inlines both plots" \
		[ "$(grep -c 'C1E' "$T_TMP/html/index.html")" -gt 2 ]
else
	skip "declared plots" "gnuplot not installed"
fi

rm -rf "$T_TMP/still/sys/devices/system/cpu/cpu0/cpuidle" \
	"$T_TMP/still/sys/devices/system/cpu/cpu1/cpuidle"
DB2=$T_TMP/none.db
IDLELAB_SYSFS_ROOT=$T_TMP/still "$IDLELAB" bench idle_sweep --db "$DB2" \
	--events none --quiet --param samples=3 --param idle_us=10 >/dev/null 2>&1
"$IDLELAB" report --db "$DB2" --kind declared >"$T_TMP/none.txt" 2>&1
check "no cpuidle: a note that says so, not an empty table" \
	grep -q "no rows: no cpuidle states" "$T_TMP/none.txt"
expect_exit "an unknown kind names declared among the kinds" 2 \
	"$IDLELAB" report --db "$DB" --kind declare
check "the message lists it" grep -q "declared" "$T_TMP/err"
t_done
