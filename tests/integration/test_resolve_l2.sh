#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_resolve_l2.sh -- ibv_resolve_eth_l2_from_gid (what
# rdma-core's hardware providers, libvmw_pvrdma among them, call for every
# RoCE address handle) answers the same on softverbs as on rdma-core: a
# permanent neighbour on the device's netdev, one only reachable through a
# gateway, a link-local GID (the MAC is inside), IPv4 and IPv6 multicast
# GIDs, and an address nobody answers (an error on both). Runs in the test
# VM (rxe0 on the dummy d0). (rdma_rxe refuses VLAN netdevs with EPERM, so
# the VLAN id is not exercised here.)
set -u
. "$(dirname "$0")/lib.sh"
sv_init test_resolve_l2 "$@"
sv_need_dev RXE_DEV
prog=${top_builddir:-.}/tests/integration/resolve_l2
[ -x "$prog" ] || skip "$prog is not built (make check)"
netdev=${RXE_NETDEV:-}
[ -n "$netdev" ] && [ "$netdev" != lo ] || skip "rxe0 must sit on a netdev with an address (--netdev dummy)"
[ "$(id -u)" = 0 ] || skip "needs root (ip neigh, ip link)"

cleanup_net() {
    ip neigh del 198.18.0.77 dev "$netdev" 2> /dev/null
    ip neigh del 198.18.0.88 dev "$netdev" 2> /dev/null
    ip route del 198.51.100.0/24 2> /dev/null
}
trap 'cleanup_net; rm -rf "$work"' EXIT
ip neigh replace 198.18.0.77 lladdr 02:11:22:33:44:55 dev "$netdev" nud permanent
ip neigh replace 198.18.0.88 lladdr 02:66:77:88:99:aa dev "$netdev" nud permanent
ip route replace 198.51.100.0/24 via 198.18.0.88 dev "$netdev"

gids=(::ffff:198.18.0.77 ::ffff:198.51.100.5 fe80::11:22ff:fe33:4455
      ::ffff:224.1.2.3 ff02::1:ff33:4455 ::ffff:198.18.0.99)
run() { # LIB DEV GIDS...: the answers
    local lib=$1 dev=$2
    shift 2
    sv_env "$lib"
    env "${SV_ENV[@]}" timeout 30 "$prog" "$dev" 1 "$@" > "$work/$lib.$dev" 2>&1
    echo "exit $?" >> "$work/$lib.$dev"
}
check() { # DEV GIDS...
    local dev=$1 ok=0
    run rc "$@"
    run sv "$@"
    if cmp -s "$work/rc.$dev" "$work/sv.$dev" && sv_maps_check "$dev"; then
        ok=1
    fi
    sv_result "ibv_resolve_eth_l2_from_gid on $dev as on rdma-core ($(grep -c : "$work/rc.$dev") GIDs)" $ok
    sed 's/^/    /' "$work/sv.$dev"
    [ $ok = 1 ] || diff -u "$work/rc.$dev" "$work/sv.$dev"
}
check "$RXE_DEV" "${gids[@]}"
sv_finish
