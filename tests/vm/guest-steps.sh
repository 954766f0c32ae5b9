# SPDX-License-Identifier: GPL-2.0-only
# The step frame of the guest rig, sourced by guest-init.sh (which defines
# jl, the results line writer, and finish, the end of the guest):
#   step NAME LIMIT CMD [ARG...]
# runs CMD (a command or a shell function) as one step: a timestamped
# IDLELAB-STEP line on the serial console at its start and its end, and
# one {"op":"step","name":...,"rc":...,"s":...,"limit":...,"timeout":0|1}
# line in the results.  Past LIMIT seconds the step's watchdog dumps the
# kernel's task states and held locks into the log (sysrq t and l, with
# every console level on), kills the step and its children, and every
# later step is skipped ({"skipped":1}), so the guest goes straight to its
# end and the host names the step that hung (tests/vm/asserts.sh).  A step
# stuck in the kernel beyond SIGKILL is left, and the watchdog ends the
# guest itself (finish).
#
# The watchdog sleeps; the step never waits for it.  Under Bochs a guest
# `sleep` can stall for minutes, so there a limit may fire late, never
# early, and the host's own watchdog (run-bochs.sh) still bounds the run.
#
# The kernel interfaces are variables so that tests/integration/
# test_guest_steps.sh can run this frame on the host with files instead.
: "${STEP_SYSRQ:=/proc/sysrq-trigger}"
: "${STEP_KMSG:=/dev/kmsg}"
: "${STEP_PRINTK:=/proc/sys/kernel/printk}"
: "${TIMED_OUT:=/tmp/idlelab-step-timed-out}"

# Seconds since boot, and the guest's wall clock (QEMU's RTC is the host's).
now() { cut -d' ' -f1 /proc/uptime; }
say() { echo "IDLELAB-STEP $(date -u +%H:%M:%S) up=$(now) $*"; }

# kill_tree PID: stop PID, then kill its descendants and it (SIGKILL).
kill_tree() {
	kill -STOP "$1" 2>/dev/null
	for s in /proc/[0-9]*/stat; do
		# pid (comm) state ppid ...: our commands have no blank in comm.
		read -r p _ _ pp _ < "$s" 2>/dev/null || continue
		[ "$pp" = "$1" ] && kill_tree "$p"
	done
	kill -KILL "$1" 2>/dev/null
}

# step_watch NAME LIMIT PID: the limit of one step (run in the background).
step_watch() {
	sleep "$2"
	[ -d "/proc/$3" ] || return 0
	echo "$1 $2" > "$TIMED_OUT"
	# The kernel's side first: printk reaches the serial log by polling
	# the UART, while a process's console write waits for the UART's
	# interrupt, which a wedged CPU may be the one to take (seen in the
	# x2APIC guests: the step's own TIMEOUT line never came out).
	echo "idlelab-rig: step $1 timed out after $2 s" > "$STEP_KMSG"
	# Every level to the console, so the dumps reach the serial log
	# even if dmesg.txt never gets written.
	echo 8 > "$STEP_PRINTK"
	echo t >> "$STEP_SYSRQ"
	echo l >> "$STEP_SYSRQ"
	say "TIMEOUT $1 after $2 s: dumped task states (sysrq t) and locks (sysrq l)"
	kill_tree "$3"
	sleep 10
	# Still there: stuck in the kernel, unkillable.  End the guest from
	# here; the main shell stays blocked waiting for it.
	if [ -d "/proc/$3" ]; then
		say "step $1 is unkillable; ending the guest"
		finish
	fi
}

# The debug kernel (tests/vm/debug-kernel.sh: KASAN, lockdep) runs every
# step several times slower: each fork alone made the _CST guest's
# cst_states, 64 cats of sysfs files, take 25 s in one run and 42 s, past
# its 30 s limit, in the next.  Its limits are 4 times the others'.
case $(uname -r) in
*-idlelab-debug) STEP_SCALE=4 ;;
*) STEP_SCALE=1 ;;
esac

# step NAME LIMIT CMD [ARG...]: run one step (see the top of this file).
step() {
	name=$1 limit=$(($2 * STEP_SCALE))
	shift 2
	if [ -e "$TIMED_OUT" ]; then
		jl "{\"op\":\"step\",\"name\":\"$name\",\"skipped\":1}"
		return 1
	fi
	say "start $name (limit $limit s)"
	t0=$(now)
	"$@" &
	spid=$!
	step_watch "$name" "$limit" "$spid" &
	wpid=$!
	wait "$spid"
	rc=$?
	dt=$(awk "BEGIN { printf \"%.1f\", $(now) - $t0 }")
	if [ -e "$TIMED_OUT" ]; then
		say "end $name: TIMED OUT after $dt s"
		jl "{\"op\":\"step\",\"name\":\"$name\",\"rc\":$rc,\"s\":$dt,\"limit\":$limit,\"timeout\":1}"
		return 1
	fi
	kill "$wpid" 2>/dev/null
	say "end $name rc=$rc $dt s"
	jl "{\"op\":\"step\",\"name\":\"$name\",\"rc\":$rc,\"s\":$dt,\"limit\":$limit,\"timeout\":0}"
	return 0
}
