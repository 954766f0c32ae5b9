#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The xAPIC guest of test_qemu.sh on the second kernel the modules must
# build and run on: Linux 6.12 from bookworm-backports (tests/vm/setup.sh),
# loading the modules that Debian's dkms built and installed for it
# (IDLELAB_VM_DKMS=1, vm_dkms in tests/vm/vmlib.sh); test_qemu.sh checks
# that the guest loaded exactly those (their sha256).  Without dkms the
# guest loads the make -C kmod build instead, and says so.
if command -v dkms >/dev/null; then
	export IDLELAB_VM_DKMS=1
else
	echo "# dkms missing (apt-get install dkms): the guest loads the make -C kmod build"
fi
IDLELAB_VM_KERNEL=6.12 exec sh "$(dirname "$0")/test_qemu.sh"
