#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/run.sh and its table of tests (tests/tests.cfg), on a made-up tree
# of tests in a scratch directory: a test whose needs are unmet is skipped
# with its reason and counted apart, a unit test without its binary fails,
# a test past its timeout is killed and fails, a test on disk but not in
# the table fails and so does one in the table but not on disk, and the
# last line stays "N passed, N failed".  Also: the real table names
# exactly the tests in this tree.
. tests/lib.sh

RUNNER=$PWD/tests/run.sh
tree=$T_TMP/tree
mkdir -p "$tree/tests/unit" "$tree/tests/integration" "$tree/tests/vm" "$tree/b/tests"
cd "$tree" || exit 1
: >tests/unit/test_pass.c
printf '#!/bin/sh\necho "ok 1 - fine"\necho 1..1\n' >b/tests/test_pass
chmod +x b/tests/test_pass
printf 'echo "ok 1 - one"\necho "ok 2 - two"\necho 1..2\n' >tests/integration/test_two.sh
cat >tests/tests.cfg <<'CFG'
# a comment
[test_pass]
timeout = 30

[tests/integration/test_two.sh]
timeout = 30
CFG

BUILD=b IDLELAB_VMTEST=0 sh "$RUNNER" >out 2>&1
rc=$?
check "a clean table passes" test "$rc" -eq 0
check "the last line is the summary" test "$(tail -1 out)" = "3 passed, 0 failed"
check "per-test duration lines stay" grep -qx -- '-- tests/integration/test_two.sh: 2 passed, 0 failed, [0-9]* s' out

# Now break it every way the table can be broken.
: >tests/unit/test_nobin.c
printf 'echo "ok 1 - never"\n' >tests/integration/test_skip.sh
printf 'echo "ok 1 - started"\nsleep 60\necho "ok 2 - too late"\n' >tests/integration/test_slow.sh
printf 'echo "ok 1 - rogue"\n' >tests/integration/test_unlisted.sh
printf 'echo "ok 1 - vm"\n' >tests/vm/test_rig.sh
cat >>tests/tests.cfg <<'CFG'
[test_nobin]
timeout = 30

[tests/integration/test_skip.sh]
needs = cmd:idlelab-no-such-command
timeout = 30

[tests/integration/test_slow.sh]
timeout = 2

[tests/vm/test_rig.sh]
needs = vmtest
timeout = 30

[tests/integration/test_ghost.sh]
timeout = 30
CFG
t0=$(date +%s)
BUILD=b IDLELAB_VMTEST=0 sh "$RUNNER" >out 2>&1
rc=$?
t1=$(date +%s)
check "a broken table fails" test "$rc" -ne 0
check "summary counts started cases, skips apart" test "$(tail -1 out)" = "4 passed, 4 failed"
check "unmet command: skip with reason" grep -q '^ok [0-9]* - tests/integration/test_skip.sh # SKIP needs the command idlelab-no-such-command$' out
check "unmet vmtest: skip with reason" grep -q '^ok [0-9]* - tests/vm/test_rig.sh # SKIP needs the guest rig: set IDLELAB_VMTEST=1$' out
check "skips counted before the summary" grep -qx '# 2 skipped: tests/integration/test_skip.sh tests/vm/test_rig.sh' out
check "a skipped test does not run" sh -c '! grep -q "never" out'
check "missing binary fails" grep -q '^not ok [0-9]* - test_nobin: b/tests/test_nobin is missing' out
check "timeout kills and fails" grep -q '^not ok - tests/integration/test_slow.sh timed out after 2 s' out
check "killed within its timeout" test $((t1 - t0)) -lt 30
check "on disk, not in the table" grep -q '^not ok [0-9]* - tests/integration/test_unlisted.sh is on disk but not in tests/tests.cfg' out
check "in the table, not on disk" grep -q '^not ok [0-9]* - tests/integration/test_ghost.sh is in tests/tests.cfg but tests/integration/test_ghost.sh is not on disk' out
grep -q '^not ok\|SKIP' out || sed 's/^/#   /' out

# With the guest rig asked for, the vm test runs.
sed -i '/test_nobin\|test_slow\|test_ghost/,/^$/d' tests/tests.cfg
rm tests/unit/test_nobin.c tests/integration/test_slow.sh tests/integration/test_unlisted.sh
BUILD=b IDLELAB_VMTEST=1 sh "$RUNNER" >out 2>&1
check "IDLELAB_VMTEST=1 runs the vm test" grep -q '^ok 1 - vm$' out
check "only the unmet need skips" test "$(tail -1 out)" = "4 passed, 0 failed"

# Groups: --group selects by "groups =", repeatable or a comma list; a
# group no test names is an error (exit 2); the summary stays last.
cat >tests/tests.cfg <<'CFG'
[test_pass]
groups = unit
timeout = 30

[tests/integration/test_two.sh]
groups = integration slow
timeout = 30

[tests/integration/test_skip.sh]
groups = integration
needs = cmd:idlelab-no-such-command
timeout = 30

[tests/vm/test_rig.sh]
groups = vm
needs = vmtest
timeout = 30
CFG
BUILD=b IDLELAB_VMTEST=1 sh "$RUNNER" --group unit >out 2>&1
rc=$?
check "--group unit passes" test "$rc" -eq 0
check "--group unit runs only the unit test" test "$(tail -1 out)" = "1 passed, 0 failed"
check "--group unit leaves the others out" sh -c '! grep -q "test_two.sh\|test_rig.sh\|test_skip.sh" out'
BUILD=b IDLELAB_VMTEST=1 sh "$RUNNER" --group vm --group slow >out 2>&1
check "--group twice: the union" test "$(tail -1 out)" = "3 passed, 0 failed"
check "--group vm runs the vm test" grep -q '^ok 1 - vm$' out
check "--group slow runs the slow one" grep -q '^ok 2 - two$' out
BUILD=b IDLELAB_VMTEST=1 sh "$RUNNER" --group=unit,integration >out 2>&1
check "--group a,b: the union" test "$(tail -1 out)" = "3 passed, 0 failed"
check "the groups are named before the summary" test "$(tail -3 out | head -1)" = "# groups: unit integration"
check "a skip in the group is still counted" grep -qx '# 1 skipped: tests/integration/test_skip.sh' out
BUILD=b sh "$RUNNER" --group wings >out 2>&1
rc=$?
check "an unknown group exits 2" test "$rc" -eq 2
check "an unknown group is named, with the known ones" grep -q "^not ok [0-9]* - unknown group 'wings': tests/tests.cfg names integration, slow, unit, vm$" out
check "an unknown group runs nothing" sh -c '! grep -q "^== " out'
check "the summary stays last after an unknown group" test "$(tail -1 out)" = "0 passed, 1 failed"
BUILD=b sh "$RUNNER" --group >out 2>&1
check "--group without a NAME exits 2" test "$?" -eq 2
BUILD=b sh "$RUNNER" --wings >out 2>&1
check "an unknown argument exits 2" test "$?" -eq 2

printf '[test_pass]\ntimout = 30\n' >tests/tests.cfg
BUILD=b sh "$RUNNER" >out 2>&1
check "an unknown key in the table fails" grep -q "tests.cfg:2: unknown key 'timout'" out
printf '[test_pass]\nneeds = wings\ntimeout = 30\n' >tests/tests.cfg
BUILD=b sh "$RUNNER" >out 2>&1
check "an unknown need fails" grep -q "unknown need 'wings'" out

cd "$OLDPWD" || exit 1
# The real table and this tree agree (run.sh checks it too; this says
# which name is off without running the whole suite).
{
	for t in tests/unit/test_*.c; do basename "$t" .c; done
	ls tests/integration/*.sh tests/vm/test_*.sh
} | sort >"$T_TMP/disk"
sed -n 's/^\[\(.*\)\]$/\1/p' tests/tests.cfg | sort >"$T_TMP/listed"
check "tests.cfg names every test in the tree" cmp "$T_TMP/disk" "$T_TMP/listed"
# Each section of the real table says its groups.
check "every test in tests.cfg has groups" test "$(grep -c '^groups = ' tests/tests.cfg)" -eq "$(grep -c '^\[' tests/tests.cfg)"
t_done
