#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# bench/fork-latency.sh -- what registered memory costs at fork(): fork()
# time, fork()+wait time and the child's resident memory with 64 MiB,
# 256 MiB and 1 GiB registered, fork safety off and on (RDMAV_FORK_SAFE=1
# vs unset), softverbs vs rdma-core; the subpage probe (ibv_fork_init(),
# 1 KiB registered in a page whose first half holds a string, 256 MiB or
# 1 GiB more registered: does the child read the string, and fork()'s
# time) and fork() with N pages each registered in part (N 1 KiB MRs),
# rdma-core vs softverbs leaving those pages to the kernel's copy vs
# softverbs with SOFTVERBS_FORK_WHOLE_PAGES=1 (whole-page rounding); then
# the number of mappings after 10,000 one-page registrations (the
# vm.max_map_count risk). One VM boot
# (tests/vm/run --mem 4G), the same helper binary (bench/fork_latency,
# linked to -libverbs) run with LD_LIBRARY_PATH=<softverbs libdir> and
# without.
#
#   bench/fork-latency.sh BIN LIBDIR            boots the VM (make bench-fork-latency)
#   bench/fork-latency.sh --inside BIN LIBDIR   in the VM: measure, print the table
#
# Environment: FORK_LATENCY_COUNT forks per cell (9; the median counts),
# FORK_LATENCY_SIZES (64 256 1024, MiB), FORK_LATENCY_PROBE (256 1024,
# MiB), FORK_LATENCY_PAGES (250 1000 4000), FORK_LATENCY_MRS (10000).
# Times are from an emulated VM (QEMU TCG): compare the rows, not the
# absolute numbers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" != --inside ]; then
    [ $# = 2 ] || { echo "usage: $0 BIN LIBDIR" >&2; exit 2; }
    bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    libdir=$(cd "$2" && pwd)
    exec "$here/../tests/vm/run" --netdev lo --mem 4G --timeout 1800 -- \
        "$here/fork-latency.sh" --inside "$bin" "$libdir"
fi
bin=$2 libdir=$3
count=${FORK_LATENCY_COUNT:-9}
sizes=${FORK_LATENCY_SIZES:-64 256 1024}
mrs=${FORK_LATENCY_MRS:-10000}
probes=${FORK_LATENCY_PROBE:-256 1024}
npages=${FORK_LATENCY_PAGES:-250 1000 4000}
[ -n "${RXE_DEV:-}" ] || { echo "fork-latency: no RXE_DEV: run through tests/vm/run" >&2; exit 77; }
[ -e "$libdir/libibverbs.so.1" ] || { echo "fork-latency: no $libdir/libibverbs.so.1" >&2; exit 1; }

# run LIB SAFE ARGS...: one helper run, its output line on stdout
run() {
    local lib=$1 safe=$2 envs=()
    shift 2
    [ "$lib" = softverbs ] && envs+=("LD_LIBRARY_PATH=$libdir")
    [ "$safe" = on ] && envs+=(RDMAV_FORK_SAFE=1)
    env -u RDMAV_FORK_SAFE -u IBV_FORK_SAFE "${envs[@]}" "$bin" "$@"
}
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<< "$2"; }

echo "fork-latency: kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo); median of $count forks per cell"
echo
printf '%-11s %-10s %-5s %11s %15s %15s\n' registered library safe "fork() ms" "fork+wait ms" "child RSS MiB"
declare -A F W R
for mib in $sizes; do
    for lib in rdma-core softverbs; do
        for safe in off on; do
            line=$(run $lib $safe fork "$mib" "$count") || { echo "fork-latency: $lib $safe $mib MiB failed" >&2; exit 1; }
            got=$(field lib "$line")
            [ "$got" = "$lib" ] || { echo "fork-latency: asked for $lib, ran on $got" >&2; exit 1; }
            k=$mib.$lib.$safe
            F[$k]=$(field fork_us "$line")
            W[$k]=$(field forkwait_us "$line")
            R[$k]=$(field child_rss_kib "$line")
            printf '%-11s %-10s %-5s %11.2f %15.2f %15.1f\n' "$mib MiB" $lib $safe \
                "$(bc -l <<< "${F[$k]} / 1000")" "$(bc -l <<< "${W[$k]} / 1000")" \
                "$(bc -l <<< "${R[$k]} / 1024")"
        done
    done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
echo
echo "Ratios of fork() time:"
printf '%-11s %-10s %14s\n' registered library "off / on"
for mib in $sizes; do
    for lib in rdma-core softverbs; do
        printf '%-11s %-10s %14s\n' "$mib MiB" $lib "$(ratio "${F[$mib.$lib.off]}" "${F[$mib.$lib.on]}")"
    done
done
first=${sizes%% *} last=${sizes##* }
printf 'with fork safety on, fork() at %s MiB / at %s MiB: rdma-core %s, softverbs %s\n' "$last" "$first" \
    "$(ratio "${F[$last.rdma-core.on]}" "${F[$first.rdma-core.on]}")" \
    "$(ratio "${F[$last.softverbs.on]}" "${F[$first.softverbs.on]}")"
printf 'with fork safety off, fork() at %s MiB / at %s MiB: rdma-core %s, softverbs %s\n' "$last" "$first" \
    "$(ratio "${F[$last.rdma-core.off]}" "${F[$first.rdma-core.off]}")" \
    "$(ratio "${F[$last.softverbs.off]}" "${F[$first.softverbs.off]}")"
printf 'softverbs / rdma-core fork() time, fork safety on: %s\n' \
    "$(for mib in $sizes; do printf '%s MiB %s  ' "$mib" "$(ratio "${F[$mib.softverbs.on]}" "${F[$mib.rdma-core.on]}")"; done)"

# probe LIB PAGES ARGS...: the subpage probe, softverbs with partly
# registered pages left to the kernel (PAGES=partial) or rounded out
# (whole: SOFTVERBS_FORK_WHOLE_PAGES=1; rdma-core always)
probe() {
    local lib=$1 pages=$2 envs=()
    shift 2
    [ "$lib" = softverbs ] && envs+=("LD_LIBRARY_PATH=$libdir")
    [ "$lib" = softverbs ] && [ "$pages" = whole ] && envs+=(SOFTVERBS_FORK_WHOLE_PAGES=1)
    env -u RDMAV_FORK_SAFE -u IBV_FORK_SAFE -u SOFTVERBS_FORK_WHOLE_PAGES "${envs[@]}" "$bin" "$@"
}
cells="rdma-core:whole softverbs:partial softverbs:whole"

echo
echo "Subpage probe: ibv_fork_init(), 1 KiB registered in the second half of a page whose"
echo "first half holds a string, one more MR of the size given; the child reads the string"
echo "(pages: partial = pages registered in part left to the kernel's copy at fork; whole ="
echo "rounded out to whole pages, SOFTVERBS_FORK_WHOLE_PAGES=1 on softverbs):"
printf '%-11s %-10s %-8s %-8s %11s %15s\n' registered library pages child "fork() ms" "fork+wait ms"
for mib in $probes; do
    for c in $cells; do
        line=$(probe "${c%:*}" "${c#*:}" probe "$mib" "$count") || { echo "fork-latency: probe $c $mib failed" >&2; exit 1; }
        [ "$(field lib "$line")" = "${c%:*}" ] || { echo "fork-latency: asked for ${c%:*}: $line" >&2; exit 1; }
        printf '%-11s %-10s %-8s %-8s %11.2f %15.2f\n' "$mib MiB" "${c%:*}" "${c#*:}" "$(field child "$line")" \
            "$(bc -l <<< "$(field fork_us "$line") / 1000")" "$(bc -l <<< "$(field forkwait_us "$line") / 1000")"
    done
done

echo
echo "fork() with N pages each registered in part (a 1 KiB MR in each page's second half,"
echo "a string in its first half, every other page of one mapping; the child reads all N):"
printf '%-6s %-5s %-10s %-8s %-8s %11s %15s\n' N "" library pages child "fork() ms" "fork+wait ms"
for n in $npages; do
    for c in $cells; do
        line=$(probe "${c%:*}" "${c#*:}" small "$n" "$count") || { echo "fork-latency: small $c $n failed" >&2; exit 1; }
        printf '%-6s %-5s %-10s %-8s %-8s %11.2f %15.2f\n' "$n" pages "${c%:*}" "${c#*:}" "$(field child "$line")" \
            "$(bc -l <<< "$(field fork_us "$line") / 1000")" "$(bc -l <<< "$(field forkwait_us "$line") / 1000")"
    done
done

echo
echo "Mappings (/proc/self/maps lines) after $mrs one-page registrations of separate buffers"
echo "(vm.max_map_count = $(cat /proc/sys/vm/max_map_count)):"
printf '%-10s %-5s %8s %8s\n' library safe before after
for lib in rdma-core softverbs; do
    for safe in off on; do
        line=$(run $lib $safe vmas "$mrs") || { echo "fork-latency: vmas $lib $safe failed" >&2; exit 1; }
        printf '%-10s %-5s %8s %8s\n' $lib $safe "$(field maps_before "$line")" "$(field maps_after "$line")"
    done
done
