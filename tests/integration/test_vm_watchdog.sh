#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Bochs rig's watchdog and pty drain (tests/vm/vmlib.sh), on stand-ins
# that block the way Bochs did: ptywriter opens a pty as Bochs's term
# display does and writes to it.  Without a reader it must be seen asleep
# in a write to a terminal, making no CPU progress; vm_drain_pty must let
# it finish; a sleeper and a writer stuck on a full pipe must not be
# mistaken for it.  Needs no emulator, so it runs in every test run.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/vm/vmlib.sh
W=$BUILD/tests/ptywriter
if [ ! -x "$W" ]; then
	not_ok "ptywriter helper built ($W missing: make tests)"
	t_done
	exit 1
fi

# Fifty times any pty buffer: it cannot finish unless someone reads.
"$W" 4000000 2>"$T_TMP/w.log" &
wp=$!
sleep 2
check "an unread pty writer is still running" kill -0 "$wp"
if out=$(vm_tty_blocked "$wp"); then
	ok "watchdog sees it asleep in a write to a terminal"
	diag "$out"
else
	not_ok "watchdog sees it asleep in a write to a terminal"
fi
case $out in
*/dev/ptmx*) ok "watchdog names the terminal (/dev/ptmx)" ;;
*) not_ok "watchdog names the terminal (/dev/ptmx): '$out'" ;;
esac
c1=$(vm_cpu_ticks "$wp")
sleep 1
c2=$(vm_cpu_ticks "$wp")
check "a blocked writer makes no CPU progress ($c1 -> $c2 ticks)" \
	[ -n "$c1" -a "$c1" = "$c2" ]

d=$(vm_drain_pty "$T_TMP/w.log")
check "the drain starts on the pty Bochs names" [ -n "$d" ]
n=0
while kill -0 "$wp" 2>/dev/null && [ "$n" -lt 20 ]; do
	sleep 0.5
	n=$((n + 1))
done
if kill -0 "$wp" 2>/dev/null; then
	not_ok "drained, the writer finishes"
	kill "$wp"
else
	wait "$wp"
	check "drained, the writer finishes and exits 0" [ $? = 0 ]
fi
n=0
while [ -n "$d" ] && kill -0 "$d" 2>/dev/null && [ "$n" -lt 10 ]; do
	sleep 0.5
	n=$((n + 1))
done
check "the drain ends when the writer closes the pty" \
	sh -c "! kill -0 $d 2>/dev/null"

echo nothing here > "$T_TMP/none.log"
check "no drain where Bochs has named no pty" \
	[ -z "$(vm_drain_pty "$T_TMP/none.log")" ]

sleep 30 &
sp=$!
sleep 0.5
check "a sleeper is not taken for a blocked writer" \
	sh -c ". tests/vm/vmlib.sh; ! vm_tty_blocked $sp"
kill "$sp"
# A writer stuck on a full pipe that nobody reads is not a terminal write.
mkfifo "$T_TMP/fifo"
sleep 30 < "$T_TMP/fifo" &
rp=$!
yes > "$T_TMP/fifo" &
yp=$!
sleep 1
check "a writer stuck on a pipe is not taken for a terminal write" \
	sh -c ". tests/vm/vmlib.sh; ! vm_tty_blocked $yp"
kill "$yp" "$rp" 2>/dev/null
wait 2>/dev/null
t_done
