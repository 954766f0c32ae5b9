#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the rig's initramfs (tests/vm/run-qemu.sh, run-bochs.sh): mount
# the pseudo file systems, reach the host (a 9p share under QEMU, else the
# serial console), then run the guest's steps: load the idlelab modules,
# run kmod-client (ABI, the profile's requests, then the bad-input suite),
# the real idlelab (kmod benchmarks, a small campaign, the seed campaigns)
# into guest.db, check that the modules refuse to unload while open and
# unload cleanly when closed; save dmesg, power off.  Every result is one
# JSON line or the database; the host asserts.
#
# Steps.  Each piece of work is one `step NAME LIMIT CMD [ARG...]` line
# (CMD may be a shell function): it prints a timestamped IDLELAB-STEP line
# to the serial console at its start and its end, runs under its own limit
# of LIMIT seconds, and leaves one {"op":"step",...} line in the results.
# A step past its limit gets the kernel's task states and held locks
# dumped into the log (sysrq t and l), is killed with its children, and
# the guest skips the steps left and goes straight to the end, so the
# host test names the step that hung (tests/vm/asserts.sh).  `ib NAME
# BENCH ARGS...` is a step running `idlelab bench`.  To add a step, add
# such a line to the section of the profile it belongs to, below.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "IDLELAB-GUEST-UP"

SHARE=
# 9p as modules (Debian's kernels), or built in (the debug kernel of
# tests/vm/debug-kernel.sh, whose modules.order is empty).
if [ -e /lib/modules/9p.ko ] || grep -qw 9p /proc/filesystems; then
	# In dependency order, as the host's vm_add_module wrote them.
	while read -r m; do
		insmod /lib/modules/$m.ko || echo "insmod $m failed"
	done < /lib/modules/modules.order
	mkdir -p /mnt/share
	if mount -t 9p -o trans=virtio,version=9p2000.L share /mnt/share; then
		SHARE=/mnt/share
	fi
fi
OUT=${SHARE:-/tmp}
R=$OUT/results.jsonl
: > "$R"

jl() { echo "$*" >> "$R"; }

# The step frame (step, ib below): tests/vm/guest-steps.sh.
. /etc/idlelab/guest-steps.sh

# ---- what the steps run ----------------------------------------------------
# The cpuidle driver and every CPU's states as the kernel parsed them
# (the _CST guest's, or none elsewhere), one results line each.
cst_states() {
	jl "{\"op\":\"cpuidle_driver\",\"driver\":\"$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)\"}"
	for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*; do
		[ -d "$d" ] || continue
		c=${d#/sys/devices/system/cpu/cpu}
		jl "{\"op\":\"cpuidle_state\",\"cpu\":${c%%/*},\"state\":${d##*state},\"name\":\"$(cat "$d/name")\",\"desc\":\"$(cat "$d/desc")\",\"latency\":$(cat "$d/latency"),\"residency\":$(cat "$d/residency")}"
	done
}
load_modules() {
	# A soft lockup then prints every CPU's stack, and warnings with
	# their registers reach the serial log (`quiet` shows only errors):
	# a wedged guest is then diagnosed from the host's copy.
	echo 1 > /proc/sys/kernel/softlockup_all_cpu_backtrace
	echo 5 > /proc/sys/kernel/printk
	# The host's dmesg check starts at this line.
	echo "idlelab-rig: loading the idlelab modules" > /dev/kmsg
	for m in idlelab_cstate idlelab_ipi; do
		insmod /lib/modules/$m.ko
		rc=$?
		# Which build was loaded (DKMS or make -C kmod): its hash.
		sum=$(sha256sum /lib/modules/$m.ko | cut -d' ' -f1)
		jl "{\"op\":\"insmod\",\"module\":\"$m\",\"rc\":$rc,\"sha256\":\"$sum\"}"
	done
	# The kernel's and the modules' code symbols, for naming the RIPs
	# of a hang dump (tests/vm/qemu-hang-dump.sh): written now, since
	# a wedged guest writes nothing.
	[ -n "$SHARE" ] && grep ' [tT] ' /proc/kallsyms | gzip > "$OUT/kallsyms.gz"
}

client() {
	# shellcheck disable=SC2086
	/bin/kmod-client "$@" >> "$R" 2>> "$OUT/client.stderr"
	jl "{\"op\":\"client_exit\",\"mode\":\"${1:-all}\",\"rc\":$?}"
}

DB=/tmp/guest.db
export IDLELAB_STATE_DIR=/tmp/idlelab-state
bench() {
	n=$1
	shift
	/bin/idlelab bench "$@" --db "$DB" > /dev/null 2>> "$OUT/idlelab.stderr"
	jl "{\"op\":\"idlelab\",\"name\":\"$n\",\"rc\":$?}"
}
# ib NAME BENCH ARGS...: `idlelab bench` as a step of IB_LIMIT seconds.
IB_LIMIT=120
ib() { step "$1" "$IB_LIMIT" bench "$@"; }

# advise: the idle-state advice on the guest's own sweep, as JSON.
advise() {
	/bin/idlelab advise --budget 'p99<=1ms' --wake ipi --db "$DB" \
		--format json > "$OUT/advise.json" 2>> "$OUT/idlelab.stderr"
	jl "{\"op\":\"advise\",\"rc\":$?}"
}

campaign() {
	/bin/idlelab run "/etc/idlelab/$1.yaml" --db "$DB" > /dev/null \
		2>> "$OUT/idlelab.stderr"
	jl "{\"op\":\"idlelab_run\",\"rc\":$?}"
}

# seed NAME: a seed campaign of data/campaigns, shrunk by --scale (the
# guest's timings mean nothing; every path and count is what is checked).
# No emulator has cpufreq or a cpuidle driver, so the controls that do not
# exist are left out and the runs measured anyway, each run keeping the
# reason (envctl.not_applied).
SEED_SCALE=0.001
seed() {
	/bin/idlelab run "/etc/idlelab/$1.yaml" --db "$DB" \
		--scale "$SEED_SCALE" --env-missing run \
		> "$OUT/$1.out" 2>> "$OUT/idlelab.stderr"
	jl "{\"op\":\"seed\",\"name\":\"$1\",\"rc\":$?}"
}

# resched_reenter: cstate_wake re-entering idle on CPU 1, 40 samples of 2 ms,
# while a sleeper bound to CPU 1 wakes every 500 us: each of its wakes is
# a wake not ours that leaves a task waiting for the CPU, which must end
# the re-entries (need_resched(): kmod/cstate/wake.c), each such stop
# counted in reenter_resched_stops.
# qos_policy: CPU 1's resume-latency PM QoS set to "n/a" (no idle state
# allowed): a HLT run there is refused with the reason, and the same run
# with policy_override=1 runs and says so (issue 21); then lifted again.
qos_policy() {
	q=/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us
	if ! echo n/a > "$q"; then
		jl "{\"op\":\"qos_policy\",\"skip\":\"cannot write $q\"}"
		return
	fi
	bench qos_refused cstate_wake --cpus 1 --param samples=12 \
		--param launch_min_ns=50000
	bench qos_override cstate_wake --cpus 1 --param samples=12 \
		--param launch_min_ns=50000 --param policy_override=1
	echo 0 > "$q"
	jl "{\"op\":\"qos_policy\",\"restored\":\"$(cat "$q")\"}"
}

resched_reenter() {
	taskset -c 1 sh -c 'while :; do usleep 500; done' &
	sp=$!
	bench hlt_reenter_resched cstate_wake --cpus 1 --param samples=40 \
		--param launch_min_ns=2000000 --param reenter=1
	kill "$sp"
}

info() {
	/bin/idlelab info --json > "$OUT/info.json" 2>> "$OUT/idlelab.stderr"
	jl "{\"op\":\"idlelab_info\",\"rc\":$?}"
}

db_check() {
	/bin/idlelab db check --db "$DB" > /dev/null 2>> "$OUT/idlelab.stderr"
	jl "{\"op\":\"idlelab_db_check\",\"rc\":$?}"
}

# Unload while open must be refused; once closed it must succeed.
unload() {
	for m in cstate ipi; do
		exec 3< /dev/idlelab_$m
		rmmod idlelab_$m 2>/dev/null
		rc_open=$?
		exec 3<&-
		rmmod idlelab_$m
		rc_closed=$?
		grep -q "^idlelab_$m " /proc/modules
		still=$((1 - $?))
		jl "{\"op\":\"rmmod\",\"module\":\"idlelab_$m\",\"rc_open\":$rc_open,\"rc_closed\":$rc_closed,\"still_loaded\":$still}"
	done
}

# The end, on every path: dmesg, the end line, the results to the host,
# power off.  Also called by a step's watchdog when the step is unkillable.
finish() {
	[ -n "$SHARE" ] && cp "$DB" "$OUT/guest.db" 2>/dev/null
	if [ -n "$SHARE" ]; then
		dmesg > "$OUT/dmesg.txt"
	else
		# The serial line is slow under Bochs: only the lines the
		# host greps.
		dmesg | grep -E 'Linux version|idlelab-rig|idlelab|BUG|WARN|Oops|Call Trace|lockup|LOCKUP|protection|NMI' \
			> "$OUT/dmesg.txt"
	fi
	jl '{"op":"end"}'
	if [ -z "$SHARE" ]; then
		# No 9p (Bochs): the results travel base64 on the serial
		# console.  Bochs's serial line is far too slow for the whole
		# database: the rows the host asserts on, read from it with
		# sqlite3.
		sqlite3 -csv "$DB" "SELECT r.bench, r.status,
			json_extract(r.params, '\$.method'),
			json_extract(r.params, '\$.irq_mode'),
			json_extract(r.params, '\$.reenter'), a.cpu, a.key, a.value
			FROM runs r JOIN run_attrs a ON a.run_uuid = r.uuid
			WHERE a.key IN ('entry_lead_samples',
				'entry_lead_out_of_bounds', 'entry_lead_min_ns',
				'entry_lead_max_ns', 'intr_before_exit',
				'intr_after_exit', 'early_wakes', 'other_irq_wakes',
				'reentries', 'samples_done', 'late_entries')" \
			> "$OUT/guest-attrs.csv" \
			2>> "$OUT/idlelab.stderr"
		for f in results.jsonl dmesg.txt client.stderr idlelab.stderr \
			 guest-attrs.csv; do
			echo "IDLELAB-BEGIN $f"
			base64 "$OUT/$f"
			echo "IDLELAB-END $f"
		done
	else
		sync
		umount "$SHARE"
	fi
	echo "IDLELAB-GUEST-DONE"
	if [ -z "$SHARE" ]; then
		# poweroff -f drops what still sits in the UART's 4 KiB
		# transmit buffer; "sleep" may stall for minutes under Bochs,
		# so push 6 KiB of padding through instead: once the host sees
		# the marker above, all that came before it is in the serial
		# log.
		i=0
		while [ $i -lt 80 ]; do
			echo "IDLELAB-PAD ..........................................................."
			i=$((i + 1))
		done
	fi
	poweroff -f
}

# ---- live text patching: before anything else runs ------------------------
# Every static-key flip rewrites kernel text on the live machine
# (text_poke_bp: an int3 over the site, an IPI to every CPU, the new
# bytes).  QEMU's multi-threaded TCG gets this wrong now and then when
# other vCPUs are busy: a vCPU goes on running the int3 after the patch
# has ended, and the guest livelocks in exc_int3 or panics ("Oops: int3").
# So the flips the rig causes happen first, while the other vCPUs idle:
# swevent-hold's three, and then the module loads, before any step that
# keeps a CPU busy.  tests/vm/README.md, "Live text patching", has the
# rule and what was tried.

# hold_keys: start swevent-hold (its header says why) and wait, asleep in
# a blocking read of its first line, until its counters are open: no
# process of ours runs on any CPU while its flips happen.
hold_keys() {
	rm -f /tmp/swevent-hold.fifo
	mkfifo /tmp/swevent-hold.fifo || return 1
	/bin/swevent-hold > /tmp/swevent-hold.fifo 2>&1 &
	read -r line < /tmp/swevent-hold.fifo
	jl "$line"
	case $line in *'"held":'*) ;; *) return 1 ;; esac
}

# The guest's hrtimer resolution, for the low-resolution guest's test.
resolution() {
	ns=$(sed -n 's/^ *\.resolution: *\([0-9]*\) nsecs.*/\1/p' /proc/timer_list | head -1)
	jl "{\"op\":\"hrtimer_resolution\",\"ns\":${ns:-null}}"
}

# xen_idle WHEN: Xen's own idle states (xenpm, through /dev/xen/privcmd),
# which dom0's cpuidle cannot see: Xen idles the physical CPUs, dom0 only
# blocks its vCPUs.  Saved whole as xenpm-WHEN.txt, and its exit status as
# a result line.
xen_idle() {
	LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu /bin/xenpm \
		get-cpuidle-states all > "$OUT/xenpm-$1.txt" 2>&1
	jl "{\"op\":\"xenpm\",\"when\":\"$1\",\"rc\":$?}"
}

# The Xen PV dom0 guest (idlelab.client=xen): every raw HLT, MWAIT, ICR and
# WBINVD request must come back refused with its reason, gaps_irqoff tagged
# as event-channel masking, and the user-space benchmarks run.
xen_steps() {
	{ grep . /sys/hypervisor/type /sys/hypervisor/guest_type \
		/sys/hypervisor/version/* 2>&1; } > "$OUT/hypervisor.txt"
	step xen_idle_before 60 xen_idle before
	step bad_input 400 client bad
	w="--param launch_min_ns=50000 --param samples=10"
	ib hlt_timer cstate_wake --cpus 1 $w
	ib mwait_timer cstate_wake --cpus 1 --param method=mwait $w
	ib hlt_ipi cstate_wake --cpus pairs:0-1 --param wake_source=ipi $w
	ib poll_wbinvd cstate_wake --cpus 1 --param method=poll \
		--param wbinvd=1 --param dirty_bytes=65536 $w
	ib poll_timer cstate_wake --cpus 1 --param method=poll $w
	ib wbinvd_sweep wbinvd --cpus 0 --param footprints=0,65536 \
		--param reps=3
	ib wbinvd_blast wbinvd --cpus 0-1 --param mode=blast --param reps=5 \
		--param interval_us=1000 --param dirty_bytes=65536 \
		--param width_us=1000 --param window_us=2000 \
		--param threshold_ns=2000
	ib gaps gaps_irqoff --cpus 1 --param width_us=1000 \
		--param window_us=2000 --param windows=3
	for m in physical logical broadcast kernel; do
		ib "ipi_$m" ipi_storm --cpus all --param mode=$m $T \
			--param rounds=20
	done
	ib timer_wake timer_wake --cpus 1 --param samples=50
	ib futex_wake futex_wake --cpus pairs:0-1 --param samples=50
	ib tsc_gaps tsc_gaps --cpus 1 --param duration_ms=100
	step info 60 info
	step xen_idle_after 60 xen_idle after
}

# ---- the steps -------------------------------------------------------------
# idlelab.client=cstate on the kernel command line: the short Bochs run;
# x2apic: the x2APIC guests; lowres: the guest booted with highres=off,
# which runs the bad-input suite and the refusals that need it.
args=$(sed -n 's/.*idlelab\.client=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
# An emulated CPU can go unscheduled for a long while on a busy host, and a
# storm round then times out for no fault of the module's (seen once at the
# 100-200 ms defaults): the guests wait the longest round the ABI allows.
T="--param timeout_us=1000000"

# The bad order, on request only (idlelab.patch_order=late, for the
# reproduction in tests/vm/repro-text-patch.sh): the modules first, then
# swevent-hold started in the background as the client starts, as the rig
# did until 2026-12, but a second later and flipping the keys 300 times
# before it holds them, so that live patches land while the client keeps
# the vCPUs busy instead of three flips racing its start.
order=$(sed -n 's/.*idlelab\.patch_order=\([a-z]*\).*/\1/p' /proc/cmdline)
[ "$order" != late ] && step hold_keys 60 hold_keys
step load_modules 60 load_modules
# From here on, no step may patch kernel text (tests/vm/README.md).
[ "$order" = late ] && { (sleep 1; exec /bin/swevent-hold flips 300) >> "$R" 2>&1 & }
if [ "$args" = lowres ]; then
	step bad_input 400 client bad
	step resolution 30 resolution
	# An hrtimer wake a tick late by design is refused, with the reason
	# (IDLELAB_UNSUP_LOWRES_TIMER); an IPI wake needs no hrtimer.
	w="--param launch_min_ns=50000 --param samples=10"
	ib hlt_timer_lowres cstate_wake --cpus 1 $w
	ib hlt_ipi_lowres cstate_wake --cpus pairs:0-1 --param wake_source=ipi $w
	step db_check 120 db_check
	step unload 60 unload
	finish
fi
# The _CST guest (idlelab.client=cst, tests/vm/test_cst.sh): its firmware
# declares C1-C3 and acpi_idle is the cpuidle driver.  The modules' entry
# through the parsed _CST states (issue 21) and the idle-state map and
# advice on a real driver (issue 24) each have their own steps file.
if [ "$args" = cst ]; then
	step cst_states 30 cst_states
	. /etc/idlelab/guest-cst-kmod.sh
	. /etc/idlelab/guest-cst-idle.sh
	step db_check 120 db_check
	step unload 60 unload
	finish
fi
if [ "$args" = xen ]; then
	xen_steps
	step db_check 120 db_check
	step unload 60 unload
	finish
fi
# shellcheck disable=SC2086
step client 400 client $args
# The bad-input suite, in every other profile (kmod-client bad).
step bad_input 400 client bad
if [ "$args" = cstate ]; then
	# Bochs: only the IRQ early/late ordering, with re-entry past the
	# emulator's early timer interrupts (kmod/README.md).
	w="--param launch_min_ns=50000 --param samples=20 --param reenter=1"
	ib hlt_early_reenter cstate_wake --cpus 1 $w
	ib mwait_early_reenter cstate_wake --cpus 1 --param method=mwait $w
	ib mwait_late_reenter cstate_wake --cpus 1 --param method=mwait \
		--param irq_mode=late $w
elif [ "$args" = x2apic ]; then
	# The x2APIC guests: the storms through the real idlelab too, so
	# the database records the kernel's APIC driver and the writes.
	for m in physical logical broadcast kernel; do
		ib "ipi_$m" ipi_storm --cpus all --param mode=$m $T \
			--param rounds=20
	done
	# Seed 001 (x2APIC cluster against physical) where it belongs.
	step seed001-ipi-modes 400 seed seed001-ipi-modes
else
	# NMIs injected during kernel-mode storms, which owe none: every
	# CPU must pass each on (kmod-client-nmik.c).  Right after the
	# client's own NMI check, so that the host's injector moves on.
	step nmi_kernel 90 client nmi_kernel
	# CPU 3 offline in the middle of runs on CPUs 1-3, then online
	# again: no text patch (kmod-client-hotplug.c checks the text).
	step hotplug 400 client hotplug
	w="--param launch_min_ns=50000 --param samples=20"
	ib hlt_timer cstate_wake --cpus 1 $w
	ib poll_timer cstate_wake --cpus 1 --param method=poll $w
	ib mwait_timer cstate_wake --cpus 1 --param method=mwait $w
	ib mwait_late cstate_wake --cpus 1 --param method=mwait \
		--param irq_mode=late $w
	ib hlt_ipi cstate_wake --cpus pairs:0-1 --param wake_source=ipi $w
	# No _CST here: the ACPI method is refused (issue 21).
	ib acpi_no_cst cstate_wake --cpus 1 --param method=acpi \
		--param cst_state=2 $w
	step hlt_reenter_resched "$IB_LIMIT" resched_reenter
	step qos_policy "$IB_LIMIT" qos_policy
	ib mwait_ipi cstate_wake --cpus pairs:0-1 --param wake_source=ipi \
		--param method=mwait $w
	ib hlt_wbinvd_random cstate_wake --cpus 1,2 --param wbinvd=1 \
		--param dirty_bytes=65536 --param launch_max_ns=200000 $w
	# inject 32 (cstate.h): each WBINVD of the next run spins the no-op
	# threshold more, so none may be counted a no-op (test_qemu.sh finds
	# the run by its dirty_bytes); cleared after, whatever became of it.
	echo 32 > /sys/module/idlelab_cstate/parameters/inject
	ib hlt_wbinvd_slowed cstate_wake --cpus 1 --param wbinvd=1 \
		--param dirty_bytes=131072 $w
	echo 0 > /sys/module/idlelab_cstate/parameters/inject
	ib wbinvd_sweep wbinvd --cpus 0 --param footprints=0,65536,1048576 \
		--param reps=3
	ib wbnoinvd_sweep wbinvd --cpus 0 --param footprints=0,65536 \
		--param reps=3 --param noinvd=1
	ib wbinvd_blast wbinvd --cpus 0-2 --param mode=blast --param reps=5 \
		--param interval_us=1000 --param dirty_bytes=1048576 \
		--param width_us=1000 --param window_us=2000 \
		--param threshold_ns=2000
	ib gaps gaps_irqoff --cpus 1,3 --param width_us=2000 \
		--param window_us=5000 --param windows=5
	# CPUs named, housekeeping ones included: every other CPU a target.
	for m in physical logical broadcast kernel; do
		ib "ipi_$m" ipi_storm --cpus 0-3 --param mode=$m $T \
			--param rounds=50
	done
	ib ipi_targets ipi_storm --cpus 0-3 --param mode=physical $T \
		--param targets=1,2,3 --param rounds=20
	# --cpus all: CPU 0 and the harness's own CPU left out (issue 21).
	ib ipi_housekeeping ipi_storm --cpus all --param mode=kernel $T \
		--param rounds=10
	ib gaps_housekeeping gaps_irqoff --cpus all --param width_us=1000 \
		--param window_us=2000 --param windows=3
	# A machine without cpuidle (issue 24): the sweep still measures
	# every idle time and says why it names no state; advise answers
	# no_cpuidle.  Neither flips a static key or enables a tracepoint.
	ib idle_sweep idle_sweep --cpus pairs:0-1 --param wake=ipi \
		--param samples=20 --param idle_us=10,100,1000
	step advise 60 advise
	step guest_campaign 300 campaign guest-campaign
	# The other three seeds (seed 001 runs in the x2APIC guests).
	for s in seed000-c3-wbinvd seed002-wake-per-state seed003-c1-irq-early; do
		step "$s" 400 seed "$s"
	done
	step info 60 info
	# A wake run during which the TSC turns unstable (inject 8; the
	# module's view only, the kernel's clocksource is not touched).
	step tsc_unstable 60 client tsc_unstable
fi
step db_check 120 db_check
step unload 60 unload
finish
