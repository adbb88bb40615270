#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_tier.sh -- the host tier (issue 39): the project's
# integration programs that check what the verbs do, not what a kernel
# does, run on uroce0 over lo, on the host, in seconds (no VM, no RDMA in
# the kernel). In the test VM the same programs check rxe0 (and siw0);
# here they check that uroce answers as rxe does:
#
#  - test_core: contexts, PDs, MRs (a read-only or unmapped range refused
#    with EFAULT, as rxe's pinning refuses it), completion channels;
#  - test_verbs_new, test_pabi: the newer verbs and the provider ABI;
#  - test_explain's rxe case: the one warning line per refusal;
#  - test_errno: the errno convention at the provider boundary;
#  - test_rxe_ops, test_rxe_errors: every opcode on RC, UC and UD, and
#    the completion statuses of the failures;
#  - test_cq_ex_loop, test_qp_ex: ibv_cq_ex polling and the ibv_wr_* API;
#  - test_rxe_mw: memory windows, SEND with invalidate, local invalidate;
#  - fork_python.py: the Python multiprocessing pattern of the fork-safety
#    tests, with Debian's pyverbs; pyverbs_probe.py: pyverbs' own objects.
#
# Left to the VM: what is the kernel's (fork safety's DONTFORK and
# pinning, the registry's hot-unplug, rdma_cm), multicast (uroce has
# none), and test_explain's memlock case (uroce pins nothing, so
# RLIMIT_MEMLOCK does not limit it).
#
# Each program runs in a network namespace of its own when root
# (uroce_lib.sh: uroce_isolate). A program that skips fails here: on the
# host, uroce0 is all it needs.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
. "$(dirname "$0")/uroce_lib.sh"
uroce_init test_uroce_tier ibverbs-utils
uroce_isolate

# prog NAME [VAR=VALUE...]: tests/integration/NAME on uroce0; it must exit 0
prog() {
    local name=$1 bin=$top/tests/integration/$1 rc ok=0 t0=${EPOCHREALTIME/./} dt
    shift
    if [ ! -x "$bin" ]; then
        result "$name on uroce0 (not built: $bin)" 0
        return
    fi
    as env RXE_DEV=uroce0 RXE_GID=1 RXE_IP=127.0.0.1 "$@" \
        timeout 300 "$bin" > "$work/out" 2>&1
    rc=$?
    [ $rc = 0 ] && ok=1
    dt=$(((${EPOCHREALTIME/./} - t0) / 100000)) # tenths of a second
    result "$name on uroce0 ($((dt / 10)).$((dt % 10)) s${*:+, $*})" $ok
    if [ $ok = 0 ]; then
        echo "--- exit $rc:"
        grep -E ':[EF]:|SKIP|Checks|runtime error|ERROR: AddressSanitizer' "$work/out" | head -20
    fi
}

prog test_core
prog test_verbs_new
prog test_pabi
prog test_explain CK_RUN_CASE=rxe
prog test_rxe_ops
prog test_rxe_errors
prog test_cq_ex_loop
prog test_qp_ex
prog test_rxe_mw
prog test_errno

# the Python pattern of the fork-safety tests (fork_python.py, Debian's
# pyverbs): multiprocessing workers forked while RDMA WRITEs go on read
# the objects that share pages with registered memory
py=/usr/bin/python3
if [ -x $py ] && $py -c 'import pyverbs' 2> /dev/null; then
    t0=${EPOCHREALTIME/./}
    as env RXE_DEV=uroce0 RXE_GID=1 FORK_PY_TIMEOUT=60 \
        timeout 300 $py "$(dirname "$0")/../integration/fork_python.py" > "$work/out" 2>&1
    rc=$? ok=0
    [ $rc = 0 ] && grep -q '^OK: ' "$work/out" && ok=1
    dt=$(((${EPOCHREALTIME/./} - t0) / 100000))
    result "fork_python.py on uroce0 ($((dt / 10)).$((dt % 10)) s)" $ok
    [ $ok = 1 ] || { echo "--- exit $rc:"; tail -n 8 "$work/out"; }
    # pyverbs' own objects: queries, a PD, an MR read back, a CQ and an
    # RC QP, and this build's library in the process
    as timeout 120 $py "$(dirname "$0")/../integration/pyverbs_probe.py" uroce0 > "$work/out" 2>&1
    rc=$? ok=0
    [ $rc = 0 ] && grep -q "^mr: length 65536, reads back b'softverbs'" "$work/out" &&
        grep -q '^qp: type 2 ' "$work/out" && grep -q "^libibverbs: $lib/" "$work/out" && ok=1
    result "pyverbs_probe.py on uroce0" $ok
    [ $ok = 1 ] || { echo "--- exit $rc:"; tail -n 8 "$work/out"; }
else
    echo "note: no python3 with pyverbs (apt-get install python3-pyverbs): fork_python.py and pyverbs_probe.py are left out"
fi

echo "test_uroce_tier: $pass passed, $fail failed"
[ $fail = 0 ]
