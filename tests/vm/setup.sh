#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install what the guest rig needs, from Debian's packages; idempotent, so
# run-qemu.sh calls it every time.  The test scripts themselves
# (tests/vm/test_*.sh) install nothing: without these packages they skip.
#   sh tests/vm/setup.sh           QEMU rig
#   sh tests/vm/setup.sh --bochs   also the Bochs rig
# dkms is for the 6.12 guest, which loads the modules DKMS built
# (IDLELAB_VM_DKMS=1, tests/vm/test_qemu_612.sh).
#
# Two kernels are tested, each named explicitly (tests/vm/vmlib.sh):
# bookworm's 6.1 and bookworm-backports' 6.12.  QEMU comes from
# bookworm-backports too (10.0), because only its TCG emulates x2APIC.
# The backports suite is added as an apt source here and nowhere else; it
# is NotAutomatic in Debian's Release file, so nothing but the packages
# named with /bookworm-backports below is taken from it.
set -eu
SRC=/etc/apt/sources.list.d/idlelab-bookworm-backports.sources
stable="linux-image-amd64 linux-headers-amd64 busybox-static dkms"
bpo="qemu-system-x86"
if [ "${1:-}" = --bochs ]; then
	stable="$stable bochs bochs-term bochsbios vgabios isolinux syslinux-common xorriso"
fi

installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null |
		grep -q '^install ok installed$'
}
# The 6.1 and 6.12 kernel packages by their versioned names, which the
# unversioned linux-image-amd64 of each suite depends on.
kpkgs() {
	apt-cache depends "linux-image-amd64/$1" "linux-headers-amd64/$1" \
		2>/dev/null | sed -n 's/^  Depends: \(linux-\(image\|headers\)-[0-9].*-amd64\)$/\1/p'
}
need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: need root to $*" >&2
		exit 1
	fi
}

if [ ! -f "$SRC" ]; then
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
	apt-get update >&2
fi

missing=
for p in $stable; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	need_root "install$missing"
	echo "setup: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	apt-get install -y --no-install-recommends $missing >&2
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
bmissing=
for p in $k612; do
	installed "$p" || bmissing="$bmissing $p"
done
qv=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
case $qv in 1:1[0-9].*) ;; *) bmissing="$bmissing qemu-system-x86/bookworm-backports" ;; esac
if [ -n "$bmissing" ]; then
	need_root "install$bmissing"
	echo "setup: installing from bookworm-backports:$bmissing" >&2
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	[ -n "$k61" ] && apt-mark manual $k61 >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y --no-install-recommends $bmissing >&2
fi
