#!/usr/bin/env bash
# A one-node Slurm cluster on this host for SrunIT (Debian 12: slurm-wlm 22.05, munge): `start` writes
# /etc/slurm/slurm.conf for this host (at least 8 CPUs whatever the host has, no cgroups: linuxproc process tracking, no task plugin, so it runs in a
# container), starts munged, slurmctld and slurmd, and waits until the node is idle; `stop` ends the three daemons it
# started. Needs root. State and logs go to /var/tmp/gexj-slurm.
set -euo pipefail
dir=/var/tmp/gexj-slurm
host="$(hostname -s)"
cpus="$(nproc)"
slots=$(( cpus > 8 ? cpus : 8 ))
case "${1:-}" in
  start)
    mkdir -p "$dir/state" "$dir/spool" /etc/slurm /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
      mkdir -p /etc/munge
      dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown munge:munge /etc/munge/munge.key /run/munge 2>/dev/null || true
    chmod 400 /etc/munge/munge.key
    if ! munge -n </dev/null >/dev/null 2>&1; then # no munged answering
      runuser -u munge -- /usr/sbin/munged 2>/dev/null || /usr/sbin/munged --force
    fi
    cat > /etc/slurm/slurm.conf <<CONF
# written by GEX/J's tools/slurm/single-node.sh
ClusterName=gexj
SlurmctldHost=$host
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
# 8 CPUs whatever the host has, as mpirun's --oversubscribe: jobs of up to 8 ranks on a 2-core VM
SlurmdParameters=config_overrides
NodeName=$host CPUs=$slots State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
    # by pid file, not by name: a container whose init does not reap shows exited daemons as zombies of that name
    running() { [ -s "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null \
      && ! grep -q '^State:.*Z' "/proc/$(cat "$dir/$1.pid")/status" 2>/dev/null; }
    running slurmctld || /usr/sbin/slurmctld
    running slurmd || /usr/sbin/slurmd
    for _ in $(seq 60); do
      if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then exit 0; fi
      sleep 0.5
    done
    echo "single-node.sh: the node did not become idle; see $dir/slurmctld.log and $dir/slurmd.log" >&2
    sinfo -N -l >&2 || true
    exit 1 ;;
  stop)
    for d in slurmd slurmctld; do
      if [ -s "$dir/$d.pid" ]; then kill "$(cat "$dir/$d.pid")" 2>/dev/null || true; rm -f "$dir/$d.pid"; fi
    done ;;
  *)
    echo "usage: tools/slurm/single-node.sh start|stop" >&2; exit 2 ;;
esac
