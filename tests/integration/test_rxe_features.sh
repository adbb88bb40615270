#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/test_rxe_features.sh -- what this kernel's rxe can do,
# on rdma-core (the system's libibverbs and librxe, rdma-core 44) and on
# softverbs (LD_LIBRARY_PATH), side by side in one boot, with
# tests/integration/features_probe (see there for the cases):
#   caps               ibv_query_device_ex: ATOMIC WRITE and FLUSH (rxe from
#                      6.2), ODP (7.x's rxe); equal on both, and what the
#                      kernel generation has
#   atomic-write-ex    ibv_wr_atomic_write on a loopback RC pair: where the
#                      kernel has it the 8 bytes land (IBV_WC_ATOMIC_WRITE,
#                      success) on both; where it does not, softverbs
#                      refuses the QP (EOPNOTSUPP) while rdma-core's QP
#                      fails the WR at run time (shown)
#   atomic-write-post  IBV_WR_ATOMIC_WRITE through ibv_post_send: softverbs
#                      writes the 8 bytes the SGE points at (EINVAL at post
#                      where the kernel lacks it); rdma-core's result shown
#   flush              ibv_wr_flush (rdma-core 45+'s API, which rdma-core
#                      44 lacks: its librxe refuses IBV_QP_EX_WITH_FLUSH,
#                      EOPNOTSUPP) on a loopback RC pair: where the kernel
#                      has FLUSH, softverbs' RDMA WRITE then FLUSH global
#                      (range, whole MR) complete (IBV_WC_FLUSH, success)
#                      and the written bytes are in place; a FLUSH to an
#                      MR without IBV_ACCESS_FLUSH_GLOBAL completes with a
#                      remote access error; where it has not, the QP is
#                      refused (EOPNOTSUPP). The MR registrations with
#                      IBV_ACCESS_FLUSH_GLOBAL/_PERSISTENT are the
#                      kernel's answer: the same on both libraries
#   odp                IBV_ACCESS_ON_DEMAND MRs (SEND/RECV, RDMA WRITE,
#                      READ, FETCH_ADD, data checked) where the kernel has
#                      ODP; refused alike (EOPNOTSUPP) where not
#   advise             ibv_advise_mr: prefetch, prefetch-write, the flush
#                      flag: 0 on softverbs with ODP (rdma-core 44's librxe
#                      has no advise_mr: EOPNOTSUPP), EOPNOTSUPP on both
#                      without
#   doctor             softverbs doctor (and --rdma-core) names the rxe
#                      features of this kernel: 6.1 none; 6.12 ATOMIC
#                      WRITE and FLUSH; 7.x those and ODP
# Environment: RXE_DEV, RXE_GID (tests/vm/run); SOFTVERBS_LIBDIR;
# top_builddir. Exit: 0 all as expected; 1 otherwise; 77 cannot run here.
set -u
. "$(dirname "$0")/lib.sh" # its helpers only (sv_info_less, sv_indent, sv_grep)
top=${top_builddir:-$(pwd)}
probe=$top/tests/integration/features_probe
libdir=${SOFTVERBS_LIBDIR:-$top/lib/.libs}

skip() { echo "SKIP: $*"; exit 77; }
dev=${RXE_DEV:-}
[ -n "$dev" ] && [ -e "/sys/class/infiniband/$dev" ] || skip "no rxe device (RXE_DEV): run inside tests/vm/run"
[ -x "$probe" ] || skip "$probe is not built (make check)"
[ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"

# What the kernel generation has (kernel sources: rxe_param.h sets
# IB_DEVICE_ATOMIC_WRITE and FLUSH from 6.2; Debian's 7.x rxe reports ODP).
kv=$(uname -r)
IFS=.- read -r kmaj kmin _ <<< "$kv"
knum=$((kmaj * 1000 + kmin))
has_aw=no has_odp=no
[ $knum -ge 6002 ] && has_aw=yes
[ $knum -ge 7000 ] && has_odp=yes
echo "kernel $kv: expecting ATOMIC WRITE and FLUSH $has_aw, ODP $has_odp"

work=$(mktemp -d /tmp/features.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

run_both() { # run_both CASE: $work/rc, $work/sv; 0 when both ran
    env LD_LIBRARY_PATH= ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        "$probe" "$1" "$dev" > "$work/rc" 2> "$work/rc.err"
    rc_rc=$?
    env LD_LIBRARY_PATH="$libdir" "$probe" "$1" "$dev" > "$work/sv" 2> "$work/sv.err"
    sv_rc=$?
    [ $rc_rc = 0 ] && [ $sv_rc = 0 ] && return 0
    bad "$1: the probe failed (rdma-core exit $rc_rc, softverbs exit $sv_rc)"
    cat "$work/rc.err" "$work/sv.err"
    return 1
}
show() { sv_indent "$1"; }
# same: the two outputs agree but for their info: lines; else $work/diff
# (compared with bash's builtins; diff only when they differ)
same() {
    local a b
    sv_info_less a "$work/rc"
    sv_info_less b "$work/sv"
    [ "$a" = "$b" ] && return 0
    diff <(printf '%s' "$a") <(printf '%s' "$b") > "$work/diff"
    return 1
}
# expect CASE LINE...: softverbs' output has exactly these lines (info: aside)
expect() {
    local c=$1
    shift
    local want got
    printf -v want '%s\n' "$@"
    sv_info_less got "$work/sv"
    if [ "$want" = "$got" ]; then
        ok "$c on softverbs as kernel $kv's rxe can"
    else
        bad "$c on softverbs: not what kernel $kv's rxe can"
        diff <(printf '%s' "$want") <(printf '%s' "$got") | sed 's/^/    /'
    fi
}

# ---- caps
if run_both caps; then
    if same; then ok "caps: ibv_query_device_ex as on rdma-core"; else bad "caps differ from rdma-core"; show "$work/diff"; fi
    show "$work/sv"
    sv_grep "$work/sv" "^atomic_write: $has_aw$" && sv_grep "$work/sv" "^flush_global: $has_aw$" &&
        sv_grep "$work/sv" "^flush_persistent: $has_aw$" && sv_grep "$work/sv" "^odp: $has_odp$" &&
        ok "caps: ATOMIC WRITE/FLUSH $has_aw, ODP $has_odp" || bad "caps: expected ATOMIC WRITE/FLUSH $has_aw, ODP $has_odp"
fi

# ---- ATOMIC WRITE
landed=("atomic_write: wc success opcode 9" "atomic_write: remote word holds the 8 bytes" "atomic_write: neighbours untouched")
if run_both atomic-write-ex; then
    echo "  rdma-core:"; show "$work/rc"
    if [ $has_aw = yes ]; then
        expect atomic-write-ex "create_qp: ok" "wr_complete: 0" "${landed[@]}"
        if same; then ok "atomic-write-ex: as on rdma-core 44's librxe"; else bad "atomic-write-ex differs from rdma-core"; show "$work/diff"; fi
    else
        expect atomic-write-ex "create_qp: EOPNOTSUPP"
    fi
fi
if run_both atomic-write-post; then
    echo "  rdma-core:"; show "$work/rc"
    if [ $has_aw = yes ]; then
        expect atomic-write-post "create_qp: ok" "post_send: 0" "${landed[@]}"
    else
        expect atomic-write-post "create_qp: ok" "post_send: EINVAL"
    fi
fi

# ---- FLUSH
if run_both flush; then
    echo "  rdma-core:"; show "$work/rc"
    echo "  softverbs:"; show "$work/sv"
    if diff <(grep '^reg_mr ' "$work/rc") <(grep '^reg_mr ' "$work/sv") > "$work/diff"; then
        ok "flush: MRs with IBV_ACCESS_FLUSH_GLOBAL/_PERSISTENT as on rdma-core"
    else
        bad "flush: the FLUSH access flags' registrations differ from rdma-core"; show "$work/diff"
    fi
    if grep -qx 'create_qp: EOPNOTSUPP' "$work/rc"; then
        ok "flush: rdma-core 44 has no ibv_wr_flush (IBV_QP_EX_WITH_FLUSH refused, EOPNOTSUPP)"
    else
        bad "flush: rdma-core 44's librxe was expected to refuse IBV_QP_EX_WITH_FLUSH"
    fi
    regs=()
    mapfile -t regs < <(grep '^reg_mr ' "$work/sv")
    if [ $has_aw = yes ]; then
        # (a FLUSH's completion opcode is IBV_WC_FLUSH, 8; the WRITE's 1)
        expect flush "${regs[@]}" "create_qp: ok" "wr_complete: 0" \
            "flush: the RDMA WRITE: wc success opcode 1" \
            "flush: FLUSH global, range: wc success opcode 8" \
            "flush: FLUSH global, whole MR: wc success opcode 8" \
            "flush: the written bytes are in place" \
            "flush type 0: wr_complete EINVAL" \
            "flush without the access flag: wr_complete 0" \
            "flush without the access flag: wc remote access error"
        [ "${regs[0]:-}" = "reg_mr flush_global: ok" ] ||
            bad "flush: this kernel's rxe has FLUSH but refused an MR with IBV_ACCESS_FLUSH_GLOBAL"
    else
        expect flush "${regs[@]}" "create_qp: EOPNOTSUPP"
    fi
fi

# ---- ODP and ibv_advise_mr
if run_both odp; then
    show "$work/sv"
    if [ $has_odp = yes ]; then
        # (the last line is the kernel's, whatever it says: compared
        # with rdma-core below)
        expect odp "odp reg_mr: ok" "odp send/recv: data ok" "odp rdma_write: data ok" \
            "odp rdma_read: data ok" "odp fetch_add: data ok" "$(grep '^odp rdma_write+32:' "$work/sv")"
    elif [ $knum -lt 6002 ]; then
        expect odp "odp reg_mr: EINVAL"   # 6.1's ib_check_mr_access
    else
        expect odp "odp reg_mr: EOPNOTSUPP"
    fi
    if same; then ok "odp: as on rdma-core"; else bad "odp differs from rdma-core"; show "$work/diff"; fi
fi
if run_both advise; then
    show "$work/sv"
    if [ $has_odp = yes ]; then
        expect advise "advise prefetch: 0" "advise prefetch_write: 0" "advise prefetch+flush: 0"
        # rdma-core 44's librxe has no advise_mr (59 added it): EOPNOTSUPP
        # on this kernel too, where softverbs prefetches
        if [ "$(grep -c '^advise .*: EOPNOTSUPP$' "$work/rc")" = 3 ]; then
            ok "advise: rdma-core 44 refuses (no advise_mr in its librxe), softverbs prefetches"
        else
            bad "advise: rdma-core 44 was expected to refuse"; show "$work/rc"
        fi
    else
        odp_err=EOPNOTSUPP
        [ $knum -lt 6002 ] && odp_err=EINVAL
        expect advise "advise: odp reg_mr $odp_err" "advise prefetch: EOPNOTSUPP" \
            "advise prefetch_write: EOPNOTSUPP" "advise prefetch+flush: EOPNOTSUPP"
        if same; then ok "advise: as on rdma-core"; else bad "advise differs from rdma-core"; show "$work/diff"; fi
    fi
fi

# ---- softverbs doctor names the kernel's rxe features (its probe reads
# them with ibv_query_device_ex: through softverbs, and with --rdma-core
# through rdma-core's library), the same line on both
names=("RDMA ATOMIC WRITE (6.2+)" "FLUSH (6.2+)" "ODP and ibv_advise_mr (7.x)")
yes_no=("$has_aw" "$has_aw" "$has_odp")
have='' lack=''
for i in 0 1 2; do
    if [ "${yes_no[$i]}" = yes ]; then have="$have, ${names[$i]}"; else lack="$lack, ${names[$i]}"; fi
done
want=${have:+has ${have#, }}
[ -n "$lack" ] && want="${want:+$want; }lacks ${lack#, }"
want="  info  $dev: this kernel's rxe $want"
softverbs=$top/tools/softverbs
for how in softverbs rdma-core; do
    args=()
    [ $how = rdma-core ] && args=(--rdma-core)
    env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$softverbs" doctor "${args[@]}" > "$work/doctor" 2>&1
    drc=$?
    got=$(grep "^  info  $dev: this kernel's rxe " "$work/doctor")
    if [ $drc = 0 ] && [ "$got" = "$want" ]; then
        ok "softverbs doctor${args:+ ${args[*]}}: '${want#  info  }'"
    else
        bad "softverbs doctor${args:+ ${args[*]}} (exit $drc): want '${want#  info  }'"
        show "$work/doctor"
    fi
done

echo "test_rxe_features: $pass passed, $fail failed"
[ $fail = 0 ]
