# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/lib.sh -- sourced by the integration shell tests that
# run Debian's programs inside the test VM: one preamble, one way to start
# a softverbs end or an rdma-core end, one PASS/FAIL bookkeeping, and the
# check that a softverbs end really ran on softverbs (and, with
# SOFTVERBS_PROVIDERS=rdma-core, on rdma-core's provider library).
#
#   . "$(dirname "$0")/lib.sh"; sv_init NAME "$@"
#
# After sv_init: $here (this folder), $libdir (softverbs' library folder:
# $SOFTVERBS_LIBDIR, default lib/.libs of this tree; its physical path,
# as /proc/PID/maps and ldd name it, when reached through a link), $work (a scratch
# folder removed at exit), $verbose (1 with -v), pass=0 fail=0.
# Tests exit 77 (skip) through skip() when something they need is missing.

skip() { echo "SKIP: $*"; exit 77; }

sv_init() {
    sv_name=$1
    shift
    verbose=0
    [ "${1:-}" = -v ] && verbose=1
    here=$(cd "$(dirname "$0")" && pwd)
    libdir=${SOFTVERBS_LIBDIR:-$here/../../lib/.libs}
    [ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"
    libdir=$(cd "$libdir" && pwd -P)
    # the maps probe (tests/integration/maps_probe.c), built by make check
    sv_probe=
    for p in "${top_builddir:-.}/tests/integration/.libs/libsvmapsprobe.so" \
        "$here/.libs/libsvmapsprobe.so"; do
        [ -e "$p" ] && { sv_probe=$(cd "$(dirname "$p")" && pwd)/$(basename "$p"); break; }
    done
    [ -n "$sv_probe" ] || skip "tests/integration/.libs/libsvmapsprobe.so is not built (make check)"
    # the siw accept-race wait (tests/integration/siw_wait.c), both ends
    sv_siwwait=${sv_probe%/*}/libsvsiwwait.so
    [ -e "$sv_siwwait" ] || skip "$sv_siwwait is not built (make check)"
    work=$(mktemp -d "/tmp/$sv_name.XXXXXX") || exit 1
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/maps"
    # sv_sleep's pipe: read -t on a FIFO this shell holds open both ways
    mkfifo "$work/.sleep" && exec {sv_sleep_fd}<> "$work/.sleep"
    pass=0 fail=0
}

# Under TCG every process costs: ~50 ms for a small dynamic program,
# ~200 ms for grep or ss (measured in the test VM). The helpers below
# poll, sleep and search files with bash's builtins instead.

# sv_sleep SECS: sleep without a process (after sv_init)
sv_sleep() {
    if [ -n "${sv_sleep_fd:-}" ]; then
        read -r -t "$1" -u "$sv_sleep_fd" _
    else
        sleep "$1"
    fi
    return 0
}

# sv_slurp VAR FILE: FILE's whole text in VAR (no process)
sv_slurp() {
    IFS= read -r -d '' "$1" < "$2"
    return 0
}

# sv_has FILE TEXT: FILE contains the fixed string TEXT (grep -qF, no process)
sv_has() {
    local __c=
    [ -r "$1" ] && sv_slurp __c "$1"
    [[ $__c == *"$2"* ]]
}

# sv_grep FILE ERE: a line of FILE matches the extended regular
# expression ERE (grep -Eq, no process)
sv_grep() {
    local __l __re=$2
    [ -r "$1" ] || return 1
    while IFS= read -r __l || [ -n "$__l" ]; do
        [[ $__l =~ $__re ]] && return 0
    done < "$1"
    return 1
}

# sv_first FILE: FILE's first line (head -n 1, no process)
sv_first() {
    local __l=
    [ -r "$1" ] && IFS= read -r __l < "$1"
    printf '%s\n' "$__l"
}

# sv_info_less VAR FILE: FILE's lines but those that start "info:", in
# VAR (no process)
sv_info_less() {
    local __l __o=
    if [ -r "$2" ]; then
        while IFS= read -r __l || [ -n "$__l" ]; do
            [[ $__l == info:* ]] || __o+=$__l$'\n'
        done < "$2"
    fi
    printf -v "$1" '%s' "$__o"
}

# sv_indent FILE: FILE's lines indented by four blanks (no process)
sv_indent() {
    local __l
    [ -r "$1" ] || return 0
    while IFS= read -r __l || [ -n "$__l" ]; do printf '    %s\n' "$__l"; done < "$1"
}

# sv_pingpong_ok ITERS SRV_RC CLI_RC SRV_LOG CLI_LOG: the verdict of a
# pingpong case: both ends exited 0 and both logs say "ITERS iters in"
sv_pingpong_ok() {
    [ "$2" = 0 ] && [ "$3" = 0 ] && sv_has "$4" "$1 iters in" && sv_has "$5" "$1 iters in"
}

# sv_need_dev VAR: the device named by $VAR exists (run inside tests/vm/run)
sv_need_dev() {
    local dev=${!1:-}
    if [ -z "$dev" ] || [ ! -e "/sys/class/infiniband/$dev" ]; then
        skip "no device in $1 ('$dev'): run inside tests/vm/run"
    fi
}

# sv_need_cmd CMD PACKAGE
sv_need_cmd() {
    command -v "$1" > /dev/null || skip "$1 missing (apt-get install $2)"
}

# sv_require_loads PROG: LD_LIBRARY_PATH=$libdir makes PROG load softverbs
sv_require_loads() {
    # (grep reads it all: grep -q could leave ldd to SIGPIPE, a failure
    # under pipefail)
    LD_LIBRARY_PATH=$libdir ldd "$(command -v "$1")" |
        grep -F "$libdir/libibverbs.so.1" > /dev/null ||
        { echo "FAIL: LD_LIBRARY_PATH=$libdir does not make $1 load softverbs"; exit 1; }
}

label() {
    if [ "$1" = sv ]; then echo softverbs; else echo rdma-core; fi
}

# sv_end_pairs: the "SERVER CLIENT" pairs of a two-ended case, one per
# line: softverbs at both ends, then softverbs against rdma-core both ways
# round; only the first with SOFTVERBS_MIXED_ENDS=0 (passes/san: a mixed
# case runs our code at one end only, in a role the first case has
# already run under the sanitizers; the plain and rdma-core passes run
# them all).
sv_end_pairs() {
    echo "sv sv"
    [ "${SOFTVERBS_MIXED_ENDS:-1}" = 0 ] || printf '%s\n' "sv rc" "rc sv"
}

# sv_env sv|rc: SV_ENV=(...) the environment of one end, for env(1);
# both ends get the siw accept-race wait (an rdma_cm ESTABLISHED event on
# an iWARP device 200 ms late: tests/integration/siw_wait.c, a kernel
# race described in kmod-notes/siw.md; nothing else changes)
sv_env() {
    if [ "$1" = sv ]; then
        # SOFTVERBS_PRELOAD (the ASan runtime, first) and SOFTVERBS_EXEC_ENV
        # (its options): what the sanitized pass needs (passes/san)
        # shellcheck disable=SC2206
        SV_ENV=(LD_LIBRARY_PATH="$libdir"
                LD_PRELOAD="${SOFTVERBS_PRELOAD:+$SOFTVERBS_PRELOAD }$sv_probe $sv_siwwait"
                SV_MAPS_DIR="$work/maps" ${SOFTVERBS_EXEC_ENV:-})
    else
        # in the sanitized pass our own programs run on rdma-core too
        # (test_resolve_l2): the wait library, not sanitized, is preloaded
        # before their ASan runtime, which ASan refuses unless told
        SV_ENV=(LD_LIBRARY_PATH= LD_PRELOAD="$sv_siwwait" SV_MAPS_DIR=)
        if [ -n "${SOFTVERBS_PRELOAD:-}" ]; then
            SV_ENV+=(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
        fi
    fi
}

# listening PORT [NETPID]: a TCP socket (IPv4 or IPv6) listens on PORT in
# this network namespace, or in that of process NETPID (/proc/PID/net:
# state 0A; no process)
listening() {
    local hex f loc st
    printf -v hex '%04X' "$1"
    for f in /proc/${2:-self}/net/tcp /proc/${2:-self}/net/tcp6; do
        [ -r "$f" ] || continue
        while read -r _ loc _ st _; do
            [ "$st" = 0A ] && [ "${loc##*:}" = "$hex" ] && return 0
        done < "$f"
    done
    return 1
}

# sv_wait_port PORT PID [NETPID]: until PORT listens (in NETPID's network
# namespace) or PID is gone (10 s)
sv_wait_port() {
    local i
    for ((i = 0; i < 500; i++)); do
        listening "$1" "${3:-}" && return 0
        kill -0 "$2" 2> /dev/null || return 1
        sv_sleep 0.02
    done
    return 1
}

# sv_wait_cm_listen PORT PID: until an rdma_cm id listens on PORT (rdma
# res show cm_id) or PID is gone (15 s)
sv_wait_cm_listen() {
    local i re="LISTEN[^"$'\n'"]*:$1 "
    for ((i = 0; i < 300; i++)); do
        [[ $(rdma res show cm_id 2> /dev/null) =~ $re ]] && return 0
        kill -0 "$2" 2> /dev/null || return 1
        sv_sleep 0.05
    done
    return 1
}

# sv_provider_lib DEV: the rdma-core provider library that drives DEV
# (a grep -E pattern: lib<name>-rdmav<N>.so, N the provider ABI node of
# the rdma-core installed: 34 on Debian 12 and 13, 65 on unstable)
sv_provider_lib() {
    case $1 in
        rxe*) echo 'librxe-rdmav[0-9]+\.so' ;;
        siw*) echo 'libsiw-rdmav[0-9]+\.so' ;;
        vmw_pvrdma*) echo 'libvmw_pvrdma-rdmav[0-9]+\.so' ;;
        *) echo 'lib.*-rdmav[0-9]+\.so' ;;
    esac
}

# sv_maps_check DEV...: every softverbs end that exited since the last
# call (a maps.<pid> file from the probe) had softverbs' libibverbs mapped,
# and the provider libraries that match the mode: rdma-core's for each DEV
# under SOFTVERBS_PROVIDERS=rdma-core, none of rdma-core's for rxe/siw in
# the native mode. Prints why not; clears the files. 0 ok, 1 not.
sv_maps_check() {
    local dev want re f c first n=0 bad=0 nl=$'\n'
    for f in "$work"/maps/maps.*; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        sv_slurp c "$f"
        first=${c%%"$nl"*}
        if [[ $c != *" $libdir/libibverbs.so"* ]]; then
            echo "  maps: $first did not map softverbs' libibverbs from $libdir:"
            grep libibverbs "$f" | sed 's/^/    /' | head -n 3
            bad=1
        fi
        if [ "${SOFTVERBS_PROVIDERS:-native}" = rdma-core ]; then
            for dev in "$@"; do
                want=$(sv_provider_lib "$dev")
                re="/$want($nl|\$)"
                [[ $c =~ $re ]] || {
                    echo "  maps: $first did not map rdma-core's $want"
                    bad=1
                }
            done
        elif re="/lib(rxe|siw)-rdmav[0-9]+\\.so($nl|\$)" && [[ $c =~ $re ]]; then
            echo "  maps: $first mapped an rdma-core provider in native mode"
            bad=1
        fi
    done
    [ $n = 0 ] || rm -f "$work"/maps/maps.*
    if [ $n = 0 ]; then
        echo "  maps: no softverbs end left a maps record (did it exit normally?)"
        return 1
    fi
    return $bad
}

# sv_perftest_table LOG: a perftest client's LOG holds its "#bytes"
# header and a numeric row under it (its result table)
sv_perftest_table() {
    awk '/^ *#bytes/ { hdr = 1; next }
         hdr && /^ *[0-9]+ +[0-9]+ +[0-9.]+/ { row = 1 }
         END { exit !(hdr && row) }' "$1"
}

# sv_perftest_noise SRV_RC CLI_RC SERVER_LOG CLIENT_LOG: a perftest
# failure that emulation noise explains (a timeout, perftest's CPU clock
# checks, a transport retry, a lost TCP exchange): prints the reason,
# fails when nothing in the logs explains it
sv_perftest_noise() {
    local pat='frequency|calibrat|Correlation coefficient|status=12|RETRY_EXC|retry exceeded|Unable to init the socket|Couldn.t connect'
    case " $1 $2 " in
        *" 124 "* | *" 137 "*) echo "timed out"; return 0 ;;
    esac
    if grep -qE '^ *[0-9]+ +[0-9]+ +(inf|-?nan)' "$4"; then
        echo "perftest's clock read inf/nan"
        return 0
    fi
    grep -hiE -m 1 "$pat" "$4" "$3" | head -n 1 | sed 's/^ *//' | grep .
}

# sv_result NAME OK [DETAIL...]: count and print one case
sv_result() {
    local name=$1 ok=$2
    shift 2
    if [ "$ok" = 1 ]; then
        echo "PASS: $name"
        pass=$((pass + 1))
    else
        echo "FAIL: $name${1:+: $*}"
        fail=$((fail + 1))
    fi
}

# sv_finish: the summary line; the exit status of the test
sv_finish() {
    echo "$sv_name: $pass passed, $fail failed"
    [ $fail = 0 ]
}
