#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The fleet scaling benchmark of BENCHMARKS.md (issue 23): for each size,
# write a synthetic fleet with tools/fleet-gen (10 machines, 2 campaigns,
# irq_mode early and late, every 10th run a --causes run), then time every
# command over it, with its peak RSS, through /usr/bin/time -f '%e %M':
#   report (table, states, causes, all, html), report --compare early against late
#   (plain, --deciles, --equivalence 2), export of the summaries and of
#   the causes, db check,
#   publish of every run into a bundle (then removed), and
#   merge of the same runs from 100 per-machine databases into a new file,
#   then again into that file (nothing to copy: idempotent).
# Prints one table row per size and command (elapsed time, CPU time, peak
# RSS), and, with -o FILE, the same rows as data for gnuplot (runs,
# command, seconds, MB).  The CPU time (user plus system) is what to read
# when the machine is shared: the elapsed time then grows with the load.
#
# usage: tools/bench-fleet-scale.sh [-o DATA] [SIZE...]
#   SIZE  runs in the fleet, a multiple of 200 (default: 1000 10000)
# Environment: BUILD (default build; use a build without SAN for figures),
# WORK (scratch directory, default a new one under /tmp, removed at the end;
# one given is kept, and a fleet file already in it is used as it is, with
# no fleet-gen row), ONLY (an extended regular expression: time only the
# commands whose name matches, to finish a long pass that was stopped).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
IDLELAB=$BUILD/idlelab
GEN=$BUILD/tools/fleet-gen
data=
if [ "${1:-}" = -o ]; then
	data=$2
	shift 2
fi
sizes=${*:-1000 10000}
for f in "$IDLELAB" "$GEN" /usr/bin/time; do
	[ -x "$f" ] || { echo "bench-fleet-scale: $f missing (make BUILD=$BUILD all tools)" >&2; exit 2; }
done
for n in $sizes; do
	case $n in *[!0-9]*|'') echo "bench-fleet-scale: size '$n' is not a number" >&2; exit 2;; esac
	if [ $((n % 200)) -ne 0 ] || [ "$n" -eq 0 ]; then
		echo "bench-fleet-scale: size $n is not a multiple of 200" >&2
		exit 2
	fi
done
if [ -n "${WORK:-}" ]; then
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d /tmp/fleet-scale.XXXXXX)
	trap 'rm -rf "$WORK"' EXIT
fi
ONLY=${ONLY:-.}
[ -z "$data" ] || : > "$data"

# run SIZE NAME CMD...: time CMD, print the row, append the data line.
run() {
	size=$1 name=$2
	shift 2
	printf '%s\n' "$name" | grep -Eq -- "$ONLY" || return 0
	if ! /usr/bin/time -f '%e %M %U %S' -o "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err"; then
		echo "bench-fleet-scale: $name at $size runs failed:" >&2
		cat "$WORK/err" >&2
		exit 1
	fi
	read -r s kb us ss < "$WORK/time"
	mb=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
	cpu=$(awk -v u="$us" -v y="$ss" 'BEGIN { printf "%.2f", u + y }')
	printf '| %s | %s | %s s | %s s | %s MB |\n' "$size" "$name" "$s" "$cpu" "$mb"
	[ -z "$data" ] || printf '%s "%s" %s %s\n' "$size" "$name" "$s" "$mb" >> "$data"
}

echo "bench-fleet-scale: $(uname -srm), $(nproc) CPUs, $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
echo "| runs | command | time | CPU time | peak RSS |"
echo "|---|---|---|---|---|"
for n in $sizes; do
	db=$WORK/fleet-$n.db
	[ -s "$db" ] ||
		run "$n" "fleet-gen (one file)" "$GEN" --machines 10 --campaigns 2 --runs $((n / 20)) --causes-every 10 "$db"
	run "$n" "report" "$IDLELAB" report --db "$db"
	run "$n" "report --kind states" "$IDLELAB" report --db "$db" --kind states
	run "$n" "report --kind causes" "$IDLELAB" report --db "$db" --kind causes --table 2
	run "$n" "report --kind all" "$IDLELAB" report --db "$db" --kind all
	run "$n" "report --format html" "$IDLELAB" report --db "$db" --format html --output "$WORK/report-$n.html"
	rm -f "$WORK/report-$n.html"
	set -- --compare params.irq_mode=early --compare params.irq_mode=late
	run "$n" "report --compare" "$IDLELAB" report --db "$db" "$@"
	run "$n" "report --compare --deciles" "$IDLELAB" report --db "$db" "$@" --deciles
	run "$n" "report --compare --equivalence 2" "$IDLELAB" report --db "$db" "$@" --equivalence 2
	run "$n" "export" "$IDLELAB" export --db "$db"
	run "$n" "export --what causes" "$IDLELAB" export --db "$db" --what causes
	run "$n" "db check" "$IDLELAB" db check --db "$db"
	run "$n" "publish" "$IDLELAB" publish "$WORK/bundle-$n" --db "$db"
	rm -rf "$WORK/bundle-$n"
	run "$n" "fleet-gen (100 files)" "$GEN" --machines 100 --campaigns 2 --runs $((n / 200)) --causes-every 10 --per-machine "$WORK/m-$n"
	run "$n" "merge 100 files" "$IDLELAB" merge --quiet "$WORK/merged-$n.db" "$WORK/m-$n"/*.db
	run "$n" "merge again" "$IDLELAB" merge --quiet "$WORK/merged-$n.db" "$WORK/m-$n"/*.db
	rm -rf "$db" "$db-wal" "$db-shm" "$WORK/m-$n" "$WORK/merged-$n.db"*
done
