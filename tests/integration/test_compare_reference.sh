#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 23's done-when: report --compare's streaming path prints the same
# bytes as the brute-force reference kept in the tree
# (IDLELAB_COMPARE_REFERENCE=1, analysis/compare_reference.c: every run's
# histogram held and merged from scratch, and the Hodges-Lehmann shift and
# Moses interval from all m*n differences sorted).  On fleets of fixed
# fleet-gen seeds, whose sides measured the same CPUs (per-CPU rows), and
# on real timer_wake runs here whose sides measured different CPUs (the
# runs' CPUs merged, CPU "all"); in md, csv and json, plain and with
# --deciles --equivalence 2.
. tests/lib.sh

GEN=$PWD/$BUILD/tools/fleet-gen
"$GEN" --machines 4 --campaigns 2 --runs 15 --seed 31 "$T_TMP/a.db" >/dev/null
"$GEN" --machines 6 --campaigns 2 --runs 8 --samples 60 --seed 32 "$T_TMP/b.db" >/dev/null
check "two fleets of fixed seeds" [ -s "$T_TMP/a.db" ] && [ -s "$T_TMP/b.db" ]
# Real runs: one side on CPUs 0 and 1, the other on 1, so each run's rows
# are merged over its CPUs (the streaming path hands histograms on).
for i in 1 2 3; do
	"$IDLELAB" bench timer_wake --db "$T_TMP/c.db" --events none --quiet \
		--cpus 0,1 --param samples=300 --param interval_us=100 >/dev/null 2>&1 &&
	"$IDLELAB" bench timer_wake --db "$T_TMP/c.db" --events none --quiet \
		--cpus 1 --param samples=300 --param interval_us=200 >/dev/null 2>&1
done
check "six real timer_wake runs" \
	[ "$(sqlite3 "$T_TMP/c.db" "SELECT count(*) FROM runs WHERE status = 'ok'")" -eq 6 ]

same() {
	db=$1 what=$2
	shift 2
	"$IDLELAB" report --db "$T_TMP/$db.db" "$@" >"$T_TMP/stream" 2>"$T_TMP/err1"
	rc1=$?
	IDLELAB_COMPARE_REFERENCE=1 "$IDLELAB" report --db "$T_TMP/$db.db" "$@" \
		>"$T_TMP/ref" 2>"$T_TMP/err2"
	rc2=$?
	check "$db, $what: both exit 0 ($rc1, $rc2), the same bytes ($(wc -l <"$T_TMP/stream") lines)" \
		sh -c "[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ -s '$T_TMP/stream' ] && cmp -s '$T_TMP/stream' '$T_TMP/ref'"
}
FL="--compare params.irq_mode=early --compare params.irq_mode=late"
RL="--compare params.interval_us=100 --compare params.interval_us=200"
for db in a b c; do
	# shellcheck disable=SC2086
	case $db in c) set -- $RL ;; *) set -- $FL ;; esac
	for fmt in md csv json; do
		same "$db" "$fmt" "$@" --format "$fmt"
	done
	same "$db" "csv, --deciles --equivalence 2" "$@" --deciles \
		--equivalence 2 --format csv
done
# The real runs did take the CPUs-merged path.
"$IDLELAB" report --db "$T_TMP/c.db" $RL --format csv >"$T_TMP/c.csv"
check "the real runs' rows merge their CPUs (CPU all)" \
	grep -q '^timer_wake,wake_latency,[^,]*,all,median,' "$T_TMP/c.csv"
check "and the fleets' rows are per CPU" sh -c \
	"'$IDLELAB' report --db '$T_TMP/a.db' $FL --format csv | grep -q '^timer_wake,wake_latency,[^,]*,0,median,'"
t_done
