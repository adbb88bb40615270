# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/uroce_lib.sh -- sourced by the host tests that run Debian's
# programs between two processes on uroce0 over lo
# (test_uroce_pingpong.sh, test_uroce_perftest.sh).
#
#   uroce_init NAME PACKAGE PROGRAM...   skips (77) when a PROGRAM (of
#       Debian's PACKAGE), the build or lo is missing; sets top, libdir, work (a scratch folder, removed at
#       exit), pass/fail and result NAME OK, conf (the environment that
#       makes uroce0 on lo, with the ASan runtime first for a sanitized
#       library), lib and as PROGRAM [ARG...] (runs it on that library as
#       the test's user), who
#   uroce_isolate   when root: as() runs in a network namespace of its own
#   uroce_drop_root   drop=(setpriv ... --) and who=nobody when root
#       (skips without setpriv), else drop=() and who=the caller
#   uroce_as_nobody   when root with setpriv, unshare and ip: as() runs
#       as nobody in a network namespace of its own (so that the
#       root-owned sockets of tests beside it do not hold port 4791 on
#       127.0.0.1: SO_REUSEPORT groups are per user), on a copy of the
#       library nobody can read; who=nobody. Else says why, returns 1.
#
# Environment: top_builddir (make check; default: the current folder).

skip() { echo "SKIP: $*"; exit 77; }

uroce_init() {
    local name=$1 pkg=$2 p asan
    shift 2
    top=${top_builddir:-$(pwd)}
    libdir=$top/lib/.libs
    for p in "$@"; do
        command -v "$p" > /dev/null || skip "$p missing (apt-get install $pkg)"
    done
    [ -e "$libdir/libibverbs.so.1" ] || skip "no softverbs build in $libdir"
    [ -e /sys/class/net/lo ] || skip "no lo in this network namespace"
    work=$(mktemp -d "/tmp/$name.XXXXXX") || exit 1
    # shellcheck disable=SC2064  # the folder is known now
    trap "rm -rf '$work'" EXIT
    pass=0 fail=0
    lib=$libdir
    mkdir "$work/etc" "$work/config"
    conf=(SOFTVERBS_UROCE=lo SOFTVERBS_SYSCONFDIR="$work/etc" XDG_CONFIG_HOME="$work/config")
    # a library built with ASan needs its runtime first in Debian's programs
    asan=$(ldd "$libdir/libibverbs.so.1" | awk '/libasan/ { print $3 }')
    [ -n "$asan" ] && conf+=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0)
    who=$(id -un)
}

result() { # NAME OK
    if [ "$2" = 1 ]; then echo "PASS: $1"; pass=$((pass + 1));
    else echo "FAIL: $1"; fail=$((fail + 1)); fi
}

as() { env LD_LIBRARY_PATH="$lib" "${conf[@]}" "$@"; }

# uroce_isolate: when root with unshare and ip, as() runs its program in
# a network namespace of its own (lo up), so that the uroce contexts of
# the tests make runs beside this one (all root's, all on 127.0.0.1:4791)
# are not in its SO_REUSEPORT group. Their joining and leaving moves
# sockets in the group, and a datagram that reaches a moved socket takes
# one more hop (uroce_net.c): it can arrive after the next one, which UC
# takes for a lost packet and drops the message (ibv_uc_pingpong then
# waits for it forever). A server and its client must share one
# namespace: one as() runs both.
uroce_isolate() {
    if [ "$(id -u)" != 0 ] || ! command -v unshare > /dev/null || ! command -v ip > /dev/null; then
        return 0
    fi
    printf 'ip link set lo up || exit 1\nexec "$@"\n' > "$work/netns.sh"
    as() {
        unshare --net bash "$work/netns.sh" env LD_LIBRARY_PATH="$lib" "${conf[@]}" "$@"
    }
}

# uroce_drop_root: drop (a command prefix) runs as nobody when the test
# is root (setpriv; skips, 77, without it), as the caller otherwise;
# who names that user
uroce_drop_root() {
    drop=()
    who=$(id -un)
    if [ "$(id -u)" = 0 ]; then
        command -v setpriv > /dev/null || skip "setpriv missing (apt-get install util-linux)"
        drop=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
        who=nobody
    fi
}

uroce_as_nobody() {
    if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null ||
       ! command -v unshare > /dev/null || ! command -v ip > /dev/null; then
        echo "note: not root, or no setpriv/unshare/ip: the runs as nobody are left out"
        return 1
    fi
    lib=$work/nobody
    mkdir "$lib" && cp -a "$libdir"/libibverbs.so* "$lib"/ && chmod -R a+rX "$work"
    cat > "$work/nobody.sh" << 'EOS'
ip link set lo up || exit 1
exec setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
EOS
    chmod a+r "$work/nobody.sh"
    as() {
        (cd / && unshare --net bash "$work/nobody.sh" env -u XDG_RUNTIME_DIR \
             LD_LIBRARY_PATH="$lib" "${conf[@]}" "$@")
    }
    who=nobody
}
