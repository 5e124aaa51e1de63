#!/usr/bin/env bash
# GEX/J developer entry point. Installs what the build needs, then:
#   ./gexj.sh testam [args]   build, then run testam between 2 ranks on the default conduit (smp)
#   ./gexj.sh test            build and run the whole test suite (unit, property and multi-process tests)
#   ./gexj.sh build           build the distribution only (gex-dist/target/lib, used by bin/gexrun)
set -euo pipefail
cd "$(dirname "$0")"

need_jdk() {
  local candidates=("${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64)
  for j in "${candidates[@]}"; do
    if [ -n "$j" ] && [ -x "$j/bin/javac" ] && "$j/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then
      export JAVA_HOME="$j"; return 0
    fi
  done
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null 2>&1 || true
    for pkg in temurin-25-jdk openjdk-25-jdk-headless; do
      if apt-get install -y -qq "$pkg" >/dev/null 2>&1; then break; fi
    done
    for j in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64; do
      [ -x "$j/bin/javac" ] && { export JAVA_HOME="$j"; return 0; }
    done
  fi
  echo "gexj.sh: missing a JDK 25: none at \$JAVA_HOME, /usr/lib/jvm/temurin-25-jdk-amd64 or /usr/lib/jvm/java-25-openjdk-amd64," >&2
  echo "         and neither Debian package temurin-25-jdk nor openjdk-25-jdk-headless could be installed." >&2
  exit 2
}

# Maven comes from the wrapper (./mvnw pins 3.9.16 and fetches it from Maven Central on first use), so a machine needs
# only the JDK; .mvn/jvm.config quiets what Maven's own libraries print on JDK 25
need_maven() {
  [ -x ./mvnw ] && return 0
  echo "gexj.sh: missing ./mvnw (the Maven wrapper) in $(pwd): is this a whole checkout?" >&2
  exit 2
}

# the ofi conduit binds libfabric.so.1 at run time (FFM): its tests run on every machine, so it is installed like Maven
need_libfabric() {
  if ldconfig -p 2>/dev/null | grep -q 'libfabric\.so\.1 '; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq libfabric1 >/dev/null 2>&1 && return 0
  fi
  echo "gexj.sh: missing libfabric.so.1 (the ofi conduit and its tests need it): install the Debian package 'libfabric1'" >&2
  echo "         (needs root), or put libfabric >= 1.17 on the library path." >&2
  exit 2
}

# the ibv conduit binds libibverbs.so.1 at run time (FFM), and IbvLayoutTest compiles <infiniband/verbs.h> with gcc to
# check the bindings' struct layouts: both run on every machine (no RDMA device needed), so they are installed like
# libfabric. libibverbs-dev brings libibverbs1 (the library) with the header.
need_verbs() {
  local m=()
  { ldconfig -p 2>/dev/null | grep -q 'libibverbs\.so\.1 ' && [ -e /usr/include/infiniband/verbs.h ]; } \
    || m+=(libibverbs-dev)
  command -v gcc >/dev/null || m+=(gcc)
  [ ${#m[@]} = 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq "${m[@]}" >/dev/null 2>&1 && return 0
  fi
  echo "gexj.sh: missing Debian package(s) ${m[*]}: the ibv conduit needs libibverbs.so.1 (libibverbs1, which" >&2
  echo "         libibverbs-dev brings), and IbvLayoutTest compiles <infiniband/verbs.h> (libibverbs-dev) with gcc;" >&2
  echo "         install them with apt-get install ${m[*]} (needs root)" >&2
  exit 2
}

# the udp conduit's tests put ranks in network namespaces (ip, from iproute2) and drop datagrams there with iptables:
# they run wherever the suite runs as root, so a new machine gets both as it gets Maven. Not root: they skip themselves.
netns_tools_missing() {
  local m=()
  command -v ip >/dev/null || [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || m+=(iproute2)
  command -v iptables >/dev/null || [ -x /usr/sbin/iptables ] || [ -x /sbin/iptables ] || m+=(iptables)
  echo "${m[*]}"
}

need_netns_tools() {
  local missing; missing="$(netns_tools_missing)"
  if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null 2>&1 || true
    # shellcheck disable=SC2086 # one word per package
    apt-get install -y -qq $missing >/dev/null 2>&1 || true
    missing="$(netns_tools_missing)"
  fi
  if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
      echo "gexj.sh: missing Debian package(s) $missing: the udp conduit's network-namespace tests (UdpNetns*Test," >&2
      echo "         UdpNetnsLossIT) will fail; install them with apt-get install $missing" >&2
    else
      echo "gexj.sh: missing Debian package(s) $missing (needs root to install); the udp conduit's network-namespace" >&2
      echo "         tests also need root, and skip themselves when not root" >&2
    fi
    return 0
  fi
  [ "$(id -u)" = 0 ] || return 0
  # Debian's iptables is the nf_tables flavour; a kernel without nf_tables needs the legacy (x_tables) one
  local ipt; ipt="$(command -v iptables || echo /usr/sbin/iptables)"
  if ! "$ipt" -w -L -n >/dev/null 2>&1 && [ -x /usr/sbin/iptables-legacy ] \
      && /usr/sbin/iptables-legacy -w -L -n >/dev/null 2>&1; then
    update-alternatives --set iptables /usr/sbin/iptables-legacy >/dev/null 2>&1 || true
  fi
  if ! "$ipt" -w -L -n >/dev/null 2>&1; then
    echo "gexj.sh: iptables fails in this kernel (nf_tables and legacy): UdpNetnsLossIT will fail" >&2
  fi
}

# gexrun --hosts starts ranks over ssh; its tests run an sshd in each of two network namespaces (NetnsSshHosts) and log
# in as root with a key of their own: root gets both OpenSSH packages as it gets iproute2. Not root: the tests skip.
ssh_tools_missing() {
  local m=()
  [ -x /usr/sbin/sshd ] || m+=(openssh-server)
  { command -v ssh >/dev/null && command -v ssh-keygen >/dev/null; } || m+=(openssh-client)
  echo "${m[*]}"
}

need_ssh_tools() {
  local missing; missing="$(ssh_tools_missing)"
  if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null 2>&1 || true
    # shellcheck disable=SC2086 # one word per package
    apt-get install -y -qq $missing >/dev/null 2>&1 || true
    missing="$(ssh_tools_missing)"
  fi
  if [ -n "$missing" ]; then
    echo "gexj.sh: missing Debian package(s) $missing: the ssh spawner's tests (*Ssh*Test, SshSpawnIT) need them as root;" >&2
    echo "         install them with apt-get install $missing" >&2
  fi
  return 0
}

# jobs under a resource manager's PMIx server (bin/gexrank under mpirun and srun: MpirunIT, SrunIT) need Open MPI's
# mpirun, Slurm and libpmix.so.2, which the ranks bind through FFM; they run on every machine, so a root build installs them
pmix_tools_missing() {
  local m=()
  command -v mpirun >/dev/null || m+=(openmpi-bin)
  [ -e /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2 ] || ldconfig -p 2>/dev/null | grep -q 'libpmix\.so\.2 ' \
    || m+=(libpmix2)
  # Slurm (SrunIT's one-node cluster): slurmctld/slurmd/srun, munge, and libpmix-dev, whose unversioned libpmix.so is
  # what Slurm's mpi/pmix plugin opens
  command -v slurmd >/dev/null || m+=(slurm-wlm)
  command -v munged >/dev/null || [ -x /usr/sbin/munged ] || m+=(munge)
  [ -e /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so ] || m+=(libpmix-dev)
  echo "${m[*]}"
}

need_pmix_tools() {
  local missing; missing="$(pmix_tools_missing)"
  if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null 2>&1 || true
    # shellcheck disable=SC2086 # one word per package
    apt-get install -y -qq $missing >/dev/null 2>&1 || true
    missing="$(pmix_tools_missing)"
  fi
  if [ -n "$missing" ]; then
    echo "gexj.sh: missing Debian package(s) $missing: bin/gexrank under mpirun and srun and their tests (MpirunIT, SrunIT) need them;" >&2
    echo "         install them with apt-get install $missing (needs root)" >&2
    exit 2
  fi
}

# smp's segments are files in /dev/shm, and the tests of transfers past 2 GiB (SmpSegmentTest, SmpLargeTransferTest)
# need two segments of 2-3 GiB there. A tmpfs is sized when mounted (often half the memory): as root, grow it when it
# is smaller and the memory is there; otherwise say what is missing (those tests fail, they do not skip).
SHM_NEEDED_GIB=8
need_shm_room() {
  local have_kib need_kib=$((SHM_NEEDED_GIB * 1024 * 1024)) mem_kib
  have_kib="$(df -k --output=size /dev/shm 2>/dev/null | tail -1 | tr -d ' ')" || return 0
  [ -n "$have_kib" ] && [ "$have_kib" -ge "$need_kib" ] && return 0
  mem_kib="$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
  if [ "$(id -u)" = 0 ] && [ "${mem_kib:-0}" -gt "$need_kib" ]; then
    mount -o remount,size="${need_kib}k" /dev/shm 2>/dev/null && return 0
  fi
  echo "gexj.sh: /dev/shm holds $((have_kib / 1024)) MiB; the tests of transfers past 2 GiB need ${SHM_NEEDED_GIB} GiB there" >&2
  echo "         (as root: mount -o remount,size=${SHM_NEEDED_GIB}g /dev/shm), and will fail without it" >&2
}

mvn_() { ./mvnw -B -ntp "$@"; }

build() { mvn_ -q package -DskipTests; }

# The ibv conduit needs an RDMA device, which this kind of machine lacks: its kits, the bindings' device test and
# the failure tests run in a QEMU guest with Soft-RoCE (tools/rxe-vm; about 8 minutes). prepare.sh installs what is
# missing (as root) or exits naming it.
guest_tests() {
  if ! tools/rxe-vm/prepare.sh; then
    echo "gexj.sh: the Soft-RoCE guest for the ibv tests cannot be prepared: see tools/rxe-vm/prepare.sh's message" >&2
    return 1
  fi
  # the kits connect on demand (the default), IbvConnectOnDevice statically too. IbvGexrunOnDevice (testam and
  # testqueue through bin/gexrun, 3 min) is left to manual runs: the guest step must stay within 10 minutes, and
  # IbvKillMidFloodOnDevice already starts ibv jobs through gexrun.
  local classes=IbvLoopbackOnDevice,IbvUdOnDevice,IbvConnectOnDevice,IbvAmKitOnDevice,IbvRmaKitOnDevice,IbvAtomicsOnDevice
  classes+=,IbvRobustnessKitOnDevice,IbvBarrierKitOnDevice,IbvKillMidFloodOnDevice,IbvQpErrorOnDevice,IbvRendezvousLongOnDevice
  classes+=,IbvPwcByKeyOnDevice
  # C1 only, in the test JVM and in the ranks gexrun starts there: under TCG a C2 compilation costs tens of times
  # what it does on the host, and these JVMs live minutes (the guest's tests took 502 s with C1, 700 s with C2)
  RXE_VM_JAVA_OPTS="-XX:TieredStopAtLevel=1" \
    tools/rxe-vm/run-junit.sh --timeout 1200 conduit-ibv "$classes" GEX_JVM_OPTS=-XX:TieredStopAtLevel=1
}

need_jdk
need_maven
need_libfabric
need_verbs
need_netns_tools
need_ssh_tools
need_pmix_tools
cmd="${1:-}"; shift || true
case "$cmd" in
  testam)
    build
    exec bin/gexrun -n 2 testam "$@" ;;
  test)
    need_shm_room
    mvn_ verify
    guest_tests ;;
  build)
    build ;;
  *)
    echo "usage: ./gexj.sh testam [testam args] | test | build" >&2; exit 2 ;;
esac
