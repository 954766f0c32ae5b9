#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The CI smoke run of the fuzzers (issue 20, Fuzzing the parsers): every
# libFuzzer target of tests/fuzz/ is built with clang, ASan and UBSan
# (`make FUZZ=1 fuzz`, in build-fuzz/ whatever $BUILD the suite uses) and
# run for FUZZ_SECONDS (default 6, about 40 s for the seven targets) on a
# scratch copy of its committed seed corpus.  A crash, a sanitizer report, a leak or a
# timeout fails the test, its report in the TAP diagnostics and the input
# named.  The long runs are tools/fuzz-long.sh's.
. tests/lib.sh

secs=${FUZZ_SECONDS:-6}
FB=${FUZZ_BUILD:-build-fuzz}
if ! nice make -s FUZZ=1 BUILD="$FB" fuzz >"$T_TMP/make" 2>&1; then
	not_ok "make FUZZ=1 fuzz builds the fuzz targets"
	tail -n 20 "$T_TMP/make" | sed 's/^/#   /'
	t_done
	exit 1
fi
ok "make FUZZ=1 fuzz builds the fuzz targets"
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	t=${name#fuzz_}
	mkdir -p "$T_TMP/corpus/$t" "$T_TMP/art/$t"
	"$FB/fuzz/$name" -max_total_time="$secs" -timeout=25 \
		-rss_limit_mb=4096 -close_fd_mask=3 \
		-artifact_prefix="$T_TMP/art/$t/" \
		"$T_TMP/corpus/$t" "tests/fuzz/corpus/$t" >"$T_TMP/$t.log" 2>&1
	rc=$?
	runs=$(grep -E '^#[0-9]+' "$T_TMP/$t.log" | tail -n 1 | sed 's/^#\([0-9]*\).*/\1/')
	if [ $rc -eq 0 ] && [ -z "$(ls -A "$T_TMP/art/$t")" ]; then
		ok "$t: ${runs:-?} inputs in ${secs} s, no crash"
	else
		not_ok "$t: libFuzzer exits $rc"
		grep -m 12 'ERROR\|runtime error\|fuzz:\|#[0-4] 0x\|artifact' \
			"$T_TMP/$t.log" | sed 's/^/#   /'
	fi
done
t_done
