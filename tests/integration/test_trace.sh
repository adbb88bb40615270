#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_trace.sh -- the USDT probes and `softverbs trace`,
# inside the test VM (root, rxe).
#
#   test_trace.sh [-v]
#
# Cases:
#  - readelf -n of the built library lists exactly the probes of the
#    PROBES section of softverbs(7) (read from the page, so that the two
#    cannot drift apart);
#  - bpftrace -l lists every one of them;
#  - softverbs trace -- ibv_rc_pingpong (the client, legacy
#    ibv_post_send; the server untraced, in the background): its QP made
#    exactly the posts, receives and completions that the pingpong says
#    it made and that it makes (below);
#  - softverbs trace -p PID of a running pingpong server (the ibv_wr_*
#    API, -N): the same for what it did after the probes were attached.
# The tool starts the command (or says it attached to PID) only once
# bpftrace has attached its probes, which takes tens of seconds under
# emulation (TCG): the timeouts are generous, nothing sleeps a fixed time.
# ibv_rc_pingpong (rdma-core's libibverbs/examples/rc_pingpong.c) with -n N
# and -r R: each side posts N sends (IBV_WR_SEND, -s bytes each) and gets
# N send and N receive completions, all successful; it posts R receives
# before it exchanges addresses, and R-1 more each time R-1 receives have
# completed (routs down to 1), so R + (R-1)*floor(N/(R-1)) in all.
# Exit 0 all passed, 1 some failed, 77 skipped (no rxe device, no bpftrace,
# not root, no pingpong).
#
# Environment: RXE_DEV, RXE_GID (tests/vm/run); SOFTVERBS_LIBDIR.
set -u
. "$(dirname "$0")/lib.sh"
sv_init test_trace "$@"
dev=${RXE_DEV:-}
gid=${RXE_GID:-}
iters=50 rx=10 size=4096 tmo=300

sv_need_dev RXE_DEV
[ -n "$gid" ] || skip "RXE_GID is not set"
sv_need_cmd readelf binutils
sv_need_cmd bpftrace bpftrace
sv_need_cmd ibv_rc_pingpong ibverbs-utils
[ "$(id -u)" = 0 ] || skip "bpftrace needs root"
man=$here/../../doc/softverbs.7
[ -e "$man" ] || skip "no $man"
tool=$libdir/../../tools/softverbs
[ -x "$tool" ] || skip "no $tool (make)"
lib=$(readlink -f "$libdir/libibverbs.so.1")
# ---- the list ------------------------------------------------------------------

# softverbs(7)'s PROBES section: one "provider:name" per line, sorted
sed -n '/^\.SH PROBES/,/^\.SH /p' "$man" |
    sed -n 's/^\.B \([a-z_]*:[a-z_]*\)(.*/\1/p' | sort -u > "$work/man"
readelf -n "$lib" | awk '/Provider:/ { p = $2 } /Name:/ && p { print p ":" $2; p = "" }' |
    sort -u > "$work/elf"
n=$(wc -l < "$work/man")
ok=0
[ "$n" -ge 10 ] && cmp -s "$work/man" "$work/elf" && ok=1
sv_result "readelf -n lists the $n probes of softverbs(7)" $ok \
    "$(diff "$work/man" "$work/elf" | grep '^[<>]' | tr '\n' ' ')"

bpftrace -l "usdt:$lib:*" 2> "$work/bt.err" | sed 's/^usdt:[^:]*://' | sort -u > "$work/bt"
ok=0
[ -s "$work/bt" ] && cmp -s "$work/man" "$work/bt" && ok=1
sv_result "bpftrace -l lists every probe" $ok \
    "$(diff "$work/man" "$work/bt" | grep '^[<>]' | tr '\n' ' ') $(head -c 300 "$work/bt.err")"

# ---- the pingpong --------------------------------------------------------------

port=18800
recvs_all=$((rx + (rx - 1) * (iters / (rx - 1))))
recvs_late=$(((rx - 1) * (iters / (rx - 1))))

# expect FILE LOG WHAT RECVS: the one QP line "at exit" of softverbs
# trace's output FILE says what the pingpong whose output is LOG says it
# did ("B bytes in", B = 2 * size * iterations; "N iters in"): N sends of
# B/2 bytes in all, RECVS receives, 2N successful completions
expect() {
    local f=$1 log=$2 what=$3 recvs=$4 line want n b d
    line=$(awk '/^softverbs trace: at exit/ { f = 1; next } f && /^  qp /' "$f")
    n=$(sed -n 's/^\([0-9]*\) iters in .*/\1/p' "$log")
    b=$(sed -n 's/^\([0-9]*\) bytes in .*/\1/p' "$log")
    if [ "$n" != $iters ] || [ "$b" != $((2 * iters * size)) ]; then
        sv_result "$what" 0 "the pingpong did not say it made $iters iterations of $size bytes: $(tail -n 3 "$log" | tr '\n' ' ')"
        return
    fi
    want="posts $n (send $n), $((b / 2)) bytes; recvs $recvs, $((recvs * size)) bytes; completions $((2 * n)) (success $((2 * n)))"
    d=$(printf '%s\n' "$line" | sed -n 's/^  qp [0-9]* (\(.*\)): .*/\1/p')
    if [ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] && [ "$d" = "$dev" ] &&
        [ "${line#*): }" = "$want" ]; then
        sv_result "$what" 1
        [ $verbose = 1 ] && echo "  $line"
    else
        sv_result "$what" 0 "want '  qp N ($dev): $want'"
        echo "---- trace output:"; cat "$f"; echo "---- stderr:"; cat "$f.err"
    fi
}

pingpong() { # ARGS: ibv_rc_pingpong on softverbs, under a timeout
    LD_LIBRARY_PATH=$libdir timeout -k 5 $tmo \
        ibv_rc_pingpong -d "$dev" -g "$gid" -n $iters -r $rx -s $size -p $port "$@"
}

# the client traced from its start (legacy ibv_post_send), the server in
# the background, untraced; bpftrace takes long to attach under emulation
# (the tool starts the command only then)
port=$((port + 1))
pingpong > "$work/server.log" 2>&1 &
spid=$!
if ! sv_wait_port $port $spid; then
    sv_result "the pingpong server listens" 0 "$(tail -n 3 "$work/server.log")"
else
    timeout -k 5 $((2 * tmo)) "$tool" trace -i 1 -- ibv_rc_pingpong -d "$dev" -g "$gid" \
        -n $iters -r $rx -s $size -p $port 127.0.0.1 \
        > "$work/trace" 2> "$work/trace.err"
    # the server times out (and the case fails) if the tool never starts it
    kill $spid 2> /dev/null
    wait $spid
    expect "$work/trace" "$work/trace" \
        "softverbs trace -- ibv_rc_pingpong -n $iters -r $rx (the client, from its start)" $recvs_all
fi

# attached to a running server (ibv_wr_* API: -N) once it listens, with
# its first receives posted already
port=$((port + 1))
pingpong -N > "$work/server.log" 2>&1 &
spid=$!
if ! sv_wait_port $port $spid; then
    sv_result "the pingpong server listens" 0 "$(tail -n 3 "$work/server.log")"
else
    # the pingpong itself: a child of timeout, a child of the subshell
    pp=$spid
    while [ -n "$pp" ] && [ "$(cat "/proc/$pp/comm" 2> /dev/null)" != ibv_rc_pingpong ]; do
        pp=$(pgrep -P "$pp" | head -n 1)
    done
    "$tool" trace -p "${pp:-$spid}" > "$work/ptrace" 2> "$work/ptrace.err" &
    tpid=$!
    # until the tool says the probes are attached (or gives up)
    for _ in $(seq $((5 * tmo))); do
        grep -q "probes attached" "$work/ptrace.err" && break
        kill -0 $tpid 2> /dev/null || break
        sleep 0.2
    done
    pingpong -N 127.0.0.1 > "$work/client.log" 2>&1
    wait $spid
    wait $tpid
    expect "$work/ptrace" "$work/server.log" \
        "softverbs trace -p PID (a pingpong server -N, attached after its first $rx receives)" $recvs_late
fi

sv_finish
