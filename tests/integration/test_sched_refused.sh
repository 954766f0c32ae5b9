#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A benchmark asked for SCHED_FIFO where it is not permitted records the
# refusal and still runs: futex_wake with priority=10 as the unprivileged
# user nobody (setpriv, all capabilities dropped) stores an ok run whose
# sched_policy, for the waker's and the sleeper's CPU, names the refusal.
. tests/lib.sh

D=$T_TMP/nobody
mkdir "$D" && chmod 0777 "$D" "$T_TMP"
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$IDLELAB" bench futex_wake --db "$D/f.db" --cpus pairs:0-1 --events none \
	--param samples=20 --param idle_us=100 --param priority=10 >"$T_TMP/out" 2>"$T_TMP/err"
check "futex_wake runs unprivileged" [ $? -eq 0 ]
check "the run is ok" [ "$(sqlite3 "$D/f.db" "SELECT status FROM runs")" = ok ]
check "both CPUs record the refusal" [ "$(sqlite3 "$D/f.db" "SELECT count(DISTINCT cpu) FROM run_attrs WHERE key = 'sched_policy' AND value LIKE 'SCHED_OTHER 0 (SCHED_FIFO 10 refused: %'")" -eq 2 ]
t_done
