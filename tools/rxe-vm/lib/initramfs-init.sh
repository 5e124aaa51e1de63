#!/bin/busybox sh
# /init of the guest's initramfs (static busybox only; prepare.sh packs this file).
# The Debian kernel has virtio_pci, 9p and overlayfs as modules, so the root cannot be 9p directly: this init loads
# them, mounts the host's / (9p share "hostroot", read-only) as the lower layer of an overlay whose upper layer is a
# tmpfs (so the guest can write anywhere without touching the host), binds the unpacked guest-kernel modules where
# modprobe looks for them (the host has no /lib/modules), mounts the read-write 9p share "out" at /mnt/out, and
# switch_roots into $RXE_GUEST_INIT (tools/rxe-vm/lib/guest-init.sh, read from the host through 9p).
# Kernel command line words of the form NAME=value without a dot reach this process as environment variables:
# RXE_VM_DIR, RXE_GUEST_INIT and RXE_UPPER_SIZE come from run.sh that way.
/bin/busybox --install -s /bin
export PATH=/bin

fail() {
  # run.sh recognises this line in the console log; poweroff ends QEMU (-no-reboot) instead of hanging until the
  # host's timeout.
  echo "rxe-vm-init: FAILED: $*"
  sleep 1
  poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
while read -r m; do
  insmod "/mods/$m" || echo "rxe-vm-init: insmod $m failed"
done </modules.list
KVER=$(uname -r)
# msize: large 9p messages make reading the JDK and jars through 9p several times faster than the default.
# cache=loose: the host root does not change under a test run, and caching saves many 9p round trips under TCG.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /lower || fail "9p mount of the host root"
mount -t tmpfs -o "size=${RXE_UPPER_SIZE:-1g},mode=755" tmpfs /upper || fail "tmpfs for the overlay"
mkdir -p /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot || fail "overlay root"
[ -n "${RXE_VM_DIR:-}" ] || fail "RXE_VM_DIR not on the kernel command line"
[ -d "/lower$RXE_VM_DIR/kroot/lib/modules/$KVER" ] || fail "no modules for $KVER under $RXE_VM_DIR/kroot"
mkdir -p "/newroot/usr/lib/modules/$KVER"
mount --bind "/lower$RXE_VM_DIR/kroot/lib/modules/$KVER" "/newroot/usr/lib/modules/$KVER" || fail "bind of the kernel modules"
mkdir -p /newroot/mnt/out
# no cache on the output share: what the guest writes must reach the host at once (run.sh polls it)
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /newroot/mnt/out || fail "9p mount of the output share"
[ -f "/newroot${RXE_GUEST_INIT:-/nonexistent}" ] || fail "guest init '${RXE_GUEST_INIT:-}' not found on the host root"
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
exec switch_root /newroot /bin/bash "$RXE_GUEST_INIT"
