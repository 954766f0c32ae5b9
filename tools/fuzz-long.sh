#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The long fuzz runs of issue 20: each libFuzzer target of tests/fuzz/,
# built by `make FUZZ=1 fuzz` (clang, ASan + UBSan), runs for SECONDS
# (default 600) on a working copy of its committed seed corpus, and one
# line per target gives what BENCHMARKS.md records: executions, the
# coverage libFuzzer counted at the end (cov: edges, ft: features), the
# size of the corpus it ended with, and the crashes it left (each a file
# under OUT/artifacts; turn it into a regression input under
# tests/fuzz/crashes/NAME/ once fixed).
#
#   tools/fuzz-long.sh [-t SECONDS] [-o OUT] [TARGET...]
#
# TARGET is a name such as hist (default: every target); FUZZ_BUILD names
# the build directory (default build-fuzz).  The working corpora and the
# logs stay in OUT (default: a new directory under $TMPDIR), so a later
# run can start from them.  libFuzzer stops at its first crash; the line
# then says so and the run is worth repeating once it is fixed.  Exit 0
# when no target crashed, 1 otherwise.
set -u
secs=600
out=
while getopts t:o: opt; do
	case $opt in
	t) secs=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: tools/fuzz-long.sh [-t SECONDS] [-o OUT] [TARGET...]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
BUILD=${FUZZ_BUILD:-build-fuzz}
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/idlelab-fuzz.XXXXXX")
mkdir -p "$out/artifacts" || exit 2
if [ $# -eq 0 ]; then
	for src in tests/fuzz/fuzz_*.c; do
		t=$(basename "$src" .c)
		set -- "$@" "${t#fuzz_}"
	done
fi
make -s FUZZ=1 BUILD="$BUILD" fuzz || exit 2
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}"
crashed=0
printf '%-11s %8s %12s %8s %8s %7s %8s\n' target seconds executions cov ft corpus crashes
for t in "$@"; do
	bin=$BUILD/fuzz/fuzz_$t
	if [ ! -x "$bin" ]; then
		echo "fuzz-long: no target $t ($bin)" >&2
		exit 2
	fi
	mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
	# -close_fd_mask=3: the targets' own messages (the CLI's errors)
	# would drown libFuzzer's; a crash's report still reaches the log.
	"$bin" -max_total_time="$secs" -timeout=25 -rss_limit_mb=4096 \
		-print_final_stats=1 -close_fd_mask=3 \
		-artifact_prefix="$out/artifacts/$t/" \
		"$out/corpus/$t" "tests/fuzz/corpus/$t" >"$out/$t.log" 2>&1
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log" | tail -n 1)
	last=$(grep -E '^#[0-9]+.*cov: ' "$out/$t.log" | tail -n 1)
	cov=$(printf '%s\n' "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	ncorp=$(find "$out/corpus/$t" -type f | wc -l)
	ncrash=$(find "$out/artifacts/$t" -type f | wc -l)
	[ "$ncrash" -eq 0 ] || crashed=1
	printf '%-11s %8s %12s %8s %8s %7s %8s\n' "$t" "$secs" "${execs:-?}" \
		"${cov:-?}" "${ft:-?}" "$ncorp" "$ncrash"
done
echo "logs, corpora and artifacts: $out"
exit $crashed
