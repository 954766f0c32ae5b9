#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The reading commands' progress line (issue 23, item 6; harness/
# progress.c): drawn on a terminal stderr only, after the delay
# (IDLELAB_PROGRESS_AFTER_MS, 0 here so a small fleet shows it), never
# over a table printing to the same terminal, cleared at the end, and
# never changing what the command writes.  script(1) (bsdutils) gives the
# command a terminal and records what it drew.
. tests/lib.sh

if ! command -v script >/dev/null; then
	echo "ok 1 # SKIP no script(1) (bsdutils) to give the command a terminal"
	echo "1..1"
	exit 0
fi
GEN=$PWD/$BUILD/tools/fleet-gen
"$GEN" --machines 3 --campaigns 2 --runs 20 "$T_TMP/f.db" >/dev/null
check "a small fleet" [ -s "$T_TMP/f.db" ]

# on_tty LOG CMD: CMD with a terminal for stdin, stdout and stderr;
# what reached the terminal into LOG (script's header line dropped).
on_tty() {
	log=$1
	shift
	script -qec "$*" "$log.raw" >/dev/null 2>&1 </dev/null
	sed '1d;$d' "$log.raw" > "$log"
}

on_tty "$T_TMP/rep.tty" "IDLELAB_PROGRESS_AFTER_MS=0 '$IDLELAB' report --db '$T_TMP/f.db' >'$T_TMP/rep-tty.md'"
check "report into a file, stderr a terminal: the line is drawn" \
	grep -q 'idlelab report: [0-9]* s, [0-9]* rows read' "$T_TMP/rep.tty"
check "it is cleared at the end: the last thing drawn is CR, ESC [K" \
	python3 -c "
import sys
t = open(sys.argv[1], 'rb').read().rstrip(b'\r\n')
sys.exit(0 if t.endswith(b'\r\x1b[K') else 1)" "$T_TMP/rep.tty"
IDLELAB_PROGRESS_AFTER_MS=0 "$IDLELAB" report --db "$T_TMP/f.db" \
	>"$T_TMP/rep-pipe.md" 2>"$T_TMP/rep-pipe.err"
check "stderr not a terminal: no line" \
	sh -c "! grep -q 'idlelab report:' '$T_TMP/rep-pipe.err'"
check "the report is the same bytes either way" \
	cmp "$T_TMP/rep-tty.md" "$T_TMP/rep-pipe.md"

on_tty "$T_TMP/late.tty" "IDLELAB_PROGRESS_AFTER_MS=600000 '$IDLELAB' report --db '$T_TMP/f.db' >/dev/null"
check "not before the delay" sh -c "! grep -q 'idlelab report:' '$T_TMP/late.tty'"

on_tty "$T_TMP/term.tty" "IDLELAB_PROGRESS_AFTER_MS=0 '$IDLELAB' report --db '$T_TMP/f.db'"
check "a table printing to the same terminal gets no line over it" \
	sh -c "! grep -q 'idlelab report:' '$T_TMP/term.tty'"
check "... and the table is there" grep -q '^| ' "$T_TMP/term.tty"

# merge prints a line per input to the terminal: the progress line is
# cleared first, so each result line starts a line of its own.
"$GEN" --machines 2 --campaigns 1 --runs 10 --seed 5 "$T_TMP/g.db" >/dev/null
on_tty "$T_TMP/merge.tty" "IDLELAB_PROGRESS_AFTER_MS=0 '$IDLELAB' merge '$T_TMP/m.db' '$T_TMP/f.db' '$T_TMP/g.db'"
check "merge draws its line" grep -q 'idlelab merge: [0-9]* s' "$T_TMP/merge.tty"
check "each input's result line is whole, after the line was cleared" \
	python3 -c "
import re, sys
t = open(sys.argv[1], 'rb').read().decode()
# What a terminal shows: each CR ESC[K wipes the line drawn before it.
shown = []
for line in t.split('\n'):
    shown.append(line.split('\r\x1b[K')[-1].rstrip('\r'))
hits = [l for l in shown if re.match(r'.*/[fg]\.db: \d+ new runs, ', l)]
sys.exit(0 if len(hits) == 2 and all(not l.startswith('idlelab') for l in hits) else 1)" \
	"$T_TMP/merge.tty"
t_done
