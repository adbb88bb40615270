#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_plugin.sh -- softverbs' rxe and siw providers as
# plug-ins of rdma-core's own libibverbs (plugin/: libsoftverbs-rxe-rdmav<N>.so,
# libsoftverbs-siw-rdmav<N>.so, N the system rdma-core's node), run inside the test VM
# (tests/vm/run --netdev dummy --siw).
#
#   test_plugin.sh [-v]
#
# A "plug-in" end is a Debian program on the system's libibverbs with
# RDMAV_DRIVERS=<build>/plugin/.libs/libsoftverbs-rxe:...-siw (rdma-core
# appends -rdmav<N>.so and tries them before its own providers); an
# "rdma-core" end is the same program with nothing changed. Cases:
#  - ibv_devinfo -v prints byte for byte what rdma-core's librxe/libsiw
#    make it print;
#  - test_rxe_ops, test_rxe_errors and test_siw (our tests of the rxe
#    and siw providers, built against the system's libibverbs as
#    test_plugin_*) pass on the plug-ins: the cq_ex loop, siw's
#    solicited-only arming,
#    the bad work requests, full queues, ...;
#  - rdma-core's fork-safety pattern (ibv_fork_init, register, fork
#    every way during traffic: examples/fork-torture) on the plug-in;
#  - the pingpongs over rxe0: rc -e, rc -N, uc with the plug-in on both
#    ends; rc, ud, srq mixed with rdma-core's librxe both ways round;
#  - perftest's ib_send_bw and ib_write_lat over rxe0 on the plug-in;
#  - rping over siw0 mixed with rdma-core's libsiw both ways round, and
#    perftest's ib_write_bw -R over siw0 with the plug-in on both ends.
# Every plug-in end must have mapped rdma-core's libibverbs (not
# softverbs') and our plug-in (/proc/<pid>/maps, through the maps probe),
# and its SOFTVERBS_LOG=info log must say that our provider drove the
# device. Exit 0 all passed, 1 some failed, 77 skipped (no device, no
# plug-ins built, a Debian program missing).
#
# Environment: RXE_DEV, RXE_GID, RXE_IP, SIW_DEV, SIW_IP (tests/vm/run);
# SOFTVERBS_LIBDIR; PLUGIN_ITERS (pingpong iterations, 20);
# PLUGIN_RPING_COUNT (50); PLUGIN_PERFTEST_ITERS (100); PLUGIN_TIMEOUT
# seconds per end (60).
set -u
. "$(dirname "$0")/lib.sh"
sv_init test_plugin "$@"
iters=${PLUGIN_ITERS:-20}
count=${PLUGIN_RPING_COUNT:-50}
ptiters=${PLUGIN_PERFTEST_ITERS:-100}
tmo=${PLUGIN_TIMEOUT:-60}
plugdir=${SOFTVERBS_PLUGIN_DIR:-$libdir/../../plugin/.libs}
# named for the system rdma-core's provider ABI node (-rdmav34.so on
# rdma-core 44-56, -rdmav65.so on 65): the one this build found
plugsuf=$(cd "$plugdir" 2> /dev/null && ls libsoftverbs-rxe-rdmav*.so 2> /dev/null | head -n 1 | sed 's/^libsoftverbs-rxe//')
[ -n "$plugsuf" ] || skip "no plug-ins in $plugdir (make)"
plugdir=$(cd "$plugdir" && pwd)
syslib=$(readlink -f "${SYSTEM_LIBIBVERBS:-/usr/lib/$(gcc -print-multiarch 2> /dev/null)/libibverbs.so.1}")
[ -e "$syslib" ] || skip "no system libibverbs ($syslib)"
sv_need_dev RXE_DEV
dev=$RXE_DEV
gid=${RXE_GID:-1}
for p in ibv_devinfo ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong \
    ibv_srq_pingpong; do
    sv_need_cmd $p ibverbs-utils
done
siw=
if [ -n "${SIW_DEV:-}" ] && [ -e "/sys/class/infiniband/$SIW_DEV" ] &&
    [ -n "${SIW_IP:-}" ]; then
    siw=$SIW_DEV
    sv_need_cmd rping rdmacm-utils
    sv_need_cmd ib_write_bw perftest
    modprobe rdma_ucm 2> /dev/null
fi
drivers="$plugdir/libsoftverbs-rxe:$plugdir/libsoftverbs-siw"
port=18900
n_log=0

# result NAME OK DETAIL: sv_result with the seconds since the last call
t_last=$SECONDS
result() {
    local name="$1 [$((SECONDS - t_last))s]"
    t_last=$SECONDS
    shift
    sv_result "$name" "$@"
}

# plug_env pl|rc: PL_ENV=(...) the environment of one end, for env(1)
plug_env() {
    if [ "$1" = pl ]; then
        n_log=$((n_log + 1))
        PL_ENV=(LD_LIBRARY_PATH= LD_PRELOAD="$sv_probe" SV_MAPS_DIR="$work/maps"
                RDMAV_DRIVERS="$drivers" SOFTVERBS_LOG=info
                SOFTVERBS_LOG_FILE="$work/log.$n_log")
    else
        PL_ENV=(-u RDMAV_DRIVERS LD_LIBRARY_PATH= LD_PRELOAD= SV_MAPS_DIR=)
    fi
}
plabel() { if [ "$1" = pl ]; then echo plug-in; else echo rdma-core; fi; }

# plug_check DEV [any]: every plug-in end since the last call mapped
# rdma-core's libibverbs and our plug-in for DEV (with "any": at least one
# process did -- a Check program's parent only forks the tests), none
# softverbs' libibverbs, and the log says our provider drove DEV. Prints
# why not; 0 ok, 1 not.
plug_check() {
    local d=$1 any=${2:-} f c n=0 m=0 bad=0 name
    case $d in siw*) name=siw ;; *) name=rxe ;; esac
    for f in "$work"/maps/maps.*; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        sv_slurp c "$f"
        c+=$'\n'
        [[ $c == *" $syslib"$'\n'* ]] || {
            echo "  maps: $(sv_first "$f") did not map rdma-core's $syslib"; bad=1; }
        if [[ $c == *"/libsoftverbs-$name$plugsuf"$'\n'* ]]; then
            m=$((m + 1))
        elif [ -z "$any" ]; then
            echo "  maps: $(sv_first "$f") did not map libsoftverbs-$name$plugsuf"; bad=1
        fi
        if [[ $c == *" $libdir/libibverbs.so"* ]]; then
            echo "  maps: $(sv_first "$f") mapped softverbs' own libibverbs"; bad=1
        fi
    done
    [ $n -gt 0 ] || { echo "  maps: no plug-in end left a maps record"; bad=1; }
    [ $m -gt 0 ] || { echo "  maps: no process mapped libsoftverbs-$name$plugsuf"; bad=1; }
    for f in "$work"/log.*; do
        [ -e "$f" ] || continue
        sv_has "$f" "softverbs $name provider drives $d"$'\n' || {
            echo "  log: no 'softverbs $name provider drives $d' in $f:"
            head -n 3 "$f" | sed 's/^/    /'; bad=1; }
    done
    rm -f "$work"/maps/maps.* "$work"/log.*
    return $bad
}

# the plug-in must not change what rdma-core prints
devinfo_case() {
    local ok=0
    ibv_devinfo -v > "$work/ref" 2>&1; echo "exit $?" >> "$work/ref"
    plug_env pl
    env "${PL_ENV[@]}" ibv_devinfo -v > "$work/pl" 2>&1; echo "exit $?" >> "$work/pl"
    if cmp -s "$work/ref" "$work/pl"; then
        ok=1
        # siw0 too, when present: ibv_devinfo opens every device
        if [ -n "$siw" ] && ! sv_has "$work/log.$n_log" "softverbs siw provider drives $siw"$'\n'; then
            echo "  log: no 'softverbs siw provider drives $siw'"; ok=0
        fi
        plug_check "$dev" || ok=0
    else
        diff -u "$work/ref" "$work/pl" | head -30
    fi
    result "ibv_devinfo -v identical (plug-in vs rdma-core, $(wc -l < "$work/ref") lines)" $ok
}

# pp_case SERVER CLIENT PROG [ARGS...]
pp_case() {
    local s=$1 c=$2 prog=$3 srv_rc cli_rc spid ok=0 name
    shift 3
    port=$((port + 1))
    name="$prog $* over $dev (server $(plabel "$s"), client $(plabel "$c"))"
    plug_env "$s"
    env "${PL_ENV[@]}" timeout -k 5 "$tmo" \
        "$prog" -d "$dev" -g "$gid" -n "$iters" -p $port "$@" \
        > "$work/server.log" 2>&1 &
    spid=$!
    sv_wait_port $port $spid
    plug_env "$c"
    env "${PL_ENV[@]}" timeout -k 5 "$tmo" \
        "$prog" -d "$dev" -g "$gid" -n "$iters" -p $port "$@" 127.0.0.1 \
        > "$work/client.log" 2>&1
    cli_rc=$?
    wait $spid
    srv_rc=$?
    if sv_pingpong_ok "$iters" $srv_rc $cli_rc "$work/server.log" "$work/client.log"; then
        plug_check "$dev" && ok=1
    fi
    result "$name" $ok "server exit $srv_rc, client exit $cli_rc"
    if [ $ok = 0 ]; then
        echo "---- server:"; tail -n 6 "$work/server.log"
        echo "---- client:"; tail -n 6 "$work/client.log"
    fi
    rm -f "$work"/maps/maps.* "$work"/log.*
}

# pt_try PROG ARGS...: perftest over rxe0 with the plug-in on both ends
# (addresses exchanged over TCP); sets srv_rc cli_rc ok
pt_try() {
    local prog=$1 spid
    shift
    port=$((port + 1))
    ok=0
    plug_env pl
    env "${PL_ENV[@]}" timeout -k 5 "$tmo" "$prog" -d "$dev" -x "$gid" -p $port \
        "$@" > "$work/server.log" 2>&1 &
    spid=$!
    sv_wait_port $port $spid
    plug_env pl
    env "${PL_ENV[@]}" timeout -k 5 "$tmo" "$prog" -d "$dev" -x "$gid" -p $port \
        "$@" "$RXE_IP" > "$work/client.log" 2>&1
    cli_rc=$?
    wait $spid
    srv_rc=$?
    # the result table: "#bytes #iterations ..." then a numeric row
    sv_grep "$work/client.log" "^ *[0-9]+ +$ptiters +[0-9.]+" && ok=1
    [ $srv_rc = 0 ] && [ $cli_rc = 0 ] && [ $ok = 1 ]
}

# pt_case PROG ARGS...: perftest under TCG emulation fails now and then
# with rdma-core's providers too: a failure gets one more run, and a third
# while each failure is one emulation noise explains (sv_perftest_noise:
# a transport retry, perftest's clock checks); the reason is printed
pt_case() {
    local name="$* over $dev (plug-in both ends)" ok=0 runs=1 why
    while ! pt_try "$@" -n "$ptiters" && [ $runs -lt 3 ]; do
        why=$(sv_perftest_noise $srv_rc $cli_rc "$work/server.log" "$work/client.log") ||
            { [ $runs = 1 ] || break; why="no known noise pattern"; }
        echo "note: $name: run $runs failed (server exit $srv_rc, client exit $cli_rc: $why); running it again"
        rm -f "$work"/maps/maps.* "$work"/log.*
        runs=$((runs + 1))
    done
    [ $ok = 1 ] && [ $srv_rc = 0 ] && [ $cli_rc = 0 ] && { plug_check "$dev" || ok=0; }
    result "$name" $ok "server exit $srv_rc, client exit $cli_rc"
    if [ $ok = 0 ]; then
        echo "---- server:"; grep -v '^ *$' "$work/server.log" | tail -n 20
        echo "---- client:"; grep -v '^ *$' "$work/client.log" | tail -n 30
    fi
    rm -f "$work"/maps/maps.* "$work"/log.*
}

# cm_try SERVER CLIENT OKPATTERN SERVER_CMD... -- CLIENT_CMD...: rdma_cm
# programs over siw0 ("-p PORT" goes after each program name); sets
# srv_rc cli_rc ok
cm_try() {
    local s=$1 c=$2 pat=$3 spid srv=() cli=()
    shift 3
    port=$((port + 1))
    ok=0
    while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
    shift
    cli=("$@")
    plug_env "$s"
    env "${PL_ENV[@]}" timeout -k 5 "$tmo" "${srv[0]}" -p $port "${srv[@]:1}" \
        > "$work/server.log" 2>&1 &
    spid=$!
    sv_wait_cm_listen $port $spid
    plug_env "$c"
    env "${PL_ENV[@]}" timeout -k 5 "$tmo" "${cli[0]}" -p $port "${cli[@]:1}" \
        > "$work/client.log" 2>&1
    cli_rc=$?
    wait $spid
    srv_rc=$?
    sv_grep "$work/client.log" "$pat" && ok=1
    [ $srv_rc = 0 ] && [ $cli_rc = 0 ] && [ $ok = 1 ]
}

# cm_case [--retry] SERVER CLIENT NAME OKPATTERN SERVER_CMD... -- CLIENT_CMD...
# --retry: one more run after a failure, as test_rping.sh allows perftest
# -R over siw (under TCG it fails now and then during the measurement or
# its closing rdma_cm exchange, with rdma-core's libsiw as well); twice in
# a row is a failure
cm_case() {
    local retry=0 s c name pat
    [ "$1" = --retry ] && { retry=1; shift; }
    s=$1 c=$2 name="$3 over $siw (server $(plabel "$1"), client $(plabel "$2"))" pat=$4
    shift 4
    if ! cm_try "$s" "$c" "$pat" "$@" && [ $retry = 1 ]; then
        echo "note: $name: first run failed (server exit $srv_rc, client exit $cli_rc); retrying once"
        rm -f "$work"/maps/maps.* "$work"/log.*
        cm_try "$s" "$c" "$pat" "$@"
    fi
    [ $ok = 1 ] && [ $srv_rc = 0 ] && [ $cli_rc = 0 ] && { plug_check "$siw" || ok=0; }
    result "$name" $ok "server exit $srv_rc, client exit $cli_rc"
    if [ $ok = 0 ]; then
        echo "---- server:"; tail -n 6 "$work/server.log"
        echo "---- client:"; tail -n 6 "$work/client.log"
    fi
    rm -f "$work"/maps/maps.* "$work"/log.*
}

# prog_case NAME PROGRAM [DEV]: one of our Check programs built against
# the system's libibverbs, on the plug-in for DEV (default rxe0)
prog_case() {
    local name=$1 prog=$2 d=${3:-$dev} rc ok=0
    plug_env pl
    env "${PL_ENV[@]}" RXE_DEV="$dev" RXE_GID="$gid" timeout -k 5 120 "$prog" \
        > "$work/prog.log" 2>&1
    rc=$?
    if [ $rc = 0 ]; then
        plug_check "$d" any && ok=1
    fi
    result "$name" $ok "exit $rc"
    [ $ok = 1 ] && [ $verbose = 1 ] && tail -n 1 "$work/prog.log"
    [ $ok = 1 ] || tail -n 20 "$work/prog.log"
    rm -f "$work"/maps/maps.* "$work"/log.*
}

devinfo_case
bindir=${top_builddir:-$libdir/../..}/tests/integration
for p in test_plugin_rxe_ops test_plugin_rxe_errors test_plugin_rxe_mw test_plugin_siw; do
    [ -x "$bindir/$p" ] || skip "$bindir/$p is not built (make check)"
done
# rdma-core's fork-safety pattern with our provider: ibv_fork_init,
# register, fork every way during traffic (examples/fork-torture, which
# sees it is not on softverbs and expects rdma-core's behaviour), on the
# system's libibverbs (LD_LIBRARY_PATH beats fork-torture's RUNPATH)
fork_case() {
    local rc ok=0 t=$bindir/../../examples/.libs/fork-torture
    [ -x "$t" ] || t=$bindir/../../examples/fork-torture
    plug_env pl
    env "${PL_ENV[@]}" LD_LIBRARY_PATH="$(dirname "$syslib")" RXE_DEV="$dev" \
        timeout -k 5 120 "$t" --shape plain --rounds 1 --fork-safe on \
        > "$work/prog.log" 2>&1 < /dev/null
    rc=$?
    if [ $rc = 0 ] && sv_grep "$work/prog.log" "^OK: every byte" &&
        sv_has "$work/prog.log" "rdma-core (or other) library"; then
        plug_check "$dev" any && ok=1
    fi
    result "fork-torture -f on (ibv_fork_init, register, fork every way) on the plug-in" $ok "exit $rc"
    [ $ok = 1 ] || tail -n 20 "$work/prog.log"
    rm -f "$work"/maps/maps.* "$work"/log.*
}

# RDMA write with immediate, read and atomics, chains, ring wrap-around, the ibv_wr_*
# and cq_ex API (the documented next_poll-until-ENOENT loop),
# and the error paths (bad WRs, full queues, remote access, RNR, flush,
# CQ overflow, SRQ limit, resize) -- our rxe provider, rdma-core's core
prog_case "rxe data path (test_rxe_ops) on the plug-in" "$bindir/test_plugin_rxe_ops"
prog_case "rxe error paths (test_rxe_errors) on the plug-in" "$bindir/test_plugin_rxe_errors"
# memory windows, LOCAL_INV and SEND_WITH_INV (the receiver's completion
# carries IBV_WC_WITH_INV, which rdma-core's librxe does not report)
prog_case "rxe memory windows and SEND_WITH_INV (test_rxe_mw) on the plug-in" "$bindir/test_plugin_rxe_mw"
fork_case
# the plug-in on both ends where only our provider is tested, mixed with
# rdma-core's librxe for the rest (the wire formats must agree)
for c in "ibv_rc_pingpong -e" "ibv_rc_pingpong -N -c" "ibv_uc_pingpong" "ibv_ud_pingpong" \
    "ibv_srq_pingpong"; do
    # shellcheck disable=SC2086
    pp_case pl pl $c
done
for c in "ibv_rc_pingpong -c" "ibv_ud_pingpong" "ibv_srq_pingpong"; do
    # shellcheck disable=SC2086
    pp_case pl rc $c
    # shellcheck disable=SC2086
    pp_case rc pl $c
done
if [ -n "${RXE_IP:-}" ] && [ "$RXE_IP" != 127.0.0.1 ] && command -v ib_send_bw > /dev/null; then
    pt_case ib_send_bw
    pt_case ib_write_lat
else
    echo "note: perftest over rxe0 needs rxe0 on a netdev with an address (--netdev dummy) and perftest"
    [ "${CI:-}" = true ] && sv_result "perftest over rxe0" 0 "CI runs with --netdev dummy"
fi
if [ -n "$siw" ]; then
    for ends in "pl rc" "rc pl"; do
        # shellcheck disable=SC2086
        cm_case $ends "rping -C $count" "rdma-ping-$((count - 1)):" \
            rping -s -a "$SIW_IP" -- rping -c -a "$SIW_IP" -C "$count" -v
    done
    # send/recv, write, read, inline, error completions, flush, what
    # iWARP lacks (EOPNOTSUPP, not a negative errno), CQ arming and events
    # (solicited-only armed: the solicited send fires, unlike libsiw)
    SIW_DEV=$siw prog_case "siw provider (test_siw) on the plug-in" "$bindir/test_plugin_siw" "$siw"
    cm_case --retry pl pl "ib_write_bw -R" "^ *[0-9]+ +$ptiters +[0-9.]+" \
        ib_write_bw -R -d "$siw" -n "$ptiters" -- \
        ib_write_bw -R -d "$siw" -n "$ptiters" "$SIW_IP"
else
    echo "note: no siw0 with an address (tests/vm/run --netdev dummy --siw): the siw cases did not run"
    [ "${CI:-}" = true ] && sv_result "siw0 present" 0 "CI runs with --siw"
fi
sv_finish
