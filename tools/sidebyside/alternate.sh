#!/usr/bin/env bash
# Alternating runs of GASNet-EX's and GEX/J's testam or testqueue on udp, 2 ranks, with GEX/J in several settings per
# round, so that every setting is compared with GASNet in the same sitting (this VM drifts by up to 30 % within
# minutes: compare medians of rounds, never single runs).
#
#   tools/sidebyside/alternate.sh TAG ROUNDS 'ARGS' VARIANT...
#     VARIANT: G (GASNet) or NAME:ENV, ENV '-' or VAR=VALUE[,VAR=VALUE...] for the GEX/J ranks (gexrun -E)
#   tools/sidebyside/alternate.sh s1 4 '10000 65536' G J:- Jh:GEX_UDP_CHECKSUM=header
#   PROG=testqueue tools/sidebyside/alternate.sh q1 3 '-l -i 1000 256 65536' G J:-
#   python3 tools/sidebyside/rows.py "$OUT/s1-G-r*" "$OUT/s1-J-r*" "$OUT/s1-Jh-r*"
#
# Needs GASNet built by ../shared/tools/gasnet-anchor/build.sh and GEX/J by ./gexj.sh build. Each run goes to
# $OUT/TAG-NAME-rN.txt (OUT=/var/tmp/gasnet-anchor/runs), in the format of sidebyside.sh, whose parser rows.py uses.
# Unlike sidebyside.sh it does not wait for the load to fall between runs: run nothing else meanwhile.
set -uo pipefail
TAG=$1; ROUNDS=$2; ARGS=$3; shift 3
PROG="${PROG:-testam}"
OUT="${OUT:-${GASNET_ANCHOR:-/var/tmp/gasnet-anchor}/runs}"
GASNET_BUILD="${GASNET_BUILD:-${GASNET_ANCHOR:-/var/tmp/gasnet-anchor}/build}"
GEXJ="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$OUT"
for ((r = 1; r <= ROUNDS; r++)); do
  for v in "$@"; do
    name=${v%%:*}; envs=${v#*:}
    f="$OUT/$TAG-$name-r$r.txt"
    { echo "# variant: $v  round $r  args: $ARGS"; echo "# loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
      echo "# load wait: ok (not waited)"; echo "# started: $(date -u '+%Y-%m-%dT%H:%M:%SZ')"; } > "$f"
    t0=$(date +%s.%N)
    if [ "$name" = G ]; then
      # shellcheck disable=SC2086 # ARGS are words
      (cd "$GASNET_BUILD/udp-conduit" && GASNET_SPAWNFN=L GASNET_MASTERIP=127.0.0.1 GASNET_SUPERNODE_MAXSIZE=1 \
        timeout 900 "./$PROG" 2 $ARGS) >> "$f" 2>&1
    else
      E=()
      if [ "$envs" != - ]; then IFS=',' read -ra kv <<< "$envs"; for x in "${kv[@]}"; do E+=(-E "$x"); done; fi
      # shellcheck disable=SC2086
      (cd "$GEXJ" && timeout 900 bin/gexrun -n 2 --conduit udp "${E[@]}" "$PROG" $ARGS) >> "$f" 2>&1
    fi
    rc=$?
    printf '# exit status: %s  wall: %.1f s  loadavg at end: %s\n' "$rc" \
      "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$f"
    echo "$f (exit $rc)"
    sleep 1
  done
done
