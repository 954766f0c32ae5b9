# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the shell integration tests: TAP output, one case per
# `t_run NAME CMD...` or per `ok`/`not_ok` call, and a scratch directory that
# is removed on exit.  Source it; then call t_done at the end.
set -u
: "${BUILD:=build-san}"
IDLELAB=${IDLELAB:-$PWD/$BUILD/idlelab}
T_N=0
T_FAILED=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/idlelab-test.XXXXXX")
trap 'rm -rf "$T_TMP"' EXIT

ok() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
not_ok() { T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $*"; }
skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"; }
diag() { echo "# $*"; }

# check NAME CONDITION-COMMAND...: one case, passing when the command succeeds.
# The command's own output goes to a log, shown only when it fails, so a
# caller never has to redirect (which would swallow the TAP line too).
check() {
	name=$1; shift
	if "$@" >"$T_TMP/check.out" 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/#   /' "$T_TMP/check.out" | head -5
	fi
}

# expect_exit NAME CODE CMD...: the command exits with CODE and prints a
# one-line message on stderr.
expect_exit() {
	name=$1; code=$2; shift 2
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	if [ "$rc" -eq "$code" ] && [ -s "$T_TMP/err" ]; then
		ok "$name"
	else
		not_ok "$name (exit $rc, want $code)"
		sed 's/^/#   /' "$T_TMP/err" | head -5
	fi
}

# A simulated host of its own: a state directory holding a random host
# UUID, which idlelab reads before deriving one from /etc/machine-id (so
# two state directories on one machine are otherwise one host).
t_new_host() {
	mkdir -p "$1"
	[ -s "$1/host-uuid" ] || cat /proc/sys/kernel/random/uuid >"$1/host-uuid"
}
t_done() { echo "1..$T_N"; [ "$T_FAILED" -eq 0 ]; }
