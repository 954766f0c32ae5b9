#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tools/fleet-gen, the synthetic fleet of issue 23, and the streaming
# report --compare over it: a fixed seed gives the same rows every time;
# the per-machine files merged give exactly the one file's fleet, so
# every report of the two agrees byte for byte (the streaming compare
# reads the runs of the two databases in different physical orders);
# merging again changes nothing; the late campaigns' 5 % is found; an
# existing file is refused and left as it was.
. tests/lib.sh

GEN=$PWD/$BUILD/tools/fleet-gen
[ -x "$GEN" ] || { not_ok "fleet-gen built ($GEN)"; t_done; exit 1; }

check "--help" "$GEN" --help
expect_exit "--runs 0 is refused" 2 "$GEN" --runs 0 "$T_TMP/x.db"
expect_exit "no output named" 2 "$GEN" --runs 2

small="--machines 4 --campaigns 2 --runs 40 --seed 7"
# shellcheck disable=SC2086
"$GEN" $small "$T_TMP/one.db"
check "one file written" [ $? -eq 0 ]
# shellcheck disable=SC2086
"$GEN" $small "$T_TMP/two.db"
# shellcheck disable=SC2086
"$GEN" $small --seed 8 "$T_TMP/other.db"
# shellcheck disable=SC2086
"$GEN" $small --per-machine "$T_TMP/pm"
check "per-machine files written" [ -s "$T_TMP/pm/m0000.db" ] && [ -s "$T_TMP/pm/m0003.db" ]
for d in one two other; do
	"$IDLELAB" export --db "$T_TMP/$d.db" --what summaries >"$T_TMP/$d.csv"
done
check "4 x 2 x 40 runs, two CPUs each" \
	sh -c "[ \$(($(wc -l <"$T_TMP/one.csv") - 1)) -eq 640 ]"
check "the same seed writes the same rows" cmp "$T_TMP/one.csv" "$T_TMP/two.csv"
check "another seed writes others" sh -c "! cmp -s '$T_TMP/one.csv' '$T_TMP/other.csv'"

sum=$(cksum <"$T_TMP/one.db")
# shellcheck disable=SC2086
expect_exit "an existing file is refused" 2 "$GEN" $small "$T_TMP/one.db"
check "and left as it was" [ "$(cksum <"$T_TMP/one.db")" = "$sum" ]

"$IDLELAB" merge --quiet "$T_TMP/merged.db" "$T_TMP"/pm/*.db
check "merge of the per-machine files" [ $? -eq 0 ]
cmpargs="--compare params.irq_mode=early --compare params.irq_mode=late"
for d in one merged; do
	# shellcheck disable=SC2086
	"$IDLELAB" report --db "$T_TMP/$d.db" $cmpargs --deciles --equivalence 2 \
		>"$T_TMP/$d.cmp" 2>"$T_TMP/err"
	"$IDLELAB" report --db "$T_TMP/$d.db" --kind states >"$T_TMP/$d.states"
done
check "compare: the merged fleet gives the one file's table, byte for byte" \
	cmp "$T_TMP/one.cmp" "$T_TMP/merged.cmp"
check "states: the same" cmp "$T_TMP/one.states" "$T_TMP/merged.states"
check "compare finds late slower on both CPUs" \
	sh -c "[ \$(grep -c '| median | ns | 160 |.*higher than S1' '$T_TMP/one.cmp') -eq 2 ]"
check "160 runs a side: the normal path" grep -q '| normal |' "$T_TMP/one.cmp"
"$IDLELAB" export --db "$T_TMP/merged.db" --what summaries >"$T_TMP/m1.csv"
"$IDLELAB" merge --quiet "$T_TMP/merged.db" "$T_TMP"/pm/*.db
"$IDLELAB" export --db "$T_TMP/merged.db" --what summaries >"$T_TMP/m2.csv"
check "merging again adds nothing" cmp "$T_TMP/m1.csv" "$T_TMP/m2.csv"

# --causes-every: every 4th run of a machine and campaign was a --causes
# run; the samples are the same bytes, the causes merge like the runs.
# shellcheck disable=SC2086
"$GEN" $small --causes-every 4 "$T_TMP/c1.db"
# shellcheck disable=SC2086
"$GEN" $small --causes-every 4 --per-machine "$T_TMP/cpm"
"$IDLELAB" merge --quiet "$T_TMP/cmerged.db" "$T_TMP"/cpm/*.db
"$IDLELAB" export --db "$T_TMP/c1.db" --what summaries >"$T_TMP/c1.csv"
check "with causes: the same samples as without" cmp "$T_TMP/one.csv" "$T_TMP/c1.csv"
check "with causes: 4 x 2 x 10 --causes runs, an outlier on each CPU" \
	[ "$(sqlite3 "$T_TMP/c1.db" "SELECT count(*) FROM trace_captures WHERE status = 'ok'") $(sqlite3 "$T_TMP/c1.db" "SELECT count(*) FROM cause_samples")" = "80 160" ]
check "with causes: db check passes" "$IDLELAB" db check --db "$T_TMP/c1.db"
for d in c1 cmerged; do
	"$IDLELAB" report --db "$T_TMP/$d.db" --kind causes --table 2 >"$T_TMP/$d.causes"
	"$IDLELAB" export --db "$T_TMP/$d.db" --what causes >"$T_TMP/$d.ccsv"
done
check "report --kind causes names the causes" \
	grep -q 'irq .*; .* thread kworker/.* unexplained' "$T_TMP/c1.causes"
check "the merged per-machine files give the one file's causes" \
	sh -c "cmp -s '$T_TMP/c1.causes' '$T_TMP/cmerged.causes' && cmp -s '$T_TMP/c1.ccsv' '$T_TMP/cmerged.ccsv'"
# The causes plot of a fleet: one bar per run and CPU until there are more
# than 40, then the 40 that lost the most time, in table order, its title
# saying so (the table keeps every row).  The expected bars are computed
# here from the table's csv.
if command -v gnuplot >/dev/null; then
	"$GEN" --machines 2 --campaigns 1 --runs 60 --causes-every 2 "$T_TMP/cbar.db" >/dev/null
	"$IDLELAB" report --db "$T_TMP/cbar.db" --kind causes --format csv --table 1 >"$T_TMP/cbar.csv"
	"$IDLELAB" report --db "$T_TMP/cbar.db" --format html --output "$T_TMP/cbar" >/dev/null 2>&1
	rows=$(($(wc -l <"$T_TMP/cbar.csv") - 1))
	awk -F, 'NR > 1 { s = 0; for (i = 8; i <= 14; i++) s += $i
		printf "%.17g\t%d\t\"%s %s cpu%s\" %s %s %s %s %s %s %s\n", s, NR, $1, $2, $3, $8, $9, $10, $11, $12, $13, $14 }' \
		"$T_TMP/cbar.csv" | sort -t "$(printf '\t')" -k1,1gr -k2,2n | head -40 |
		sort -t "$(printf '\t')" -k2,2n | cut -f3 >"$T_TMP/cbar.want"
	grep -v '^#' "$T_TMP/cbar/causes.dat" >"$T_TMP/cbar.got"
	check "the causes plot of $rows run/CPU rows draws the 40 that lost the most, in table order" \
		sh -c "[ $rows -gt 40 ] && cmp '$T_TMP/cbar.want' '$T_TMP/cbar.got'"
	check "its title says which 40 of the $rows it shows" \
		grep -q "the 40 of $rows run/CPU pairs that lost the most" "$T_TMP/cbar/causes.gp"
else
	skip "the causes plot of a fleet" "gnuplot not installed"
fi
t_done
