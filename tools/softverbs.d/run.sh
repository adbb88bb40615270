# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# softverbs run: a command on softverbs' (or the system's) libibverbs.so.1.
# Part of the softverbs command: make puts it into tools/softverbs where
# tools/softverbs.in includes it (#@include). POSIX sh.

# ---- run --------------------------------------------------------------------

cmd_run() {
    local lib=softverbs dir rest
    while [ $# -gt 0 ]; do
        case "$1" in
            --rdma-core) lib=rdma-core; shift ;;
            --softverbs) lib=softverbs; shift ;;
            --) shift; break ;;
            -h|--help) usage; exit 0 ;;
            -*) msg "run: unknown option $1"; usage >&2; exit 2 ;;
            *) break ;;
        esac
    done
    [ $# -gt 0 ] || { msg "run: no COMMAND"; usage >&2; exit 2; }
    if [ $lib = softverbs ]; then dir=$(sv_libdir) || exit 127
    else dir=$(sv_system_libdir) || exit 127
    fi
    # rdma-core: the system folder first as well, because the installed
    # examples carry a RUNPATH to softverbs' folder and LD_LIBRARY_PATH is
    # the only thing that wins over it.
    rest=$(strip_verbs_dirs "${LD_LIBRARY_PATH:-}")
    LD_LIBRARY_PATH=$dir${rest:+:$rest}
    export LD_LIBRARY_PATH
    command -v "$1" > /dev/null 2>&1 || { msg "$1: command not found"; exit 127; }
    # exec: COMMAND replaces this shell, so signals reach it directly and
    # its exit status (or death by a signal) is the caller's.
    exec "$@"
}
