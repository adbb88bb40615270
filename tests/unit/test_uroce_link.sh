#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_uroce_link.sh -- `softverbs link`: uroce devices kept in
# uroce.conf files, and the library listing them, on the host (no VM, no
# RDMA in the kernel, no root needed), as Debian's own tools see them:
#
#  - `softverbs link add uroce0 type uroce netdev lo` keeps it (root: in
#    the system's file, here SOFTVERBS_SYSCONFDIR's; a user: in
#    $XDG_CONFIG_HOME/softverbs/uroce.conf); ibv_devices and ibv_devinfo
#    -d uroce0 list it with no SOFTVERBS_UROCE; `link show` prints it;
#  - adding it twice, a second device on lo, a bad name, a missing
#    interface, type rxe and missing words fail with clear errors (exit 1,
#    usage errors 2);
#  - SOFTVERBS_UROCE, when set, alone names the process's devices (its
#    uroce0 on lo, not the configured uroce5; empty: none);
#  - garbage lines are skipped, each with one escaped line on stderr; a
#    user's line taking a system-wide device's name is skipped, said;
#  - `link delete` removes it, and ibv_devices no longer lists it;
#  - all of it also as nobody, with its own XDG_CONFIG_HOME, beside
#    root's system-wide device (a user cannot delete that one).
#
# Needs ibverbs-utils (Debian's ibv_devinfo, ibv_devices); nobody's runs
# need root and setpriv (util-linux). Exits 77 naming what is missing.
#
# Environment: top_builddir (make check; default: the current folder).
set -u
top=${top_builddir:-$(pwd)}
libdir=$top/lib/.libs
S=$top/tools/softverbs
skip() { echo "SKIP: $*"; exit 77; }

command -v ibv_devinfo > /dev/null && command -v ibv_devices > /dev/null ||
    skip "ibv_devinfo/ibv_devices missing (apt-get install ibverbs-utils)"
[ -e "$libdir/libibverbs.so.1" ] && [ -x "$S" ] || skip "no softverbs build in $top"
[ -e /sys/class/net/lo ] || skip "no lo in this network namespace"

work=$(mktemp -d /tmp/test_uroce_link.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
pass=0 fail=0
result() { # NAME OK
    if [ "$2" = 1 ]; then echo "PASS: $1"; pass=$((pass + 1));
    else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
has() { grep -qF -- "$2" <<< "$1"; }

# The system's folder, for root's devices (never the host's /etc)
etc=$work/etc
mkdir "$etc"
lib=$libdir
cmd=$S
# a library built with ASan needs its runtime first in Debian's programs
san=()
asan=$(ldd "$libdir/libibverbs.so.1" | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && san=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0)
# run [ENV=VALUE...] PROGRAM [ARG...]: $out (stdout, blanks squeezed),
# $err (stderr), $rc; SOFTVERBS_UROCE unset unless given
run() {
    env -u SOFTVERBS_UROCE LD_LIBRARY_PATH="$lib" SOFTVERBS_SYSCONFDIR="$etc" \
        XDG_CONFIG_HOME="$cfg" "${san[@]}" "$@" > "$work/out" 2> "$work/err"
    rc=$?
    out=$(tr -s '\t ' '  ' < "$work/out")
    err=$(cat "$work/err")
}
show() { echo "rc $rc"; cat "$work/out" "$work/err"; }

suite() { # WHO ROOT(0|1)
    local who=$1 root=$2 ok file

    if [ "$root" = 1 ]; then file=$etc/uroce.conf; else file=$cfg/softverbs/uroce.conf; fi

    run "$cmd" link show
    ok=0; [ $rc = 0 ] && ! has "$out" uroce0 && ok=1
    result "$who: link show before: no uroce0" $ok

    run "$cmd" link add uroce0 type uroce netdev lo
    ok=0
    [ $rc = 0 ] && has "$out" "uroce0: uroce device on lo, kept in $file" &&
        grep -qx "uroce0 lo" "$file" && grep -q '^# ' "$file" && ok=1
    result "$who: link add uroce0 type uroce netdev lo: kept in $file (a comment header, then 'uroce0 lo')" $ok
    [ $ok = 1 ] || show

    run ibv_devices
    ok=0; [ $rc = 0 ] && has "$out" " uroce0 020000fffe000000" && [ -z "$err" ] && ok=1
    result "$who: ibv_devices lists uroce0 with no SOFTVERBS_UROCE, nothing on stderr" $ok
    [ $ok = 1 ] || show
    run ibv_devinfo -d uroce0
    ok=0
    [ $rc = 0 ] && has "$out" "hca_id: uroce0" && has "$out" "link_layer: Ethernet" &&
        has "$out" "transport: InfiniBand (0)" && ok=1
    result "$who: ibv_devinfo -d uroce0 shows it (InfiniBand, Ethernet)" $ok
    [ $ok = 1 ] || show

    run "$cmd" link show
    ok=0; [ $rc = 0 ] && has "$out" "uroce0 netdev lo state ACTIVE file $file" && ok=1
    result "$who: link show prints uroce0 netdev lo state ACTIVE file $file" $ok
    [ $ok = 1 ] || show
    run "$cmd" link show uroce0
    ok=0; [ $rc = 0 ] && [ "$(wc -l < "$work/out")" = 1 ] && has "$out" "uroce0 netdev lo" && ok=1
    result "$who: link show uroce0: that one line" $ok

    # errors a user can make
    run "$cmd" link add uroce0 type uroce netdev lo
    ok=0; [ $rc = 1 ] && has "$err" "a uroce device named uroce0 exists already ($file line 3)" && ok=1
    result "$who: adding uroce0 twice: exit 1, the file and line named" $ok
    [ $ok = 1 ] || show
    run "$cmd" link add uroce1 type uroce netdev lo
    ok=0; [ $rc = 1 ] && has "$err" "lo has a uroce device already: uroce0" && ok=1
    result "$who: a second device on lo: exit 1, uroce0 named" $ok
    for bad in rxe0 uroce uroce01 uroce1x 'uroce1/x' "uroce1$(printf '%060d' 0)"; do
        run "$cmd" link add "$bad" type uroce netdev lo
        ok=0; [ $rc = 1 ] && has "$err" "'$bad' is no uroce device name" && ok=1
        result "$who: bad name '${bad:0:20}': exit 1, said" $ok
    done
    for bad in nosuchif0 ../../etc 'a:b' ''; do
        run "$cmd" link add uroce1 type uroce netdev "$bad"
        ok=0; [ $rc = 1 ] && has "$err" "no network interface '$bad'" && ok=1
        result "$who: bad netdev '$bad': exit 1, said" $ok
    done
    run "$cmd" link add uroce1 type rxe netdev lo
    ok=0; [ $rc = 1 ] && has "$err" "softverbs rxe add lo" && ok=1
    result "$who: type rxe: exit 1, rxe add named" $ok
    for words in "" "uroce1" "uroce1 type uroce" "uroce1 type uroce netdev" "uroce1 typo uroce netdev lo" \
                 "uroce1 type uroce netdev lo extra"; do
        # shellcheck disable=SC2086
        run "$cmd" link add $words
        ok=0; [ $rc = 2 ] && has "$err" "usage: softverbs link add NAME type uroce netdev IFNAME" && ok=1
        result "$who: link add $words: usage, exit 2" $ok
    done
    run "$cmd" link show uroce9
    ok=0; [ $rc = 1 ] && has "$err" "no uroce device named uroce9" && ok=1
    result "$who: link show uroce9: exit 1, said" $ok
    run "$cmd" link delete
    ok=0; [ $rc = 2 ] && ok=1
    result "$who: link delete without NAME: exit 2" $ok
    ok=0; grep -qx "uroce0 lo" "$file" && [ "$(grep -vc '^#' "$file")" = 1 ] && ok=1
    result "$who: the failed adds left the file as it was" $ok

    # SOFTVERBS_UROCE, when set, alone names the process's devices
    sed -i 's/^uroce0 lo$/uroce5 lo/' "$file"
    run SOFTVERBS_UROCE=lo ibv_devices
    ok=0; has "$out" " uroce0 " && ! has "$out" uroce5 && ok=1
    result "$who: SOFTVERBS_UROCE=lo: its uroce0, not the configured uroce5" $ok
    run SOFTVERBS_UROCE= ibv_devices
    ok=0; ! has "$out" uroce && ok=1
    result "$who: SOFTVERBS_UROCE= (empty): no uroce device" $ok
    run "$cmd" link show
    ok=0; has "$out" "uroce5 netdev lo" && ! has "$err" SOFTVERBS_UROCE && ok=1
    run SOFTVERBS_UROCE=lo "$cmd" link show
    has "$err" "note: SOFTVERBS_UROCE is set here" || ok=0
    result "$who: link show notes SOFTVERBS_UROCE only when it is set" $ok
    sed -i 's/^uroce5 lo$/uroce0 lo/' "$file"

    # garbage, by hand: each line skipped with one escaped line
    cp "$file" "$work/kept"
    { printf 'uroce7\033[2J lo\n'; printf 'uroce3 lo extra\n'; printf '%0300d\n' 7
      printf 'junk\n'; printf 'uroce0 lo\n'; printf 'uroce4 lo\n'; } >> "$file"
    run ibv_devices
    ok=0
    has "$out" " uroce0 020000fffe000000" && ! has "$out" uroce4 && ! has "$out" uroce7 &&
        [ "$(grep -c '^softverbs\[' "$work/err")" = 6 ] &&
        has "$err" "\"uroce7\\x1b[2J\" is no uroce device name (uroce<N>); skipped" &&
        has "$err" "line 5 (\"uroce3 lo extra\"): not NAME IFNAME; skipped" &&
        has "$err" "line 6 (\"00000000000000000000000000000000...\"): longer than 256 bytes; skipped" &&
        has "$err" "line 7 (\"junk\"): not NAME IFNAME; skipped" &&
        has "$err" "line 8: uroce0 is configured already ($file line 3); skipped" &&
        has "$err" "line 9: lo has a device already, uroce0 ($file line 3); no uroce4" &&
        ! grep -q $'\033' "$work/err" && ok=1
    result "$who: garbage lines skipped, one escaped line each; uroce0 still listed" $ok
    [ $ok = 1 ] || show
    run "$cmd" link show
    ok=0
    has "$out" "uroce0 netdev lo" && ! has "$out" uroce3 && ! has "$out" uroce4 && ! has "$out" uroce7 && ok=1
    result "$who: link show leaves the garbage out as the library does" $ok
    cp "$work/kept" "$file"

    # a user beside root's system-wide device
    if [ "$root" = 0 ]; then
        run "$cmd" link delete uroce8
        ok=0; [ $rc = 1 ] && has "$err" "uroce8 is system-wide ($etc/uroce.conf): sudo softverbs link delete uroce8" && ok=1
        result "$who: cannot delete root's uroce8: exit 1, sudo named" $ok
        printf 'uroce8 veth9\n' >> "$file"
        run ibv_devices
        ok=0
        has "$err" "line 4: uroce8 is configured already ($etc/uroce.conf line 3); skipped" && ok=1
        result "$who: a user's line taking a system-wide name: skipped, said" $ok
        [ $ok = 1 ] || show
        cp "$work/kept" "$file"
    fi

    run "$cmd" link delete uroce0
    ok=0; [ $rc = 0 ] && has "$out" "uroce0 removed (from $file)" && ! grep -q uroce0 "$file" && ok=1
    result "$who: link delete uroce0" $ok
    [ $ok = 1 ] || show
    run ibv_devices
    ok=0; ! has "$out" uroce0 && ok=1
    result "$who: ibv_devices no longer lists uroce0" $ok
    run "$cmd" link delete uroce0
    ok=0; [ $rc = 1 ] && has "$err" "no uroce device named uroce0" && ok=1
    result "$who: deleting it again: exit 1, said" $ok
}

cfg=$work/$(id -un)-config
if [ "$(id -u)" = 0 ]; then
    suite "$(id -un)" 1
else
    suite "$(id -un)" 0
fi

if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    # nobody: the library and the command where it can read them (the
    # build may sit in root's home, mode 700), its own XDG_CONFIG_HOME,
    # and root's system-wide uroce8 on an interface it may not have
    mkdir "$work/nobody-lib" && cp -a "$libdir"/libibverbs.so* "$work/nobody-lib"/
    cp "$S" "$work/softverbs"
    chmod -R a+rX "$work"
    printf '# root'"'"'s\n\nuroce8 veth9\n' > "$etc/uroce.conf"
    lib=$work/nobody-lib
    cmd=$work/softverbs
    cfg=$work/nobody-config
    run() {
        (cd / && env -u SOFTVERBS_UROCE LD_LIBRARY_PATH="$lib" SOFTVERBS_SYSCONFDIR="$etc" \
             XDG_CONFIG_HOME="$cfg" setpriv --reuid=nobody --regid=nogroup \
             --clear-groups -- env "${san[@]}" "$@") > "$work/out" 2> "$work/err"
        rc=$?
        out=$(tr -s '\t ' '  ' < "$work/out")
        err=$(cat "$work/err")
    }
    mkdir "$cfg" && chown nobody "$cfg"
    suite nobody 0
else
    echo "note: not root or no setpriv: the runs as nobody are left out"
fi

echo "test_uroce_link: $pass passed, $fail failed"
[ $fail = 0 ]
