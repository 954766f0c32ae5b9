# SPDX-License-Identifier: GPL-2.0-only
# Shared by run-qemu.sh and run-bochs.sh (source it from the repository
# root): pick the Debian kernel, build the modules against its headers and
# the static test client, and pack the initramfs.  Sets KVER, KIMG, INITRD.

# The newest kernel that has both an image and a build tree.
vm_pick_kernel() {
	KVER=
	for img in $(ls /boot/vmlinuz-* 2>/dev/null | sort -V); do
		v=${img#/boot/vmlinuz-}
		[ -d "/lib/modules/$v/build" ] && KVER=$v
	done
	if [ -z "$KVER" ]; then
		echo "vm: no /boot/vmlinuz-* with /lib/modules/*/build" >&2
		return 1
	fi
	KIMG=/boot/vmlinuz-$KVER
	KDIR=/lib/modules/$KVER/build
}

# vm_build OUT: modules and client under OUT, initramfs at OUT/initrd.cpio.gz
vm_build() {
	out=$1
	rm -rf "$out/kmod" "$out/root"
	mkdir -p "$out/kmod" "$out/root/bin" "$out/root/lib/modules" \
		"$out/root/proc" "$out/root/sys" "$out/root/dev" \
		"$out/root/tmp" "$out/root/mnt"
	# Build a copy, so the source tree gets no build products.
	(cd kmod && tar cf - --exclude='*.o' --exclude='*.ko' \
		--exclude='*.cmd' --exclude='*.mod*' --exclude=Module.symvers \
		--exclude=modules.order .) | (cd "$out/kmod" && tar xf -)
	make -s -C "$out/kmod" KDIR="$KDIR" >"$out/kmod-build.log" 2>&1 || {
		cat "$out/kmod-build.log" >&2
		return 1
	}
	if grep -i 'warning' "$out/kmod-build.log" | grep -v 'Skipping BTF' \
		>&2; then
		echo "vm: module build warnings" >&2
		return 1
	fi
	cp "$out/kmod/cstate/idlelab_cstate.ko" "$out/kmod/ipi/idlelab_ipi.ko" \
		"$out/root/lib/modules/"
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -static -pthread \
		-Ikmod/include tests/vm/kmod-client.c \
		-o "$out/root/bin/kmod-client" || return 1
	cp /bin/busybox "$out/root/bin/busybox"
	ln -sf busybox "$out/root/bin/sh"
	cp tests/vm/guest-init.sh "$out/root/init"
	chmod 755 "$out/root/init"
	if [ "${VM_9P:-1}" = 1 ]; then
		for m in virtio_ring virtio virtio_pci_legacy_dev \
			 virtio_pci_modern_dev virtio_pci netfs fscache 9pnet \
			 9pnet_virtio 9p; do
			f=$(find "/lib/modules/$KVER/kernel" -name "$m.ko" | head -1)
			[ -n "$f" ] || { echo "vm: no $m.ko" >&2; return 1; }
			cp "$f" "$out/root/lib/modules/"
		done
	fi
	INITRD=$out/initrd.cpio.gz
	(cd "$out/root" && find . | cpio -o -H newc --quiet) | gzip -1 \
		> "$INITRD"
}
