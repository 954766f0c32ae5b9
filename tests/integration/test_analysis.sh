#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The dataset tools and reports of analysis/: golden outputs of every
# report kind from a fixed fixture database (tests/helpers/mkfixture.c)
# with the bootstrap seeded; the HTML page and its plots (valid PNG/SVG,
# or the clear message without gnuplot); merge (idempotent, inputs
# untouched, foreign and newer files refused, 12 inputs past SQLite's
# attach limit); import of a real cyclictest --json run and of the
# reference figures; export; and bad input exiting 2.
. tests/lib.sh

MKFIX=$PWD/$BUILD/tests/mkfixture
GOLDEN=tests/golden
FX=$T_TMP/fx.db
"$MKFIX" "$FX" || { not_ok "mkfixture"; t_done; exit 1; }
check "fixture passes db check" "$IDLELAB" db check --db "$FX"

# --- golden reports --------------------------------------------------
golden() {
	name=$1; shift
	"$IDLELAB" report --db "$FX" --format csv "$@" >"$T_TMP/$name.csv" 2>"$T_TMP/err"
	if [ -n "${IDLELAB_UPDATE_GOLDEN:-}" ]; then
		cp "$T_TMP/$name.csv" "$GOLDEN/$name.csv"
	fi
	if diff -u "$GOLDEN/$name.csv" "$T_TMP/$name.csv" >"$T_TMP/diff"; then
		ok "report $name matches golden"
	else
		not_ok "report $name matches golden"
		sed 's/^/#   /' "$T_TMP/diff" | head -20
	fi
}
golden states --kind states
# csv is one table per file (issue 20): a kind of several, one by one.
golden ipi --kind ipi --table 1
golden ipi_fit --kind ipi --table 2
golden ipi_modes --kind ipi --table 3
golden pairs --kind pairs --table 1
golden pairs_idle50 --kind pairs --table 2
golden compare --compare 'host=alpha,params.irq_mode=early' \
	--compare 'host=alpha,params.irq_mode=late' --compare host=beta
golden table
# csv as csv readers take it (issue 20): no comment lines, empty fields
# for "-" and "n/a", one table per file.
check "csv goldens: no # lines" sh -c "! grep -q '^#' '$GOLDEN'/*.csv"
check "csv goldens: no - or n/a fields" sh -c "! grep -Eq '(^|,)(-|n/a[^,]*)(,|\$)' '$GOLDEN'/*.csv"
check "csv golden compare: each interval as lo and hi, numbers or empty" \
	sh -c "grep -q ',S2 shift 95% CI lo,S2 shift 95% CI hi,' '$GOLDEN/compare.csv' && python3 tests/helpers/csv-numeric.py '$GOLDEN/compare.csv' 0 >/dev/null"
expect_exit "csv of a kind of several tables needs --table" 2 \
	"$IDLELAB" report --db "$FX" --kind ipi --format csv
check "the refusal lists the tables" grep -q "this report has 3: 1 'IPI cost against the number of targets', 2 " "$T_TMP/err"
expect_exit "--table past the last table" 2 "$IDLELAB" report --db "$FX" --kind ipi --table 4
expect_exit "--table of the table kind" 2 "$IDLELAB" report --db "$FX" --table 1
expect_exit "--table 0" 2 "$IDLELAB" report --db "$FX" --kind ipi --table 0
check "--table picks one table in json too" sh -c "'$IDLELAB' report --db '$FX' --kind ipi --format json --table 2 | jq -e 'length == 1 and (.[0].title | startswith(\"IPI cost per added target\"))'"
"$IDLELAB" report --db "$FX" --format csv --compare params.irq_mode=early \
	--compare params.irq_mode=late >"$T_TMP/s7a.csv"
"$IDLELAB" report --db "$FX" --format csv --compare params.irq_mode=early \
	--compare params.irq_mode=late >"$T_TMP/s7b.csv"
check "compare: the same twice, byte for byte (no random draws)" cmp "$T_TMP/s7a.csv" "$T_TMP/s7b.csv"
check "compare: 2 runs a side are too few for an interval, in words" grep -q 'too few runs (2 vs 2) for a 95% interval' "$GOLDEN/compare.csv"
check "compare: per CPU when the sides measured the same CPUs" grep -q '^timer_wake,wake_latency,,1,median' "$T_TMP/s7b.csv"
"$IDLELAB" report --db "$FX" --format json --kind all >"$T_TMP/all.json"
check "report --kind all --format json parses" jq -e 'length >= 4 and (.[0].rows | length) > 0' "$T_TMP/all.json"
check "report md states has seed 002 columns" sh -c "'$IDLELAB' report --db '$FX' --kind states | grep -q 'Idle state | Wake source | Unit | Nr samples | Min | Max | Median | Avg | Stddev'"
# Requested against entered: a run that stored the hardware's view says so.
cp "$FX" "$T_TMP/hw.db"
sqlite3 "$T_TMP/hw.db" "INSERT INTO run_attrs (run_uuid, cpu, key, value) SELECT DISTINCT run_uuid, -1, 'hw_state', 'C0 (MPERF ran through 99.0% of the idle spans)' FROM run_attrs WHERE key='idle_state' AND value='C6'"
"$IDLELAB" report --db "$T_TMP/hw.db" --kind states >"$T_TMP/hw.md" 2>"$T_TMP/err"
check "report states: requested C6, the hardware's C0 named beside it" \
	grep -q 'idle state C6 requested; the hardware says C0 (MPERF' "$T_TMP/hw.md"
check "report states: without residency data it says so" \
	grep -q 'idle state C1 requested; no residency data stored' "$T_TMP/hw.md"
check "report --output writes the file" sh -c "'$IDLELAB' report --db '$FX' --kind ipi --output '$T_TMP/ipi.md' && grep -q 'per target' '$T_TMP/ipi.md'"

# --- html and plots ----------------------------------------------------
H=$T_TMP/html
if command -v gnuplot >/dev/null 2>&1; then
	"$IDLELAB" report --db "$FX" --format html --output "$H" \
		--compare params.irq_mode=early --compare params.irq_mode=late >"$T_TMP/out" 2>"$T_TMP/err"
	check "report --format html exits 0" [ $? -eq 0 ]
	check "index.html written" grep -q '<h2>Plots</h2>' "$H/index.html"
	npng=$(ls "$H"/*.png 2>/dev/null | wc -l)
	nsvg=$(ls "$H"/*.svg 2>/dev/null | wc -l)
	check "plots produced: histogram, CDF, IPI, heatmap" sh -c "[ $npng -ge 4 ] && [ $npng -eq $nsvg ] && ls '$H' | grep -q 'group000-hist.png' && ls '$H' | grep -q 'group000-cdf.png' && ls '$H' | grep -q 'ipi00.png' && ls '$H' | grep -q 'pairs00.png'"
	bad=0
	for f in "$H"/*.png; do
		magic=$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')
		[ "$magic" = 89504e47 ] && [ "$(wc -c <"$f")" -gt 4000 ] || { bad=$((bad + 1)); diag "bad png $f"; }
	done
	for f in "$H"/*.svg; do
		grep -q '<svg' "$f" && [ "$(wc -c <"$f")" -gt 4000 ] || { bad=$((bad + 1)); diag "bad svg $f"; }
	done
	check "every PNG and SVG is valid and non-trivial" [ "$bad" -eq 0 ]
	check "index.html inlines every SVG" sh -c "for f in '$H'/*.svg; do grep -q \"<figure id=\\\"\$(basename \$f .svg)\\\">\" '$H/index.html' || exit 1; done"
	check "axes labelled with units" sh -c "grep -q \"set xlabel 'target CPUs (count)'\" '$H/ipi00.gp' && grep -q \"set ylabel 'median time per round (ns)'\" '$H/ipi00.gp' && grep -q 'set xlabel .*(ns)' '$H/group000-hist.gp' && grep -q \"set cblabel 'median wake latency (ns)'\" '$H/pairs00.gp'"
else
	skip "html plots" "gnuplot not installed"
fi
IDLELAB_GNUPLOT=/nonexistent/gnuplot "$IDLELAB" report --db "$FX" --format html --output "$T_TMP/nogp" >"$T_TMP/out" 2>"$T_TMP/err"
check "no gnuplot: still exit 0 with the tables" sh -c "[ $? -eq 0 ] && grep -q 'Wake latency per idle state' '$T_TMP/nogp/index.html'"
check "no gnuplot: says so clearly" sh -c "grep -q 'plots unavailable: gnuplot not installed' '$T_TMP/err' && grep -q 'plots unavailable: gnuplot not installed' '$T_TMP/nogp/index.html'"

# --- merge ------------------------------------------------------------
M=$T_TMP/merge
mkdir -p "$M"
ins=""
for s in 0 1 2 3 4 5 6 7 8 9 a b; do
	"$MKFIX" "$M/in$s.db" "$s"
	ins="$ins $M/in$s.db"
done
sums_before=$(cat $ins | sha256sum)
# shellcheck disable=SC2086
"$IDLELAB" merge --quiet "$M/out.db" $ins >"$T_TMP/out" 2>"$T_TMP/err"
check "merge of 12 inputs exits 0" [ $? -eq 0 ]
check "merge: every run of 12 inputs" [ "$(sqlite3 "$M/out.db" 'SELECT count(*) FROM runs')" -eq $((12 * 23)) ]
check "merge: every histogram" [ "$(sqlite3 "$M/out.db" 'SELECT count(*) FROM histograms')" -eq "$(sqlite3 "$M/out.db" 'SELECT count(*) FROM summaries')" ]
check "merge: db check passes" "$IDLELAB" db check --db "$M/out.db"
check "merge: inputs untouched" [ "$(cat $ins | sha256sum)" = "$sums_before" ]
dump1=$(sqlite3 "$M/out.db" .dump | sha256sum)
# shellcheck disable=SC2086
"$IDLELAB" merge --quiet "$M/out.db" $ins >"$T_TMP/out" 2>&1
check "merge twice changes nothing" [ "$(sqlite3 "$M/out.db" .dump | sha256sum)" = "$dump1" ]
"$IDLELAB" report --db "$M/out.db" --kind states --format csv >"$T_TMP/m.csv"
# Twelve fixtures, each with its own machines named alpha and beta: every
# alpha is told apart (issue 20, defect 8), here by its whole UUID, as the
# fixtures' UUIDs share their first 8 digits.
check "merged report reads every machine, told apart" \
	[ "$(grep -o '^alpha/[0-9a-f-]*,' "$T_TMP/m.csv" | sort -u | wc -l)" -eq 12 ]
sqlite3 "$M/foreign.db" "CREATE TABLE t (a); INSERT INTO t VALUES (1)"
cp "$M/in0.db" "$M/newer.db"
sqlite3 "$M/newer.db" "PRAGMA user_version = 999"
fsum=$(sha256sum <"$M/foreign.db")
nsum=$(sha256sum <"$M/newer.db")
osum=$(sha256sum <"$M/out.db")
expect_exit "merge refuses a foreign input" 2 "$IDLELAB" merge "$M/out.db" "$M/in0.db" "$M/foreign.db"
check "refusal message names the file" grep -q 'foreign.db.*not an idlelab database' "$T_TMP/err"
expect_exit "merge refuses a newer schema" 2 "$IDLELAB" merge "$M/new2.db" "$M/newer.db"
check "refusal message says newer" grep -q 'newer' "$T_TMP/err"
check "refused merge leaves output and inputs untouched" sh -c "[ '$(sha256sum <"$M/foreign.db")' = '$fsum' ] && [ '$(sha256sum <"$M/newer.db")' = '$nsum' ] && [ \"\$(sha256sum <'$M/out.db')\" = '$osum' ] && [ ! -e '$M/new2.db' ]"
expect_exit "merge needs an input" 2 "$IDLELAB" merge "$M/out.db"
expect_exit "merge refuses the output as input" 2 "$IDLELAB" merge "$M/out.db" "$M/out.db"

# --- import cyclictest (a real run) -------------------------------------
C=$T_TMP/ct.db
if command -v cyclictest >/dev/null 2>&1; then
	timeout 60 cyclictest -m -i 200 -l 1000 -t1 -a 0 -q -h 400 --json="$T_TMP/c.json" >/dev/null 2>&1 ||
		timeout 60 cyclictest -i 200 -l 1000 -t1 -q -h 400 --json="$T_TMP/c.json" >/dev/null 2>&1
	if [ -s "$T_TMP/c.json" ]; then
		"$IDLELAB" import cyclictest "$T_TMP/c.json" --db "$C" >"$T_TMP/out" 2>"$T_TMP/err"
		check "import cyclictest exits 0" [ $? -eq 0 ]
		check "import: one cyclictest run" [ "$(sqlite3 "$C" "SELECT count(*) FROM runs WHERE bench='cyclictest' AND status='ok'")" -eq 1 ]
		cycles=$(jq '[.thread[] | .cycles] | add' "$T_TMP/c.json")
		inhist=$(jq '[.thread[] | .histogram | to_entries[] | .value] | add' "$T_TMP/c.json")
		check "import: counts = histogram, overflow dropped" [ "$(sqlite3 "$C" "SELECT sum(count) || ' ' || sum(count + dropped) FROM summaries")" = "$inhist $cycles" ]
		check "import: min is cyclictest's min in ns" [ "$(sqlite3 "$C" 'SELECT min(min) FROM summaries')" -eq "$(jq '[.thread[] | .min] | min * 1000' "$T_TMP/c.json")" ]
		check "import: db check passes" "$IDLELAB" db check --db "$C"
		"$IDLELAB" import cyclictest "$T_TMP/c.json" --db "$C" >"$T_TMP/out" 2>&1
		check "import twice stores it once" sh -c "grep -q 'already imported' '$T_TMP/out' && [ \$(sqlite3 '$C' 'SELECT count(*) FROM runs') -eq 1 ]"
		check "cyclictest in the per-state table" sh -c "'$IDLELAB' report --db '$C' --kind states --format csv | grep -q ',cyclictest.*,wake_latency,any,timer,'"
	else
		skip "import cyclictest" "cyclictest could not run here"
	fi
else
	skip "import cyclictest" "rt-tests not installed"
fi
echo '{"not": "cyclictest"}' >"$T_TMP/bad.json"
expect_exit "import rejects non-cyclictest JSON" 2 "$IDLELAB" import cyclictest "$T_TMP/bad.json" --db "$C"
expect_exit "import rejects an unknown source" 2 "$IDLELAB" import fio x --db "$C"

# --- reference figures ---------------------------------------------------
R=$T_TMP/ref.db
"$IDLELAB" import reference data/reference/seeds.json --db "$R" >"$T_TMP/out" 2>"$T_TMP/err"
check "import reference exits 0" [ $? -eq 0 ]
check "reference machines flagged with their source" [ "$(sqlite3 "$R" "SELECT count(*) FROM machines WHERE is_reference=1 AND source LIKE 'seed 00%'")" -eq 4 ]
check "reference db passes db check" "$IDLELAB" db check --db "$R"
"$IDLELAB" import reference data/reference/seeds.json --db "$R" >"$T_TMP/out" 2>&1
check "import reference twice adds nothing" grep -q ' 0 reference runs' "$T_TMP/out"
"$IDLELAB" merge --quiet "$R" "$FX" >/dev/null 2>&1
"$IDLELAB" report --db "$R" --kind states --format csv >"$T_TMP/r.csv"
check "seed 002 rows beside measured rows" sh -c "grep -q '(ref: seed 002),cstate_wake,wake_latency,snooze,timer,ns,60,787,1059,938,937.4' '$T_TMP/r.csv' && grep -q '^alpha,cstate_wake' '$T_TMP/r.csv'"
check "published figures listed" sh -c "'$IDLELAB' report --db '$R' --kind refs --format csv | grep -q -- '-5.1 %'"

# --- export ----------------------------------------------------------------
"$IDLELAB" export --db "$FX" --what runs >"$T_TMP/runs.csv"
check "export runs csv: header + one line per run" [ "$(wc -l <"$T_TMP/runs.csv")" -eq 24 ]
"$IDLELAB" export --db "$FX" --what summaries --format json >"$T_TMP/s.json"
check "export summaries json" jq -e 'length == 76 and all(.[]; .count > 0)' "$T_TMP/s.json"
"$IDLELAB" export --db "$FX" --what buckets --format json >"$T_TMP/b.json"
check "export buckets sum to the sample count" [ "$(jq '[.[].count] | add' "$T_TMP/b.json")" -eq "$(sqlite3 "$FX" 'SELECT sum(count) FROM summaries')" ]
check "export buckets csv" sh -c "'$IDLELAB' export --db '$FX' --what buckets | head -1 | grep -q '^run_uuid,metric,unit,cpu,cpu2,grp,lo,hi,count$'"

# --- bad input ----------------------------------------------------------------
expect_exit "report: unknown kind" 2 "$IDLELAB" report --db "$FX" --kind bogus
expect_exit "report: unknown filter key" 2 "$IDLELAB" report --db "$FX" --compare colour=red --compare host=a
expect_exit "report: one side only" 2 "$IDLELAB" report --db "$FX" --compare host=alpha
expect_exit "report: compare kind without sides" 2 "$IDLELAB" report --db "$FX" --kind compare
expect_exit "report: html without --output" 2 "$IDLELAB" report --db "$FX" --format html
# --seed and --resamples are retired (NEWS.md): unknown options now.
expect_exit "report: retired --seed" 2 "$IDLELAB" report --db "$FX" --seed 1 --compare host=a --compare host=b
expect_exit "report: retired --resamples" 2 "$IDLELAB" report --db "$FX" --resamples 1000
expect_exit "export: unknown --what" 2 "$IDLELAB" export --db "$FX" --what everything
expect_exit "export: unknown format" 2 "$IDLELAB" export --db "$FX" --format xml
check "help of each new command" sh -c "'$IDLELAB' merge --help >/dev/null && '$IDLELAB' import --help >/dev/null && '$IDLELAB' export --help >/dev/null && '$IDLELAB' report --help | grep -q -- '--compare'"
t_done
