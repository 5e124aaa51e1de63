#!/usr/bin/env bash
# Job start-up (and end) time of a minimal GEX/J job, by launcher and rank count: wall time of
#   bin/gexrun -n N -- org.gexj.dist.PmixRanks N 1          (GEX/J's own launcher and rendezvous)
#   mpirun --oversubscribe -np N bin/gexrank org.gexj.dist.PmixRanks N 1    (Open MPI's PMIx server)
#   srun --mpi=pmix -n N bin/gexrank org.gexj.dist.PmixRanks N 1            (Slurm's; only when sinfo answers, e.g.
#                                                                             after tools/slurm/single-node.sh start)
# PmixRanks joins the job (Gex.init), attaches a segment, does one round of AMs, puts and two barriers, and closes, so
# the time is JVM start-up + bootstrap + conduit set-up + tear-down. Prints one line per run and the median per cell.
# Usage: tools/startup/startup-times.sh [RUNS (default 3)] [RANK COUNTS (default "2 4 8")]; after ./gexj.sh build and
# mvn test-compile of gex-dist (the program is a test class).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-3}"
counts="${2:-2 4 8}"
export GEX_CLASSPATH="$PWD/gex-dist/target/test-classes"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ! munge -n </dev/null >/dev/null 2>&1; then
  # with munged gone but its socket left, PMIx retries munge for 2.25 s in mpirun before falling back to native
  export PMIX_MCA_psec=native
  echo "munged does not answer: PMIX_MCA_psec=native (srun needs munged: tools/slurm/single-node.sh start)" >&2
fi
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for n in $counts; do
  launchers="gexrun mpirun"
  if sinfo -h >/dev/null 2>&1; then launchers="$launchers srun"; fi
  for launcher in $launchers; do
    times=()
    for _ in $(seq "$runs"); do
      start=$(date +%s.%N)
      if [ "$launcher" = gexrun ]; then
        bin/gexrun -n "$n" -- org.gexj.dist.PmixRanks "$n" 1 >/dev/null
      elif [ "$launcher" = srun ]; then
        srun --mpi=pmix -n "$n" bin/gexrank org.gexj.dist.PmixRanks "$n" 1 >/dev/null </dev/null
      else
        mpirun --oversubscribe -np "$n" bin/gexrank org.gexj.dist.PmixRanks "$n" 1 >/dev/null </dev/null
      fi
      t=$(echo "$(date +%s.%N) - $start" | bc)
      echo "$launcher -n $n: $t s"
      times+=("$t")
    done
    echo "MEDIAN $launcher -n $n: $(printf '%s\n' "${times[@]}" | median) s"
  done
done
