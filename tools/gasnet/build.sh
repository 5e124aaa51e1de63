#!/usr/bin/env bash
# Builds GASNet-EX from a release tarball you give (e.g. GASNet-2025.8.0.tar.gz) for side-by-side runs with GEX/J
# (tools/gasnet/alternate.sh): a release build of the smp, udp and ofi conduits, and ibv where the verbs headers are
# installed, each with GASNet's testam and testqueue. Nothing of GASNet goes into this repository.
#
#   tools/gasnet/build.sh TARBALL [PREFIX]      PREFIX defaults to /var/tmp/gasnet-anchor
#
# Lays out PREFIX/src/GASNet-<version> (the unpacked tarball), PREFIX/build (GASNet's build directory: the programs
# are PREFIX/build/<conduit>-conduit/testam and testqueue) and PREFIX/build/*.log. Re-running skips what is done.
# Environment (optional):
#   GASNET_TESTS='testam testqueue testsmall testlarge testfaddperf testratomic testvis testvisperf testteam testsplit testcoll testcollperf'   test programs to build in each conduit ("all": GASNet's whole `make tests-seq`)
#   GASNET_IBV=auto|0|1               ibv-conduit: auto builds it when <infiniband/verbs.h> exists; 1 also installs
#                                     Debian's libibverbs-dev when root; 0 never builds it
#   GASNET_IBV_ROCE=0|1               1: apply tools/gasnet/ibv-roce.patch to the unpacked source first, so that
#                                     ibv-conduit runs on RoCE (e.g. Soft-RoCE in tools/rxe-vm), which GASNet's does
#                                     not; use a PREFIX of its own (a PREFIX is refused if built the other way)
#   GASNET_OFI_PROVIDER=tcp:ofi_rxm  the provider ofi-conduit is built for ("generic": any, detected at run time;
#                                     ':' for ';'), the one alternate.sh runs (FI_PROVIDER)
#   JOBS=<nproc>                      make -j
# Needs a C and C++ compiler, make, perl and the libfabric headers; as root on Debian/Ubuntu it installs what is
# missing with apt-get (build-essential, perl, libfabric-dev), as ./gexj.sh does for the JDK and libfabric.
set -euo pipefail

usage() {
  echo "usage: tools/gasnet/build.sh TARBALL [PREFIX]   (TARBALL: a GASNet-EX release, GASNet-<version>.tar.gz)" >&2
  exit 2
}
die() { echo "build.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] && [ $# -le 2 ] || usage
TARBALL="$1"
PREFIX="${2:-/var/tmp/gasnet-anchor}"
TESTS="${GASNET_TESTS:-testam testqueue testsmall testlarge testfaddperf testratomic testvis testvisperf testteam testsplit testcoll testcollperf}"
IBV="${GASNET_IBV:-auto}"
ROCE="${GASNET_IBV_ROCE:-0}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
OFI_PROVIDER="${GASNET_OFI_PROVIDER:-tcp:ofi_rxm}"

[ -f "$TARBALL" ] || die "no such file: $TARBALL (give the path of a GASNet-EX release tarball, \
GASNet-<version>.tar.gz)"
TARBALL="$(cd "$(dirname "$TARBALL")" && pwd)/$(basename "$TARBALL")"
case "$IBV" in auto | 0 | 1) ;; *) die "GASNET_IBV=$IBV: allowed are auto, 0 and 1" ;; esac
case "$ROCE" in 0 | 1) ;; *) die "GASNET_IBV_ROCE=$ROCE: allowed are 0 and 1" ;; esac
[ "$ROCE" = 0 ] || [ "$IBV" != 0 ] || die "GASNET_IBV_ROCE=1 patches ibv-conduit, which GASNET_IBV=0 does not build"
ROCE_PATCH="$(cd "$(dirname "$0")" && pwd)/ibv-roce.patch"
top="$(tar tzf "$TARBALL" 2>/dev/null | head -1 | cut -d/ -f1)" || true
[ -n "$top" ] && [[ "$top" == GASNet-* ]] || die "$TARBALL does not look like a GASNet-EX release (a .tar.gz whose \
top directory is GASNet-<version>; found '${top:-no gzip tar}')"

# --- what the build needs ----------------------------------------------------------------------------------
APT_UPDATED=0
apt_install() {  # apt_install PACKAGE...: only as root on a Debian-like system; returns non-zero otherwise
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
  if [ "$APT_UPDATED" = 0 ]; then apt-get update -qq >/dev/null 2>&1 || true; APT_UPDATED=1; fi
  echo "build.sh: installing Debian package(s) $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

has_header() {  # has_header HEADER: the C compiler finds it
  echo "#include <$1>" | "${CC:-cc}" -E -x c - >/dev/null 2>&1
}

missing=()
tools=(cc c++ make perl tar gzip)
[ "$ROCE" = 0 ] || tools+=(patch)
for t in "${tools[@]}"; do command -v "$t" >/dev/null || missing+=("$t"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt_install build-essential perl tar gzip patch || true
  still=()
  for t in "${missing[@]}"; do command -v "$t" >/dev/null || still+=("$t"); done
  [ ${#still[@]} -eq 0 ] || die "missing ${still[*]}: GASNet needs a C and C++ compiler (cc, c++), make and perl \
(Debian: apt-get install build-essential perl; this script installs them itself when run as root)"
fi

has_header rdma/fabric.h || apt_install libfabric-dev || true
has_header rdma/fabric.h || die "missing the libfabric headers (<rdma/fabric.h>) that GASNet's ofi-conduit needs: \
install the Debian package libfabric-dev (this script installs it itself when run as root)"

conduits="smp udp ofi"
ibv_flag=--disable-ibv
if [ "$IBV" = 1 ] && ! has_header infiniband/verbs.h; then
  apt_install libibverbs-dev || die "GASNET_IBV=1 but <infiniband/verbs.h> is missing: install the Debian package \
libibverbs-dev (needs root)"
fi
if [ "$IBV" != 0 ] && has_header infiniband/verbs.h; then
  conduits="$conduits ibv"; ibv_flag=--enable-ibv
  [ -d /sys/class/infiniband ] && [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ] \
    || echo "build.sh: note: no verbs device in /sys/class/infiniband: ibv-conduit builds, but its programs run only \
where one exists (e.g. a Soft-RoCE device, see tools/rxe-vm)"
else
  echo "build.sh: skipping ibv-conduit: no <infiniband/verbs.h> (Debian package libibverbs-dev; GASNET_IBV=1 installs \
it when root)"
fi

# --- unpack, configure, build --------------------------------------------------------------------------------
mkdir -p "$PREFIX/src" "$PREFIX/build"
SRC="$PREFIX/src/$top"
if [ ! -x "$SRC/configure" ]; then
  echo "build.sh: unpacking $TARBALL into $PREFIX/src"
  tar xzf "$TARBALL" -C "$PREFIX/src"
fi
# The RoCE patch: applied once, recorded by a copy of it in the source tree; a tree patched with another version of
# it, or patched when GASNET_IBV_ROCE=0 (or the reverse), is refused rather than silently mixed.
roce_stamp="$SRC/.gexj-ibv-roce.patch"
if [ "$ROCE" = 1 ]; then
  if [ ! -f "$roce_stamp" ]; then
    [ -f "$ROCE_PATCH" ] || die "GASNET_IBV_ROCE=1 but $ROCE_PATCH is missing"
    patch -d "$SRC" -p1 --forward --dry-run -s < "$ROCE_PATCH" >/dev/null \
      || die "$ROCE_PATCH does not apply to $SRC (made for GASNet-EX 2025.8.0): unpack into a fresh PREFIX"
    echo "build.sh: applying $ROCE_PATCH to $SRC (ibv-conduit on RoCE)"
    patch -d "$SRC" -p1 --forward -s < "$ROCE_PATCH"
    cp "$ROCE_PATCH" "$roce_stamp"
    # programs linked before the patch would not be relinked by make
    for t in $TESTS; do [ "$t" = all ] || rm -f "$PREFIX/build/ibv-conduit/$t"; done
  elif ! cmp -s "$ROCE_PATCH" "$roce_stamp"; then
    die "$SRC carries another version of the RoCE patch ($roce_stamp): build into a fresh PREFIX"
  fi
elif [ -f "$roce_stamp" ]; then
  die "$SRC carries the RoCE patch (built with GASNET_IBV_ROCE=1): set it again, or build into another PREFIX"
fi

cd "$PREFIX/build"
# GASNet's configure specialises ofi-conduit for the first provider fi_info lists that it knows (here: sockets),
# after which it refuses every other; GEX/J's ofi measurements use tcp;ofi_rxm, so name it
conf=(--enable-seq --disable-par --disable-parsync --disable-mpi --disable-ucx
      --enable-smp --enable-udp --enable-ofi "--with-ofi-provider=$OFI_PROVIDER" "$ibv_flag")
if [ ! -f config.status ] || [ "$(cat .gexj-configure 2>/dev/null)" != "$SRC ${conf[*]}" ]; then
  echo "build.sh: configuring $top in $PREFIX/build (log: configure.log)"
  "$SRC/configure" "${conf[@]}" > configure.log 2>&1 \
    || die "GASNet's configure failed: see the end of $PREFIX/build/configure.log"
  echo "$SRC ${conf[*]}" > .gexj-configure
fi
for c in $conduits; do
  [ -f "$c-conduit/Makefile" ] || die "configure did not enable $c-conduit: see $PREFIX/build/configure.log"
done

echo "build.sh: building GASNet's seq libraries with make -j$JOBS (log: make-seq.log; a few minutes)"
make -j"$JOBS" seq > make-seq.log 2>&1 || die "make seq failed: see the end of $PREFIX/build/make-seq.log"

failed=()
for c in $conduits; do
  echo "build.sh: building ${TESTS} in $c-conduit (log: make-tests-$c.log)"
  if [ "$TESTS" = all ]; then
    make -C "$c-conduit" tests-seq > "make-tests-$c.log" 2>&1 || failed+=("$c")
  else
    # shellcheck disable=SC2086 # one word per program
    make -C "$c-conduit" $TESTS > "make-tests-$c.log" 2>&1 || failed+=("$c")
  fi
done
[ ${#failed[@]} -eq 0 ] || die "test programs did not build in: ${failed[*]} \
(see $PREFIX/build/make-tests-<conduit>.log)"

[ "$ROCE" = 0 ] || echo "build.sh: ibv-conduit carries tools/gasnet/ibv-roce.patch (RoCE): GASNET_IBV_GID_INDEX picks \
the GID (Soft-RoCE guest: 1, its IPv4 address)"
echo "build.sh: done. GASNet build: $PREFIX/build; programs: $PREFIX/build/{${conduits// /,}}-conduit/{${TESTS// /,}}"
echo "build.sh: run them with GEX/J's: tools/gasnet/alternate.sh -g $PREFIX/build -r 3 testam 10000 65536"
