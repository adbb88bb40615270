#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck disable=SC2317,SC2016,SC1003  # plot_* are called by name; gnuplot text is literal
# bench/plots.sh -- the benchmarks' tables as SVG charts (gnuplot):
#
#   fork-latency.txt -> fork-latency.svg  fork() time against registered
#                       memory, fork safety off and on, both libraries; and
#                       against the number of pages registered in part
#   forkmap.txt      -> forkmap.svg       register/deregister pair cost
#                       against live ranges, both libraries, log-log
#   verbs-instr.txt  -> verbs-instr.svg   userspace instructions per verb,
#                       both libraries (bench/verbs-instr's table)
#
#   bench/plots.sh [--run] DIR
#
# DIR holds the benchmarks' outputs as they printed them (make bench-plots
# uses bench/results/). --run first runs each benchmark whose output is
# missing (all of them with BENCH_RERUN=1) through $BENCH_MAKE (the build
# folder's make): bench-forkmap, bench-fork-latency (one VM boot) and,
# where that target exists, bench-verbs-instr. A table that is missing is
# skipped with a note; a table that is there but unreadable fails.
set -uo pipefail
run=0
[ "${1:-}" = --run ] && { run=1; shift; }
dir=${1:?usage: bench/plots.sh [--run] DIR}
mkdir -p "$dir" || exit 1
command -v gnuplot > /dev/null || { echo "bench/plots: gnuplot missing (apt-get install gnuplot-nox)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0

# ---- running the benchmarks ------------------------------------------------
bench_run() { # bench_run NAME: make bench-NAME > DIR/NAME.txt
    local name=$1
    if [ -s "$dir/$name.txt" ] && [ "${BENCH_RERUN:-0}" != 1 ]; then return 0; fi
    if ! $BENCH_MAKE -n "bench-$name" > /dev/null 2>&1; then
        echo "bench/plots: no make target bench-$name here: $name.svg not made"
        return 0
    fi
    echo "bench/plots: running make bench-$name (output: $dir/$name.txt)"
    if $BENCH_MAKE -s "bench-$name" > "$tmp/$name.txt" 2>&1; then
        mv "$tmp/$name.txt" "$dir/$name.txt"
    else
        # all of it: a long benchmark that failed late has printed most rows
        cat "$tmp/$name.txt"; echo "bench/plots: make bench-$name failed"; rc=1
    fi
}
if [ $run = 1 ]; then
    : "${BENCH_MAKE:?--run needs BENCH_MAKE, the make of a build folder}"
    for b in forkmap fork-latency verbs-instr; do bench_run $b; done
fi

# Common look: white background, one font, grid.
svg_head() { # svg_head WIDTH HEIGHT
    cat << EOF
set terminal svg size $1,$2 dynamic noenhanced background rgb "white" font "DejaVu Sans,12"
set grid lc rgb "#dddddd"
set border lc rgb "#444444"
set key outside right top vertical Left reverse noenhanced
set encoding utf8
EOF
}

# ---- fork() latency ----------------------------------------------------------
# rows: "64 MiB  rdma-core  off  197.63  226.60  64.3"
plot_fork_latency() {
    local in=$dir/fork-latency.txt out=$dir/fork-latency.svg
    awk '$2 == "MiB" && ($3 == "rdma-core" || $3 == "softverbs") && ($4 == "off" || $4 == "on") &&
         $1 ~ /^[0-9]+$/ && $5 ~ /^[0-9.]+$/ { print $3 "-" $4, $1, $5, $7 }' "$in" > "$tmp/fl"
    if [ "$(wc -l < "$tmp/fl")" -lt 4 ]; then echo "bench/plots: $in: no fork-latency rows"; return 1; fi
    # rows: "1000   pages rdma-core  whole    SIGSEGV  12.34  20.00"
    awk '$2 == "pages" && $1 ~ /^[0-9]+$/ && ($3 == "rdma-core" || $3 == "softverbs") &&
         ($4 == "whole" || $4 == "partial") && $6 ~ /^[0-9.]+$/ { print $3 "-" $4, $1, $6 }' "$in" > "$tmp/fp"
    {
        if [ -s "$tmp/fp" ]; then
            svg_head 1400 480
            echo 'set multiplot layout 1,2'
            echo 'set key right center inside box opaque'
        else
            svg_head 820 480
        fi
        echo 'set title "fork() in a process with one registered MR (median; test VM, QEMU/TCG)"'
        echo 'set xlabel "registered memory (MiB)"; set ylabel "fork() time (ms)"'
        echo 'set logscale xy 2; set logscale y 10; set format y "%g"'
        echo "set xtics ($(cut -d' ' -f2 "$tmp/fl" | sort -n -u | awk '{ printf "%s\"%s\" %s", (NR > 1 ? ", " : ""), $1, $1 }'))"
        for s in rdma-core-off rdma-core-on softverbs-off softverbs-on; do
            echo "\$${s//-/_} << EOD"; awk -v s="$s" '$1 == s { print $2, $3 }' "$tmp/fl"; echo "EOD"
        done
        echo 'plot $rdma_core_off w lp lw 2 pt 7 dt 2 lc rgb "#c0392b" t "rdma-core, fork safety off", \'
        echo '     $softverbs_off w lp lw 2 pt 5 dt 2 lc rgb "#2471a3" t "softverbs, fork safety off", \'
        echo '     $rdma_core_on  w lp lw 2 pt 7 lc rgb "#c0392b" t "rdma-core, fork safety on", \'
        echo '     $softverbs_on  w lp lw 2 pt 5 lc rgb "#2471a3" t "softverbs, fork safety on"'
        if [ -s "$tmp/fp" ]; then
            echo 'set title "fork() with N pages each registered in part (1 KiB MR each; fork safety on)"'
            echo 'set key right bottom inside box opaque'
            echo 'set xlabel "pages registered in part (N)"'
            echo "set xtics ($(cut -d' ' -f2 "$tmp/fp" | sort -n -u | awk '{ printf "%s\"%s\" %s", (NR > 1 ? ", " : ""), $1, $1 }'))"
            for s in rdma-core-whole softverbs-partial softverbs-whole; do
                echo "\$${s//-/_} << EOD"; awk -v s="$s" '$1 == s { print $2, $3 }' "$tmp/fp"; echo "EOD"
            done
            echo 'plot $rdma_core_whole w lp lw 2 pt 7 lc rgb "#c0392b" t "rdma-core (whole pages DONTFORK: the child loses them)", \'
            echo '     $softverbs_whole w lp lw 2 pt 5 dt 2 lc rgb "#2471a3" t "softverbs, SOFTVERBS_FORK_WHOLE_PAGES=1 (the same)", \'
            echo '     $softverbs_partial w lp lw 2 pt 5 lc rgb "#2471a3" t "softverbs (the kernel copies them: the child keeps them)"'
            echo 'unset multiplot'
        fi
    } > "$tmp/fl.gp"
    gnuplot "$tmp/fl.gp" > "$out" && echo "bench/plots: $out"
}

# ---- range-map pair cost -----------------------------------------------------
# rows: "madvise stubbed   1000   1   1234   567   0.4595" (mode may have spaces)
plot_forkmap() {
    local in=$dir/forkmap.txt out=$dir/forkmap.svg threads t n=0 cmd
    awk 'NF >= 6 && $(NF-4) ~ /^[0-9]+$/ && $(NF-3) ~ /^[0-9]+$/ && $(NF-2) ~ /^[0-9]+$/ &&
         $(NF-1) ~ /^[0-9]+$/ && $NF ~ /^[0-9.]+$/ {
             m = $1; for (i = 2; i <= NF - 5; i++) m = m " " $i
             gsub(/ /, "~", m); print m, $(NF-4), $(NF-3), $(NF-2), $(NF-1) }' "$in" > "$tmp/fm"
    if [ "$(wc -l < "$tmp/fm")" -lt 2 ]; then echo "bench/plots: $in: no forkmap rows"; return 1; fi
    threads=$(awk '{ print $3 }' "$tmp/fm" | sort -n -u)
    {
        svg_head 1100 480
        echo "set multiplot layout 1,$(echo "$threads" | wc -w) title \"ibv_dontfork_range + ibv_dofork_range of one page among N live one-page ranges (best of the runs)\""
        echo 'set logscale xy 10; set format x "%g"; set format y "%g"'
        echo 'set xlabel "live ranges"; set ylabel "ns per pair"'
        echo 'set key inside left top'
        for t in $threads; do
            n=$((n + 1))
            [ "$n" -gt 1 ] && echo 'unset key'
            echo "set title \"$t thread(s)\""
            cmd=''
            # shellcheck disable=SC2013  # modes have no spaces here (~)
            for m in $(awk '{ print $1 }' "$tmp/fm" | awk '!seen[$0]++'); do
                echo "\$d_${t}_${m//[^A-Za-z0-9]/_} << EOD"
                awk -v m="$m" -v t="$t" '$1 == m && $3 == t { print $2, $4, $5 }' "$tmp/fm"; echo "EOD"
                case $m in madvise) dt=1 ;; RDMAV_HUGEPAGES_SAFE) dt=2 ;; *) dt=3 ;; esac
                cmd="$cmd${cmd:+, }\$d_${t}_${m//[^A-Za-z0-9]/_} u 1:2 w lp lw 2 pt 7 dt $dt lc rgb \"#c0392b\" t \"rdma-core, ${m//\~/ }\""
                cmd="$cmd, \$d_${t}_${m//[^A-Za-z0-9]/_} u 1:3 w lp lw 2 pt 5 dt $dt lc rgb \"#2471a3\" t \"softverbs, ${m//\~/ }\""
            done
            echo "plot $cmd"
        done
        echo 'unset multiplot'
    } > "$tmp/fm.gp"
    gnuplot "$tmp/fm.gp" > "$out" && echo "bench/plots: $out"
}

# ---- instructions per verb -------------------------------------------------------
# The table after the header "verb  rdma-core  softverbs  sv/rc ...": the
# label, then rdma-core, softverbs, ratio, target, two syscall counts, and
# '*' when over target. Read from the right, so labels may hold spaces.
plot_verbs_instr() {
    local in=$dir/verbs-instr.txt out=$dir/verbs-instr.svg rows
    awk 'BEGIN { t = 0 }
         /^verb +rdma-core +softverbs/ { t = 1; next }
         t && NF == 0 { t = 0 }
         t {
             if ($NF == "*") NF--
             if (NF < 7) next
             rc = $(NF-5); sv = $(NF-4)
             # rows without an rdma-core value (siw0) keep softverbs bar
             if (sv !~ /^[0-9]+$/ || (rc !~ /^[0-9]+$/ && rc != "-")) next
             l = $1; for (i = 2; i <= NF - 6; i++) l = l " " $i
             gsub(/"/, "", l)
             if (rc == "-") printf "%s\t0\t%s\t-1\n", l, sv
             else printf "%s\t%s\t%s\t%.2f\n", l, rc, sv, sv / rc
         }' "$in" > "$tmp/vi"
    rows=$(wc -l < "$tmp/vi")
    if [ "$rows" -lt 1 ]; then echo "bench/plots: $in: no rows under a 'verb rdma-core softverbs' header"; return 1; fi
    # the table's first row at the top: row i at y = rows - i
    awk -F '\t' -v n="$rows" '{ print n - NR, $2, $3, $4 }' "$tmp/vi" > "$tmp/vi2"
    {
        svg_head 1100 $((120 + 34 * rows))
        echo 'set title "userspace instructions per call (callgrind; test VM, one boot, both libraries)"'
        echo 'set xlabel "instructions"; unset ylabel'
        echo "set yrange [-0.7:$rows - 0.3]; set xrange [0:*]; set offsets 0, graph 0.12, 0, 0"
        echo 'set grid noytics'
        echo 'set key outside right top vertical'
        echo "set ytics ($(awk -F '\t' -v n="$rows" '{ printf "%s\"%s\" %d", (NR > 1 ? ", " : ""), $1, n - NR }' "$tmp/vi"))"
        echo 'set ytics nomirror font ",10"'
        echo 'set style fill solid 0.85 noborder'
        echo '$d << EOD'; cat "$tmp/vi2"; echo 'EOD'
        echo 'plot $d u (0):($1+0.2):(0):(column(2)):($1+0.02):($1+0.38) w boxxy lc rgb "#c0392b" t "rdma-core 44", \'
        echo '     $d u (0):($1-0.2):(0):(column(3)):($1-0.38):($1-0.02) w boxxy lc rgb "#2471a3" t "softverbs", \'
        echo '     $d u (column(3) > column(2) ? column(3) : column(2)):($1):(column(4) < 0 ? "" : sprintf(" %.2f×", column(4))) w labels left font ",10" notitle'
    } > "$tmp/vi.gp"
    gnuplot "$tmp/vi.gp" > "$out" && echo "bench/plots: $out"
}

for b in fork-latency forkmap verbs-instr; do
    if [ ! -s "$dir/$b.txt" ]; then
        echo "bench/plots: no $dir/$b.txt: $b.svg not made"
        continue
    fi
    "plot_${b//-/_}" || { echo "bench/plots: FAILED: $b.svg"; rc=1; }
done
exit $rc
