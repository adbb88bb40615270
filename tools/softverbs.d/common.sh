# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Helpers of trace, doctor and rxe: who runs us, kernel modules, and the
# devices as sysfs shows them.
# Part of the softverbs command: make puts it into tools/softverbs where
# tools/softverbs.in includes it (#@include). POSIX sh.

# ---- helpers for doctor and rxe ---------------------------------------------

is_root() { [ "$(id -u)" = 0 ]; }
sudo_() { is_root || printf 'sudo '; }

# mod_state NAME: loaded | builtin | available | missing
mod_state() {
    if [ -d "/sys/module/$1" ]; then
        # built-in code with parameters also shows up in /sys/module
        if [ -e "/sys/module/$1/initstate" ] || [ -d "/sys/module/$1/holders" ]; then echo loaded
        else echo builtin
        fi
    elif grep -qs "/$1\.ko" "/lib/modules/$(uname -r)/modules.builtin"; then echo builtin
    elif modprobe -n -q "$1" 2> /dev/null; then echo available
    else echo missing
    fi
}

rdma_tool() { command -v rdma > /dev/null 2>&1; }

# These helpers read sysfs with the shell's own read, not cat or sed: under
# emulation (the test VM) every process costs tens of milliseconds.

# rd FILE: the first line of a sysfs file ('' when unreadable)
rd() { local l=''; { IFS= read -r l < "$1"; } 2> /dev/null; printf '%s' "$l"; }

# netdev_of IBDEV: the netdev under port 1 (rxe's parent, the GID table,
# else rdma link)
netdev_of() {
    local n
    n=$(rd "/sys/class/infiniband/$1/parent")
    [ -n "$n" ] || n=$(rd "/sys/class/infiniband/$1/ports/1/gid_attrs/ndevs/0")
    if [ -z "$n" ] && rdma_tool; then
        n=$(rdma link show "$1/1" 2> /dev/null | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
    fi
    printf '%s' "$n"
}

# kdriver IBDEV: the kernel driver behind a device (rxe, siw, or the PCI
# driver), from sysfs.
kdriver() {
    local d="/sys/class/infiniband/$1" drv
    if [ -e "$d/device/driver" ]; then
        drv=$(readlink "$d/device/driver"); echo "${drv##*/}"; return
    fi
    # Soft devices have no bus device; rxe exposes its netdev as "parent".
    if [ -e "$d/parent" ]; then echo rxe; return; fi
    case "$(rd "$d/node_type")" in
        *RNIC*) echo siw ;;
        *) echo unknown ;;
    esac
}

# uverbs_of IBDEV: its uverbsN char device name
uverbs_of() {
    local u
    for u in /sys/class/infiniband_verbs/uverbs*; do
        [ -e "$u/ibdev" ] || continue
        [ "$(rd "$u/ibdev")" = "$1" ] && { echo "${u##*/}"; return 0; }
    done
    return 1
}

# gid_pretty RAW: ::ffff:a.b.c.d for IPv4-mapped GIDs, else the raw form
gid_pretty() {
    local h
    case "$1" in
        0000:0000:0000:0000:0000:ffff:????:????)
            h=${1#0000:0000:0000:0000:0000:ffff:}
            h=$((0x${h%:*} * 65536 + 0x${h#*:}))
            printf '::ffff:%d.%d.%d.%d' $((h >> 24 & 255)) $((h >> 16 & 255)) \
                $((h >> 8 & 255)) $((h & 255)) ;;
        *) printf '%s' "$1" ;;
    esac
}

# field KEY LINE: the value of KEY=value in a probe line
field() {
    local l=" $2"
    case "$l" in
        *" $1="*) l=${l#*" $1="}; printf '%s' "${l%% *}" ;;
    esac
}

# provider_of IBDEV LOG: which provider drives IBDEV, as the library's
# log (SOFTVERBS_LOG=info or debug) names it when it lists devices:
#   "IBDEV (uverbsN): driven by softverbs' built-in NAME provider"
#   "IBDEV (uverbsN): driven by rdma-core's NAME provider (LIBRARY)"
# printed as "NAME (built-in)" or "NAME (rdma-core: LIBRARY)"; empty when
# the log does not say.
provider_of() {
    sed -n -e "s/^softverbs\[[0-9]*\] [A-Z] [^ ]*: $1 ([^)]*): driven by softverbs' built-in \([^ ]*\) provider.*/\1 (built-in)/p" \
           -e "s/^softverbs\[[0-9]*\] [A-Z] [^ ]*: $1 ([^)]*): driven by rdma-core's \([^ ]*\) provider (\(.*\))\$/\1 (rdma-core: \2)/p" \
        "$2" 2> /dev/null | tail -n 1
}
