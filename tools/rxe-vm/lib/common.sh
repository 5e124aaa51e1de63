# Sourced by the host-side scripts of tools/rxe-vm (not executable on its own).
# shellcheck shell=bash

# Scratch directory for the kernel, the initramfs and run outputs: outside the repository because the unpacked
# kernel is ~470 MB and nothing of it belongs in git.
RXE_VM_DIR=${RXE_VM_DIR:-/var/tmp/gexj-rxe-vm}
# 9p/QEMU option strings split on ',' and the kernel command line on ' ': refuse such paths up front instead of
# failing obscurely inside the guest.
case "$RXE_VM_DIR" in
  /*) ;;
  *) echo "rxe-vm: RXE_VM_DIR must be an absolute path: $RXE_VM_DIR" >&2; exit 97 ;;
esac
case "$RXE_VM_DIR" in
  *[[:space:],]*) echo "rxe-vm: RXE_VM_DIR must not contain spaces or commas: $RXE_VM_DIR" >&2; exit 97 ;;
esac
mkdir -p "$RXE_VM_DIR"

# Exit codes of run.sh besides the command's own (124 = timeout, as coreutils timeout).
# Chosen high and unusual so they do not collide with a test's ordinary failure codes.
# shellcheck disable=SC2034
RC_NOT_PREPARED=97   # prepare.sh has not been run, or a prerequisite is missing
# shellcheck disable=SC2034
RC_NO_BOOT=98        # the VM did not reach the guest init (qemu failed, kernel/initramfs/9p problem, boot timeout)
# shellcheck disable=SC2034
RC_NO_RXE=99         # the guest booted but rdma_rxe / rxe0 could not be brought up

log() { printf 'rxe-vm: %s\n' "$*" >&2; }
die() { local rc=$1; shift; printf 'rxe-vm: error: %s\n' "$*" >&2; exit "$rc"; }

# A dynamically linked busybox cannot run in the initramfs (no libc there).
file_is_static() { ! ldd "$1" >/dev/null 2>&1; }

# Identifies the inputs of the initramfs, so run.sh can tell a stale one from a current one.
initramfs_stamp() {
  local kver=$1 here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  { echo "$kver"; cat "$here/initramfs-init.sh"; } | sha256sum | cut -d' ' -f1
}
