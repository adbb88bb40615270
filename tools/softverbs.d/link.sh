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

# link_state VAR IFNAME: VAR = the port's state: ACTIVE when the
# interface is up and has a carrier (IFF_UP and IFF_RUNNING, as the
# library asks), DOWN, or MISSING when this network namespace has no
# such interface
link_state() {
    local _flags _carrier
    rd _flags "/sys/class/net/$2/flags"
    if [ -z "$_flags" ]; then setvar "$1" MISSING
    elif [ $((_flags & 0x1)) = 1 ] && rd _carrier "/sys/class/net/$2/carrier" && [ "$_carrier" = 1 ]; then setvar "$1" ACTIVE
    else setvar "$1" DOWN
    fi
}

# ---- counters (link show -s) ---------------------------------------------------

# link_runtime_dirs: the folders where the library keeps this user's
# counters files, one per uroce context (provider/uroce/
# uroce_counters.c), by the library's rule (uroce_runtime_dir):
# $XDG_RUNTIME_DIR/softverbs-uroce when XDG_RUNTIME_DIR is absolute, and
# its fallback /tmp/softverbs-uroce-UID, UID as the parent user
# namespace knows it
link_runtime_dirs() {
    local uid
    uid=$(id -u)
    case "${XDG_RUNTIME_DIR:-}" in
        /*) printf '%s/softverbs-uroce\n' "$XDG_RUNTIME_DIR" ;;
    esac
    uid=$(awk -v u="$uid" 'u >= $1 && u - $1 < $3 { print $2 + u - $1; exit }' /proc/self/uid_map 2> /dev/null) ||
        uid=''
    printf '/tmp/softverbs-uroce-%s\n' "${uid:-$(id -u)}"
}

# link_file_live FILE: the context that writes FILE is still open: it
# holds a lock on the file for its life (flock(1) cannot take it), or,
# without flock(1), its process (the file's pid line) is alive
link_file_live() {
    local pid
    if command -v flock > /dev/null 2>&1; then
        { ! flock -n -s 3 3< "$1"; } 2> /dev/null
        return
    fi
    pid=$(head -c 4096 "$1" 2> /dev/null | tr -d '\000' | awk '$1 == "pid" { print $2; exit }')
    [ -n "$pid" ] && kill -0 "$pid" 2> /dev/null
}

# link_counters: the counters of every open uroce context of this user
# in this network namespace, as lines DEVICE IFNAME NAME VALUE (NAME
# contexts first, 1). The files are the user's own only, in folders that
# are the user's (the library makes them so; anything else is left
# alone).
link_counters() {
    local ns d f
    ns=$(readlink /proc/self/ns/net 2> /dev/null)
    ns=${ns#net:\[}
    ns=${ns%\]}
    link_runtime_dirs | awk '!seen[$0]++' | while IFS= read -r d; do
        { [ -d "$d" ] && [ ! -L "$d" ] && [ -O "$d" ]; } || continue
        for f in "$d"/counters-*; do
            { [ -f "$f" ] && [ ! -L "$f" ] && [ -O "$f" ]; } || continue
            link_file_live "$f" || continue
            {
                head -c 4096 "$f" | tr -d '\000'
                echo values
                od -A n -t u8 -v -j 4096 "$f"
            } 2> /dev/null | awk -v ns="$ns" '
                NR == 1 { if ($0 != "softverbs-uroce-counters 1") exit; next }
                $1 == "device" && !vals { dev = $2; next }
                $1 == "netdev" && !vals { nd = $2; next }
                $1 == "netns" && !vals { fns = $2; next }
                $1 == "names" && !vals { n = NF - 1; for (i = 2; i <= NF; i++) name[i - 1] = $i; next }
                $1 == "values" && !vals {
                    if (dev == "" || nd == "" || n == 0 || (ns != "" && fns != ns)) exit
                    vals = 1
                    print dev, nd, "contexts", 1
                    next
                }
                vals { for (i = 1; i <= NF; i++) if (++k <= n) print dev, nd, name[k], $i }
            '
        done
    done
}

# link_sum: link_counters summed per device and interface, as lines
# DEVICE IFNAME NAME TOTAL, in the files' order
link_sum() {
    awk '
        { key = $1 " " $2 " " $3 }
        !(key in total) { order[++n] = key }
        { total[key] += $4 }
        END { for (i = 1; i <= n; i++) print order[i], total[order[i]] }
    '
}

# link_show [-s] [NAME]: NAME netdev IFNAME state STATE file FILE, per
# device kept in a file (link_state); -s (--stats, -statistics): then
# the counters of its open contexts summed, one "    NAME VALUE" line
# each (none open: "    contexts 0"), and the devices that have open
# contexts without being kept (SOFTVERBS_UROCE's) after them, with no
# file.
link_show() {
    local entries name nd file state stats=0 want='' sums='' live
    while [ $# -gt 0 ]; do
        case "$1" in
            -s | --stats | -statistics | --statistics) stats=1 ;;
            -*) msg "usage: softverbs link show [-s] [NAME]"; exit 2 ;;
            *) [ -z "$want" ] || { msg "usage: softverbs link show [-s] [NAME]"; exit 2; }
               want=$1 ;;
        esac
        shift
    done
    entries=$(link_entries)
    [ $stats = 0 ] || sums=$(link_counters | link_sum)
    if [ -n "$want" ]; then
        entries=$(printf '%s\n' "$entries" | awk -v n="$want" '$1 == n')
        sums=$(printf '%s\n' "$sums" | awk -v n="$want" '$1 == n')
        [ -n "$entries$sums" ] || die "no uroce device named $want (softverbs link show lists them)"
    fi
    [ -n "$entries$sums" ] || { link_note_env; return 0; }
    if [ -n "$entries" ]; then
        printf '%s\n' "$entries" | while read -r name nd _ file; do
            link_state state "$nd"
            echo "$name netdev $nd state $state file $file"
            [ $stats = 1 ] || continue
            live=$(printf '%s\n' "$sums" | awk -v n="$name" -v d="$nd" '$1 == n && $2 == d { print "    " $3, $4 }')
            printf '%s\n' "${live:-    contexts 0}"
        done
    fi
    # open contexts of devices no file keeps (SOFTVERBS_UROCE's, or a
    # line deleted since)
    [ -n "$sums" ] && printf '%s\n' "$sums" | awk -v kept="$entries" '
        BEGIN { n = split(kept, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], w, " "); k[w[1] " " w[2]] = 1 } }
        !(($1 " " $2) in k) { print }
    ' | awk '
        $1 " " $2 != last { last = $1 " " $2; print "device", $1, $2 }
        { print "    " $3, $4 }
    ' | while read -r a b c; do
        if [ "$a" = device ]; then
            link_state state "$c"
            echo "$b netdev $c state $state"
        else
            echo "    $a $b"
        fi
    done
    link_note_env
}
