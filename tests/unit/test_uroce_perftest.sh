#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_perftest.sh -- Debian's perftest between a server
# and a client process on uroce0 over 127.0.0.1, on the host (no VM, no
# RDMA in the kernel): ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw
# (fetch-and-add and compare-and-swap) and ib_write_lat, with small
# counts. A case passes when both ends exit 0 and the client printed its
# result line (the size and the iterations asked for). ib_write_bw again as
# nobody, in a network namespace of its own (as test_uroce_pingpong.sh).
# perftest 4.5 posts through ibv_post_send here, as on rxe: it takes the
# ibv_wr_* path on mlx5, EFA and HNS devices only (test_uroce_pingpong.sh's
# ibv_rc_pingpong -N runs that path).
#
# The client starts once the server listens on its TCP port (ss), not
# after a fixed sleep. GID index: the one uroce0 lists for 127.0.0.1
# (::ffff:127.0.0.1, index 1 on lo); ib_write_bw, ib_read_bw and
# ib_atomic_bw again over lo's ::1 (RoCE v2 over UDP/IPv6), its index read
# in the pair's own namespace (SKIP when lo has none there: IPv6 off).
#
# Needs perftest and ss (iproute2); the run as nobody needs root,
# setpriv, unshare and ip. Exits 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
. "$(dirname "$0")/uroce_lib.sh"
uroce_init test_uroce_perftest perftest ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_write_lat
command -v ss > /dev/null || skip "ss missing (apt-get install iproute2)"

# the GID index of ::ffff:127.0.0.1 on uroce0
gid=$(as ibv_devinfo -d uroce0 -v 2> /dev/null |
      sed -n 's/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::ffff:127\.0\.0\.1.*/\1/p' | head -n 1)
[ -n "$gid" ] || gid=1

# One pair, run by `as` (so that for nobody the server and the client
# share one namespace): a free port, the server, the client once the
# server listens; both statuses go to DIR/rc.
cat > "$work/pair.sh" << 'EOF'
dir=$1
shift
# -x GID6: the GID index of ::1 here
if [ "${*/GID6/}" != "$*" ]; then
    gid=$(ibv_devinfo -d uroce0 -v | sed -n 's/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::1, .*/\1/p' | head -n 1)
    if [ -z "$gid" ]; then
        echo "lo has no ::1 GID here: net.ipv6.conf.lo.disable_ipv6 = $(cat /proc/sys/net/ipv6/conf/lo/disable_ipv6 2>&1)" > "$dir/srv"
        echo "77 77" > "$dir/rc"
        exit
    fi
    set -- "${@/GID6/$gid}"
fi
for try in $(seq 20); do
    port=$((20000 + RANDOM % 20000))
    [ -z "$(ss -Hltn "sport = :$port")" ] && break
done
timeout 30 "$@" -p $port > "$dir/srv" 2>&1 &
srv=$!
for try in $(seq 250); do
    [ -n "$(ss -Hltn "sport = :$port")" ] && break
    kill -0 $srv 2> /dev/null || break
    sleep 0.02
done
timeout 30 "$@" -p $port 127.0.0.1 > "$dir/cli" 2>&1
cli=$?
wait $srv
echo "$? $cli" > "$dir/rc"
EOF

# The cases run two at a time (perftest sleeps a second or so in its
# handshakes, whatever the traffic, but busy-polls while it measures: more
# at once only contend for the CPUs): case_ starts one, check_all waits
# for them and judges. LANES overrides the two.
lanes=${LANES:-2}
ncase=0
# [X=GID6] case_ NAME SIZE ITERS PROGRAM [ARG...]: X the GID (index, or
# GID6 for ::1's)
case_() {
    local name=$1 size=$2 iters=$3 dir
    shift 3
    ncase=$((ncase + 1))
    dir=$work/case$ncase
    mkdir "$dir" && chmod a+rwx "$dir"
    printf '%s\n%s\n%s\n' "$who: $name" "$size" "$iters" > "$dir/what"
    while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n; done
    as bash "$work/pair.sh" "$dir" "$@" -d uroce0 -x "${X:-$gid}" -F -s "$size" -n "$iters" &
}

check_all() {
    local dir name size iters rc ok
    wait
    for dir in "$work"/case*; do
        { read -r name; read -r size; read -r iters; } < "$dir/what"
        rc=$(cat "$dir/rc" 2> /dev/null)
        if [ "$rc" = "77 77" ]; then
            echo "SKIP: $name: $(cat "$dir/srv")"
            continue
        fi
        ok=0
        if [ "$rc" = "0 0" ] && grep -Eq "^ *$size +$iters +[0-9]" "$dir/cli"; then
            ok=1
        fi
        result "$name" $ok
        if [ $ok = 0 ]; then
            echo "--- exit statuses (server client): ${rc:-none}"
            echo "--- server"; cat "$dir/srv"; echo "--- client"; cat "$dir/cli"
        fi
    done
}

uroce_isolate
case_ "ib_send_bw, 4 KiB x 200" 4096 200 ib_send_bw
case_ "ib_write_bw, 64 KiB x 100" 65536 100 ib_write_bw
case_ "ib_read_bw, 64 KiB x 100" 65536 100 ib_read_bw
case_ "ib_atomic_bw, FETCH_AND_ADD x 500" 8 500 ib_atomic_bw
case_ "ib_atomic_bw -A CMP_AND_SWAP x 500" 8 500 ib_atomic_bw -A CMP_AND_SWAP
case_ "ib_write_lat, 2 bytes x 200" 2 200 ib_write_lat
X=GID6 case_ "ib_write_bw over ::1, 64 KiB x 100" 65536 100 ib_write_bw
X=GID6 case_ "ib_read_bw over ::1, 64 KiB x 100" 65536 100 ib_read_bw
X=GID6 case_ "ib_atomic_bw over ::1, FETCH_AND_ADD x 500" 8 500 ib_atomic_bw

if uroce_as_nobody; then
    chmod a+r "$work/pair.sh"
    case_ "ib_write_bw, 64 KiB x 100" 65536 100 ib_write_bw
    X=GID6 case_ "ib_write_bw over ::1, 64 KiB x 100" 65536 100 ib_write_bw
fi
check_all

echo "test_uroce_perftest: $pass passed, $fail failed"
[ $fail = 0 ]
