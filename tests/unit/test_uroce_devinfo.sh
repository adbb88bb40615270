#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_devinfo.sh -- uroce's device without a kernel, as
# Debian's own tools see it, on the host (no VM, no RDMA in the kernel):
#
#  - without SOFTVERBS_UROCE, ibv_devinfo and ibv_devices list nothing
#    more than before (on a host without RDMA: nothing at all);
#  - with SOFTVERBS_UROCE=lo, ibv_devinfo lists uroce0 with transport
#    InfiniBand, link layer Ethernet, PORT_ACTIVE; ibv_devinfo -v -d
#    uroce0 shows the active MTU rxe derives from lo's MTU and the GIDs
#    rxe builds on lo (fe80::200:ff:fe00:0, ::ffff:127.0.0.1, ::1), RoCE
#    v2; ibv_devices shows its node GUID (lo's MAC as an EUI-64);
#  - an unknown interface gives one clear line on stderr and no device;
#    a name that is none arrives escaped, on one line;
#  - a program that dlopens "libibverbs.so" (NCCL's way) gets this build's
#    library from LD_LIBRARY_PATH and lists uroce0;
#  - all of it the same as nobody (the library copied to a folder nobody
#    can read: the build may sit in root's home, mode 700).
#
# Needs ibverbs-utils (Debian's ibv_devinfo, ibv_devices); nobody's runs
# need root and setpriv (util-linux), the dlopen case python3 (each left
# out, said, without them). Exits 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
top=${top_builddir:-$(pwd)}
libdir=$top/lib/.libs
skip() { echo "SKIP: $*"; exit 77; }

command -v ibv_devinfo > /dev/null && command -v ibv_devices > /dev/null ||
    skip "ibv_devinfo/ibv_devices missing (apt-get install ibverbs-utils)"
[ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"
[ -e /sys/class/net/lo ] || skip "no lo in this network namespace"
[ -e /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband 2> /dev/null)" ] &&
    skip "this host has RDMA devices; uroce0 would not be the only one (the checks count devices)"

work=$(mktemp -d /tmp/test_uroce_devinfo.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
result() { # NAME OK
    if [ "$2" = 1 ]; then echo "PASS: $1"; pass=$((pass + 1));
    else echo "FAIL: $1"; fail=$((fail + 1)); fi
}

# what rxe would show on lo: the active MTU from lo's MTU less rxe's 80
# bytes of headers, and ::1 when lo has IPv6
mtu=$(cat /sys/class/net/lo/mtu)
room=$((mtu - 80))
if [ $room -ge 4096 ]; then amtu="4096 (5)"; elif [ $room -ge 2048 ]; then amtu="2048 (4)"
elif [ $room -ge 1024 ]; then amtu="1024 (3)"; elif [ $room -ge 512 ]; then amtu="512 (2)"
else amtu="256 (1)"; fi
lo6=0
grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2> /dev/null && lo6=1

# the library where its runner can read it (nobody: a copy it can reach);
# no uroce.conf of the host's or the user's (softverbs link) in the way
lib=$libdir
mkdir "$work/etc" "$work/config"
conf=(SOFTVERBS_SYSCONFDIR="$work/etc" XDG_CONFIG_HOME="$work/config")
# a library built with ASan needs its runtime first in Debian's programs
asan=$(ldd "$libdir/libibverbs.so.1" | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && conf+=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0)
# run [ENV=VALUE...] PROGRAM [ARG...]: $out (stdout, blanks squeezed),
# $err (stderr), $rc
run() {
    env LD_LIBRARY_PATH="$lib" "${conf[@]}" "$@" > "$work/out" 2> "$work/err"
    rc=$?
    out=$(tr -s '\t ' '  ' < "$work/out")
    err=$(cat "$work/err")
}
has() { grep -qF -- "$2" <<< "$1"; }
# a program that loads the library by the name without a version, lists
# the devices and says which file it loaded
# (the one case that needs Python; without it that case is left out, said)
py=/usr/bin/python3
[ -x $py ] || py=$(command -v python3) || py=
dlopen_py='import ctypes
l = ctypes.CDLL("libibverbs.so")
l.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
l.ibv_get_device_name.restype = ctypes.c_char_p
l.ibv_get_device_name.argtypes = [ctypes.c_void_p]
n = ctypes.c_int(0)
devs = l.ibv_get_device_list(ctypes.byref(n))
print("devices:", " ".join(l.ibv_get_device_name(devs[i]).decode() for i in range(n.value)))
for line in open("/proc/self/maps"):
    if "/libibverbs.so" in line:
        print("loaded:", line.split()[-1])
        break'

suite() { # WHO
    local who=$1 ok

    run -u SOFTVERBS_UROCE ibv_devinfo
    ok=1; has "$out" uroce && ok=0
    result "$who: ibv_devinfo without SOFTVERBS_UROCE lists no uroce device" $ok
    run -u SOFTVERBS_UROCE ibv_devices
    ok=1; has "$out" uroce && ok=0
    result "$who: ibv_devices without SOFTVERBS_UROCE lists no uroce device" $ok

    run SOFTVERBS_UROCE=lo ibv_devinfo
    ok=0
    [ $rc = 0 ] && has "$out" "hca_id: uroce0" &&
        has "$out" "transport: InfiniBand (0)" &&
        has "$out" "node_guid: 0200:00ff:fe00:0000" &&
        has "$out" "state: PORT_ACTIVE (4)" &&
        has "$out" "link_layer: Ethernet" &&
        [ "$(grep -c hca_id <<< "$out")" = 1 ] && [ -z "$err" ] && ok=1
    result "$who: SOFTVERBS_UROCE=lo: ibv_devinfo lists uroce0 alone, InfiniBand, Ethernet, PORT_ACTIVE, nothing on stderr" $ok
    [ $ok = 1 ] || { echo "rc $rc"; cat "$work/out" "$work/err"; }

    run SOFTVERBS_UROCE=lo ibv_devinfo -v -d uroce0
    ok=0
    [ $rc = 0 ] && has "$out" "active_mtu: $amtu" &&
        has "$out" "max_mtu: 4096 (5)" &&
        has "$out" "gid_tbl_len: 1024" &&
        has "$out" "GID[ 0]: fe80::200:ff:fe00:0, RoCE v2" &&
        has "$out" "GID[ 1]: ::ffff:127.0.0.1, RoCE v2" &&
        { [ $lo6 = 0 ] || has "$out" "GID[ 2]: ::1, RoCE v2"; } &&
        has "$out" "max_qp_wr: 1048576" &&
        has "$out" "phys_state: LINK_UP (5)" && ok=1
    result "$who: ibv_devinfo -v -d uroce0: active_mtu $amtu (lo's MTU $mtu), GIDs fe80::200:ff:fe00:0, ::ffff:127.0.0.1$([ $lo6 = 1 ] && echo ", ::1") RoCE v2" $ok
    [ $ok = 1 ] || { echo "rc $rc"; cat "$work/out" "$work/err"; }

    run SOFTVERBS_UROCE=lo ibv_devices
    ok=0
    [ $rc = 0 ] && has "$out" " uroce0 020000fffe000000" && ok=1
    result "$who: ibv_devices shows uroce0 with lo's EUI-64 node GUID" $ok

    # dlopen("libibverbs.so"), the name NCCL and RCCL try first: the
    # library of LD_LIBRARY_PATH's folder (softverbs run's), and its device
    if [ -n "$py" ]; then
        run SOFTVERBS_UROCE=lo "$py" -c "$dlopen_py"
        ok=0
        [ $rc = 0 ] && has "$out" "devices: uroce0" && has "$out" "loaded: $(readlink -f "$lib")/libibverbs.so" && ok=1
        result "$who: dlopen(\"libibverbs.so\") (Python's ctypes, as NCCL loads it): this build, uroce0 listed" $ok
        [ $ok = 1 ] || { echo "rc $rc"; cat "$work/out" "$work/err"; }
    else
        echo "note: $who: the dlopen(\"libibverbs.so\") case is left out: no python3 (apt-get install python3)"
    fi

    run SOFTVERBS_UROCE=nosuchif0 ibv_devinfo
    ok=0
    ! has "$out" uroce &&
        has "$err" "SOFTVERBS_UROCE: network interface nosuchif0: no such interface here; no uroce0" &&
        [ "$(grep -c "^softverbs\[" "$work/err")" = 1 ] && ok=1
    result "$who: SOFTVERBS_UROCE=nosuchif0: no device, one line naming the interface" $ok
    [ $ok = 1 ] || cat "$work/out" "$work/err"

    run SOFTVERBS_UROCE=nosuchif0,lo ibv_devices
    ok=0
    has "$out" " uroce1 020000fffe000000" && ! has "$out" "uroce0" &&
        has "$err" "nosuchif0: no such interface here; no uroce0" && ok=1
    result "$who: SOFTVERBS_UROCE=nosuchif0,lo: uroce1 on lo, its place kept; the error said" $ok

    run SOFTVERBS_UROCE=$'lo\nsoftverbs[1] W forged: x' ibv_devices
    ok=0
    ! has "$out" uroce && [ "$(grep -c "^softverbs\[" "$work/err")" = 1 ] &&
        has "$err" 'item 1 ("lo\nsoftverbs[1] W forged: x") is no interface name; no uroce0' && ok=1
    result "$who: a value that is no interface name: no device, said escaped on one line" $ok
    [ $ok = 1 ] || cat "$work/out" "$work/err"
}

suite "$(id -un)"

if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    nob=$work/nobody
    mkdir "$nob" && cp -a "$libdir"/libibverbs.so* "$nob"/ && chmod -R a+rX "$work"
    lib=$nob
    run() {
        (cd / && env LD_LIBRARY_PATH="$lib" "${conf[@]}" setpriv --reuid=nobody --regid=nogroup \
             --clear-groups -- env "$@") > "$work/out" 2> "$work/err"
        rc=$?
        out=$(tr -s '\t ' '  ' < "$work/out")
        err=$(cat "$work/err")
    }
    suite nobody
else
    echo "note: not root or no setpriv: the runs as nobody are left out"
fi

echo "test_uroce_devinfo: $pass passed, $fail failed"
[ $fail = 0 ]
