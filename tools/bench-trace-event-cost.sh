#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BENCHMARKS.md section 6: what one trace event costs on this machine.
# tools/getppid-loop.c times CALLS getppid() calls on CPU; in a tracefs
# instance of its own (tracing_cpumask that CPU, 64 MiB buffer), each round
# runs it with syscalls:sys_enter_getppid off, then on with each trace
# clock (mono, x86-tsc, local), then on with a filter that never matches
# (common_pid == 1: the event is built and discarded, never written).
# Prints ns per call per round and mode; the differences against "off"
# are the event's cost, the syscall-tracepoint entry work included.
# tracefs is mounted for the run where it was not, and the instance and
# mount are removed on exit.
#
# usage: tools/bench-trace-event-cost.sh [CPU] [ROUNDS] [CALLS]
# needs: cc, root (tracefs), CONFIG_FTRACE_SYSCALLS
set -eu
cd "$(dirname "$0")/.."
cpu=${1:-1}
rounds=${2:-3}
calls=${3:-2000000}
TR=/sys/kernel/tracing
tmp=$(mktemp -d)
mounted=
inst=$TR/instances/idlelab-event-cost-$$
cleanup() {
	[ -d "$inst" ] && rmdir "$inst"
	[ -n "$mounted" ] && umount "$TR"
	rm -rf "$tmp"
}
trap cleanup EXIT
cc -O2 -o "$tmp/loop" tools/getppid-loop.c
if ! grep -q " $TR tracefs " /proc/mounts; then
	mount -t tracefs nodev "$TR"
	mounted=1
fi
mkdir "$inst"
printf '%x\n' $((1 << cpu)) >"$inst/tracing_cpumask"
echo 65536 >"$inst/buffer_size_kb"
ev=$inst/events/syscalls/sys_enter_getppid
echo "round mode ns_per_call"
r=1
while [ "$r" -le "$rounds" ]; do
	echo "$r off $("$tmp/loop" "$cpu" "$calls")"
	for clock in mono x86-tsc local; do
		echo "$clock" >"$inst/trace_clock"
		echo 1 >"$ev/enable"
		echo "$r $clock $("$tmp/loop" "$cpu" "$calls")"
		echo 0 >"$ev/enable"
	done
	echo 'common_pid == 1' >"$ev/filter"
	echo 1 >"$ev/enable"
	echo "$r filtered $("$tmp/loop" "$cpu" "$calls")"
	echo 0 >"$ev/enable"
	echo 0 >"$ev/filter"
	r=$((r + 1))
done
