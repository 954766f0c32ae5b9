#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The host half of the guest's NMI check (tests/vm/kmod-client-ipi.c):
#   sh tests/vm/nmi-inject.sh SERIAL_LOG QMP_SOCKET MAX LOG TIMEOUT_S
# waits (at most TIMEOUT_S) for the guest's "IDLELAB-NMI-READY" line on the
# serial console, which it prints while its IPI storms run, then injects
# NMIs through QMP's inject-nmi (QEMU delivers each to every vCPU), 2 s
# apart, until the guest prints "IDLELAB-NMI-DONE" (it has seen one land
# in a storm round: one may also fall between two storms, or between a
# storm's start or end and its rounds) or MAX were sent.
# Writes to LOG one line per NMI QEMU accepted ("injected N") or what went
# wrong.  The spacing keeps the kernel's rate-limited "Uhhuh. NMI received
# for unknown reason" lines (10 in 5 s) complete: test_qemu.sh counts them.
set -u
serial=$1 sock=$2 max=$3 log=$4 limit=$5
: > "$log"
t=0
while ! grep -q 'IDLELAB-NMI-READY' "$serial" 2>/dev/null; do
	sleep 0.2
	t=$((t + 1))
	if [ "$t" -ge $((limit * 5)) ]; then
		echo "no IDLELAB-NMI-READY within ${limit}s" >> "$log"
		exit 1
	fi
done
sleep 0.5
i=1
while [ "$i" -le "$max" ] && ! grep -q 'IDLELAB-NMI-DONE' "$serial"; do
	# The greeting, then one return per command: capabilities, the NMI.
	reply=$(printf '%s\n' '{"execute":"qmp_capabilities"}' \
		'{"execute":"inject-nmi"}' |
		socat -t 2 - "UNIX-CONNECT:$sock" 2>&1)
	if [ "$(printf '%s\n' "$reply" | grep -c '"return"')" -eq 2 ]; then
		echo "injected $i" >> "$log"
	else
		echo "inject-nmi $i failed: $reply" >> "$log"
	fi
	i=$((i + 1))
	sleep 2
done
