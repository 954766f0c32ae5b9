#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the rig's initramfs (tests/vm/run-qemu.sh, run-bochs.sh): mount
# the pseudo file systems, reach the host (a 9p share under QEMU, else the
# serial console), load the idlelab modules, run kmod-client, check that the
# modules refuse to unload while open and unload cleanly when closed, save
# dmesg, power off.  Every result is one JSON line; the host asserts.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "IDLELAB-GUEST-UP"

SHARE=
if [ -e /lib/modules/9p.ko ]; then
	for m in virtio_ring virtio virtio_pci_legacy_dev \
		 virtio_pci_modern_dev virtio_pci netfs fscache 9pnet \
		 9pnet_virtio 9p; do
		insmod /lib/modules/$m.ko || echo "insmod $m failed"
	done
	mkdir -p /mnt/share
	if mount -t 9p -o trans=virtio,version=9p2000.L share /mnt/share; then
		SHARE=/mnt/share
	fi
fi
OUT=${SHARE:-/tmp}
R=$OUT/results.jsonl
: > "$R"

jl() { echo "$*" >> "$R"; }

# The host's dmesg check starts at this line.
echo "idlelab-rig: loading the idlelab modules" > /dev/kmsg
for m in idlelab_cstate idlelab_ipi; do
	insmod /lib/modules/$m.ko
	jl "{\"op\":\"insmod\",\"module\":\"$m\",\"rc\":$?}"
done
# idlelab.client=cstate on the kernel command line: the short Bochs run.
args=$(sed -n 's/.*idlelab\.client=\([a-z]*\).*/\1/p' /proc/cmdline)
# shellcheck disable=SC2086
/bin/kmod-client $args >> "$R" 2> "$OUT/client.stderr"
jl "{\"op\":\"client_exit\",\"rc\":$?}"

# Unload while open must be refused; once closed it must succeed.
for m in cstate ipi; do
	exec 3< /dev/idlelab_$m
	rmmod idlelab_$m 2>/dev/null
	rc_open=$?
	exec 3<&-
	rmmod idlelab_$m
	rc_closed=$?
	grep -q "^idlelab_$m " /proc/modules
	still=$((1 - $?))
	jl "{\"op\":\"rmmod\",\"module\":\"idlelab_$m\",\"rc_open\":$rc_open,\"rc_closed\":$rc_closed,\"still_loaded\":$still}"
done

if [ -n "$SHARE" ]; then
	dmesg > "$OUT/dmesg.txt"
else
	# The serial line is slow under Bochs: only the lines the host greps.
	dmesg | grep -E 'Linux version|idlelab-rig|idlelab|BUG|WARN|Oops|Call Trace|lockup|LOCKUP|protection|NMI' \
		> "$OUT/dmesg.txt"
fi
jl '{"op":"end"}'
if [ -z "$SHARE" ]; then
	# No 9p (Bochs): the results travel base64 on the serial console.
	for f in results.jsonl dmesg.txt client.stderr; do
		echo "IDLELAB-BEGIN $f"
		base64 "$OUT/$f"
		echo "IDLELAB-END $f"
	done
else
	sync
	umount "$SHARE"
fi
echo "IDLELAB-GUEST-DONE"
if [ -z "$SHARE" ]; then
	# poweroff -f drops what still sits in the UART's 4 KiB transmit
	# buffer; "sleep" may stall for minutes under Bochs, so push 6 KiB of
	# padding through instead: once the host sees the marker above, all
	# that came before it is in the serial log.
	i=0
	while [ $i -lt 80 ]; do
		echo "IDLELAB-PAD ..........................................................."
		i=$((i + 1))
	done
fi
poweroff -f
