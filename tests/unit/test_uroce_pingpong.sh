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
#  - ibv_rc_pingpong -N (its sends through the ibv_wr_* API, a QP made by
#    ibv_create_qp_ex with send_ops_flags), busy-polling and with -e;
#  - ibv_rc_pingpong -t (completion timestamps through ibv_create_cq_ex)
#    refused as on the kernel's rxe: neither reports a
#    completion_timestamp_mask, so the program stops before its CQ with
#    "The device isn't completion timestamp capable";
#  - ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong -c over lo's
#    ::1 (-g its GID index, read from ibv_devinfo in the pair's own
#    namespace: RoCE v2 over UDP/IPv6); SKIP when lo has no ::1 there
#    (IPv6 off), naming the sysctl;
#  - each pair in a network namespace of its own when run as root
#    (uroce_lib.sh: uroce_isolate), then the same as nobody, in a network
#    namespace of its own too (so that the
#    root-owned sockets of tests running beside it do not hold port 4791
#    on 127.0.0.1: SO_REUSEPORT groups are per user).
#
# Needs ibverbs-utils; the runs as nobody need root, setpriv, unshare and
# ip. Exits 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
. "$(dirname "$0")/uroce_lib.sh"
uroce_init test_uroce_pingpong ibverbs-utils \
    ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong

# pair NAME PROGRAM [ARG...]: a server and a client on a free TCP port,
# in one as() (one network namespace); both must finish with status 0
# and report their iterations. An ARG GID6 is the GID index of lo's ::1
# there (the pair skips, 77, when lo has none).
pair() {
    local name=$1 ok=0 rc
    shift
    cat > "$work/pair.sh" << EOF
if [ "\${*/GID6/}" != "\$*" ]; then
    gid=\$(ibv_devinfo -d uroce0 -v | sed -n 's/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::1, .*/\1/p' | head -n 1)
    if [ -z "\$gid" ]; then
        echo "lo has no ::1 GID here: net.ipv6.conf.lo.disable_ipv6 = \$(cat /proc/sys/net/ipv6/conf/lo/disable_ipv6 2>&1)" > "$work/srv"
        exit 77
    fi
    set -- "\${@/GID6/\$gid}"
fi
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
    as timeout 120 bash "$work/pair.sh" "$@"
    rc=$?
    if [ $rc = 77 ]; then
        echo "SKIP: $who: $name: $(cat "$work/srv")"
        rm -f "$work/srv"
        return
    fi
    [ $rc = 0 ] && grep -q "iters in" "$work/srv" && grep -q "iters in" "$work/cli" && ok=1
    result "$who: $name" $ok
    [ $ok = 1 ] || { echo "--- server"; cat "$work/srv"; echo "--- client"; cat "$work/cli"; }
    rm -f "$work/srv" "$work/cli"
}

# refused NAME MESSAGE PROGRAM [ARG...]: the program stops at once,
# with a status other than 0 and MESSAGE on stderr
refused() {
    local name=$1 msg=$2 ok=0
    shift 2
    if ! as timeout 30 "$@" -p $((20000 + RANDOM % 20000)) > "$work/out" 2>&1 &&
        grep -qF "$msg" "$work/out"; then
        ok=1
    fi
    result "$who: $name" $ok
    [ $ok = 1 ] || cat "$work/out"
    rm -f "$work/out"
}

suite() {
    pair "ibv_rc_pingpong -c, 200 messages" ibv_rc_pingpong -d uroce0 -g 1 -c -n 200
    pair "ibv_rc_pingpong -c -N (ibv_wr_* sends), 200 messages" ibv_rc_pingpong -d uroce0 -g 1 -c -N -n 200
    pair "ibv_rc_pingpong -c -N -e, 200 messages" ibv_rc_pingpong -d uroce0 -g 1 -c -N -e -n 200
    refused "ibv_rc_pingpong -t refused (no completion timestamps, as rxe)" \
        "The device isn't completion timestamp capable" ibv_rc_pingpong -d uroce0 -g 1 -t
    pair "ibv_rc_pingpong -c -e (completion events), 200 messages" ibv_rc_pingpong -d uroce0 -g 1 -c -e -n 200
    pair "ibv_rc_pingpong -c, 64 KiB messages, 50 of them" ibv_rc_pingpong -d uroce0 -g 1 -c -s 65536 -n 50
    pair "ibv_uc_pingpong -c, 200 messages" ibv_uc_pingpong -d uroce0 -g 1 -c -n 200
    pair "ibv_ud_pingpong -c, 200 messages" ibv_ud_pingpong -d uroce0 -g 1 -c -n 200
    pair "ibv_srq_pingpong -c, 16 QPs, 200 messages" ibv_srq_pingpong -d uroce0 -g 1 -c -n 200
    pair "ibv_rc_pingpong -c over ::1, 200 messages" ibv_rc_pingpong -d uroce0 -g GID6 -c -n 200
    pair "ibv_rc_pingpong -c over ::1, 64 KiB messages, 50 of them" ibv_rc_pingpong -d uroce0 -g GID6 -c -s 65536 -n 50
    pair "ibv_uc_pingpong -c over ::1, 200 messages" ibv_uc_pingpong -d uroce0 -g GID6 -c -n 200
    pair "ibv_ud_pingpong -c over ::1, 200 messages" ibv_ud_pingpong -d uroce0 -g GID6 -c -n 200
}

uroce_isolate
suite

if uroce_as_nobody; then
    suite
fi

echo "test_uroce_pingpong: $pass passed, $fail failed"
[ $fail = 0 ]
