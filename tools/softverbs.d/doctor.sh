# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# softverbs doctor: check this machine for RDMA. cmd_doctor lists the
# checks (doctor_check_*), in the order of the report; the firewall's
# rules are read in doctor-firewall.sh.
# Part of the softverbs command: make puts it into tools/softverbs where
# tools/softverbs.in includes it (#@include). POSIX sh.

# ---- doctor -------------------------------------------------------------------

# Every check prints one line (text mode) and leaves one record for --json:
# its name (the current $chk), status, message and fix. Records are
# separated by \036 and their fields by \037, bytes no message holds.
nfail=0 nwarn=0 nprob=0 problems='' json=0 chk=doctor records=/dev/null
record() { printf '%s\037%s\037%s\037%s\036' "$chk" "$1" "$2" "$3" >> "$records"; }
say() { [ $json = 1 ] || printf '%s\n' "$*"; }
p_ok()   { say "  ok    $1"; record ok "$1" ''; }
# p_info TEXT [FIX]: a fact, with the command that changes it if any
p_info() { say "  info  $1${2:+ (fix: $2)}"; record info "$1" "${2:-}"; }
# p_warn TEXT FIX / p_fail TEXT FIX: print now, list with the fix at the end
p_warn() { say "  warn  $1"; nwarn=$((nwarn + 1)); add_problem warning "$1" "$2"; record warn "$1" "$2"; }
p_fail() { say "  FAIL  $1"; nfail=$((nfail + 1)); add_problem error "$1" "$2"; record fail "$1" "$2"; }
add_problem() {
    nprob=$((nprob + 1))
    problems="$problems
  $nprob. ($1) $2
     fix: $3"
}
section() { say "$*"; }

# cmd_doctor: the checks, in the order of the report. What they share is
# local here (the shell's locals are seen by the functions called):
#   tmp       scratch folder: probe (the probe's output), log (the
#             library's debug log), holders (from doctor_check_processes)
#   user      who runs doctor, for messages
#   sudo      'sudo ' before the commands of fixes that need root, or ''
#   kernel    uname -r
#   probe_out the probe's output (probe_lines picks from it)
#   kdevs     the kernel's RDMA devices (sysfs)
#   netns_mode  shared, exclusive or '' (rdma system show)
#   openable  the devices whose uverbs file this user can open
#   usable    the devices a program can use (the verdict names them)
cmd_doctor() {
    local lib=softverbs tmp user sudo='' kernel probe_out='' kdevs='' netns_mode='' openable='' usable=''
    while [ $# -gt 0 ]; do
        case "$1" in
            --rdma-core) lib=rdma-core; shift ;;
            --json) json=1; shift ;;
            -h|--help) usage; exit 0 ;;
            *) msg "doctor: unknown argument $1"; exit 2 ;;
        esac
    done
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/softverbs-doctor.XXXXXX") || die "mktemp failed"
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" EXIT
    trap 'exit 130' INT TERM
    records=$tmp/records
    : > "$records"
    user=$(id -un 2> /dev/null || id -u)
    is_root || sudo='sudo '
    kernel_release kernel

    say "softverbs doctor $SV_VERSION: kernel $kernel, user $user"
    doctor_check_library "$lib"
    doctor_check_environment
    doctor_check_devices
    doctor_check_device_files
    doctor_check_firewall
    doctor_check_gid_tables
    doctor_check_processes
    doctor_check_iwarp
    doctor_check_counters
    doctor_check_modules
    doctor_check_memlock
    doctor_check_copy_on_fork
    doctor_check_fork_safety
    doctor_check_max_map_count
    doctor_check_huge_pages
    doctor_verdict
}

# doctor_check_library LIB: the library a program would load (softverbs'
# or, LIB rdma-core, the system's), and the probe run on it: its output
# in $tmp/probe (empty when it did not run), the library's debug log in
# $tmp/log
doctor_check_library() {
    local lib="$1" libdir='' probe rest rc line path sv
    section "library"
    chk=library
    if [ "$lib" = softverbs ]; then
        libdir=$(sv_libdir 2> "$tmp/err") ||
            p_fail "softverbs' libibverbs.so.1 not found: $(cat "$tmp/err")" \
                   "apt-get install softverbs (or make in the build folder, or export SOFTVERBS_LIBDIR=<folder of libibverbs.so.1>)"
    else
        libdir=$(sv_system_libdir 2> "$tmp/err") ||
            p_fail "the system's libibverbs.so.1 not found" "apt-get install libibverbs1 ibverbs-providers"
    fi
    if [ -n "$SV_BUILD_TOP" ]; then probe=$SV_BUILD_TOP/tools/probe; else probe=$SV_PROBE_INSTALLED; fi
    : > "$tmp/probe"
    [ -n "$libdir" ] || return 0
    if [ ! -x "$probe" ]; then
        p_fail "helper $probe missing" "reinstall softverbs-tools (or make in the build folder)"
        return 0
    fi
    rest=$(strip_verbs_dirs "${LD_LIBRARY_PATH:-}")
    LD_LIBRARY_PATH=$libdir${rest:+:$rest} SOFTVERBS_LOG=debug SOFTVERBS_LOG_FILE=$tmp/log \
        timeout 60 "$probe" > "$tmp/probe" 2> "$tmp/probe.err"
    rc=$?
    probe_read
    probe_lines line 'library '
    field path path "$line"
    field sv softverbs "$line"
    if [ $rc != 0 ] && [ -z "$line" ]; then
        p_fail "the verbs probe failed to run (exit $rc): $(head -n 3 "$tmp/probe.err" | tr '\n' ' ')" \
               "SOFTVERBS_LOG=debug softverbs run ibv_devices  # shows why"
    elif [ "$lib" = softverbs ] && [ "$sv" != 1 ]; then
        p_fail "a program run on $libdir loads $path, not softverbs" \
               "check LD_PRELOAD and the RUNPATH of your program; export SOFTVERBS_LIBDIR=<softverbs' folder>"
    else
        p_ok "$path"
    fi
}

# probe_read: probe_out = the probe's output, $tmp/probe, read once. The
# checks pick their lines from it with probe_lines: a grep each would be
# a process each.
probe_read() {
    local l
    probe_out=''
    while IFS= read -r l || [ -n "$l" ]; do
        probe_out="$probe_out$l$nl"
    done < "$tmp/probe"
}

# probe_lines VAR PREFIX: VAR = the probe's lines that start with PREFIX,
# one a line (no newline after the last)
probe_lines() {
    local _rest="$probe_out" _l _out=''
    while [ -n "$_rest" ]; do
        _l=${_rest%%"$nl"*} _rest=${_rest#*"$nl"}
        case "$_l" in "$2"*) _out="$_out$nl$_l" ;; esac
    done
    setvar "$1" "${_out#"$nl"}"
}

# doctor_check_environment: the variables the library reads
doctor_check_environment() {
    chk=environment
    case "${SOFTVERBS_PROVIDERS:-native}" in
        native) p_ok "SOFTVERBS_PROVIDERS=${SOFTVERBS_PROVIDERS:-(unset: native)}: built-in rxe/siw providers, rdma-core's libraries for other devices" ;;
        rdma-core) p_ok "SOFTVERBS_PROVIDERS=rdma-core: rdma-core's provider libraries for every device" ;;
        *) p_fail "SOFTVERBS_PROVIDERS=$SOFTVERBS_PROVIDERS is not native or rdma-core: the library lists no device" \
                  "unset SOFTVERBS_PROVIDERS  # or export SOFTVERBS_PROVIDERS=native|rdma-core" ;;
    esac
    [ -n "${RDMAV_DRIVERS:-}${IBV_DRIVERS:-}" ] &&
        p_info "RDMAV_DRIVERS/IBV_DRIVERS=${RDMAV_DRIVERS:-}${IBV_DRIVERS:+ ${IBV_DRIVERS}}: extra rdma-core provider libraries are loaded"
}

# doctor_check_devices: the kernel's devices, and what a program sees of
# each (sets kdevs, netns_mode, openable, usable)
doctor_check_devices() {
    local dev line providers
    section "devices"
    chk=device
    for dev in /sys/class/infiniband/*; do
        [ -e "$dev" ] && kdevs="$kdevs${kdevs:+$nl}${dev##*/}"
    done
    if rdma_tool; then
        line=$(rdma system show 2> /dev/null)
        case "$line" in *"netns "*) netns_mode=${line#*netns }; netns_mode=${netns_mode%% *} ;; esac
    fi
    probe_lines line 'devices error='
    [ -n "$kdevs" ] && [ -n "$line" ] &&
        p_fail "ibv_get_device_list failed: ${line#devices error=}" \
               "SOFTVERBS_LOG=debug softverbs run ibv_devices  # shows why"
    providers_read
    for dev in $kdevs; do
        doctor_device "$dev"
    done
    [ -n "$kdevs" ] || doctor_no_device
}

# providers_read: providers = the providers the library's log
# (SOFTVERBS_LOG=info or debug) names when it lists devices,
#   "IBDEV (uverbsN): driven by softverbs' built-in NAME provider"
#   "IBDEV (uverbsN): driven by rdma-core's NAME provider (LIBRARY)"
# as lines "IBDEV NAME (built-in)" or "IBDEV NAME (rdma-core: LIBRARY)";
# one sed for all the devices
providers_read() {
    providers=$(sed -n -e "s/^softverbs\[[0-9]*\] [A-Z] [^ ]*: \([^ ]*\) ([^)]*): driven by softverbs' built-in \([^ ]*\) provider.*/\1 \2 (built-in)/p" \
                       -e "s/^softverbs\[[0-9]*\] [A-Z] [^ ]*: \([^ ]*\) ([^)]*): driven by rdma-core's \([^ ]*\) provider (\(.*\))\$/\1 \2 (rdma-core: \3)/p" \
                    "$tmp/log" 2> /dev/null)
}

# provider_of VAR IBDEV: VAR = which provider drives IBDEV, "NAME
# (built-in)" or "NAME (rdma-core: LIBRARY)" (the last the log names);
# empty when the log does not say
provider_of() {
    local _rest="$providers$nl" _l _p=''
    while [ -n "$_rest" ]; do
        _l=${_rest%%"$nl"*} _rest=${_rest#*"$nl"}
        case "$_l" in "$2 "*) _p=${_l#"$2 "} ;; esac
    done
    setvar "$1" "$_p"
}

# doctor_device IBDEV: its uverbs file, whether the library lists and opens
# it, its ports, and a PD, MR, CQ and QP on it (adds to openable, usable)
doctor_device() {
    local dev="$1" drv nd uv desc line prov open ports active rest nports res pdesc bad k v fix
    chk=device
    kdriver drv "$dev"; netdev_of nd "$dev"; uverbs_of uv "$dev"
    desc="$dev ($drv${nd:+ on $nd})"
    probe_lines line "device name=$dev "
    provider_of prov "$dev"
    if [ -z "$uv" ]; then
        p_fail "$desc: no uverbs character device" "${sudo}modprobe ib_uverbs"
        return
    fi
    doctor_devnode "$desc" "$uv" || return
    openable="$openable $dev"
    chk=device
    if [ -z "$line" ]; then
        [ -s "$tmp/probe" ] && p_fail "$desc: not listed by the library${prov:+ (provider $prov)}: no provider matched it" \
            "SOFTVERBS_LOG=debug softverbs run ibv_devices  # names the reason; rdma-core's providers: apt-get install ibverbs-providers"
        return
    fi
    field open open "$line"
    if [ "$open" != ok ]; then
        p_fail "$desc: ibv_open_device failed ($open)" "SOFTVERBS_LOG=debug softverbs run ibv_devinfo -d $dev  # shows why"
        return
    fi
    probe_lines ports "port name=$dev "
    active=0 rest="$ports$nl"
    while [ -n "$rest" ]; do
        case "${rest%%"$nl"*}" in *state=PORT_ACTIVE*) active=$((active + 1)) ;; esac
        rest=${rest#*"$nl"}
    done
    probe_lines res "resources name=$dev "
    [ -n "$prov" ] || prov="(not named in the debug log)"
    field nports ports "$line"
    pdesc="$desc: provider $prov, /dev/infiniband/$uv, $active of $nports port(s) active"
    if [ "$active" = 0 ]; then
        p_fail "$pdesc" "${sudo}ip link set ${nd:-<its netdev>} up"
        return
    fi
    bad=''
    for k in pd mr cq qp; do
        field v $k "$res"
        [ "$v" = ok ] || bad="$bad $k:$v"
    done
    if [ -n "$bad" ]; then
        case "$bad" in
            *mr:ENOMEM*) fix="raise the locked-memory limit (see 'locked memory' below)" ;;
            *) fix="SOFTVERBS_LOG=debug softverbs run ibv_rc_pingpong -d $dev  # shows why" ;;
        esac
        p_fail "$pdesc; creating a PD, 1 MiB MR, CQ and RC QP failed:$bad" "$fix"
        return
    fi
    p_ok "$pdesc; PD, 1 MiB MR, CQ, RC QP created"
    # the kernel's rxe, whichever library's provider drives it
    [ "$drv" = rxe ] && doctor_rxe_features "$dev"
    usable="$usable $dev"
}

# doctor_rxe_features IBDEV: what this kernel's rxe can do, as the probe
# saw it
doctor_rxe_features() {
    local dev="$1" feat have='' lack='' k v text
    probe_lines feat "features name=$dev "
    [ -n "$feat" ] || return 0
    chk=rxe_features
    for k in atomic_write:'RDMA ATOMIC WRITE (6.2+)' flush:'FLUSH (6.2+)' odp:'ODP and ibv_advise_mr (7.x)'; do
        field v "${k%%:*}" "$feat"
        if [ "$v" = 1 ]; then have="$have, ${k#*:}"; else lack="$lack, ${k#*:}"; fi
    done
    text=${have:+has ${have#, }}
    [ -n "$lack" ] && text="${text:+$text; }lacks ${lack#, }"
    p_info "$dev: this kernel's rxe $text"
}

# doctor_no_device: why there is none, and how to get one
doctor_no_device() {
    local rxe nd
    chk=device
    mod_state rxe rdma_rxe
    if [ "$netns_mode" = exclusive ] && ! netns_is_init; then
        p_fail "no RDMA device in this network namespace (the netns mode is exclusive: a device is seen only in the namespace it belongs to)" \
               "in the host's namespace: ${sudo}rdma dev set <device> netns <this namespace>  # or for every namespace: rdma system set netns shared"
    elif [ "$rxe" = missing ]; then
        p_fail "no RDMA device, and this kernel has no rdma_rxe (Soft-RoCE)" \
               "boot a kernel with CONFIG_RDMA_RXE (Debian's linux-image-amd64 has it), then: ${sudo}softverbs rxe add <netdev>"
    else
        suggest_netdev nd
        p_fail "no RDMA device" "${sudo}softverbs rxe add $nd   # Soft-RoCE on $nd"
    fi
}

# doctor_check_device_files: /dev/infiniband beyond the devices, and what
# this namespace sees
doctor_check_device_files() {
    [ -n "$kdevs" ] || return 0
    section "device files"
    doctor_devfiles
}

# doctor_check_firewall: UDP 4791, the port RoCE v2 packets arrive on
doctor_check_firewall() {
    local dev roce=''
    for dev in $kdevs; do is_roce "$dev" && roce="$roce $dev"; done
    [ -n "$roce" ] || return 0
    section "firewall"
    doctor_firewall "${roce# }"
}

# doctor_check_gid_tables: each port's GID table, and which index to use
doctor_check_gid_tables() {
    local dev pdir
    section "gid tables"
    for dev in $kdevs; do
        for pdir in /sys/class/infiniband/"$dev"/ports/*; do
            [ -d "$pdir/gids" ] && doctor_gids "$dev" "$pdir"
        done
    done
}

# doctor_check_processes: who holds a device open (the list, in
# $tmp/holders, is doctor_check_max_map_count's too)
doctor_check_processes() {
    uverbs_holders > "$tmp/holders"
    [ -n "$kdevs" ] || return 0
    section "processes"
    doctor_holders
}

# doctor_check_iwarp: iWARP devices and the port mapper
doctor_check_iwarp() {
    local dev type iw=''
    for dev in $kdevs; do
        rd type "/sys/class/infiniband/$dev/node_type"
        case "$type" in *RNIC*) iw="$iw $dev" ;; esac
    done
    [ -n "$iw" ] || return 0
    section "iwarp"
    doctor_iwpmd "${iw# }"
}

# doctor_check_counters: the counters that explain retries
doctor_check_counters() {
    local dev pdir
    [ -n "$kdevs" ] || return 0
    section "counters"
    for dev in $kdevs; do
        for pdir in /sys/class/infiniband/"$dev"/ports/*; do
            [ -d "$pdir/hw_counters" ] && doctor_counters "$dev" "${pdir##*/}" "$pdir/hw_counters"
        done
    done
}

# doctor_check_modules: ib_uverbs, rdma_rxe, siw
doctor_check_modules() {
    local mods='' m state
    section "kernel modules"
    chk=modules
    for m in ib_uverbs rdma_rxe siw; do
        mod_state state $m
        mods="$mods, $m $state"
    done
    p_info "${mods#, }"
    case "${mods#, ib_uverbs }" in
        loaded,*|builtin,*) ;;
        available,*) p_fail "ib_uverbs is not loaded: no program can reach a device" "${sudo}modprobe ib_uverbs" ;;
        *) p_fail "this kernel has no ib_uverbs (CONFIG_INFINIBAND_USER_ACCESS): no program can reach a device" \
                  "boot a kernel with RDMA support (Debian's linux-image-amd64 has it)" ;;
    esac
}

# doctor_check_memlock: RLIMIT_MEMLOCK against what registrations pin
doctor_check_memlock() {
    local soft hard cap kib fix
    section "locked memory"
    chk=memlock
    # (through a file: a $(ulimit) would be a process)
    { ulimit -l; ulimit -H -l; } > "$tmp/ulimit"
    { read -r soft; read -r hard; } < "$tmp/ulimit"
    self_status cap CapEff
    cap=$(( (0x${cap:-0} >> 14) & 1 ))   # CAP_IPC_LOCK: the limit does not apply
    if [ "$soft" = unlimited ]; then
        p_ok "ulimit -l unlimited"
        return
    fi
    kib=$soft
    if [ "$hard" = unlimited ]; then
        fix="ulimit -l unlimited  # this shell and what it starts; "
    else
        fix="(the hard limit, $hard KiB, only root can raise) "
    fi
    fix="${fix}for good: echo '* - memlock unlimited' | sudo tee /etc/security/limits.d/90-rdma.conf, then log in again (systemd services: LimitMEMLOCK=infinity; containers: --ulimit memlock=-1)"
    if [ $cap = 1 ]; then
        p_info "ulimit -l $kib KiB, but this process has CAP_IPC_LOCK (root): its registrations are not limited"
        [ "$kib" -lt 65536 ] &&
            p_warn "ulimit -l $kib KiB binds every user without CAP_IPC_LOCK: their registrations above it fail with ENOMEM" "$fix"
    elif [ "$kib" -lt 8192 ]; then
        p_fail "ulimit -l $kib KiB: registered memory is pinned and counted against it; registrations above $kib KiB fail with ENOMEM" "$fix"
    elif [ "$kib" -lt 65536 ]; then
        p_warn "ulimit -l $kib KiB: enough for small programs; larger registrations (perftest -s, UCX pools) fail with ENOMEM" "$fix"
    else
        p_ok "ulimit -l $kib KiB"
    fi
}

# doctor_check_copy_on_fork: whether the kernel copies DMA-pinned pages at
# fork (the probe asks the library)
doctor_check_copy_on_fork() {
    local line cof status
    section "fork"
    chk=copy_on_fork
    probe_lines line 'fork '
    field cof copy_on_fork "$line"
    field status status "$line"
    case "$cof/$status" in
        1/*|*/UNNEEDED) p_info "kernel copy-on-fork: on (DMA-pinned pages are copied into a child at fork: fork() costs time and memory per registered MiB unless fork safety is on; with it on, pages registered only in part stay in the child)" ;;
        0/*|*/DISABLED|*/ENABLED) p_info "kernel copy-on-fork: off (a child can take registered pages from the parent: programs that fork need fork safety)" ;;
        *) p_info "kernel copy-on-fork: unknown (no probe)" ;;
    esac
}

# doctor_check_fork_safety: the fork-safety variables in the environment
doctor_check_fork_safety() {
    local fs='' v val
    chk=fork_safety
    for v in RDMAV_FORK_SAFE IBV_FORK_SAFE RDMAV_HUGEPAGES_SAFE; do
        eval "val=\${$v-}"
        if [ -n "$val" ] && [ "$val" != 0 ]; then fs="$fs $v=$val"; fi
    done
    if [ -n "$fs" ]; then
        p_info "fork safety from the environment:$fs (on from library load)"
    else
        p_info "fork safety: off unless the program calls ibv_fork_init() (export RDMAV_FORK_SAFE=1 to force it on)"
    fi
}

# doctor_check_max_map_count: vm.max_map_count against the registrations
# fork safety leaves room for, overall and per process holding a device
doctor_check_max_map_count() {
    local mmc budget
    chk=max_map_count
    # (not rd: dash reads byte by byte, and /proc/sys answers one byte)
    mmc=$(cat /proc/sys/vm/max_map_count 2> /dev/null)
    mmc=${mmc:-0}
    budget=$(( (mmc - 1000) / 2 ))
    [ $budget -lt 0 ] && budget=0
    if [ "$mmc" -lt 65530 ]; then
        p_warn "vm.max_map_count $mmc: with fork safety on, only ~$budget separately placed MRs fit (each splits a mapping in two)" \
               "${sudo}sysctl -w vm.max_map_count=262144  # permanently: echo vm.max_map_count=262144 > /etc/sysctl.d/90-rdma.conf"
    else
        p_info "vm.max_map_count $mmc: with fork safety on, room for ~$budget separately placed MRs (each splits a mapping in two; adjacent MRs merge)"
    fi
    doctor_map_count "$mmc"
}

# doctor_check_huge_pages: hugetlbfs and transparent huge pages
doctor_check_huge_pages() {
    local k v unit hp_total=0 hp_free=0 hp_size='?' thp
    chk=huge_pages
    { while read -r k v unit; do
        case "$k" in
            HugePages_Total:) hp_total=$v ;;
            HugePages_Free:) hp_free=$v ;;
            Hugepagesize:) hp_size=$v$unit; break ;;  # (after the two)
        esac
    done < /proc/meminfo; } 2> /dev/null
    # "always [madvise] never": the one in brackets
    rd thp /sys/kernel/mm/transparent_hugepage/enabled
    case "$thp" in
        *\[*\]*) thp=${thp%\]*} thp=${thp##*\[} ;;
        *) thp='' ;;
    esac
    p_info "huge pages: hugetlbfs ${hp_free:-0} of ${hp_total:-0} free (${hp_size:-?}), transparent: ${thp:-?}"
    if [ "${hp_total:-0}" -gt 0 ] && [ -z "${RDMAV_HUGEPAGES_SAFE:-}" ]; then
        p_info "  programs that register hugetlbfs memory and fork: export RDMAV_HUGEPAGES_SAFE=1"
    fi
}

# doctor_verdict: the problems with their fixes, the verdict, and exit 0
# when an RDMA program can run on a device and nothing FAILed, else 1
doctor_verdict() {
    local rc verdict w=''
    if [ $nprob -gt 0 ]; then
        section "problems"
        [ $json = 1 ] || printf '%s\n' "${problems#"$nl"}"
    fi
    if [ $nfail = 0 ] && [ -n "$usable" ]; then
        [ $nwarn -gt 0 ] && w=", $nwarn warning(s)"
        rc=0 verdict="an RDMA program can run here (on${usable})$w"
    else
        rc=1 verdict="an RDMA program cannot run here yet: $nfail problem(s) to fix"
    fi
    if [ $json = 1 ]; then
        doctor_json $rc "$verdict" "$user"
    else
        echo "verdict: $verdict"
    fi
    exit $rc
}

# doctor_json RC VERDICT USER: the records as one JSON document. Strings
# reach awk through the environment: -v would expand backslashes.
doctor_json() {
    SVJ_RC=$1 SVJ_VERDICT=$2 SVJ_USER=$3 SVJ_VERSION=$SV_VERSION SVJ_KERNEL=$kernel \
    SVJ_NFAIL=$nfail SVJ_NWARN=$nwarn awk '
        # str S: S as a JSON string (quote, backslash, control characters escaped)
        function str(s,    i, n, c, out) {
            out = ""
            n = length(s)
            for (i = 1; i <= n; i++) {
                c = substr(s, i, 1)
                out = out ((c in esc) ? esc[c] : c)
            }
            return "\"" out "\""
        }
        BEGIN {
            for (i = 1; i < 32; i++) esc[sprintf("%c", i)] = sprintf("\\u%04x", i)
            esc["\n"] = "\\n"; esc["\t"] = "\\t"; esc["\r"] = "\\r"
            esc["\\"] = "\\\\"; esc["\""] = "\\\""
            RS = "\036"; FS = "\037"
            printf "{\n  \"version\": %s,\n  \"kernel\": %s,\n  \"user\": %s,\n  \"checks\": [",
                str(ENVIRON["SVJ_VERSION"]), str(ENVIRON["SVJ_KERNEL"]), str(ENVIRON["SVJ_USER"])
            sep = "\n"
        }
        NF >= 3 {
            printf "%s    {\"name\": %s, \"status\": %s, \"message\": %s, \"fix\": %s}",
                sep, str($1), str($2), str($3), ($4 == "" ? "null" : str($4))
            sep = ",\n"
        }
        END {
            printf "\n  ],\n  \"failures\": %d,\n  \"warnings\": %d,\n", ENVIRON["SVJ_NFAIL"], ENVIRON["SVJ_NWARN"]
            printf "  \"can_run\": %s,\n  \"verdict\": %s,\n  \"exit_status\": %d\n}\n",
                (ENVIRON["SVJ_RC"] == 0 ? "true" : "false"), str(ENVIRON["SVJ_VERDICT"]), ENVIRON["SVJ_RC"]
        }' "$records"
}

# node_desc NODE: "crw-rw---- root:rdma", for messages
node_desc() { stat -c '%A %U:%G' "$1" 2> /dev/null; }

# perm_fix NODE: the commands that make NODE read-write for this user. The
# kernel creates uverbs* and rdma_cm mode 0666; something changed that
# (a udev rule, a container runtime, chmod).
perm_fix() {
    local pat="${1##*/}" mode grp fix
    case "$pat" in uverbs*) pat='uverbs*' ;; esac
    fix="${sudo}chmod 666 $1  # until reboot; for good, a udev rule: echo 'KERNEL==\"$pat\", MODE=\"0666\"' | sudo tee /etc/udev/rules.d/90-rdma-mode.rules"
    # shellcheck disable=SC2046  # two words
    set -- $(stat -c '%a %G' "$1" 2> /dev/null)
    mode=${1:-000} grp=${2:-root}
    case "$mode" in
        ?[67]?) [ "$grp" != root ] && fix="sudo usermod -aG $grp $user  # then log in again; or: $fix" ;;
    esac
    printf '%s' "$fix"
}

# doctor_devnode DESC UVERBS: its /dev/infiniband node exists, is read-write
# for this user, and opens (a container's device cgroup refuses what the
# mode allows). 0 when usable; otherwise a FAIL and 1.
doctor_devnode() {
    local n="/dev/infiniband/$2" d
    chk=device_file
    if [ ! -c "$n" ]; then
        rd d "/sys/class/infiniband_verbs/$2/dev"
        p_fail "$1: sysfs has $2, but $n does not exist (a container started without the device, or no devtmpfs)" \
               "containers: --device $n (and --device /dev/infiniband/rdma_cm); else: ${sudo}mknod -m 666 $n c ${d%:*} ${d#*:}"
        return 1
    fi
    if [ ! -r "$n" ] || [ ! -w "$n" ]; then
        p_fail "$1: $n ($(node_desc "$n")) is not read-write for $user" "$(perm_fix "$n")"
        return 1
    fi
    if ! { true 3<> "$n"; } 2> /dev/null; then
        p_fail "$1: $n ($(node_desc "$n")) allows $user to read and write, but opening it fails (a container's device cgroup or a security module refuses it)" \
               "containers: --device $n; Kubernetes: an RDMA device plugin (k8s-rdma-shared-dev-plugin) or a privileged pod"
        return 1
    fi
    return 0
}

# netns_is_init: this process is in the first network namespace (true
# when that cannot be seen: only root may look at pid 1's)
netns_is_init() {
    [ ! -e /proc/1/ns/net ] || [ /proc/self/ns/net -ef /proc/1/ns/net ]
}

# doctor_devfiles: rdma_cm, the netns mode, the devices seen vs opened
# (uses kdevs, openable, netns_mode of cmd_doctor)
doctor_devfiles() {
    local n=/dev/infiniband/rdma_cm who="$user" nsd seen='' shut='' d
    chk=rdma_cm
    if [ ! -c $n ]; then
        p_warn "no $n: librdmacm programs (rping, ucx and NCCL over rdma_cm, every siw connection) cannot run" "${sudo}modprobe rdma_ucm"
    elif [ ! -r $n ] || [ ! -w $n ]; then
        p_fail "$n ($(node_desc $n)) is not read-write for $who: librdmacm programs (rping, every siw connection) fail" "$(perm_fix $n)"
    elif ! { true 3<> $n; } 2> /dev/null; then
        p_fail "$n ($(node_desc $n)) allows $who to read and write, but opening it fails (a container's device cgroup or a security module refuses it)" \
               "containers: --device $n"
    else
        p_ok "$n: read-write for $who (librdmacm)"
    fi

    chk=netns
    if netns_is_init; then nsd="this is the first network namespace"; else nsd="this process is in another network namespace"; fi
    case "$netns_mode" in
        shared) p_info "netns mode shared: every network namespace sees every RDMA device ($nsd)" \
                       "for devices bound to one namespace each: ${sudo}rdma system set netns exclusive" ;;
        exclusive) p_info "netns mode exclusive: a device is seen only in the network namespace it belongs to ($nsd)" \
                          "to move one here: ${sudo}rdma dev set <device> netns <namespace>" ;;
        *) p_info "netns mode unknown (rdma system show: apt-get install iproute2)" ;;
    esac

    chk=visibility
    for d in $kdevs; do
        seen="$seen $d"
        case " $openable " in *" $d "*) ;; *) shut="$shut $d" ;; esac
    done
    if [ -z "$shut" ]; then
        p_ok "sysfs shows${seen}; $who can open every one's /dev/infiniband/uverbs*"
    else
        p_info "sysfs shows${seen}; $who can open${openable:- none}; not:$shut (see above)"
    fi
}

# is_roce IBDEV: an Ethernet port that is not iWARP
is_roce() {
    local l
    rd l "/sys/class/infiniband/$1/ports/1/link_layer"
    [ "$l" = Ethernet ] || return 1
    rd l "/sys/class/infiniband/$1/node_type"
    case "$l" in *RNIC*) return 1 ;; esac
    return 0
}

# ip6_text VAR GID: VAR = the IPv6 text form of a full GID (leading zeros
# dropped, the longest run of two or more zero groups written ::)
ip6_text() {
    local _var="$1" IFS=: _g _i=0 _run=0 _start=0 _best=0 _bstart=-1 _out=''
    # shellcheck disable=SC2086  # split on :
    set -- $2
    for _g; do
        if [ "$_g" = 0000 ]; then
            [ $_run = 0 ] && _start=$_i
            _run=$((_run + 1))
            [ $_run -gt $_best ] && _best=$_run _bstart=$_start
        else
            _run=0
        fi
        _i=$((_i + 1))
    done
    [ $_best -lt 2 ] && _bstart=-1
    _i=0
    for _g; do
        if [ $_bstart -ge 0 ] && [ $_i -ge $_bstart ] && [ $_i -lt $((_bstart + _best)) ]; then
            [ $_i = $_bstart ] && _out="$_out::"
        else
            while :; do case "$_g" in 0?*) _g=${_g#0} ;; *) break ;; esac; done
            case "$_out" in ''|*::) _out="$_out$_g" ;; *) _out="$_out:$_g" ;; esac
        fi
        _i=$((_i + 1))
    done
    setvar "$_var" "$_out"
}

# doctor_gids IBDEV PORTDIR: the port's GID table (index, type, netdev,
# address) and the index to use for RoCE v2 over IPv4 and over IPv6
doctor_gids() {
    local dev="$1" pdir="$2" port="${2##*/}" ll roce=0 e g raw ty nd ip v4='' v6='' v6ll='' on n=0 drv
    rd ll "$pdir/link_layer"
    [ "$ll" = Ethernet ] && is_roce "$dev" && roce=1
    on=$dev
    [ "$port" = 1 ] || on="$dev port $port"
    chk=gid_table
    # One grep reads the whole table (hundreds of entries, mostly zero): a
    # process per entry would take minutes under emulation. The globs by
    # length list the entries in numeric order (0-9, 10-99 ...; an index
    # has 16 bits) without a sort; one that matches nothing is left to
    # grep, which says so on stderr.
    # shellcheck disable=SC2013  # words: "INDEX:GID", no spaces
    for e in $(grep -H -v '^0000:0000:0000:0000:0000:0000:0000:0000$' "$pdir"/gids/? \
                   "$pdir"/gids/?? "$pdir"/gids/??? "$pdir"/gids/???? "$pdir"/gids/????? 2> /dev/null); do
        e=${e##*/}
        g=${e%%:*} raw=${e#*:}
        n=$((n + 1))
        rd ty "$pdir/gid_attrs/types/$g"
        rd nd "$pdir/gid_attrs/ndevs/$g"
        if [ $roce = 0 ]; then
            p_info "$dev port $port GID index $g: $raw${ty:+ ($ty)}${nd:+, $nd}"
            continue
        fi
        case "$raw" in
            0000:0000:0000:0000:0000:ffff:*) gid_pretty ip "$raw"; ip="IPv4 ${ip#::ffff:}" ;;
            fe80:*) ip6_text ip "$raw"; ip="IPv6 $ip (link-local)" ;;
            *) ip6_text ip "$raw"; ip="IPv6 $ip" ;;
        esac
        p_info "$dev port $port GID index $g: ${ty:-type unknown}, ${nd:-no netdev}, $ip"
        [ "$ty" = "RoCE v2" ] || continue
        case "$ip" in
            IPv4*) [ -n "$v4" ] || v4=$g ;;
            *link-local*) [ -n "$v6ll" ] || v6ll=$g ;;
            *) [ -n "$v6" ] || v6=$g ;;
        esac
    done
    [ $n = 0 ] && p_info "$dev port $port: GID table empty"
    chk=gid_index
    if [ $roce = 1 ]; then
        if [ -n "$v4" ]; then
            p_info "  RoCE v2 over IPv4 on $on: GID index $v4 (e.g. ibv_rc_pingpong -d $dev -g $v4, ib_write_bw -d $dev -x $v4, NCCL_IB_GID_INDEX=$v4)"
        else
            netdev_of nd "$dev"
            p_warn "$on has no RoCE v2 IPv4 GID" \
                   "${sudo}ip addr add <address>/<prefix> dev $nd  # its netdev needs an IPv4 address"
        fi
        if [ -n "$v6" ]; then
            p_info "  RoCE v2 over IPv6 on $on: GID index $v6 (e.g. ib_write_bw -d $dev -x $v6, NCCL_IB_GID_INDEX=$v6)"
        elif [ -n "$v6ll" ]; then
            p_info "  RoCE v2 over IPv6 on $on: only the link-local GID index $v6ll (peers on the same link; a global address gives another)"
        else
            p_info "  RoCE v2 over IPv6 on $on: no GID"
        fi
    else
        kdriver drv "$dev"
        probe_lines e "device name=$dev transport=iWARP"
        if [ "$drv" = siw ] || [ -n "$e" ]; then
            netdev_of nd "$dev"
            p_info "  $dev is iWARP: no GID index; connect through rdma_cm to $nd's address"
        fi
    fi
}

# uverbs_holders: "PID uverbsN" for every open uverbs file this user may
# see (root: every process); one find, not a readlink per descriptor
uverbs_holders() {
    local dir node pid last=''
    find /proc/[0-9]*/fd -maxdepth 1 -lname '/dev/infiniband/uverbs*' -printf '%h %l\n' 2> /dev/null |
        while read -r dir node; do
            pid=${dir#/proc/} pid=${pid%/fd}
            # one line per process and device (find lists a process's
            # descriptors together)
            [ "$pid ${node##*/}" = "$last" ] && continue
            last="$pid ${node##*/}"
            echo "$last"
        done
}

# doctor_holders: each process holding a uverbs file (from $tmp/holders)
doctor_holders() {
    local pid uv lastpid='' devs='' soft='' ibdev drv
    chk=uverbs_users
    if [ ! -s "$tmp/holders" ]; then
        if is_root; then p_info "no process has a /dev/infiniband/uverbs* file open"
        else p_info "no process of $user has a /dev/infiniband/uverbs* file open (root sees every user's)"
        fi
        return 0
    fi
    # one line per process: its devices, and whether one is a soft device
    echo "end" >> "$tmp/holders"
    while read -r pid uv; do
        if [ -n "$lastpid" ] && [ "$pid" != "$lastpid" ]; then
            holder_line "$lastpid" "$devs" "$soft"
            devs='' soft=''
        fi
        [ "$pid" = end ] && break
        lastpid=$pid
        rd ibdev "/sys/class/infiniband_verbs/$uv/ibdev"
        devs="$devs, ${ibdev:-?} ($uv)"
        kdriver drv "$ibdev"
        case "$drv" in
            rxe) soft="$soft, rdma link delete $ibdev waits and modprobe -r rdma_rxe fails" ;;
            siw) soft="$soft, rdma link delete $ibdev waits and modprobe -r siw fails" ;;
        esac
    done < "$tmp/holders"
}

# holder_line PID DEVICES SOFT: rxe and siw cannot take a device away from
# a process (no disassociate_ucontext in the kernel): while one is open,
# rdma link delete waits and the module cannot be unloaded.
holder_line() {
    local comm
    { IFS= read -r comm < "/proc/$1/comm"; } 2> /dev/null || comm='?'
    if [ -n "$3" ]; then
        p_info "pid $1 ($comm) holds${2#,}: until it exits, ${3#, }" "kill $1"
    else
        p_info "pid $1 ($comm) holds${2#,}"
    fi
}

# doctor_map_count LIMIT: for each process holding a uverbs file, its
# memory mappings against vm.max_map_count. Fork safety marks each
# registered range MADV_DONTFORK, which splits a mapping into up to three:
# each registration can cost two more.
doctor_map_count() {
    local limit="$1" pid uv last='' comm what vmas dc need want
    chk=max_map_count
    while read -r pid uv; do
        [ "$pid" = "$last" ] && continue
        last=$pid
        [ "$pid" = end ] && break
        # shellcheck disable=SC2046  # two words
        set -- $(awk 'FILENAME ~ /\/maps$/ { v++ } /^VmFlags:/ && / dc( |$)/ { d++ }
                      END { print v + 0, d + 0 }' "/proc/$pid/maps" "/proc/$pid/smaps" 2> /dev/null)
        vmas=${1:-0} dc=${2:-0}
        [ "$vmas" -gt 0 ] || continue
        { IFS= read -r comm < "/proc/$pid/comm"; } 2> /dev/null || comm='?'
        need=$((vmas + 2 * dc))
        what="pid $pid ($comm): $vmas memory mappings of vm.max_map_count $limit, $dc of them DONTFORK (registered with fork safety)"
        if [ $((vmas * 10)) -ge $((limit * 9)) ] || [ $need -gt "$limit" ]; then
            want=262144
            [ $((need * 2)) -gt $want ] && want=$((need * 2))
            p_warn "$what: near the limit; as many registrations again need ~$need, and an mmap or registration beyond the limit fails with ENOMEM" \
                   "${sudo}sysctl -w vm.max_map_count=$want  # permanently: echo vm.max_map_count=$want > /etc/sysctl.d/90-rdma.conf"
        else
            p_info "$what; as many registrations again need ~$need"
        fi
    done < "$tmp/holders"
}

# iwpmd_pid VAR: VAR = the pid of a running iwpmd, if any (reads
# /proc/*/comm with the shell's read: no process per pid)
iwpmd_pid() {
    local _f _c
    for _f in /proc/[0-9]*/comm; do
        { IFS= read -r _c < "$_f"; } 2> /dev/null || continue
        [ "$_c" = iwpmd ] && { _f=${_f#/proc/}; setvar "$1" "${_f%/comm}"; return 0; }
    done
    setvar "$1" ''
    return 1
}

# doctor_iwpmd IWARP_DEVICES: the iWARP port mapper. The kernel's iWARP
# connection manager asks iwpmd (over netlink) for a port mapping only for
# devices that do not set IW_F_NO_PORT_MAP; siw sets it (its connections
# are the kernel's own TCP sockets), iWARP NICs (cxgb4, irdma) do not.
doctor_iwpmd() {
    local pid='' dev drv start
    chk=iwpmd
    iwpmd_pid pid
    start="${sudo}systemctl start iwpmd"
    [ -x /usr/sbin/iwpmd ] || command -v iwpmd > /dev/null 2>&1 ||
        start="${sudo}apt-get install rdma-core && $start"
    for dev in $1; do
        if [ -n "$pid" ]; then
            p_info "$dev: iwpmd runs (pid $pid): the kernel maps iWARP ports through it for devices that ask"
            continue
        fi
        kdriver drv "$dev"
        if [ "$drv" = siw ]; then
            p_info "$dev (siw): iwpmd is not running, and siw does not need it: its connections are the kernel's own TCP sockets, so the kernel maps no port for it (IW_F_NO_PORT_MAP); iWARP NICs need it" "$start"
        else
            p_warn "$dev ($drv): iwpmd is not running: this iWARP NIC's offloaded connections share the host's TCP ports without the kernel's port mapper, and can collide with them" "$start"
        fi
    done
}

# doctor_counters IBDEV PORT DIR: a snapshot of the port's hw_counters:
# the packet counts and the counters that explain retries and timeouts,
# the non-zero ones with their values
doctor_counters() {
    local f name val pkts='' nz='' zero=''
    chk=hw_counters
    for f in "$3"/*; do
        rd val "$f"
        [ -n "$val" ] || continue
        name=${f##*/}
        case "$name" in
            sent_pkts|rcvd_pkts) pkts="$pkts $name=$val" ;;
            *retry*|*rnr*|*seq*|duplicate_request|ack_deferred|local_ack_timeout_err|out_of_buffer|*nak*|*timeout*)
                if [ "$val" != 0 ]; then nz="$nz $name=$val"; else zero="$zero, $name"; fi ;;
        esac
    done
    [ -n "$pkts$nz$zero" ] || return 0
    p_info "$1 port $2 counters:${pkts:- (no packet counts)}; retries:${nz:- none}${zero:+ (0: ${zero#, })}"
}

# suggest_netdev VAR: VAR = an up, non-loopback interface with IPv4, else lo
suggest_netdev() {
    local _n _state
    for _n in /sys/class/net/*; do
        _n=${_n##*/}
        [ "$_n" = lo ] && continue
        rd _state "/sys/class/net/$_n/operstate"
        [ "$_state" = up ] || continue
        if command -v ip > /dev/null 2>&1 && [ -n "$(ip -4 -o addr show dev "$_n" 2> /dev/null)" ]; then
            setvar "$1" "$_n"; return
        fi
    done
    setvar "$1" lo
}
