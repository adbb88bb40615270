# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# softverbs rxe: create, remove and list Soft-RoCE devices.
# Part of the softverbs command: make puts it into tools/softverbs where
# tools/softverbs.in includes it (#@include). POSIX sh.

# ---- rxe ----------------------------------------------------------------------

need_rdma_tool() {
    rdma_tool || die "the 'rdma' tool is missing (apt-get install iproute2)"
}

rxe_devices() { # the Soft-RoCE devices, one per line: NAME NETDEV
    local d drv nd
    for d in /sys/class/infiniband/*; do
        [ -e "$d" ] || continue
        d=${d##*/}
        kdriver drv "$d"
        [ "$drv" = rxe ] || continue
        netdev_of nd "$d"
        echo "$d $nd"
    done
}

cmd_rxe() {
    local sub="${1:-list}"
    [ $# -gt 0 ] && shift
    case "$sub" in
        add) rxe_add "$@" ;;
        del|delete|rm) rxe_del "$@" ;;
        list|show) [ $# = 0 ] || die "rxe list: no arguments"; rxe_devices ;;
        -h|--help) usage ;;
        *) msg "rxe: unknown command '$sub' (add, del, list)"; exit 2 ;;
    esac
}

load_rxe() {
    local err kernel
    [ -d /sys/module/rdma_rxe ] && return 0
    err=$(modprobe rdma_rxe 2>&1) && return 0
    if ! modprobe -n -q rdma_rxe 2> /dev/null; then
        kernel_release kernel
        die "this kernel ($kernel) has no Soft-RoCE: module rdma_rxe not found. Boot a kernel built with CONFIG_RDMA_RXE (Debian's linux-image-amd64 is), or use soft-iWARP (siw) where the kernel has it."
    fi
    is_root || die "loading rdma_rxe needs root: sudo softverbs rxe add ..."
    die "modprobe rdma_rxe failed: $err"
}

rxe_add() {
    local nd="${1:-}" name="${2:-}" i err uv existing state
    if [ -z "$nd" ] || [ $# -gt 2 ]; then msg "usage: softverbs rxe add NETDEV [NAME]"; exit 2; fi
    [ -e "/sys/class/net/$nd" ] || die "no network interface '$nd' (ip link show lists them)"
    need_rdma_tool
    load_rxe
    if existing=$(rxe_devices | awk -v n="$nd" '$2 == n { print $1 }') && [ -n "$existing" ]; then
        die "$nd already has a Soft-RoCE device: $existing"
    fi
    if [ -z "$name" ]; then
        i=0
        while [ -e "/sys/class/infiniband/rxe$i" ]; do i=$((i + 1)); done
        name=rxe$i
    elif [ -e "/sys/class/infiniband/$name" ]; then
        die "an RDMA device named $name exists already"
    fi
    if ! err=$(rdma link add "$name" type rxe netdev "$nd" 2>&1); then
        is_root || die "rdma link add $name type rxe netdev $nd: $err (needs root: sudo softverbs rxe add $nd)"
        die "rdma link add $name type rxe netdev $nd: $err"
    fi
    # The uverbs character device appears asynchronously (udev, devtmpfs).
    i=0
    while :; do
        uverbs_of uv "$name" && [ -c "/dev/infiniband/$uv" ] && break
        i=$((i + 1))
        [ $i -ge 100 ] && die "$name was created but no /dev/infiniband/uverbs* appeared for it (is ib_uverbs loaded?)"
        sleep 0.05
    done
    echo "$name: Soft-RoCE on $nd, /dev/infiniband/$uv"
    rd state "/sys/class/net/$nd/operstate"
    [ "$state" = down ] &&
        msg "warning: $nd is down, so is $name's port: ip link set $nd up"
    return 0
}

rxe_del() {
    local name="${1:-}" err drv
    if [ -z "$name" ] || [ $# != 1 ]; then msg "usage: softverbs rxe del NAME"; exit 2; fi
    [ -e "/sys/class/infiniband/$name" ] || die "no RDMA device named $name"
    kdriver drv "$name"
    [ "$drv" = rxe ] || die "$name is not a Soft-RoCE device (driver $drv)"
    need_rdma_tool
    if ! err=$(rdma link delete "$name" 2>&1); then
        is_root || die "rdma link delete $name: $err (needs root)"
        die "rdma link delete $name: $err"
    fi
    echo "$name removed"
}
