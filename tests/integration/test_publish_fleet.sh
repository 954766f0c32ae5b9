#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 25's acceptance, automated: `idlelab publish` of a database merged
# from three machines' own databases.
#   - the machines: the guest databases the VM rigs leave behind
#     ($IDLELAB_VM_OUT/guest.db, build-vm/*/guest.db: tests/vm/run-qemu.sh),
#     at most two, and one made here by a short real `idlelab bench`; when
#     fewer than three are found, tools/fleet-gen makes the missing ones,
#     named "(none)" as the guests are, and the test says which it used;
#   - publish succeeds, and each machine gets its own pseudonym, two
#     "(none)" included;
#   - redaction: no machine UUID or hostname of any input appears in any
#     file of the bundle, the SQLite file included;
#   - datapackage.json and metadata.json validate against schemas/json/
#     (tests/helpers/json-validate.py);
#   - the README's five worked queries run on the bundle's database and
#     answer for all three machines;
#   - merged back, the bundle's database gives the merged input's report,
#     row for row (the Machine column aside: it holds pseudonyms);
#   - the site passes the Chromium checks (tests/helpers/html-check.sh).
. tests/lib.sh
. tests/helpers/html-check.sh

I=$IDLELAB
GEN=$PWD/$BUILD/tools/fleet-gen
q() { sqlite3 -batch -noheader "$1" "$2"; }
export IDLELAB_STATE_DIR=$T_TMP/state
export TMPDIR=$T_TMP/tmp
mkdir -p "$TMPDIR" "$T_TMP/in"

# --- the machines -----------------------------------------------------------
# Guests first: copies, so that nothing here writes beside a rig's output.
n=0
for g in ${IDLELAB_VM_OUT:+"$IDLELAB_VM_OUT/guest.db"} $(find build-vm -maxdepth 3 \
	-name guest.db ! -path '*/share/*' 2>/dev/null | sort); do
	[ -s "$g" ] && [ "$n" -lt 2 ] || continue
	u=$(q "$g" "SELECT group_concat(uuid) FROM machines WHERE is_reference = 0" 2>/dev/null)
	[ -n "$u" ] || continue
	# One rig run twice is one machine, not two.
	grep -qxF "$u" "$T_TMP/guest-uuids" 2>/dev/null && continue
	echo "$u" >>"$T_TMP/guest-uuids"
	n=$((n + 1))
	cp "$g" "$T_TMP/in/guest$n.db"
	diag "machine $n: guest database $g"
done
n=$((n + 1))
t_new_host "$T_TMP/hoststate"
IDLELAB_STATE_DIR=$T_TMP/hoststate IDLELAB_HOSTNAME=fleet-host-$$ "$I" bench tsc_gaps \
	--cpus 0 --param duration_ms=20 --db "$T_TMP/in/host.db" >"$T_TMP/bench.out" 2>&1
check "a real run on this host" [ "$(q "$T_TMP/in/host.db" "SELECT count(*) FROM runs WHERE status = 'ok'")" -ge 1 ]
diag "machine $n: this host, idlelab bench tsc_gaps"
if [ "$n" -lt 3 ]; then
	"$GEN" --machines $((3 - n)) --campaigns 1 --runs 3 --samples 50 \
		--per-machine "$T_TMP/gen" >/dev/null
	for f in "$T_TMP"/gen/m*.db; do
		n=$((n + 1))
		# As a guest's: the hostname "(none)", so that two machines
		# share a name and must still get two pseudonyms.
		q "$f" "UPDATE machines SET hostname = '(none)'"
		cp "$f" "$T_TMP/in/gen-${f##*/}"
		diag "machine $n: tools/fleet-gen ${f##*/}, standing in for a missing guest"
	done
fi

"$I" merge "$T_TMP/fleet.db" "$T_TMP"/in/*.db >"$T_TMP/merge.out" 2>&1
check "merge of the three databases exits 0" [ $? -eq 0 ]
SRC=$T_TMP/fleet.db
check "the merged input holds three machines, each with runs" \
	[ "$(q "$SRC" "SELECT (SELECT count(*) FROM machines WHERE is_reference = 0) || ' ' || count(DISTINCT machine_uuid) FROM runs")" = "3 3" ]

# What must not leave: every input's machine UUIDs and hostnames, in the
# tables and in the fingerprints.  A name too short or too common to grep
# for ("(none)", "vm", which kvm-clock holds) is named in a diagnostic.
for f in "$T_TMP"/in/*.db; do
	q "$f" "SELECT uuid FROM machines WHERE is_reference = 0
		UNION SELECT hostname FROM machines WHERE is_reference = 0
		UNION SELECT json_extract(fingerprint, '\$.hostname') FROM machines WHERE is_reference = 0
		UNION SELECT json_extract(fingerprint, '\$.uts_hostname') FROM machines WHERE is_reference = 0"
done | sort -u >"$T_TMP/private.all"
while read -r s; do
	if [ "${#s}" -lt 4 ] || [ "$s" = "(none)" ]; then
		diag "not searched for (too short or common): '$s'"
	else
		echo "$s"
	fi
done <"$T_TMP/private.all" >"$T_TMP/private"
check "private strings to search for: three machine UUIDs and the host's name at least" \
	[ "$(wc -l <"$T_TMP/private")" -ge 4 ]

# --- publish ----------------------------------------------------------------
B=$T_TMP/bundle
"$I" publish "$B" --db "$SRC" >"$T_TMP/out" 2>"$T_TMP/err"
check "publish exits 0" [ $? -eq 0 ]
check "the bundle holds the three machines, each under its own pseudonym" \
	[ "$(q "$B/idlelab.db" "SELECT count(*) || ' ' || count(DISTINCT hostname) || ' ' || sum(hostname GLOB 'host-????????????') FROM machines")" = "3 3 3" ]
check "... and every run" [ "$(q "$B/idlelab.db" "SELECT count(*) FROM runs")" = "$(q "$SRC" "SELECT count(*) FROM runs")" ]

found=""
for f in "$B"/*; do
	while read -r s; do
		grep -qaiF -- "$s" "$f" && found="$found $s in ${f##*/};"
	done <"$T_TMP/private"
done
check "redacted: no input's machine UUID or hostname in any file${found:+:$found}" [ -z "$found" ]

V="python3 tests/helpers/json-validate.py"
check "datapackage.json is valid" $V schemas/json/datapackage.schema.json "$B/datapackage.json"
check "metadata.json is valid" $V schemas/json/datasette-metadata.schema.json "$B/metadata.json"

# The README's worked queries, as printed there: each runs, and those
# that count machines count three.
awk '/^```sql$/ { on = 1; n++; next } /^```$/ { on = 0 } on { print > (dir "/q" n ".sql") }' \
	dir="$T_TMP" README.md
bad=""
for i in 1 2 3 4 5; do
	sqlite3 -batch -csv -noheader "$B/idlelab.db" <"$T_TMP/q$i.sql" >"$T_TMP/a$i" 2>"$T_TMP/e$i" &&
		[ ! -s "$T_TMP/e$i" ] || bad="$bad q$i"
done
check "the README's five queries run on the bundle${bad:+: failed$bad}" [ -z "$bad" ]
check "q1: a row per machine and benchmark, every run counted" \
	[ "$(awk -F, '{ r += $3 } END { print NR, r }' "$T_TMP/a1")" = \
	  "$(q "$B/idlelab.db" "SELECT count(DISTINCT machine_uuid || bench) || ' ' || count(*) FROM runs")" ]
check "q5: the three machines, with their runs" \
	[ "$(awk -F, '{ n++; r += $NF } END { print n, r }' "$T_TMP/a5")" = \
	  "3 $(q "$B/idlelab.db" "SELECT count(*) FROM runs")" ]

# --- merge back -------------------------------------------------------------
"$I" merge "$T_TMP/back.db" "$B/idlelab.db" >/dev/null 2>&1
"$I" report --db "$SRC" --format csv | cut -d, -f2- | sort >"$T_TMP/rep-src"
"$I" report --db "$T_TMP/back.db" --format csv | cut -d, -f2- | sort >"$T_TMP/rep-back"
check "merged back: the merged input's report rows, numbers and all" \
	cmp "$T_TMP/rep-src" "$T_TMP/rep-back"
check "merged back: rows of every machine's benchmarks" \
	[ "$(wc -l <"$T_TMP/rep-src")" -gt 3 ]

# --- the site ---------------------------------------------------------------
P=$B/index.html
check "the site has a section per machine" [ "$(grep -c '<section id="machine-' "$P")" -eq 3 ]
probe "$P" "$T_TMP/probe"
diag "$(cat "$T_TMP/probe")"
check "chromium: no error, no request, every table and plot there" probe_ok "$T_TMP/probe" "$P"
layout "$P" "$T_TMP/layout"
diag "$(cat "$T_TMP/layout")"
check "1366 px: key/value cells on screen and left, first columns held" layout_ok "$T_TMP/layout"
# Any set of machines side by side: the picker, one machine left.
pick "$P" "$T_TMP/pick"
diag "$(cat "$T_TMP/pick")"
check "the picker has a box per machine, and shows all 3 at first" \
	grep -q '^idlelab-pick: boxes=3 cols_before=11 ' "$T_TMP/pick"
check "one machine picked: its two columns and the 5 key columns remain" \
	grep -q ' cols_after=7 ' "$T_TMP/pick"
check "no row left showing only \"-\" for the picked machine" \
	grep -q ' dash_rows_after=0$' "$T_TMP/pick"
SHOT=$PWD/$BUILD/publish-fleet.png
rm -f "$SHOT"
chrome --window-size=1366,900 --hide-scrollbars --screenshot="$SHOT" "file://$P" >"$T_TMP/shot.out" 2>&1
check "screenshot written under the build directory" test -s "$SHOT"
diag "screenshot: $SHOT"
t_done
