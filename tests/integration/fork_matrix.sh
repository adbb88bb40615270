#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/fork_matrix.sh SHAPE -- one row of the fork matrix,
# run inside the test VM by the test_fork_<shape>.sh wrappers: every fork
# way (fork+exit, fork+exec, system(), posix_spawn, fork from a thread
# during traffic) x fork safety off / on (ibv_fork_init) / late
# (ibv_fork_init with the MRs live) for one memory shape, through
# examples/fork-torture on softverbs over $RXE_DEV (each run checked to
# have mapped softverbs' libibverbs, and rdma-core's librxe under
# SOFTVERBS_PROVIDERS=rdma-core).
#
# fork-torture itself checks every byte the device wrote and what each
# child sees, page by page: with fork safety on a child touching a page
# wholly covered by registered memory dies with SIGSEGV; a page only
# partly registered is, on this kernel (copy-on-fork: it copies pinned
# pages into the child at fork), left to that copy by softverbs, so the
# child reads every unregistered byte on it and the registered ones as
# they were at fork; with SOFTVERBS_FORK_WHOLE_PAGES=1 (and on rdma-core)
# such a page is hidden whole. With fork safety off the child sees all
# data. This script runs the cells and checks their verdicts.
#
# Shapes: plain (also RDMAV_FORK_SAFE / IBV_FORK_SAFE at load, and
# examples/fork-classic), overlap, subpage, huge (hugetlbfs 2 MiB pages:
# raises /proc/sys/vm/nr_hugepages to 16 for the run), big (one 1 GiB MR:
# needs about 2.5 GiB of guest memory, tests/vm/check-vm gives 3G).
#
# Environment: RXE_DEV (tests/vm/run); top_builddir (make check; default
# the current folder); FORK_MATRIX_ROUNDS rounds per way and cell (2; big 1).
# Exit: 0 all cells passed; 1 a cell failed; 77 cannot run here.
set -u
shape=${1:?usage: fork_matrix.sh plain|overlap|subpage|huge|big}
top=${top_builddir:-$(pwd)}
torture=$top/examples/fork-torture
classic=$top/examples/fork-classic
rounds=${FORK_MATRIX_ROUNDS:-2}
[ "$shape" = big ] && rounds=${FORK_MATRIX_ROUNDS:-1}

. "$(dirname "$0")/lib.sh"
sv_init fork_matrix
dev=${RXE_DEV:-}
if [ -z "$dev" ] || [ ! -e "/sys/class/infiniband/$dev" ]; then
    skip "no rxe device (RXE_DEV='$dev'): run inside tests/vm/run"
fi
[ -x "$torture" ] || skip "$torture is not built (make)"

out=$work/out
hp_file=/proc/sys/vm/nr_hugepages
hp_old=
cleanup() {
    rm -rf "$work"
    [ -n "$hp_old" ] && echo "$hp_old" > $hp_file
}
trap cleanup EXIT

case $shape in
huge)
    hp_old=$(cat $hp_file)
    if [ "$hp_old" -lt 16 ]; then
        echo 16 > $hp_file 2> /dev/null || { hp_old=; skip "cannot raise $hp_file (not root?)"; }
    else
        hp_old=
    fi
    free=$(awk '/^HugePages_Free/ { print $2 }' /proc/meminfo)
    [ "${free:-0}" -ge 12 ] || skip "only ${free:-0} free 2 MiB huge pages"
    ;;
big)
    mem=$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)
    # the MR, plus its copy in a child while fork safety is off
    [ "$mem" -ge $((2500 * 1024)) ] ||
        skip "$((mem / 1024)) MiB of memory, the 1 GiB cells need 2500 (tests/vm/run --mem 3G)"
    ;;
esac

# cell NAME EXPECT-RC EXPECT-TEXT [ENV=VALUE...] -- ARGS...
cell() {
    local name=$1 want_rc=$2 want_text=$3 rc
    local envs=()
    shift 3
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    echo "---- $name: ${envs[*]} fork-torture $*"
    # the ASan runtime first in the sanitized pass (passes/san)
    env LD_PRELOAD="${SOFTVERBS_PRELOAD:+$SOFTVERBS_PRELOAD }$sv_probe" SV_MAPS_DIR="$work/maps" \
        "${envs[@]}" "$@" \
        > "$out" 2>&1 < /dev/null
    rc=$?
    cat "$out"
    if [ $rc = 77 ]; then
        echo "SKIP: $name: fork-torture could not run here"
        exit 77
    fi
    if [ $rc != "$want_rc" ]; then
        echo "FAIL: $name: exit $rc, expected $want_rc"
        fail=$((fail + 1))
    elif ! grep -q "$want_text" "$out"; then
        echo "FAIL: $name: no \"$want_text\" in the output"
        fail=$((fail + 1))
    elif [ "$(basename "$1")" = fork-torture ] && ! grep -q "softverbs library" "$out"; then
        echo "FAIL: $name: fork-torture did not run on softverbs"
        fail=$((fail + 1))
    elif ! sv_maps_check "$dev"; then
        echo "FAIL: $name: not served by the libraries it should"
        fail=$((fail + 1))
    else
        echo "PASS: $name"
        pass=$((pass + 1))
    fi
}

t=("$torture" --shape "$shape" --rounds "$rounds")
ok="^OK: every byte"
cell "$shape, fork safety off" 0 "$ok" -- "${t[@]}" --fork-safe off
cell "$shape, ibv_fork_init() first" 0 "$ok" -- "${t[@]}" --fork-safe on
if [ "$shape" = huge ]; then
    # MRs inside huge pages registered before a late ibv_fork_init() are
    # recorded at base-page size unless RDMAV_HUGEPAGES_SAFE is set at load
    # (ibv_fork_init(3)): the late call refuses with EINVAL, nothing half
    # protected, data intact ...
    cell "$shape, late ibv_fork_init() without RDMAV_HUGEPAGES_SAFE" 1 \
        "ibv_fork_init() with MRs already registered failed: Invalid argument" -- \
        "${t[@]}" --fork-safe late
    # ... and with it set, the late call protects them.
    cell "$shape, late ibv_fork_init(), RDMAV_HUGEPAGES_SAFE=1" 0 "$ok" RDMAV_HUGEPAGES_SAFE=1 -- \
        "${t[@]}" --fork-safe late
    cell "$shape, ibv_fork_init() first, RDMAV_HUGEPAGES_SAFE=1" 0 "$ok" RDMAV_HUGEPAGES_SAFE=1 -- \
        "${t[@]}" --fork-safe on
else
    cell "$shape, late ibv_fork_init() with the MRs live" 0 "$ok" -- "${t[@]}" --fork-safe late
fi
case $shape in subpage|overlap)
    # the whole-page rounding (what a kernel without copy-on-fork gets)
    cell "$shape, ibv_fork_init() first, SOFTVERBS_FORK_WHOLE_PAGES=1" 0 "$ok" \
        SOFTVERBS_FORK_WHOLE_PAGES=1 -- "${t[@]}" --fork-safe on
    ;;
esac
if [ "$shape" = plain ]; then
    cell "plain, RDMAV_FORK_SAFE=1 at load" 0 "fork safety ON" RDMAV_FORK_SAFE=1 -- "${t[@]}"
    cell "plain, IBV_FORK_SAFE=1 at load" 0 "fork safety ON" IBV_FORK_SAFE=1 -- "${t[@]}"
    cell "plain, RDMAV_FORK_SAFE=0 is off" 0 "fork safety OFF" RDMAV_FORK_SAFE=0 -- "${t[@]}"
    cell "plain, 4 KiB operations, 4 traffic threads" 0 "$ok" -- "${t[@]}" --fork-safe on \
        --size 4096 --threads 4 --way thread
    if [ -x "$classic" ]; then
        cell "fork-classic (system() between RDMA WRITEs)" 0 "^OK$" -- "$classic"
        cell "fork-classic without ibv_fork_init()" 0 "^OK$" -- "$classic" --no-fork-init
    fi
fi
sv_name="fork matrix, shape $shape"
sv_finish
