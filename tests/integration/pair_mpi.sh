#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/pair_mpi.sh -- MPI across the two VMs of tests/vm/pair:
# Open MPI (Debian 12's 4.1, pml ucx) over UCX's rc_verbs transport on
# rxe0, one rank on each VM, running tests/integration/mpi_check (a
# checked ping-pong of 8 bytes and 64 KiB, and a checked MPI_Allreduce).
# Run on both VMs (tests/vm/check-pair runs it after pair_suite.sh).
#
#   pair_mpi.sh [-v]
#
# The launch: the VMs have no ssh server. mpirun runs on A and starts the
# orted on B through tests/vm/pair-mpirun-agent, its remote-shell agent
# (--mca plm_rsh_agent, no tree spawn, the session left attached), which
# hands the command to B over the pair's shared folder; on B this script
# runs that agent's server until A is done. The orted connects back to
# mpirun over TCP on the pair link (oob_tcp_if_include), then the ranks
# talk through UCX on rxe0:1. Open MPI's own launcher does all the rest;
# nothing of PRRTE or PMIx runs outside it (one daemon per side would
# need its own start-up handshake across the share: more code, no gain).
#
# Settings the pair needs, each for a reason seen here:
#   pml_ucx_tls, pml_ucx_devices "any": Open MPI 4.1 takes pml ucx only
#     for mlx* devices by default ("PML ucx cannot be selected").
#   UCX_TLS=rc_verbs,ud_verbs:aux,self: UCX connects rc_verbs endpoints
#     through messages over an auxiliary transport; without one, "no
#     auxiliary transport" and MPI_Init fails. ud_verbs it is.
#   UCX_UD_ETH_DGID_CHECK=n: with UCX 1.13's check of a RoCE packet's
#     destination GID on, no ud_verbs endpoint on rxe gets an answer, not
#     even one to its own process: the packets arrive (rxe0's rcvd_pkts
#     counts them), UCX resends until "UD endpoint ... unhandled timeout
#     error" aborts the rank, with rdma-core and softverbs alike (measured
#     here; ibv_ud_pingpong works on the same link). With it off, all
#     four cases pass.
#
# Cases (rank 0 on A : rank 1 on B; sv = softverbs, rc = rdma-core):
# rc:rc (the reference), sv:sv, sv:rc, rc:sv. A softverbs rank gets
# LD_LIBRARY_PATH=$SOFTVERBS_LIBDIR through mpirun -x (per side: one
# application context per rank); an rdma-core rank has LD_LIBRARY_PATH
# unset. A case passes when mpirun exits 0, mpi_check says OK (its data
# and sums were right) and printed both sizes' ping-pong, each rank
# mapped the libibverbs of its library (its /proc/self/maps, printed by
# mpi_check after the traffic: softverbs' from $SOFTVERBS_LIBDIR and, in
# the native provider mode, no rdma-core provider; rdma-core's with
# librxe), and rxe0 on A sent and received at least one packet per
# message (its hw_counters): the ranks did talk over RDMA.
# A prints one PASS/FAIL line per case, then two "bench:" lines (rdma-core
# against softverbs, both ends each), "pair_mpi: S s" (its seconds) and
# "pair_mpi: N passed, N failed".
# A case that times out (a loaded host) is run once more and reported
# "PASS (retried: ...)"; twice is a failure.
#
# Environment: SV_ROLE, SV_PEER_ROLE, SV_PAIR_DIR, RXE_* (tests/vm/pair);
# top_builddir (default the current folder; mpi_check is built there by
# tests/vm/check-pair with mpicc); PAIR_MPI_ROUNDS (ping-pong round trips
# per size, 100); PAIR_MPI_TIMEOUT seconds per mpirun (90);
# PAIR_MPI_MTU the NICs' MTU for the cases (9000: path MTU 4096;
# pair_suite.sh leaves them at 1500).
# Exit: 0 all cases passed; 1 some failed; 77 not in a pair, or Open MPI
# or mpi_check missing.
set -u
. "$(dirname "$0")/lib.sh"
sv_init pair_mpi "$@"
t_start=$EPOCHSECONDS
role=${SV_ROLE:-}
[ "$role" = A ] || [ "$role" = B ] || skip "not in a VM pair (SV_ROLE): run through tests/vm/pair"
: "${SV_PAIR_DIR:?}"
sv_need_dev RXE_DEV
sv_need_cmd mpirun openmpi-bin
sv_need_cmd orted openmpi-bin
top=$(cd "${top_builddir:-.}" && pwd)
prog=$top/tests/integration/mpi_check
[ -x "$prog" ] || skip "$prog is not built (tests/vm/check-pair builds it with mpicc: apt-get install libopenmpi-dev)"
uct_ib=(/usr/lib/*/ucx/libuct_ib.so.0)
[ -e "${uct_ib[0]}" ] || skip "UCX's verbs transports missing (apt-get install libucx0)"
agent=$(cd "$here/../vm" && pwd)/pair-mpirun-agent
[ -x "$agent" ] || skip "$agent missing"
rounds=${PAIR_MPI_ROUNDS:-100}
tmo=${PAIR_MPI_TIMEOUT:-90}
# every process of both ends on the system's libraries unless told
unset LD_LIBRARY_PATH LD_PRELOAD
cd "$top" || exit 1

# the NICs back at a jumbo MTU on both sides (rxe follows: active MTU)
if [ "$(cat "/sys/class/net/$RXE_NETDEV/mtu")" != "${PAIR_MPI_MTU:-9000}" ]; then
    ip link set "$RXE_NETDEV" mtu "${PAIR_MPI_MTU:-9000}" ||
        { echo "FAIL: ip link set $RXE_NETDEV mtu ${PAIR_MPI_MTU:-9000}"; exit 1; }
fi
echo "pair_mpi: $role ($RXE_IP), peer $RXE_PEER_IP; $RXE_NETDEV MTU $(cat "/sys/class/net/$RXE_NETDEV/mtu")"

if [ "$role" = B ]; then
    sv-barrier mpi.ready 600 || exit 1
    "$agent" --serve
    rc=$?
    sv-barrier mpi.done 600 || exit 1
    exit $rc
fi

# ---- A: mpirun, and the verdicts ------------------------------------------
trap '"$agent" --stop; rm -rf "$work"' EXIT
sv-barrier mpi.ready 600 || exit 1

# counter NAME: rxe0's port 1 hw counter NAME (0 when the kernel has none)
counter() {
    local v=0
    [ -r "/sys/class/infiniband/$RXE_DEV/ports/1/hw_counters/$1" ] &&
        read -r v < "/sys/class/infiniband/$RXE_DEV/ports/1/hw_counters/$1"
    echo "${v:-0}"
}

# context LIB HOST: one rank's application context for mpirun (after -np 1)
context() {
    # shellcheck disable=SC2054  # (UCX_TLS is one comma-separated word)
    local ctx=(--host "$2" -x UCX_TLS=rc_verbs,ud_verbs:aux,self -x "UCX_NET_DEVICES=$RXE_DEV:1"
               -x UCX_UD_ETH_DGID_CHECK=n)
    if [ "$1" = sv ]; then
        ctx+=(-x "LD_LIBRARY_PATH=$libdir")
        [ -n "${SOFTVERBS_PROVIDERS:-}" ] && ctx+=(-x "SOFTVERBS_PROVIDERS=$SOFTVERBS_PROVIDERS")
    fi
    printf '%s\n' "${ctx[@]}"
}

# maps_ok RANK LIB OUT: the "maps" lines of RANK in OUT show the library
# LIB served it; prints why not
maps_ok() {
    local l re="^mpi_check: rank $1 pid [0-9]+ on [^ ]+ maps (.*)$" verbs='' prov=''
    while IFS= read -r l; do
        [[ $l =~ $re ]] || continue
        case ${BASH_REMATCH[1]} in
            */libibverbs.so*) verbs+=" ${BASH_REMATCH[1]}" ;;
            */librxe-rdmav*) prov+=" ${BASH_REMATCH[1]}" ;;
        esac
    done < "$3"
    if [ -z "$verbs" ]; then
        echo "rank $1 mapped no libibverbs"; return 1
    fi
    if [ "$2" = sv ]; then
        [[ $verbs == " $libdir/libibverbs.so"* ]] ||
            { echo "rank $1 (softverbs) mapped$verbs"; return 1; }
        if [ "${SOFTVERBS_PROVIDERS:-native}" = rdma-core ]; then
            [ -n "$prov" ] || { echo "rank $1 (softverbs, SOFTVERBS_PROVIDERS=rdma-core) mapped no librxe"; return 1; }
        elif [ -n "$prov" ]; then
            echo "rank $1 (softverbs, native mode) mapped rdma-core's$prov"; return 1
        fi
    else
        [[ $verbs != *" $libdir/"* ]] || { echo "rank $1 (rdma-core) mapped$verbs"; return 1; }
        [ -n "$prov" ] || { echo "rank $1 (rdma-core) mapped no librxe provider"; return 1; }
    fi
    return 0
}

declare -A lat=() bw=()
n=0
# mcase CFG: one mpirun, rank 0 on A with library ${CFG%:*}, rank 1 on B
# with ${CFG#*:}
mcase() {
    local cfg=$1 name try rc out why first='' s0 r0 l want re a b
    local -a ca cb
    n=$((n + 1))
    name="MPI ping-pong and allreduce over UCX rc_verbs ($(label "${cfg%:*}") on A, $(label "${cfg#*:}") on B)"
    mapfile -t ca < <(context "${cfg%:*}" "$RXE_IP")
    mapfile -t cb < <(context "${cfg#*:}" "$RXE_PEER_IP")
    for try in 1 2; do
        out=$work/out.$n.$try why=''
        s0=$(counter sent_pkts) r0=$(counter rcvd_pkts)
        SECONDS=0
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            timeout -k 10 "$tmo" mpirun \
            --mca plm_rsh_agent "$agent" --mca plm_rsh_no_tree_spawn 1 --leave-session-attached \
            --mca oob_tcp_if_include "${RXE_IP%.*}.0/24" \
            --mca btl self,tcp --mca btl_tcp_if_include "${RXE_IP%.*}.0/24" \
            --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any \
            --host "$RXE_IP,$RXE_PEER_IP" \
            -np 1 "${ca[@]}" "$prog" -n "$rounds" : -np 1 "${cb[@]}" "$prog" -n "$rounds" \
            > "$out" 2>&1
        rc=$?
        echo "info: $cfg try $try: mpirun exit $rc in ${SECONDS}s" >> "$out"
        [ "$verbose" = 1 ] && sv_indent "$out"
        if [ $rc = 124 ] || [ $rc = 137 ]; then
            why="timed out after ${tmo}s"
        elif [ $rc != 0 ]; then
            why="mpirun exit $rc"
        elif ! sv_grep "$out" '^mpi_check: OK$'; then
            why="no 'mpi_check: OK'"
        else
            for want in 8 65536; do
                re="^mpi_check: pingpong $want B rounds $rounds latency_us ([0-9.]+) bandwidth_MBps ([0-9.]+)$"
                while IFS= read -r l; do
                    [[ $l =~ $re ]] && { lat[$cfg.$want]=${BASH_REMATCH[1]} bw[$cfg.$want]=${BASH_REMATCH[2]}; }
                done < "$out"
                [ -n "${lat[$cfg.$want]:-}" ] || why="no $want-byte ping-pong line"
            done
            [ -z "$why" ] && ! a=$(maps_ok 0 "${cfg%:*}" "$out") && why=$a
            [ -z "$why" ] && ! b=$(maps_ok 1 "${cfg#*:}" "$out") && why=$b
            # each side sends 2 * rounds messages (and the warm-up's)
            if [ -z "$why" ]; then
                a=$(($(counter sent_pkts) - s0)) b=$(($(counter rcvd_pkts) - r0))
                [ $a -ge $((2 * rounds)) ] && [ $b -ge $((2 * rounds)) ] ||
                    why="rxe0 on A sent $a and received $b packets, not the $((2 * rounds)) messages each way"
            fi
        fi
        if [ -z "$why" ]; then
            [ $try = 2 ] && name="$name (retried: $first)"
            sv_result "$name" 1
            echo "info: $cfg: 8 B latency ${lat[$cfg.8]} us, 64 KiB bandwidth ${bw[$cfg.65536]} MB/s," \
                 "rxe0 on A sent $a / received $b packets, ${SECONDS}s"
            return
        fi
        unset "lat[$cfg.8]" "lat[$cfg.65536]"
        first=$why
        if [ $try = 1 ] && [[ $why == timed* ]]; then
            echo "note: $name: first run failed ($why); once more"
            continue
        fi
        break
    done
    sv_result "$name" 0 "$why"
    [ "$verbose" = 1 ] || tail -n 25 "$out" | sed 's/^/    /'
}

for cfg in rc:rc sv:sv sv:rc rc:sv; do
    mcase $cfg
done
"$agent" --stop
sv-barrier mpi.done 600 || exit 1

# bench: rdma-core on both ends against softverbs on both ends
if [ -n "${lat[rc:rc.8]:-}" ] && [ -n "${lat[sv:sv.8]:-}" ]; then
    echo "bench: mpi pingpong 8 B latency: rdma-core ${lat[rc:rc.8]} us, softverbs ${lat[sv:sv.8]} us"
    echo "bench: mpi pingpong 64 KiB bandwidth: rdma-core ${bw[rc:rc.65536]} MB/s, softverbs ${bw[sv:sv.65536]} MB/s"
fi
# (tests/vm/check-pair puts this in scripts/test's closing table)
echo "pair_mpi: $((EPOCHSECONDS - t_start)) s"
sv_finish
