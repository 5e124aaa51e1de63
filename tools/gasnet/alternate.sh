#!/usr/bin/env bash
# Runs GASNet-EX's and GEX/J's testam, testqueue, testsmall, testlarge, testfaddperf or testvisperf alternately
# (GASNet, GEX/J, then GEX/J, GASNet, ...) on one conduit with 2 ranks, for comparison with tools/gasnet/compare.py.
# This VM's speed drifts by up to 2x and switches between a fast and a slow mode for minutes at a time: compare
# medians over rounds of one sitting, never single runs.
#
#   tools/gasnet/alternate.sh [options] PROG [ARGS...]      PROG: testam, testqueue, testsmall, testlarge, testfaddperf,
#                                                          testvisperf, testcollperf, testteam
#                                                          (with -s J also testpwc, which GASNet does not have),
#                                                          ARGS: GASNet's arguments
#     -c CONDUIT     smp (default), udp, ofi or ibv
#     -n RANKS       ranks of each job (default 2; collectives: more ranks, more tree)
#     -r ROUNDS      rounds of GASNet and GEX/J runs (default 3); each round starts one side later than the last
#                    (G J, J G, ...; with -v: G J V, J V G, V G J, ...), so no side always runs first
#     -o DIR         results directory (default $GASNET_ANCHOR/runs, GASNET_ANCHOR defaulting to /var/tmp/gasnet-anchor)
#     -g DIR         GASNet build directory from tools/gasnet/build.sh (default $GASNET_ANCHOR/build)
#     -t TAG         file name prefix (default CONDUIT-PROG)
#     -E VAR=VALUE   environment for the GEX/J ranks (gexrun -E), repeatable
#     -v NAME:VAR=VALUE[,VAR=VALUE...]   one more GEX/J run per round with this environment added, saved as side
#                    gexj-NAME (NAME: letters, digits, _ and .), repeatable. GEXJ_CHECKOUT=DIR is not passed on:
#                    the variant runs DIR's bin/gexrun instead (another checkout or worktree, built with
#                    ./gexj.sh build), to compare two builds in one sitting
#     -L LOAD        wait before each run until the 1-minute load average is below LOAD (default 0.6)
#     -W SECONDS     give up waiting after SECONDS and run anyway, saying so in the run's header (default 300)
#     -T SECONDS     end a run that takes longer (default 900)
#     -s G|J         run one side only (GASNet or GEX/J)
#     -J ARG         an argument for GEX/J's program only, put before ARGS, repeatable (e.g. -J -warmup -J 0)
#     -V SECONDS     run the whole sitting in one boot of the Soft-RoCE guest (tools/rxe-vm/run.sh, its command
#                    limited to SECONDS), for -c ibv where the host has no RDMA device. Waits for the host's load
#                    once before the boot; inside, the load wait is off (the guest's load says nothing about the
#                    host's cores). GASNet's ibv-conduit must carry tools/gasnet/ibv-roce.patch (build.sh with
#                    GASNET_IBV_ROCE=1): GASNet's own does not run on RoCE
#   tools/gasnet/alternate.sh -r 3 testam 10000 65536
#   for s in A B C D E F G H I J K; do tools/gasnet/alternate.sh -r 3 -t smp-am testam 10000 65536 $s; done
#                    (one section a run: a mode change spoils a few seconds, not a whole sitting; compare.py pools
#                    the sections of one tag)
#   tools/gasnet/alternate.sh -c udp -r 8 testam 10000 65000
#   tools/gasnet/alternate.sh -c ofi -r 3 testqueue -l -i 1000 256 65536
#   tools/gasnet/alternate.sh -c udp -r 4 -v dg:GEX_UDP_CHECKSUM=datagram testam 10000 65000
#   tools/gasnet/alternate.sh -c ibv -V 1500 -g /var/tmp/gasnet-ibv/build -o /var/tmp/gasnet-ibv/runs -r 2 \
#     -J -warmup -J 0 testam 100 4096
#
# Each run goes to DIR/TAG-gasnet-rN.txt, DIR/TAG-gexj-rN.txt or DIR/TAG-gexj-NAME-rN.txt (N goes on after the
# files already there): the output of both ranks after a header of '#' lines (side, arguments, command, load, load
# wait, mode probe, copy probe, start) and last '#' lines with the exit status, wall time and second probes.
# The mode probe, just before each run, times GASNet smp's AMShort ping-pong round trip (testam 20000 8 A, well under
# a second): compare.py sorts the runs into the VM's fast and slow mode by it. The copy probe, before and after each
# run, times a 32 KiB UDP ping-pong between two processes (copyprobe.c, built with cc into DIR, 0.1 s): in the VM's
# slow-copy mode it takes about 3 times as long, and so do GASNet's and GEX/J's large udp messages. With -c ofi, the
# TCP probe, before and after each run, times a 64-byte ping-pong over one loopback TCP connection (tcpprobe.c, 0.2 s):
# in the VM's slow-TCP state it takes 9.5-10 us instead of 6.6-6.9, and every tcp;ofi_rxm round trip of either
# program about 2.5 us more. GEX/J runs from
# this checkout's bin/gexrun: build it first with ./gexj.sh build.
set -uo pipefail

usage() { sed -n '2,/^set /s/^# \{0,1\}//p' "$0" >&2; exit 2; }
die() { echo "alternate.sh: $*" >&2; exit 2; }

ANCHOR="${GASNET_ANCHOR:-/var/tmp/gasnet-anchor}"
CONDUIT=smp; ROUNDS=3; OUT="$ANCHOR/runs"; GB="$ANCHOR/build"; TAG=""; LOAD_MAX=0.6; WAIT_MAX=300
RUN_TIMEOUT=900; ONLY=""; JENV=(); VARIANTS=(); JARGS=(); VM=""; NP=2
ALL_ARGS=("$@")
while getopts "c:n:r:o:g:t:E:v:L:W:T:s:J:V:h" opt; do
  case "$opt" in
    c) CONDUIT=$OPTARG ;; n) NP=$OPTARG ;; r) ROUNDS=$OPTARG ;; o) OUT=$OPTARG ;; g) GB=$OPTARG ;; t) TAG=$OPTARG ;;
    E) JENV+=(-E "$OPTARG") ;; v) VARIANTS+=("$OPTARG") ;;
    L) LOAD_MAX=$OPTARG ;; W) WAIT_MAX=$OPTARG ;; T) RUN_TIMEOUT=$OPTARG ;; s) ONLY=$OPTARG ;;
    J) JARGS+=("$OPTARG") ;; V) VM=$OPTARG ;; *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
PROG=$1; shift
ARGS=("$@")
TAG="${TAG:-$CONDUIT-$PROG}"
case "$PROG" in testam | testqueue | testsmall | testlarge | testfaddperf | testvisperf | testcollperf | testteam) ;;
  testpwc) [ "$ONLY" = J ] || die "PROG testpwc is GEX/J's alone: give -s J (tools/gasnet/pwc-sitting.sh)" ;;
  *) die "PROG '$PROG': allowed are testam, testqueue, testsmall, testlarge, testfaddperf, testvisperf, testcollperf and testteam (testpwc with -s J)" ;;
esac
case "$CONDUIT" in smp | udp | ofi | ibv) ;; *) die "conduit '$CONDUIT': allowed are smp, udp, ofi and ibv" ;; esac
case "$ONLY" in "" | G | J) ;; *) die "-s '$ONLY': allowed are G (GASNet only) and J (GEX/J only)" ;; esac
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "-r '$ROUNDS': give a number of rounds, 1 or more"
for v in "${VARIANTS[@]}"; do
  [[ "$v" =~ ^[A-Za-z0-9_.]+:[A-Za-z_][A-Za-z0-9_]*=[^,]*(,[A-Za-z_][A-Za-z0-9_]*=[^,]*)*$ ]] \
    || die "-v '$v': give NAME:VAR=VALUE[,VAR=VALUE...], NAME of letters, digits, _ and ."
  if [[ ",${v#*:}" =~ ,GEXJ_CHECKOUT=([^,]*) ]]; then
    [ -x "${BASH_REMATCH[1]}/bin/gexrun" ] && [ -d "${BASH_REMATCH[1]}/gex-dist/target/lib" ] \
      || die "-v '$v': ${BASH_REMATCH[1]} has no built bin/gexrun (run ./gexj.sh build there)"
  fi
done
[ -z "$VM" ] || [[ "$VM" =~ ^[1-9][0-9]*$ ]] || die "-V '$VM': give the guest command's limit in seconds"
[[ "$NP" =~ ^[1-9][0-9]*$ ]] || die "-n '$NP': give a number of ranks, 1 or more"
[ -z "$VM" ] || [ "$CONDUIT" = ibv ] || die "-V (the Soft-RoCE guest) is for -c ibv, not $CONDUIT"
for v in "$LOAD_MAX" "$WAIT_MAX" "$RUN_TIMEOUT"; do
  [[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "'$v' is not a non-negative number (-L, -W, -T)"
done

HERE="$(cd "$(dirname "$0")" && pwd)"
GEXJ="$(cd "$HERE/../.." && pwd)"

# --- the two command lines: cd to G_DIR, run G_CMD (GASNet) / cd to GEXJ, run J_CMD (GEX/J) --------------------
G_DIR="$GB/$CONDUIT-conduit"
case "$CONDUIT" in
  smp)
    G_CMD=(env GASNET_PSHM_NODES=$NP "./$PROG" "${ARGS[@]}") ;;
  udp)
    # GASNet's udp programs take the rank count first; SPAWNFN=L forks the ranks here. SUPERNODE_MAXSIZE=1 keeps
    # the ranks from using shared memory between them, so every message goes over UDP, as GEX/J's do.
    G_CMD=(env GASNET_SPAWNFN=L GASNET_MASTERIP=127.0.0.1 GASNET_SUPERNODE_MAXSIZE=1 "./$PROG" $NP "${ARGS[@]}") ;;
  ofi | ibv)
    # the ssh spawner with local-ssh as ssh: both ranks on this host, no sshd needed. For ofi, libfabric's tcp
    # provider on loopback, as GEX/J's ofi conduit uses here.
    G_CMD=(env GASNET_SSH_CMD="$HERE/local-ssh" GASNET_SSH_SERVERS=localhost GASNET_MASTERIP=127.0.0.1
           GASNET_HOST_DETECT=hostname GASNET_SUPERNODE_MAXSIZE=1)
    [ "$CONDUIT" = ofi ] && G_CMD+=(FI_PROVIDER="${FI_PROVIDER:-tcp;ofi_rxm}" FI_TCP_IFACE="${FI_TCP_IFACE:-lo}")
    if [ "$CONDUIT" = ibv ] && [ -n "${RXE_DEVICE:-}" ]; then
      # in tools/rxe-vm's guest: its rxe device and RoCE v2 IPv4 GID (the patched conduit's GASNET_IBV_GID_INDEX),
      # and a pinning limit given, so GASNet does not probe (slow under TCG)
      G_CMD+=(GASNET_IBV_PORTS="${GASNET_IBV_PORTS:-$RXE_DEVICE}"
              GASNET_IBV_GID_INDEX="${GASNET_IBV_GID_INDEX:-${RXE_GID_INDEX:-0}}"
              GASNET_PHYSMEM_MAX="${GASNET_PHYSMEM_MAX:-512M}")
    fi
    G_CMD+=("./contrib/gasnetrun_$CONDUIT" -n $NP -spawner=ssh "./$PROG" "${ARGS[@]}") ;;
esac
J_CMD=(bin/gexrun -n $NP --conduit "$CONDUIT" "${JENV[@]}")   # + a variant's -E, then -- PROG ARGS

if [ "$ONLY" != J ]; then
  [ -x "$G_DIR/$PROG" ] || die "$G_DIR/$PROG is missing: build GASNet with \
tools/gasnet/build.sh TARBALL $(dirname "$GB") (or give its build directory with -g)"
fi
if [ "$ONLY" != G ]; then
  ls "$GEXJ"/gex-dist/target/lib/*.jar >/dev/null 2>&1 || die "GEX/J is not built in $GEXJ: run ./gexj.sh build there"
fi
mkdir -p "$OUT" || die "cannot create the results directory $OUT"

# --- -V: the same sitting inside one boot of the Soft-RoCE guest, results straight into OUT (its output directory) --
if [ -n "$VM" ] && [ -z "${RXE_DEVICE:-}" ]; then
  wait_host_load() {
    local waited=0 l
    while l=$(cut -d' ' -f1 /proc/loadavg); ! awk -v l="$l" -v m="$LOAD_MAX" 'BEGIN { exit !(l < m) }'; do
      if [ "$waited" -ge "${WAIT_MAX%.*}" ]; then echo "alternate.sh: host load $l >= $LOAD_MAX after ${waited} s: \
booting anyway"; return; fi
      sleep 5; waited=$((waited + 5))
    done
    echo "alternate.sh: host 1-min load $l < $LOAD_MAX after ${waited} s: booting the guest"
  }
  wait_host_load
  # the guest sees the host's / read-only: -o /mnt/out (OUT, shared read-write) and no load wait in there; later
  # options win, so these go after the caller's
  opts=("${ALL_ARGS[@]:0:$((OPTIND - 1))}")
  [ "${#opts[@]}" -eq 0 ] || [ "${opts[-1]}" != -- ] || unset 'opts[-1]'
  "$GEXJ/tools/rxe-vm/run.sh" --timeout "$VM" --out "$OUT" -- \
    "$HERE/alternate.sh" "${opts[@]}" -o /mnt/out -L 1000000 "$PROG" "${ARGS[@]}"
  rc=$?
  # keep this boot's guest logs apart from the next boot's, which run.sh would overwrite
  stamp="$TAG-guest-$(date -u +%Y%m%dT%H%M%S)"
  for f in stdout stderr console.log summary.txt; do [ ! -f "$OUT/$f" ] || mv "$OUT/$f" "$OUT/$stamp.$f"; done
  echo "guest logs: $OUT/$stamp.{stdout,stderr,console.log,summary.txt}"
  echo "compare: python3 $HERE/compare.py $OUT   (guest exit $rc)"
  exit "$rc"
fi

# --- helpers -----------------------------------------------------------------------------------------------------
WAIT_NOTE=""
wait_load() {  # sets WAIT_NOTE; polls every 5 s
  local waited=0 l
  while :; do
    l=$(cut -d' ' -f1 /proc/loadavg)
    if awk -v l="$l" -v m="$LOAD_MAX" 'BEGIN { exit !(l < m) }'; then
      WAIT_NOTE="ok after ${waited} s (1-min load $l < $LOAD_MAX)"; return
    fi
    if awk -v w="$waited" -v m="$WAIT_MAX" 'BEGIN { exit !(w >= m) }'; then
      WAIT_NOTE="GAVE UP after ${waited} s (1-min load $l >= $LOAD_MAX)"; return
    fi
    sleep 5; waited=$((waited + 5))
  done
}

mode_probe() {  # prints GASNet smp's AMShort ping-pong round trip in us, or a reason it has none
  local t="$GB/smp-conduit/testam" line
  [ -x "$t" ] || { echo "none (no $t)"; return; }
  line=$(cd "$GB/smp-conduit" && GASNET_PSHM_NODES=2 timeout 60 ./testam 20000 8 A 2>&1 \
    | grep -E '^A: +AMShort +ping-pong +roundtrip +ReqRep' | head -1)
  if [ -n "$line" ]; then awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "us") { print $i; exit } }' <<< "$line"
  else echo "none (testam printed no AMShort round trip)"; fi
}

copy_probe() {  # prints copyprobe.c's 32 KiB loopback UDP round trip in us, or a reason it has none
  local bin="$OUT/.copyprobe" v
  if [ ! -x "$bin" ] || [ "$HERE/copyprobe.c" -nt "$bin" ]; then
    cc -O2 -o "$bin" "$HERE/copyprobe.c" 2>/dev/null || { echo "none (cc could not build $HERE/copyprobe.c)"; return; }
  fi
  v=$(timeout 20 "$bin" 5000 32768 2>/dev/null) && [ -n "$v" ] && echo "$v" || echo "none (copyprobe failed)"
}

tcp_probe() {  # prints tcpprobe.c's 64-byte loopback TCP round trip in us (ofi runs only), or a reason it has none
  local bin="$OUT/.tcpprobe" v
  if [ ! -x "$bin" ] || [ "$HERE/tcpprobe.c" -nt "$bin" ]; then
    cc -O2 -o "$bin" "$HERE/tcpprobe.c" 2>/dev/null || { echo "none (cc could not build $HERE/tcpprobe.c)"; return; }
  fi
  v=$(timeout 20 "$bin" 20000 64 2>/dev/null) && [ -n "$v" ] && echo "$v" || echo "none (tcpprobe failed)"
}

next_round() {  # first N with no OUT/TAG-SIDE-rN.txt
  local n=1
  while [ -e "$OUT/$TAG-$1-r$n.txt" ]; do n=$((n + 1)); done
  echo "$n"
}

run_one() {  # run_one gasnet | run_one gexj[-NAME] [VAR=VALUE,...]
  local side=$1 dir n f rc t0 probe copy after probe_after what kv tcp="" tcp_after=
  local -a cmd
  if [ "$side" = gasnet ]; then dir=$G_DIR; cmd=("${G_CMD[@]}")
    what="$(cut -d' ' -f1 "$GB/.gexj-configure" 2>/dev/null || echo "GASNet build $GB")"
    if [ "$CONDUIT" = ibv ] && [ -f "$what/.gexj-ibv-roce.patch" ]; then
      what="$(basename "$what") + tools/gasnet/ibv-roce.patch"
    else what="$(basename "$what")"; fi
  else dir=$GEXJ; cmd=("${J_CMD[@]}"); what="GEX/J $(git -C "$GEXJ" log -1 --format='%h %s' 2>/dev/null | cut -c1-70)"
    if [ -n "${2:-}" ]; then IFS=',' read -ra kv <<< "$2"
      for x in "${kv[@]}"; do
        case "$x" in
          GEXJ_CHECKOUT=*) dir=${x#GEXJ_CHECKOUT=}
            what="GEX/J $(git -C "$dir" log -1 --format='%h %s' 2>/dev/null | cut -c1-60) in $dir" ;;
          *) cmd+=(-E "$x") ;;
        esac
      done
    fi
    cmd+=(-- "$PROG" "${JARGS[@]}" "${ARGS[@]}")
  fi
  n=$(next_round "$side"); f="$OUT/$TAG-$side-r$n.txt"
  wait_load
  probe=$(mode_probe)
  copy=$(copy_probe)
  [ "$CONDUIT" != ofi ] || [ -n "${RXE_DEVICE:-}" ] || tcp=$(tcp_probe)
  # the host's fast/slow modes cannot be read in the emulated guest: its probe is kept, but not as a mode probe
  [ -z "${RXE_DEVICE:-}" ] || probe="none in the Soft-RoCE guest (TCG; emulated smp round trip $probe us)"
  [ -z "${RXE_DEVICE:-}" ] || copy="none in the Soft-RoCE guest (TCG; emulated $copy us)"
  {
    echo "# side: $side  conduit: $CONDUIT  program: $PROG  round: $n  ($what)"
    echo "# args: ${ARGS[*]}"
    echo "# command: (cd $dir && $(printf '%q ' "${cmd[@]}"))"
    echo "# loadavg at start: $(cat /proc/loadavg)"
    echo "# load wait: $WAIT_NOTE"
    echo "# mode probe: GASNet smp AMShort ping-pong roundtrip us: $probe"
    echo "# copy probe before: 32 KiB loopback UDP ping-pong roundtrip us: $copy"
    [ -z "$tcp" ] || echo "# tcp probe before: 64-byte loopback TCP ping-pong roundtrip us: $tcp"
    echo "# started: $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
  } > "$f"
  t0=$(date +%s.%N)
  (cd "$dir" && timeout "$RUN_TIMEOUT" "${cmd[@]}") < /dev/null >> "$f" 2>&1
  rc=$?
  printf '# exit status: %s  wall: %.1f s  loadavg at end: %s\n' "$rc" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$(cat /proc/loadavg)" >> "$f"
  # after too: both modes change within tens of seconds, so a run is in one mode only if both of its probes agree
  probe_after=$(mode_probe)
  after=$(copy_probe)
  [ -z "$tcp" ] || tcp_after=$(tcp_probe)
  [ -z "${RXE_DEVICE:-}" ] || probe_after="none in the Soft-RoCE guest (TCG; emulated smp round trip $probe_after us)"
  [ -z "${RXE_DEVICE:-}" ] || after="none in the Soft-RoCE guest (TCG; emulated $after us)"
  echo "# mode probe after: GASNet smp AMShort ping-pong roundtrip us: $probe_after" >> "$f"
  echo "# copy probe after: 32 KiB loopback UDP ping-pong roundtrip us: $after" >> "$f"
  [ -z "$tcp" ] || echo "# tcp probe after: 64-byte loopback TCP ping-pong roundtrip us: $tcp_after" >> "$f"
  [ -z "$tcp" ] || after="$after us; tcp probe $tcp / $tcp_after"
  echo "$f  (exit $rc; load wait $WAIT_NOTE; mode probe $probe / $probe_after us; copy probe $copy / $after us)"
}

# GASNet's ibv-conduit refuses to start when RLIMIT_MEMLOCK is below 128 MB (the guest's is 8 MB); raise it if allowed
[ "$CONDUIT" != ibv ] || ulimit -l unlimited 2>/dev/null || true
[ -z "${RXE_DEVICE:-}" ] || echo "alternate.sh: in the Soft-RoCE guest ($RXE_DEVICE), results in $OUT"
# the sides of a round, as run_one's arguments: "gasnet", "gexj", "gexj-NAME VAR=VALUE,..."
SIDES=()
[ "$ONLY" = J ] || SIDES+=(gasnet)
if [ "$ONLY" != G ]; then
  SIDES+=(gexj)
  for v in "${VARIANTS[@]}"; do SIDES+=("gexj-${v%%:*} ${v#*:}"); done
fi
# Round r starts at side (r-1) mod count and goes round: G J, J G, ... A run's position within a round biases it
# (the same build run twice in one round tends to be faster the second time), so no side may always go first.
for ((r = 1; r <= ROUNDS; r++)); do
  for ((i = 0; i < ${#SIDES[@]}; i++)); do
    s=${SIDES[$(((r - 1 + i) % ${#SIDES[@]}))]}
    if [ "${s% *}" = "$s" ]; then run_one "$s"; else run_one "${s%% *}" "${s#* }"; fi
  done
done
echo "compare: python3 $HERE/compare.py $OUT"
