#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The debug-kernel guest profile: the modules' xAPIC guest suite
# (test_qemu.sh) and the _CST guest (test_cst.sh) on a Linux 6.1 built from Debian's linux-source-6.1 with
# lockdep (PROVE_LOCKING), KASAN, DEBUG_ATOMIC_SLEEP and
# CSD_LOCK_WAIT_DEBUG (tests/vm/debug-kernel.config).  Debian's own
# kernels have none of them, so there a locking bug in the modules leaves
# dmesg clean.  Building this kernel takes tens of minutes on two CPUs
# and its guest is slower than the others, so CI does not run it:
# developers run it on every change to kmod/ and record the result in
# BENCHMARKS.md.
#
#   sh tests/vm/debug-kernel.sh build   build (or reuse) the kernel
#   sh tests/vm/debug-kernel.sh test    build if needed, then run the suite
#   sh tests/vm/debug-kernel.sh where   print the cached kernel's root
#
# The kernel is cached between runs on one machine, keyed by the source
# package's version, the config fragment and RECIPE below (raise it when
# a change here changes what is built): IDLELAB_DEBUG_KERNEL_CACHE
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/idlelab/debug-kernel) holds
# KEY/src (the built tree, which the modules build against) and KEY/root
# (boot/ and lib/modules/, the prefix that vm_pick_kernel's
# IDLELAB_VM_ROOT takes).  A build that was stopped resumes where make
# left it.  A changed fragment is a new key; old keys are left for the
# user to remove.
cd "$(dirname "$0")/../.." || exit 1
. tools/deps.sh

what=${1:-test}
case $what in
build | test | where) ;;
*) echo "usage: $0 [build|test|where]" >&2; exit 2 ;;
esac

tarball=/usr/src/linux-source-6.1.tar.xz
frag=tests/vm/debug-kernel.config
if [ ! -s "$tarball" ] || ! command -v flex >/dev/null ||
	! command -v bison >/dev/null || ! installed libelf-dev; then
	# Only what is missing: naming an installed package to apt-get
	# install would upgrade it.
	# shellcheck disable=SC2046
	apt_install debug-kernel $(missing linux-source-6.1 flex bison \
		libelf-dev libssl-dev bc cpio) || exit 1
fi
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
RECIPE=1
key=6.1-$(printf '%s %s\n' "$srcver" "$RECIPE" | cat - "$frag" |
	sha256sum | cut -c1-12)
cache=${IDLELAB_DEBUG_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/idlelab/debug-kernel}
dir=$cache/$key
if [ "$what" = where ]; then
	echo "$dir/root"
	exit 0
fi

# build: unpack and configure once ($dir/configured), then compile and
# install into $dir/root, unless a complete build of this key is already
# there ($dir/done, written last).  make picks up where a stopped build
# left off.
build() {
	[ -f "$dir/done" ] && {
		echo "debug-kernel: reusing $dir (source $srcver)"
		return 0
	}
	t0=$(date +%s)
	if [ ! -f "$dir/configured" ]; then
		echo "debug-kernel: unpacking Linux $srcver into $dir"
		rm -rf "$dir" && mkdir -p "$dir" || return 1
		tar xJf "$tarball" -C "$dir" &&
			mv "$dir/linux-source-6.1" "$dir/src" || return 1
	else
		echo "debug-kernel: resuming the build in $dir"
	fi
	(
		cd "$dir/src" || exit 1
		[ -f "$dir/configured" ] || configure "$OLDPWD" || exit 1
		make -s -j"$(nproc)" bzImage modules >>build.log 2>&1 || {
			tail -30 build.log >&2
			exit 1
		}
		kver=$(make -s kernelrelease)
		make -s INSTALL_MOD_PATH="$dir/root" modules_install \
			>/dev/null || exit 1
		mkdir -p "$dir/root/boot"
		cp arch/x86/boot/bzImage "$dir/root/boot/vmlinuz-$kver"
		rm -f "$dir/root/lib/modules/$kver/build" \
			"$dir/root/lib/modules/$kver/source"
		ln -s "$dir/src" "$dir/root/lib/modules/$kver/build"
	) || return 1
	echo "$srcver $(date -u +%FT%TZ) $(($(date +%s) - t0)) s" > "$dir/done"
	echo "debug-kernel: built in $(($(date +%s) - t0)) s (this call)"
}

# configure REPO: in the unpacked tree (the current directory),
# defconfig with kvm_guest.config and REPO's fragment merged over it;
# $dir/configured once that worked.
configure() {
	make -s x86_64_defconfig >/dev/null &&
		scripts/kconfig/merge_config.sh -m .config \
			kernel/configs/kvm_guest.config "$1/$frag" \
			>merge.log 2>&1 &&
		make -s olddefconfig >/dev/null || return 1
	# A fragment line the Kconfig dependencies dropped would leave the
	# kernel without a check it is built for: refuse that.
	bad=0
	for opt in PROVE_LOCKING KASAN DEBUG_ATOMIC_SLEEP CSD_LOCK_WAIT_DEBUG \
		NET_9P_VIRTIO 9P_FS VIRTIO_PCI; do
		grep -qx "CONFIG_$opt=y" .config || {
			echo "debug-kernel: CONFIG_$opt did not stay set" >&2
			bad=1
		}
	done
	[ $bad = 0 ] && touch "$dir/configured"
}

build || exit 1
[ "$what" = build ] && exit 0
# The suites themselves, with a longer guest limit: KASAN and lockdep make
# the emulated guest several times slower.  The xAPIC suite, then the _CST
# guest (test_cst.sh, when iasl is there), whose ACPI entry method is the
# one path of the modules that the xAPIC guest can only see refused.
echo "debug-kernel: test_qemu.sh on $(ls "$dir/root/boot") at $(git rev-parse --short HEAD 2>/dev/null)"
export IDLELAB_VM_ROOT="$dir/root" IDLELAB_VM_KERNEL=6.1 \
	IDLELAB_VM_TIMEOUT="${IDLELAB_VM_TIMEOUT:-1800}" IDLELAB_VM_DEBUG_KERNEL=1
rc=0
sh tests/vm/test_qemu.sh || rc=1
echo "debug-kernel: test_cst.sh on the same kernel"
IDLELAB_CST_KERNELS=6.1 sh tests/vm/test_cst.sh || rc=1
exit $rc
