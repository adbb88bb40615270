#!/bin/bash
# tests/integration/test_pingpong.sh -- Debian's ibv_*_pingpong over rxe,
# run inside the test VM: both ends on softverbs, and softverbs against
# rdma-core's libibverbs + librxe both ways round.
#
#   test_pingpong.sh [-v]
#
# Each case starts the server in the background and the client against
# 127.0.0.1 (the TCP exchange of addresses), both under a timeout, on a
# port of its own. Prints PASS/FAIL per case; exit 0 all passed, 1 some
# failed, 77 skipped (no rxe device, no pingpong binaries, no softverbs
# build).
#
# Environment: RXE_DEV, RXE_GID (set by tests/vm/run); SOFTVERBS_LIBDIR
# (default: lib/.libs next to this script's tree); PINGPONG_ITERS (100);
# PINGPONG_TIMEOUT seconds per end (120).
set -u
verbose=0
[ "${1:-}" = -v ] && verbose=1

here=$(cd "$(dirname "$0")" && pwd)
libdir=${SOFTVERBS_LIBDIR:-$here/../../lib/.libs}
iters=${PINGPONG_ITERS:-100}
tmo=${PINGPONG_TIMEOUT:-120}
dev=${RXE_DEV:-}
gid=${RXE_GID:-}

skip() { echo "SKIP: $*"; exit 77; }
if [ -z "$dev" ] || [ ! -e "/sys/class/infiniband/$dev" ]; then
    skip "no rxe device (RXE_DEV='$dev'): run inside tests/vm/run"
fi
[ -n "$gid" ] || skip "RXE_GID is not set"
[ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"
for p in ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong; do
    command -v $p > /dev/null || skip "$p missing (apt-get install ibverbs-utils)"
done
# the softverbs end must really load softverbs
LD_LIBRARY_PATH=$libdir ldd "$(command -v ibv_rc_pingpong)" |
    grep -q "$libdir/libibverbs.so.1" ||
    { echo "FAIL: LD_LIBRARY_PATH=$libdir does not make ibv_rc_pingpong load softverbs"; exit 1; }

work=$(mktemp -d /tmp/pingpong.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
port=18600
pass=0 fail=0

# listening PORT: a TCP socket listens on it
listening() {
    ss -Hltn "sport = :$1" 2> /dev/null | grep -q .
}

label() {
    if [ "$1" = sv ]; then echo softverbs; else echo rdma-core; fi
}

# end sv|rc: the environment of one end
end_env() {
    if [ "$1" = sv ]; then
        # SOFTVERBS_EXEC_ENV: what the sanitized pass needs (passes/san)
        echo "LD_LIBRARY_PATH=$libdir ${SOFTVERBS_EXEC_ENV:-}"
    else
        echo "LD_LIBRARY_PATH="
    fi
}

# case SERVER CLIENT PROG [ARGS...]
run_case() {
    local s=$1 c=$2 prog=$3 srv_rc cli_rc spid name
    shift 3
    port=$((port + 1))
    name="$prog $* (server $(label "$s"), client $(label "$c"))"
    env $(end_env "$s") timeout -k 5 "$tmo" \
        "$prog" -d "$dev" -g "$gid" -n "$iters" -p $port "$@" \
        > "$work/server.log" 2>&1 &
    spid=$!
    for _ in $(seq 100); do
        listening $port && break
        kill -0 $spid 2> /dev/null || break
        sleep 0.1
    done
    env $(end_env "$c") timeout -k 5 "$tmo" \
        "$prog" -d "$dev" -g "$gid" -n "$iters" -p $port "$@" 127.0.0.1 \
        > "$work/client.log" 2>&1
    cli_rc=$?
    wait $spid
    srv_rc=$?
    if [ $srv_rc = 0 ] && [ $cli_rc = 0 ] &&
        grep -q "$iters iters in" "$work/client.log" &&
        grep -q "$iters iters in" "$work/server.log"; then
        echo "PASS: $name"
        pass=$((pass + 1))
        [ $verbose = 1 ] && tail -n 1 "$work/client.log"
    else
        echo "FAIL: $name: server exit $srv_rc, client exit $cli_rc"
        echo "---- server:"; tail -n 8 "$work/server.log"
        echo "---- client:"; tail -n 8 "$work/client.log"
        fail=$((fail + 1))
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
for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    for ends in "sv sv" "sv rc" "rc sv"; do
        run_case $ends $c
    done
done

echo "test_pingpong: $pass passed, $fail failed"
[ $fail = 0 ]
