#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_secure.sh -- a privileged program on softverbs takes
# nothing from its caller's environment (lib/env.h, softverbs(7) SECURITY).
#
# tests/unit/secure_probe (lists the devices, says what it loaded) is
# copied three times, all run by the user nobody: setuid root; setgid to
# a group that may write the "root-owned" folder; with file capabilities
# (cap_dac_override, which could write it, and cap_ipc_lock). Each runs
# with every path-taking variable pointed into that folder (the attack of
# issue 22): SOFTVERBS_LOG=debug, SOFTVERBS_LOG_FILE, rdma-core's
# VERBS_LOG_LEVEL=4 and VERBS_LOG_FILE, SOFTVERBS_PROVIDERS
# with a forged second line, RDMAV_DRIVERS and IBV_DRIVERS naming a
# library whose constructor creates a marker file, SYSFS_PATH naming a
# tree with a device of the caller's, SOFTVERBS_UROCE=lo asking for a
# uroce device, and uroce.conf files of the caller's (softverbs link)
# through XDG_CONFIG_HOME, HOME and SOFTVERBS_SYSCONFDIR, and uroce's
# SOFTVERBS_UROCE_PCAP and SOFTVERBS_UROCE_FAULTS (a privileged program
# has no uroce device from its caller anyway: that it takes neither
# variable for a device of the system's uroce.conf is test_uroce_fault's
# privileged_takes_neither). For each: no file appears, the library is not in its
# maps, neither the caller's device nor uroce0 is listed, the real
# devices are, and one warning names every ignored variable (not HOME
# and XDG_CONFIG_HOME, set in every session). The same program
# unprivileged (a plain copy, run by nobody) honours them all: the log
# file appears (mode 0600), the marker library runs, the caller's
# uroce.conf gives its device, and the forged line arrives escaped, on
# one line.
#
# Host (no RDMA netlink devices): in a private mount namespace a fake
# sysfs tree with one ConnectX (mlx5_0) is bound over /sys, so the
# privileged program does list a device and loads rdma-core's providers
# for it (where an honoured RDMAV_DRIVERS would load the marker). In the
# test VM (rxe0 present): the real devices.
#
# Needs root (chown, setuid, unshare -m), setpriv, setcap (libcap2-bin),
# patchelf; exits 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
top=${top_builddir:-$(pwd)}
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root (setuid copies, unshare -m)"
for t in setpriv setcap getcap patchelf unshare; do
    command -v $t > /dev/null || skip "$t missing (apt-get install util-linux libcap2-bin patchelf)"
done
lib=$(readlink -f "$top/lib/.libs/libibverbs.so.1")
probe=$top/tests/unit/secure_probe
marker=$top/tests/unit/.libs/libsvmarker-rdmav34.so
[ -f "$lib" ] || skip "no softverbs build in $top/lib/.libs"
[ -x "$probe" ] && [ -f "$marker" ] || skip "secure_probe or libsvmarker not built (make check)"
id nobody > /dev/null 2>&1 || skip "no user nobody"

vm=0
[ -n "$(ls /sys/class/infiniband 2> /dev/null)" ] && vm=1
if [ $vm = 0 ] && [ "${1:-}" != --in-namespace ]; then
    exec unshare -m -- "$0" --in-namespace
fi

work=$(mktemp -d /tmp/test_secure.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
pass=0 fail=0
result() { # NAME OK
    if [ "$2" = 1 ]; then echo "PASS: $1"; pass=$((pass + 1));
    else echo "FAIL: $1"; fail=$((fail + 1)); fi
}

# fake_tree DIR IBDEV: a sysfs tree holding one mlx5 device
fake_tree() {
    local s=$1 uv=$1/class/infiniband_verbs/uverbs0 d=$1/class/infiniband/$2
    mkdir -p "$uv" "$d" "$s/devices/pci0000:00/0000:00:01.0"
    echo 6 > "$s/class/infiniband_verbs/abi_version"
    echo "$2" > "$uv/ibdev"
    echo 1 > "$uv/abi_version"
    echo 231:192 > "$uv/dev"
    echo pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00 > "$s/devices/pci0000:00/0000:00:01.0/modalias"
    ln -s ../../../devices/pci0000:00/0000:00:01.0 "$d/device"
    echo "1: CA" > "$d/node_type"
    echo 0c42:a103:0065:8bd0 > "$d/node_guid"
}

# The programs, with softverbs in a folder everyone can read (the build
# folder may not be) and their RUNPATH pointing there: a privileged
# program ignores LD_LIBRARY_PATH.
mkdir -p "$work/lib"
cp "$lib" "$work/lib/libibverbs.so.1"
asan=$(ldd "$lib" | awk '/libasan/ { print $3 }')
for kind in suid sgid cap plain; do
    cp "$probe" "$work/probe-$kind"
    patchelf --set-rpath "$work/lib" "$work/probe-$kind" || skip "patchelf failed"
done
chmod -R a+rX "$work"

# The folder the attack points into: root's, writable by the setgid
# program's group (root's) and by a process with cap_dac_override.
group=$(id -gn nobody)
root_dir=$work/root-owned
mkdir -p "$root_dir"
chown root:root "$root_dir"
chmod 0775 "$root_dir"
cp "$marker" "$root_dir/libsvmarker-rdmav34.so"
chmod 0644 "$root_dir/libsvmarker-rdmav34.so"
# The caller's own folder and sysfs tree.
user_dir=$work/user
mkdir -p "$user_dir"
fake_tree "$user_dir/sys" evil0
mkdir -p "$user_dir/config/softverbs" "$user_dir/home/.config/softverbs" "$user_dir/etc"
echo "uroce7 lo" > "$user_dir/config/softverbs/uroce.conf"
echo "uroce6 lo" > "$user_dir/home/.config/softverbs/uroce.conf"
echo "uroce8 lo" > "$user_dir/etc/uroce.conf"
cp "$marker" "$user_dir/libsvmarker-rdmav34.so"
chown -R nobody "$user_dir"

chown root:root "$work/probe-suid" && chmod 4755 "$work/probe-suid"
chown root:root "$work/probe-sgid" && chmod 2755 "$work/probe-sgid"
chown root:root "$work/probe-cap" && chmod 0755 "$work/probe-cap"
setcap cap_dac_override,cap_ipc_lock+ep "$work/probe-cap" ||
    skip "setcap failed (the file system of $work keeps no capabilities?)"

if [ $vm = 0 ]; then
    # the privileged program's /sys: one ConnectX, and its character
    # device in a /dev of a few nodes (this namespace only)
    fake_tree "$work/sys" mlx5_0
    mkdir -p "$work/dev/infiniband"
    mknod "$work/dev/infiniband/uverbs0" c 231 192
    for n in null zero random urandom; do cp -a "/dev/$n" "$work/dev/" || skip "cannot copy /dev/$n"; done
    chmod -R a+rX "$work/dev" "$work/sys"
    mount --bind "$work/sys" /sys && mount --bind "$work/dev" /dev ||
        skip "cannot bind a fake /sys and /dev in a private mount namespace"
    expect=mlx5_0
    providers=
else
    expect=$(ls /sys/class/infiniband | head -n 1)
    providers=rdma-core # loads rdma-core's libraries for rxe0 (and RDMAV_DRIVERS)
fi

as_nobody() { setpriv --reuid=nobody --regid="$group" --clear-groups -- "$@"; }

# The ASan build's library needs its runtime first; a privileged program
# takes LD_PRELOAD only from the system's folders, where libasan is.
san_env=()
[ -n "$asan" ] && san_env=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0)

forged=$'x\n* * * * * root id'
attack=(SOFTVERBS_LOG=debug SOFTVERBS_LOG_FILE="$root_dir/log"
        VERBS_LOG_LEVEL=4 VERBS_LOG_FILE="$root_dir/vlog"
        SOFTVERBS_PROVIDERS="$forged"
        RDMAV_DRIVERS="$root_dir/libsvmarker" IBV_DRIVERS="$root_dir/libsvmarker"
        SYSFS_PATH="$user_dir/sys" SV_MARKER_FILE="$root_dir/marker"
        SOFTVERBS_UROCE=lo XDG_CONFIG_HOME="$user_dir/config" HOME="$user_dir/home"
        SOFTVERBS_SYSCONFDIR="$user_dir/etc"
        SOFTVERBS_UROCE_PCAP="$root_dir/pcap" SOFTVERBS_UROCE_FAULTS=loss=1)

for kind in suid sgid cap; do
    out=$work/$kind.out err=$work/$kind.err
    as_nobody env "${san_env[@]}" "${attack[@]}" "$work/probe-$kind" > "$out" 2> "$err"
    rc=$?
    ok=0; grep -qx "at_secure 1" "$out" && [ $rc = 0 ] && ok=1
    result "$kind: runs privileged (AT_SECURE) as nobody" $ok
    ok=0; [ ! -e "$root_dir/log" ] && [ ! -e "$root_dir/vlog" ] && [ ! -e "$root_dir/marker" ] &&
        [ ! -e "$root_dir/pcap" ] && ok=1
    result "$kind: no file created (SOFTVERBS_LOG_FILE, VERBS_LOG_FILE, the marker library, SOFTVERBS_UROCE_PCAP)" $ok
    ok=0; grep -q libsvmarker "$out" || ok=1
    result "$kind: RDMAV_DRIVERS/IBV_DRIVERS library not loaded (maps)" $ok
    ok=0; grep -qx "device $expect" "$out" && ! grep -q "device evil0" "$out" && ok=1
    result "$kind: lists $expect from the real sysfs, not the caller's SYSFS_PATH tree" $ok
    ok=0; grep -q "device uroce" "$out" || ok=1
    result "$kind: no uroce device from the caller's SOFTVERBS_UROCE or uroce.conf files (XDG_CONFIG_HOME, HOME, SOFTVERBS_SYSCONFDIR)" $ok
    ok=1
    for v in SOFTVERBS_LOG_FILE VERBS_LOG_FILE SOFTVERBS_PROVIDERS RDMAV_DRIVERS IBV_DRIVERS SYSFS_PATH SOFTVERBS_UROCE SOFTVERBS_SYSCONFDIR SOFTVERBS_UROCE_PCAP SOFTVERBS_UROCE_FAULTS; do
        [ "$(grep -c "AT_SECURE.*ignoring.*$v" "$err")" = 1 ] || ok=0
    done
    grep -q "AT_SECURE.*ignoring.*\(HOME\|XDG_CONFIG_HOME\)" "$err" && ok=0
    result "$kind: one warning names every ignored variable" $ok
    ok=0; grep -q '^\* \* \*' "$err" "$out" || ok=1
    result "$kind: the forged line appears nowhere" $ok
    [ "$fail" = 0 ] || { echo "--- stdout"; cat "$out"; echo "--- stderr (exit $rc)"; grep -v " D " "$err" | tail -n 20; }
    rm -f "$root_dir/log" "$root_dir/vlog" "$root_dir/marker" "$root_dir/pcap"
done

# rdma-core's variables alone, privileged: VERBS_LOG_FILE ignored, named.
for kind in suid cap; do
    err=$work/$kind.verbs.err
    as_nobody env "${san_env[@]}" VERBS_LOG_LEVEL=4 VERBS_LOG_FILE="$root_dir/vlog" \
        "$work/probe-$kind" > /dev/null 2> "$err"
    ok=0
    [ ! -e "$root_dir/vlog" ] && [ "$(grep -c "AT_SECURE.*ignoring VERBS_LOG_FILE;" "$err")" = 1 ] &&
        grep -q " [ID] " "$err" && ok=1
    result "$kind: VERBS_LOG_FILE alone ignored and named; VERBS_LOG_LEVEL=4 logs to stderr" $ok
    [ $ok = 1 ] || grep -v " D " "$err" | tail -n 5
    rm -f "$root_dir/vlog"
done

# The same program, unprivileged: every variable honoured.
out=$work/plain.out
as_nobody env "${san_env[@]}" SOFTVERBS_LOG=debug SOFTVERBS_LOG_FILE="$user_dir/log" \
    ${providers:+SOFTVERBS_PROVIDERS=$providers} RDMAV_DRIVERS="$user_dir/libsvmarker" \
    SYSFS_PATH="$user_dir/sys" SV_MARKER_FILE="$user_dir/marker" \
    XDG_CONFIG_HOME="$user_dir/config" \
    "$work/probe-plain" > "$out" 2> "$work/plain.err"
ok=0
grep -qx "at_secure 0" "$out" && [ -e "$user_dir/marker" ] &&
    grep -q "loaded $user_dir/libsvmarker-rdmav34.so" "$out" && ok=1
result "unprivileged: RDMAV_DRIVERS honoured (the marker library ran)" $ok
ok=0
[ "$(stat -c '%a %U' "$user_dir/log" 2> /dev/null)" = "600 nobody" ] && ok=1
result "unprivileged: SOFTVERBS_LOG_FILE honoured, created 0600" $ok
ok=0; grep -qx "device uroce7" "$out" && ok=1
result "unprivileged: the caller's uroce.conf honoured (XDG_CONFIG_HOME: uroce7)" $ok
if [ $vm = 0 ]; then
    ok=0; grep -qx "device evil0" "$out" && ok=1
    result "unprivileged: SYSFS_PATH honoured (lists the tree's evil0)" $ok
fi
[ "$fail" = 0 ] || { cat "$out" "$work/plain.err"; }

# rdma-core's variables, unprivileged: VERBS_LOG_FILE honoured, %p
# expanded to the program's pid, created 0600.
as_nobody env "${san_env[@]}" VERBS_LOG_LEVEL=4 VERBS_LOG_FILE="$user_dir/vlog.%p" \
    "$work/probe-plain" > /dev/null 2> "$work/plain-verbs.err"
vlog=$(ls "$user_dir"/vlog.* 2> /dev/null)
ok=0
[ "$(echo "$vlog" | grep -c .)" = 1 ] && [ "$(stat -c '%a %U' "$vlog" 2> /dev/null)" = "600 nobody" ] &&
    pid=${vlog##*/vlog.} && grep -q "^softverbs\[$pid\] [ID] " "$vlog" && ok=1
result "unprivileged: VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=...%p honoured, the pid expanded, created 0600" $ok
[ $ok = 1 ] || { echo "files: $vlog"; head -n 3 "$vlog" "$work/plain-verbs.err"; }

# The forged value, unprivileged: echoed in the complaint, escaped.
as_nobody env "${san_env[@]}" SOFTVERBS_LOG=debug SOFTVERBS_LOG_FILE="$user_dir/log2" \
    SOFTVERBS_PROVIDERS="$forged" "$work/probe-plain" > /dev/null 2>&1
ok=0
[ "$(grep -c 'root id' "$user_dir/log2")" = 1 ] &&
    grep -qF 'SOFTVERBS_PROVIDERS=x\n* * * * * root id is not understood' "$user_dir/log2" &&
    ! grep -q '^\* ' "$user_dir/log2" && ok=1
result "unprivileged: the forged SOFTVERBS_PROVIDERS arrives escaped, on one line" $ok
[ $ok = 1 ] || cat "$user_dir/log2"

echo "test_secure: $pass passed, $fail failed"
[ $fail = 0 ]
