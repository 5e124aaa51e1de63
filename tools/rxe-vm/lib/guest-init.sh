#!/bin/bash
# PID 1 of the guest after switch_root (started by initramfs-init.sh; runs the host's bash and userland through 9p).
# Sets up a minimal system, brings up Soft-RoCE (rxe0 over dummy0), runs the job that run.sh left in /mnt/out, and
# powers the VM off. Protocol with run.sh, all files in /mnt/out (= the run's output directory on the host):
#   host -> guest: job.env (sourced: RXE_CWD, RXE_CMD_TIMEOUT, RXE_NO_RXE, exported variables), cmd.sh (the command)
#   guest -> host: booted, rxe.ready | rxe.failed (+ rxe.log), started, stdout, stderr, rc
# Each marker holds the guest uptime when it was written, which gives the timings run.sh prints.
# No 'set -e': PID 1 must reach the power-off below whatever fails, or QEMU would idle until the host's timeout.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
OUT=/mnt/out

uptime_s() { cut -d' ' -f1 /proc/uptime; }
# mark NAME: write a marker file atomically (rename), so run.sh never reads it half-written.
mark() { uptime_s >"$OUT/.$1.tmp" && mv "$OUT/.$1.tmp" "$OUT/$1"; }
poweroff_now() {
  sync
  # sysrq 'o' powers off at once; QEMU runs with -no-reboot and exits. busybox poweroff -f only as a fallback.
  echo o >/proc/sysrq-trigger
  sleep 10
  /bin/busybox poweroff -f
}

mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
# devtmpfs lacks the links udev would make; bash's process substitution uses /dev/fd/N, and without /dev/stderr a
# '>/dev/stderr' would create a plain file there.
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
# conduit-smp keeps its segments in /dev/shm; without this mount it would land in the 1 GiB overlay tmpfs anyway,
# but some code checks for a real tmpfs there.
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
ip link set lo up
hostname rxe-guest
# The JVM and libfabric resolve the host name; without an entry that would wait for a DNS server that is not there.
echo "127.0.1.1 rxe-guest" >>/etc/hosts

mark booted
echo "[rxe-vm guest] up at $(uptime_s)s: kernel $(uname -r), $(nproc) cpus, $(awk '/MemTotal/{print int($2/1024)}' /proc/meminfo) MiB"

if [ ! -f "$OUT/job.env" ] || [ ! -f "$OUT/cmd.sh" ]; then
  echo "[rxe-vm guest] no job.env/cmd.sh in $OUT"
  poweroff_now
fi
# Defaults first, so that the job's own variables (-e NAME=VALUE in run.sh) can override them.
# verbs;ofi_rxm on rxe: rxm sizes its MSG CQ as (tx 128 + rx 128) x universe size; the default universe (256) gives
# 65536 entries, more than rxe's max_cqe (32767), and fi_enable fails. 64 fits.
export FI_UNIVERSE_SIZE=64
RXE_CWD=/ RXE_CMD_TIMEOUT=600 RXE_NO_RXE=0 RXE_GID_INDEX=""
# shellcheck source=/dev/null
source "$OUT/job.env"

# Soft-RoCE: the dummy netdev exists only inside the guest (the VM has no NIC); 198.51.100.0/24 is a documentation
# range, so nothing is ever addressed outside. Two processes on the same rxe device talk through rxe's internal
# loopback.
setup_rxe() {
  local i g state
  for m in rdma_rxe ib_uverbs rdma_ucm dummy; do
    modprobe "$m" || { echo "modprobe $m failed"; return 1; }
  done
  { ip link add dummy0 type dummy && ip link set dummy0 up && ip addr add 198.51.100.1/24 dev dummy0; } ||
    { echo "dummy0 setup failed"; return 1; }
  rdma link add rxe0 type rxe netdev dummy0 || { echo "rdma link add rxe0 failed"; return 1; }
  # The port goes ACTIVE asynchronously; bounded wait (60 s of guest time is far above the ~1 s it takes).
  for ((i = 0; i < 120; i++)); do
    state=$(cat /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null)
    if [[ $state == *ACTIVE* ]] && [ -c /dev/infiniband/uverbs0 ]; then
      # RoCE v2 GID whose address is the IPv4-mapped dummy0 address (index 1 on 6.1): what ibv_*_pingpong -g and
      # perftest -x want.
      for ((g = 0; g < 8; g++)); do
        if [ "$(cat "/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$g" 2>/dev/null)" = "RoCE v2" ] &&
          grep -q ffff "/sys/class/infiniband/rxe0/ports/1/gids/$g" 2>/dev/null; then
          RXE_GID_INDEX=$g
          break
        fi
      done
      echo "rxe0 port 1: $state; $(rdma link show rxe0/1 2>&1); RoCE v2 IPv4 GID index ${RXE_GID_INDEX:-none}"
      return 0
    fi
    sleep 0.5
  done
  echo "rxe0 did not become ACTIVE (state '${state:-none}'); $(ls /dev/infiniband 2>&1)"
  return 1
}
if [ "$RXE_NO_RXE" = 1 ]; then
  echo "skipped (--no-rxe)" >"$OUT/rxe.log"
  mark rxe.ready
elif setup_rxe >"$OUT/rxe.log" 2>&1; then
  # for the command: which device, netdev and address to use
  export RXE_DEVICE=rxe0 RXE_NETDEV=dummy0 RXE_IP=198.51.100.1 RXE_GID_INDEX=${RXE_GID_INDEX:-}
  mark rxe.ready
  echo "[rxe-vm guest] rxe ready at $(uptime_s)s: $(head -1 "$OUT/rxe.log")"
else
  mark rxe.failed
  echo "[rxe-vm guest] rxe setup FAILED at $(uptime_s)s:"
  cat "$OUT/rxe.log"
  poweroff_now
fi

cd "$RXE_CWD" || cd /
mark started
# -k: a command that ignores SIGTERM is killed 10 s later; timeout's own status is 124 on expiry, as promised.
# stdout/stderr go through pipes, not straight to the files: a command that opens /dev/stdout or /dev/stderr itself
# (tee /dev/stderr, >/dev/stderr) would otherwise reopen the file with O_TRUNC and wipe what was written before.
mkfifo /run/rxe-stdout /run/rxe-stderr
cat /run/rxe-stdout >"$OUT/stdout" &
cat_out=$!
cat /run/rxe-stderr >"$OUT/stderr" &
cat_err=$!
t0=$SECONDS
timeout -k 10 "$RXE_CMD_TIMEOUT" /bin/bash "$OUT/cmd.sh" </dev/null >/run/rxe-stdout 2>/run/rxe-stderr &
tpid=$!
wait "$tpid"
rc=$?
# timeout runs in a process group of its own; end what the command left behind there (it would hold the pipes
# open). The copies then end when every writer has closed the pipes; anything that escaped the group (setsid)
# gets a bounded wait, then the copies are stopped.
kill -TERM -- "-$tpid" 2>/dev/null
for ((i = 0; i < 10; i++)); do
  kill -0 "$cat_out" 2>/dev/null || kill -0 "$cat_err" 2>/dev/null || break
  sleep 1
done
kill "$cat_out" "$cat_err" 2>/dev/null
# timeout reports 137 instead of 124 when it had to follow up with SIGKILL; both mean "timed out" to the caller.
if [ "$rc" = 137 ] && ((SECONDS - t0 >= RXE_CMD_TIMEOUT)); then rc=124; fi
echo "[rxe-vm guest] command exited rc=$rc at $(uptime_s)s"
# rc is written last and atomically (rename): its presence tells run.sh that stdout/stderr are complete.
echo "$rc $(uptime_s)" >"$OUT/rc.tmp" && mv "$OUT/rc.tmp" "$OUT/rc"
poweroff_now
