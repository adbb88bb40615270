#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_compat.sh -- behaviours an application sees,
# side by side: tests/integration/compat_probe (linked against the system
# libibverbs) runs each case once on rdma-core and once on softverbs
# (LD_LIBRARY_PATH) on $RXE_DEV and $SIW_DEV, in the same VM boot; the
# outputs must be equal (lines starting "info:" are shown, not compared).
# Cases: RDMAV_FORK_SAFE / IBV_FORK_SAFE set in main(); ibv_dofork_range
# on a range never registered; ibv_poll_cq with a negative count; a
# zero-length ibv_reg_mr. See compat_probe.c.
#
# Environment: RXE_DEV, SIW_DEV (tests/vm/run); SOFTVERBS_LIBDIR;
# top_builddir (make check; default the current folder). compat_probe is
# built in the pass's build folder: instrumented in the sanitized pass.
# Exit: 0 all equal; 1 a difference or a failed run; 77 cannot run here.
set -u
. "$(dirname "$0")/lib.sh" # its helpers only (sv_info_less, sv_indent)
top=${top_builddir:-$(pwd)}
probe=$top/tests/integration/compat_probe
libdir=${SOFTVERBS_LIBDIR:-$top/lib/.libs}

skip() { echo "SKIP: $*"; exit 77; }
devs=()
for d in "${RXE_DEV:-}" "${SIW_DEV:-}"; do
    [ -n "$d" ] && [ -e "/sys/class/infiniband/$d" ] && devs+=("$d")
done
[ -n "${RXE_DEV:-}" ] && [ ${#devs[@]} -gt 0 ] || skip "no rxe device (RXE_DEV): run inside tests/vm/run"
[ -n "${SIW_DEV:-}" ] || skip "no siw device (SIW_DEV): run inside tests/vm/run --siw"
[ -x "$probe" ] || skip "$probe is not built (make check)"
[ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"

work=$(mktemp -d /tmp/compat.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
for dev in "${devs[@]}"; do
    for c in env-rdmav env-ibv dofork-off dofork-on poll-neg zero-mr; do
        # rdma-core: the system library, nothing preloaded; leaks inside
        # rdma-core are not ours to report.
        env LD_LIBRARY_PATH= ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
            "$probe" $c "$dev" > "$work/rc" 2> "$work/rc.err"
        rc_rc=$?
        env LD_LIBRARY_PATH="$libdir" \
            "$probe" $c "$dev" > "$work/sv" 2> "$work/sv.err"
        sv_rc=$?
        sv_info_less a "$work/rc"
        sv_info_less b "$work/sv"
        if [ $rc_rc = 0 ] && [ $sv_rc = 0 ] && [ "$a" = "$b" ]; then
            echo "PASS: $c on $dev"
            sv_indent "$work/sv"
            pass=$((pass + 1))
        else
            echo "FAIL: $c on $dev (rdma-core exit $rc_rc, softverbs exit $sv_rc)"
            echo "---- rdma-core:"; cat "$work/rc" "$work/rc.err"
            echo "---- softverbs:"; cat "$work/sv" "$work/sv.err"
            fail=$((fail + 1))
        fi
    done
done
echo "test_compat: $pass passed, $fail failed"
[ $fail = 0 ]
