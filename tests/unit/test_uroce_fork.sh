#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_fork.sh -- examples/fork-torture on uroce0 over
# lo, on the host (no VM, no RDMA in the kernel): the fork matrix of
# tests/integration/fork_matrix.sh with uroce in place of the kernel's
# rxe, small (2 rounds per way and cell).
#
# Every way (fork+exit, fork+exec, system(), posix_spawn, fork from a
# thread during traffic) in every fork-safety mode (off; on:
# ibv_fork_init first; late: ibv_fork_init with the MRs live), for the
# shapes plain, overlap and subpage (and huge where free 2 MiB pages
# exist; this test does not raise vm.nr_hugepages); the whole-page
# rounding (SOFTVERBS_FORK_WHOLE_PAGES=1); RDMAV_FORK_SAFE=1 and
# IBV_FORK_SAFE=1 at load; four traffic threads; the traffic from a
# peer process (fork-torture --listen / --remote: RDMA WRITEs and READs
# from another process while this one forks), in the three modes; and
# examples/fork-classic. fork-torture checks every byte the device
# wrote and what each child sees, page by page; a cell passes when it
# exits 0, says so, and ran on softverbs' library.
#
# Left out: the shape big (a 1 GiB MR: the VM's), and odp: uroce has no
# ODP, and fork-torture --shape odp checks only that the registration
# is refused (exit 3).
#
# Environment: top_builddir (make check; default: the current folder).
set -u
top=${top_builddir:-$(pwd)}
torture=$top/examples/fork-torture
classic=$top/examples/fork-classic
libdir=$top/lib/.libs
skip() { echo "SKIP: $*"; exit 77; }

[ -x "$torture" ] || skip "$torture is not built (make)"
[ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"
[ -e /sys/class/net/lo ] || skip "no lo in this network namespace"

work=$(mktemp -d /tmp/test_uroce_fork.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/etc" "$work/config"
out=$work/out
pass=0 fail=0
conf=(SOFTVERBS_UROCE=lo SOFTVERBS_SYSCONFDIR="$work/etc" XDG_CONFIG_HOME="$work/config"
      RXE_DEV=uroce0 RXE_GID=1)

# cell NAME EXPECT-TEXT [ENV=VALUE...] -- ARGS...
cell() {
    local name=$1 want_text=$2 rc
    local envs=()
    shift 2
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${conf[@]}" "${envs[@]}" timeout 60 "$@" > "$out" 2>&1 < /dev/null
    rc=$?
    if [ $rc != 0 ]; then
        echo "FAIL: $name: exit $rc"
    elif ! grep -q "$want_text" "$out"; then
        echo "FAIL: $name: no \"$want_text\" in the output"
        rc=1
    elif [ "$(basename "$1")" = fork-torture ] && ! grep -q "softverbs library" "$out"; then
        echo "FAIL: $name: fork-torture did not run on softverbs"
        rc=1
    else
        echo "PASS: $name"
        pass=$((pass + 1))
        return
    fi
    fail=$((fail + 1))
    echo "---- ${envs[*]} $*"
    cat "$out"
}

ok="^OK: every byte"
shapes="plain overlap subpage"
free=$(awk '/^HugePages_Free/ { print $2 }' /proc/meminfo)
if [ "${free:-0}" -ge 12 ]; then
    shapes="$shapes huge"
else
    echo "note: ${free:-0} free 2 MiB huge pages (fork-torture needs 12): the shape huge is left out"
fi

for shape in $shapes; do
    t=("$torture" --shape "$shape" --rounds 2)
    extra=()
    [ "$shape" = huge ] && extra=(RDMAV_HUGEPAGES_SAFE=1)
    for m in off on late; do
        cell "$shape, every way, fork safety $m" "$ok" "${extra[@]}" -- "${t[@]}" --fork-safe $m
    done
    case $shape in subpage|overlap)
        cell "$shape, ibv_fork_init() first, SOFTVERBS_FORK_WHOLE_PAGES=1" "$ok" \
            SOFTVERBS_FORK_WHOLE_PAGES=1 -- "${t[@]}" --fork-safe on
        ;;
    esac
done

t=("$torture" --rounds 2)
cell "plain, RDMAV_FORK_SAFE=1 at load" "fork safety ON" RDMAV_FORK_SAFE=1 -- "${t[@]}"
cell "plain, IBV_FORK_SAFE=1 at load" "fork safety ON" IBV_FORK_SAFE=1 -- "${t[@]}"
cell "plain, 4 KiB operations, 4 traffic threads" "$ok" -- "${t[@]}" --fork-safe on \
    --size 4096 --threads 4 --way thread

# the traffic from a peer process on uroce0: its RDMA WRITEs must land in
# the parent's memory, its READs return the parent's current bytes
for m in off on late; do
    port=$((20000 + RANDOM % 20000))
    # the peer starts once the listener listens (it would retry its
    # connect only after a second)
    (
        if command -v ss > /dev/null; then
            for try in $(seq 500); do
                [ -n "$(ss -Hltn "sport = :$port")" ] && break
                sleep 0.02
            done
        fi
        exec env "${conf[@]}" timeout 60 "$torture" --remote 127.0.0.1 --port $port
    ) > "$work/peer" 2>&1 < /dev/null &
    peer=$!
    cell "plain, every way, WRITEs and READs from a peer process, fork safety $m" "$ok" -- \
        "${t[@]}" --fork-safe $m --listen --port $port
    wait $peer
    prc=$?
    name="plain, the peer process's READs returned the parent's current bytes, fork safety $m"
    if [ $prc = 0 ] && grep -q '^OK: .* READs returned what the parent held (all) (softverbs library)' "$work/peer"; then
        echo "PASS: $name"
        pass=$((pass + 1))
    else
        echo "FAIL: $name: peer exit $prc"
        fail=$((fail + 1))
        sed 's/^/  peer: /' "$work/peer"
    fi
done

if [ -x "$classic" ]; then
    cell "fork-classic (system() between RDMA WRITEs)" "^OK$" -- "$classic"
    cell "fork-classic without ibv_fork_init()" "^OK$" -- "$classic" --no-fork-init
fi

echo "test_uroce_fork: $pass passed, $fail failed"
[ $fail = 0 ]
