# Sourced by bin/gexrun, bin/gexbench and bin/gexplot: sets JAVA_HOME to a Java 25+ runtime and GEX_LIB_CP to the jars that
# `./gexj.sh build` (mvn package) collects in gex-dist/target/lib, or exits 2 naming what is missing.
# $1: the calling command's name, for messages.
gex_lib="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/gex-dist/target/lib"
# gex-launch too: a lib of a build before the launcher left gex-core has gex-core only
if ! ls "$gex_lib"/gex-core-*.jar "$gex_lib"/gex-launch-*.jar >/dev/null 2>&1; then
  echo "$1: no GEX/J jars in $gex_lib: build first with ./gexj.sh build (or mvn package -DskipTests)" >&2
  exit 2
fi
java_ok() { [ -x "$1/bin/java" ] && "$1/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; }
if [ -z "${JAVA_HOME:-}" ] || ! java_ok "$JAVA_HOME"; then
  for j in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64; do
    if java_ok "$j"; then JAVA_HOME="$j"; break; fi
  done
fi
if [ -z "${JAVA_HOME:-}" ] || ! java_ok "$JAVA_HOME"; then
  echo "$1: needs a Java 25 runtime: set JAVA_HOME (looked in /usr/lib/jvm/temurin-25-jdk-amd64, /usr/lib/jvm/java-25-openjdk-amd64)" >&2
  exit 2
fi
GEX_LIB_CP="$(printf '%s:' "$gex_lib"/*.jar)"
GEX_LIB_CP="${GEX_LIB_CP%:}"
