#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/unit/test_docs.sh -- the documentation does not go stale: every
# command README.md and doc/*.md show is one the test suite runs, every
# relative link points at a file, and every doc/*.md is in the tarball.
#
# The rule for commands:
#   - Only code blocks count: fenced (``` or ~~~) and indented ones (four
#     spaces or a tab, after a blank line). Inline `code` in prose does not.
#   - A line is split at |, &&, || and ;. In each part, a leading sudo and
#     VAR=value words are dropped; the next word is the program. Comment
#     lines and trailing " # ..." comments are ignored, and so is a line
#     that continues the one before it (a trailing backslash).
#   - The part is checked when the program is one of: a file under
#     scripts/ or tests/ (which must exist), ./configure, make, softverbs,
#     apt-get, dpkg, dpkg-*, ibv_*, ib_*, rping, rdma, modprobe, bpftrace,
#     fi_*, qperf, ucx_*. Anything else (output shown in a block, cp, tar,
#     cc, grep, tables in a block) is not.
#   - Its argument is the first later word of plain lower-case letters,
#     digits, _ and - (a subcommand, a make target, a device name: "doctor"
#     in softverbs doctor, "bench-forkmap" in make -C _build bench-forkmap);
#     options, paths, quoted and $-words are skipped, and the search stops
#     at a bare --.
#   - The command is run by the tests when one line, not a comment, of a
#     file under tests/, scripts/, .ci/ or debian/, or of Makefile.am or a
#     Makefile.inc (what make check runs), holds the program as a word (a
#     file under scripts/ or tests/: its name after a '/', as in
#     "$here/roots"; make: make or $(MAKE)) and, after it, the argument as a
#     word not followed by ':' (a make rule's definition runs nothing).
#     This test itself does not count.
#   - A code block that is shown but genuinely cannot be run by the tests
#     carries the marker
#         <!-- docs-test: not run: WHY -->
#     on its own line right before it (blank lines between are fine). WHY
#     is required, and a marked block must hold at least one command the
#     tests do not run (a marker that is no longer needed fails).
#
# Links: every [text](target) and ![alt](target) outside code whose target
# is not a URL (scheme:) or an anchor (#...) must name an existing file or
# folder, relative to the page (the #anchor part is not checked).
#
# Tarball: every doc/*.md is listed in doc/Makefile.inc (EXTRA_DIST).
#
# Environment: top_srcdir (make check; default: this file's ../..).
# Exit 0 pass, 1 a stale command, a broken link or a missing file.
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
US=$'\x1f'     # the field separator of the lists below (fields may be empty)
fail=0
exec 3>&1       # FAIL lines reach the log from loops whose output is a file
bad() { echo "FAIL: $*" >&3; fail=1; }

pages=(README.md doc/*.md)
for p in "${pages[@]}"; do [ -f "$p" ] || bad "$p missing"; done

# ---- what the tests run: non-comment lines of the test tree, one file,
# each line followed by US and the file it is in ----
corpus=$tmp/corpus
# Of Makefile.am and the Makefile.inc files only what make runs counts: the
# recipes and the lists of tests (a file in EXTRA_DIST is not run).
make_runs() {
    awk '
        cont { if (keep) print; cont = /\\$/; next }
        /^[A-Za-z_][A-Za-z0-9_]*[ \t]*[+:?]?=/ {
            keep = /^(TESTS|host_tests|unit_programs|integration_programs|quick_names)[ \t]*[+:]?=/
            if (keep) print; cont = /\\$/; next
        }
        /^\t/ { print; keep = 1; cont = /\\$/; next }
    ' "$1"
}
{
    find tests scripts .ci debian -type f ! -path tests/unit/test_docs.sh \
        ! -path 'tests/fuzz/corpus/*' ! -name '*.md' ! -name Makefile.inc 2> /dev/null
    ls Makefile.am ./*/Makefile.inc ./*/*/Makefile.inc 2> /dev/null
} | sed 's|^\./||' | sort -u | while read -r f; do
    case $f in
        Makefile.am|*/Makefile.inc) make_runs "$f" ;;
        *) grep -Ih '' "$f" 2> /dev/null ;;
    esac | grep -v '^[[:space:]]*#' | sed "s|\$|$US$f|"
done > "$corpus"
[ -s "$corpus" ] || { bad "no test sources under $top"; exit 1; }

# ---- the code-block lines: FILE:LINE, BLOCK, EXEMPT, TEXT ----
# A block is FILE:first-line; EXEMPT is 1 for a block after a marker.
awk -v OFS="$US" '
FNR == 1 { fence = 0; inblock = 0; pending = 0; prevblank = 1; cont = 0 }
function emit(text) {
    if (cont) { cont = (text ~ /\\[ \t]*$/); return }
    cont = (text ~ /\\[ \t]*$/)
    print FILENAME ":" FNR, block, exempt, text
}
function startblock() { block = FILENAME ":" FNR; exempt = pending; pending = 0; cont = 0 }
{
    line = $0
    if (fence) {
        if (line ~ /^[ \t]*(```|~~~)/) { fence = 0; prevblank = 0; next }
        emit(line); next
    }
    if (line ~ /^[ ]{0,3}(```|~~~)/) { fence = 1; inblock = 0; startblock(); next }
    if (line ~ /^[ \t]*$/) { prevblank = 1; next }
    if (line ~ /^(    |\t)/ && (inblock || prevblank)) {
        if (!inblock) { inblock = 1; startblock() }
        prevblank = 0; emit(line); next
    }
    inblock = 0; prevblank = 0
    if (line ~ /<!-- *docs-test: *not run:/) {
        if (line !~ /<!-- *docs-test: *not run: *[^ -][^>]*-->/) {
            print FILENAME ":" FNR, "-", "marker", "(no reason)"; next
        }
        if (pending) print pending_at, "-", "marker", "(no code block follows)"
        pending = 1; pending_at = FILENAME ":" FNR; next
    }
    if (pending) { print pending_at, "-", "marker", "(no code block follows)"; pending = 0 }
}
' "${pages[@]}" > "$tmp/lines"
# a marker at the very end of a page (awk above reports it at the next
# page's first prose line, or not at all for the last page)
for p in "${pages[@]}"; do
    last=$(grep -v '^[[:space:]]*$' "$p" | tail -n 1)
    case $last in *'docs-test: not run:'*) bad "$p: a docs-test marker with no code block after it" ;; esac
done

# ---- each line: the checked parts, their program and argument ----
# out: FILE:LINE, BLOCK, EXEMPT, PROGRAM, KEY-REGEX, ARG, TEXT
words_re='^[a-z][a-z0-9_-]*$'
while IFS=$US read -r at blk exempt text; do
    if [ "$exempt" = marker ]; then bad "$at: docs-test marker $text"; continue; fi
    line=${text#"${text%%[![:space:]]*}"}
    case $line in '#'*|'') continue ;; esac
    # quoted strings are one word, Q (their | and ; split nothing)
    line=$(printf '%s\n' "$line" |
           sed -E -e 's/\\"//g; s/"[^"]*"/Q/g' -e "s/'[^']*'/Q/g" -e 's/[[:space:]]+#.*$//; s/(\|\||&&|;)/|/g')
    IFS='|' read -r -a parts <<< "$line"
    for part in "${parts[@]}"; do
        read -r -a w <<< "$part" || true
        i=0
        while [ $i -lt ${#w[@]} ] && { [ "${w[$i]}" = sudo ] ||
              [[ ${w[$i]} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; }; do i=$((i + 1)); done
        [ $i -lt ${#w[@]} ] || continue
        prog=${w[$i]}
        case $prog in
            scripts/*|tests/*|./configure)
                [[ $prog == */ ]] && continue     # a folder (a layout table)
                if [ "$prog" != ./configure ] && [ ! -f "$prog" ]; then
                    bad "$at: $prog: no such file (from: $text)"; continue
                fi
                name=${prog##*/}
                key="/${name//./\\.}" ;;
            make) key='(make|\$\(MAKE\))' ;;
            softverbs|apt-get|dpkg|rping|rdma|modprobe|bpftrace|qperf|dpkg-*|ibv_*|ib_*|fi_*|ucx_*)
                [[ $prog =~ ^[A-Za-z0-9_.-]+$ ]] || continue
                key="${prog//./\\.}" ;;
            *) continue ;;
        esac
        arg=
        j=$((i + 1))
        while [ $j -lt ${#w[@]} ]; do
            [ "${w[$j]}" = -- ] && break
            if [[ ${w[$j]} =~ $words_re ]]; then arg=${w[$j]}; break; fi
            j=$((j + 1))
        done
        printf "%s$US%s$US%s$US%s$US%s$US%s$US%s\n" "$at" "$blk" "$exempt" "$prog" "$key" "$arg" "$text"
    done
done < "$tmp/lines" > "$tmp/cmds"

# ---- is each one run? ----
b='(^|[^A-Za-z0-9_.-])'         # before a word
e='([^A-Za-z0-9_.-]|$)'         # after a word
n=0 run=0 exempted=0
while IFS=$US read -r at blk exempt prog key arg text; do
    n=$((n + 1))
    case $prog in
        scripts/*|tests/*|./configure) re="$key$e" ;;
        *) re="$b$key$e" ;;
    esac
    [ -n "$arg" ] && re="$re.*$b$arg([^A-Za-z0-9_.:-]|$)"
    # (a script does not run itself)
    if grep -E -- "^[^$US]*$re" "$corpus" | grep -qvF -- "$US$prog"; then
        run=$((run + 1))
        echo "$blk" >> "$tmp/blocks-run"
    elif [ "$exempt" = 1 ]; then
        exempted=$((exempted + 1))
        echo "$blk" >> "$tmp/blocks-exempt-used"
        echo "not run (marked): $at: $prog${arg:+ $arg}"
    else
        bad "$at: no test runs \`$prog${arg:+ $arg}\` (from: ${text#"${text%%[![:space:]]*}"})"
    fi
done < "$tmp/cmds"
# a marked block must still need its marker
cut -d"$US" -f2,3 "$tmp/cmds" | awk -F"$US" '$2 == 1 { print $1 }' | sort -u > "$tmp/blocks-marked"
touch "$tmp/blocks-exempt-used"
while read -r blk; do
    grep -qxF "$blk" "$tmp/blocks-exempt-used" ||
        bad "$blk: the block after a docs-test marker holds no command the tests skip: drop the marker"
done < "$tmp/blocks-marked"
# a marker before a block with no checked command at all is stale too
cut -d"$US" -f1,2,3 "$tmp/lines" | awk -F"$US" '$3 == 1 { print $2 }' | sort -u |
while read -r blk; do
    grep -qxF "$blk" "$tmp/blocks-marked" ||
        echo "FAIL: $blk: the block after a docs-test marker holds no command this test checks: drop the marker"
done > "$tmp/stale"
[ -s "$tmp/stale" ] && { cat "$tmp/stale"; fail=1; }
echo "commands: $n checked, $run run by the tests, $exempted marked not run"
[ $n -ge 20 ] || bad "only $n commands found: is the code-block parser broken?"

# ---- relative links ----
for p in "${pages[@]}"; do
    dir=$(dirname "$p")
    # outside fenced blocks, indented blocks and inline code
    awk '
        /^[ ]{0,3}(```|~~~)/ { fence = !fence; next }
        fence { next }
        /^(    |\t)/ && prevblank { next }
        { prevblank = ($0 ~ /^[ \t]*$/); gsub(/`[^`]*`/, ""); print FNR "\t" $0 }
    ' "$p" |
    while IFS=$'\t' read -r ln text; do
        printf '%s\n' "$text" | grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\(//; s/\)$//' |
        while read -r target; do
            printf '%s\t%s\n' "$ln" "$target"
        done
    done > "$tmp/links"
    while IFS=$'\t' read -r ln target; do
        case $target in '#'*|[a-zA-Z]*:*) continue ;; esac
        file=${target%%#*}
        [ -e "$dir/$file" ] || bad "$p:$ln: link to $target: no such file"
    done < "$tmp/links"
    echo "links in $p: $(wc -l < "$tmp/links") (relative ones checked)"
done

# ---- the tarball carries every page ----
for p in doc/*.md; do
    grep -Eq "(^|[[:space:]])$p([[:space:]]|\\\\|$)" doc/Makefile.inc ||
        bad "$p is not in doc/Makefile.inc's EXTRA_DIST (make dist would leave it out)"
done

exit $fail
