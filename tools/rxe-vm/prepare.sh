#!/usr/bin/env bash
# Prepare the Soft-RoCE test VM (idempotent):
#   1. install the missing Debian packages (QEMU, static busybox, kmod, cpio, rdma-core, libfabric tools ...),
#   2. download and unpack (not install) the Debian kernel image package into $RXE_VM_DIR/kroot, run depmod,
#   3. build $RXE_VM_DIR/initramfs.cpio.gz (static busybox + the modules needed to mount the host over 9p).
# Everything large lives outside the repository, in $RXE_VM_DIR (default /var/tmp/gexj-rxe-vm).
# A second run does no network access and rebuilds only what is missing or out of date.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$HERE/lib/common.sh"

APT=(apt-get -o DPkg::Lock::Timeout=600)

# Host packages. qemu-system-x86 boots the guest; busybox-static and cpio make the initramfs; kmod gives depmod and
# modprobe (neither is on the stock image); the rdma/verbs/libfabric packages are used *inside* the guest, which runs
# the host's userland over 9p, so they must be installed on the host.
PKGS=(qemu-system-x86 busybox-static kmod cpio gzip iproute2 coreutils util-linux
      rdma-core ibverbs-providers libibverbs1 ibverbs-utils librdmacm1 libfabric1 libfabric-bin)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  [ "$(id -u)" = 0 ] || die 97 "missing Debian packages: ${missing[*]} (run this script as root so it can apt-get install them)"
  log "installing Debian packages: ${missing[*]}"
  # apt-get update once: on a fresh machine the package lists are empty or stale.
  "${APT[@]}" update -qq || die 97 "apt-get update failed; still missing: ${missing[*]}"
  if ! DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y -qq --no-install-recommends "${missing[@]}" >"$RXE_VM_DIR/apt.log" 2>&1; then
    tail -20 "$RXE_VM_DIR/apt.log" >&2
    still=()
    for p in "${missing[@]}"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || still+=("$p")
    done
    die 97 "apt-get install failed; missing Debian packages: ${still[*]} (log: $RXE_VM_DIR/apt.log)"
  fi
fi
for t in qemu-system-x86_64 depmod modprobe cpio gzip dpkg-deb timeout; do
  command -v "$t" >/dev/null || die 97 "missing program on the host: $t"
done
{ [ -x /bin/busybox ] && file_is_static /bin/busybox; } || die 97 "missing a static /bin/busybox (Debian package busybox-static)"

mkdir -p "$RXE_VM_DIR/dl"

# Kernel: reuse an already unpacked one (no apt access on later runs); otherwise take the version that Debian's
# linux-image-amd64 metapackage currently depends on (or $RXE_VM_KPKG) and unpack it without installing it:
# the host kernel is not touched and the host has no /lib/modules.
KVER=""
if [ -f "$RXE_VM_DIR/kver" ]; then
  KVER=$(cat "$RXE_VM_DIR/kver")
  [ -f "$RXE_VM_DIR/kroot/boot/vmlinuz-$KVER" ] && [ -d "$RXE_VM_DIR/kroot/lib/modules/$KVER/kernel" ] || KVER=""
fi
if [ -z "$KVER" ]; then
  KPKG=${RXE_VM_KPKG:-}
  if [ -z "$KPKG" ]; then
    KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}' || true)
    if [ -z "$KPKG" ]; then
      # empty package lists on a fresh machine: update once and ask again
      "${APT[@]}" update -qq || true
      KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}' || true)
    fi
    [ -n "$KPKG" ] || die 97 "cannot find the Debian kernel package: 'apt-cache depends linux-image-amd64' names no linux-image-<version> (set RXE_VM_KPKG=linux-image-<kver>)"
  fi
  KVER=${KPKG#linux-image-}
  log "kernel package $KPKG (kernel $KVER)"
  deb=$(find "$RXE_VM_DIR/dl" -maxdepth 1 -name "${KPKG}_*.deb" | head -1)
  if [ -z "$deb" ]; then
    # apt drops root to _apt for downloads; let it write there (avoids the "unsandboxed" warning)
    if id _apt >/dev/null 2>&1; then chown _apt "$RXE_VM_DIR/dl"; fi
    (cd "$RXE_VM_DIR/dl" && apt-get download "$KPKG") || die 97 "apt-get download $KPKG failed (missing: the kernel image .deb)"
    deb=$(find "$RXE_VM_DIR/dl" -maxdepth 1 -name "${KPKG}_*.deb" | head -1)
  fi
  [ -n "$deb" ] || die 97 "apt-get download $KPKG produced no .deb in $RXE_VM_DIR/dl"
  rm -rf "$RXE_VM_DIR/kroot.tmp"
  dpkg-deb -x "$deb" "$RXE_VM_DIR/kroot.tmp"
  [ -f "$RXE_VM_DIR/kroot.tmp/boot/vmlinuz-$KVER" ] || die 97 "$deb has no boot/vmlinuz-$KVER"
  rm -rf "$RXE_VM_DIR/kroot"
  mv "$RXE_VM_DIR/kroot.tmp" "$RXE_VM_DIR/kroot"
  echo "$KVER" >"$RXE_VM_DIR/kver"
fi
MODDIR="$RXE_VM_DIR/kroot/lib/modules/$KVER"
# The .deb carries no modules.dep (its postinst would make it), and modprobe in the guest needs it.
if [ ! -s "$MODDIR/modules.dep" ]; then
  log "depmod for $KVER"
  depmod -b "$RXE_VM_DIR/kroot" "$KVER"
fi
# The guest loads these later with modprobe; check now so a kernel without them fails here, not in the VM.
for m in rdma_rxe ib_uverbs rdma_ucm dummy virtio_pci 9pnet_virtio 9p overlay; do
  modprobe -d "$RXE_VM_DIR/kroot" -S "$KVER" --show-depends "$m" >/dev/null 2>&1 || die 97 "kernel $KVER has no module $m"
done

# Initramfs: rebuilt when missing or when its inputs (init script, kernel) changed. The stamp is the hash of
# those inputs, which run.sh compares to refuse a stale initramfs.
stamp=$(initramfs_stamp "$KVER")
if [ -f "$RXE_VM_DIR/initramfs.cpio.gz" ] && [ "$(cat "$RXE_VM_DIR/initramfs.stamp" 2>/dev/null)" = "$stamp" ]; then
  log "initramfs up to date"
else
  log "building initramfs"
  ird="$RXE_VM_DIR/initramfs.d"
  rm -rf "$ird"
  mkdir -p "$ird"/{bin,proc,sys,dev,mods,lower,upper,newroot}
  cp /bin/busybox "$ird/bin/busybox"
  # virtio_pci, 9p and overlay are modules in Debian's kernel, so the initramfs must insmod them (in dependency
  # order, as modprobe --show-depends lists them) before it can mount the host root.
  : >"$ird/modules.list"
  for m in virtio_pci 9pnet_virtio 9p overlay; do
    modprobe -d "$RXE_VM_DIR/kroot" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
  done | awk '!seen[$0]++' | while read -r ko; do
    name=$(basename "$ko")
    case "$name" in
      # busybox insmod cannot decompress; newer Debian kernels compress their modules
      *.ko.xz) xz -dc "$ko" >"$ird/mods/${name%.xz}"; name=${name%.xz} ;;
      *.ko.zst) zstd -qdc "$ko" >"$ird/mods/${name%.zst}"; name=${name%.zst} ;;
      *) cp "$ko" "$ird/mods/$name" ;;
    esac
    echo "$name" >>"$ird/modules.list"
  done
  [ -s "$ird/modules.list" ] || die 97 "no modules found for the initramfs"
  cp "$HERE/lib/initramfs-init.sh" "$ird/init"
  chmod 755 "$ird/init"
  (cd "$ird" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$RXE_VM_DIR/initramfs.cpio.gz.tmp"
  mv "$RXE_VM_DIR/initramfs.cpio.gz.tmp" "$RXE_VM_DIR/initramfs.cpio.gz"
  echo "$stamp" >"$RXE_VM_DIR/initramfs.stamp"
  rm -rf "$ird"
fi

log "ready: kernel $RXE_VM_DIR/kroot/boot/vmlinuz-$KVER, initramfs $RXE_VM_DIR/initramfs.cpio.gz ($(du -h "$RXE_VM_DIR/initramfs.cpio.gz" | cut -f1))"
