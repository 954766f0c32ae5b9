#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One damaged histogram must not kill a report (issue 20, defect 10).  In
# a real fixture database (tests/helpers/mkfixture.c) one run's histogram
# BLOB is overwritten with X'00ff' through the sqlite3 CLI.  Every report
# kind, --compare, and export of summaries and buckets must then exit 0,
# name that run once on stderr with what is wrong, and print exactly what
# they print for the same database with that run deleted.  A second kind
# of damage, a histogram whose count disagrees with its summary, is left
# out the same way.  merge must leave the damaged run out too, say so,
# and give an output that db check passes.
. tests/lib.sh

MKFIX=$PWD/$BUILD/tests/mkfixture
BAD=00000000-0000-4000-8000-000000000001
q() { sqlite3 -batch -noheader "$1" "$2"; }

"$MKFIX" "$T_TMP/fx.db" || { not_ok "mkfixture"; t_done; exit 1; }
cp "$T_TMP/fx.db" "$T_TMP/bad.db"
cp "$T_TMP/fx.db" "$T_TMP/gone.db"
q "$T_TMP/bad.db" "UPDATE histograms SET blob = X'00ff' WHERE summary_id =
	(SELECT id FROM summaries WHERE run_uuid = '$BAD' AND cpu = 0)"
q "$T_TMP/gone.db" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE uuid = '$BAD'"
"$IDLELAB" db check --db "$T_TMP/bad.db" >"$T_TMP/dbcheck.out"
rc=$?
check "the damage is what db check sees (exit $rc)" sh -c "[ $rc -eq 1 ] &&
	grep -q 'run $BAD wake_latency cpu 0: histogram does not decode' '$T_TMP/dbcheck.out'"
check "the reference holds no trace of the run" \
	[ "$(q "$T_TMP/gone.db" "SELECT count(*) FROM summaries WHERE run_uuid = '$BAD'")" = 0 ]

# same NAME WANT_NAMED CMD...: run CMD on bad.db and on gone.db (the word
# DB stands for the file): exit 0, the same stdout, and on stderr, when
# WANT_NAMED is 1, one line naming the run and what is wrong.
same() {
	name=$1; named=$2; shift 2
	a=; b=
	for arg in "$@"; do
		a="$a '$(echo "$arg" | sed "s|^DB\$|$T_TMP/bad.db|")'"
		b="$b '$(echo "$arg" | sed "s|^DB\$|$T_TMP/gone.db|")'"
	done
	eval "\"\$IDLELAB\" $a" >"$T_TMP/bad.out" 2>"$T_TMP/bad.err"
	rc=$?
	eval "\"\$IDLELAB\" $b" >"$T_TMP/gone.out" 2>/dev/null
	lines=$(grep -c "left out run $BAD" "$T_TMP/bad.err")
	if [ "$rc" -ne 0 ]; then
		not_ok "$name: exit $rc, want 0"
		sed 's/^/#   /' "$T_TMP/bad.err" | head -3
	elif ! cmp -s "$T_TMP/bad.out" "$T_TMP/gone.out"; then
		not_ok "$name: the figures of the other runs, as without the run"
		diff "$T_TMP/gone.out" "$T_TMP/bad.out" | head -5 | sed 's/^/#   /'
	elif [ "$named" = 1 ] && { [ "$lines" != 1 ] ||
		! grep -q "wake_latency cpu 0: histogram does not decode: not an idlelab histogram BLOB" "$T_TMP/bad.err" ||
		grep -q 'corrupt histogram: run' "$T_TMP/bad.err"; }; then
		not_ok "$name: names the run once, with what is wrong"
		sed 's/^/#   /' "$T_TMP/bad.err" | head -3
	elif [ "$named" = 0 ] && [ -s "$T_TMP/bad.err" ]; then
		not_ok "$name: says nothing, it did not need the histograms"
		sed 's/^/#   /' "$T_TMP/bad.err" | head -3
	else
		ok "$name: exit 0, the others' figures, $([ "$named" = 1 ] && echo "the run named once" || echo "nothing to name")"
	fi
}

# csv is one table per file; the kinds of several tables in md, whole.
for kind in table states; do
	same "report --kind $kind" 1 report --db DB --kind "$kind" --format csv
done
for kind in ipi pairs all; do
	same "report --kind $kind" 1 report --db DB --kind "$kind"
done
same "report (md)" 1 report --db DB
same "report --format json" 1 report --db DB --format json --kind all
same "report --compare" 1 report --db DB --format csv \
	--compare 'host=alpha,params.irq_mode=early' \
	--compare 'host=alpha,params.irq_mode=late' --compare host=beta
same "report --kind refs" 0 report --db DB --kind refs --format csv
same "report --kind causes" 0 report --db DB --kind causes
same "export --what summaries" 1 export --db DB --what summaries
same "export --what buckets" 1 export --db DB --what buckets --format json
"$IDLELAB" export --db "$T_TMP/bad.db" --what runs >"$T_TMP/runs.csv" 2>"$T_TMP/err"
check "export --what runs still lists the run, and says nothing" \
	sh -c "grep -q '^$BAD,' '$T_TMP/runs.csv' && ! [ -s '$T_TMP/err' ]"
"$IDLELAB" report --db "$T_TMP/bad.db" --format html --output "$T_TMP/html" \
	>/dev/null 2>"$T_TMP/err"
rc=$?
check "report --format html: exit 0, the run named" \
	sh -c "[ $rc -eq 0 ] && grep -q 'left out run $BAD' '$T_TMP/err'"

# --- a count that disagrees with its summary ------------------------------
CNT=00000000-0000-4000-8000-000000000012
cp "$T_TMP/fx.db" "$T_TMP/cnt.db"
q "$T_TMP/cnt.db" "UPDATE histograms SET blob = (SELECT h.blob FROM histograms h
	JOIN summaries s ON s.id = h.summary_id WHERE s.run_uuid = '$BAD' AND s.cpu = 0)
	WHERE summary_id = (SELECT min(id) FROM summaries WHERE run_uuid = '$CNT')"
"$IDLELAB" report --db "$T_TMP/cnt.db" --format csv >"$T_TMP/cnt.csv" 2>"$T_TMP/err"
rc=$?
check "count disagreeing: report exits 0 and names the run with the counts" \
	sh -c "[ $rc -eq 0 ] && grep -q 'left out run $CNT, .*histogram holds [0-9]* samples, summary says [0-9]*' '$T_TMP/err'"
check "count disagreeing: the other futex_wake runs still have rows" \
	grep -q '^"alpha","futex_wake",' "$T_TMP/cnt.csv"

# --- merge -----------------------------------------------------------------
sum0=$(sha256sum <"$T_TMP/bad.db")
"$IDLELAB" merge "$T_TMP/m.db" "$T_TMP/bad.db" >"$T_TMP/merge.out" 2>"$T_TMP/merge.err"
rc=$?
check "merge: exit 0, the run named once on stderr with what is wrong" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c 'left out run $BAD, its stored data is damaged: wake_latency cpu 0: histogram does not decode' '$T_TMP/merge.err') -eq 1 ]"
check "merge: its line counts the damaged run left out" \
	grep -q "22 new runs, 0 already present, 2 new machines, 1 damaged left out" "$T_TMP/merge.out"
check "merge: nothing of the run was copied" \
	[ "$(q "$T_TMP/m.db" "SELECT (SELECT count(*) FROM runs WHERE uuid = '$BAD') + (SELECT count(*) FROM summaries WHERE run_uuid = '$BAD') + (SELECT count(*) FROM run_attrs WHERE run_uuid = '$BAD')")" = 0 ]
check "merge: the output passes db check" "$IDLELAB" db check --db "$T_TMP/m.db"
check "merge: the input is untouched" [ "$sum0" = "$(sha256sum <"$T_TMP/bad.db")" ]
"$IDLELAB" merge "$T_TMP/m-gone.db" "$T_TMP/gone.db" >/dev/null
"$IDLELAB" report --db "$T_TMP/m.db" --kind all >"$T_TMP/m.csv"
"$IDLELAB" report --db "$T_TMP/m-gone.db" --kind all >"$T_TMP/m-gone.csv"
check "merge: the output reports as a merge without the run" \
	cmp "$T_TMP/m.csv" "$T_TMP/m-gone.csv"
"$IDLELAB" merge "$T_TMP/m.db" "$T_TMP/bad.db" >"$T_TMP/merge.out" 2>"$T_TMP/merge.err"
check "merge again: still left out, still named, nothing new" \
	sh -c "grep -q '0 new runs, 22 already present, 0 new machines, 1 damaged left out' '$T_TMP/merge.out' && grep -q 'left out run $BAD' '$T_TMP/merge.err'"

t_done
