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
# (one grep and one awk for the whole tree: a process or a pipeline per
# file or per command made this test take most of a minute)
corpus=$tmp/corpus
{
    find tests scripts .ci debian -type f ! -path tests/unit/test_docs.sh \
        ! -path 'tests/fuzz/corpus/*' ! -name '*.md' ! -name Makefile.inc 2> /dev/null
    ls Makefile.am ./*/Makefile.inc ./*/*/Makefile.inc 2> /dev/null
} | sed 's|^\./||' | sort -u > "$tmp/files"
# grep -I: a binary file holds no lines
mapfile -t files < "$tmp/files"
declare -A text=()
if [ ${#files[@]} -gt 0 ]; then
    while IFS= read -r f; do text[$f]=1; done < <(grep -Il '' -- "${files[@]}" 2> /dev/null)
fi
read_files=()
for f in "${files[@]}"; do
    case $f in
        Makefile.am|*/Makefile.inc) read_files+=("$f") ;;
        *) [ -n "${text[$f]:-}" ] && read_files+=("$f") ;;
    esac
done
# Of Makefile.am and the Makefile.inc files only what make runs counts: the
# recipes and the lists of tests (a file in EXTRA_DIST is not run).
[ ${#read_files[@]} -eq 0 ] || awk -v US="$US" '
    function out() { if ($0 !~ /^[[:space:]]*#/) print $0 US FILENAME }
    FNR == 1 { cont = 0; keep = 0; mk = FILENAME == "Makefile.am" || FILENAME ~ /\/Makefile\.inc$/ }
    !mk { out(); next }
    cont { if (keep) out(); cont = /\\$/; next }
    /^[A-Za-z_][A-Za-z0-9_]*[ \t]*[+:?]?=/ {
        keep = /^(TESTS|host_tests|unit_programs|integration_programs|quick_names)[ \t]*[+:]?=/
        if (keep) out(); cont = /\\$/; next
    }
    /^\t/ { out(); keep = 1; cont = /\\$/; next }
' "${read_files[@]}" > "$corpus"
[ -s "$corpus" ] || { bad "no test sources under $top"; exit 1; }

# ---- the code-block lines: FILE:LINE, BLOCK, EXEMPT, TEXT ----
# A block is FILE:first-line; EXEMPT is 1 for a block after a marker.
# (A fence opens after up to three spaces, " ? ? ?": Debian's mawk, 1.3.4
# 20200120, has no {m,n} and read "[ ]{0,3}" as text, so no fence was seen.)
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
    if (line ~ /^ ? ? ?(```|~~~)/) { fence = 1; inblock = 0; startblock(); next }
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
while IFS= read -r p; do
    bad "$p: a docs-test marker with no code block after it"
done < <(awk 'BEGIN {
    for (i = 1; i < ARGC; i++) {
        last = ""
        while ((getline l < ARGV[i]) > 0) if (l !~ /^[[:space:]]*$/) last = l
        close(ARGV[i])
        if (index(last, "docs-test: not run:")) print ARGV[i]
    }
}' "${pages[@]}")

# ---- each line: the checked parts, their program and argument ----
# out: FILE:LINE, BLOCK, EXEMPT, PROGRAM, KEY-REGEX, ARG, TEXT
# awk splits the lines into parts and words (bash and sed did, a process a
# line); the loop below checks the files and builds the keys.
awk -v OFS="$US" -v US="$US" -v q="'" '
{
    i = index($0, US); at = substr($0, 1, i - 1); rest = substr($0, i + 1)
    i = index(rest, US); blk = substr(rest, 1, i - 1); rest = substr(rest, i + 1)
    i = index(rest, US); exempt = substr(rest, 1, i - 1); text = substr(rest, i + 1)
    if (exempt == "marker") { print "M", at, blk, exempt, "", "", text; next }
    line = text
    sub(/^[[:space:]]+/, "", line)
    if (line == "" || line ~ /^#/) next
    # quoted strings are one word, Q (their | and ; split nothing)
    gsub(/\\"/, "", line); gsub(/"[^"]*"/, "Q", line); gsub(q "[^" q "]*" q, "Q", line)
    sub(/[[:space:]]+#.*$/, "", line); gsub(/\|\||&&|;/, "|", line)
    np = split(line, parts, /\|/)
    for (k = 1; k <= np; k++) {
        nw = split(parts[k], w)
        i = 1
        while (i <= nw && (w[i] == "sudo" || w[i] ~ /^[A-Za-z_][A-Za-z0-9_]*=/)) i++
        if (i > nw) continue
        prog = w[i]
        if (prog ~ /^(scripts|tests)\// || prog == "./configure") {
            if (prog ~ /\/$/) continue     # a folder (a layout table)
        } else if (prog ~ /^(softverbs|apt-get|dpkg|rping|rdma|modprobe|bpftrace|qperf)$/ ||
                   prog ~ /^(dpkg-|ibv_|ib_|fi_|ucx_)/) {
            if (prog !~ /^[A-Za-z0-9_.-]+$/) continue
        } else if (prog != "make")
            continue
        arg = ""
        for (j = i + 1; j <= nw && w[j] != "--"; j++)
            if (w[j] ~ /^[a-z][a-z0-9_-]*$/) { arg = w[j]; break }
        print "C", at, blk, exempt, prog, arg, text
    }
}' "$tmp/lines" > "$tmp/parts"
while IFS=$US read -r kind at blk exempt prog arg text; do
    if [ "$kind" = M ]; then bad "$at: docs-test marker $text"; continue; fi
    case $prog in
        scripts/*|tests/*|./configure)
            if [ "$prog" != ./configure ] && [ ! -f "$prog" ]; then
                bad "$at: $prog: no such file (from: $text)"; continue
            fi
            name=${prog##*/}
            key="/${name//./\\.}" ;;
        make) key='(make|\$\(MAKE\))' ;;
        *) key="${prog//./\\.}" ;;
    esac
    printf "%s$US%s$US%s$US%s$US%s$US%s$US%s\n" "$at" "$blk" "$exempt" "$prog" "$key" "$arg" "$text"
done < "$tmp/parts" > "$tmp/cmds"

# ---- is each one run? ----
# One pass over the corpus answers every command: a line runs it when it
# matches the command's regex (in the line's text; the arg regex may run
# on into the file name, as grep -E "^[^US]*RE" always did) and is not in
# the program's own file (a script does not run itself).
awk -v US="$US" -v cmds="$tmp/cmds" '
    BEGIN {
        b = "(^|[^A-Za-z0-9_.-])"       # before a word
        e = "([^A-Za-z0-9_.-]|$)"       # after a word
        while ((getline r < cmds) > 0) {
            split(r, f, US)
            n++; rec[n] = r; prog[n] = f[4]; arg[n] = f[6]
            if (f[4] ~ /^(scripts|tests)\// || f[4] == "./configure") re = f[5] e
            else re = b f[5] e
            if (f[6] != "") re = re ".*" b f[6] "([^A-Za-z0-9_.:-]|$)"
            full[n] = "^[^" US "]*" re
        }
        close(cmds)
    }
    {
        for (c = 1; c <= n; c++)
            if (!run[c] && (arg[c] == "" || index($0, arg[c])) &&
                $0 ~ full[c] && !index($0, US prog[c]))
                run[c] = 1
    }
    END { for (c = 1; c <= n; c++) print (run[c] ? 1 : 0) US rec[c] }
' "$corpus" > "$tmp/cmds-run"
n=0 run=0 exempted=0
while IFS=$US read -r isrun at blk exempt prog key arg text; do
    n=$((n + 1))
    if [ "$isrun" = 1 ]; then
        run=$((run + 1))
        echo "$blk" >> "$tmp/blocks-run"
    elif [ "$exempt" = 1 ]; then
        exempted=$((exempted + 1))
        echo "$blk" >> "$tmp/blocks-exempt-used"
        echo "not run (marked): $at: $prog${arg:+ $arg}"
    else
        bad "$at: no test runs \`$prog${arg:+ $arg}\` (from: ${text#"${text%%[![:space:]]*}"})"
    fi
done < "$tmp/cmds-run"
# a marked block must still need its marker (1), and a marker before a
# block with no checked command at all is stale too (2)
touch "$tmp/blocks-exempt-used"
awk -F"$US" -v OFS="$US" -v cmds="$tmp/cmds" -v used="$tmp/blocks-exempt-used" '
    BEGIN {
        while ((getline r < used) > 0) needed[r] = 1
        close(used)
        while ((getline r < cmds) > 0) {
            split(r, f)
            if (f[3] == 1) { marked[f[2]] = 1; if (!(f[2] in needed)) print 1, f[2] }
        }
        close(cmds)
    }
    $3 == 1 && !($2 in marked) { print 2, $2 }
' "$tmp/lines" | sort -u > "$tmp/stale"
while IFS=$US read -r kind blk; do
    if [ "$kind" = 1 ]; then
        bad "$blk: the block after a docs-test marker holds no command the tests skip: drop the marker"
    else
        echo "FAIL: $blk: the block after a docs-test marker holds no command this test checks: drop the marker"
        fail=1
    fi
done < "$tmp/stale"
echo "commands: $n checked, $run run by the tests, $exempted marked not run"
[ $n -ge 20 ] || bad "only $n commands found: is the code-block parser broken?"

# ---- relative links ----
# outside fenced blocks, indented blocks and inline code: a line "P\tPAGE"
# before each page's "LINE\tTARGET" lines
awk 'BEGIN {
    for (i = 1; i < ARGC; i++) {
        print "P\t" ARGV[i]
        fence = 0; prevblank = 0; ln = 0
        while ((getline line < ARGV[i]) > 0) {
            ln++
            if (line ~ /^ ? ? ?(```|~~~)/) { fence = !fence; continue }
            if (fence) continue
            if (line ~ /^(    |\t)/ && prevblank) continue
            prevblank = (line ~ /^[ \t]*$/); gsub(/`[^`]*`/, "", line)
            # each ](target), as grep -o finds them; read drops the
            # tabs around a target
            while (match(line, /\]\([^) ]+\)/)) {
                t = substr(line, RSTART + 2, RLENGTH - 3)
                sub(/^\t+/, "", t); sub(/\t+$/, "", t)
                print ln "\t" t
                line = substr(line, RSTART + RLENGTH)
            }
        }
        close(ARGV[i])
    }
}' "${pages[@]}" > "$tmp/links"
links_done() { [ -n "$p" ] && echo "links in $p: $nlinks (relative ones checked)"; }
p=
while IFS=$'\t' read -r ln target; do
    if [ "$ln" = P ]; then
        links_done
        p=$target dir=. nlinks=0
        case $p in */*) dir=${p%/*} ;; esac
        continue
    fi
    nlinks=$((nlinks + 1))
    case $target in '#'*|[a-zA-Z]*:*) continue ;; esac
    file=${target%%#*}
    [ -e "$dir/$file" ] || bad "$p:$ln: link to $target: no such file"
done < "$tmp/links"
links_done

# ---- the tarball carries every page ----
while IFS= read -r p; do
    bad "$p is not in doc/Makefile.inc's EXTRA_DIST (make dist would leave it out)"
done < <(awk 'BEGIN {
    while ((getline l < "doc/Makefile.inc") > 0) mk[++n] = l
    for (i = 1; i < ARGC; i++) {
        re = "(^|[[:space:]])" ARGV[i] "([[:space:]]|\\\\|$)"
        for (j = 1; j <= n && mk[j] !~ re; j++) ;
        if (j > n) print ARGV[i]
    }
}' doc/*.md)

exit $fail
