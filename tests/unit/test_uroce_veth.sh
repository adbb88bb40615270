#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_veth.sh -- uroce between two network namespaces
# over a veth pair, with no privileges (issue 38's host tests: "across a
# veth pair between two network namespaces"; the development machines'
# kernel has veth but no dummy driver).
#
# Inside `unshare -Urn` (a user and a network namespace of the test's
# own), a veth pair va/vb: va stays there with 10.77.0.1/24, vb moves to
# a second network namespace of the same user namespace with 10.77.0.2/24.
# MTU 1500, so uroce's path MTU is 1024 and a message of 4 KiB or more
# goes as several packets. The server runs on uroce0 over vb, the client
# on uroce0 over va (their TCP exchange crosses the veth too):
#
#  - Debian's ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong and
#    ibv_srq_pingpong, each with -c (every message checked);
#  - perftest's ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw and
#    ib_write_lat.
#
# Run as root, it runs as nobody (setpriv) before it unshares; not as
# root, as the caller. IPv6 is off on the pair, so that each side's GID
# table holds only its IPv4 address's GIDs while the test runs (a
# link-local address would come later, after duplicate address
# detection, and move the indexes); the GID index of the v4-mapped
# address is read from ibv_devinfo -v. Needs ibverbs-utils, perftest,
# unshare, nsenter and ip, a kernel with veth and user namespaces; exits
# 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
. "$(dirname "$0")/uroce_lib.sh"
uroce_init test_uroce_veth perftest ibv_devinfo ibv_rc_pingpong ibv_uc_pingpong \
    ibv_ud_pingpong ibv_srq_pingpong ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_write_lat
for p in unshare nsenter ip; do
    command -v $p > /dev/null || skip "$p missing (apt-get install util-linux iproute2)"
done

box=$work/box
mkdir "$box" && cp -a "$libdir"/libibverbs.so* "$box"/
# the namespaces, then the cases; run as the user namespace's root
cat > "$box/in.sh" << 'EOS'
set -u
lib=$1 work=$2
fail() { echo "SETUP: $*"; exit 1; }
ip link set lo up || fail "ip link set lo up"
ip link add va type veth peer name vb 2> "$work/veth.err" ||
    { echo "NOVETH: $(tail -n 1 "$work/veth.err")"; exit 0; }
# the peer's namespace: a process that made it, until the end
unshare -n sleep 600 &
peer=$!
trap 'kill $peer 2> /dev/null' EXIT
for i in $(seq 100); do
    [ "$(readlink /proc/$peer/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
    sleep 0.05
done
ip link set vb netns $peer || fail "ip link set vb netns"
there() { nsenter -t "$peer" -n "$@"; }
for side in "here va 10.77.0.1" "there vb 10.77.0.2"; do
    set -- $side
    if [ "$1" = here ]; then run=(); else run=(there); fi
    echo 1 | "${run[@]}" tee "/proc/sys/net/ipv6/conf/$2/disable_ipv6" > /dev/null 2>&1
    "${run[@]}" ip link set lo up || fail "lo up ($1)"
    "${run[@]}" ip addr add "$3/24" dev "$2" || fail "ip addr add $3"
    "${run[@]}" ip link set "$2" up || fail "ip link set $2 up"
done
export LD_LIBRARY_PATH=$lib
# gid NETDEV (here or there): the index of uroce0's v4-mapped GID
gid() {
    local r=() hex
    [ "$1" = vb ] && r=(there)
    hex=$(printf '0a4d00%02x' "$2")
    "${r[@]}" env SOFTVERBS_UROCE="$1" ibv_devinfo -v -d uroce0 2> /dev/null |
        sed -n "s/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::ffff:10.77.0.$2.*/\1/p; s/.*GID\[ *\([0-9]*\)\]:[[:space:]]*0000:0000:0000:0000:0000:ffff:${hex:0:4}:${hex:4:4}.*/\1/p" | head -n 1
}
gs=$(gid vb 2) gc=$(gid va 1)
[ -n "$gs" ] && [ -n "$gc" ] || fail "no v4-mapped GID on uroce0 (server: '$gs', client: '$gc')"
echo "note: uroce0's GID of ::ffff:10.77.0.2 over vb is index $gs, of ::ffff:10.77.0.1 over va $gc"
# case NAME PATTERN PROGRAM [ARG...]: the server over vb, the client over
# va; both exit 0 and print PATTERN. The GID flag is perftest's -x or the
# pingpongs' -g.
case_() {
    local name=$1 pat=$2 prog=$3 gf=-g port=$((20000 + RANDOM % 20000)) ok=0 srv cli
    shift 3
    case $prog in ib_*) gf=-x ;; esac
    there env SOFTVERBS_UROCE=vb timeout 60 "$prog" -d uroce0 $gf "$gs" "$@" -p $port > "$work/srv" 2>&1 &
    srv=$!
    for try in $(seq 50); do
        sleep 0.2
        SOFTVERBS_UROCE=va timeout 60 "$prog" -d uroce0 $gf "$gc" "$@" -p $port 10.77.0.2 > "$work/cli" 2>&1 && break
        grep -qi "couldn't connect\|unable to connect" "$work/cli" || break
    done
    cli=$?
    wait $srv && [ $cli = 0 ] && grep -q "$pat" "$work/srv" && grep -q "$pat" "$work/cli" && ok=1
    if [ $ok = 1 ]; then echo "PASS: $name"; else
        echo "FAIL: $name"; echo "--- server"; tail -n 8 "$work/srv"; echo "--- client"; tail -n 8 "$work/cli"
    fi
}
case_ "ibv_rc_pingpong -c, 4 KiB, 200 messages" "iters in" ibv_rc_pingpong -c -n 200
case_ "ibv_rc_pingpong -c, 64 KiB, 50 messages" "iters in" ibv_rc_pingpong -c -s 65536 -n 50
case_ "ibv_uc_pingpong -c, 1 KiB, 200 messages" "iters in" ibv_uc_pingpong -c -s 1024 -n 200
case_ "ibv_ud_pingpong -c, 200 messages" "iters in" ibv_ud_pingpong -c -s 512 -n 200
case_ "ibv_srq_pingpong -c, 16 QPs, 100 messages" "iters in" ibv_srq_pingpong -c -n 100
case_ "ib_send_bw, 64 KiB, 200 iterations" "^ *65536 " ib_send_bw -s 65536 -n 200 -F
case_ "ib_write_bw, 64 KiB, 200 iterations" "^ *65536 " ib_write_bw -s 65536 -n 200 -F
case_ "ib_read_bw, 64 KiB, 200 iterations" "^ *65536 " ib_read_bw -s 65536 -n 200 -F
case_ "ib_atomic_bw, 500 iterations" "^ *8 " ib_atomic_bw -n 500 -F
case_ "ib_write_lat, 8 B, 500 iterations" "^ *8 " ib_write_lat -s 8 -n 500 -F
EOS
chmod -R a+rX "$work"
chmod a+rwx "$work"
uroce_drop_root
(cd / && "${drop[@]}" unshare -Urn true) > "$work/probe" 2>&1 ||
    skip "$who cannot make a user namespace here: $(tail -n 1 "$work/probe")"
# uroce_init's environment but its device on lo: each side names its own
env=()
for c in "${conf[@]}"; do [ "$c" = SOFTVERBS_UROCE=lo ] || env+=("$c"); done
out=$(cd / && "${drop[@]}" unshare -Urn env -u XDG_RUNTIME_DIR "${env[@]}" \
    bash "$box/in.sh" "$box" "$work" 2>&1)
grep -q '^NOVETH' <<< "$out" && skip "no veth pair here: $(sed -n 's/^NOVETH: //p' <<< "$out")"
printf '%s\n' "$out" | sed 's/^\(PASS\|FAIL\): /\1: '"$who"' over veth: /'
pass=$(grep -c '^PASS: ' <<< "$out")
fail=$(grep -c '^\(FAIL\|SETUP\): ' <<< "$out")
echo "test_uroce_veth: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
