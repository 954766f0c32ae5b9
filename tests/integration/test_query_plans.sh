#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# No reading command scans a big table once per outer row (issue 23,
# item 4).  tools/query-plans.sh runs every report kind, export, db
# check, advise and publish on a small fleet-gen database with
# IDLELAB_SQL_TRACE on, and explains every SELECT they ran; with QP_BIG=5
# every table of the small fleet counts as big, so a join or correlated
# subquery that scans runs, summaries or run_attrs per row fails here
# long before a fleet of 10^6 runs would show it.  Also: the trace holds
# what ran, and the checker does catch such a query.
. tests/lib.sh

GEN=$PWD/$BUILD/tools/fleet-gen
[ -x "$GEN" ] || { not_ok "fleet-gen built ($GEN)"; t_done; exit 1; }
"$GEN" --machines 3 --campaigns 2 --runs 6 "$T_TMP/f.db" >/dev/null
check "a small fleet" [ -s "$T_TMP/f.db" ]

QP_BIG=5 sh tools/query-plans.sh "$T_TMP/f.db" "$T_TMP/qp" \
	>"$T_TMP/qp.out" 2>"$T_TMP/qp.err"
rc=$?
sed 's/^/# /' "$T_TMP/qp.out"
check "no statement scans a big table per outer row (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || grep -A8 '^SUSPECT' "$T_TMP/qp/plans.txt" | sed 's/^/# /'
check "every command it ran succeeded" \
	sh -c "! grep -q ' exit [1-9][0-9]*, ' '$T_TMP/qp.err'"
n=$(sed -n 's/^query-plans: \([0-9]*\) statements.*/\1/p' "$T_TMP/qp.out")
check "the trace held the reports' statements ($n explained)" [ "${n:-0}" -ge 40 ]
check "the trace is one JSON string a line" python3 -c "
import json, sys
n = 0
for l in open(sys.argv[1]):
    assert isinstance(json.loads(l), str); n += 1
assert n > 0" "$T_TMP/qp/sql.jsonl"

# A trace path that names a database is refused, the database untouched.
sum=$(cksum <"$T_TMP/f.db")
IDLELAB_SQL_TRACE=$T_TMP/f.db "$IDLELAB" report --db "$T_TMP/f.db" \
	>/dev/null 2>"$T_TMP/trace.err"
check "IDLELAB_SQL_TRACE naming the database: refused with a warning" \
	grep -q "IDLELAB_SQL_TRACE '.*f.db' is not a trace; not writing to it" "$T_TMP/trace.err"
check "... and the database is unchanged" [ "$(cksum <"$T_TMP/f.db")" = "$sum" ]

# The checker itself: a correlated subquery scanning summaries per run,
# and an inner-loop scan of run_attrs, are both named.
printf '%s\n' '"SELECT r.uuid, (SELECT count(*) FROM summaries s WHERE s.metric = r.bench) FROM runs r"' \
	'"SELECT r.uuid FROM runs r JOIN run_attrs a ON length(a.value) > length(r.bench)"' \
	>"$T_TMP/bad.jsonl"
python3 tools/query-plans.py "$T_TMP/f.db" "$T_TMP/bad.jsonl" --big 5 \
	>"$T_TMP/bad.out"
rc=$?
grep -v '^    ' "$T_TMP/bad.out" | sed 's/^/# /'
check "a per-row scan makes it exit 1 (exit $rc)" [ "$rc" -eq 1 ]
check "it names the correlated scan" grep -q '^SUSPECT: SCAN s .*(correlated)' "$T_TMP/bad.out"
check "it names the inner-loop scan" grep -q '^SUSPECT: SCAN .* (inner loop)' "$T_TMP/bad.out"
t_done
