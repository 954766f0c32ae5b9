#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ./run.sh's dependency lists: the plain user path (./run.sh, no argument)
# installs gnuplot-nox, so a new user's `idlelab report --format html` has
# its plots, and ./run.sh test installs chromium for the headless HTML
# check.  Checked by running run.sh itself against stand-ins for dpkg-query
# (nothing installed) and id (not root), so it lists what it would install
# and stops before installing or building anything.
. tests/lib.sh

FAKE=$T_TMP/bin
mkdir -p "$FAKE"
printf '#!/bin/sh\nexit 1\n' >"$FAKE/dpkg-query"
printf '#!/bin/sh\necho 1000\n' >"$FAKE/id"
chmod +x "$FAKE/dpkg-query" "$FAKE/id"

PATH="$FAKE:$PATH" sh ./run.sh >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "plain ./run.sh stops at the missing packages (exit 2)" [ "$rc" -eq 2 ]
check "plain ./run.sh installs gnuplot-nox" grep -q 'missing Debian packages.* gnuplot-nox' "$T_TMP/err"
check "plain ./run.sh still installs the build dependencies" grep -q 'missing Debian packages.* libhwloc-dev' "$T_TMP/err"

PATH="$FAKE:$PATH" sh ./run.sh test >"$T_TMP/out" 2>"$T_TMP/err"
check "./run.sh test installs chromium and gnuplot-nox" sh -c \
	"grep -q 'missing Debian packages.* chromium' '$T_TMP/err' && grep -q 'missing Debian packages.* gnuplot-nox' '$T_TMP/err'"
t_done
