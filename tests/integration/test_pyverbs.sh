#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_pyverbs.sh -- Debian's pyverbs (python3-pyverbs,
# rdma-core's Python bindings) on softverbs, inside the test VM: the same
# script (tests/integration/pyverbs_probe.py: device and port queries, a
# GID, PD, MR, CQ and RC QP, then importing the mlx5dv and efadv modules,
# which load libmlx5 and libefa) prints the same on rdma-core and on
# softverbs, for rxe0 and siw0; each softverbs run checked in
# /proc/<pid>/maps. Exit 0 all passed, 1 some failed, 77 skipped.
set -u
. "$(dirname "$0")/lib.sh"
sv_init test_pyverbs "$@"
py=/usr/bin/python3
[ -x $py ] || skip "$py missing (apt-get install python3)"
$py -c 'import pyverbs.device' 2> /dev/null || skip "pyverbs missing (apt-get install python3-pyverbs)"
sv_need_dev RXE_DEV
devs=$RXE_DEV
[ -n "${SIW_DEV:-}" ] && [ -e "/sys/class/infiniband/$SIW_DEV" ] && devs="$devs $SIW_DEV"
for dev in $devs; do
    for side in rc sv; do
        sv_env $side
        env "${SV_ENV[@]}" timeout 120 $py "$here/pyverbs_probe.py" "$dev" \
            > "$work/$dev.$side" 2> "$work/$dev.$side.err"
        echo "exit $?" >> "$work/$dev.$side"
    done
    ok=0
    cmp -s "$work/$dev.rc" "$work/$dev.sv" && grep -q '^exit 0$' "$work/$dev.sv" &&
        grep -q "imported pyverbs.providers.mlx5.mlx5dv" "$work/$dev.sv" && ok=1
    [ $ok = 1 ] && { sv_maps_check "$dev" || ok=0; }
    sv_result "pyverbs on $dev: the same on softverbs as on rdma-core ($(wc -l < "$work/$dev.rc") lines, mlx5dv and efadv imported)" $ok
    if [ $ok = 0 ] || [ $verbose = 1 ]; then
        diff -u "$work/$dev.rc" "$work/$dev.sv"
        tail -n 5 "$work/$dev.sv.err"
    fi
done
sv_finish
