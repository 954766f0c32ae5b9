#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tools/kmod-hw-check.sh - the kernel modules' gating checks on a real
# machine, for a lab to run once on each new kind of box (issue 21).  The
# guests cannot show these: TCG has no residency MSR, no Intel model, no
# Zen, and refuses every MWAIT hint.
#   sh tools/kmod-hw-check.sh [-b IDLELAB] [-c CPU] [-n SAMPLES] [-k]
# -b the idlelab binary (default build/idlelab, then idlelab on PATH);
# -c the measured CPU (default 1; never CPU 0, the housekeeping CPU);
# -n samples per run (default 200); -k keep the scratch database.
# Needs root and both modules loaded (insmod kmod/cstate/idlelab_cstate.ko
# kmod/ipi/idlelab_ipi.ko, or DKMS): it loads nothing itself, so that a
# shared machine never gets a module its operator did not choose.
# It runs, each into a scratch database, and prints one summary line each:
#   - cstate_wake with HLT, with poll, and with MWAIT for hint 0 and every
#     hint the CPU's cpuidle states name ("MWAIT 0x20"): each either runs
#     or is unsupported with the module's reason (14 hint not in CPUID.5,
#     18-20 the kernel's idle policy, 17 Xen PV, ...);
#   - the vendor/model MSR gate: hw_state and two residency attributes,
#     which on AMD must read "unsupported" with the reason, never a number
#     taken from an Intel MSR;
#   - the no-op threshold calibration: a CPUID round trip in cycles and
#     the threshold derived from it, and whether any sample fell under it
#     (mwait_noop, wbinvd_noop), from a WBINVD sweep as well.
# Exit status: 0 all runs stored (ok or unsupported with a reason), 1 a
# run failed, 3 refused here (not root, no module, no sqlite3).
set -u
bin= cpu=1 n=200 keep=0
while getopts b:c:n:k o; do
	case $o in
	b) bin=$OPTARG ;;
	c) cpu=$OPTARG ;;
	n) n=$OPTARG ;;
	k) keep=1 ;;
	*) echo "usage: $0 [-b IDLELAB] [-c CPU] [-n SAMPLES] [-k]" >&2
	   exit 2 ;;
	esac
done
refuse() {
	echo "kmod-hw-check: $*" >&2
	exit 3
}
[ -z "$bin" ] && { [ -x build/idlelab ] && bin=build/idlelab || bin=idlelab; }
command -v "$bin" >/dev/null 2>&1 || refuse "no idlelab binary ($bin): make, or -b"
command -v sqlite3 >/dev/null 2>&1 || refuse "no sqlite3 on PATH"
[ "$(id -u)" = 0 ] || refuse "needs root (the modules' devices are root-only)"
for d in idlelab_cstate idlelab_ipi; do
	[ -c "/dev/$d" ] || refuse "/dev/$d missing: load the module first (kmod/README.md, Loading on a shared machine)"
done
[ "$cpu" != 0 ] || refuse "CPU 0 is the housekeeping CPU: pick another with -c"
[ -d "/sys/devices/system/cpu/cpu$cpu" ] || refuse "no CPU $cpu"

tmp=$(mktemp -d) || exit 1
db=$tmp/hw-check.db
[ "$keep" = 1 ] || trap 'rm -rf "$tmp"' EXIT
bad=0

# The vendor, family and model the module's gate decides on.
ident=$(awk -F': ' '/^vendor_id/ { v = $2 } /^cpu family/ { f = $2 }
	/^model[ \t]*:/ { m = $2 } /^flags/ { h = ($2 ~ /hypervisor/) }
	END { printf "%s family %s model %s%s", v, f, m,
	      h ? " (hypervisor)" : ""; exit }' /proc/cpuinfo)
echo "machine: $ident, kernel $(uname -r), measured CPU $cpu"

# attr NAME: one attribute of the last run.
attr() {
	sqlite3 -batch -noheader "$db" "SELECT value FROM run_attrs WHERE
		run_uuid = (SELECT uuid FROM runs ORDER BY rowid DESC LIMIT 1)
		AND key = '$1'"
}

# run LABEL BENCH ARGS...: one run, then its status line.
run() {
	label=$1
	shift
	"$bin" bench "$@" --db "$db" --quiet 2>>"$tmp/stderr"
	st=$(sqlite3 -batch -noheader -separator ' ' "$db" \
		"SELECT status, coalesce(status_reason, '') FROM runs
		 ORDER BY rowid DESC LIMIT 1")
	case $st in
	ok*|unsupported*) ;;
	*) bad=1 ;;
	esac
	printf '%-22s %s\n' "$label" "${st:-no run stored}"
}

run hlt cstate_wake --cpus "$cpu" --param method=hlt --param samples="$n"
echo "  gate:        hw_state $(attr hw_state)"
echo "               core C6 $(attr res_core_c6_pct); pkg C2 $(attr res_pkg_c2_pct)"
echo "  calibration: CPUID round trip $(attr cpuid_roundtrip_cycles) cycles, no-op threshold $(attr noop_threshold_cycles) cycles, under_hypervisor $(attr under_hypervisor)"
run poll cstate_wake --cpus "$cpu" --param method=poll --param samples="$n"

# MWAIT: hint 0, then each hint the CPU's cpuidle states name.
hints=0
for d in /sys/devices/system/cpu/cpu"$cpu"/cpuidle/state*/desc; do
	[ -r "$d" ] || continue
	h=$(sed -n 's/.*MWAIT 0x\([0-9a-fA-F]\{1,2\}\).*/\1/p' "$d")
	[ -n "$h" ] && hints="$hints $((0x$h))"
done
for h in $(printf '%s\n' $hints | sort -un); do
	run "mwait hint $(printf '0x%02x' "$h")" cstate_wake --cpus "$cpu" \
		--param method=mwait --param mwait_hint="$h" \
		--param samples="$n"
	echo "  no-op:       $(attr mwait_noop) samples under the threshold"
done

run "wbinvd sweep" wbinvd --cpus "$cpu" --param mode=sweep \
	--param footprints=0,1048576 --param reps=20
echo "  calibration: no-op threshold $(attr noop_threshold_cycles) cycles, $(attr wbinvd_noop) WBINVDs under it"

[ -s "$tmp/stderr" ] && sed 's/^/stderr: /' "$tmp/stderr" | head -5
[ "$keep" = 1 ] && echo "database kept: $db"
exit "$bad"
