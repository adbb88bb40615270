#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_pingpong.sh -- Debian's own pingpongs between two
# processes on uroce0 over lo, on the host (no VM, no RDMA in the kernel):
#
#  - ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong and
#    ibv_srq_pingpong (16 RC QPs receiving through one SRQ) with -c
#    (every message's contents checked by the programs), busy-polling, and
#    ibv_rc_pingpong -e (completion channels: the progress thread
#    answers while the program sleeps);
#  - the same as nobody, in a network namespace of its own (so that the
#    root-owned sockets of tests running beside it do not hold port 4791
#    on 127.0.0.1: SO_REUSEPORT groups are per user).
#
# Needs ibverbs-utils; the runs as nobody need root, setpriv, unshare and
# ip. Exits 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
top=${top_builddir:-$(pwd)}
libdir=$top/lib/.libs
skip() { echo "SKIP: $*"; exit 77; }

for p in ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong; do
    command -v $p > /dev/null || skip "$p missing (apt-get install ibverbs-utils)"
done
[ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"
[ -e /sys/class/net/lo ] || skip "no lo in this network namespace"

work=$(mktemp -d /tmp/test_uroce_pingpong.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
result() { # NAME OK
    if [ "$2" = 1 ]; then echo "PASS: $1"; pass=$((pass + 1));
    else echo "FAIL: $1"; fail=$((fail + 1)); fi
}

lib=$libdir
mkdir "$work/etc" "$work/config"
conf=(SOFTVERBS_UROCE=lo SOFTVERBS_SYSCONFDIR="$work/etc" XDG_CONFIG_HOME="$work/config")
# a library built with ASan needs its runtime first in Debian's programs
asan=$(ldd "$libdir/libibverbs.so.1" | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && conf+=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0)

# as PROGRAM [ARG...]: runs it as the test's user (redefined for nobody)
as() { env LD_LIBRARY_PATH="$lib" "${conf[@]}" "$@"; }

# pair NAME PROGRAM [ARG...]: a server and a client on a free TCP port;
# both must finish with status 0 and report their iterations
pair() {
    local name=$1 port=$((20000 + RANDOM % 20000)) ok=0 srv try
    shift
    as timeout 60 "$@" -p $port > "$work/srv" 2>&1 &
    srv=$!
    for try in $(seq 50); do
        sleep 0.1
        as timeout 60 "$@" -p $port 127.0.0.1 > "$work/cli" 2>&1 && break
        grep -q "Couldn't connect" "$work/cli" || break
    done
    wait $srv && grep -q "iters in" "$work/srv" && grep -q "iters in" "$work/cli" && ok=1
    result "$who: $name" $ok
    [ $ok = 1 ] || { echo "--- server"; cat "$work/srv"; echo "--- client"; cat "$work/cli"; }
}

suite() {
    pair "ibv_rc_pingpong -c, 200 messages" ibv_rc_pingpong -d uroce0 -g 1 -c -n 200
    pair "ibv_rc_pingpong -c -e (completion events), 200 messages" ibv_rc_pingpong -d uroce0 -g 1 -c -e -n 200
    pair "ibv_rc_pingpong -c, 64 KiB messages, 50 of them" ibv_rc_pingpong -d uroce0 -g 1 -c -s 65536 -n 50
    pair "ibv_uc_pingpong -c, 200 messages" ibv_uc_pingpong -d uroce0 -g 1 -c -n 200
    pair "ibv_ud_pingpong -c, 200 messages" ibv_ud_pingpong -d uroce0 -g 1 -c -n 200
    pair "ibv_srq_pingpong -c, 16 QPs, 200 messages" ibv_srq_pingpong -d uroce0 -g 1 -c -n 200
}

who=$(id -un)
suite

if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && command -v unshare > /dev/null &&
    command -v ip > /dev/null; then
    nob=$work/nobody
    mkdir "$nob" && cp -a "$libdir"/libibverbs.so* "$nob"/ && chmod -R a+rX "$work"
    lib=$nob
    cat > "$work/nobody.sh" << 'EOF'
ip link set lo up || exit 1
exec setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
EOF
    as() {
        (cd / && unshare --net bash "$work/nobody.sh" env -u XDG_RUNTIME_DIR \
             LD_LIBRARY_PATH="$lib" "${conf[@]}" "$@")
    }
    who=nobody
    rm -f "$work/srv" "$work/cli"
    # one namespace per program: the server and the client must share
    # one, so the pair runs inside a single namespace
    pair() {
        local name=$1 ok=0
        shift
        cat > "$work/pair.sh" << EOF
port=\$((20000 + RANDOM % 20000))
"\$@" -p \$port > "$work/srv" 2>&1 &
srv=\$!
for try in \$(seq 50); do
    sleep 0.1
    "\$@" -p \$port 127.0.0.1 > "$work/cli" 2>&1 && break
    grep -q "Couldn't connect" "$work/cli" || break
done
wait \$srv
EOF
        chmod a+r "$work/pair.sh"
        chmod a+rwx "$work"
        as timeout 120 bash "$work/pair.sh" "$@" &&
            grep -q "iters in" "$work/srv" && grep -q "iters in" "$work/cli" && ok=1
        result "$who: $name" $ok
        [ $ok = 1 ] || { echo "--- server"; cat "$work/srv"; echo "--- client"; cat "$work/cli"; }
        rm -f "$work/srv" "$work/cli"
    }
    suite
else
    echo "note: not root, or no setpriv/unshare/ip: the runs as nobody are left out"
fi

echo "test_uroce_pingpong: $pass passed, $fail failed"
[ $fail = 0 ]
