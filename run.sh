#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# idlelab's one-command entry points.
#
#   ./run.sh          install missing Debian build dependencies, build, run
#                     the quick set of benchmarks on this machine into
#                     ./idlelab.db (or $IDLELAB_DB) and print the table
#   ./run.sh test [--group NAME]...
#                     install what the tests need, build with ASan+UBSan,
#                     run every test, or those of group NAME (tests/tests.cfg);
#                     the last line is "N passed, N failed"
#   ./run.sh fleet INVENTORY CAMPAIGN [ansible-playbook ARGS...]
#                     run CAMPAIGN on every host of the Ansible INVENTORY
#                     (fleet/), fetch results/<host>.db, merge them
#                     into results/fleet.db and print the table
#   ./run.sh --print-plan [run|test|fleet]
#                     print the apt commands that command would run, in
#                     order, and stop; nothing is installed or built
#
# Installing needs root (apt-get); as another user, missing packages are
# listed and the script stops.
set -eu
cd "$(dirname "$0")"

BUILD_DEPS="gcc make pkg-config libc6-dev libhwloc-dev libpfm4-dev libnuma-dev
libsqlite3-dev libpapi-dev libjansson-dev libyaml-dev sqlite3
libtracefs-dev libtraceevent-dev nettle-dev"
# gnuplot-nox draws the plots of `idlelab report --format html`: the plain
# ./run.sh installs it too, so a new user's page has its plots (without
# it the page has its tables and says why there are no plots).
USER_DEPS="gnuplot-nox"
# rt-tests gives the cyclictest the import test runs; chromium opens the
# HTML report headless (tests/integration/test_html_chromium.sh).
TEST_DEPS="jq $USER_DEPS rt-tests linux-source chromium"
# The fleet test: Ansible over real SSH into network namespaces.
TEST_DEPS="$TEST_DEPS ansible-core ansible-lint openssh-server openssh-client iproute2"
# dkms: tests/integration/test_dkms.sh builds the modules with Debian's
# dkms for 6.1 and 6.12, and the 6.12 guest loads what it built.
TEST_DEPS="$TEST_DEPS dkms"
# socat: the QEMU rig's host-side NMI injector talks QMP over a UNIX socket.
TEST_DEPS="$TEST_DEPS socat"
# mmdebstrap: tests/integration/test_install_plan.sh builds a pristine
# bookworm root with it and checks every install line above, and those of
# tests/vm/setup.sh, in that root.
TEST_DEPS="$TEST_DEPS mmdebstrap"
# clang and its compiler-rt: the libFuzzer smoke run of the parsers
# (tests/integration/test_fuzz_smoke.sh, `make FUZZ=1 fuzz`).
TEST_DEPS="$TEST_DEPS clang libclang-rt-14-dev"
# python3-jsonschema: the publish test validates datapackage.json and
# metadata.json against schemas/json/.
TEST_DEPS="$TEST_DEPS python3-jsonschema"
FLEET_DEPS="ansible-core openssh-client"

# tools/deps.sh: installed, missing, apt_install and the plan modes.
. ./tools/deps.sh

install_deps() {
	# shellcheck disable=SC2086
	need=$(missing $*)
	[ -z "$need" ] && return 0
	if [ "$(id -u)" != 0 ] && ! plan_mode; then
		echo "run.sh: missing Debian packages (install them as root):" $need >&2
		exit 2
	fi
	echo "run.sh: installing" $need >&2
	apt_get update -qq
	# shellcheck disable=SC2086
	apt_install "run.sh $stage_name" $need
}

jobs() { nproc 2>/dev/null || echo 2; }

cmd_run() {
	stage_name=deps
	install_deps $BUILD_DEPS $USER_DEPS
	plan_only && return 0
	make -s -j"$(jobs)"
	db=${IDLELAB_DB:-idlelab.db}
	# The quick set: data/campaigns/quick.yaml, every user-space benchmark
	# briefly, well inside 30 s on two CPUs.  Each invocation is a new
	# campaign instance (--name quick-<UTC time>), so running ./run.sh
	# again measures again instead of being refused as a campaign already
	# in the database; a benchmark unsupported here is stored with its
	# reason and does not fail the set (idlelab-run(1)).
	build/idlelab run data/campaigns/quick.yaml --db "$db" \
		--name "quick-$(date -u +%Y%m%dT%H%M%SZ)"
	echo
	build/idlelab report --db "$db"
}

# stage NAME CMD...: run one stage of ./run.sh test and say how long it took.
stage() {
	name=$1; shift
	stage_name=$name
	t0=$(date +%s)
	rc=0
	"$@" || rc=$?
	echo "run.sh: stage $name: $(($(date +%s) - t0)) s (exit $rc)" >&2
	return $rc
}

cmd_test() {
	stage deps install_deps $BUILD_DEPS $TEST_DEPS
	# The kernel-module guest rigs (QEMU, then Bochs) are part of the tests;
	# IDLELAB_VMTEST=0 leaves them out for a quick local run.
	export IDLELAB_VMTEST="${IDLELAB_VMTEST:-1}"
	if [ "$IDLELAB_VMTEST" = 1 ]; then
		# The Xen PV dom0 guest (tests/vm/test_xen.sh) runs with the
		# others: about a minute at 4 vCPUs on an idle 2-CPU machine,
		# ten under load (tests/vm/README.md).  IDLELAB_XENTEST=0
		# leaves it out.
		export IDLELAB_XENTEST="${IDLELAB_XENTEST:-1}"
		if [ "$IDLELAB_XENTEST" = 1 ]; then
			stage vm-setup sh tests/vm/setup.sh --bochs --xen
		else
			stage vm-setup sh tests/vm/setup.sh --bochs
		fi
	fi
	plan_only && return 0
	stage build make -s -j"$(jobs)" SAN=1 tests
	# The last stage prints its own duration (tests/run.sh), so that the
	# summary line "N passed, N failed" stays the last line.
	echo "run.sh: stage tests: starting" >&2
	BUILD=build-san exec sh tests/run.sh "$@"
}

cmd_fleet() {
	if [ $# -lt 2 ] && ! plan_only; then
		echo "usage: ./run.sh fleet INVENTORY CAMPAIGN [ansible-playbook ARGS...]" >&2
		exit 2
	fi
	stage_name=deps
	install_deps $BUILD_DEPS $FLEET_DEPS
	plan_only && return 0
	make -s -j"$(jobs)"
	IDLELAB=${IDLELAB:-$PWD/build/idlelab} exec fleet/idlelab-fleet "$@"
}

# --print-plan: stop after the install steps, which print each apt command
# instead of running it (or hand it to $IDLELAB_APT, tools/deps.sh).
plan_only() { [ "$print_plan" = 1 ]; }
print_plan=0
if [ "${1:-}" = --print-plan ]; then
	print_plan=1
	export IDLELAB_APT="${IDLELAB_APT:-print}"
	shift
fi
stage_name=deps

case "${1:-run}" in
run) cmd_run ;;
test) shift; cmd_test "$@" ;;
fleet) shift; cmd_fleet "$@" ;;
-h|--help) sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//' ;;
*) echo "run.sh: unknown command '$1' (use: ./run.sh [run|test|fleet])" >&2; exit 2 ;;
esac
