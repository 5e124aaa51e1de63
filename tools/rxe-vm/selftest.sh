#!/usr/bin/env bash
# One VM boot that checks the harness end to end: rxe0 ACTIVE (ibv_devinfo), verbs;ofi_rxm offered by libfabric
# (fi_info), a two-process fi_pingpong over verbs;ofi_rxm, and the host's JDK 25 usable in the guest.
# Ends with 'rxe-vm selftest: N passed, N failed'; exit status as run.sh (0 only if every check passed).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$HERE/run.sh" --timeout "${RXE_VM_TIMEOUT:-600}" -- bash "$HERE/lib/selftest-guest.sh"
