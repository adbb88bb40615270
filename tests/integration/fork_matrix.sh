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
# needs about 2.5 GiB of guest memory, tests/vm/check-vm gives 3G), odp
# (every MR IBV_ACCESS_ON_DEMAND, never madvised: see below).
#
# odp: first fork-torture on rdma-core (the system's library), one round of
# fork+exit, as the reference. Where the kernel's rxe has ODP (7.x) that
# passes, and the cells on softverbs follow, fork safety off / on / late:
# loopback (the device writes and reads the forking process's ODP memory
# while it forks; a child reads its own copy of the registered memory, as
# at fork, and writes it without the parent or the device seeing that),
# then with the traffic from a peer process (fork-torture --remote on the
# same rxe0): its RDMA WRITEs must land in the parent's memory, not in a
# page a child took, its RDMA READs return the parent's current bytes.
# Where the kernel has no ODP (6.1, 6.12) rdma-core refuses the
# registration (fork-torture exits 3 naming the errno) and each cell
# checks that softverbs refuses it with the same errno.
#
# Environment: RXE_DEV (tests/vm/run); top_builddir (make check; default
# the current folder); FORK_MATRIX_ROUNDS rounds per way and cell (2; big 1).
# Exit: 0 all cells passed; 1 a cell failed; 77 cannot run here.
set -u
shape=${1:?usage: fork_matrix.sh plain|overlap|subpage|huge|big|odp}
top=${top_builddir:-$(pwd)}
torture=$top/examples/fork-torture
classic=$top/examples/fork-classic
# The programs themselves with this build's library first on their path,
# as libtool's wrapper scripts (examples/NAME) would run them: a wrapper,
# bash with three seds and an ls, costs 0.5-0.9 s a run in the emulated VM.
lp=$top/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x "$top/examples/.libs/fork-torture" ] && torture=$top/examples/.libs/fork-torture
[ -x "$top/examples/.libs/fork-classic" ] && classic=$top/examples/.libs/fork-classic
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
    local name=$1 want_rc=$2 want_text=$3 rc c re
    local envs=()
    shift 3
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    echo "---- $name: ${envs[*]} fork-torture $*"
    # the ASan runtime first in the sanitized pass (passes/san)
    env LD_LIBRARY_PATH="$lp" LD_PRELOAD="${SOFTVERBS_PRELOAD:+$SOFTVERBS_PRELOAD }$sv_probe" SV_MAPS_DIR="$work/maps" \
        "${envs[@]}" "$@" \
        > "$out" 2>&1 < /dev/null
    rc=$?
    sv_slurp c "$out"
    printf '%s' "$c"
    # EXPECT-TEXT is a basic regular expression (as grep takes it): its
    # ( ) { } + ? | are plain characters; sv_grep takes an extended one
    re=${want_text//\(/\\(} re=${re//\)/\\)} re=${re//\{/\\{} re=${re//\}/\\\}}
    re=${re//+/\\+} re=${re//\?/\\?} re=${re//|/\\|}
    if [ $rc = 77 ]; then
        echo "SKIP: $name: fork-torture could not run here"
        exit 77
    fi
    if [ $rc != "$want_rc" ]; then
        echo "FAIL: $name: exit $rc, expected $want_rc"
        fail=$((fail + 1))
    elif ! sv_grep "$out" "$re"; then
        echo "FAIL: $name: no \"$want_text\" in the output"
        fail=$((fail + 1))
    elif [ "${1##*/}" = fork-torture ] && [[ $c != *"softverbs library"* ]]; then
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
if [ "$shape" = odp ]; then
    # the program with no softverbs folder on its path: rdma-core's library
    bin=$top/examples/.libs/fork-torture
    [ -x "$bin" ] || bin=$torture
    echo "---- odp on rdma-core (the reference): fork-torture --shape odp --way exit --rounds 1"
    env LD_LIBRARY_PATH= LD_PRELOAD= ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        "$bin" --shape odp --way exit --rounds 1 > "$out" 2>&1 < /dev/null
    rc=$?
    cat "$out"
    refusal=$(sed -n 's/^ODP refused: .* failed: \(errno [0-9]* ([^)]*)\), .*/\1/p' "$out")
    if ! grep -q 'rdma-core (or other) library' "$out"; then
        sv_result "odp on rdma-core" 0 "fork-torture did not run on rdma-core's library"
    elif [ $rc = 3 ] && [ -n "$refusal" ]; then
        echo "rdma-core refuses ODP on $(uname -r): $refusal"
        for m in off on late; do
            cell "odp refused as on rdma-core ($refusal), fork safety $m" 3 \
                "ODP refused: .* failed: $refusal, softverbs library" -- "${t[@]}" --fork-safe $m
        done
        sv_name="fork matrix, shape odp (kernel without ODP: the refusal)"
        sv_finish
        exit
    elif [ $rc = 0 ]; then
        sv_result "odp on rdma-core: fork+exit with ODP MRs (the reference)" 1
    else
        sv_result "odp on rdma-core" 0 "exit $rc"
    fi
    for m in off on late; do
        cell "odp, loopback, fork safety $m" 0 "$ok" -- "${t[@]}" --fork-safe $m
    done
    port=18610
    for m in off on late; do
        port=$((port + 1))
        # the peer: no maps probe (it may outlive the cell's maps check);
        # its last line names its library
        env LD_LIBRARY_PATH="$lp" LD_PRELOAD="${SOFTVERBS_PRELOAD:-}" "$torture" --remote 127.0.0.1 --port $port \
            > "$work/peer" 2>&1 < /dev/null &
        peer=$!
        cell "odp, RDMA WRITE and READ from a peer process, fork safety $m" 0 "$ok" -- \
            "${t[@]}" --fork-safe $m --listen --port $port
        wait $peer
        prc=$?
        sed 's/^/  peer: /' "$work/peer"
        if [ $prc = 0 ] && grep -q '^OK: .* READs returned what the parent held (all) (softverbs library)' "$work/peer"; then
            sv_result "odp, the peer's RDMA READs returned the parent's current bytes, fork safety $m" 1
        else
            sv_result "odp, the peer's RDMA READs returned the parent's current bytes, fork safety $m" 0 "peer exit $prc"
        fi
    done
    sv_name="fork matrix, shape odp"
    sv_finish
    exit
fi
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
