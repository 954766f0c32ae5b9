#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install what the guest rig needs, from Debian's packages; idempotent, so
# run-qemu.sh calls it every time.  The test scripts themselves
# (tests/vm/test_*.sh) install nothing: without these packages they skip.
#   sh tests/vm/setup.sh           QEMU rig
#   sh tests/vm/setup.sh --bochs   also the Bochs rig
set -eu
pkgs="linux-image-amd64 linux-headers-amd64 qemu-system-x86 busybox-static"
if [ "${1:-}" = --bochs ]; then
	pkgs="$pkgs bochs bochs-term bochsbios vgabios isolinux syslinux-common xorriso"
fi
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
	echo "setup: need root to install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends $missing >&2 || {
	apt-get update >&2
	# shellcheck disable=SC2086
	apt-get install -y --no-install-recommends $missing >&2
}
