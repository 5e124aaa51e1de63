#!/bin/bash
# Runs inside the guest (through selftest.sh -> run.sh): checks that the VM gives what conduit-ofi tests need.
# Functional checks only, no timing assertions: TCG on a loaded 2-core host makes latencies meaningless.
set -u
pass=0 fail=0

# show_and_find TEXT: copy stdin to stdout, succeed if a line contains TEXT
show_and_find() { awk -v t="$1" '{ print } index($0, t) { found = 1 } END { exit !found }'; }

rxe0_active() { ibv_devinfo -d rxe0 | show_and_find PORT_ACTIVE; }
ofi_rxm_listed() { fi_info -p verbs -t FI_EP_RDM | show_and_find 'provider: verbs;ofi_rxm'; }
# Two processes over rxe0 through libfabric's verbs;ofi_rxm (server in the background; rxe loops the traffic back
# internally). Needs FI_UNIVERSE_SIZE=64 (set by the guest init), else rxm's CQ exceeds rxe's max_cqe.
ofi_rxm_pingpong() {
  local srv c s
  fi_pingpong -p 'verbs;ofi_rxm' -e rdm -I 100 -S 64 -B 47592 &
  srv=$!
  sleep 3
  fi_pingpong -p 'verbs;ofi_rxm' -e rdm -I 100 -S 64 -P 47592 "$RXE_IP"
  c=$?
  wait "$srv"
  s=$?
  [ "$c" = 0 ] && [ "$s" = 0 ]
}
java_25() { java -version 2>&1 | show_and_find 'version "25'; }
export -f show_and_find rxe0_active ofi_rxm_listed ofi_rxm_pingpong java_25

for t in rxe0_active ofi_rxm_listed ofi_rxm_pingpong java_25; do
  echo "### $t"
  if timeout 120 bash -c "$t"; then
    pass=$((pass + 1)); echo "### $t: PASS"
  else
    fail=$((fail + 1)); echo "### $t: FAIL"
  fi
done
echo "rxe-vm selftest: $pass passed, $fail failed"
[ "$fail" = 0 ]
