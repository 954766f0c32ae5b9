#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The guest rig's step frame (tests/vm/guest-steps.sh) on the host, with
# files standing in for sysrq-trigger, kmsg and printk, under busybox's sh
# as in the guest (else sh): a step past its limit is reported as timed
# out naming it, gets the task and lock dumps (sysrq t, l) with every
# console level on, is killed with its children, the steps after it are
# skipped; every step prints a timestamped start and end line; and the
# host's assertion (vm_assert_steps, tests/vm/asserts.sh) fails naming the
# step, and passes on a guest whose steps all ended.
. tests/lib.sh
. tests/vm/asserts.sh

SH=${STEP_SH:-sh}
[ -z "${STEP_SH:-}" ] && command -v busybox >/dev/null && SH="busybox sh"
diag "shell: $SH"
# guest NAME STEPS...: a fake guest running the frame, into $T_TMP/NAME.
guest() {
	d=$T_TMP/$1
	shift
	mkdir -p "$d"
	{
		echo "R=$d/results.jsonl"
		echo 'jl() { echo "$*" >> "$R"; }'
		echo "finish() { echo finish >> $d/finish; }"
		echo "STEP_SYSRQ=$d/sysrq STEP_KMSG=$d/kmsg STEP_PRINTK=$d/printk"
		echo "TIMED_OUT=$d/timed-out"
		echo ". tests/vm/guest-steps.sh"
		echo 'quick() { echo hi > /dev/null; return 3; }'
		# The step's own child must die with it: a unique sleep.
		echo 'hang() { sleep 387.5; }'
		for s in "$@"; do echo "step $s"; done
	} > "$d/init.sh"
	$SH "$d/init.sh" > "$d/serial.log" 2>&1
}

t0=$(date +%s)
guest hung "quick 5 quick" "hang 2 hang" "after 5 quick"
D=$T_TMP/hung
R=$D/results.jsonl
check "the quick step ended in time with its exit status" \
	grep -q '"op":"step","name":"quick","rc":3,"s":[0-9.]*,"limit":5,"timeout":0}' "$R"
check "the hung step is reported as timed out at its limit" \
	grep -q '"op":"step","name":"hang",.*"limit":2,"timeout":1}' "$R"
check "the steps after it are skipped" \
	grep -q '"op":"step","name":"after","skipped":1}' "$R"
check "the frame returned within seconds of the limit ($(($(date +%s) - t0)) s)" \
	[ $(($(date +%s) - t0)) -lt 30 ]
check "sysrq t and l were dumped, in that order" \
	[ "$(tr '\n' ' ' < "$D/sysrq")" = "t l " ]
check "every console level on before the dumps" [ "$(cat "$D/printk")" = 8 ]
check "the kernel log names the step" \
	grep -q 'idlelab-rig: step hang timed out after 2 s' "$D/kmsg"
check "the hung step's child was killed" sh -c '! pgrep -f "sleep 38[7].5"'
check "timestamped start and end lines on the console" \
	grep -q '^IDLELAB-STEP [0-9][0-9]:[0-9][0-9]:[0-9][0-9] up=[0-9.]* start quick (limit 5 s)$' "$D/serial.log"
check "the end line has the exit status and duration" \
	grep -q '^IDLELAB-STEP .* end quick rc=3 [0-9.]* s$' "$D/serial.log"
check "the console says which step timed out" \
	grep -q '^IDLELAB-STEP .* TIMEOUT hang after 2 s' "$D/serial.log"
check "a killable step does not end the guest from the watchdog" \
	[ ! -e "$D/finish" ]
(vm_assert_steps "$D" fake) > "$T_TMP/assert.out"
check "the host's assertion fails naming the step" \
	grep -q '^not ok .* fake: no guest step timed out: hang (limit 2 s)' "$T_TMP/assert.out"

guest fine "one 5 quick" "two 5 quick"
(vm_assert_steps "$T_TMP/fine" fine) > "$T_TMP/assert.out"
check "the host's assertion passes when every step ended" \
	sh -c "! grep -q '^not ok' '$T_TMP/assert.out' && grep -q 'every started step ended (2 steps)' '$T_TMP/assert.out'"
sed 's/^/#   /' "$T_TMP/assert.out" | grep -v '^#   #'

# A panic ends QEMU at once (panic=-1 -no-reboot): the serial log of the
# 20-vCPU guest that hit an int3 left by a static-key flip (CI, 2026-12)
# must be named as the rig's text-patching hazard, with the symbol.
cp -r "$T_TMP/fine" "$T_TMP/panic"
cat >> "$T_TMP/panic/serial.log" <<'EOF2'
IDLELAB-STEP 01:57:10 up=19.37 start client (limit 400 s)
[   20.854164] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[   20.856391] CPU: 11 UID: 0 PID: 336 Comm: init Tainted: G           OE      6.12.95+deb12-amd64 #1  Debian 6.12.95-1~bpo12+1
[   20.857247] RIP: 0010:do_user_addr_fault+0xcf/0x670
[   20.857786] Code: fb 0f 1f 44 00 00 e9 <b5> 01 00 00 45 31 e4
[   20.865614] Kernel panic - not syncing: Fatal exception in interrupt
EOF2
(vm_assert_steps "$T_TMP/panic" panic) > "$T_TMP/assert.out"
check "a guest's Oops: int3 is named as the text-patching hazard, with its symbol" \
	grep -q '^not ok .* panic: the guest kernel did not panic or oops: Oops: int3 at do_user_addr_fault+0xcf/0x670: QEMU TCG ran the int3 of a live text patch of do_user_addr_fault' "$T_TMP/assert.out"
check "and the step it stopped in is named" \
	grep -q "^not ok .* panic: the guest stopped inside step 'client'" "$T_TMP/assert.out"
printf '[    3.1] Kernel panic - not syncing: VFS: Unable to mount root fs\n' \
	>> "$T_TMP/fine/serial.log"
(vm_assert_steps "$T_TMP/fine" other) > "$T_TMP/assert.out"
check "another panic is quoted as the kernel printed it" \
	grep -q '^not ok .* other: the guest kernel did not panic or oops: Kernel panic - not syncing: VFS: Unable to mount root fs$' "$T_TMP/assert.out"
t_done
