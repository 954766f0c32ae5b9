#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every statement that idlelab's reading commands run on DB, under
# EXPLAIN QUERY PLAN (issue 23, item 4):
#   sh tools/query-plans.sh DB [OUTDIR]
# Runs report (every kind, --compare on fleet-gen's irq_mode arms, with
# --deciles and --paired), export (every --what), db check, advise and
# publish on DB with IDLELAB_SQL_TRACE set, then tools/query-plans.py
# over what they ran.  The plans go to OUTDIR/plans.txt (default
# $BUILD/query-plans); the exit status is query-plans.py's: 1 when a
# statement scans a big table (over QP_BIG rows, default 1000) once per
# outer row.  Make DB with
# tools/fleet-gen at the size in question (BENCHMARKS.md section 9).
set -u
cd "$(dirname "$0")/.." || exit 1
db=${1:-}
[ -f "$db" ] || { echo "usage: $0 DB [OUTDIR]" >&2; exit 2; }
BUILD=${BUILD:-build}
out=${2:-$BUILD/query-plans}
IDLELAB=${IDLELAB:-$BUILD/idlelab}
mkdir -p "$out"
trace=$out/sql.jsonl
case $trace in /*) ;; *) trace=$PWD/$trace ;; esac
: >"$trace"
export IDLELAB_SQL_TRACE="$trace"
run() {
	t0=$(date +%s.%N)
	"$IDLELAB" "$@" >/dev/null 2>"$out/last.err"
	rc=$?
	t1=$(date +%s.%N)
	printf 'query-plans: %-60s exit %d, %s s\n' "$*" "$rc" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" >&2
}
for k in table states ipi pairs refs causes declared; do
	run report --db "$db" --kind "$k"
done
cmp="--compare params.irq_mode=early --compare params.irq_mode=late"
# shellcheck disable=SC2086
run report --db "$db" --kind compare $cmp
# shellcheck disable=SC2086
run report --db "$db" --kind compare $cmp --deciles --paired
for w in runs summaries buckets causes; do
	run export --db "$db" --what "$w"
done
run db check --db "$db"
run advise --db "$db" --budget 'p99<=50us'
rm -rf "$out/bundle"
run publish "$out/bundle" --db "$db"
python3 tools/query-plans.py "$db" "$trace" --big "${QP_BIG:-1000}" >"$out/plans.txt"
rc=$?
tail -1 "$out/plans.txt"
echo "query-plans: the plans are in $out/plans.txt" >&2
exit $rc
