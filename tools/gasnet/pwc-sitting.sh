#!/usr/bin/env bash
# GEX/J's testpwc (put and get with completion, registered gets and puts) against what GASNet-EX has nearest: the
# AMLong ping-pong round trip (testam section H) and blocking get and put latency (testsmall section A), alternated
# on one conduit with 2 ranks, each run through tools/gasnet/alternate.sh (its load wait, mode and copy probes).
# Compare with tools/gasnet/pwccompare.py DIR.
#
#   tools/gasnet/pwc-sitting.sh [options]
#     -c CONDUIT   smp (default), udp or ofi
#     -r ROUNDS    rounds (default 3); odd rounds run GASNet first, even ones GEX/J
#     -o DIR       results directory (default $GASNET_ANCHOR/runs-pwc, GASNET_ANCHOR defaulting to /var/tmp/gasnet-anchor)
#     -i ITERS     iterations per size (default 10000; ofi: 2000)
#     -m MAXSIZE   largest size (default 65536)
#     -L LOAD, -W SECONDS   alternate.sh's load wait (defaults 1.5 and 30)
#     -E VAR=VALUE environment for the GEX/J ranks, repeatable (e.g. -E GEX_PWC_RDMA=0)
#   tools/gasnet/pwc-sitting.sh -c ofi -r 3 -o /var/tmp/gx/runs-pwc-ofi
#   python3 tools/gasnet/pwccompare.py /var/tmp/gx/runs-pwc-ofi
set -uo pipefail

usage() { sed -n '2,/^set /s/^# \{0,1\}//p' "$0" >&2; exit 2; }
HERE="$(cd "$(dirname "$0")" && pwd)"
C=smp; R=3; O="${GASNET_ANCHOR:-/var/tmp/gasnet-anchor}/runs-pwc"; I=""; M=65536; L=1.5; W=30; E=()
while getopts "c:r:o:i:m:L:W:E:h" opt; do
  case "$opt" in
    c) C=$OPTARG ;; r) R=$OPTARG ;; o) O=$OPTARG ;; i) I=$OPTARG ;; m) M=$OPTARG ;; L) L=$OPTARG ;; W) W=$OPTARG ;;
    E) E+=(-E "$OPTARG") ;; *) usage ;;
  esac
done
case "$C" in smp | udp | ofi) ;; *) echo "pwc-sitting.sh: conduit '$C': allowed are smp, udp and ofi" >&2; exit 2 ;; esac
[[ "$R" =~ ^[1-9][0-9]*$ ]] || { echo "pwc-sitting.sh: -r '$R': give a number of rounds, 1 or more" >&2; exit 2; }
[ -n "$I" ] || { [ "$C" = ofi ] && I=2000 || I=10000; }
A=("$HERE/alternate.sh" -c "$C" -r 1 -o "$O" -L "$L" -W "$W")
gasnet() {
  "${A[@]}" -s G -t "$C-pwc-am" testam "$I" "$M" H
  "${A[@]}" -s G -t "$C-pwc-small" testsmall "$I" "$M"
}
gexj() { "${A[@]}" -s J -t "$C-pwc" "${E[@]}" testpwc "$I" "$M" "$I"; }
for ((r = 1; r <= R; r++)); do
  if ((r % 2)); then gasnet; gexj; else gexj; gasnet; fi
done
echo "compare: python3 $HERE/pwccompare.py $O"
