#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tools/bench-ingest.sh, BENCHMARKS.md figure 2's script, builds and runs
# both ways: against the build's libidlelab.a (when that is not a
# sanitizer build, which it refuses, saying so), and standalone from the
# store sources (BENCH_STANDALONE=1), the path for a tree whose rest does
# not build.  The standalone path broke unnoticed once, when a store file
# was split; this keeps it honest.  A tiny sample count: the figure
# itself is not measured here.
. tests/lib.sh

for mode in library standalone; do
	sa=0
	[ "$mode" = standalone ] && sa=1
	out=$T_TMP/$mode
	BENCH_STANDALONE=$sa OUT=$out sh tools/bench-ingest.sh -n 2000 -r 1 -R 1 \
		-d "$T_TMP" >"$T_TMP/$mode.log" 2>&1
	rc=$?
	check "$mode: bench-ingest builds and runs (exit $rc)" [ "$rc" -eq 0 ]
	check "$mode: it prints its RESULT line for 2000 samples" \
		grep -q '^RESULT samples=2000 idlelab_samples_per_s=[1-9]' \
		"$T_TMP/$mode.log"
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$T_TMP/$mode.log" | tail -20
done
if nm "$BUILD/libidlelab.a" | grep -q ' U __asan_init'; then
	check "library: a sanitizer build of the library is named and not used" \
		grep -q 'is a sanitizer build; not using it' "$T_TMP/library.log"
fi
check "standalone: built from its own archive of store objects" \
	[ -s "$T_TMP/standalone/libingest.a" ]
t_done
