#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Fork-map benchmark: rdma-core's libibverbs vs softverbs', each library
# dlopened in its own process (bench/forkmap), same workloads.
# usage: forkmap.sh FORKMAP_BIN SOFTVERBS_SO RDMA_CORE_SO STUB_SO
# FORKMAP_SIZES / FORKMAP_THREADS override the matrix; FORKMAP_SECONDS
# the time per run; FORKMAP_REPEAT how many alternating runs per cell
# (the fastest counts: on a shared machine, noise only ever adds).
set -e
bin=$1 sv=$2 rc=$3 stub=$4
sizes=${FORKMAP_SIZES:-100 1000 10000 30000}
threads=${FORKMAP_THREADS:-1 4}
repeat=${FORKMAP_REPEAT:-3}

cell() { # lib mode n t
	case $2 in
	stub) LD_PRELOAD=$stub "$bin" "$1" "$3" "$4" ;;
	huge) "$bin" "$1" "$3" "$4" huge ;;
	*) "$bin" "$1" "$3" "$4" ;;
	esac
}

echo "ns per register/deregister pair (ibv_dontfork_range + ibv_dofork_range"
echo "of one page among N live one-page ranges; per thread, averaged;"
echo "best of $repeat alternating runs per cell)"
printf '%-22s %7s %3s %12s %12s %9s\n' mode ranges thr rdma-core softverbs sv/rc
for mode in madvise huge stub; do
	case $mode in
	madvise) label="madvise" ;;
	huge) label="RDMAV_HUGEPAGES_SAFE" ;;
	stub) label="madvise stubbed" ;;
	esac
	for n in $sizes; do
		for t in $threads; do
			r= s=
			i=0
			while [ $i -lt $repeat ]; do
				x=$(cell "$rc" $mode $n $t)
				if [ -z "$r" ] || [ "$x" -lt "$r" ]; then r=$x; fi
				x=$(cell "$sv" $mode $n $t)
				if [ -z "$s" ] || [ "$x" -lt "$s" ]; then s=$x; fi
				i=$((i + 1))
			done
			ratio=$(awk -v a="$s" -v b="$r" 'BEGIN { printf "%.4f", a / b }')
			printf '%-22s %7s %3s %12s %12s %9s\n' "$label" $n $t $r $s $ratio
		done
	done
done
