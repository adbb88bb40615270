# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/clients_lib.sh -- sourced after lib.sh (and sv_init)
# by the tests that run Debian's RDMA programs side by side on rdma-core
# and on softverbs: one check run on both libraries and judged
# (both), a server and client pair under timeouts (run_pair,
# run_cm_pair), the first error a program printed (errline), the
# devices every check needs (cm_devices_ready).
#
# The sourcing script sets tmo (seconds per process) and known=0, and
# gives each check a function FUNC ARGS... LIB that returns 0 when the
# check held and sets $why otherwise. CLIENTS_CASES, an extended regular
# expression, keeps only the checks whose names match (by hand; the
# others are not counted).

# cm_devices_ready: what every clients check needs, else a SKIP naming
# it: rxe0 and siw0, each with an address on its netdev for rdma_cm
# (rxe0 on a dummy netdev, not on lo: tests/vm/run --netdev dummy --siw),
# and the rdma_ucm module loaded.
cm_devices_ready() {
    sv_need_dev RXE_DEV
    sv_need_dev SIW_DEV
    [ -n "${RXE_IP:-}" ] && [ "$RXE_IP" != 127.0.0.1 ] ||
        skip "rxe0 has no rdma_cm address: run in tests/vm/run --netdev dummy --siw"
    [ -n "${SIW_IP:-}" ] || skip "SIW_IP is not set"
    modprobe rdma_ucm 2> /dev/null
}

# errline LOG...: the first error a program printed, for the report;
# else the last line of the first LOG
errline() {
    local l
    l=$(grep -h -m 1 -E 'ERROR|[Ee]rror|[Ff]ail|[Ii]nvalid|refused|timed out|[Aa]bort' "$@" 2> /dev/null | head -n 1)
    [ -n "$l" ] || l=$(tail -n 1 "$1" 2> /dev/null)
    echo "${l:-no output}"
}

# sv_since START: seconds since START (an $EPOCHREALTIME), to a tenth
sv_since() {
    local us=$(( ${EPOCHREALTIME/./} - ${1/./} + 50000 ))
    echo "$((us / 1000000)).$((us / 100000 % 10))"
}

# both NAME DEV FUNC ARGS...: FUNC ARGS rc, then FUNC ARGS sv; FUNC
# returns 0 when the check held and sets $why otherwise. DEV: the device
# the softverbs processes drove (for the maps check).
both() {
    local name=$1 dev=$2 rc_ok=0 sv_ok=0 rc_why sv_why t0 t1 rc_secs
    shift 2
    # CLIENTS_CASES (by hand, and bench/clients): an extended regular
    # expression; only the checks whose names match run
    [ -z "${CLIENTS_CASES:-}" ] || [[ $name =~ $CLIENTS_CASES ]] || return 0
    why=
    t0=$EPOCHREALTIME
    "$@" rc || rc_ok=1
    rc_why=$why
    rc_secs=$(sv_since "$t0")
    why=
    rm -f "$work"/maps/maps.*
    t1=$EPOCHREALTIME
    "$@" sv || sv_ok=1
    sv_why=$why
    echo "time: $name: rdma-core $rc_secs s, softverbs $(sv_since "$t1") s"
    if [ $sv_ok = 0 ] && ! sv_maps_check "$dev"; then
        sv_ok=1
        sv_why="a softverbs process did not run on softverbs"
    fi
    rm -f "$work"/maps/maps.*
    if [ $rc_ok = 0 ]; then
        sv_result "$name" $((1 - sv_ok)) "softverbs: $sv_why"
    elif [ $sv_ok = 1 ]; then
        echo "known on both: $name: rdma-core: $rc_why; softverbs: $sv_why"
        known=$((known + 1))
    else
        echo "PASS: $name (softverbs; fails on rdma-core: $rc_why)"
        pass=$((pass + 1))
    fi
}

# pair_run WAIT LIB PORT TAG SERVER_CMD... -- CLIENT_CMD...: the server
# in the background until "WAIT PORT SERVER_PID" says it listens (it is
# killed if not), then the client; both under the timeout, with the
# environment that "${pair_env:-sv_env} LIB" puts in SV_ENV; logs
# $work/TAG.LIB.{srv,cli}; sets srv_rc cli_rc. With pair_server_stays=1
# the server is one that serves until killed: it is stopped after the
# client, and srv_rc is "running" when it was still there (its exit
# status if not).
pair_run() {
    local wait=$1 lib=$2 port=$3 tag=$4 spid i srv=()
    shift 4
    for i in "$@"; do
        shift
        [ "$i" = -- ] && break
        srv+=("$i")
    done
    "${pair_env:-sv_env}" "$lib"
    env "${SV_ENV[@]}" timeout -k 5 "$tmo" "${srv[@]}" \
        > "$work/$tag.$lib.srv" 2>&1 &
    spid=$!
    # (what WAIT prints goes to the server's log)
    if ! "$wait" "$port" $spid >> "$work/$tag.$lib.srv" 2>&1; then
        kill $spid 2> /dev/null
        wait $spid
        srv_rc=$? cli_rc=none
        echo "not ready: $wait $port" >> "$work/$tag.$lib.srv"
        : > "$work/$tag.$lib.cli"
        return
    fi
    env "${SV_ENV[@]}" timeout -k 5 "$tmo" "$@" > "$work/$tag.$lib.cli" 2>&1
    cli_rc=$?
    if [ "${pair_server_stays:-0}" = 1 ] && kill -0 $spid 2> /dev/null; then
        kill $spid
        wait $spid
        srv_rc=running
    else
        wait $spid
        srv_rc=$?
    fi
    if [ "$verbose" = 1 ]; then tail -n 3 "$work/$tag.$lib.cli"; fi
}

# run_pair LIB PORT TAG SERVER_CMD... -- CLIENT_CMD...: pair_run with a
# server that listens on TCP PORT
run_pair() { pair_run sv_wait_port "$@"; }

# run_cm_pair LIB PORT TAG SERVER_CMD... -- CLIENT_CMD...: pair_run with
# a server that listens on PORT through rdma_cm
run_cm_pair() { pair_run sv_wait_cm_listen "$@"; }
