#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The install plan, proved on a pristine Debian 12 rather than on this
# warm machine: mmdebstrap builds a minimal bookworm root, and inside it
# `./run.sh --print-plan` runs the real run.sh and tests/vm/setup.sh with
# every apt-get install handed to tests/helpers/apt-plan-check.sh, which
# resolves each line with `apt-get -s` against what the earlier lines
# left installed, checks that nothing the line does not name is
# upgraded, removed or taken from bookworm-backports, and records the
# line's packages as installed before the next one.  The lines come from
# the scripts themselves, so a package added there is checked here.
#
# Sequences, each from the pristine root: `test` alone (what CI runs on a
# new machine), `run` then `test` then `test` again (nothing left to
# install), and `fleet`.  Three lines that must fail show the checker can:
# the QEMU 10 line the rig had until 2026-12 (unmet dependencies on a
# pristine root), QEMU's backports dependencies asked for by suite (apt
# then takes libbpf1 from backports too), and a backports -dev package
# that upgrades an installed library.  Needs root, mmdebstrap and the
# Debian mirror; the root is a few hundred MB and is removed at the end.
. tests/lib.sh

t0=$(date +%s)
root=$T_TMP/root
plan=/idlelab
if ! mmdebstrap --variant=minbase --mode=root --quiet bookworm "$root" \
	>"$T_TMP/mmdebstrap.log" 2>&1; then
	not_ok "mmdebstrap builds a pristine bookworm root"
	sed 's/^/#   /' "$T_TMP/mmdebstrap.log" | tail -5
	t_done
	exit
fi
ok "mmdebstrap builds a pristine bookworm root ($(($(date +%s) - t0)) s, $(du -sm "$root" | cut -f1) MB)"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root$plan/tools" "$root$plan/tests/vm" "$root$plan/tests/helpers"
cp run.sh "$root$plan/"
cp tools/deps.sh "$root$plan/tools/"
cp tests/vm/setup.sh "$root$plan/tests/vm/"
cp tests/helpers/apt-plan-check.sh "$root$plan/tests/helpers/"
cp "$root/var/lib/dpkg/status" "$T_TMP/status.pristine"

# pristine: put the root's packages and apt sources back as mmdebstrap
# left them.
pristine() {
	cp "$T_TMP/status.pristine" "$root/var/lib/dpkg/status"
	rm -f "$root/var/lib/apt/extended_states" \
		"$root/etc/apt/sources.list.d/idlelab-bookworm-backports.sources"
}

# in_root LOG CMD...: CMD inside the root, in the copied tree, with the
# checker behind IDLELAB_APT and its log at LOG (a path in the root).
in_root() {
	l=$1
	shift
	: >"$root$l"
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		IDLELAB_APT=$plan/tests/helpers/apt-plan-check.sh IDLELAB_APT_LOG="$l" \
		sh -c "cd $plan && $*" >"$T_TMP/out" 2>"$T_TMP/err"
}

# sequence NAME COMMAND...: run each ./run.sh COMMAND in turn from the
# pristine root; one case for the whole sequence.
sequence() {
	name=$1
	shift
	pristine
	: >"$T_TMP/$name.log"
	good=1
	for c in "$@"; do
		if ! in_root /plan.log "sh run.sh --print-plan $c"; then
			good=0
		fi
		echo "== ./run.sh $c" >>"$T_TMP/$name.log"
		cat "$root/plan.log" >>"$T_TMP/$name.log"
		if grep -q '^FAIL' "$root/plan.log"; then
			good=0
		fi
		[ $good = 1 ] || break
	done
	if [ $good = 1 ]; then
		ok "pristine root: ./run.sh $* installs exactly what the scripts name"
	else
		not_ok "pristine root: ./run.sh $* installs exactly what the scripts name"
		grep -A8 '^FAIL' "$T_TMP/$name.log" | sed 's/^/#   /' | head -12
		sed 's/^/#   /' "$T_TMP/err" | tail -5
	fi
}

sequence ci test
# The stages and what each downloads, for the README's fresh-machine figures.
grep '^STAGE' "$T_TMP/ci.log" | sed 's/^STAGE /# /'
kb=$(sed -n 's/^STAGE .* \([0-9]*\) kB to download$/\1/p' "$T_TMP/ci.log" |
	awk '{ s += $1 } END { printf "%d", s }')
check "./run.sh test on a pristine root installs both kernels and QEMU 10" sh -c \
	"grep -q '^  linux-image-6.1[.]' '$T_TMP/ci.log' &&
	 grep -q '^  linux-image-6.12[.]' '$T_TMP/ci.log' &&
	 grep -q '^  qemu-system-x86 1:10[.]' '$T_TMP/ci.log'"
diag "./run.sh test on a pristine root downloads $((kb / 1024)) MB"

sequence user run test test
check "a second ./run.sh test plans no install" sh -c \
	"awk '/^== /{ n++ } n == 3 && /^PLAN/' '$T_TMP/user.log' | grep -q . && exit 1; exit 0"
sed -n 's|^STAGE run.sh deps|# ./run.sh (the plain one), deps|p' "$T_TMP/user.log" | head -1

sequence fleet fleet

# The checker catches what it is there to catch, from the pristine root
# with the backports source added as setup.sh adds it.
bad_line() {
	name=$1
	want=$2
	shift 2
	in_root /bad.log "IDLELAB_APT_WHO=control $plan/tests/helpers/apt-plan-check.sh install $*"
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$want" "$root/bad.log"; then
		ok "the checker refuses $name"
	else
		not_ok "the checker refuses $name (exit $rc)"
		sed 's/^/#   /' "$root/bad.log" | head -8
	fi
}
# (The sequences above left backports' package lists in the root.)
pristine
printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
	>"$root/etc/apt/sources.list.d/idlelab-bookworm-backports.sources"
in_root /bad.log "apt-get update -qq"
bad_line "the old QEMU line (unmet dependencies)" \
	"qemu-system-common (= 1:10" qemu-system-x86/bookworm-backports
bad_line "QEMU's dependencies asked for by suite (libbpf1 from backports)" \
	"takes libbpf1" qemu-system-x86/bookworm-backports \
	qemu-system-common/bookworm-backports qemu-system-data/bookworm-backports \
	seabios/bookworm-backports
in_root /bad.log "IDLELAB_APT_WHO=control $plan/tests/helpers/apt-plan-check.sh install libbpf1"
bad_line "an unnamed upgrade of an installed package" \
	"changes libbpf1 from" libbpf-dev/bookworm-backports

# Only tools/deps.sh may call apt-get install; any other setup script
# would bypass this test.
others=$(grep -rlE 'apt-get +(-[^ ]+ +)*install|apt +install' --include='*.sh' \
	--include='*.yml' --include=run.sh . 2>/dev/null |
	grep -v -e '^./tools/deps.sh$' -e '^./tests/' -e '^./build' || true)
check "no script but tools/deps.sh runs apt-get install${others:+ (also: $others)}" \
	[ -z "$others" ]
# The fleet playbook installs on lab hosts, not here: its list must be a
# part of run.sh's build dependencies, which this test checks.
bdeps=$(sed -n '/^BUILD_DEPS="/,/"$/p' run.sh | tr -d '"' | sed 's/^BUILD_DEPS=//')
extra=
for p in $(sed -n '/for p in gcc/,/; do/p' fleet/playbook.yml |
	sed 's/for p in//; s/; do//; s/{{[^}]*}}//; s/\\//g'); do
	case " $(echo $bdeps) dkms " in *" $p "*) ;; *) extra="$extra $p" ;; esac
done
check "the fleet playbook installs only run.sh's build dependencies${extra:+ (not:$extra)}" \
	[ -z "$extra" ]

diag "install-plan test: $(($(date +%s) - t0)) s"
t_done
