#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/roce_icrc_check.py -- the ICRC of every RoCE v2
# packet (IPv4 or IPv6, UDP port 4791; Ethernet frames, or raw IP as
# SOFTVERBS_UROCE_PCAP writes them) in a pcap file, computed here
# (Python's zlib, not softverbs' C code) and compared with the one on the
# wire. test_uroce_rxe.sh runs it on a capture of uroce and the kernel's
# rxe talking: the kernel's packets pass only if this computes the ICRC as
# the kernel does, and then uroce's are checked the same way.
#
#   roce_icrc_check.py FILE.pcap
#
# The ICRC (kmod-notes/uroce-wire.md, "ICRC"): CRC-32 (zlib's) over 8
# bytes of 0xff, the IPv4 header with TOS, TTL and checksum set to ones
# (or the IPv6 header with its traffic class, flow label and hop limit
# set to ones), the UDP header with its checksum set to ones, the BTH with byte 4
# (FECN, BECN, resv6a) set to ones, and the rest of the packet but its
# last 4 bytes, which hold the ICRC, least significant byte first.
#
# Prints per source address "ADDR: N packets, B with a bad ICRC;
# opcodes OP:COUNT ...", then at most 5 bad packets (number in the file,
# opcode, ICRC on the wire and computed). Exit 0 when there was at least
# one packet and none was bad, 1 otherwise, 2 on a file it cannot read.
import ipaddress
import struct
import sys
import zlib


def packets(path):
    """(number, frame bytes) of each record of a classic pcap file"""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError("too short for a pcap header")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise ValueError("not a classic pcap file")
    linktype = struct.unpack(end + "I", data[20:24])[0]
    if linktype not in (LINKTYPE_ETHERNET, LINKTYPE_RAW):
        raise ValueError(f"link type {linktype}: neither Ethernet nor raw IP")
    off, n = 24, 0
    while off + 16 <= len(data):
        caplen, origlen = struct.unpack(end + "II", data[off + 8:off + 16])
        frame = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        n += 1
        if caplen != origlen:
            raise ValueError(f"record {n} is cut short (snaplen)")
        yield n, linktype, frame


LINKTYPE_ETHERNET = 1
LINKTYPE_RAW = 101


def roce_v2(linktype, frame):
    """the IP packet of a RoCE v2 frame (no padding after it), or None"""
    if linktype == LINKTYPE_ETHERNET:
        if frame[12:14] not in (b"\x08\x00", b"\x86\xdd"):
            return None
        frame = frame[14:]
    ip = frame
    if len(ip) >= 20 and ip[0] >> 4 == 4:
        ihl = (ip[0] & 0xf) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        if ihl != 20 or ip[9] != 17 or total > len(ip):
            return None
        ip = ip[:total]
        hlen = 20
    elif len(ip) >= 40 and ip[0] >> 4 == 6:
        total = 40 + struct.unpack("!H", ip[4:6])[0]
        if ip[6] != 17 or total > len(ip):   # UDP right after the header
            return None
        ip = ip[:total]
        hlen = 40
    else:
        return None
    if len(ip) < hlen + 8 + 12 + 4 or struct.unpack("!H", ip[hlen + 2:hlen + 4])[0] != 4791:
        return None
    return ip


def icrc(ip):
    """the ICRC of an IPv4 or IPv6 RoCE v2 packet, as its 4 bytes on the
    wire"""
    hlen = 20 if ip[0] >> 4 == 4 else 40
    pseudo = bytearray(ip[:hlen + 8 + 12])
    if hlen == 20:
        pseudo[1] = 0xff             # TOS
        pseudo[8] = 0xff             # TTL
        pseudo[10:12] = b"\xff\xff"  # IPv4 header checksum
    else:
        pseudo[0] |= 0x0f            # traffic class (its high nibble),
        pseudo[1:4] = b"\xff\xff\xff"  # the rest of it and the flow label
        pseudo[7] = 0xff             # hop limit
    pseudo[hlen + 6:hlen + 8] = b"\xff\xff"  # UDP checksum
    pseudo[hlen + 8 + 4] = 0xff      # BTH byte 4: FECN, BECN, resv6a
    crc = zlib.crc32(b"\xff" * 8 + bytes(pseudo) + ip[hlen + 8 + 12:-4])
    return struct.pack("<I", crc)


def src_text(ip):
    if ip[0] >> 4 == 4:
        return ".".join(str(b) for b in ip[12:16])
    return str(ipaddress.IPv6Address(bytes(ip[8:24])))


def main():
    if len(sys.argv) != 2:
        print("usage: roce_icrc_check.py FILE.pcap")
        return 2
    by_src = {}
    bad = []
    try:
        for n, linktype, frame in packets(sys.argv[1]):
            ip = roce_v2(linktype, frame)
            # no RoCE packet: a starting uroce context's probes to itself
            # (BTH opcode 0xff, on lo)
            if ip is None or ip[28 if ip[0] >> 4 == 4 else 48] == 0xff:
                continue
            src = src_text(ip)
            op = ip[28 if ip[0] >> 4 == 4 else 48]
            s = by_src.setdefault(src, {"n": 0, "bad": 0, "ops": {}})
            s["n"] += 1
            s["ops"][op] = s["ops"].get(op, 0) + 1
            want = icrc(ip)
            if ip[-4:] != want:
                s["bad"] += 1
                bad.append(f"packet {n} from {src}: opcode {op:#04x}: ICRC on the "
                           f"wire {ip[-4:].hex()}, computed {want.hex()}")
    except (OSError, ValueError) as e:
        print(f"roce_icrc_check: {sys.argv[1]}: {e}")
        return 2
    for src, s in sorted(by_src.items()):
        ops = " ".join(f"{op:#04x}:{c}" for op, c in sorted(s["ops"].items()))
        print(f"{src}: {s['n']} packets, {s['bad']} with a bad ICRC; opcodes {ops}")
    if not by_src:
        print("no RoCE v2 packet in the file")
    for line in bad[:5]:
        print(line)
    return 0 if by_src and not bad else 1


sys.exit(main())
