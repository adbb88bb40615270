# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# softverbs trace: a command or a process under bpftrace, summarised from
# the library's USDT probes.
# Part of the softverbs command: make puts it into tools/softverbs where
# tools/softverbs.in includes it (#@include). POSIX sh.

# ---- trace --------------------------------------------------------------------

# The bpftrace program for the library LIB and the process PID, printing
# its maps every INTERVAL seconds (0: only at the end). Its output, read
# by trace_summary: "=== begin" once the probes are attached; map lines
# "@map[k1, k2, ...]: value" between "=== T" and "=== end" (T: seconds
# since the start, or "exit"); "=name ADDRESS STRING" the first time a
# string argument (a device or opcode name) shows up; "=err VERB ERRNO"
# for each failed verb.
# Every location of a probe (verb_error has one per failing return) is a
# program of its own that bpftrace compiles and the kernel verifies, so
# the bodies are small: integer map keys only (the address of a device or
# opcode name stands for it), a string read only the first time its
# address shows up, and only the probes the summary needs.
trace_program() {
    local lib="$1" pid="$2" interval="$3" maps u="usdt:$1"
    maps='print(@post); print(@postb); print(@recv); print(@recvb); print(@comp);'
    cat << EOF
BEGIN { printf("=== begin\\n"); }
$u:rdma_core_rxe:post_send, $u:rdma_core_siw:post_send
/pid == $pid/
{ @post[arg0, arg1, arg2] = count(); @postb[arg0, arg1] = sum(arg3);
  if (@name[arg0] == 0) { @name[arg0] = 1; printf("=name %llu %s\\n", arg0, str(arg0)); }
  if (@name[arg2] == 0) { @name[arg2] = 1; printf("=name %llu %s\\n", arg2, str(arg2)); } }
$u:softverbs:post_recv
/pid == $pid/
{ @recv[arg0, arg1] = count(); @recvb[arg0, arg1] = sum(arg3);
  if (@name[arg0] == 0) { @name[arg0] = 1; printf("=name %llu %s\\n", arg0, str(arg0)); } }
$u:softverbs:poll_cq
/pid == $pid/
{ @comp[arg0, arg2, arg4] = count();
  if (@name[arg0] == 0) { @name[arg0] = 1; printf("=name %llu %s\\n", arg0, str(arg0)); } }
$u:softverbs:verb_error
/pid == $pid/
{ printf("=err %s %d\\n", str(arg0), arg1); }
EOF
    if [ "$interval" -gt 0 ]; then
        cat << EOF
interval:s:$interval
{ printf("=== %d\\n", elapsed / 1000000000); $maps printf("=== end\\n"); }
EOF
    fi
    cat << EOF
END
{ printf("=== exit\\n"); $maps printf("=== end\\n");
  clear(@post); clear(@postb); clear(@recv); clear(@recvb); clear(@comp); clear(@name); }
EOF
}

# bpftrace's output in, the summary out: one line per QP (device and QP
# number) and one per failed verb and errno; anything else bpftrace says
# goes to stderr. Completions count for the QP the work completion names
# (wc.qp_num); receives posted to an SRQ count for "qp 0". When bpftrace
# has attached every probe, "softverbs trace: probes attached" goes to
# stderr and the file BEGUN is made. $AWK is the awk command: with
# line-buffered input (mawk reads a FIFO in blocks otherwise, and sits on
# the lines until a block is full).
trace_summary() {
    # shellcheck disable=SC2086,SC2016
    $AWK -v begun="$1" '
    function status(s) { return (s in st) ? st[s] : "status-" s }
    function name(a) { return (a in nm) ? nm[a] : "?" }
    BEGIN {
        n = split("success loc-len-err loc-qp-op-err loc-eec-op-err loc-prot-err wr-flush-err mw-bind-err bad-resp-err loc-access-err rem-inv-req-err rem-access-err rem-op-err retry-exc-err rnr-retry-exc-err loc-rdd-viol-err rem-inv-rd-req-err rem-abort-err inv-eecn-err inv-eec-state-err fatal-err resp-timeout-err general-err tm-err tm-rndv-incomplete", a, " ")
        for (i = 1; i <= n; i++) st[i - 1] = a[i]
    }
    /^=== end$/ {
        printf "softverbs trace: %s\n", when
        nq = 0
        for (q in qps) qlist[++nq] = q
        if (!nq) print "  no posts, receives or completions"
        for (i = 1; i <= nq; i++) {
            q = qlist[i]; split(q, k, SUBSEP)
            ops = ""
            for (o in post) { split(o, p, SUBSEP); if (p[1] SUBSEP p[2] == q) ops = ops (ops == "" ? "" : ", ") name(p[3]) " " post[o] }
            cs = ""
            for (o in comp) { split(o, p, SUBSEP); if (p[1] SUBSEP p[2] == q) cs = cs (cs == "" ? "" : ", ") status(p[3]) " " comp[o] }
            printf "  qp %s (%s): posts %d%s, %d bytes; recvs %d, %d bytes; completions %d%s\n", \
                k[2], name(k[1]), nposts[q] + 0, ops == "" ? "" : " (" ops ")", postb[q] + 0, \
                recv[q] + 0, recvb[q] + 0, ncomp[q] + 0, cs == "" ? "" : " (" cs ")"
        }
        for (e in err) { split(e, p, SUBSEP); printf "  error: %s failed with errno %s, %d times\n", p[1], p[2], err[e] }
        fflush()
        delete qps; delete post; delete nposts; delete postb; delete recv; delete recvb
        delete comp; delete ncomp; delete qlist
        next
    }
    /^=== begin$/ { print "softverbs trace: probes attached" > "/dev/stderr"; printf "" > begun; close(begun); fflush(""); next }
    /^=== / { when = ($2 == "exit") ? "at exit" : "after " $2 " s"; next }
    /^=name [0-9]+ / { nm[$2] = substr($0, length($2) + 8); next }
    /^=err [^ ]+ [0-9]+$/ { err[$2 SUBSEP $3]++; next }
    /^@[a-z]+\[.*\]: [0-9]+$/ {
        m = substr($0, 2, index($0, "[") - 2)
        keys = substr($0, index($0, "[") + 1); keys = substr(keys, 1, index(keys, "]: ") - 1)
        v = substr($0, index($0, "]: ") + 3) + 0
        split(keys, k, ", ")
        q = k[1] SUBSEP k[2]
        if (m == "post") { post[q SUBSEP k[3]] = v; nposts[q] += v; qps[q] = 1 }
        else if (m == "postb") { postb[q] = v; qps[q] = 1 }
        else if (m == "recv") { recv[q] = v; qps[q] = 1 }
        else if (m == "recvb") { recvb[q] = v; qps[q] = 1 }
        else if (m == "comp") { comp[q SUBSEP k[3]] = v; ncomp[q] += v; qps[q] = 1 }
        next
    }
    /^$/ { next }
    { print > "/dev/stderr" }
    '
}

# The libibverbs.so.1 the process PID has mapped, as a path this process
# can open: the path itself when PID sees our root, else through
# /proc/PID/root (the file the process sees; bpftrace 0.17 refuses such
# a path, newer ones take it).
trace_lib_of_pid() {
    local f
    f=$(awk '$6 ~ /\/libibverbs\.so\.1/ { print $6; exit }' "/proc/$1/maps" 2> /dev/null)
    [ -n "$f" ] || return 1
    if [ "$(readlink "/proc/$1/root")" = / ] && [ -e "$f" ]; then
        printf '%s' "$f"
    else
        printf '%s' "/proc/$1/root$f"
    fi
}

# bpftrace removes its uprobes at the end through tracefs (uprobe_events;
# without it they stay, and the next bpftrace fails on them): mount it
# where the kernel has it and nobody has, or say what is missing.
trace_tracefs() {
    local t=/sys/kernel/tracing
    [ -e "$t/uprobe_events" ] && return 0
    [ -e /sys/kernel/debug/tracing/uprobe_events ] && return 0
    if [ -d "$t" ] && mount -t tracefs tracefs "$t" 2> /dev/null &&
        [ -e "$t/uprobe_events" ]; then
        return 0
    fi
    msg "trace: tracefs is not mounted (mount -t tracefs tracefs $t): bpftrace may leave its uprobes behind"
}

cmd_trace() {
    local pid='' interval=0 dir='' lib rest tmp a bt status=0 stop cmd=''
    while [ $# -gt 0 ]; do
        case "$1" in
            -p) [ $# -ge 2 ] || { msg "trace: -p needs a PID"; exit 2; }; pid=$2; shift 2 ;;
            -i) [ $# -ge 2 ] || { msg "trace: -i needs SECONDS"; exit 2; }; interval=$2; shift 2 ;;
            --) shift; break ;;
            -h|--help) usage; exit 0 ;;
            -*) msg "trace: unknown option $1"; usage >&2; exit 2 ;;
            *) break ;;
        esac
    done
    case "$interval" in ''|*[!0-9]*) msg "trace: -i takes whole seconds, not '$interval'"; exit 2 ;; esac
    if [ -n "$pid" ]; then
        [ $# = 0 ] || { msg "trace: -p PID or a COMMAND, not both"; exit 2; }
        case "$pid" in *[!0-9]*) msg "trace: -p takes a process id, not '$pid'"; exit 2 ;; esac
        [ -d "/proc/$pid" ] || die "trace: no process $pid"
    else
        [ $# -gt 0 ] || { msg "trace: no COMMAND (or -p PID)"; usage >&2; exit 2; }
    fi
    command -v bpftrace > /dev/null 2>&1 ||
        die "trace: bpftrace is not installed (apt-get install bpftrace)"
    is_root || die "trace: bpftrace needs root (sudo softverbs trace ...)"
    if [ -n "$pid" ]; then
        lib=$(trace_lib_of_pid "$pid") ||
            die "trace: process $pid has no libibverbs.so.1 mapped (not an RDMA program, or not yet)"
    else
        dir=$(sv_libdir) || exit 127
        command -v "$1" > /dev/null 2>&1 || { msg "$1: command not found"; exit 127; }
        # the file itself: bpftrace reads its notes
        lib=$(readlink -f "$dir/libibverbs.so.1")
        cmd=1
    fi
    # a probe's name is in the library's notes only (bpftrace -l tells
    # the same, in seconds)
    LC_ALL=C grep -q -a 'verb_error' "$lib" 2> /dev/null ||
        die "trace: $lib has no softverbs probes (rdma-core's library, or a softverbs without them)"
    trace_tracefs
    AWK="awk"
    case "$(awk -W version 2>&1 | head -n 1)" in mawk*) AWK="awk -W interactive" ;; esac
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/softverbs-trace.XXXXXX") || exit 1
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" EXIT
    # Ctrl-C: stop tracing, print the summary
    stop=0
    trap 'stop=1' INT TERM
    # short strings: less BPF stack, less to copy
    BPFTRACE_STRLEN=${BPFTRACE_STRLEN:-32}
    export BPFTRACE_STRLEN
    # bpftrace's output through a FIFO to the summary; the command's own
    # output stays where it was. The probes are attached to the library
    # file for every process and filtered on the process id: bpftrace's
    # -c and -p look for them in the process's mappings, which a command
    # has not made yet when it starts.
    mkfifo "$tmp/out" "$tmp/go" || exit 1
    trace_summary "$tmp/begun" < "$tmp/out" &
    a=$!
    if [ -n "$cmd" ]; then
        # the command's process, waiting until the probes are attached;
        # exec keeps its process id
        rest=$(strip_verbs_dirs "${LD_LIBRARY_PATH:-}")
        (
            read -r go < "$tmp/go" && [ "$go" = go ] || exit 1
            exec env LD_LIBRARY_PATH="$dir${rest:+:$rest}" "$@"
        ) &
        pid=$!
    fi
    trace_program "$lib" "$pid" "$interval" > "$tmp/prog.bt"
    # stdout, not -o FILE: -B none unbuffers stdout only, and bpftrace
    # writes a -o file when it exits. A background job of a script
    # ignores SIGINT, and bpftrace would inherit that: env restores it.
    env --default-signal=INT bpftrace -q -B none "$tmp/prog.bt" > "$tmp/out" 2> "$tmp/bt.err" &
    bt=$!
    # attached when BEGIN has run (its line reached the summary)
    while [ $stop = 0 ] && kill -0 "$bt" 2> /dev/null && ! [ -e "$tmp/begun" ]; do
        sleep 0.1
    done
    if ! [ -e "$tmp/begun" ]; then
        # bpftrace failed, or Ctrl-C before it was ready: the command
        # does not run untraced
        kill -INT "$bt" 2> /dev/null
        wait "$bt"
        [ -n "$cmd" ] && echo no > "$tmp/go"
        wait "$a"
        cat "$tmp/bt.err" >&2
        die "trace: bpftrace did not attach the probes"
    fi
    [ -n "$cmd" ] && echo go > "$tmp/go"
    while [ $stop = 0 ] && kill -0 "$pid" 2> /dev/null && kill -0 "$bt" 2> /dev/null; do
        sleep 0.2
    done
    if [ -n "$cmd" ] && [ $stop = 0 ]; then
        wait "$pid"
        status=$?
    fi
    kill -INT "$bt" 2> /dev/null
    wait "$bt"
    cat "$tmp/bt.err" >&2
    wait "$a"
    return $status
}
