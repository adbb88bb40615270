#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_fork_python.sh -- the Python pattern, inside the
# test VM: tests/integration/fork_python.py with Debian's pyverbs (python3-
# pyverbs, rdma-core 44's), fork safety on, multiprocessing workers (fork
# start method) reading Python objects that share pages with registered
# memory while the parent's RDMA traffic goes on. Must pass on softverbs;
# what rdma-core does with the same script is printed, not judged (its
# whole-page MADV_DONTFORK kills workers that touch those pages).
#
# Environment: RXE_DEV, RXE_GID (tests/vm/run).
# Exit: 0 passed; 1 failed; 77 cannot run here (no pyverbs, no device).
set -u
. "$(dirname "$0")/lib.sh"
sv_init fork_python "$@"
sv_need_dev RXE_DEV
script=$here/fork_python.py
/usr/bin/python3 -c 'import pyverbs.device' 2> /dev/null ||
    skip "pyverbs is missing (apt-get install python3-pyverbs)"
ulimit -l unlimited 2> /dev/null

sv_env sv
out=$(timeout 600 env -u RDMAV_FORK_SAFE -u IBV_FORK_SAFE "${SV_ENV[@]}" /usr/bin/python3 "$script" 2>&1)
rc=$?
echo "$out" | sed 's/^/  softverbs: /'
sv_result "pyverbs + multiprocessing (fork) on softverbs: workers read the objects next to registered memory" \
    "$([ $rc = 0 ] && grep -q '^OK:' <<< "$out" && echo 1 || echo 0)" "exit $rc"
sv_maps_check "$RXE_DEV" || sv_result "the Python process ran on softverbs" 0

# rdma-core's run shows what it does (its dead workers' tasks never
# return: 20 s of waiting say enough); not in the sanitized pass, where
# the library under test is not in it at all
[ -n "${SOFTVERBS_PRELOAD:-}" ] && { sv_name="fork, Python multiprocessing"; sv_finish; exit; }
sv_env rc
out=$(FORK_PY_TIMEOUT=20 timeout 600 env -u RDMAV_FORK_SAFE -u IBV_FORK_SAFE "${SV_ENV[@]}" /usr/bin/python3 "$script" 2>&1)
rc=$?
echo "$out" | sed 's/^/  rdma-core: /'
echo "INFO: the same script on rdma-core $(dpkg-query -W -f '${Version}' libibverbs1 2> /dev/null): exit $rc, $(grep -E '^(OK|FAILED)' <<< "$out" | head -1 | cut -c1-160)"
sv_name="fork, Python multiprocessing"
sv_finish
