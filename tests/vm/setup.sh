#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install what the guest rig needs, from Debian's packages; idempotent, so
# run-qemu.sh calls it every time.  The test scripts themselves
# (tests/vm/test_*.sh) install nothing: without these packages they skip.
#   sh tests/vm/setup.sh           QEMU rig
#   sh tests/vm/setup.sh --bochs   also the Bochs rig
#   sh tests/vm/setup.sh --xen     also the Xen guest's files (below)
# acpica-tools (iasl) compiles the _CST guest's SSDT (tests/vm/cst-ssdt.asl).
# dkms is for the 6.12 guest, which loads the modules DKMS built
# (IDLELAB_VM_DKMS=1, tests/vm/test_qemu_612.sh).  With IDLELAB_APT set
# (./run.sh --print-plan, tools/deps.sh) the installs are printed or
# checked instead of run.
#
# Two kernels are tested, each named explicitly (tests/vm/vmlib.sh):
# bookworm's 6.1 and bookworm-backports' 6.12.  QEMU comes from
# bookworm-backports too (10.0), because only its TCG emulates x2APIC.
# The backports suite is added as an apt source here and nowhere else.
# It is NotAutomatic, so apt takes nothing from it unasked; and nothing
# but the packages this script names is taken from it, nor is anything
# else upgraded (tests/integration/test_install_plan.sh proves both in a
# pristine root, and fails when a line breaks them).
set -eu
here=$(dirname "$0")
. "$here/../../tools/deps.sh"
SRC=/etc/apt/sources.list.d/idlelab-bookworm-backports.sources
stable="linux-image-amd64 linux-headers-amd64 busybox-static dkms acpica-tools"
xen=0
for a in "$@"; do
	case $a in
	--bochs) stable="$stable bochs bochs-term bochsbios vgabios isolinux syslinux-common xorriso" ;;
	--xen) xen=1 ;;
	*) echo "usage: $0 [--bochs] [--xen]" >&2; exit 2 ;;
	esac
done
# QEMU 10 and those of its dependencies whose bookworm version is too old
# for it.  Each is pinned to its backports version (NAME=VERSION), not
# asked for as NAME/bookworm-backports: apt resolves the dependencies of
# a NAME/SUITE request from SUITE as well where it can, and so took
# libbpf1 from backports although bookworm's satisfies QEMU.  Naming
# qemu-system-x86 alone fails on a pristine machine (bookworm's
# qemu-system-common, qemu-system-data and seabios are too old), and
# `-t bookworm-backports` upgrades linux-libc-dev, linux-perf and
# linux-source to 6.12 besides.
qemu_bpo="qemu-system-x86 qemu-system-common qemu-system-data seabios"

# kpkgs SUITE: the kernel image and headers packages by their versioned
# names, which the unversioned linux-image-amd64 of SUITE depends on.
kpkgs() {
	apt-cache depends "linux-image-amd64/$1" "linux-headers-amd64/$1" \
		2>/dev/null | sed -n 's/^  Depends: \(linux-\(image\|headers\)-[0-9].*-amd64\)$/\1/p'
}
# bpo_version PKG: PKG's version in bookworm-backports, or nothing.
bpo_version() {
	apt-cache show "$1/bookworm-backports" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}
need_root() {
	if [ "$(id -u)" -ne 0 ] && ! plan_mode; then
		echo "setup: need root to $*" >&2
		exit 1
	fi
}

# Printing a plan changes nothing, not even the apt sources, so without
# the backports source the 6.12 and QEMU 10 names cannot be resolved yet.
src_pending=0
if [ ! -f "$SRC" ] && [ "${IDLELAB_APT:-}" = print ]; then
	echo "# add $SRC (bookworm-backports), then: apt-get update"
	src_pending=1
elif [ ! -f "$SRC" ]; then
	need_root "add the bookworm-backports apt source ($SRC)"
	cat > "$SRC" <<EOF2
# Added by idlelab's tests/vm/setup.sh: QEMU 10 (x2APIC under TCG) and
# Linux 6.12 for the kernel-module guest rig.
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF2
	apt_get update >&2
fi

# shellcheck disable=SC2086
need=$(missing $stable | tr '\n' ' ')
if [ -n "$need" ]; then
	need_root "install $need"
	echo "setup: installing $need" >&2
	# shellcheck disable=SC2086
	apt_install "setup bookworm" $need
fi
if [ $src_pending = 1 ]; then
	echo "# then: the 6.12 kernel and QEMU 10 from bookworm-backports, by the" \
		"names and versions the source lists ($qemu_bpo)"
	exit 0
fi
# Keep 6.1 when linux-image-amd64 moves to 6.12 below: mark its versioned
# packages as wanted in their own right.
k61=$(dpkg-query -W -f='${Package}\n' 'linux-image-6.1.*-amd64' \
	'linux-headers-6.1.*-amd64' 2>/dev/null | grep -v -- '-common$' || true)
# The 6.12 kernel and QEMU 10, by name, from bookworm-backports.
k612=$(kpkgs bookworm-backports)
if [ -z "$k612" ]; then
	echo "setup: bookworm-backports lists no linux-image-amd64 (run apt-get update)" >&2
	exit 1
fi
# shellcheck disable=SC2086
bneed=$(missing $k612 | tr '\n' ' ')
qv=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
case $qv in
1:1[0-9].*) ;;
*)
	for p in $qemu_bpo; do
		v=$(bpo_version "$p")
		if [ -z "$v" ]; then
			echo "setup: bookworm-backports lists no $p (run apt-get update)" >&2
			exit 1
		fi
		bneed="$bneed$p=$v "
	done
	;;
esac
if [ -n "$bneed" ]; then
	need_root "install $bneed"
	echo "setup: installing from bookworm-backports: $bneed" >&2
	# shellcheck disable=SC2086
	[ -n "$k61" ] && apt_mark manual $k61
	# shellcheck disable=SC2086
	apt_install "setup bookworm-backports" $bneed
fi

# The Xen PV dom0 guest (tests/vm/test_xen.sh): Xen 4.17's hypervisor, and
# xenpm with the libraries it loads, for the guest's initramfs.  Never
# installed: installing xen-hypervisor rewrites the host's boot loader.
# They are downloaded and unpacked (apt-get download, dpkg-deb -x) into
# XENDIR, once; a version stamp says what is there.
[ "$xen" = 1 ] || exit 0
XENDIR=${IDLELAB_XEN_DIR:-$here/../../build-vm/xen}
xen_pkgs="xen-hypervisor-4.17-amd64 xen-utils-4.17 libxenmisc4.17 libxencall1
libxenevtchn1 libxengnttab1 libxenforeignmemory1 libxendevicemodel1
libxentoollog1 libxentoolcore1"
if plan_mode; then
	# shellcheck disable=SC2086
	echo "# download and unpack (not install) into $XENDIR:" $xen_pkgs
	exit 0
fi
xv=$(apt-cache policy xen-hypervisor-4.17-amd64 2>/dev/null |
	sed -n 's/^  Candidate: //p')
case $xv in
'' | '(none)')
	echo "setup: apt lists no xen-hypervisor-4.17-amd64 (run apt-get update)" >&2
	exit 1 ;;
esac
[ "$(cat "$XENDIR/version" 2>/dev/null)" = "$xv" ] && exit 0
rm -rf "$XENDIR"
mkdir -p "$XENDIR/deb" "$XENDIR/root"
# shellcheck disable=SC2086
(cd "$XENDIR/deb" && apt-get download $xen_pkgs) >&2 || {
	echo "setup: apt-get download of the Xen packages failed" >&2
	exit 1
}
for d in "$XENDIR"/deb/*.deb; do
	dpkg-deb -x "$d" "$XENDIR/root" || exit 1
done
gzip -dc "$XENDIR/root/boot/xen-4.17-amd64.gz" > "$XENDIR/xen" || exit 1
echo "$xv" > "$XENDIR/version"
echo "setup: Xen $xv unpacked in $XENDIR" >&2
