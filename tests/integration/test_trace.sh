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
#  - softverbs trace -- ibv_rc_pingpong (the client; the server untraced,
#    in the background), legacy ibv_post_send and the ibv_wr_* API (-N):
#    the client's QP made exactly the posts, receives and completions the
#    pingpong makes (below);
#  - softverbs trace -p PID of a running pingpong server: the same for
#    what it did after the probes were attached.
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
iters=50 rx=10 size=4096 tmo=120

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
# bpftrace attaches through tracefs/debugfs on some kernels
if [ ! -e /sys/kernel/tracing/uprobe_events ] && [ -d /sys/kernel/tracing ]; then
    mount -t tracefs tracefs /sys/kernel/tracing 2> /dev/null
fi
if [ ! -e /sys/kernel/debug/tracing ] && [ -d /sys/kernel/debug ]; then
    mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null
fi

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

# expect FILE WHAT RECVS: the one QP line "at exit" of softverbs trace's
# output FILE says what N iterations make
expect() {
    local f=$1 what=$2 recvs=$3 line want
    line=$(awk '/^softverbs trace: at exit/ { f = 1; next } f && /^  qp /' "$f")
    want="posts $iters (send $iters), $((iters * size)) bytes; recvs $recvs, $((recvs * size)) bytes; completions $((2 * iters)) (success $((2 * iters)))"
    if [ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] &&
        [ "${line#*): }" = "$want" ]; then
        sv_result "$what" 1
        [ $verbose = 1 ] && echo "  $line"
    else
        sv_result "$what" 0 "want '$want'"
        echo "---- trace output:"; cat "$f"; echo "---- stderr:"; cat "$f.err"
    fi
}

pingpong() { # ARGS: ibv_rc_pingpong on softverbs, under a timeout
    LD_LIBRARY_PATH=$libdir timeout -k 5 $tmo \
        ibv_rc_pingpong -d "$dev" -g "$gid" -n $iters -r $rx -s $size -p $port "$@"
}

# the client traced from its start, the server in the background
for api in "" -N; do
    port=$((port + 1))
    pingpong $api > "$work/server.log" 2>&1 &
    spid=$!
    sv_wait_port $port $spid
    timeout -k 5 $tmo "$tool" trace -i 1 -- ibv_rc_pingpong -d "$dev" -g "$gid" \
        -n $iters -r $rx -s $size -p $port $api 127.0.0.1 \
        > "$work/trace" 2> "$work/trace.err"
    wait $spid
    expect "$work/trace" "softverbs trace -- ibv_rc_pingpong ${api:+$api }-n $iters -r $rx (client)" $recvs_all
    grep -q "$iters iters in" "$work/trace.err" "$work/trace" ||
        sv_result "the traced pingpong ran its $iters iterations" 0 "$(tail -n 3 "$work/trace.err")"
done

# attached to the server once it listens (its first receives are posted)
port=$((port + 1))
pingpong > "$work/server.log" 2>&1 &
spid=$!
sv_wait_port $port $spid
ppid_=$(pgrep -P $spid ibv_rc_pingpong) # timeout's child
"$tool" trace -p "${ppid_:-$spid}" > "$work/ptrace" 2> "$work/ptrace.err" &
tpid=$!
for _ in $(seq 600); do
    grep -q "probes attached" "$work/ptrace.err" && break
    kill -0 $tpid 2> /dev/null || break
    sleep 0.1
done
pingpong 127.0.0.1 > "$work/client.log" 2>&1
wait $spid
wait $tpid
expect "$work/ptrace" "softverbs trace -p PID (the pingpong server, attached after its first $rx receives)" $recvs_late

sv_finish
