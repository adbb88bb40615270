#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_perftest.sh -- Debian's perftest between a server
# and a client process on uroce0 over 127.0.0.1, on the host (no VM, no
# RDMA in the kernel): ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw
# (fetch-and-add and compare-and-swap) and ib_write_lat, with small
# counts. A case passes when both ends exit 0 and the client printed its
# result line (the size and the iterations asked for). ib_write_bw again as
# nobody, in a network namespace of its own (as test_uroce_pingpong.sh).
#
# The client starts once the server listens on its TCP port (ss), not
# after a fixed sleep. GID index: the one uroce0 lists for 127.0.0.1
# (::ffff:127.0.0.1, index 1 on lo).
#
# Needs perftest and ss (iproute2); the run as nobody needs root,
# setpriv, unshare and ip. Exits 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
top=${top_builddir:-$(pwd)}
libdir=$top/lib/.libs
skip() { echo "SKIP: $*"; exit 77; }

for p in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_write_lat; do
    command -v $p > /dev/null || skip "$p missing (apt-get install perftest)"
done
command -v ss > /dev/null || skip "ss missing (apt-get install iproute2)"
[ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"
[ -e /sys/class/net/lo ] || skip "no lo in this network namespace"

work=$(mktemp -d /tmp/test_uroce_perftest.XXXXXX) || exit 1
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
# case_ NAME SIZE ITERS PROGRAM [ARG...]
case_() {
    local name=$1 size=$2 iters=$3 dir
    shift 3
    ncase=$((ncase + 1))
    dir=$work/case$ncase
    mkdir "$dir" && chmod a+rwx "$dir"
    printf '%s\n%s\n%s\n' "$who: $name" "$size" "$iters" > "$dir/what"
    while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n; done
    as bash "$work/pair.sh" "$dir" "$@" -d uroce0 -x "$gid" -F -s "$size" -n "$iters" &
}

check_all() {
    local dir name size iters rc ok
    wait
    for dir in "$work"/case*; do
        { read -r name; read -r size; read -r iters; } < "$dir/what"
        rc=$(cat "$dir/rc" 2> /dev/null)
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

who=$(id -un)
case_ "ib_send_bw, 4 KiB x 200" 4096 200 ib_send_bw
case_ "ib_write_bw, 64 KiB x 100" 65536 100 ib_write_bw
case_ "ib_read_bw, 64 KiB x 100" 65536 100 ib_read_bw
case_ "ib_atomic_bw, FETCH_AND_ADD x 500" 8 500 ib_atomic_bw
case_ "ib_atomic_bw -A CMP_AND_SWAP x 500" 8 500 ib_atomic_bw -A CMP_AND_SWAP
case_ "ib_write_lat, 2 bytes x 200" 2 200 ib_write_lat

if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && command -v unshare > /dev/null &&
    command -v ip > /dev/null; then
    nob=$work/nobody
    mkdir "$nob" && cp -a "$libdir"/libibverbs.so* "$nob"/ && chmod -R a+rX "$nob"
    chmod a+rx "$work"
    lib=$nob
    cat > "$work/nobody.sh" << 'EOF'
ip link set lo up || exit 1
exec setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
EOF
    chmod a+r "$work/nobody.sh" "$work/pair.sh"
    as() {
        (cd / && unshare --net bash "$work/nobody.sh" env -u XDG_RUNTIME_DIR \
             LD_LIBRARY_PATH="$lib" "${conf[@]}" "$@")
    }
    who=nobody
    case_ "ib_write_bw, 64 KiB x 100" 65536 100 ib_write_bw
else
    echo "note: not root, or no setpriv/unshare/ip: the runs as nobody are left out"
fi
check_all

echo "test_uroce_perftest: $pass passed, $fail failed"
[ $fail = 0 ]
