#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_unshare.sh -- RDMA in a container with no
# privileges at all (issue 39): inside `unshare -Urn` (a user namespace
# and a network namespace of its own, nothing in it but lo), with only
# `ip link set lo up` and SOFTVERBS_UROCE=lo,
#
#  - Debian's ibv_devinfo lists uroce0, its port ACTIVE;
#  - ibv_rc_pingpong -c (every message checked) passes between two
#    processes;
#  - perftest's ib_write_bw passes between two processes;
#  - fork-torture passes (every way of forking, fork safety on; the whole
#    matrix is test_uroce_fork.sh's, outside a namespace).
#
# Run as root, every step runs as nobody (setpriv) before it unshares, so
# that the namespace is an unprivileged user's: its library and programs
# are copies nobody can read. Not as root, it runs as the caller. Needs
# ibverbs-utils, perftest, unshare and ip (util-linux, iproute2), and a
# kernel that lets users make user namespaces; exits 77 naming what is
# missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
. "$(dirname "$0")/uroce_lib.sh"
uroce_init test_uroce_unshare perftest ibv_devinfo ibv_rc_pingpong ib_write_bw
for p in unshare ip; do
    command -v $p > /dev/null || skip "$p missing (apt-get install util-linux iproute2)"
done
torture=$top/examples/.libs/fork-torture
[ -x "$torture" ] || torture=$top/examples/fork-torture
[ -x "$torture" ] || skip "$torture is not built (make)"

# what runs in the namespace: lo up, then the command, with the library
# and the device from the environment ($conf) and nothing else
box=$work/box
mkdir "$box" && cp -a "$libdir"/libibverbs.so* "$box"/ && cp "$torture" "$box/fork-torture"
lib=$box
cat > "$box/in.sh" << 'EOS'
ip link set lo up || { echo "in the namespace: ip link set lo up failed"; exit 1; }
exec "$@"
EOS
chmod -R a+rX "$work"
chmod a+rwx "$work"
uroce_drop_root
# box CMD...: CMD in a fresh user and network namespace, as $who
box() {
    (cd / && "${drop[@]}" unshare -Urn env -u XDG_RUNTIME_DIR \
        LD_LIBRARY_PATH="$lib" "${conf[@]}" bash "$box/in.sh" "$@")
}
box true > "$work/probe" 2>&1 ||
    skip "$who cannot make a user namespace here: $(tail -n 1 "$work/probe")"

# ibv_devinfo lists uroce0, its port ACTIVE
out=$(box ibv_devinfo -d uroce0 2>&1); rc=$?
ok=0
[ $rc = 0 ] && grep -q 'hca_id:[[:space:]]*uroce0' <<< "$out" &&
    grep -q 'state:[[:space:]]*PORT_ACTIVE' <<< "$out" && ok=1
result "$who in unshare -Urn: ibv_devinfo lists uroce0, PORT_ACTIVE" $ok
[ $ok = 1 ] || printf '%s\n' "$out" | tail -n 8

# pair NAME DONE-PATTERN PROGRAM [ARG...]: a server and a client in one
# namespace; both exit 0 and both print DONE-PATTERN
cat > "$box/pair.sh" << 'EOS'
pat=$1 out=$2; shift 2
port=$((20000 + RANDOM % 20000))
"$@" -p $port > "$out.srv" 2>&1 &
srv=$!
for try in $(seq 50); do
    sleep 0.2
    "$@" -p $port 127.0.0.1 > "$out.cli" 2>&1 && break
    grep -qi "couldn't connect\|unable to connect" "$out.cli" || break
done
cli=$?
wait $srv || exit 1
[ $cli = 0 ] && grep -q "$pat" "$out.srv" && grep -q "$pat" "$out.cli"
EOS
chmod a+r "$box/pair.sh"
pair() {
    local name=$1 pat=$2 ok=0
    shift 2
    box timeout 120 bash "$box/pair.sh" "$pat" "$work/pair" "$@" && ok=1
    result "$who in unshare -Urn: $name" $ok
    [ $ok = 1 ] || { echo "--- server"; tail -n 8 "$work/pair.srv"; echo "--- client"; tail -n 8 "$work/pair.cli"; }
    rm -f "$work"/pair.*
}
pair "ibv_rc_pingpong -c, 100 messages" "iters in" \
    ibv_rc_pingpong -d uroce0 -g 1 -c -n 100
pair "ib_write_bw, 64 KiB, 200 iterations" "^ *65536 " \
    ib_write_bw -d uroce0 -x 1 -s 65536 -n 200 -F

# fork-torture: every way of forking, fork safety on, every byte checked
out=$(box env RXE_DEV=uroce0 RXE_GID=1 timeout 120 "$box/fork-torture" --rounds 1 --fork-safe on 2>&1)
rc=$?
ok=0
[ $rc = 0 ] && grep -q '^OK: every byte' <<< "$out" && grep -q 'softverbs library' <<< "$out" && ok=1
result "$who in unshare -Urn: fork-torture, every way, fork safety on" $ok
[ $ok = 1 ] || printf '%s\n' "exit $rc" "$out" | tail -n 10

echo "test_uroce_unshare: $pass passed, $fail failed"
[ $fail = 0 ]
