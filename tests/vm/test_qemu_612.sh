#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The xAPIC guest of test_qemu.sh on the second kernel the modules must
# build and run on: Linux 6.12 from bookworm-backports (tests/vm/setup.sh).
IDLELAB_VM_KERNEL=6.12 exec sh "$(dirname "$0")/test_qemu.sh"
