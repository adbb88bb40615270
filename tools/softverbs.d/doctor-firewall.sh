# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# softverbs doctor, the firewall check: which nftables and iptables rules
# refuse UDP 4791 (RoCE v2) on input.
# Part of the softverbs command: make puts it into tools/softverbs where
# tools/softverbs.in includes it (#@include). POSIX sh.

# fw_scan FORMAT CMD FILE...: read rules (nft -a list ruleset, or iptables
# -S of CMD); print one line per way UDP 4791 is refused on input:
#   KIND<tab>WHERE<tab>RULE<tab>FIX
# KIND rule: a rule drops or rejects UDP 4791 (by port, or all UDP) before
# any rule of its chain accepts it; KIND policy: an input chain drops by
# policy, or with a rule that drops everything, and no rule of the table
# accepts UDP 4791. Chains without a hook count as reachable from input
# (jumps are not followed); output and forward hooks do not count.
fw_scan() {
    local fmt="$1" cmd="$2"
    shift 2
    awk -v fmt="$fmt" -v cmd="$cmd" -v sudo="$sudo" '
        # covers SPEC: a port list (4791, { 22, 4000-5000 }, 4000:5000, 22,4791) holds 4791
        function covers(spec,    n, i, a, r) {
            gsub(/[{} ]/, "", spec)
            n = split(spec, a, ",")
            for (i = 1; i <= n; i++) {
                if (a[i] ~ /^[0-9]+[-:][0-9]+$/) {
                    split(a[i], r, /[-:]/)
                    if (r[1] + 0 <= 4791 && 4791 <= r[2] + 0) return 1
                } else if (a[i] == "4791") return 1
            }
            return 0
        }
        # what RULE matches of UDP 4791: port, udp (every UDP port), all
        # (no match at all), or no (something else, or a condition)
        function about(rule,    s, spec) {
            if (fmt == "nft") {
                if (match(rule, /(udp|th) dport (!= )?(\{[^}]*\}|[^ ]+)/)) {
                    spec = substr(rule, RSTART, RLENGTH)
                    sub(/^(udp|th) dport /, "", spec)
                    return (spec !~ /^!=/ && covers(spec)) ? "port" : "no"
                }
                s = rule
                gsub(/(meta )?l4proto udp|ip protocol udp|ip6 nexthdr udp/, "UDP", s)
                gsub(/counter( packets [0-9]+ bytes [0-9]+)?|log( prefix "[^"]*")?( level [a-z]+)?|comment "[^"]*"/, "", s)
                gsub(/(accept|drop|reject( with [a-z0-9-]+ [a-z0-9-]+)?)/, "", s)
                gsub(/ +/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s)
            } else {
                if (rule ~ /(^| )! --dports? /) return "no"
                if (rule ~ / -p udp / && match(rule, /--dports? [0-9,:]+/)) {
                    spec = substr(rule, RSTART, RLENGTH)
                    sub(/^--dports? /, "", spec)
                    return covers(spec) ? "port" : "no"
                }
                s = rule
                gsub(/-m comment --comment ("([^"\\]|\\.)*"|[^ ]+)/, "", s)
                gsub(/-p udp( -m udp)?/, "UDP", s)
                gsub(/^-A [^ ]+|-j [A-Z]+( --reject-with [a-z0-9-]+)?/, "", s)
                gsub(/ +/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s)
            }
            if (s == "UDP") return "udp"
            if (s == "") return "all"
            return "no"
        }
        function verdict(rule) {
            if (fmt == "nft") {
                if (rule ~ /(^| )(drop|reject)( |$)/) return "drop"
                if (rule ~ /(^| )accept( |$)/) return "accept"
            } else {
                if (rule ~ / -j (DROP|REJECT)( |$)/) return "drop"
                if (rule ~ / -j ACCEPT( |$)/) return "accept"
            }
            return ""
        }
        # fixes, in the tool that owns the table
        function fix_insert(t, c) {
            if (t ~ /^ufw/ || c ~ /^ufw/) return sudo "ufw allow 4791/udp"
            if (fmt == "nft" && table_name[t] == "firewalld") return sudo "firewall-cmd --add-port=4791/udp && " sudo "firewall-cmd --runtime-to-permanent"
            if (fmt == "nft" && xt[t]) return sudo xt[t] " -I " c " -p udp --dport 4791 -j ACCEPT"
            if (fmt == "nft") return sudo "nft insert rule " t " " c " udp dport 4791 accept"
            return sudo cmd " -I " c " -p udp --dport 4791 -j ACCEPT"
        }
        function fix_delete(t, c, rule, handle) {
            if (fmt == "nft" && xt[t] == "" && table_name[t] != "firewalld" && handle != "")
                return sudo "nft delete rule " t " " c " handle " handle "  # or let RoCE v2 through first: " fix_insert(t, c)
            if (fmt != "nft") {
                sub(/^-A /, "-D ", rule)
                return sudo cmd " " rule "  # or let RoCE v2 through first: " fix_insert(t, c)
            }
            return fix_insert(t, c)
        }
        function where(t, c) {
            return (fmt == "nft") ? "nftables table " t ", chain " c : cmd " chain " c
        }
        # one rule of chain C in table T: hooked is 1 for an input base chain
        function rule(t, c, hooked, text, handle,    v, a) {
            v = verdict(text)
            if (v == "" || (t SUBSEP c in generic)) return
            a = about(text)
            if (v == "accept") {
                if (a != "no") { allowed[t, c] = 1; table_allows[t] = 1 }
                return
            }
            if (allowed[t, c] || a == "no") return
            if (a == "all") {
                if (hooked) { generic[t, c] = text; pend[++npend] = t SUBSEP c }
                return
            }
            printf "rule\t%s\t%s\t%s\n", where(t, c), text, fix_delete(t, c, text, handle)
        }
        function flush_pending(    i, k, p) {
            for (i = 1; i <= npend; i++) {
                if (pend[i] in shown) continue
                shown[pend[i]] = 1
                split(pend[i], k, SUBSEP)
                if (table_allows[k[1]] || allowed[k[1], k[2]]) continue
                p = (k[1] SUBSEP k[2] in generic) ? generic[k[1], k[2]] : "policy drop"
                printf "policy\t%s\t%s\t%s\n", where(k[1], k[2]), p, fix_insert(k[1], k[2])
            }
        }
        BEGIN { depth = 0; skip_table = 0 }
        fmt == "nft" {
            line = $0
            # iptables-nft: nft warns of its tables only sometimes; its
            # chains have the upper-case names of iptables
            if (line ~ /^# Warning: table (ip|ip6) [^ ]+ is managed by iptables-nft/) {
                split(line, w, " ")
                xt[w[4] " " w[5]] = (w[4] == "ip6") ? "ip6tables" : "iptables"
                next
            }
            handle = ""
            if (match(line, / # handle [0-9]+$/)) {
                handle = substr(line, RSTART + 10)
                line = substr(line, 1, RSTART - 1)
            }
            sub(/^[ \t]+/, "", line); gsub(/  +/, " ", line)
            if (depth == 0 && line ~ /^table [a-z0-9]+ [^ ]+ \{/) {
                split(line, w, " ")
                t = w[2] " " w[3]
                table_name[t] = w[3]
                skip_table = (w[2] != "ip" && w[2] != "ip6" && w[2] != "inet")
                depth = 1; next
            }
            if (depth == 1 && line ~ /^chain [^ ]+ \{/) {
                split(line, w, " ")
                c = w[2]; hook = ""; depth = 2
                if (c ~ /^(INPUT|PREROUTING|OUTPUT|FORWARD|POSTROUTING)$/ && t ~ /^ip6? (filter|raw|mangle|nat|security)$/)
                    xt[t] = (t ~ /^ip6/) ? "ip6tables" : "iptables"
                next
            }
            if (depth == 1 && line ~ /\{$/) { depth = 2; c = ""; next }
            if (line == "}") {
                if (depth == 2 && c != "" && policy_drop && !skip_table && (hook == "input" || hook == "prerouting"))
                    pend[++npend] = t SUBSEP c
                policy_drop = 0
                depth--; if (depth == 1) c = ""
                next
            }
            if (depth != 2 || c == "" || skip_table) next
            if (line ~ /^type [a-z]+ hook /) {
                split(line, w, " "); hook = w[4]
                policy_drop = (line ~ /policy drop;/)
                next
            }
            if (hook == "" || hook == "input" || hook == "prerouting")
                rule(t, c, hook == "input" || hook == "prerouting", line, handle)
            next
        }
        fmt == "ipt" {
            if ($1 == "-P" && $2 == "INPUT" && $3 == "DROP") pend[++npend] = "filter" SUBSEP "INPUT"
            if ($1 != "-A" || $2 == "OUTPUT" || $2 == "FORWARD") next
            rule("filter", $2, $2 == "INPUT", $0, "")
        }
        END { flush_pending() }' "$@"
}

# doctor_firewall ROCE_DEVICES: does a firewall rule refuse UDP 4791 (the
# RoCE v2 port) on input? nftables (which holds iptables-nft's rules too),
# and legacy iptables tables when the kernel has any.
doctor_firewall() {
    local tab='	' found=0 read_ok='' kind where text fix t names
    chk=firewall
    : > "$tmp/fw"
    if command -v nft > /dev/null 2>&1; then
        if nft -a list ruleset > "$tmp/nft" 2> "$tmp/nft.err"; then
            fw_scan nft nft "$tmp/nft.err" "$tmp/nft" >> "$tmp/fw"  # (nft warns on stderr)
            read_ok="nftables"
        else
            p_info "cannot read the nftables rules as $user ($(head -n 1 "$tmp/nft.err")): UDP 4791 not checked there" \
                   "sudo softverbs doctor"
        fi
    fi
    for t in iptables ip6tables; do
        # without nft, iptables -S reads whatever backend it has; with it,
        # only legacy tables (/proc/net/ip*_tables_names lists them) are not
        # in nft's listing
        if command -v nft > /dev/null 2>&1; then
            rd names "/proc/net/${t%tables}_tables_names"
            [ -n "$names" ] || continue
            command -v "$t-legacy" > /dev/null 2>&1 && t=$t-legacy
        fi
        command -v "$t" > /dev/null 2>&1 || continue
        if "$t" -S > "$tmp/ipt" 2> "$tmp/ipt.err"; then
            fw_scan ipt "$t" "$tmp/ipt" >> "$tmp/fw"
            read_ok="${read_ok:+$read_ok, }$t"
        else
            p_info "cannot read the $t rules as $user ($(head -n 1 "$tmp/ipt.err")): UDP 4791 not checked there" \
                   "sudo softverbs doctor"
        fi
    done
    while IFS=$tab read -r kind where text fix; do
        found=1
        case "$kind" in
            rule) p_warn "UDP 4791 (RoCE v2) is refused for $1: $where: $text" "$fix" ;;
            *) p_warn "UDP 4791 (RoCE v2) is refused for $1: $where ends in \"$text\", and no rule accepts udp dport 4791" "$fix" ;;
        esac
    done < "$tmp/fw"
    [ $found = 0 ] && [ -n "$read_ok" ] &&
        p_ok "UDP 4791 (RoCE v2): no $read_ok input rule refuses it"
    return 0
}
