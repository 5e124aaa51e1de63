#!/usr/bin/env bash
# The ibv conduit's connection modes side by side, in one boot of the Soft-RoCE guest: for each job size and each
# GEX_IBV_CONNECT mode, one `gexrun --conduit ibv testam` job with GEX_STATS=1, and from every rank's stats line at
# close the RC queue pairs it made (ibv.qps), the memory it registered (ibv.registered.bytes: pinned), how long its
# conduit's open took (ibv.open.micros: device, queues, and the connections in static mode or their UD QP on demand)
# and the connections it asked for. Prints a Markdown table (min-max over the ranks) and keeps the raw output.
#
#   tools/rxe-vm/ibv-connect-table.sh [--sizes "2 4 8"] [--out DIR] [-- testam arguments]
#
# Build first (./gexj.sh build). The guest gets RXE_VM_MEM (default here 8G) and each rank -Xmx256m: 8 JVMs fit.
# GEX_IBV_TIMEOUT is 300 s (or the caller's): 8 rank JVMs on the guest's 2 emulated CPUs leave a rank unscheduled for
# longer than the default 30 s now and then, which the liveness watch takes for a dead peer (seen at 8 ranks).
# Ratios and counts only: under TCG absolute times are tens of times the host's.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SIZES="2 4 8"
TIMEOUT=${GEX_IBV_TIMEOUT:-300}
OUT=${RXE_VM_DIR:-/var/tmp/gexj-rxe-vm}/connect-table
while (($#)); do
  case $1 in
    --sizes) SIZES=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "ibv-connect-table: unknown option $1" >&2; exit 2 ;;
  esac
done
ARGS=("$@")
((${#ARGS[@]})) || ARGS=(-warmup 0 20 4096)
[ -x "$REPO/bin/gexrun" ] || { echo "ibv-connect-table: no bin/gexrun: run ./gexj.sh build" >&2; exit 97; }
mkdir -p "$OUT"
RAW="$OUT/raw.txt"

script=""
for n in $SIZES; do
  for mode in static ondemand; do
    script+="echo '### job $n $mode'; s=\$(date +%s%N);"
    script+=" GEX_IBV_CONNECT=$mode GEX_IBV_TIMEOUT=$TIMEOUT GEX_STATS=1 GEX_JVM_OPTS=-Xmx256m bin/gexrun -n $n --conduit ibv testam ${ARGS[*]}"
    script+=" >/dev/null 2>/tmp/err.txt; rc=\$?; grep 'gex: stats rank [0-9]* ibv:' /tmp/err.txt;"
    script+=" [ \$rc = 0 ] || { tail -20 /tmp/err.txt; };"
    script+=" echo \"### end rc=\$rc wall_ms=\$(( (\$(date +%s%N) - s) / 1000000 ))\";"
  done
done
cd "$REPO"
RXE_VM_MEM=${RXE_VM_MEM:-8G} "$HERE/run.sh" --timeout 3000 -- bash -c "$script" >"$RAW" 2>&1 || {
  tail -30 "$RAW" >&2
  echo "ibv-connect-table: the guest run failed (raw output: $RAW)" >&2
  exit 1
}
python3 - "$RAW" <<'EOF'
import re, sys
rows, job = [], None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"### job (\d+) (\w+)", line)
    if m:
        job = {"n": int(m[1]), "mode": m[2], "ranks": []}
        continue
    m = re.match(r"### end rc=(\d+) wall_ms=(\d+)", line)
    if m and job:
        job["rc"], job["wall"] = int(m[1]), int(m[2])
        rows.append(job)
        job = None
        continue
    if job and "gex: stats rank" in line:
        job["ranks"].append({k: int(v) for k, v in re.findall(r"(ibv\.[\w.]+)=(-?\d+)", line)})
def span(values, scale=1, fmt="{:.0f}"):
    if not values:
        return "-"
    lo, hi = min(values) / scale, max(values) / scale
    return fmt.format(lo) if lo == hi else fmt.format(lo) + "-" + fmt.format(hi)
print("| ranks | mode | exit | RC QPs per rank | connections asked | registered (pinned) MiB per rank"
      " | conduit open ms per rank | set-up ms per connection asked | job wall s |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    k = r["ranks"]
    get = lambda key: [x.get(key, 0) for x in k]
    setup = [x.get("ibv.connect.micros", 0) / x["ibv.connect.requests"] for x in k if x.get("ibv.connect.requests")]
    print(f"| {r['n']} | {r['mode']} | {r['rc']} | {span(get('ibv.qps'))} | {span(get('ibv.connect.requests'))}"
          f" | {span(get('ibv.registered.bytes'), 1 << 20, '{:.1f}')} | {span(get('ibv.open.micros'), 1000)}"
          f" | {span(setup, 1000, '{:.1f}')} | {r['wall'] / 1000:.1f} |")
    if len(k) != r["n"]:
        print(f"(only {len(k)} of {r['n']} ranks printed stats)")
EOF
echo "raw output: $RAW"
