#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_hca_fake.sh -- rdma-core's hardware providers on
# softverbs' core, on the host: a fake sysfs tree (SYSFS_PATH) with one
# device of every PCI kind Debian's providers match: mlx5 (ConnectX-5,
# 15b3:1017), mlx4, efa, bnxt_re, irdma, hns, qedr, mana, vmw_pvrdma,
# cxgb4, erdma, hfi1, qib, mthca and ocrdma (rxe and siw, matched by name,
# are the VM's), and fake character devices in a private mount namespace
# (/dev/infiniband exists only there). Run on Debian 12 (rdma-core 44) and,
# by tests/vm/check-debian13, in the Debian 13 root (rdma-core 56.1), and in
# the unstable root (rdma-core 65).
#
#  - Debian's ibv_devices prints exactly the same on softverbs as on
#    rdma-core (same devices, same order, same GUIDs; mana matches only by
#    the kernel's driver id, which sysfs does not give: both leave it out);
#  - SOFTVERBS_LOG=debug names the rdma-core library that drives each;
#  - ibv_open_device of a device whose character device vanished fails
#    with an errno and a log line naming the character device;
#  - 1,000 listings on softverbs leak nothing (valgrind memcheck; in a
#    build with ASan, whose runtime valgrind cannot host, LeakSanitizer);
#  - a provider library that does not load (RDMAV_DRIVERS naming a broken
#    one) is said only when a device is left without a provider: not
#    with mlx5_0 alone (libmlx5 drives it), once with mana_0 beside it
#    (no provider matches it by PCI id).
#
# Needs root (mknod, unshare -m), util-linux, ibverbs-utils,
# ibverbs-providers and valgrind; exits 77 naming what is missing. The
# host must have no RDMA netlink devices (both libraries ask netlink
# first): 77 otherwise.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
top=${top_builddir:-$(pwd)}
libdir=$top/lib/.libs
lister=$top/tests/unit/hca_list
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root (mknod, unshare -m)"
command -v unshare > /dev/null || skip "unshare missing (apt-get install util-linux)"
command -v ibv_devices > /dev/null || skip "ibv_devices missing (apt-get install ibverbs-utils)"
command -v valgrind > /dev/null || skip "valgrind missing (apt-get install valgrind)"
# lib<name>-rdmav<N>.so: N is the node of the installed rdma-core (34, 65)
compgen -G '/usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav*.so' > /dev/null ||
    skip "rdma-core's providers missing (apt-get install ibverbs-providers)"
[ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"
[ -x "$lister" ] || skip "$lister is not built (make check)"
if [ "${1:-}" != --in-namespace ]; then
    [ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband 2> /dev/null)" ] &&
        skip "this host has RDMA devices; netlink would list them beside the fake tree"
    exec unshare -m -- "$0" --in-namespace
fi

work=$(mktemp -d /tmp/hca_fake.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
sys=$work/sys
pass=0 fail=0
result() { # NAME OK
    if [ "$2" = 1 ]; then echo "PASS: $1"; pass=$((pass + 1));
    else echo "FAIL: $1"; fail=$((fail + 1)); fi
}

# ---- the fake tree: IB device name, PCI modalias, uverbs ABI, node GUID
mkdir -p "$sys/class/infiniband_verbs" "$sys/class/infiniband" "$work/dev/infiniband"
echo 6 > "$sys/class/infiniband_verbs/abi_version"
i=0
while read -r ibdev alias abi guid; do
    uv=$sys/class/infiniband_verbs/uverbs$i
    slot=$(printf %02x $i)
    pdev=$sys/devices/pci0000:00/0000:00:$slot.0
    d=$sys/class/infiniband/$ibdev
    mkdir -p "$uv" "$pdev" "$d/ports/1"
    echo "$ibdev" > "$uv/ibdev"
    echo "$abi" > "$uv/abi_version"
    echo "231:$((192 + i))" > "$uv/dev"
    echo "$alias" > "$pdev/modalias"
    ln -s "../../../devices/pci0000:00/0000:00:$slot.0" "$d/device"
    echo "1: CA" > "$d/node_type"
    echo "$guid" > "$d/node_guid"
    mknod "$work/dev/infiniband/uverbs$i" c 231 $((192 + i))
    i=$((i + 1))
done << 'EOF'
mlx5_0 pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00 1 0c42:a103:0065:8bd0
mlx4_0 pci:v000015B3d00001003sv000015B3sd00000006bc02sc80i00 4 0002:c903:0010:92e0
efa_0 pci:v00001D0Fd0000EFA0sv00000000sd00000000bc02sc00i00 1 0000:0000:0000:0001
bnxt_re0 pci:v000014E4d000016D7sv000014E4sd00001402bc02sc00i00 1 b226:28ff:fe4e:0001
irdma0 pci:v00008086d00001592sv00008086sd00000002bc02sc00i00 5 b496:91ff:fe2f:0002
hns_0 pci:v000019E5d0000A222sv000019E5sd00000000bc02sc00i00 1 0000:0000:0000:0003
qedr0 pci:v00001077d00008070sv00001077sd00000000bc02sc00i00 8 0000:0000:0000:0004
mana_0 pci:v00001414d000000BAsv00000000sd00000000bc02sc00i00 1 0000:0000:0000:0005
vmw_pvrdma0 pci:v000015ADd00000820sv000015ADsd00000820bc02sc07i00 3 0000:0000:0000:0006
cxgb4_0 pci:v00001425d00005401sv00001425sd00000000bc02sc00i00 1 0007:4300:0000:0007
erdma_0 pci:v00001DEDd0000107Fsv00001DEDsd00000000bc02sc00i00 1 0000:0000:0000:0008
hfi1_0 pci:v00008086d000024F0sv00008086sd00000000bc0Csc06i00 1 0011:7501:0000:0009
qib0 pci:v00001077d00007322sv00001077sd00000000bc0Csc06i00 1 0011:7500:0000:000a
mthca0 pci:v000015B3d00006282sv000015B3sd00000000bc0Csc06i00 1 0002:c902:0000:000b
ocrdma0 pci:v000010DFd00000720sv000010DFsd00000000bc02sc00i00 2 0000:0000:0000:000c
EOF
# In this namespace only, /dev is a copy of the few nodes the programs
# need plus the fake /dev/infiniband: the host's /dev is not touched.
for n in null zero random urandom; do
    cp -a "/dev/$n" "$work/dev/" || skip "cannot copy /dev/$n"
done
mount --bind "$work/dev" /dev ||
    skip "cannot bind a fake /dev in a private mount namespace"

# A library built with ASan needs its runtime first in Debian's programs.
asan=$(ldd "$libdir/libibverbs.so.1" | awk '/libasan/ { print $3 }')
# (the kernel's devices only: none of the uroce devices a developer keeps)
sv_env=(SYSFS_PATH="$sys" LD_LIBRARY_PATH="$libdir" SOFTVERBS_UROCE=
        XDG_CONFIG_HOME="$work/none" SOFTVERBS_SYSCONFDIR="$work/none")
[ -n "$asan" ] && sv_env+=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0)

# ---- ibv_devices, both libraries
SYSFS_PATH=$sys ibv_devices > "$work/rc" 2>&1
echo "exit $?" >> "$work/rc"
env "${sv_env[@]}" SOFTVERBS_LOG=debug \
    SOFTVERBS_LOG_FILE="$work/log" ibv_devices > "$work/sv" 2>&1
echo "exit $?" >> "$work/sv"
ok=0
cmp -s "$work/rc" "$work/sv" && [ "$(wc -l < "$work/rc")" -ge 10 ] && ok=1
result "ibv_devices on the fake tree prints the same as rdma-core ($(($(wc -l < "$work/rc") - 3)) devices)" $ok
[ $ok = 1 ] || diff -u "$work/rc" "$work/sv"

# ---- the log names the library of each device
for p in mlx5:mlx5_0 mlx4:mlx4_0 efa:efa_0 bnxt_re:bnxt_re0 irdma:irdma0 \
    hns:hns_0 qedr:qedr0 vmw_pvrdma:vmw_pvrdma0 cxgb4:cxgb4_0 erdma:erdma_0 \
    hfi1verbs:hfi1_0 ipathverbs:qib0 mthca:mthca0 ocrdma:ocrdma0; do
    lib=${p%%:*} dev=${p#*:}
    [ "$lib" = vmw_pvrdma ] && prov=pvrdma || prov=$lib
    ok=0
    grep -q "$dev (uverbs[0-9]*): driven by rdma-core's $prov provider" "$work/log" && ok=1
    result "debug log: $dev driven by rdma-core's $prov provider" $ok
done
ok=0
grep -q "mana_0 (uverbs7): no provider" "$work/log" && ok=1
result "debug log: mana_0 (matched only by driver id) has no provider here" $ok

# ---- opening a device whose character device vanished
out=$(SYSFS_PATH=$sys LD_LIBRARY_PATH=$libdir SOFTVERBS_LOG=error \
    SOFTVERBS_LOG_FILE=$work/openlog "$lister" open mlx5_0 2>&1)
ok=0
[ "$out" = "errno 2" ] && grep -q "mlx5_0: cannot open its character device /dev/infiniband/uverbs0" "$work/openlog" && ok=1
result "ibv_open_device without its character device: ENOENT, logged with the path" $ok
[ $ok = 1 ] || { echo "$out"; cat "$work/openlog"; }
mknod "$work/dev/infiniband/uverbs0" c 231 192

# ---- 1,000 listings, no leak
ok=0
if [ -n "$asan" ]; then
    SYSFS_PATH=$sys LD_LIBRARY_PATH=$libdir ASAN_OPTIONS=detect_leaks=1 \
        "$lister" loop 1000 > "$work/vg" 2>&1 && ok=1
    how=LeakSanitizer
else
    SYSFS_PATH=$sys LD_LIBRARY_PATH=$libdir valgrind -q --error-exitcode=9 \
        --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$lister" loop 1000 > "$work/vg" 2>&1 && ok=1
    how=valgrind
fi
result "1,000 listings and frees of $(($(wc -l < "$work/rc") - 3)) HCAs: no leak ($how)" $ok
[ $ok = 1 ] || tail -n 30 "$work/vg"

# ---- load failures: said only when a present device is left without one
broken=$work/broken
mkdir -p "$broken"
echo "not an ELF file" > "$broken/libbroken-rdmav34.so"
one=$work/sys-one
mkdir -p "$one/class/infiniband_verbs" "$one/class/infiniband" "$one/devices/pci0000:00"
cp "$sys/class/infiniband_verbs/abi_version" "$one/class/infiniband_verbs/"
cp -a "$sys/class/infiniband_verbs/uverbs0" "$one/class/infiniband_verbs/"
cp -a "$sys/class/infiniband/mlx5_0" "$one/class/infiniband/"
cp -a "$sys/devices/pci0000:00/0000:00:00.0" "$one/devices/pci0000:00/"
env "${sv_env[@]}" SYSFS_PATH="$one" RDMAV_DRIVERS="$broken/libbroken" \
    ibv_devices > "$work/one.out" 2> "$work/one.err"
ok=0
grep -q mlx5_0 "$work/one.out" && ! grep -q "libbroken" "$work/one.err" && ok=1
result "a broken provider library, no device without a provider (mlx5_0 only): not a word" $ok
[ $ok = 1 ] || cat "$work/one.out" "$work/one.err"
env "${sv_env[@]}" RDMAV_DRIVERS="$broken/libbroken" \
    ibv_devices > "$work/all.out" 2> "$work/all.err"
ok=0
[ "$(grep -c "W load_provider: could not load provider $broken/libbroken-rdmav34.so: " "$work/all.err")" = 1 ] &&
    grep -q mlx5_0 "$work/all.out" && ok=1
result "the same library with mana_0 present and driven by none: one line naming it" $ok
[ $ok = 1 ] || cat "$work/all.err"

echo "test_hca_fake: $pass passed, $fail failed"
[ $fail = 0 ]
