#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The fuzz targets' inputs replayed under the tests' ASan and UBSan
# (issue 20, Fuzzing the parsers): each tests/fuzz/fuzz_NAME.c, linked
# with tests/fuzz/replay.c by `make tests`, reads every file of its
# committed seed corpus tests/fuzz/corpus/NAME/ and of
# tests/fuzz/crashes/NAME/, where each crash a fuzzer found is kept once
# fixed, so it stays fixed.  One process replays a directory's files in
# name order, as libFuzzer runs inputs one after another, so a crash that
# needs what an earlier input left behind is kept as NAME-1, NAME-2.  A
# target without a corpus fails, and so does a corpus or crash directory
# without a target.
. tests/lib.sh

found=0
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	t=${name#fuzz_}
	bin=$BUILD/fuzz/replay/$name
	found=$((found + 1))
	if [ ! -x "$bin" ]; then
		not_ok "$t: replay binary $bin is built (make tests)"
		continue
	fi
	n=$(find "tests/fuzz/corpus/$t" -type f 2>/dev/null | wc -l)
	check "$t: has a seed corpus" [ "$n" -gt 0 ]
	dirs="tests/fuzz/corpus/$t"
	[ -d "tests/fuzz/crashes/$t" ] && dirs="$dirs tests/fuzz/crashes/$t"
	# shellcheck disable=SC2086 # $dirs is one or two paths on purpose
	"$bin" $dirs >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^replayed [0-9]* inputs$' "$T_TMP/out"; then
		ok "$t: $(grep "^replayed" "$T_TMP/out") without a sanitizer report"
	else
		not_ok "$t: replay exits $rc"
		grep -m 8 'ERROR\|runtime error\|fuzz:\|#[0-3] ' "$T_TMP/err" | sed 's/^/#   /'
	fi
done
check "there are fuzz targets" [ "$found" -ge 5 ]
for d in tests/fuzz/corpus/* tests/fuzz/crashes/*; do
	[ -d "$d" ] || continue
	t=$(basename "$d")
	check "$d: has its target tests/fuzz/fuzz_$t.c" [ -f "tests/fuzz/fuzz_$t.c" ]
done
t_done
