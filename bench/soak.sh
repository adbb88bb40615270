#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# bench/soak.sh [SECONDS [THREADS]] -- bench/soak on rdma-core and on
# softverbs at the same time, in one boot of the test VM, over rxe0 (not
# CI: `make -C _build bench-soak SOAK_SECONDS=1800`). Both processes share
# the guest's CPUs, so their operations per second compare as a ratio.
# Prints each run's per-minute lines and summary; exit 0 when neither
# saw an anomaly.
set -u
here=$(cd "$(dirname "$0")" && pwd)
soak=${SOAK_BIN:?SOAK_BIN: the built bench/soak}
libdir=${SOFTVERBS_LIBDIR:?SOFTVERBS_LIBDIR: softverbs lib/.libs}
secs=${1:-600}
threads=${2:-4}
if [ -z "${SOFTVERBS_VM:-}" ]; then
    exec "$here/../tests/vm/run" --netdev dummy --mem 3G --timeout $((secs + 900)) -- \
        env SOAK_BIN="$soak" SOFTVERBS_LIBDIR="$libdir" "$0" "$secs" "$threads"
fi
out=$(mktemp -d /tmp/soak.XXXXXX)
echo "soak: $secs s, $threads workers each, rdma-core and softverbs side by side on $RXE_DEV ($(uname -r))"
env LD_LIBRARY_PATH= "$soak" -t "$secs" -n "$threads" > "$out/rdma-core" 2>&1 &
p1=$!
env LD_LIBRARY_PATH="$libdir" "$soak" -t "$secs" -n "$threads" > "$out/softverbs" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
for l in rdma-core softverbs; do
    echo "==== $l"
    cat "$out/$l"
done
echo "exit: rdma-core $r1, softverbs $r2"
[ $r1 = 0 ] && [ $r2 = 0 ]
