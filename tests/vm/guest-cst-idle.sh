# SPDX-License-Identifier: GPL-2.0-only
# The _CST guest's user-space idle steps (issue 24), sourced by
# guest-init.sh in the cst profile: the idle-state map and the advisor on
# a real cpuidle driver (acpi_idle).  Asserted by
# tests/vm/cst-asserts-idle.sh.
#
# No --causes here: enabling a tracepoint patches kernel text, which the
# rig forbids while vCPUs are busy (tests/vm/README.md), so the entered
# state comes from the per-state usage counters alone.

# The map: idle times spanning the SSDT's states (C1 1 us, C2 20 us, C3
# 80 us declared latency), both wake sources, a fixed visiting order.
# Under TCG most samples are ambiguous (the target idles more than once),
# so the timer sweep takes more samples: advise --verify below reads it,
# and its walk needs POLL's samples, which the IPI wake rarely gives.
CST_IDLE_US=1,5,20,50,100,200,500,1000,5000
step cst_sweep_timer 240 bench cst_sweep_timer idle_sweep --cpus pairs:0-1 \
	--param wake=timer --param samples=40 --param idle_us=$CST_IDLE_US \
	--param seed=24
step cst_sweep_ipi 240 bench cst_sweep_ipi idle_sweep --cpus pairs:0-1 \
	--param wake=ipi --param samples=30 --param idle_us=$CST_IDLE_US \
	--param seed=24

# cst_disable WHEN: every CPU's cpuidle disable files (all that envctl's
# cpuidle_only writes) and whether the restore journal exists, as one
# results line: the host compares the lines before and after --verify.
CST_JOURNAL=$IDLELAB_STATE_DIR/restore-journal.json
cst_disable() {
	v=
	for f in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/disable; do
		[ -e "$f" ] || continue
		c=${f#/sys/devices/system/cpu/cpu}
		s=${f#*/state}
		v="$v${v:+ }${c%%/*}.${s%%/*}=$(cat "$f")"
	done
	j=0
	[ -e "$CST_JOURNAL" ] && j=1
	jl "{\"op\":\"cpuidle_disable\",\"when\":\"$1\",\"values\":\"$v\",\"journal\":$j}"
}

# cst_watch FILE: CPU 1's disable files, one comma-separated line every
# 0.1 s, so the host sees what was applied while --verify ran.
cst_watch() {
	while :; do
		cat /sys/devices/system/cpu/cpu1/cpuidle/state*/disable |
			paste -sd, - >> "$1"
		sleep 0.1
	done
}

# cst_advise NAME WAKE ARGS...: advise on the guest's map, JSON into
# $OUT/NAME.json, its exit status as one results line.  The budget is
# generous (TCG's wakes take milliseconds) and its confidence low, so
# that the few samples each state gets here decide it: p50 at 60 % needs
# two samples a state.
CST_BUDGET='p50<=10000ms'
cst_advise() {
	n=$1 w=$2
	shift 2
	/bin/idlelab advise --budget "$CST_BUDGET" --confidence 0.6 \
		--wake "$w" --db "$DB" --format json "$@" \
		> "$OUT/$n.json" 2>> "$OUT/idlelab.stderr"
	jl "{\"op\":\"cst_advise\",\"name\":\"$n\",\"rc\":$?}"
}

# cst_verify NAME ARGS...: advise --verify on the timer map between two
# snapshots of the disable files, with the watcher running.
cst_verify() {
	n=$1
	shift
	cst_disable "before_$n"
	: > "$OUT/$n.watch"
	cst_watch "$OUT/$n.watch" &
	wp=$!
	cst_advise "$n" timer --verify --blocks 1 "$@"
	kill "$wp"
	wait "$wp" 2>/dev/null
	cst_disable "after_$n"
}

# The advice for an IPI-wake budget, whatever it is on this kernel.
step cst_advise_ipi 60 cst_advise cst_advise_ipi ipi
# Applied and confirmed: 30 samples at each of two idle times per arm.
step cst_verify 300 cst_verify cst_verify --seed 24 --samples 30 \
	--idle-us 20,1000
# The same advice, confirmed with one sample per arm: too few to bound
# p50, so the budget is not shown met and advise exits 5.  Its own seed:
# the campaigns are named by it, and a name already run would resume.
step cst_verify_few 300 cst_verify cst_verify_few --seed 25 --samples 1 \
	--idle-us 20
