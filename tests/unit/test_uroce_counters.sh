#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_counters.sh -- uroce's counters while the
# programs run (provider/uroce/uroce_counters.c), as `softverbs link show
# -s` prints them, on the host:
#
#  - while Debian's ibv_rc_pingpong -c runs between two processes on
#    uroce0 over lo, the client's packets corrupted now and then
#    (SOFTVERBS_UROCE_FAULTS=corrupt=...), `softverbs link show -s uroce0`
#    prints the two contexts, sent_pkts and rcvd_pkts above 0, and the
#    corrupted packets the server dropped (drop_icrc above 0); each
#    context's file is mode 0600;
#  - a context killed without closing leaves its file, which link show
#    ignores (its lock is gone) and the next context that starts removes;
#  - a pair that runs to its end leaves no file: link show -s prints
#    "contexts 0" for uroce0 once it is over.
#
# Run as root, the pairs are in a network namespace of their own
# (uroce_lib.sh: uroce_isolate), and link show counts only the contexts
# of its own namespace.
#
# Needs ibverbs-utils. Exits 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
. "$(dirname "$0")/uroce_lib.sh"
uroce_init test_uroce_counters ibverbs-utils ibv_rc_pingpong
sv=$top/tools/softverbs
[ -x "$sv" ] || skip "no softverbs command in $top/tools (make)"
uroce_isolate

# All of it in one as(): the pairs and link show must share the network
# namespace. It writes what it saw into $work (see the checks below).
cat > "$work/run.sh" << 'EOF'
set -u
work=$1 sv=$2
show() { "$sv" link show -s uroce0 2> /dev/null; }
value() { awk -v n="$1" '$1 == n { print $2; exit }'; }
# kept in the test's uroce.conf (XDG_CONFIG_HOME): link show names it
# with no context open too
"$sv" link add uroce0 type uroce netdev lo > "$work/add" 2>&1

# 1. a long pair, the client's packets corrupted (1 in 50)
port=$((20000 + RANDOM % 20000))
ibv_rc_pingpong -d uroce0 -g 1 -c -n 1000000 -p $port > "$work/srv" 2>&1 &
srv=$!
# the server's context is open once link show counts it
for try in $(seq 50); do
    sleep 0.1
    show | grep -q "contexts 1" && break
done
SOFTVERBS_UROCE_FAULTS=corrupt=0.02,seed=7 \
    ibv_rc_pingpong -d uroce0 -g 1 -c -n 1000000 -p $port 127.0.0.1 > "$work/cli" 2>&1 &
cli=$!
for try in $(seq 100); do
    sleep 0.1
    show > "$work/live"
    [ "$(value contexts < "$work/live")" = 2 ] &&
        [ "$(value drop_icrc < "$work/live")" -gt 0 ] 2> /dev/null && break
done
dir=$(ls -d /tmp/softverbs-uroce-* "${XDG_RUNTIME_DIR:-/nonexistent}"/softverbs-uroce 2> /dev/null |
      while read -r d; do ls "$d"/counters-$srv-* > /dev/null 2>&1 && echo "$d"; done | head -n 1)
stat -c %a "$dir"/counters-$srv-* "$dir"/counters-$cli-* > "$work/modes" 2> /dev/null

# 2. killed: the files stay, link show ignores them
kill -9 $srv $cli
wait $srv $cli 2> /dev/null
ls "$dir"/counters-$srv-* "$dir"/counters-$cli-* > "$work/stale" 2> /dev/null
show > "$work/after_kill"

# 3. a pair that ends: its files go, and the next context swept the
# killed ones
port=$((20000 + RANDOM % 20000))
ibv_rc_pingpong -d uroce0 -g 1 -c -n 100 -p $port > "$work/srv2" 2>&1 &
srv2=$!
for try in $(seq 50); do
    sleep 0.1
    ibv_rc_pingpong -d uroce0 -g 1 -c -n 100 -p $port 127.0.0.1 > "$work/cli2" 2>&1 && break
    grep -q "Couldn't connect" "$work/cli2" || break
done
wait $srv2
ls "$dir"/counters-$srv-* "$dir"/counters-$cli-* "$dir"/counters-$srv2-* > "$work/left" 2> /dev/null
show > "$work/after_end"
echo done > "$work/done"
EOF
chmod a+r "$work/run.sh"
as timeout 120 bash "$work/run.sh" "$work" "$sv"

value() { awk -v n="$1" '$1 == n { print $2; exit }' "$2" 2> /dev/null; }
ok=0
[ -f "$work/done" ] && ok=1
result "the runs finished" $ok

ok=0
[ "$(value contexts "$work/live")" = 2 ] && ok=1
result "link show -s uroce0 while the pair runs: contexts 2" $ok
for c in sent_pkts rcvd_pkts rcvd_datagrams rdma_sends rdma_recvs drop_icrc; do
    ok=0
    [ "$(value $c "$work/live")" -gt 0 ] 2> /dev/null && ok=1
    result "while the pair runs (the client's packets corrupted): $c above 0" $ok
done
ok=0
grep -q "^uroce0 netdev lo state ACTIVE" "$work/live" && ok=1
result "link show -s names uroce0 on lo, ACTIVE" $ok
[ $ok = 1 ] || cat "$work/live"
ok=0
[ "$(sort -u "$work/modes" 2> /dev/null)" = 600 ] && [ "$(wc -l < "$work/modes")" -ge 2 ] && ok=1
result "each context's counters file is mode 0600" $ok

ok=0
[ -s "$work/stale" ] && [ "$(value contexts "$work/after_kill")" = 0 ] && ok=1
result "killed contexts: their files stay and link show ignores them (contexts 0)" $ok
[ $ok = 1 ] || { cat "$work/stale"; cat "$work/after_kill"; }

ok=0
grep -q "iters in" "$work/srv2" && grep -q "iters in" "$work/cli2" && [ ! -s "$work/left" ] &&
    [ "$(value contexts "$work/after_end")" = 0 ] && ok=1
result "a pair that ends leaves no file, the killed ones swept: contexts 0" $ok
[ $ok = 1 ] || { cat "$work/left"; cat "$work/after_end"; cat "$work/srv2" "$work/cli2"; }

echo "test_uroce_counters: $pass passed, $fail failed"
[ $fail = 0 ]
