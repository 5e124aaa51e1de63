#!/usr/bin/env bash
# Run one command line as root inside a throw-away QEMU guest that has a Soft-RoCE verbs device (rxe0 on dummy0).
#
#   tools/rxe-vm/run.sh [--timeout SECS] [--out DIR] [-e NAME=VALUE]... [--no-rxe] -- COMMAND [ARG...]
#
# The guest runs Debian's kernel under QEMU/TCG and the host's own userland: the host's / is its read-only root (9p,
# with a tmpfs overlay for writes), so the host's JDK, ~/.m2 and build outputs are usable as they are. The command
# runs in the same directory as run.sh was called from, with JAVA_HOME (host's, default Temurin 25) on PATH and
# FI_UNIVERSE_SIZE=64 (needed by libfabric verbs;ofi_rxm on rxe). Its stdout/stderr are streamed to run.sh's
# stdout/stderr while it runs and kept in the output directory (default $RXE_VM_DIR/out) with the console log.
#
# Exit status: the command's own; 124 if it timed out (--timeout, default 600 s, counts from the command's start);
# 97 not prepared (run prepare.sh) or a prerequisite missing; 98 the VM did not boot or died before the command
# finished; 99 the guest booted but rxe0 could not be brought up; 96 another VM run held the lock too long; 2 usage.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$HERE/lib/common.sh"

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

TIMEOUT=${RXE_VM_TIMEOUT:-600}
OUT=${RXE_VM_OUT:-$RXE_VM_DIR/out}
NO_RXE=0
ENVS=()
while (($#)); do
  case $1 in
    --timeout) (($# >= 2)) || { usage >&2; exit 2; }; TIMEOUT=$2; shift 2 ;;
    --timeout=*) TIMEOUT=${1#*=}; shift ;;
    --out) (($# >= 2)) || { usage >&2; exit 2; }; OUT=$2; shift 2 ;;
    --out=*) OUT=${1#*=}; shift ;;
    -e | --env) (($# >= 2)) || { usage >&2; exit 2; }; ENVS+=("$2"); shift 2 ;;
    --no-rxe) NO_RXE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "rxe-vm: unexpected argument '$1' (the command goes after --)" >&2; usage >&2; exit 2 ;;
  esac
done
(($#)) || { echo "rxe-vm: no command given" >&2; usage >&2; exit 2; }
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || { echo "rxe-vm: --timeout needs a positive number of seconds: $TIMEOUT" >&2; exit 2; }
for e in ${ENVS[@]+"${ENVS[@]}"}; do
  [[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { echo "rxe-vm: -e needs NAME=VALUE: $e" >&2; exit 2; }
done
# Boot and rxe bring-up have their own budgets: TCG on a busy 2-core host is slow and varies a lot (boot measured
# 10-30 s, rxe a few more), these leave a wide margin while still bounding a hung guest.
BOOT_TIMEOUT=${RXE_VM_BOOT_TIMEOUT:-300}
RXE_TIMEOUT=${RXE_VM_RXE_TIMEOUT:-180}
LOCK_WAIT=${RXE_VM_LOCK_WAIT:-1800}

# --- prerequisites: say exactly what is missing ---------------------------------------------------------------
missing=()
KVER=$(cat "$RXE_VM_DIR/kver" 2>/dev/null || true)
if [ -z "$KVER" ]; then
  missing+=("unpacked kernel ($RXE_VM_DIR/kver)")
else
  [ -f "$RXE_VM_DIR/kroot/boot/vmlinuz-$KVER" ] || missing+=("kernel $RXE_VM_DIR/kroot/boot/vmlinuz-$KVER")
  [ -s "$RXE_VM_DIR/kroot/lib/modules/$KVER/modules.dep" ] || missing+=("modules.dep of $KVER (depmod)")
  [ -f "$RXE_VM_DIR/initramfs.cpio.gz" ] || missing+=("initramfs $RXE_VM_DIR/initramfs.cpio.gz")
  [ "$(cat "$RXE_VM_DIR/initramfs.stamp" 2>/dev/null)" = "$(initramfs_stamp "$KVER")" ] ||
    missing+=("an initramfs built from the current lib/initramfs-init.sh")
fi
for t in qemu-system-x86_64 timeout flock modprobe rdma ip; do
  command -v "$t" >/dev/null || missing+=("program $t")
done
if ((${#missing[@]})); then
  for m in "${missing[@]}"; do log "missing: $m"; done
  die "$RC_NOT_PREPARED" "not prepared: run tools/rxe-vm/prepare.sh (RXE_VM_DIR=$RXE_VM_DIR)"
fi
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
for p in "$OUT" "$HERE"; do
  case "$p" in *[[:space:],]*) die 2 "path must not contain spaces or commas (QEMU/kernel command line): $p" ;; esac
done
JH=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
[ -x "$JH/bin/java" ] || log "warning: no java at $JH/bin/java (set JAVA_HOME); the guest will have none on PATH"

# --- one VM at a time: two TCG guests would starve each other (and everything else) on 2 cores ----------------
exec 9>"$RXE_VM_DIR/vm.lock"
if ! flock -n 9; then
  log "another rxe-vm run holds $RXE_VM_DIR/vm.lock; waiting up to ${LOCK_WAIT}s"
  flock -w "$LOCK_WAIT" 9 || die 96 "gave up waiting for $RXE_VM_DIR/vm.lock"
fi

# --- job files for the guest --------------------------------------------------------------------------------
mkdir -p "$OUT"
# Only the protocol files are removed, so --out may point at a directory that holds other things.
rm -f "$OUT"/.*.tmp "$OUT"/{job.env,cmd.sh,booted,rxe.ready,rxe.failed,rxe.log,started,stdout,stderr,rc,rc.tmp,console.log,qemu.log,qemu.pid,summary.txt}
{
  printf 'RXE_CWD=%q\n' "$PWD"
  printf 'RXE_CMD_TIMEOUT=%q\n' "$TIMEOUT"
  printf 'RXE_NO_RXE=%q\n' "$NO_RXE"
  printf 'export JAVA_HOME=%q\n' "$JH"
  printf 'export PATH=%q\n' "$JH/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  for e in ${ENVS[@]+"${ENVS[@]}"}; do printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"; done
} >"$OUT/job.env"
{
  printf 'exec'
  printf ' %q' "$@"
  printf '\n'
} >"$OUT/cmd.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs() { printf '%d.%01d' $(($1 / 1000)) $((($1 % 1000) / 100)); }

# --- boot -------------------------------------------------------------------------------------------------------
HARD=$((BOOT_TIMEOUT + RXE_TIMEOUT + TIMEOUT + 120))
# thread=single: one host thread runs every vCPU. With multi-threaded TCG the guest JVMs died at random of SIGILL or
# SIGSEGV in JIT-compiled code (HotSpot patches code while other threads run it; TCG then ran stale translations),
# with C2 or C1 alone, with -cpu max or Nehalem; single-threaded TCG ran the ibv kits clean, with the default JVM.
# shellcheck disable=SC2206  # RXE_VM_ACCEL is a list of QEMU options on purpose
ACCEL=(${RXE_VM_ACCEL:--accel tcg,thread=single -cpu max})
# -nic none: the guest needs no network (rxe runs on an in-guest dummy netdev). -no-reboot: the guest's power-off
# (or a panic, with panic=-1) ends QEMU. The outer timeout bounds QEMU even if this script is killed with SIGKILL.
T0=$(now_ms)
timeout -k 10 "$HARD" qemu-system-x86_64 "${ACCEL[@]}" -m "${RXE_VM_MEM:-2G}" -smp "${RXE_VM_SMP:-2}" \
  -nodefaults -display none -monitor none -serial "file:$OUT/console.log" -no-reboot -nic none \
  -kernel "$RXE_VM_DIR/kroot/boot/vmlinuz-$KVER" -initrd "$RXE_VM_DIR/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 quiet loglevel=4 RXE_VM_DIR=$RXE_VM_DIR RXE_GUEST_INIT=$HERE/lib/guest-init.sh RXE_UPPER_SIZE=${RXE_VM_UPPER_SIZE:-1g}" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$OUT,mount_tag=out,security_model=none" \
  -pidfile "$OUT/qemu.pid" \
  </dev/null >"$OUT/qemu.log" 2>&1 9>&- &
TPID=$!

# shellcheck disable=SC2317  # invoked through the EXIT trap
cleanup() {
  local p i
  # The timeout wrapper forwards SIGTERM to QEMU; then make sure QEMU itself is gone (by its pid file, checked to
  # really be QEMU so that a recycled pid is never hit).
  if kill -0 "$TPID" 2>/dev/null; then kill -TERM "$TPID" 2>/dev/null || true; fi
  p=$(cat "$OUT/qemu.pid" 2>/dev/null || true)
  if [[ $p =~ ^[0-9]+$ ]] && [[ "$(cat "/proc/$p/comm" 2>/dev/null)" == qemu-system* ]]; then
    kill -TERM "$p" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do [ -d "/proc/$p" ] || break; sleep 0.1; done
    [ -d "/proc/$p" ] && kill -KILL "$p" 2>/dev/null
  fi
  wait "$TPID" 2>/dev/null || true
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# Stream the command's output as it arrives (a JUnit class under TCG takes minutes; silence would look like a hang).
# shellcheck disable=SC2034  # read and written through ${!var} / printf -v in pump_one
OFF_OUT=0 OFF_ERR=0
pump_one() {
  local f=$1 var=$2 fd=$3 size
  [ -f "$f" ] || return 0
  size=$(stat -c %s "$f")
  if ((size > ${!var})); then
    { tail -c "+$((${!var} + 1))" "$f" | head -c "$((size - ${!var}))" >&"$fd"; } || true
    printf -v "$var" '%d' "$size"
  fi
}
pump() { pump_one "$OUT/stdout" OFF_OUT 1; pump_one "$OUT/stderr" OFF_ERR 2; }

# wait_for DEADLINE_MS FILE...: 0 when one of the files exists, 1 when QEMU has exited, 2 at the deadline.
wait_for() {
  local deadline=$1 f
  shift
  while :; do
    pump
    for f in "$@"; do [ -e "$OUT/$f" ] && return 0; done
    kill -0 "$TPID" 2>/dev/null || { for f in "$@"; do [ -e "$OUT/$f" ] && return 0; done; return 1; }
    (($(now_ms) < deadline)) || return 2
    sleep 0.5
  done
}

T_BOOT="" T_RXE="" T_CMD=""
finish() {
  local rc=$1 msg=$2 t_end summary
  pump
  t_end=$(now_ms)
  summary="rc=$rc ($msg); qemu start -> guest up ${T_BOOT:-?}s, rxe ready ${T_RXE:-?}s, command ${T_CMD:-?}s, total $(secs $((t_end - T0)))s"
  echo "$summary" >"$OUT/summary.txt"
  log "$summary"
  log "output: $OUT (stdout, stderr, rc, console.log, qemu.log)"
  exit "$rc"
}
console_tail() {
  log "last lines of the console ($OUT/console.log):"
  tail -n "${1:-30}" "$OUT/console.log" 2>/dev/null | sed 's/^/  | /' >&2 || true
  [ -s "$OUT/qemu.log" ] && { log "qemu said:"; sed 's/^/  | /' "$OUT/qemu.log" >&2; }
  return 0
}

log "booting $KVER under QEMU (${ACCEL[*]}); command timeout ${TIMEOUT}s"
st=0  # reset before each wait: wait_for sets it only on failure
wait_for $((T0 + BOOT_TIMEOUT * 1000)) booted || st=$?
if ((st)); then
  console_tail 40
  ((st == 1)) && finish "$RC_NO_BOOT" "VM exited before the guest init ran"
  finish "$RC_NO_BOOT" "guest init not reached within ${BOOT_TIMEOUT}s"
fi
T_BOOT=$(secs $(($(now_ms) - T0)))
log "guest up after ${T_BOOT}s (guest uptime $(cat "$OUT/booted")s)"

wait_for $(($(now_ms) + RXE_TIMEOUT * 1000)) rxe.ready rxe.failed || st=$?
if ((st)) || [ -e "$OUT/rxe.failed" ]; then
  [ -s "$OUT/rxe.log" ] && sed 's/^/  rxe.log | /' "$OUT/rxe.log" >&2
  console_tail 30
  ((st == 2)) && finish "$RC_NO_RXE" "rxe0 not ready within ${RXE_TIMEOUT}s"
  finish "$RC_NO_RXE" "rxe setup failed"
fi
T_RXE=$(secs $(($(now_ms) - T0)))
if ((NO_RXE)); then log "rxe skipped (--no-rxe)"; else log "rxe0 ACTIVE after ${T_RXE}s (guest uptime $(cat "$OUT/rxe.ready")s): $(head -1 "$OUT/rxe.log")"; fi

# The guest enforces the timeout itself (rc 124); the host deadline adds room for the kill grace and slow 9p.
T_START=$(now_ms)
wait_for $((T_START + (TIMEOUT + 60) * 1000)) rc || st=$?
T_CMD=$(secs $(($(now_ms) - T_START)))
if ((st == 2)); then
  console_tail 20
  finish 124 "command did not finish within ${TIMEOUT}s (host-side deadline)"
elif ((st == 1)); then
  console_tail 40
  finish "$RC_NO_BOOT" "VM died while the command was running"
fi
read -r rc _ <"$OUT/rc"

# Let the guest power itself off (it syncs first); bounded, then cleanup kills QEMU anyway.
wait_for $(($(now_ms) + 60 * 1000)) qemu.gone >/dev/null || true
if ((rc == 124)); then finish 124 "command timed out after ${TIMEOUT}s"; fi
finish "$rc" "command exit status"
