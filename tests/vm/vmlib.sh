# SPDX-License-Identifier: GPL-2.0-only
# Shared by run-qemu.sh and run-bochs.sh (source it from the repository
# root): pick the Debian kernel, build the modules against its headers,
# the static test client and the idlelab CLI, and pack the initramfs.
# Sets KVER, KIMG, INITRD.

# vm_pick_kernel: the kernel of the series IDLELAB_VM_KERNEL names (6.1,
# bookworm's, by default; 6.12 from bookworm-backports), the newest of that
# series with both an image and a build tree.  Named explicitly, because
# installing the 6.12 headers pulls in the 6.12 image too, and a rig that
# took "the newest kernel" would silently switch.  IDLELAB_VM_ROOT is a
# prefix holding boot/ and lib/modules/ (an unpacked kernel package;
# default /), IDLELAB_VM_KDIR the build tree when it is not at
# lib/modules/VERSION/build.
vm_pick_kernel() {
	series=${IDLELAB_VM_KERNEL:-6.1}
	root=${IDLELAB_VM_ROOT:-}
	KVER=
	for img in $(ls "$root"/boot/vmlinuz-* 2>/dev/null | sort -V); do
		v=${img##*/vmlinuz-}
		case $v in "$series".* | "$series"-*) ;; *) continue ;; esac
		[ -d "${IDLELAB_VM_KDIR:-$root/lib/modules/$v/build}" ] && KVER=$v
	done
	if [ -z "$KVER" ]; then
		echo "vm: no $root/boot/vmlinuz-$series.* with a build tree (tests/vm/setup.sh installs 6.1 and 6.12)" >&2
		return 1
	fi
	KIMG=$root/boot/vmlinuz-$KVER
	KDIR=${IDLELAB_VM_KDIR:-$root/lib/modules/$KVER/build}
	KMODS=$root/lib/modules/$KVER/kernel
}

# vm_idlelab OUT: the real idlelab CLI (a release build, in build-vm/idlelab)
# and the sqlite3 CLI into the initramfs under OUT/root, with every shared
# library ldd names and the dynamic loader at their own paths, and the
# guest's campaign file.
vm_idlelab() {
	out=$1
	b=build-vm/idlelab
	make -s -j"$(nproc)" BUILD=$b CC="${CC:-cc}" "$b/idlelab" \
		>"$out/idlelab-build.log" 2>&1 || {
		cat "$out/idlelab-build.log" >&2
		return 1
	}
	strip -o "$out/root/bin/idlelab" "$b/idlelab" || return 1
	# sqlite3 too: the Bochs guest reads its database with it.
	cp /usr/bin/sqlite3 "$out/root/bin/sqlite3" || return 1
	for lib in $(ldd "$b/idlelab" /usr/bin/sqlite3 | sed -n \
		-e 's/.*=> \(\/[^ ]*\) .*/\1/p' \
		-e 's/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
		mkdir -p "$out/root$(dirname "$lib")"
		cp -L "$lib" "$out/root$lib" || return 1
	done
	mkdir -p "$out/root/etc/idlelab"
	# The guest's own campaign, and the seed campaigns it runs shrunk.
	cp tests/vm/guest-campaign.yaml data/campaigns/seed00*.yaml \
		"$out/root/etc/idlelab/" || return 1
	# Seed 001's storms wait 10 ms (the default) for a round's NMIs; a
	# vCPU unscheduled that long on a busy 2-core host fails the run ("a
	# target's NMI never arrived", 2 of 5 guests with two busy loops on
	# the host, 2026-12-02).  The guests wait the longest round the ABI
	# allows, as guest-init.sh's own storms do ($T there).
	f=$out/root/etc/idlelab/seed001-ipi-modes.yaml
	sed -i 's/^\( *\)rounds: 10000$/&\n\1timeout_us: 1000000/' "$f" &&
		grep -q '^ *timeout_us: 1000000$' "$f" || {
		echo "vmlib: seed 001's storm group has no 'rounds: 10000' line to extend" >&2
		return 1
	}
}

# vm_dkms OUT: build the modules for KVER the way a user installs them,
# with Debian's dkms (add, build, install against KVER's headers, nothing
# loaded), into trees of its own under OUT/dkms so that neither /usr/src
# nor /var/lib/dkms nor /lib/modules is touched, and copy the installed
# modules to OUT/kmod/ (uncompressed), where vm_build takes them from.
# OUT/kmod-origin records "dkms" and each module's sha256, which the
# guest reports for the module it loaded.
vm_dkms() {
	out=$1
	d=$out/dkms
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' kmod/dkms.conf)
	rm -rf "$d"
	mkdir -p "$d/src" "$d/tree" "$d/install/$KVER"
	cp -r kmod "$d/src/idlelab-$ver" || return 1
	set -- --sourcetree "$d/src" --dkmstree "$d/tree" \
		--installtree "$d/install" --kernelsourcedir "$KDIR"
	{ dkms add "idlelab/$ver" "$@" &&
	  dkms build "idlelab/$ver" -k "$KVER" "$@" &&
	  dkms install "idlelab/$ver" -k "$KVER" "$@"; } \
		>"$out/dkms.log" 2>&1 || {
		cat "$out/dkms.log" >&2
		cat "$d/tree/idlelab/$ver/$KVER"/*/log/make.log >&2 2>/dev/null
		return 1
	}
	echo dkms > "$out/kmod-origin"
	for m in idlelab_cstate idlelab_ipi; do
		f=$(find "$d/install/$KVER" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
		case $f in
		*.xz) xz -dc "$f" > "$out/kmod/$m.ko" || return 1 ;;
		?*) cp "$f" "$out/kmod/$m.ko" || return 1 ;;
		*) echo "vm: dkms installed no $m for $KVER" >&2; return 1 ;;
		esac
		echo "$m $(sha256sum "$out/kmod/$m.ko" | cut -d' ' -f1)" \
			>> "$out/kmod-origin"
	done
}

# vm_build OUT: modules and client under OUT, initramfs at OUT/initrd.cpio.gz.
# With IDLELAB_VM_DKMS=1 the modules the guest loads are DKMS's (vm_dkms);
# the make -C kmod build still runs first, for its warning check.
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
	if [ "${IDLELAB_VM_DKMS:-0}" = 1 ]; then
		# The guest loads the modules DKMS built (vm_dkms).
		vm_dkms "$out" || return 1
		cp "$out/kmod/idlelab_cstate.ko" "$out/kmod/idlelab_ipi.ko" \
			"$out/root/lib/modules/"
	else
		echo make > "$out/kmod-origin"
		cp "$out/kmod/cstate/idlelab_cstate.ko" \
			"$out/kmod/ipi/idlelab_ipi.ko" "$out/root/lib/modules/"
	fi
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -static -pthread \
		-Ikmod/include tests/vm/kmod-client.c \
		tests/vm/kmod-client-cstate.c tests/vm/kmod-client-ipi.c \
		tests/vm/kmod-client-bad.c tests/vm/kmod-client-limits.c \
		tests/vm/kmod-client-hotplug.c tests/vm/kmod-client-noop.c \
		tests/vm/kmod-client-nmik.c \
		-o "$out/root/bin/kmod-client" || return 1
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -static \
		tests/vm/swevent-hold.c -o "$out/root/bin/swevent-hold" ||
		return 1
	vm_idlelab "$out" || return 1
	cp /bin/busybox "$out/root/bin/busybox"
	ln -sf busybox "$out/root/bin/sh"
	cp tests/vm/guest-init.sh "$out/root/init"
	cp tests/vm/guest-steps.sh tests/vm/guest-cst-*.sh \
		"$out/root/etc/idlelab/" || return 1
	chmod 755 "$out/root/init"
	if [ "${VM_9P:-1}" = 1 ]; then
		# 9p over virtio, with whatever it needs as modules on this
		# kernel (6.1 has virtio and fscache as modules, 6.12 builds
		# them in), in load order; guest-init.sh reads modules.order.
		: > "$out/root/lib/modules/modules.order"
		vm_add_module "$out" virtio_pci || return 1
		vm_add_module "$out" 9pnet_virtio || return 1
		vm_add_module "$out" 9p || return 1
	fi
	if [ -n "${VM_XEN:-}" ]; then
		vm_xen "$out" "$VM_XEN" || return 1
	fi
	INITRD=$out/initrd.cpio.gz
	(cd "$out/root" && find . | cpio -o -H newc --quiet) | gzip -1 \
		> "$INITRD"
}

# vm_xen OUT XENDIR: what the Xen dom0 guest adds to the initramfs, from the
# packages tests/vm/setup.sh --xen unpacked in XENDIR: xenpm and the
# libraries it loads (libxenctrl and the small libxen*), and xen-privcmd,
# the driver of the /dev/xen/privcmd that those libraries make hypercalls
# through.  xenpm reads Xen's own idle states, which dom0's cpuidle does
# not see.
vm_xen() {
	local r=$2/root lib
	cp "$r/usr/lib/xen-4.17/bin/xenpm" "$1/root/bin/xenpm" || return 1
	mkdir -p "$1/root/usr/lib/x86_64-linux-gnu"
	for lib in libxenctrl.so.4.17 libxentoollog.so.1 libxencall.so.1 \
		libxenevtchn.so.1 libxengnttab.so.1 libxenforeignmemory.so.1 \
		libxendevicemodel.so.1 libxentoolcore.so.1; do
		cp -L "$r/usr/lib/x86_64-linux-gnu/$lib" \
			"$1/root/usr/lib/x86_64-linux-gnu/" || return 1
	done
	vm_add_module "$1" xen-privcmd
}

# vm_add_module OUT NAME: copy module NAME of the picked kernel, after the
# modules it depends on (modinfo's "depends"), uncompressed, into the
# initramfs, and append each to lib/modules/modules.order once.  A module
# built into this kernel is skipped.
vm_add_module() {
	local f d
	grep -qx "$2" "$1/root/lib/modules/modules.order" && return 0
	f=$(find "$KMODS" -name "$2.ko" -o -name "$2.ko.xz" | head -1)
	if [ -z "$f" ]; then
		grep -q "/$2.ko\$" "$KMODS/../modules.builtin" 2>/dev/null &&
			return 0
		echo "vm: no module $2 in $KMODS, and not built in" >&2
		return 1
	fi
	for d in $(modinfo -F depends "$f" | tr ',' ' '); do
		vm_add_module "$1" "$d" || return 1
	done
	case $f in
	*.xz) xz -dc "$f" > "$1/root/lib/modules/$2.ko" || return 1 ;;
	*) cp "$f" "$1/root/lib/modules/$2.ko" || return 1 ;;
	esac
	echo "$2" >> "$1/root/lib/modules/modules.order"
}

# The Bochs watchdog's probes (run-bochs.sh; tests/vm/test_watchdog.sh
# checks them on processes made to block).  Each reads /proc only.

# vm_cpu_ticks PID: user+system clock ticks of the whole process so far.
vm_cpu_ticks() {
	# Fields 14 and 15, counted after the ")" that ends the command name,
	# which may itself hold spaces.
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null |
		awk '{ print $12 + $13 }' | grep . || return 1
}

# vm_wchan PID: the wait channel of each of its threads, comma-separated.
vm_wchan() {
	for t in /proc/"$1"/task/*; do
		cat "$t/wchan" 2>/dev/null
		echo
	done | grep . | sort -u | paste -sd, -
}

# vm_tty_blocked PID: succeed, printing which thread and terminal, when a
# thread of PID sleeps inside a write(2) or writev(2) to a terminal (a pty
# master or slave, or a tty): that write can only finish when someone
# reads the other end.  Reads /proc/PID/task/TID/syscall, which needs the
# same user or root, so no kernel symbols are needed.
vm_tty_blocked() {
	for t in /proc/"$1"/task/*; do
		set -- $(cat "$t/syscall" 2>/dev/null)
		# x86-64 syscall numbers: 1 write, 20 writev.
		case ${1:-} in 1 | 20) ;; *) continue ;; esac
		fd=$(($2))
		target=$(readlink "${t%/task/*}/fd/$fd" 2>/dev/null)
		case $target in
		/dev/ptmx | /dev/pts/* | /dev/tty*) ;;
		*) continue ;;
		esac
		st=$(sed 's/^.*) //' "$t/stat" | cut -d' ' -f1)
		[ "$st" = S ] || [ "$st" = D ] || continue
		echo "thread ${t##*/} sleeps in write(fd $fd -> $target), wchan $(cat "$t/wchan" 2>/dev/null)"
		return 0
	done
	return 1
}

# vm_drain_pty LOG: when Bochs's term display has said which pty it draws
# on ('Bochs connected to screen "/dev/pts/N"'), read and discard that
# pty in the background for as long as it stays open, and print the
# reader's pid; print nothing while Bochs has not said so yet.
vm_drain_pty() {
	pts=$(sed -n 's/.*connected to screen "\(\/dev\/pts\/[0-9]*\)".*/\1/p' \
		"$1" 2>/dev/null | head -1)
	[ -n "$pts" ] && [ -c "$pts" ] || return 0
	# Non-canonical and without echo, or a reader waits for a newline
	# that a screen painter may never send, and the echo would come back
	# to Bochs as keystrokes.  Bochs's curses asks for the same (cbreak,
	# noecho); whichever of us sets it last, the line stays raw enough.
	stty -F "$pts" raw -echo 2>/dev/null
	cat "$pts" >/dev/null 2>&1 </dev/null &
	echo $!
}
