#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The files commands write at a path the user names (issue 20): an output
# that names an input database, its -wal or its -shm, however spelled
# (the same path, relative, absolute, through a symlink, a hard link), is
# refused with exit 2 and a message before anything is opened for
# writing, and the database keeps its bytes and passes `db check`; an
# output is written to a temporary file renamed into place, so a writer
# that fails leaves no file, no temporary file, and an older file whole.
. tests/lib.sh

LAB=$T_TMP/lab
DB=$LAB/lab.db
mkdir -p "$LAB"
if ! "$IDLELAB" bench timer_wake --db "$DB" --cpus 0 --param samples=200 \
	--param interval_us=200 >"$T_TMP/out" 2>"$T_TMP/err"; then
	not_ok "a real run to report on"
	sed 's/^/#   /' "$T_TMP/err"
	t_done
	exit 1
fi
ok "a real run to report on"
# A read-only open leaves the -wal and -shm behind on some SQLite
# versions; either way their names are guarded, existing or not.
"$IDLELAB" report --db "$DB" >/dev/null 2>&1

# The database's bytes (and its -wal's, where there is one) and size.
fp() { cat "$DB" "$DB-wal" 2>/dev/null | sha256sum; wc -c <"$DB"; }
FP0=$(fp)

# in_dir DIR CMD...: CMD run from DIR, for the relative spellings.
in_dir() ( cd "$1" && shift && "$@" )

# refused NAME CMD...: exit 2, the message, and the database untouched.
# (lib.sh's helpers set $name: keep ours apart.)
refused() {
	case_name=$1; shift
	expect_exit "$case_name: exit 2" 2 "$@"
	check "$case_name: says why" grep -q 'a file of an input database' "$T_TMP/err"
	check "$case_name: database unchanged" [ "$(fp)" = "$FP0" ]
}

ln -s lab/lab.db "$T_TMP/link.db"
ln "$DB" "$T_TMP/hard.db"
ln -s lab.db-wal "$LAB/link-wal"

# spellings CMD-PREFIX...: the output spelled every way, after the prefix.
spellings() {
	what=$1; shift
	refused "$what, same path" "$@" "$DB"
	refused "$what, relative" in_dir "$LAB" "$@" lab.db
	refused "$what, relative through .." in_dir "$LAB" "$@" ../lab/lab.db
	refused "$what, absolute, other spelling" "$@" "$LAB/./lab.db"
	refused "$what, symlink" "$@" "$T_TMP/link.db"
	refused "$what, hard link" "$@" "$T_TMP/hard.db"
	refused "$what, -wal" "$@" "$DB-wal"
	refused "$what, -shm" "$@" "$DB-shm"
	refused "$what, -wal relative" in_dir "$LAB" "$@" lab.db-wal
	refused "$what, symlink to the -wal" "$@" "$LAB/link-wal"
}
spellings "report md" "$IDLELAB" report --db "$DB" -o
spellings "report csv" "$IDLELAB" report --db "$DB" --format csv -o
spellings "report json --output" "$IDLELAB" report --db "$DB" --format json --output
spellings "export" "$IDLELAB" export --db "$DB" -o
spellings "export json --output" "$IDLELAB" export --db "$DB" --format json --output
refused "merge, output is an input" "$IDLELAB" merge "$DB" "$DB"
refused "merge, relative output" in_dir "$LAB" "$IDLELAB" merge lab.db "$DB"
refused "merge, symlink output" "$IDLELAB" merge "$T_TMP/link.db" "$DB"
refused "merge, hard-linked output" "$IDLELAB" merge "$T_TMP/hard.db" "$DB"
refused "merge, the input's -wal" "$IDLELAB" merge "$DB-wal" "$DB"
refused "merge, the input's -shm" "$IDLELAB" merge "$DB-shm" "$DB"
refused "merge, second input's -wal" "$IDLELAB" merge "$DB-wal" "$T_TMP/none.db" "$DB"
check "no output file was created" [ ! -e "$T_TMP/none.db" ]
check "database still passes db check" "$IDLELAB" db check --db "$DB"
check "no temporary file left" [ -z "$(find "$T_TMP" -name '.*.??????')" ]

# html: DIR/index.html (and every plot) is a file like any other.
mkdir -p "$T_TMP/h"
cp "$DB" "$T_TMP/h/index.html"
sum=$(sha256sum <"$T_TMP/h/index.html")
expect_exit "html: index.html that is the database: exit 2" 2 \
	"$IDLELAB" report --db "$T_TMP/h/index.html" --format html -o "$T_TMP/h"
check "html: says why" grep -q 'a file of an input database' "$T_TMP/err"
check "html: database unchanged" [ "$(sha256sum <"$T_TMP/h/index.html")" = "$sum" ]

# --- a failed writer leaves nothing half-written ------------------------
# A copy without its histograms table: the table report and the bucket
# export fail after their output file was opened.  (Damaged histograms no
# longer fail them: the damaged runs are left out, test_damaged_hist.sh.)
BAD=$T_TMP/bad.db
sqlite3 "$DB" "VACUUM INTO '$BAD'"
sqlite3 "$BAD" "DROP TABLE histograms"
OUT=$T_TMP/out-dir
mkdir -p "$OUT"
for c in "report md|report --db $BAD -o" "report csv|report --db $BAD --format csv -o" \
	 "export|export --db $BAD --what buckets -o"; do
	cmd=${c%%|*}; args=${c#*|}
	echo precious >"$OUT/old"
	# shellcheck disable=SC2086 # $args is words on purpose
	"$IDLELAB" $args "$OUT/old" >/dev/null 2>"$T_TMP/err"
	check "$cmd failing: exits 1" [ $? -eq 1 ]
	check "$cmd failing: older output kept whole" [ "$(cat "$OUT/old")" = precious ]
	# shellcheck disable=SC2086
	"$IDLELAB" $args "$OUT/new" >/dev/null 2>&1
	check "$cmd failing: no new file" [ ! -e "$OUT/new" ]
	check "$cmd failing: no temporary file" [ "$(ls -A "$OUT")" = old ]
done
if [ "$(id -u)" -eq 0 ]; then
	skip "read-only directory: nothing written" "root writes anywhere"
else
	mkdir -p "$T_TMP/ro" && chmod 555 "$T_TMP/ro"
	"$IDLELAB" report --db "$DB" -o "$T_TMP/ro/r.md" >/dev/null 2>&1
	check "read-only directory: refused, nothing written" [ -z "$(ls -A "$T_TMP/ro")" ]
fi

# --- a writer that succeeds replaces the file whole ----------------------
echo old >"$OUT/r.md"
chmod 640 "$OUT/r.md"
check "report over an existing file succeeds" "$IDLELAB" report --db "$DB" -o "$OUT/r.md"
check "it holds the report" grep -q 'Median' "$OUT/r.md"
check "it keeps the file's mode" [ "$(stat -c %a "$OUT/r.md")" = 640 ]
ln -s r.md "$OUT/link.md"
check "export through a symlink succeeds" "$IDLELAB" export --db "$DB" -o "$OUT/link.md"
check "the symlink stays a symlink" [ -L "$OUT/link.md" ]
check "its target holds the export" grep -q '^run_uuid,' "$OUT/r.md"
check "export -o /dev/null (not a regular file) works" \
	"$IDLELAB" export --db "$DB" -o /dev/null
check "no temporary file left" [ -z "$(find "$OUT" -name '.*.??????')" ]
check "database unchanged after all" [ "$(fp)" = "$FP0" ]

t_done
