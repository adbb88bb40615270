#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_fault.sh -- Debian's programs between two
# processes on uroce0 over lo under SOFTVERBS_UROCE_FAULTS, and their
# packets in SOFTVERBS_UROCE_PCAP files read by tshark (issue 39):
#
#  - ibv_rc_pingpong -c under each fault (loss, corrupt, dup, reorder,
#    delay); ibv_uc_pingpong -c and ibv_ud_pingpong -c (one-packet
#    messages) under delay and reorder, the faults that keep every
#    message (UC and UD have no recovery: a lost, corrupted or
#    duplicated message is lost or delivered twice by design, and the
#    pingpongs then wait for ever or miscount). Both ends exit 0, report
#    their iterations and no invalid data (-c), and their close-time log
#    lines (SOFTVERBS_LOG=info) show that the fault happened: lost,
#    corrupted (and the ICRC mismatches it caused at the receiver),
#    duplicated, reordered or delayed packets;
#  - perftest's ib_write_bw, ib_read_bw and ib_send_bw under each fault:
#    both ends exit 0 and the client prints its result line (perftest
#    does not check contents);
#  - captures: ibv_rc_pingpong under loss, dup and reorder, and
#    ibv_ud_pingpong, each end writing a pcap file (cap.%p): tshark
#    decodes every packet as InfiniBand (RoCE v2 on UDP 4791), none
#    malformed, and each file holds as many packets as its process says
#    it sent and received, and every ICRC in it is right
#    (tests/integration/roce_icrc_check.py, with python3). Without tshark
#    this part is left out (said so), and without anything else to run
#    the test exits 77;
#  - over lo's ::1 (RoCE v2 over UDP/IPv6; -g its GID index, read in the
#    pair's namespace; SKIP when lo has none there): ibv_rc_pingpong -c
#    under corrupt (the receivers' IPv6 ICRC check drops the corrupted
#    copies), and the two captures again.
#
# SOFTVERBS_UROCE_FAULTS' parser, the generator's determinism (one seed,
# one sequence), RETRY_EXC_ERR under loss=1 and AT_SECURE are
# test_uroce_fault.c's.
#
# Needs ibverbs-utils, perftest, ss (iproute2); tshark for the captures.
# Exits 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
. "$(dirname "$0")/uroce_lib.sh"
uroce_init test_uroce_fault ibverbs-utils ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong
for p in ib_write_bw ib_read_bw ib_send_bw; do
    command -v $p > /dev/null || skip "$p missing (apt-get install perftest)"
done
command -v ss > /dev/null || skip "ss missing (apt-get install iproute2)"
conf+=(SOFTVERBS_LOG=info)
icrc_check=$(cd "$(dirname "$0")/../integration" && pwd)/roce_icrc_check.py

# One pair, run by `as`: a free port, the server, the client once the
# server listens; both statuses go to DIR/rc. The environment DIR/env
# names (the faults, the capture) is the pair's.
cat > "$work/pair.sh" << 'EOF'
dir=$1
shift
set -a
. "$dir/env"
set +a
# -g GID6: the GID index of ::1 here
if [ "${*/GID6/}" != "$*" ]; then
    gid=$(ibv_devinfo -d uroce0 -v | sed -n 's/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::1, .*/\1/p' | head -n 1)
    if [ -z "$gid" ]; then
        echo "lo has no ::1 GID here: net.ipv6.conf.lo.disable_ipv6 = $(cat /proc/sys/net/ipv6/conf/lo/disable_ipv6 2>&1)" > "$dir/srv"
        echo "77 77" > "$dir/rc"
        exit
    fi
    set -- "${@/GID6/$gid}"
fi
for try in $(seq 20); do
    port=$((20000 + RANDOM % 20000))
    [ -z "$(ss -Hltn "sport = :$port")" ] && break
done
start=$(date +%s%N)
timeout 60 "$@" -p $port > "$dir/srv" 2>&1 &
srv=$!
for try in $(seq 250); do
    [ -n "$(ss -Hltn "sport = :$port")" ] && break
    kill -0 $srv 2> /dev/null || break
    sleep 0.02
done
timeout 60 "$@" -p $port 127.0.0.1 > "$dir/cli" 2>&1
cli=$?
wait $srv
echo "$? $cli" > "$dir/rc"
echo $((($(date +%s%N) - start) / 1000000)) > "$dir/ms"
EOF

# Two cases at a time (perftest sleeps in its handshakes).
lanes=${LANES:-2}
ncase=0
# case_ KIND NAME ENV PROGRAM [ARG...]: KIND pingpong, perftest or pcap
case_() {
    local kind=$1 name=$2 env=$3 dir
    shift 3
    ncase=$((ncase + 1))
    dir=$work/case$ncase
    mkdir "$dir" && chmod a+rwx "$dir"
    printf '%s\n%s\n%s\n' "$kind" "$who: $name" "$env" > "$dir/what"
    printf '%s\n' "$env" | tr ' ' '\n' | sed "s|@DIR@|$dir|" > "$dir/env"
    while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n; done
    as bash "$work/pair.sh" "$dir" "$@" &
}

# The sum over both ends of one number of their close-time lines:
# total DIR 'sed expression printing the number'
total() {
    cat "$1/srv" "$1/cli" | sed -n "$2" | awk '{ s += $1 } END { print s + 0 }'
}

# The fault named in ENV happened (its count > 0, both ends together);
# corrupt: the receivers dropped some as ICRC mismatches, no more than
# were sent
fault_seen() {
    local dir=$1 env=$2 n drops
    case $env in
    *loss=*) n=$(total "$dir" 's/.*faults: .* \([0-9]*\) lost,.*/\1/p') ;;
    *corrupt=*)
        n=$(total "$dir" 's/.*faults: .* \([0-9]*\) corrupted copies sent,.*/\1/p')
        drops=$(total "$dir" 's/.*dropped: \(.*, \)\{0,1\}\([0-9][0-9]*\) ICRC mismatch.*/\2/p')
        [ "$drops" -gt 0 ] && [ "$drops" -le "$n" ] || return 1 ;;
    *dup=*) n=$(total "$dir" 's/.*faults: .* \([0-9]*\) duplicated,.*/\1/p') ;;
    *reorder=*) n=$(total "$dir" 's/.*faults: .* \([0-9]*\) reordered,.*/\1/p') ;;
    *delay=*) n=$(total "$dir" 's/.*faults: .* \([0-9]*\) delayed$/\1/p') ;;
    *) return 0 ;;
    esac
    [ "$n" -gt 0 ]
}

# Every capture file of DIR: decoded as InfiniBand, none malformed, as
# many packets as its process sent and received
pcap_ok() {
    local dir=$1 f pid n ib bad logged files=0
    for f in "$dir"/cap.*; do
        [ -f "$f" ] || continue
        files=$((files + 1))
        pid=${f##*.}
        # one line per packet: the protocols tshark found in it
        tshark -r "$f" -T fields -e frame.protocols > "$dir/protocols" 2> /dev/null
        n=$(wc -l < "$dir/protocols")
        ib=$(grep -c '^raw:ip\(v6\)\{0,1\}:udp:infiniband\b' "$dir/protocols")
        bad=$(grep -c 'malformed' "$dir/protocols")
        logged=$(cat "$dir/srv" "$dir/cli" |
                 sed -n "s/^softverbs\[$pid\] .* \([0-9]*\) packets sent, \([0-9]*\) received.*/\1 \2/p" |
                 awk '{ print $1 + $2 }')
        echo "  $(basename "$f"): $n packets, $ib InfiniBand, $bad malformed; its process sent and received ${logged:-?}"
        [ "$n" -gt 0 ] && [ "$ib" = "$n" ] && [ "$bad" = 0 ] && [ "${logged:-x}" = "$n" ] || return 1
        if command -v python3 > /dev/null; then
            python3 "$icrc_check" "$f" > "$dir/icrc" 2>&1 || { cat "$dir/icrc"; return 1; }
            echo "  $(basename "$f"): $(head -n 1 "$dir/icrc")"
        fi
    done
    [ $files = 2 ]
}

check_all() {
    local dir kind name env rc ok
    wait
    for dir in "$work"/case*; do
        { read -r kind; read -r name; read -r env; } < "$dir/what"
        rc=$(cat "$dir/rc" 2> /dev/null)
        if [ "$rc" = "77 77" ]; then
            echo "SKIP: $name: $(cat "$dir/srv")"
            continue
        fi
        ok=0
        case $kind in
        pingpong | pcap)
            [ "$rc" = "0 0" ] && grep -q "iters in" "$dir/srv" && grep -q "iters in" "$dir/cli" &&
                ! grep -q "invalid data" "$dir/srv" "$dir/cli" && ok=1 ;;
        perftest)
            [ "$rc" = "0 0" ] && grep -Eq "^ *[0-9]+ +[0-9]+ +[0-9.]+" "$dir/cli" && ok=1 ;;
        esac
        [ $ok = 1 ] && ! fault_seen "$dir" "$env" && { echo "  the fault did not happen"; ok=0; }
        [ $ok = 1 ] && [ "$kind" = pcap ] && ! pcap_ok "$dir" && ok=0
        result "$name ($(cat "$dir/ms" 2> /dev/null) ms)" $ok
        if [ $ok = 0 ]; then
            echo "--- exit statuses (server client): ${rc:-none}"
            echo "--- server"; grep -v " D " "$dir/srv" | tail -n 30
            echo "--- client"; grep -v " D " "$dir/cli" | tail -n 30
        fi
    done
}

uroce_isolate

pp=(-d uroce0 -g 1 -c)
for f in loss=0.02 corrupt=0.02 dup=0.05 reorder=0.05 delay=300; do
    case_ pingpong "ibv_rc_pingpong -c, 50 x 4 KiB, $f" "SOFTVERBS_UROCE_FAULTS=$f,seed=11" \
        ibv_rc_pingpong "${pp[@]}" -n 50
done
for f in reorder=0.1 delay=300; do
    case_ pingpong "ibv_uc_pingpong -c, 50 x 1 KiB, $f" "SOFTVERBS_UROCE_FAULTS=$f,seed=12" \
        ibv_uc_pingpong "${pp[@]}" -m 1024 -s 1024 -n 50
    case_ pingpong "ibv_ud_pingpong -c, 50 x 1 KiB, $f" "SOFTVERBS_UROCE_FAULTS=$f,seed=13" \
        ibv_ud_pingpong "${pp[@]}" -s 1024 -n 50
done
pp6=(-d uroce0 -g GID6 -c)
case_ pingpong "ibv_rc_pingpong -c over ::1, 50 x 4 KiB, corrupt=0.02" "SOFTVERBS_UROCE_FAULTS=corrupt=0.02,seed=14" \
    ibv_rc_pingpong "${pp6[@]}" -n 50
pt=(-d uroce0 -x 1 -F)
for f in loss=0.05 corrupt=0.05 dup=0.05 reorder=0.03 delay=300; do
    case_ perftest "ib_write_bw, 16 KiB x 50, $f" "SOFTVERBS_UROCE_FAULTS=$f,seed=21" \
        ib_write_bw "${pt[@]}" -s 16384 -n 50
    case_ perftest "ib_read_bw, 16 KiB x 50, $f" "SOFTVERBS_UROCE_FAULTS=$f,seed=22" \
        ib_read_bw "${pt[@]}" -s 16384 -n 50
    case_ perftest "ib_send_bw, 4 KiB x 100, $f" "SOFTVERBS_UROCE_FAULTS=$f,seed=23" \
        ib_send_bw "${pt[@]}" -s 4096 -n 100
done
if command -v tshark > /dev/null; then
    case_ pcap "ibv_rc_pingpong -c, 30 x 4 KiB, loss, dup and reorder, captured" \
        "SOFTVERBS_UROCE_FAULTS=loss=0.02,dup=0.05,reorder=0.05,seed=31 SOFTVERBS_UROCE_PCAP=@DIR@/cap.%p" \
        ibv_rc_pingpong "${pp[@]}" -n 30
    case_ pcap "ibv_ud_pingpong -c, 30 x 1 KiB, captured" \
        "SOFTVERBS_UROCE_PCAP=@DIR@/cap.%p" \
        ibv_ud_pingpong "${pp[@]}" -s 1024 -n 30
    # seed 31 as over IPv4: with 32 the server's last ACK is lost, over
    # IPv4 as over IPv6, and the client (retry_cnt 7: for ever) resends
    # its last message to a server that has exited
    case_ pcap "ibv_rc_pingpong -c over ::1, 30 x 4 KiB, loss, dup and reorder, captured" \
        "SOFTVERBS_UROCE_FAULTS=loss=0.02,dup=0.05,reorder=0.05,seed=31 SOFTVERBS_UROCE_PCAP=@DIR@/cap.%p" \
        ibv_rc_pingpong "${pp6[@]}" -n 30
    case_ pcap "ibv_ud_pingpong -c over ::1, 30 x 1 KiB, captured" \
        "SOFTVERBS_UROCE_PCAP=@DIR@/cap.%p" \
        ibv_ud_pingpong "${pp6[@]}" -s 1024 -n 30
else
    echo "note: tshark missing (apt-get install tshark): the captures are not decoded"
fi
check_all

echo "test_uroce_fault: $pass passed, $fail failed"
[ $fail = 0 ]
