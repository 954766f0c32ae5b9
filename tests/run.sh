#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run every test named in the table of tests, tests/tests.cfg (kvm-unit-
# tests' unittests.cfg shape; the file says how it is written).  A unit
# test NAME is the binary $BUILD/tests/NAME built from tests/unit/NAME.c;
# a NAME ending in .sh is that shell script.  Each prints TAP; this script
# counts every "ok" and "not ok" line and ends with the one summary line
# CI reads, "N passed, N failed".
#
# The table and the tree must agree: a test on disk that the table does
# not name, or one the table names that is not on disk, fails, and so
# does a unit test whose binary was not built.  A test whose needs are not
# met here prints "ok N - NAME # SKIP reason" and is counted on a line of
# its own before the summary.  A test that outlives its timeout is killed
# (its whole process group) and fails with a message.
#
# --group NAME (repeatable, or NAME,NAME) runs only the tests whose
# "groups =" names one of them; the others are left out, not counted.  A
# group that no test of the table names is an error, and so is any other
# argument: both exit 2.
#
# IDLELAB_TESTS_CFG names another table (the runner's own test uses it).
set -u
: "${BUILD:=build-san}"
export BUILD
cfg=${IDLELAB_TESTS_CFG:-tests/tests.cfg}
# Leak reports from hwloc/libpfm's one-time initialisation are not ours.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
run_t0=$(date +%s)
passed=0
failed=0
skipped=0
skipped_names=
n=0
work=$(mktemp -d "${TMPDIR:-/tmp}/idlelab-run.XXXXXX")
log=$work/log
trap 'rm -rf "$work"' EXIT
usage_error=0

# The groups asked for, one comma list: "--group a --group b,c" is "a,b,c".
want=
while [ $# -gt 0 ]; do
	case $1 in
	--group=*) want="$want,${1#--group=}" ;;
	--group)
		if [ $# -lt 2 ]; then
			echo "tests/run.sh: --group needs a NAME" >&2
			exit 2
		fi
		want="$want,$2"
		shift ;;
	*)
		echo "tests/run.sh: unknown argument '$1' (use: tests/run.sh [--group NAME]...)" >&2
		exit 2 ;;
	esac
	shift
done
asked=$want
want=$(printf '%s' "$want" | tr ',' ' ')
if [ -n "$asked" ] && [ -z "$(printf '%s' "$want" | tr -d ' ')" ]; then
	echo "tests/run.sh: --group needs a NAME" >&2
	exit 2
fi

fail_line() {
	n=$((n + 1))
	echo "not ok $n - $*"
	failed=$((failed + 1))
}

trim() {
	printf '%s' "$1" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//'
}

# The table as "name|needs|timeout|groups" lines in $work/table; 1 on a
# bad line.
parse_table() {
	name= needs= timeout= groups= bad=0 lineno=0
	: >"$work/table"
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		line=$(trim "${line%%#*}")
		case $line in
		'') ;;
		\[*\])
			[ -n "$name" ] && echo "$name|$needs|$timeout|$groups" >>"$work/table"
			name=${line#\[}
			name=${name%\]}
			needs=
			timeout=
			groups=
			;;
		*=*)
			key=$(trim "${line%%=*}")
			val=$(trim "${line#*=}")
			case $key in
			needs) needs=$val ;;
			timeout) timeout=$val ;;
			groups) groups=$(printf '%s' "$val" | tr ',' ' ') ;;
			*)
				fail_line "$cfg:$lineno: unknown key '$key' (needs, timeout, groups)"
				bad=1
				;;
			esac
			if [ -z "$name" ]; then
				fail_line "$cfg:$lineno: '$key' before the first [test]"
				bad=1
			fi
			;;
		*)
			fail_line "$cfg:$lineno: expected [name] or key = value"
			bad=1
			;;
		esac
	done <"$cfg"
	[ -n "$name" ] && echo "$name|$needs|$timeout|$groups" >>"$work/table"
	return $bad
}

# True when the groups "$1" of a test meet the groups asked for (all of
# them when none was asked for).
selected() {
	[ -z "$want" ] && return 0
	for w in $want; do
		for g in $1; do
			[ "$g" = "$w" ] && return 0
		done
	done
	return 1
}

# Fail (exit 2 at the end) on each group asked for that no test names.
check_groups() {
	known=$(cut -d'|' -f4 "$work/table" | tr ' ' '\n' | sed '/^$/d' | sort -u)
	for w in $want; do
		printf '%s\n' "$known" | grep -qx -- "$w" && continue
		fail_line "unknown group '$w': $cfg names $(echo $known | sed 's/ /, /g')"
		usage_error=1
	done
	[ "$usage_error" = 0 ]
}

# Print why the needs "$1" are not met here; nothing when they are.
unmet() {
	for need in $1; do
		case $need in
		root)
			[ "$(id -u)" = 0 ] || { echo "needs root"; return; } ;;
		netns)
			unshare -n true 2>/dev/null ||
				{ echo "needs network namespaces (unshare -n fails here)"; return; } ;;
		vmtest)
			[ "${IDLELAB_VMTEST:-0}" = 1 ] ||
				{ echo "needs the guest rig: set IDLELAB_VMTEST=1"; return; } ;;
		xentest)
			# On with the other guests unless IDLELAB_XENTEST=0.
			[ "${IDLELAB_XENTEST:-${IDLELAB_VMTEST:-0}}" = 1 ] ||
				{ echo "needs the Xen PV guest, which IDLELAB_XENTEST=0 (or IDLELAB_VMTEST=0) leaves out"; return; } ;;
		pkg:*)
			dpkg-query -W -f='${Status}' "${need#pkg:}" 2>/dev/null |
				grep -q 'install ok installed' ||
				{ echo "needs the Debian package ${need#pkg:}"; return; } ;;
		cmd:*)
			command -v "${need#cmd:}" >/dev/null 2>&1 ||
				{ echo "needs the command ${need#cmd:}"; return; } ;;
		*)
			echo "BAD $need"; return ;;
		esac
	done
}

run_one() {
	name=$1; limit=$2; shift 2
	echo "== $name"
	t0=$(date +%s)
	# timeout signals the test's whole process group: a rig's emulator
	# goes with its script.
	timeout -k 10 "$limit" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	cat "$log"
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "not ok - $name timed out after $limit s and was killed (timeout in $cfg)"
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
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

if [ ! -f "$cfg" ]; then
	fail_line "the table of tests $cfg does not exist"
elif parse_table && check_groups; then
	# What is on disk, one name a line, against what the table names.
	{
		for t in tests/unit/test_*.c; do
			[ -f "$t" ] && basename "$t" .c
		done
		for t in tests/integration/*.sh tests/vm/test_*.sh; do
			[ -f "$t" ] && echo "$t"
		done
	} | sort >"$work/disk"
	cut -d'|' -f1 "$work/table" | sort >"$work/listed"
	for t in $(comm -23 "$work/disk" "$work/listed"); do
		fail_line "$t is on disk but not in $cfg"
	done
	for t in $(sort "$work/listed" | uniq -d); do
		fail_line "$t is in $cfg more than once"
	done
	exec 3<"$work/table"
	while IFS='|' read -r name needs limit groups <&3; do
		case $name in
		*.sh) src=$name; cmd="sh $name" ;;
		*) src=tests/unit/$name.c; cmd=$BUILD/tests/$name ;;
		esac
		if [ ! -f "$src" ]; then
			fail_line "$name is in $cfg but $src is not on disk"
			continue
		fi
		case $limit in
		''|*[!0-9]*)
			fail_line "$name: timeout must be a number of seconds in $cfg, got '$limit'"
			continue ;;
		esac
		selected "$groups" || continue
		why=$(unmet "$needs")
		case $why in
		BAD*)
			fail_line "$name: unknown need '${why#BAD }' in $cfg (root, netns, vmtest, xentest, pkg:NAME, cmd:NAME)"
			continue ;;
		?*)
			n=$((n + 1))
			echo "ok $n - $name # SKIP $why"
			skipped=$((skipped + 1))
			skipped_names="$skipped_names $name"
			continue ;;
		esac
		if [ "$cmd" = "$BUILD/tests/$name" ] && [ ! -x "$cmd" ]; then
			fail_line "$name: $cmd is missing (make SAN=1 tests)"
			continue
		fi
		# shellcheck disable=SC2086
		run_one "$name" "$limit" $cmd
	done
	exec 3<&-
fi
[ "$skipped" -gt 0 ] && echo "# $skipped skipped:$skipped_names"
[ -n "$want" ] && echo "# groups:$(printf ' %s' $want)"
echo "# all tests: $(($(date +%s) - run_t0)) s"
echo "$passed passed, $failed failed"
[ "$usage_error" = 0 ] || exit 2
[ "$failed" -eq 0 ]
