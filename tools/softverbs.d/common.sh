# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Helpers of trace, doctor and rxe: who runs us, kernel modules, and the
# devices as sysfs shows them.
# Part of the softverbs command: make puts it into tools/softverbs where
# tools/softverbs.in includes it (#@include). POSIX sh.

# ---- helpers for doctor and rxe ---------------------------------------------

# Under emulation (the test VM) every process costs tens of milliseconds, a
# $(...) too (the shell forks): the helpers below read files with the
# shell's own read and hand back a value by setting the variable their
# caller names (setvar), not by printing it. Their own locals start with _
# so that they do not hide the caller's variable.

nl='
'

# setvar VAR VALUE: set the caller's VAR
setvar() { eval "$1=\$2"; }

# rd VAR FILE: VAR = the first line of a sysfs file ('' when unreadable).
# (Not for the numbers of /proc/sys: dash reads byte by byte, and they
# answer one byte; its strings, such as kernel/osrelease, read whole.)
rd() {
    local _l=''
    { IFS= read -r _l < "$2"; } 2> /dev/null
    setvar "$1" "$_l"
}

# self_status VAR KEY: VAR = the value of KEY in /proc/self/status (of the
# shell itself, which an awk there would not be)
self_status() {
    local _k _v=''
    { while IFS=$IFS: read -r _k _v; do
        [ "$_k" = "$2" ] && break
        _v=''
    done < /proc/self/status; } 2> /dev/null
    setvar "$1" "$_v"
}

# is_root: the effective uid is 0 (read once)
sv_uid=''
is_root() {
    if [ -z "$sv_uid" ]; then
        self_status sv_uid Uid
        # shellcheck disable=SC2086  # real, effective, saved, fs
        set -- $sv_uid
        sv_uid=${2:-$(id -u)}
    fi
    [ "$sv_uid" = 0 ]
}

# kernel_release VAR: VAR = uname -r
kernel_release() {
    local _r
    rd _r /proc/sys/kernel/osrelease
    setvar "$1" "${_r:-$(uname -r)}"
}

# mod_state VAR NAME: VAR = loaded | builtin | available | missing
mod_state() {
    local _kr
    if [ -d "/sys/module/$2" ]; then
        # built-in code with parameters also shows up in /sys/module
        if [ -e "/sys/module/$2/initstate" ] || [ -d "/sys/module/$2/holders" ]; then setvar "$1" loaded
        else setvar "$1" builtin
        fi
        return
    fi
    kernel_release _kr
    if grep -qs "/$2\.ko" "/lib/modules/$_kr/modules.builtin"; then setvar "$1" builtin
    elif modprobe -n -q "$2" 2> /dev/null; then setvar "$1" available
    else setvar "$1" missing
    fi
}

rdma_tool() { command -v rdma > /dev/null 2>&1; }

# netdev_of VAR IBDEV: VAR = the netdev under port 1 (rxe's parent, the
# GID table, else rdma link)
netdev_of() {
    local _n
    rd _n "/sys/class/infiniband/$2/parent"
    [ -n "$_n" ] || rd _n "/sys/class/infiniband/$2/ports/1/gid_attrs/ndevs/0"
    if [ -z "$_n" ] && rdma_tool; then
        _n=$(rdma link show "$2/1" 2> /dev/null | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
    fi
    setvar "$1" "$_n"
}

# kdriver VAR IBDEV: VAR = the kernel driver behind a device (rxe, siw, or
# the PCI driver), from sysfs.
kdriver() {
    local _d="/sys/class/infiniband/$2" _drv
    if [ -e "$_d/device/driver" ]; then
        _drv=$(readlink "$_d/device/driver"); setvar "$1" "${_drv##*/}"; return
    fi
    # Soft devices have no bus device; rxe exposes its netdev as "parent".
    if [ -e "$_d/parent" ]; then setvar "$1" rxe; return; fi
    rd _drv "$_d/node_type"
    case "$_drv" in
        *RNIC*) setvar "$1" siw ;;
        *) setvar "$1" unknown ;;
    esac
}

# uverbs_of VAR IBDEV: VAR = its uverbsN char device name; 1 when none
uverbs_of() {
    local _u _dev
    for _u in /sys/class/infiniband_verbs/uverbs*; do
        [ -e "$_u/ibdev" ] || continue
        rd _dev "$_u/ibdev"
        [ "$_dev" = "$2" ] && { setvar "$1" "${_u##*/}"; return 0; }
    done
    setvar "$1" ''
    return 1
}

# gid_pretty VAR RAW: VAR = ::ffff:a.b.c.d for IPv4-mapped GIDs, else the
# raw form
gid_pretty() {
    local _h
    case "$2" in
        0000:0000:0000:0000:0000:ffff:????:????)
            _h=${2#0000:0000:0000:0000:0000:ffff:}
            _h=$((0x${_h%:*} * 65536 + 0x${_h#*:}))
            setvar "$1" "::ffff:$((_h >> 24 & 255)).$((_h >> 16 & 255)).$((_h >> 8 & 255)).$((_h & 255))" ;;
        *) setvar "$1" "$2" ;;
    esac
}

# field VAR KEY LINE: VAR = the value of KEY=value in a probe line
field() {
    local _l=" $3"
    case "$_l" in
        *" $2="*) _l=${_l#*" $2="}; setvar "$1" "${_l%% *}" ;;
        *) setvar "$1" '' ;;
    esac
}
