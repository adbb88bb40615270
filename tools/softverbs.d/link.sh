# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# softverbs link: add, show and delete uroce devices, softverbs' own
# userspace RoCE v2 devices that no kernel knows (softverbs(7),
# SOFTVERBS_UROCE), as rdma(8)'s `rdma link add NAME type rxe netdev IF`
# does for the kernel's. No root: a user's devices are kept in the
# user's uroce.conf, root's for everyone in the system's. The library
# reads both files (provider/uroce/uroce_driver.c), by the same rules as
# link_entries.
# Part of the softverbs command: make puts it into tools/softverbs where
# tools/softverbs.in includes it (#@include). POSIX sh.

# ---- link ---------------------------------------------------------------------

link_system_file() { printf '%s/uroce.conf' "${SOFTVERBS_SYSCONFDIR:-$SV_CONFDIR_INSTALLED}"; }

# link_user_file: the user's file, as the library finds it (XDG: a
# relative XDG_CONFIG_HOME is ignored); empty when there is none.
link_user_file() {
    case "${XDG_CONFIG_HOME:-}" in
        /*) printf '%s/softverbs/uroce.conf' "$XDG_CONFIG_HOME"; return ;;
    esac
    case "${HOME:-}" in
        /*) printf '%s/.config/softverbs/uroce.conf' "$HOME" ;;
    esac
}

# link_own_file: the file this user adds to (root: the system's)
link_own_file() { if is_root; then link_system_file; else link_user_file; fi; }

# link_name_ok NAME: uroce and a decimal number without a leading zero,
# fewer than 64 bytes (IBV_SYSFS_NAME_MAX)
link_name_ok() {
    case "$1" in
        uroce0) return 0 ;;
        uroce | uroce0*) return 1 ;;
        uroce*) ;;
        *) return 1 ;;
    esac
    case "${1#uroce}" in *[!0-9]*) return 1 ;; esac
    [ ${#1} -lt 64 ]
}

# netdev_name_ok IFNAME: the kernel's rule (dev_valid_name)
netdev_name_ok() {
    case "$1" in '' | . | .. | */* | *:* | *[[:space:]]*) return 1 ;; esac
    [ ${#1} -lt 16 ]
}

netdev_exists() {
    if [ -d /sys/class/net ]; then
        [ -e "/sys/class/net/$1" ]
    else
        command -v ip > /dev/null 2>&1 && ip link show dev "$1" > /dev/null 2>&1
    fi
}

# link_entries: the configured devices as the library takes them, one
# per line: NAME IFNAME LINE FILE. The system's file first, then the
# user's; a line that is no device (a comment, garbage, a name or an
# interface named before) is left out.
link_entries() {
    local sys usr
    sys=$(link_system_file)
    usr=$(link_user_file)
    [ -r "$sys" ] && [ -f "$sys" ] || sys=
    [ -n "$usr" ] && [ -r "$usr" ] && [ -f "$usr" ] || usr=
    [ -n "$sys" ] && [ -n "$usr" ] && [ "$sys" -ef "$usr" ] && usr=
    [ -n "$sys$usr" ] || return 0
    awk '
        { sub(/\r$/, "") }
        NF == 0 || $1 ~ /^#/ { next }
        NF != 2 || length($0) > 256 { next }
        $1 !~ /^uroce(0|[1-9][0-9]*)$/ || length($1) >= 64 { next }
        length($2) >= 16 || $2 ~ /[\/:]/ || $2 == "." || $2 == ".." { next }
        ($1 in name) || ($2 in netdev) { next }
        { name[$1] = 1; netdev[$2] = 1; print $1, $2, FNR, FILENAME }
    ' ${sys:+"$sys"} ${usr:+"$usr"}
}

# link_write FILE: standard input becomes FILE, atomically (a temporary
# file in its folder, renamed over it; a link's target is replaced)
link_write() {
    local f="$1" dir tmp
    [ -L "$f" ] && f=$(readlink -f "$f")
    dir=$(dirname "$f")
    mkdir -p "$dir" 2> /dev/null || die "cannot create the folder $dir"
    tmp=$(mktemp "$dir/.uroce.conf.XXXXXX" 2> /dev/null) ||
        die "cannot write in $dir$(is_root || [ -w "$dir" ] || printf ' (a system-wide device needs root)')"
    if ! cat > "$tmp" || ! chmod 644 "$tmp" || ! mv -f "$tmp" "$f"; then
        rm -f "$tmp"
        die "cannot write $f"
    fi
}

link_note_env() {
    [ -n "${SOFTVERBS_UROCE+set}" ] &&
        msg "note: SOFTVERBS_UROCE is set here: the programs it reaches list its devices instead of these"
    return 0
}

cmd_link() {
    local sub="${1:-show}"
    [ $# -gt 0 ] && shift
    case "$sub" in
        add) link_add "$@" ;;
        delete | del) link_delete "$@" ;;
        show | list) link_show "$@" ;;
        -h | --help) usage ;;
        *) msg "link: unknown command '$sub' (add, delete, show)"; exit 2 ;;
    esac
}

link_add() {
    local name="${1:-}" type="${3:-}" nd="${5:-}" file entries other flags
    if [ $# != 5 ] || [ "$2" != type ] || [ "$4" != netdev ]; then
        msg "usage: softverbs link add NAME type uroce netdev IFNAME"; exit 2
    fi
    case "$type" in
        uroce) ;;
        rxe) die "type rxe is the kernel's Soft-RoCE: softverbs rxe add $nd (root) creates one" ;;
        *) die "unknown link type '$type' (softverbs link adds uroce devices)" ;;
    esac
    link_name_ok "$name" ||
        die "'$name' is no uroce device name: uroce and a number (uroce0, uroce1, ...)"
    if ! netdev_name_ok "$nd" || ! netdev_exists "$nd"; then
        die "no network interface '$nd' (ip link show lists them)"
    fi
    file=$(link_own_file)
    [ -n "$file" ] || die "no folder for your devices: set HOME or XDG_CONFIG_HOME"
    entries=$(link_entries)
    other=$(printf '%s\n' "$entries" | awk -v n="$name" '$1 == n { print $3, $4; exit }')
    [ -z "$other" ] || die "a uroce device named $name exists already (${other#* } line ${other%% *})"
    other=$(printf '%s\n' "$entries" | awk -v d="$nd" '$2 == d { print $1; exit }')
    [ -z "$other" ] || die "$nd has a uroce device already: $other (one per interface)"
    {
        if [ -f "$file" ]; then
            awk '{ print }' "$file" || exit 1
        else
            echo "# softverbs: uroce devices, softverbs' userspace RoCE v2 devices (softverbs(7))."
            echo "# Kept by softverbs link (softverbs(1)); one device a line: NAME IFNAME"
        fi
        echo "$name $nd"
    } | link_write "$file" || exit 1
    echo "$name: uroce device on $nd, kept in $file"
    rd flags "/sys/class/net/$nd/flags"
    [ -n "$flags" ] && [ $((flags & 0x1)) = 0 ] &&
        msg "warning: $nd is down, so is $name's port: ip link set $nd up"
    link_note_env
}

link_delete() {
    local name="${1:-}" entry file own
    if [ -z "$name" ] || [ $# != 1 ]; then msg "usage: softverbs link delete NAME"; exit 2; fi
    entry=$(link_entries | awk -v n="$name" '$1 == n')
    [ -n "$entry" ] || die "no uroce device named $name (softverbs link show lists them)"
    file=${entry#* * * }
    own=$(link_own_file)
    if ! is_root && ! [ "$file" -ef "$own" ]; then
        die "$name is system-wide ($file): sudo softverbs link delete $name"
    fi
    awk -v n="$name" '{ l = $0; sub(/\r$/, "", l); split(l, w) } w[1] != n { print }' "$file" |
        link_write "$file" || exit 1
    echo "$name removed (from $file)"
}

# link_show [NAME]: NAME netdev IFNAME state STATE file FILE, per device;
# STATE is the port's: ACTIVE when the interface is up and has a carrier
# (IFF_UP and IFF_RUNNING, as the library asks), DOWN, or MISSING when
# this network namespace has no such interface.
link_show() {
    local entries name nd file flags carrier state
    [ $# -le 1 ] || { msg "usage: softverbs link show [NAME]"; exit 2; }
    entries=$(link_entries)
    if [ $# = 1 ]; then
        entries=$(printf '%s\n' "$entries" | awk -v n="$1" '$1 == n')
        [ -n "$entries" ] || die "no uroce device named $1 (softverbs link show lists them)"
    fi
    [ -n "$entries" ] || { link_note_env; return 0; }
    printf '%s\n' "$entries" | while read -r name nd _ file; do
        rd flags "/sys/class/net/$nd/flags"
        if [ -z "$flags" ]; then state=MISSING
        elif [ $((flags & 0x1)) = 1 ] && rd carrier "/sys/class/net/$nd/carrier" && [ "$carrier" = 1 ]; then state=ACTIVE
        else state=DOWN
        fi
        echo "$name netdev $nd state $state file $file"
    done
    link_note_env
}
