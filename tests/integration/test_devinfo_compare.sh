#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck disable=SC2317,SC2015,SC2012
# Debian's ibv_devices and ibv_devinfo print byte-for-byte the same on
# softverbs as on rdma-core: each runs once on the system library and once
# with softverbs first on LD_LIBRARY_PATH (every softverbs run checked to
# have mapped softverbs' libibverbs, and under SOFTVERBS_PROVIDERS=rdma-core
# rdma-core's provider of each device). Runs inside the test VM (needs an
# rxe device); unless given --one (or DEVINFO_ONE=1) it then adds rxe1 on a dummy netdev,
# compares again, and removes it.
set -u
. "$(dirname "$0")/lib.sh"
sv_init test_devinfo_compare
: "${RXE_DEV:=rxe0}"
SOFTVERBS_LIBDIR=$libdir
sv_need_dev RXE_DEV
for p in ibv_devices ibv_devinfo; do
	sv_need_cmd "$p" ibverbs-utils
done

tmp=$work
added=
cleanup() {
	if [ -n "$added" ]; then
		rdma link delete rxe1 2>/dev/null
		ip link delete d9 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT

fail=0
check() {
	name=$1; shift
	"$@" >"$tmp/ref" 2>&1; echo "exit $?" >>"$tmp/ref"
	sv_env sv
	env "${SV_ENV[@]}" "$@" >"$tmp/sv" 2>&1
	echo "exit $?" >>"$tmp/sv"
	# (compared and counted with bash's builtins: a process costs
	# 50-200 ms under TCG)
	local ref sv devs=(/sys/class/infiniband/*) lines=()
	sv_slurp ref "$tmp/ref"
	sv_slurp sv "$tmp/sv"
	mapfile -t lines <"$tmp/ref"
	if [ "$ref" = "$sv" ] && sv_maps_check "${devs[@]##*/}"; then
		echo "PASS: $name (${#lines[@]} lines)"
	elif [ "$ref" = "$sv" ]; then
		echo "FAIL: $name: same output, but not served by the libraries it should"
		fail=1
	else
		echo "FAIL: $name differs (- rdma-core, + softverbs):"
		diff -u "$tmp/ref" "$tmp/sv" | head -40
		fail=1
	fi
}

# softverbs must really be the library these programs load
for p in ibv_devices ibv_devinfo; do
	lib=$(LD_LIBRARY_PATH="$SOFTVERBS_LIBDIR" ldd "$(command -v $p)" |
	      awk '/libibverbs.so.1/ { print $3 }')
	case "$lib" in
	"$SOFTVERBS_LIBDIR"/*) echo "PASS: $p loads $lib" ;;
	*) echo "FAIL: $p loads '$lib', not softverbs"; fail=1 ;;
	esac
done
# shellcheck disable=SC2086 # SOFTVERBS_PRELOAD / _EXEC_ENV: passes/san
inits=$(env LD_LIBRARY_PATH="$SOFTVERBS_LIBDIR" ${SOFTVERBS_PRELOAD:+LD_PRELOAD=$SOFTVERBS_PRELOAD} \
	${SOFTVERBS_EXEC_ENV:-} LD_DEBUG=libs ibv_devices 2>&1 >/dev/null |
	grep -c "calling init: $SOFTVERBS_LIBDIR/libibverbs.so.1")
if [ "$inits" -ge 1 ]; then
	echo "PASS: ibv_devices initialised softverbs (LD_DEBUG)"
else
	echo "FAIL: LD_DEBUG shows no softverbs initialisation"; fail=1
fi

all_checks() {
	check "ibv_devices" ibv_devices
	check "ibv_devinfo" ibv_devinfo
	check "ibv_devinfo -v" ibv_devinfo -v
	check "ibv_devinfo -l" ibv_devinfo -l
	check "ibv_devinfo -d $RXE_DEV -i 1" ibv_devinfo -d "$RXE_DEV" -i 1
	check "ibv_devinfo -d nosuchdev" ibv_devinfo -d nosuchdev
	check "ibv_devinfo -i 9" ibv_devinfo -i 9
	# SYSFS_PATH moves the sysfs root both libraries read from
	check "SYSFS_PATH=/sys ibv_devinfo -v" env SYSFS_PATH=/sys ibv_devinfo -v
}

add_second_device() {
	ip link add d9 type dummy && ip addr add 198.18.9.1/24 dev d9 &&
		ip link set d9 up && rdma link add rxe1 type rxe netdev d9 ||
		{ echo "FAIL: could not add rxe1 on a dummy netdev"; return 1; }
	added=1
	# GIDs of the new netdev appear asynchronously; wait until the
	# device shows its IPv4 GID so both runs see the same table
	i=0
	while ! grep -qs "ffff:c612:0901" /sys/class/infiniband/rxe1/ports/1/gids/* && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
}

echo "== $(ls /sys/class/infiniband | tr '\n' ' ')"
all_checks
if [ "${1:-}" != --one ] && [ "${DEVINFO_ONE:-0}" != 1 ] && [ "$(id -u)" = 0 ] && [ ! -e /sys/class/infiniband/rxe1 ]; then
	if add_second_device; then
		echo "== $(ls /sys/class/infiniband | tr '\n' ' ')"
		all_checks
	else
		fail=1
	fi
fi
exit $fail
