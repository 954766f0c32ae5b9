#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The host half of the guest's NMI checks (tests/vm/kmod-client-ipi.c,
# tests/vm/kmod-client-nmik.c):
#   sh tests/vm/nmi-inject.sh SERIAL_LOG QMP_SOCKET MAX LOG TIMEOUT_S [K]
# Phase 1: waits (at most TIMEOUT_S) for the guest's "IDLELAB-NMI-READY"
# line on the serial console, which it prints while its IPI storms run,
# then injects NMIs through QMP's inject-nmi (QEMU raises each on every
# vCPU's LINT1, which the guest unmasks everywhere with apic_extnmi=all),
# 3 s apart, until the guest prints "IDLELAB-NMI-DONE" (it has seen one
# land in a storm round: one may also fall between two storms, or between
# a storm's start or end and its rounds) or MAX were sent.
# Phase 2, with K > 0: waits for "IDLELAB-NMIK-READY" (kernel-mode storms,
# which owe no NMI) and injects exactly K NMIs, NMIK_GAP_S apart, the
# first one at least that long after phase 1's last.
# Writes to LOG one line per NMI QEMU accepted ("injected N", phase 2:
# "nmik injected N") or what went wrong.  The spacing keeps the kernel's
# "Uhhuh. NMI received for unknown reason" lines complete: test_qemu.sh
# counts them.  6.1 prints each one; 6.8 and later (so 6.12) rate-limit
# them per call site to 10 lines in 5 s, a window opening at its first
# line after the last one closed.  With 4 vCPUs an NMI gives up to 4
# lines: 3 s apart, a window holds at most 2 NMIs' (phase 1); in phase 2,
# where every vCPU passes every NMI on, each NMI gets a window of its own.
set -u
serial=$1 sock=$2 max=$3 log=$4 limit=$5 nmik=${6:-0}
NMIK_GAP_S=5.5
: > "$log"
# wait_for MARKER: 0 once the serial log has it, 1 after TIMEOUT_S.
wait_for() {
	t=0
	while ! grep -q "$1" "$serial" 2>/dev/null; do
		sleep 0.2
		t=$((t + 1))
		if [ "$t" -ge $((limit * 5)) ]; then
			echo "no $1 within ${limit}s" >> "$log"
			return 1
		fi
	done
}
# inject LABEL: one inject-nmi through QMP, logged as "LABEL".
inject() {
	# The greeting, then one return per command: capabilities, the NMI.
	reply=$(printf '%s\n' '{"execute":"qmp_capabilities"}' \
		'{"execute":"inject-nmi"}' |
		socat -t 2 - "UNIX-CONNECT:$sock" 2>&1)
	if [ "$(printf '%s\n' "$reply" | grep -c '"return"')" -eq 2 ]; then
		echo "$1" >> "$log"
	else
		echo "inject-nmi failed ($1): $reply" >> "$log"
	fi
}
wait_for 'IDLELAB-NMI-READY' || exit 1
sleep 0.5
i=1
while [ "$i" -le "$max" ] && ! grep -q 'IDLELAB-NMI-DONE' "$serial"; do
	inject "injected $i"
	i=$((i + 1))
	sleep 3
done
[ "$nmik" -gt 0 ] || exit 0
# A full gap after phase 1's last NMI, however soon the guest is ready.
sleep $NMIK_GAP_S
wait_for 'IDLELAB-NMIK-READY' || exit 1
i=1
while [ "$i" -le "$nmik" ]; do
	inject "nmik injected $i"
	i=$((i + 1))
	[ "$i" -le "$nmik" ] && sleep $NMIK_GAP_S
done
