# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tools/include.awk -- print tools/softverbs.in with each "#@include FILE"
# line replaced by FILE, read under the folder src. Every FILE must be one
# of parts (softverbs_parts of tools/Makefile.inc) and every part included:
# the tarball then holds all the command is made of.
# Usage: awk -v src=SRCDIR -v parts='FILE...' -f include.awk softverbs.in
function fail(m) { print FILENAME ": " m > "/dev/stderr"; bad = 1; exit 1 }
BEGIN { n = split(parts, p, " "); for (i = 1; i <= n; i++) want[p[i]] = 1 }
/^#@include / {
    if (!($2 in want)) fail($2 " is not in softverbs_parts (tools/Makefile.inc)")
    delete want[$2]
    f = src "/" $2
    lines = 0
    while ((r = (getline l < f)) > 0) { print l; lines++ }
    close(f)
    if (r < 0 || lines == 0) fail("cannot include " f)
    next
}
{ print }
END {
    if (bad) exit 1
    for (k in want) fail(k " of softverbs_parts is not included")
}
