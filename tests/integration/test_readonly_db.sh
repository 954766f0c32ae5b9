#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A database the user cannot write must still be read (issue 20, defect
# 5): `report`, `export`, `db check` and `merge` (as an input) on
#   - a WAL database on a read-only bind mount, run as root;
#   - one on a full file system (a small tmpfs), with no room for a -shm;
#   - a colleague's file: owned by root, mode 444, in a directory of mode
#     555, run as user nobody (setpriv), who can write neither;
# each giving the same figures as the writable original, leaving the file
# byte-identical and creating no -wal or -shm beside it (on the full disk
# SQLite may leave empty ones).  Then the two cases the store must not
# read with immutable=1: a live writer (its change, still only in the
# -wal, must be seen) and a -wal left with pending transactions where no
# -shm can be created (refused, exit 2, saying what to do).
. tests/lib.sh

MKFIX=$PWD/$BUILD/tests/mkfixture
SRC=$T_TMP/src
mkdir -p "$SRC"
"$MKFIX" "$SRC/fx.db" || { not_ok "mkfixture"; t_done; exit 1; }
check "fixture is a WAL database" \
	[ "$(sqlite3 "$SRC/fx.db" 'PRAGMA journal_mode')" = wal ]
NRUNS=$(sqlite3 "$SRC/fx.db" 'SELECT count(*) FROM runs')
VER=$(sqlite3 "$SRC/fx.db" 'PRAGMA user_version')

# What the writable original gives, run on a scratch copy.
cp "$SRC/fx.db" "$T_TMP/base.db"
"$IDLELAB" report --db "$T_TMP/base.db" --format csv >"$T_TMP/base.report"
"$IDLELAB" export --db "$T_TMP/base.db" --what summaries >"$T_TMP/base.export"
check "baseline report has rows" [ "$(wc -l <"$T_TMP/base.report")" -gt 10 ]

# all_four LABEL DIR OUTDIR [RUNNER...]: the four readers on DIR/fx.db,
# as RUNNER (nothing: this shell's user), writing into OUTDIR.
all_four() {
	label=$1; dir=$2; out=$3; shift 3
	sum0=$(sha256sum <"$dir/fx.db")
	ls0=$(ls -a "$dir")
	"$@" "$IDLELAB" report --db "$dir/fx.db" --format csv \
		>"$out/report" 2>"$out/report.err"
	rc=$?
	if [ "$rc" -eq 0 ] && cmp -s "$T_TMP/base.report" "$out/report"; then
		ok "$label: report reads it, the figures of the original"
	else
		not_ok "$label: report reads it (exit $rc)"
		sed 's/^/#   /' "$out/report.err" | head -3
	fi
	"$@" "$IDLELAB" export --db "$dir/fx.db" --what summaries \
		>"$out/export" 2>"$out/export.err"
	rc=$?
	if [ "$rc" -eq 0 ] && cmp -s "$T_TMP/base.export" "$out/export"; then
		ok "$label: export reads it, the rows of the original"
	else
		not_ok "$label: export reads it (exit $rc)"
		sed 's/^/#   /' "$out/export.err" | head -3
	fi
	"$@" "$IDLELAB" db check --db "$dir/fx.db" >"$out/check" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] &&
	   grep -qx "$dir/fx.db: schema version $VER" "$out/check" &&
	   grep -qx ok "$out/check"; then
		ok "$label: db check: schema version $VER, ok"
	else
		not_ok "$label: db check (exit $rc)"
		sed 's/^/#   /' "$out/check" | head -4
	fi
	"$@" "$IDLELAB" merge "$out/merged.db" "$dir/fx.db" >"$out/merge" 2>&1
	rc=$?
	n=$(sqlite3 "$out/merged.db" 'SELECT count(*) FROM runs' 2>/dev/null)
	if [ "$rc" -eq 0 ] && [ "$n" = "$NRUNS" ] &&
	   grep -q "$NRUNS new runs" "$out/merge"; then
		ok "$label: merge takes it as an input, $NRUNS runs"
	else
		not_ok "$label: merge takes it as an input (exit $rc, $n runs)"
		sed 's/^/#   /' "$out/merge" | head -3
	fi
	check "$label: the file is byte-identical" \
		[ "$sum0" = "$(sha256sum <"$dir/fx.db")" ]
	# On a full disk SQLite's first try can still make empty ones.
	[ "$label" = "full disk" ] ||
		check "$label: no side file appeared beside it" \
			[ "$ls0" = "$(ls -a "$dir")" ]
}

# --- a read-only bind mount -------------------------------------------
RO=$T_TMP/ro
mkdir -p "$RO" "$T_TMP/out-mount"
if mount --bind "$SRC" "$RO" 2>"$T_TMP/mount.err"; then
	trap 'umount "$RO" 2>/dev/null; rm -rf "$T_TMP"' EXIT
	if mount -o remount,ro,bind "$RO" 2>>"$T_TMP/mount.err" &&
	   ! touch "$RO/probe" 2>/dev/null; then
		all_four "read-only mount" "$RO" "$T_TMP/out-mount"
	else
		skip "read-only mount" "remount,ro,bind not permitted here: $(head -1 "$T_TMP/mount.err")"
	fi
	umount "$RO"
else
	skip "read-only mount" "mount --bind not permitted here: $(head -1 "$T_TMP/mount.err")"
fi

# --- a full disk: no room for a -shm ----------------------------------
FULL=$T_TMP/full
mkdir -p "$FULL" "$T_TMP/out-full"
kb=$(( $(stat -c %s "$SRC/fx.db") / 1024 + 64 ))
if mount -t tmpfs -o size=${kb}k tmpfs "$FULL" 2>"$T_TMP/mount.err"; then
	trap 'umount "$FULL" 2>/dev/null; rm -rf "$T_TMP"' EXIT
	cp "$SRC/fx.db" "$FULL/fx.db"
	dd if=/dev/zero of="$FULL/fill" bs=4k 2>/dev/null
	all_four "full disk" "$FULL" "$T_TMP/out-full"
	umount "$FULL"
else
	skip "full disk" "mount -t tmpfs not permitted here: $(head -1 "$T_TMP/mount.err")"
fi

# --- a colleague's file, read by nobody -------------------------------
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
chmod 755 "$T_TMP"
OTHER=$T_TMP/other
mkdir -p "$OTHER" "$T_TMP/out-nobody"
cp "$SRC/fx.db" "$OTHER/fx.db"
chmod 444 "$OTHER/fx.db"
chmod 555 "$OTHER"
chown nobody "$T_TMP/out-nobody"
check "the colleague's file is not nobody's to write" \
	sh -c "! $AS_NOBODY sh -c ': >>\"$OTHER/fx.db\"' 2>/dev/null && ! $AS_NOBODY touch '$OTHER/x' 2>/dev/null"
all_four "another user's file" "$OTHER" "$T_TMP/out-nobody" $AS_NOBODY

# --- a live writer: read through its -shm, never immutable=1 -----------
LIVE=$T_TMP/live
mkdir -p "$LIVE"
cp "$SRC/fx.db" "$LIVE/fx.db"
mkfifo "$LIVE/fifo"
sqlite3 "$LIVE/fx.db" <"$LIVE/fifo" >/dev/null 2>&1 &
WRITER=$!
exec 3>"$LIVE/fifo"
echo "PRAGMA wal_autocheckpoint = 0; UPDATE runs SET status_reason = 'seen-in-the-wal' WHERE uuid = (SELECT min(uuid) FROM runs);" >&3
i=0
while [ "$i" -lt 50 ] && ! [ -s "$LIVE/fx.db-wal" ]; do
	sleep 0.1; i=$((i + 1))
done
chmod 444 "$LIVE/fx.db" "$LIVE/fx.db-wal" "$LIVE/fx.db-shm"
chmod 555 "$LIVE"
check "live writer: the change is only in its -wal" \
	sh -c "! grep -q seen-in-the-wal '$LIVE/fx.db'"
$AS_NOBODY "$IDLELAB" export --db "$LIVE/fx.db" --what runs \
	>"$T_TMP/live.csv" 2>"$T_TMP/live.err"
check "live writer: export as nobody sees the change in the -wal" \
	grep -q seen-in-the-wal "$T_TMP/live.csv"
cp "$LIVE/fx.db" "$T_TMP/pending.db"
cp "$LIVE/fx.db-wal" "$T_TMP/pending.db-wal"
exec 3>&-
wait "$WRITER"
chmod 755 "$LIVE"

# --- a -wal with pending transactions and no -shm possible: refused ----
PEND=$T_TMP/pend
mkdir -p "$PEND"
mv "$T_TMP/pending.db" "$PEND/fx.db"
mv "$T_TMP/pending.db-wal" "$PEND/fx.db-wal"
chmod 444 "$PEND/fx.db" "$PEND/fx.db-wal"
chmod 555 "$PEND"
for cmd in "report" "export" "db check"; do
	$AS_NOBODY "$IDLELAB" $cmd --db "$PEND/fx.db" >"$T_TMP/pend.out" 2>"$T_TMP/pend.err"
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q 'its -wal holds transactions not yet in the file' "$T_TMP/pend.err" &&
	   grep -q 'copy the file and its -wal together' "$T_TMP/pend.err"; then
		ok "pending -wal, no -shm: $cmd refuses with exit 2 and what to do"
	else
		not_ok "pending -wal, no -shm: $cmd refuses (exit $rc)"
		sed 's/^/#   /' "$T_TMP/pend.err" | head -3
	fi
done
$AS_NOBODY "$IDLELAB" merge "$T_TMP/out-nobody/pend.db" "$PEND/fx.db" >/dev/null 2>"$T_TMP/pend.err"
rc=$?
check "pending -wal, no -shm: merge refuses it as an input (exit $rc)" \
	sh -c "[ $rc -eq 2 ] && grep -q 'its -wal holds transactions' '$T_TMP/pend.err'"
check "pending -wal, no -shm: nothing created beside it" \
	[ "$(ls "$PEND" | tr '\n' ' ')" = "fx.db fx.db-wal " ]
chmod 755 "$PEND"

t_done
