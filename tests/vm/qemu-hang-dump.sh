#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What every vCPU of a wedged guest is doing, read from QEMU itself (the
# guest may be past telling):
#   sh tests/vm/qemu-hang-dump.sh QMP_SOCKET VCPUS OUT [KALLSYMS_GZ]
# asks QEMU's monitor, through QMP's human-monitor-command, for `info cpus`,
# `info registers -a` (RIP, RFLAGS with IF, HLT of each vCPU) and
# `info lapic N` for every vCPU (IRR, ISR, TPR, the timer), and writes the
# answers to OUT as text.  With the guest's code symbols (guest-init.sh
# writes them at boot; the guest runs with nokaslr), a summary at the top
# names the function each vCPU's RIP is in.  run-qemu.sh calls it when a
# guest reaches the host's limit, before it kills QEMU.
set -u
sock=$1 n=$2 out=$3 syms=${4:-}
{
	printf '%s\n' '{"execute":"qmp_capabilities"}'
	printf '%s\n' '{"execute":"human-monitor-command","arguments":{"command-line":"info cpus"}}'
	printf '%s\n' '{"execute":"human-monitor-command","arguments":{"command-line":"info registers -a"}}'
	i=0
	while [ "$i" -lt "$n" ]; do
		printf '{"execute":"human-monitor-command","arguments":{"command-line":"info lapic %d"}}\n' "$i"
		i=$((i + 1))
	done
} | socat -t 10 - "UNIX-CONNECT:$sock" 2>&1 |
	sed -e 's/\\r\\n/\n/g' -e 's/\\n/\n/g' -e 's/\\t/\t/g' > "$out.raw"
{
	echo "# per vCPU: RIP, RFLAGS, HLT, and the function the RIP is in"
	# Kernel addresses are 16 lowercase hex digits, so string order is
	# numeric order: the symbol of a RIP is the last one not above it.
	{
		[ -n "$syms" ] && [ -r "$syms" ] &&
			gzip -dc "$syms" | awk '{ print "S", $1, $3 $4 }'
		awk '/^CPU#/ { c = $1 }
		     /^RIP=/ { r = tolower(substr($1, 5)); print "R", r, c, $2, $NF }' \
			"$out.raw"
	} | sort -k2,2 -k1,1r | awk '
		$1 == "S" { sym = $3; next }
		{ print $3, "RIP=" $2, $4, $5, "in", (sym == "" ? "?" : sym) }' |
		sort -t'#' -k2,2n
	echo
	cat "$out.raw"
} > "$out"
rm -f "$out.raw"
