#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run every test: the C unit binaries in $BUILD/tests/test_* and the shell
# integration tests in tests/integration/*.sh (and tests/vm/*.sh when
# IDLELAB_VMTEST=1).  Each prints TAP; this script counts every "ok" and
# "not ok" line and ends with the one summary line CI reads.
set -u
: "${BUILD:=build-san}"
export BUILD
# Leak reports from hwloc/libpfm's one-time initialisation are not ours.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_one() {
	name=$1; shift
	echo "== $name"
	t0=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# A crash or sanitizer report after the last case still fails.
		echo "not ok - $name exited $rc"
		f=$((f + 1))
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name ran no test case"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	echo "-- $name: $p passed, $f failed, $(($(date +%s) - t0)) s"
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "$(basename "$t")" "$t"
done
for t in tests/integration/*.sh; do
	[ -f "$t" ] || continue
	run_one "$t" sh "$t"
done
if [ "${IDLELAB_VMTEST:-0}" = 1 ]; then
	for t in tests/vm/test_*.sh; do
		[ -f "$t" ] || continue
		run_one "$t" sh "$t"
	done
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
