#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The quick set of runs of ./run.sh: every user-space benchmark briefly on
# this machine, well inside 60 s on two CPUs.  Usage: quick.sh IDLELAB DB
set -u
idlelab=$1
db=$2
rc=0
run() {
	echo "== idlelab bench $*" >&2
	"$idlelab" bench --db "$db" "$@" >/dev/null
	r=$?
	# 3 = unsupported here: stored with its reason, not a failure of the set.
	[ "$r" -eq 0 ] || [ "$r" -eq 3 ] || rc=1
}
run timer_wake --param samples=2000 --param interval_us=500
run futex_wake --param samples=2000
run membarrier_ipi --param samples=2000
run tlb_shootdown --param samples=2000
run tsc_gaps --param duration_ms=1000
exit $rc
