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
# those few sources itself into $OUT (BENCH_STANDALONE=1 forces this): every
# harness/store_*.c by wildcard, into an archive the linker picks from, so
# that splitting a store file cannot break a list again (a fixed list broke
# when the SQL helpers left store_open.c).
# Always -O2 and no sanitizers: this is a performance figure.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/tools}
CC=${CC:-cc}
CFLAGS="-std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iharness -DIL_VERSION=\"$(cat VERSION)\""
LIBS="-lsqlite3 -ljansson -lm -pthread"

mkdir -p "$OUT"
standalone=${BENCH_STANDALONE:-0}
[ -f "$BUILD/libidlelab.a" ] || standalone=1
# A sanitizer build (SAN=1, what the tests use) is no performance figure
# and does not link without the sanitizers' runtime: build standalone.
if [ "$standalone" != 1 ] && nm "$BUILD/libidlelab.a" 2>/dev/null |
	grep -q ' U __asan_init'; then
	echo "bench-ingest: $BUILD/libidlelab.a is a sanitizer build; not using it" >&2
	standalone=1
fi
if [ "$standalone" != 1 ]; then
	# shellcheck disable=SC2086
	$CC $CFLAGS -o "$OUT/bench-ingest" tools/bench-ingest.c \
		"$BUILD/libidlelab.a" $LIBS
else
	echo "bench-ingest: building store, stats and series into $OUT" >&2
	sh tools/embed-schemas.sh schemas/[0-9]*.sql > "$OUT/schemas.c"
	# Into an archive, so the linker takes only the objects bench-ingest
	# reaches, however the store is split into files.
	mkdir -p "$OUT/ingest-obj"
	rm -f "$OUT/ingest-obj/"*.o "$OUT/libingest.a"
	for src in harness/store_*.c harness/stats.c harness/series.c harness/progress.c \
		harness/err.c "$OUT/schemas.c"; do
		# shellcheck disable=SC2086
		$CC $CFLAGS -I"$OUT" -c -o "$OUT/ingest-obj/$(basename "$src" .c).o" \
			"$src"
	done
	ar rcs "$OUT/libingest.a" "$OUT/ingest-obj/"*.o
	# shellcheck disable=SC2086
	$CC $CFLAGS -o "$OUT/bench-ingest" tools/bench-ingest.c \
		"$OUT/libingest.a" $LIBS
fi
echo "bench-ingest: $(uname -srm), $(nproc) CPUs, $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
exec "$OUT/bench-ingest" "$@"
