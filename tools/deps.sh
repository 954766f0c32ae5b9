# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# The one way idlelab's setup scripts (run.sh, tests/vm/setup.sh) ask apt
# for packages.  Sourced, not run.  Every install goes through
# apt_install(), so that one switch turns the scripts into a plan:
#
#   IDLELAB_APT unset   install for real (after printing what apt will
#                       install or upgrade, one line per package)
#   IDLELAB_APT=print   print each apt command instead of running it
#                       (./run.sh --print-plan); nothing is installed
#   IDLELAB_APT=PATH    hand each apt command to PATH instead; the
#                       install-plan test (tests/integration/
#                       test_install_plan.sh) checks every line this way
#                       in a pristine root, stage after stage
#
# The lists themselves stay in the scripts that need them; this file only
# decides how a list reaches apt.

# installed PKG: whether dpkg has PKG installed.
installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null |
		grep -q '^install ok installed$'
}

# missing PKG...: the PKGs that are not installed, one per line.
missing() {
	for p in "$@"; do
		installed "${p%%[=/]*}" || echo "$p"
	done
}

# plan_mode: true when nothing is to be installed for real.
plan_mode() { [ -n "${IDLELAB_APT:-}" ]; }

# apt_get ARG...: apt-get, or what IDLELAB_APT says to do instead.
apt_get() {
	case ${IDLELAB_APT:-} in
	'') apt-get "$@" ;;
	print) echo "apt-get $*" ;;
	*) IDLELAB_APT_WHO=${IDLELAB_APT_WHO:-} "$IDLELAB_APT" "$@" ;;
	esac
}

# apt_mark ARG...: apt-mark; printed only in print mode (marking changes
# no package, so the plan test's root does it for real).
apt_mark() {
	if [ "${IDLELAB_APT:-}" = print ]; then
		echo "apt-mark $*"
	else
		apt-mark "$@" >/dev/null
	fi
}

# apt_install WHO PKG...: install PKGs (NAME, NAME/SUITE or NAME=VERSION)
# without recommends.  WHO names the stage in what is printed.  Before a
# real install, the packages apt will install or upgrade are listed on
# stderr, so a log shows what each stage changed.
apt_install() {
	who=$1
	shift
	[ $# -gt 0 ] || return 0
	export DEBIAN_FRONTEND=noninteractive
	if ! plan_mode; then
		echo "$who: apt will install or upgrade:" >&2
		apt-get -s install --no-install-recommends "$@" 2>/dev/null |
			sed -n 's/^Inst \([^ ]*\) \(\[[^]]*\] \)\{0,1\}(\([^ ]*\) \(.*\) \[[^]]*\]).*/  \1 \3 (\4) \2/p' >&2
	fi
	if plan_mode; then
		IDLELAB_APT_WHO=$who apt_get install -y -qq --no-install-recommends "$@"
	else
		apt-get install -y -qq --no-install-recommends "$@" >&2
	fi
}
