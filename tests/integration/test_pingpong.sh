#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_pingpong.sh -- Debian's ibv_*_pingpong over rxe,
# run inside the test VM: both ends on softverbs, and softverbs against
# rdma-core's libibverbs + librxe both ways round.
#
#   test_pingpong.sh [-v]
#
# Each case starts the server in the background and the client against
# 127.0.0.1 (the TCP exchange of addresses), both under a timeout, on a
# port of its own. A case passes when both ends ran all iterations and
# every softverbs end mapped softverbs' libibverbs (and, under
# SOFTVERBS_PROVIDERS=rdma-core, rdma-core's librxe). Prints PASS/FAIL per
# case; exit 0 all passed, 1 some failed, 77 skipped (no rxe device, no
# pingpong binaries, no softverbs build).
#
# Environment: RXE_DEV, RXE_GID (set by tests/vm/run); SOFTVERBS_LIBDIR
# (default: lib/.libs next to this script's tree); PINGPONG_ITERS (100);
# PINGPONG_TIMEOUT seconds per end (120); SOFTVERBS_MIXED_ENDS=0: softverbs
# at both ends only (tests/integration/lib.sh sv_end_pairs).
set -u
. "$(dirname "$0")/lib.sh"
sv_init test_pingpong "$@"
iters=${PINGPONG_ITERS:-100}
tmo=${PINGPONG_TIMEOUT:-120}
dev=${RXE_DEV:-}
gid=${RXE_GID:-}

sv_need_dev RXE_DEV
[ -n "$gid" ] || skip "RXE_GID is not set"
for p in ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong; do
    sv_need_cmd $p ibverbs-utils
done
sv_require_loads ibv_rc_pingpong
port=18600

# case SERVER CLIENT PROG [ARGS...]
run_case() {
    local s=$1 c=$2 prog=$3 srv_rc cli_rc spid name ok=0
    shift 3
    port=$((port + 1))
    name="$prog $* (server $(label "$s"), client $(label "$c"))"
    sv_env "$s"
    env "${SV_ENV[@]}" timeout -k 5 "$tmo" \
        "$prog" -d "$dev" -g "$gid" -n "$iters" -p $port "$@" \
        > "$work/server.log" 2>&1 &
    spid=$!
    sv_wait_port $port $spid
    sv_env "$c"
    env "${SV_ENV[@]}" timeout -k 5 "$tmo" \
        "$prog" -d "$dev" -g "$gid" -n "$iters" -p $port "$@" 127.0.0.1 \
        > "$work/client.log" 2>&1
    cli_rc=$?
    wait $spid
    srv_rc=$?
    if sv_pingpong_ok "$iters" $srv_rc $cli_rc "$work/server.log" "$work/client.log"; then
        sv_maps_check "$dev" && ok=1
    fi
    sv_result "$name" $ok "server exit $srv_rc, client exit $cli_rc"
    if [ $ok = 1 ]; then
        [ $verbose = 1 ] && tail -n 1 "$work/client.log"
    else
        echo "---- server:"; tail -n 8 "$work/server.log"
        echo "---- client:"; tail -n 8 "$work/client.log"
    fi
}

cases=(
    "ibv_rc_pingpong -c"
    "ibv_rc_pingpong -e"
    "ibv_rc_pingpong -N -c"
    "ibv_uc_pingpong"
    "ibv_ud_pingpong"
    "ibv_srq_pingpong"
)
mapfile -t end_pairs < <(sv_end_pairs)
for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    for ends in "${end_pairs[@]}"; do
        run_case $ends $c
    done
done
sv_finish
