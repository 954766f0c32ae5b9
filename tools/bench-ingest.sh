#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Reproduce BENCHMARKS.md figure 2, sample ingest: build tools/bench-ingest.c
# and run it.  Arguments go to bench-ingest (-n SAMPLES, -r REPS, -R ROW_REPS,
# -d DIR, -k); the defaults measure 20 M samples, idlelab three times and the
# row-per-sample baseline once.
#
# It links against $BUILD/libidlelab.a (default build/, what `make` leaves),
# of which it needs only the store, statistics and series objects.  Without
# that library, say while the rest of the tree does not build, it compiles
# those few sources itself into $OUT (BENCH_STANDALONE=1 forces this).
# Always -O2 and no sanitizers: this is a performance figure.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/tools}
CC=${CC:-cc}
CFLAGS="-std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iharness"
LIBS="-lsqlite3 -ljansson -lm -pthread"

mkdir -p "$OUT"
if [ -f "$BUILD/libidlelab.a" ] && [ "${BENCH_STANDALONE:-0}" != 1 ]; then
	# shellcheck disable=SC2086
	$CC $CFLAGS -o "$OUT/bench-ingest" tools/bench-ingest.c \
		"$BUILD/libidlelab.a" $LIBS
else
	echo "bench-ingest: building store, stats and series into $OUT" >&2
	sh tools/embed-schemas.sh schemas/[0-9]*.sql > "$OUT/schemas.c"
	# shellcheck disable=SC2086
	$CC $CFLAGS -I"$OUT" -o "$OUT/bench-ingest" tools/bench-ingest.c \
		harness/store_open.c harness/store_migrate.c harness/store_run.c \
		harness/store_stmts.c harness/store_check.c \
		harness/stats.c harness/series.c harness/err.c \
		"$OUT/schemas.c" $LIBS
fi
echo "bench-ingest: $(uname -srm), $(nproc) CPUs, $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
exec "$OUT/bench-ingest" "$@"
