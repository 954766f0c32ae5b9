#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Put a generated table into a document between its two marker lines,
# which stay: sh tools/splice-generated.sh DOC BEGIN_LINE END_LINE TABLE
# The README's benchmark table (tools/readme-bench-table.sh) and the
# BENCHMARKS what-ran-where table (tools/what-ran-where.sh) are written
# this way, so a regenerated table never touches the prose around it.
# Exits 2, leaving DOC as it was, when DOC lacks either marker line.
set -eu
doc=$1 begin=$2 end=$3 table=$4
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || {
	echo "$0: $doc lacks the marker lines:" >&2
	printf '  %s\n  %s\n' "$begin" "$end" >&2
	exit 2
}
new=$(mktemp)
trap 'rm -f "$new"' EXIT
awk -v b="$begin" -v e="$end" -v t="$table" '
	$0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
	$0 == e { skip = 0 }
	!skip' "$doc" >"$new"
cat "$new" >"$doc"
