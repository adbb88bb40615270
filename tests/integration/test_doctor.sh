#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_doctor.sh -- softverbs doctor diagnoses each
# setup problem it checks for, provoked here in the test VM (rxe0 on the
# dummy d0, siw0 on d1: --netdev dummy --siw), with the line a user reads,
# its fix and the exit status; then the problem is undone and the line
# goes away. Every changed setting is restored at exit.
#   firewall    an nft rule dropping udp dport 4791 (named, with its handle;
#               the fix applied clears it), an input policy drop, a rule
#               of iptables-nft and one of legacy iptables
#   files       uverbs and rdma_cm mode 600 for nobody: FAIL with chmod;
#               a missing uverbs node: FAIL with mknod; which devices
#               nobody can open
#   netns       the mode rdma system show reports
#   processes   a process holding rxe0 with 300 DONTFORK ranges and one
#               holding siw0's uverbs file: listed; their mappings against
#               vm.max_map_count, lowered near the count: warn with sysctl
#   gids        every entry's type, netdev and address as sysfs has them;
#               the RoCE v2 index for IPv4, and for IPv6 once d0 has a
#               global address
#   iwpmd       siw0 without iwpmd: the siw line
#   counters    after a pingpong, rxe0's hw_counters as sysfs has them
#   json        --json parses, has the statuses of the text report in
#               its order, the same exit status, and the rule's quotes
#               escaped
# Exit: 0 all as expected; 1 otherwise; 77 cannot run here.
# About 70 s in the emulated VM on an idle 2-core host (a doctor run is
# 4-6 s there), twice that on a loaded machine:
# run-suite timeout: 1200
set -u
. "$(dirname "$0")/lib.sh"
sv_init test_doctor "$@"
sv_need_dev RXE_DEV
sv_need_dev SIW_DEV
[ "$(id -u)" = 0 ] || skip "needs root (nft, chmod, sysctl)"
[ "${RXE_NETDEV:-lo}" != lo ] || skip "rxe0 must sit on a netdev of its own (--netdev dummy)"
sv_need_cmd nft nftables
sv_need_cmd iptables iptables
sv_need_cmd iptables-legacy iptables
sv_need_cmd setpriv util-linux
sv_need_cmd unshare util-linux
sv_need_cmd rdma iproute2
sv_need_cmd ibv_rc_pingpong ibverbs-utils
[ -x /usr/bin/python3 ] || skip "python3 missing"
top=${top_builddir:-.}
S=$top/tools/softverbs
[ -x "$S" ] || skip "$S is not built"
holder_py=$here/doctor_holder.py
rxe=$RXE_DEV siw=$SIW_DEV nd=$RXE_NETDEV
sysdev=/sys/class/infiniband

uverbs_of() { # IBDEV: its uverbsN
    local u
    for u in /sys/class/infiniband_verbs/uverbs*; do
        [ "$(cat "$u/ibdev")" = "$1" ] && { echo "${u##*/}"; return; }
    done
}
uv_rxe=$(uverbs_of "$rxe") uv_siw=$(uverbs_of "$siw")
mode_rxe=$(stat -c %a "/dev/infiniband/$uv_rxe")
mode_cm=$(stat -c %a /dev/infiniband/rdma_cm)
mmc=$(cat /proc/sys/vm/max_map_count)
netns=$(rdma system show | sed -n 's/.*netns \([a-z]*\).*/\1/p')
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
    wait 2> /dev/null
    nft delete table inet svdoctor 2> /dev/null
    iptables -D INPUT -p udp --dport 4791 -j DROP 2> /dev/null
    iptables-legacy -D INPUT -p udp --dport 4791 -j DROP 2> /dev/null
    [ -e "/dev/infiniband/$uv_rxe.moved" ] && mv "/dev/infiniband/$uv_rxe.moved" "/dev/infiniband/$uv_rxe"
    chmod "$mode_rxe" "/dev/infiniband/$uv_rxe"
    chmod "$mode_cm" /dev/infiniband/rdma_cm
    sysctl -q -w vm.max_map_count="$mmc"
    ip addr del 2001:db8:4791::1/64 dev "$nd" 2> /dev/null
    rm -rf "$work"
    [ -n "${nobody_top:-}" ] && rmdir "$nobody_top" 2> /dev/null
}
trap cleanup EXIT

# doctor [ARGS...]: run it; $out (its report), $rc (about 10 s a run
# under emulation: problems are provoked together where they can be)
doctor() {
    out=$("$S" doctor "$@" 2>&1)
    rc=$?
}
# has EXTENDED_REGEX: a line of $out matches
has() {
    local l re=$1
    while IFS= read -r l; do [[ $l =~ $re ]] && return 0; done <<< "$out"
    return 1
}
# check NAME WANT_RC REGEX...: $rc is WANT_RC and every REGEX matches
check() {
    local name=$1 want=$2 ok=1 re missing=''
    shift 2
    [ "$rc" = "$want" ] || { ok=0; missing=" exit $rc, want $want;"; }
    for re; do has "$re" || { ok=0; missing="$missing /$re/"; }; done
    sv_result "$name" $ok "${missing# }"
    [ $ok = 1 ] || printf '%s\n' "$out" | sed 's/^/    /'
}
# lacks NAME REGEX: no line of $out matches
lacks() {
    if has "$2"; then
        sv_result "$1" 0 "still there: /$2/"
        printf '%s\n' "$out" | grep -E -- "$2" | sed 's/^/    /'
    else
        sv_result "$1" 1
    fi
}
# statuses: the status words of a text report on stdin, lower case
statuses() { sed -n -e 's/^  \(ok\|info\|warn\)  .*/\1/p' -e 's/^  FAIL  .*/fail/p'; }
# re TEXT: TEXT as an extended regex matching itself
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# ---- the healthy VM ----------------------------------------------------------
doctor
check "doctor on the VM: exit 0, UDP 4791 not refused, rdma_cm usable" 0 \
    "^  ok    UDP 4791 \(RoCE v2\): no nftables input rule refuses it$" \
    "^  ok    /dev/infiniband/rdma_cm: read-write for root" \
    "^verdict: an RDMA program can run here"
check "netns mode as rdma system show has it ($netns)" 0 \
    "^  info  netns mode $netns: .*\(this is the first network namespace\)"
if pgrep -x iwpmd > /dev/null; then
    sv_result "iwpmd is not running in the VM" 0 "it is"
else
    check "$siw without iwpmd: the siw line, with systemctl start iwpmd" 0 \
        "^  info  $siw \(siw\): iwpmd is not running, and siw does not need it: .*IW_F_NO_PORT_MAP.* \(fix: systemctl start iwpmd\)$"
fi

# ---- firewall: nft --------------------------------------------------------------
nft add table inet svdoctor
nft add chain inet svdoctor input '{ type filter hook input priority 0; policy accept; }'
nft add rule inet svdoctor input udp dport 4791 counter drop comment '"svdoctor test"'
handle=$(nft -a list chain inet svdoctor input | sed -n 's/.*udp dport 4791 .*drop.* # handle \([0-9]*\)$/\1/p')
doctor
check "nft rule dropping udp dport 4791: warn naming the rule, fix by its handle $handle, exit 0" 0 \
    "^  warn  UDP 4791 \(RoCE v2\) is refused for $rxe: nftables table inet svdoctor, chain input: udp dport 4791 counter packets [0-9]+ bytes [0-9]+ drop comment \"svdoctor test\"$" \
    "^     fix: nft delete rule inet svdoctor input handle $handle  # or let RoCE v2 through first: nft insert rule inet svdoctor input udp dport 4791 accept$"
text=$out text_rc=$rc
doctor --json
json=$out json_rc=$rc
printf '%s\n' "$text" | statuses > "$work/text.st"
if printf '%s' "$json" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
for c in d["checks"]:
    assert set(c) == {"name", "status", "message", "fix"}, c
    print(c["status"])
fw = [c for c in d["checks"] if c["name"] == "firewall" and c["status"] == "warn"]
assert len(fw) == 1 and fw[0]["message"].endswith("comment \"svdoctor test\""), fw
assert d["exit_status"] == int(sys.argv[1]), d["exit_status"]
' "$json_rc" > "$work/json.st" 2> "$work/json.err" && cmp -s "$work/text.st" "$work/json.st" && [ "$json_rc" = "$text_rc" ]; then
    sv_result "--json parses: $(wc -l < "$work/json.st") checks, the text report's statuses in order, exit $json_rc, the rule's quotes escaped" 1
else
    sv_result "--json" 0 "exit $json_rc (text $text_rc)"
    cat "$work/json.err"; diff "$work/text.st" "$work/json.st" | head; printf '%s\n' "$json" | head -n 40
fi
nft delete rule inet svdoctor input handle "$handle"
nft add chain inet svdoctor input '{ policy drop; }'
nft add rule inet svdoctor input ct state established,related accept
doctor
lacks "the fix applied (nft delete rule ... handle $handle): that warn is gone" "^  warn  UDP 4791 .*: udp dport 4791 .*svdoctor test"
check "nft input policy drop, no accept for 4791: warn with the accept rule to insert" 0 \
    "^  warn  UDP 4791 \(RoCE v2\) is refused for $rxe: nftables table inet svdoctor, chain input ends in \"policy drop\", and no rule accepts udp dport 4791$" \
    "^     fix: nft insert rule inet svdoctor input udp dport 4791 accept$"
nft insert rule inet svdoctor input udp dport 4791 accept

# ---- firewall: iptables (nf_tables backend, then legacy) -----------------------
iptables -A INPUT -p udp --dport 4791 -j DROP
iptables-legacy -A INPUT -p udp --dport 4791 -j DROP
doctor
lacks "the fix applied (nft insert rule ... accept): the policy warn is gone" "^  warn  UDP 4791 .*svdoctor"
nft delete table inet svdoctor
check "iptables-nft rule dropping 4791: warn in table ip filter, fix with iptables" 0 \
    "^  warn  UDP 4791 \(RoCE v2\) is refused for $rxe: nftables table ip filter, chain INPUT: udp dport 4791 counter packets [0-9]+ bytes [0-9]+ drop$" \
    "^     fix: iptables -I INPUT -p udp --dport 4791 -j ACCEPT$"
iptables -D INPUT -p udp --dport 4791 -j DROP
check "legacy iptables rule dropping 4791: warn with the rule and its -D" 0 \
    "^  warn  UDP 4791 \(RoCE v2\) is refused for $rxe: iptables-legacy chain INPUT: -A INPUT -p udp -m udp --dport 4791 -j DROP$" \
    "^     fix: iptables-legacy -D INPUT -p udp -m udp --dport 4791 -j DROP  # or"
iptables-legacy -D INPUT -p udp --dport 4791 -j DROP

# ---- /dev/infiniband for an unprivileged user ------------------------------------
# nobody may not reach the build folder (a clone in root's home, mode
# 700): the build folder is bound onto a folder everyone can enter, in a
# mount namespace of that one run, and the command runs from there (with
# that build's library and probe, as before; SOFTVERBS_LIBDIR, which
# run-suite sets, points there too).
nobody() {
    local b
    b=$(cd "$top" && pwd -P)
    out=$(unshare -m -- sh -c 'mount --bind "$1" "$2" && cd / &&
              exec env SOFTVERBS_LIBDIR="$2/lib/.libs" \
                  setpriv --reuid=nobody --regid=nogroup --clear-groups "$2/tools/softverbs" doctor' \
              sh "$b" "$nobody_top" 2>&1)
    rc=$?
}
nobody_top=$(mktemp -d /tmp/test_doctor.XXXXXX) || exit 1
chmod 755 "$nobody_top"
chmod 600 "/dev/infiniband/$uv_rxe" /dev/infiniband/rdma_cm
nobody
check "uverbs and rdma_cm mode 600, as nobody: FAIL for each with chmod 666 and a udev rule, exit 1" 1 \
    "^  FAIL  $rxe \(rxe on $nd\): /dev/infiniband/$uv_rxe \(crw------- root:root\) is not read-write for nobody$" \
    "^     fix: sudo chmod 666 /dev/infiniband/$uv_rxe  # until reboot; for good, a udev rule: echo 'KERNEL==\"uverbs\*\", MODE=\"0666\"'" \
    "^  FAIL  /dev/infiniband/rdma_cm \(crw------- root:root\) is not read-write for nobody" \
    "^     fix: sudo chmod 666 /dev/infiniband/rdma_cm " \
    "^  info  sysfs shows $rxe $siw; nobody can open $siw; not: $rxe \(see above\)$" \
    "^verdict: an RDMA program cannot run here yet: 2 problem"
chmod "$mode_rxe" "/dev/infiniband/$uv_rxe"
chmod "$mode_cm" /dev/infiniband/rdma_cm
nobody
check "modes restored, as nobody: $rxe and $siw usable, exit 0" 0 \
    "^  ok    sysfs shows $rxe $siw; nobody can open every one's /dev/infiniband/uverbs\*$" \
    "^  info  cannot read the nftables rules as nobody"
lacks "  no FAIL" "^  FAIL"
mv "/dev/infiniband/$uv_rxe" "/dev/infiniband/$uv_rxe.moved"
devno=$(cat "/sys/class/infiniband_verbs/$uv_rxe/dev")
doctor
check "uverbs node missing (sysfs has it): FAIL with --device and mknod, exit 1" 1 \
    "^  FAIL  $rxe \(rxe on $nd\): sysfs has $uv_rxe, but /dev/infiniband/$uv_rxe does not exist" \
    "^     fix: containers: --device /dev/infiniband/$uv_rxe .*mknod -m 666 /dev/infiniband/$uv_rxe c ${devno%:*} ${devno#*:}$"
lacks "legacy rule removed: the warn is gone" "^  warn  UDP 4791"
mv "/dev/infiniband/$uv_rxe.moved" "/dev/infiniband/$uv_rxe"

# ---- processes holding uverbs files, their mappings ----------------------------------
env LD_LIBRARY_PATH="$libdir" /usr/bin/python3 "$holder_py" "$rxe" 300 > "$work/holder" 2>&1 &
hpid=$!
pids+=("$hpid")
bash -c "exec 3<> /dev/infiniband/$uv_siw; exec sleep 600" &
spid=$!
pids+=("$spid")
for _ in $(seq 600); do
    grep -q . "$work/holder" && [ -e "/proc/$spid/fd/3" ] && break
    sleep 0.1
done
if ! grep -q '^ready$' "$work/holder"; then
    sv_result "the holder registered 300 ranges" 0 "$(cat "$work/holder")"
else
    vmas=$(wc -l < "/proc/$hpid/maps")
    dc=$(grep -cE '^VmFlags:.* dc( |$)' "/proc/$hpid/smaps")
    doctor
    check "processes holding uverbs files: both listed with what they block; the holder's $vmas mappings, $dc DONTFORK" 0 \
        "^  info  pid $hpid \(python3\) holds $rxe \($uv_rxe\): until it exits, rdma link delete $rxe waits and modprobe -r rdma_rxe fails \(fix: kill $hpid\)$" \
        "^  info  pid $spid \(sleep\) holds $siw \($uv_siw\): until it exits, rdma link delete $siw waits and modprobe -r siw fails \(fix: kill $spid\)$" \
        "^  info  pid $hpid \(python3\): $vmas memory mappings of vm.max_map_count $mmc, $dc of them DONTFORK .*; as many registrations again need ~$((vmas + 2 * dc))$"
    [ "$dc" -ge 300 ] || sv_result "the holder has 300 DONTFORK ranges" 0 "$dc"
    limit=$((vmas + 2 * dc - 10))
    sysctl -q -w vm.max_map_count=$limit
    doctor
    check "vm.max_map_count $limit, under what the holder's registrations need: warn with sysctl -w" 0 \
        "^  warn  pid $hpid \(python3\): $vmas memory mappings of vm.max_map_count $limit, $dc of them DONTFORK .*: near the limit" \
        "^     fix: sysctl -w vm.max_map_count=262144  # permanently"
    sysctl -q -w vm.max_map_count="$mmc"
fi
kill "$hpid" "$spid" 2> /dev/null
wait "$hpid" "$spid" 2> /dev/null

# ---- GID tables ------------------------------------------------------------------
# want_gid_lines: what sysfs says of every non-zero entry of rxe0 port 1,
# and the first RoCE v2 IPv4 / global IPv6 index
gid_facts() {
    local e g raw ty ndev p=$sysdev/$rxe/ports/1
    v4='' v6=''
    # one grep for the table (a process per entry takes minutes here)
    for e in $(grep -H -v '^0000:0000:0000:0000:0000:0000:0000:0000$' "$p"/gids/* | sed 's|^.*/gids/||'); do
        g=${e%%:*} raw=${e#*:}
        read -r ty < "$p/gid_attrs/types/$g"
        read -r ndev < "$p/gid_attrs/ndevs/$g"
        echo "$g $ty|$ndev|$raw"
        [ "$ty" = "RoCE v2" ] || continue
        case $raw in
            0000:0000:0000:0000:0000:ffff:*) [ -n "$v4" ] || v4=$g ;;
            fe80:*) ;;
            *) [ -n "$v6" ] || v6=$g ;;
        esac
    done > "$work/gids"
}
gid_facts
doctor
lacks "holders gone: not listed" "^  info  pid ($hpid|$spid) "
ok=1
while read -r g rest; do
    ty=${rest%%|*} ndev=${rest#*|}; ndev=${ndev%%|*} raw=${rest##*|}
    case $raw in
        0000:0000:0000:0000:0000:ffff:*)
            h=${raw#0000:0000:0000:0000:0000:ffff:}; h=$((0x${h%:*} * 65536 + 0x${h#*:}))
            addr="IPv4 $((h >> 24 & 255)).$((h >> 16 & 255)).$((h >> 8 & 255)).$((h & 255))" ;;
        fe80:*) addr="IPv6 $(/usr/bin/python3 -c 'import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]))' "$raw") (link-local)" ;;
        *) addr="IPv6 $(/usr/bin/python3 -c 'import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]))' "$raw")" ;;
    esac
    has "^  info  $rxe port 1 GID index $g: $(re "$ty, $ndev, $addr")$" || { ok=0; echo "    missing: GID index $g: $ty, $ndev, $addr"; }
done < "$work/gids"
sv_result "GID table of $rxe: $(wc -l < "$work/gids") entries with the type, netdev and address sysfs has" $ok
[ $ok = 1 ] || printf '%s\n' "$out" | grep 'GID' | sed 's/^/    /'
check "RoCE v2 over IPv4 on $rxe: GID index $v4, with -g, -x and NCCL_IB_GID_INDEX" 0 \
    "^  info    RoCE v2 over IPv4 on $rxe: GID index $v4 \(e.g. ibv_rc_pingpong -d $rxe -g $v4, ib_write_bw -d $rxe -x $v4, NCCL_IB_GID_INDEX=$v4\)$"
# traffic for the counters below: a pingpong on rxe0 (Debian's, both ends)
timeout 120 ibv_rc_pingpong -d "$rxe" -g "$v4" -n 5 > "$work/pp.srv" 2>&1 &
ppid=$!
pids+=("$ppid")
sv_wait_port 18515 "$ppid"
timeout 120 ibv_rc_pingpong -d "$rxe" -g "$v4" -n 5 localhost > "$work/pp.cli" 2>&1
wait "$ppid"
ip addr add 2001:db8:4791::1/64 dev "$nd" nodad
# the kernel adds the GIDs of a new address asynchronously
for _ in $(seq 100); do
    grep -qs '^2001:0db8:4791:0000:0000:0000:0000:0001$' "$sysdev/$rxe/ports/1/gids/"* && break
    sleep 0.1
done
gid_facts
doctor
if [ -z "$v6" ]; then
    sv_result "a RoCE v2 GID for 2001:db8:4791::1 on $nd" 0 "sysfs has none"
else
    check "d0 with 2001:db8:4791::1: RoCE v2 over IPv6 on $rxe: GID index $v6" 0 \
        "^  info  $rxe port 1 GID index $v6: RoCE v2, $nd, IPv6 2001:db8:4791::1$" \
        "^  info    RoCE v2 over IPv6 on $rxe: GID index $v6 \(e.g. ib_write_bw -d $rxe -x $v6, NCCL_IB_GID_INDEX=$v6\)$"
fi

# ---- hw_counters, in the same report ---------------------------------------------
line=$(printf '%s\n' "$out" | grep "^  info  $rxe port 1 counters: ")
zeros=", ${line##*(0: }"
zeros=${zeros%)},
ok=1 seen=0
for f in "$sysdev/$rxe/ports/1/hw_counters/"*; do
    n=${f##*/} v=$(cat "$f")
    case $n in
        sent_pkts|rcvd_pkts|retry_exceeded_err|retry_rnr_exceeded_err|rnr_nak_retry_err|send_rnr_err|rcvd_rnr_err|rcvd_seq_err|duplicate_request|out_of_seq_request|out_of_sequence|ack_deferred|completer_retry_err) ;;
        *) continue ;;
    esac
    seen=$((seen + 1))
    if [ "$v" = 0 ] && [ "${n%_pkts}" = "$n" ]; then
        case "$zeros" in *", $n,"*) continue ;; esac
    else
        case "$line " in *" $n=$v "* | *" $n=$v; "*) continue ;; esac
    fi
    ok=0
    echo "    missing: $n=$v"
done
sent=$(cat "$sysdev/$rxe/ports/1/hw_counters/sent_pkts")
[ "$sent" -gt 0 ] || ok=0
sv_result "after a pingpong, $rxe's hw_counters as sysfs has them ($seen counters, sent_pkts=$sent)" $ok
[ $ok = 1 ] || echo "    $line"

ip addr del 2001:db8:4791::1/64 dev "$nd"

sv_finish
