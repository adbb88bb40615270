#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_perftest.sh -- Debian's perftest (ib_send_bw,
# ib_write_bw, ib_read_bw, ib_atomic_bw, ib_send_lat, ib_write_lat,
# ib_read_lat) over rxe, run inside the test VM with softverbs on both ends.
#
#   test_perftest.sh [-v]
#
# perftest links libmlx5.so.1 and libefa.so.1, whose constructors call
# verbs_register_driver_34: the binaries only start when softverbs'
# IBVERBS_PRIVATE_34 node satisfies them, which is checked first (ldd -r).
#
# Each case starts the server in the background and the client against
# $RXE_IP (the TCP exchange of addresses), both under a timeout, on a port
# of its own, with a short run. A case passes when both ends exit 0 and the
# client printed its result table (the "#bytes" header and a numeric row).
# perftest is noisy under emulation (CPU-frequency checks, a clock that
# reads inf, transport retries when a vCPU stalls): a case that failed that
# way, or timed out, is run once more and reported as "PASS (retried:
# why)" (a third run while each failure is such noise); a failure
# nothing explains gets one more run and fails when it repeats. Prints PASS/FAIL per case;
# exit 0 all passed, 1 some failed, 77 skipped (no rxe device, no
# perftest, no softverbs build).
#
# Environment: RXE_DEV, RXE_GID, RXE_IP (set by tests/vm/run);
# SOFTVERBS_LIBDIR (default: lib/.libs next to this script's tree);
# PERFTEST_ITERS (200); PERFTEST_TIMEOUT seconds per end (30).
set -u
. "$(dirname "$0")/lib.sh"
sv_init test_perftest "$@"
iters=${PERFTEST_ITERS:-200}
tmo=${PERFTEST_TIMEOUT:-30}
dev=${RXE_DEV:-}
gid=${RXE_GID:-}
ip=${RXE_IP:-}
progs="ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat ib_read_lat"

sv_need_dev RXE_DEV
[ -n "$gid" ] || skip "RXE_GID is not set"
[ -n "$ip" ] || skip "RXE_IP is not set"
for p in $progs; do
    sv_need_cmd "$p" perftest
done

# The binaries must load softverbs, and every symbol libmlx5/libefa take
# from libibverbs (verbs_register_driver_34 & co.) must resolve in it.
bin=$(command -v ib_send_bw)
deps=$(LD_LIBRARY_PATH=$libdir ldd -r "$bin" 2>&1)
if ! grep -q "$libdir/libibverbs.so.1" <<< "$deps"; then
    echo "FAIL: LD_LIBRARY_PATH=$libdir does not make ib_send_bw load softverbs"
    exit 1
fi
if grep -q "undefined symbol" <<< "$deps"; then
    echo "FAIL: symbols perftest's libraries need are missing from softverbs:"
    grep "undefined symbol" <<< "$deps"
    exit 1
fi
for l in libmlx5.so.1 libefa.so.1; do
    grep -q "$l" <<< "$deps" ||
        echo "note: ib_send_bw does not link $l on this system"
done

port=18700
retried=0

# run_once PROG ARGS...: one server and one client, both on softverbs;
# sets srv_rc, cli_rc
run_once() {
    local prog=$1 spid
    shift
    port=$((port + 1))
    sv_env sv
    env "${SV_ENV[@]}" timeout -k 5 "$tmo" \
        "$prog" -d "$dev" -x "$gid" -p $port "$@" \
        > "$work/server.log" 2>&1 &
    spid=$!
    sv_wait_port $port $spid
    env "${SV_ENV[@]}" timeout -k 5 "$tmo" \
        "$prog" -d "$dev" -x "$gid" -p $port "$@" "$ip" \
        > "$work/client.log" 2>&1
    cli_rc=$?
    wait $spid
    srv_rc=$?
}


# why_noisy: a failure that emulation noise explains (timeout, CPU clock
# checks, a transport retry or a lost TCP exchange); prints the reason
why_noisy() {
    sv_perftest_noise $srv_rc $cli_rc "$work/server.log" "$work/client.log"
}

# case_ok: both ends exited 0 and the client printed its result
case_ok() {
    [ $srv_rc = 0 ] && [ $cli_rc = 0 ] && sv_perftest_table "$work/client.log"
}

# run_case PROG ARGS...
run_case() {
    local name="$*" why='' runs=1 w
    run_once "$@"
    # A failure gets one more run, and a third while each failure is one
    # emulation noise explains (why_noisy: perftest's clock calibration,
    # which fails at random on a loaded host before any verb, a transport
    # retry, a timeout), named in the output. Perftest under TCG emulation
    # fails now and then with both libraries (ib_send_bw's client once
    # exited 1 without a message before its result row: 1 run in 24 on
    # softverbs, 0 in 12 on rdma-core). A failure nothing explains twice
    # still fails.
    while ! case_ok && [ $runs -lt 3 ]; do
        w=$(why_noisy) || {
            [ $runs = 1 ] || break
            w="server exit $srv_rc, client exit $cli_rc, no known noise pattern: $(tail -n 2 "$work/client.log" | tr -s ' \n' ' ')"
        }
        why=${why:+$why; }$w
        echo "note: $name: run $runs failed ($w); running it again"
        rm -f "$work"/maps/maps.*
        run_once "$@"
        runs=$((runs + 1))
    done
    if case_ok && sv_maps_check "$dev"; then
        if [ $runs = 1 ]; then
            echo "PASS: $name"
        else
            echo "PASS (retried: $why): $name"
            retried=$((retried + 1))
        fi
        pass=$((pass + 1))
        [ $verbose = 1 ] && grep -A 1 '^ *#bytes' "$work/client.log"
    else
        echo "FAIL: $name: server exit $srv_rc, client exit $cli_rc${why:+ (earlier runs: $why)}"
        sv_perftest_table "$work/client.log" || echo "(the client printed no result table)"
        w=$(why_noisy) && echo "(this run: $w)"
        echo "---- server:"; grep -v '^ *$' "$work/server.log" | tail -n 20
        echo "---- client:"; grep -v '^ *$' "$work/client.log" | tail -n 30
        fail=$((fail + 1))
    fi
}

for p in $progs; do
    run_case "$p" -n "$iters"
done

[ $retried = 0 ] || echo "test_perftest: $retried passed after a retry"
sv_finish
