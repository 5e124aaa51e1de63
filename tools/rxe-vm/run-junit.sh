#!/usr/bin/env bash
# Run a module's JUnit test classes inside the Soft-RoCE VM (tools/rxe-vm/run.sh).
#
#   tools/rxe-vm/run-junit.sh [--timeout SECS] [--build] <module> <class pattern> [NAME=VALUE ...]
#
# e.g.  tools/rxe-vm/run-junit.sh conduit-smp org.gexj.smp.SmpAmConformanceTest
#       tools/rxe-vm/run-junit.sh conduit-ofi 'org.gexj.ofi.Ofi*ConformanceTest' GEX_OFI_PROVIDER='verbs;ofi_rxm'
#
# The test class path is computed on the host with Maven, offline (the module's target/test-classes and
# target/classes, the reactor modules' target/classes, jars from the local repository), so the module must have been
# built (mvn package -DskipTests, or pass --build for an offline test-compile of the module and what it needs).
# Build outputs are copied to a per-run snapshot first, so a rebuild on the host during the (slow) VM run cannot pull
# classes from under the guest's JVM. The class pattern is a glob over fully qualified class names (* and ?; a
# pattern without a dot matches the simple name; several patterns separated by commas). NAME=VALUE pairs become
# environment variables of the test JVM. Like Surefire in this project, the JVM gets
#   --enable-native-access=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
#   --add-opens java.base/java.nio=ALL-UNNAMED -Xmx1g      (plus $RXE_VM_JAVA_OPTS)
# and LD_PRELOAD=$JAVA_HOME/lib/libjsig.so (pass LD_PRELOAD=... to change it), runs in the module directory, and has
# FI_UNIVERSE_SIZE=64 from run.sh. Prints one line per test and a closing 'junit: N passed, N failed, N skipped'.
#
# Exit status: 0 all passed; 1 a test failed; 3 no test matched/ran; 124 timeout (default 900 s for the JVM);
# 97/98/99 as run.sh (not prepared or module not built / VM did not boot / rxe failed); 2 usage.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$HERE/lib/common.sh"
REPO=$(cd "$HERE/../.." && pwd)

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

TIMEOUT=${RXE_VM_TIMEOUT:-900}
BUILD=0
while (($#)); do
  case $1 in
    --timeout) (($# >= 2)) || { usage >&2; exit 2; }; TIMEOUT=$2; shift 2 ;;
    --timeout=*) TIMEOUT=${1#*=}; shift ;;
    --build) BUILD=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "rxe-vm junit: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
  esac
done
(($# >= 2)) || { usage >&2; exit 2; }
MOD=${1%/}
PATTERN=$2
shift 2
for e in "$@"; do
  [[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { echo "rxe-vm junit: expected NAME=VALUE, got: $e" >&2; exit 2; }
done
[ -f "$REPO/$MOD/pom.xml" ] || die 2 "no module '$MOD' (no $REPO/$MOD/pom.xml)"

# The JDK of the build is also the guest's JDK (the guest sees the host's /usr/lib/jvm through 9p).
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
[ -x "$JAVA_HOME/bin/javac" ] || die 97 "no JDK at JAVA_HOME=$JAVA_HOME"
command -v mvn >/dev/null || die 97 "mvn not found (Debian package maven)"

WORK="$RXE_VM_DIR/junit"
mkdir -p "$WORK"
RUN_DIR=$(mktemp -d "$WORK/run.XXXXXX")
trap 'rm -rf "$RUN_DIR"' EXIT
MVN_LOG="$RUN_DIR/mvn.log"
mvn_() {
  # Maven's own output only matters when it fails; -o: the harness must not depend on the network.
  (cd "$REPO" && mvn -B -ntp -o -q "$@") >"$MVN_LOG" 2>&1 || {
    grep -v '^WARNING: .*sun.misc.Unsafe\|^WARNING: Please consider reporting' "$MVN_LOG" | tail -40 >&2
    return 1
  }
}

if ((BUILD)); then
  log "building $MOD and the modules it needs (mvn -o test-compile)"
  mvn_ -pl "$MOD" -am test-compile || die 97 "mvn test-compile of $MOD failed"
fi

# Maven 3 resolves reactor modules to their target/classes only when the compile phase is part of the run; the
# *.skip properties keep that phase from compiling or copying anything, so this is read-only and takes seconds.
# With -am every module of the reactor writes the output file; the selected one comes last (the others are its
# dependencies), so the file ends up holding its class path.
log "computing the test class path of $MOD (mvn -o dependency:build-classpath)"
mvn_ -pl "$MOD" -am test-compile dependency:build-classpath \
  -Dmaven.main.skip=true -Dmaven.test.skip=true -Dmaven.resources.skip=true \
  -Dmdep.includeScope=test -Dmdep.outputFile="$RUN_DIR/classpath.txt" ||
  die 97 "could not compute the class path of $MOD with Maven offline (log above)"
# (the file has no final newline, so read reports end-of-file although it read the line)
IFS=: read -r -a DEPS <"$RUN_DIR/classpath.txt" || true
((${#DEPS[@]})) || die 97 "Maven wrote an empty class path for $MOD"

TEST_CLASSES="$REPO/$MOD/target/test-classes"
if [ -z "$(find "$TEST_CLASSES" -name '*.class' -print -quit 2>/dev/null)" ]; then
  die 97 "$MOD is not built ($TEST_CLASSES has no classes): run 'JAVA_HOME=$JAVA_HOME mvn -B -ntp -o -q package -DskipTests' or pass --build"
fi
# Check the pattern against the compiled test classes first: a typo should not cost a VM boot.
matched=0
while IFS= read -r f; do
  fqcn=${f#"$TEST_CLASSES"/}
  fqcn=${fqcn%.class}
  fqcn=${fqcn//\//.}
  IFS=, read -r -a globs <<<"$PATTERN"
  for g in "${globs[@]}"; do
    [ -n "$g" ] || continue
    # same rule as RxeVmJUnit: a pattern without a dot matches the simple name in any package
    [[ $g == *.* ]] || g="*.$g"
    # shellcheck disable=SC2053  # $g is a glob on purpose
    if [[ $fqcn == $g ]]; then matched=$((matched + 1)); break; fi
  done
done < <(find "$TEST_CLASSES" -name '*.class' ! -name '*$*')
((matched)) || { log "no test class of $MOD matches '$PATTERN' (in $TEST_CLASSES)"; exit 3; }
log "$matched test class(es) of $MOD match '$PATTERN'"

ENTRIES=("$TEST_CLASSES" "$REPO/$MOD/target/classes" "${DEPS[@]}")
for p in "${ENTRIES[@]}"; do
  [ -e "$p" ] || die 97 "class path entry missing (module not built?): $p"
done

# The launcher: the test class path has the JUnit engines but no launcher; use the junit-platform-launcher of the
# same platform version from the local repository (fetched once from Maven Central with mvn if absent).
ENGINE_JAR=""
for p in "${DEPS[@]}"; do
  case "$p" in */junit-platform-engine-*.jar) ENGINE_JAR=$p ;; esac
done
[ -n "$ENGINE_JAR" ] || die 97 "$MOD's test class path has no junit-platform-engine jar (not a JUnit 5/6 module?)"
PV=$(basename "$(dirname "$ENGINE_JAR")")
M2=${ENGINE_JAR%/org/junit/platform/junit-platform-engine/*}
LAUNCHER_JAR="$M2/org/junit/platform/junit-platform-launcher/$PV/junit-platform-launcher-$PV.jar"
if [ ! -f "$LAUNCHER_JAR" ]; then
  log "junit-platform-launcher $PV is not in $M2; fetching it with mvn dependency:get"
  (cd "$REPO" && mvn -B -ntp -q dependency:get -Dartifact="org.junit.platform:junit-platform-launcher:$PV" -Dtransitive=false) >"$MVN_LOG" 2>&1 || true
  [ -f "$LAUNCHER_JAR" ] || die 97 "missing $LAUNCHER_JAR (mvn dependency:get -Dartifact=org.junit.platform:junit-platform-launcher:$PV failed)"
fi
# Compiled once per launcher version and source revision, kept in the scratch directory (not in the repo).
SRC="$HERE/lib/RxeVmJUnit.java"
LDIR="$WORK/launcher-$PV-$(sha256sum "$SRC" | cut -c1-12)"
if [ ! -f "$LDIR/RxeVmJUnit.class" ]; then
  rm -rf "$LDIR.tmp"
  mkdir -p "$LDIR.tmp"
  cp_javac=$(IFS=:; echo "$LAUNCHER_JAR:${DEPS[*]}")
  "$JAVA_HOME/bin/javac" --release 17 -nowarn -d "$LDIR.tmp" -cp "$cp_javac" "$SRC" || die 97 "javac of $SRC failed"
  rm -rf "$LDIR"
  mv "$LDIR.tmp" "$LDIR"
fi

# Snapshot of everything on the class path that lives in the work tree (reactor build outputs).
SNAP="$RUN_DIR/cp"
mkdir -p "$SNAP"
CP=()
i=0
for p in "${ENTRIES[@]}"; do
  case "$p" in
    "$REPO"/*)
      rel=${p#"$REPO"/}
      dst="$SNAP/$i-${rel//\//.}"
      if [ -d "$p" ]; then mkdir -p "$dst" && cp -a "$p/." "$dst/"; else cp -a "$p" "$dst"; fi
      CP+=("$dst")
      ;;
    *) CP+=("$p") ;;
  esac
  i=$((i + 1))
done
CP+=("$LAUNCHER_JAR" "$LDIR")
CLASSPATH_STR=$(IFS=:; echo "${CP[*]}")
log "class path: ${#CP[@]} entries (work-tree outputs snapshotted in $SNAP)"

ENVS=()
has_ld_preload=0
for e in "$@"; do
  [[ $e == LD_PRELOAD=* ]] && has_ld_preload=1
  ENVS+=(-e "$e")
done
# Surefire in this project preloads libjsig (libfabric's shm provider installs signal handlers; libjsig chains them
# with the JVM's); do the same so tests behave as under mvn test.
if ((!has_ld_preload)) && [ -f "$JAVA_HOME/lib/libjsig.so" ]; then
  ENVS=(-e "LD_PRELOAD=$JAVA_HOME/lib/libjsig.so" "${ENVS[@]}")
fi

# shellcheck disable=SC2206  # RXE_VM_JAVA_OPTS is a list of JVM options on purpose
JAVA_OPTS=(--enable-native-access=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
           --add-opens java.base/java.nio=ALL-UNNAMED -Xmx1g ${RXE_VM_JAVA_OPTS:-})

cd "$REPO/$MOD"
log "running $PATTERN from $MOD in the VM (timeout ${TIMEOUT}s)${*:+ with $*}"
rc=0
"$HERE/run.sh" --timeout "$TIMEOUT" "${ENVS[@]}" -- \
  "$JAVA_HOME/bin/java" "${JAVA_OPTS[@]}" -Dbasedir="$REPO/$MOD" -cp "$CLASSPATH_STR" \
  RxeVmJUnit "${CP[0]}" "$PATTERN" || rc=$?
case $rc in
  0) log "junit: $MOD $PATTERN: all passed" ;;
  1) log "junit: $MOD $PATTERN: FAILED (test failures)" ;;
  3) log "junit: $MOD $PATTERN: FAILED (no test ran)" ;;
  124) log "junit: $MOD $PATTERN: FAILED (timeout after ${TIMEOUT}s)" ;;
  *) log "junit: $MOD $PATTERN: FAILED (exit status $rc)" ;;
esac
exit "$rc"
