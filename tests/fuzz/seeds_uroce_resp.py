#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/fuzz/seeds_uroce_resp.py [DIR] -- write the seed corpus of
# tests/fuzz/fuzz_uroce_resp (default: tests/fuzz/corpus/uroce_resp next
# to this script) in that harness's input format: a control byte and the
# RC/UC QPs' expected PSN, then packets, each a flags byte, a 16-bit
# little-endian length and the UDP payload (BTH onward, a zero ICRC:
# flag 0x01 has the harness compute it). Every packet asks the harness to
# fill in the ICRC, the QPN, the PSN (relative to the expected one) and
# the keys (MR numbers, VAs as offsets + 512), so the seeds stay valid
# whatever the QPNs and keys of a run are.
import os
import struct
import sys

RC, UC, UD = 0, 1, 2
FIX = 0x0F  # ICRC, QPN, PSN, keys
MR_WRITE, MR_READ, MR_ATOMIC, MR_NONE = 0, 1, 2, 3


def bth(opcode, payload_len, psn_delta=0, ack_req=True, se=False):
    pad = -payload_len % 4
    return struct.pack(">BBHB3sB3s", opcode, (se << 7) | (pad << 4), 0xFFFF, 0,
                       b"\0\0\0", ack_req << 7, bytes([0, 0, psn_delta & 0xFF]))


def reth(mr, off, length):
    return struct.pack(">QII", 512 + off, mr, length)


def feth(plt, sel):
    return struct.pack(">I", (sel & 3) << 4 | (plt & 0xF))


def atmeth(mr, off, swap_add, comp):
    return struct.pack(">QIQQ", 512 + off, mr, swap_add, comp)


def pkt(opcode, hdrs=b"", payload=b"", qp=RC, psn_delta=0, flags=FIX, **kw):
    body = bth(opcode, len(payload), psn_delta, **kw) + hdrs + payload
    body += b"\0" * (-len(payload) % 4) + b"\0\0\0\0"
    return struct.pack("<BH", flags | qp << 6, len(body)) + body


def seed(*pkts, ctl=0, psn=0x000100):
    return bytes([ctl]) + struct.pack("<I", psn)[:3] + b"".join(pkts)


def data(n, base=0x41):
    return bytes((base + i) % 256 for i in range(n))


IMM = struct.pack(">I", 0xCAFEF00D)
SEEDS = {
    "rc-send-only": seed(pkt(0x04, payload=data(32))),
    "rc-send-only-imm": seed(pkt(0x05, IMM, data(20), se=True)),
    "rc-send-first-middle-last": seed(pkt(0x00, payload=data(256)),
                                      pkt(0x01, payload=data(256, 7)),
                                      pkt(0x02, payload=data(100, 9))),
    "rc-send-wrap-psn": seed(pkt(0x00, payload=data(256)),
                             pkt(0x02, payload=data(8)), psn=0xFFFFFF),
    "rc-write-only": seed(pkt(0x0A, reth(MR_WRITE, 0, 64), data(64))),
    "rc-write-first-middle-last": seed(
        pkt(0x06, reth(MR_WRITE, 100, 600), data(256)),
        pkt(0x07, payload=data(256, 3)),
        pkt(0x08, payload=data(88, 5))),
    "rc-write-only-imm": seed(pkt(0x0B, reth(MR_WRITE, 8, 16) + IMM, data(16))),
    "rc-write-zero-length": seed(pkt(0x0A, reth(MR_WRITE, 0, 0))),
    "rc-read": seed(pkt(0x0C, reth(MR_READ, 16, 300))),
    "rc-read-duplicate": seed(pkt(0x0C, reth(MR_READ, 16, 300)),
                              pkt(0x0C, reth(MR_READ, 16, 300), psn_delta=-2)),
    "rc-send-duplicate": seed(pkt(0x04, payload=data(8)),
                              pkt(0x04, payload=data(8), psn_delta=-1)),
    "rc-cmp-swap": seed(pkt(0x13, atmeth(MR_ATOMIC, 8, 0x1111, 0x2222))),
    "rc-fetch-add": seed(pkt(0x14, atmeth(MR_ATOMIC, 16, 5, 0))),
    "rc-nak-write-read-only-mr": seed(pkt(0x0A, reth(MR_READ, 0, 32), data(32))),
    "rc-nak-write-no-remote-mr": seed(pkt(0x0A, reth(MR_NONE, 0, 32), data(32))),
    "rc-nak-psn-ahead": seed(pkt(0x04, payload=data(8), psn_delta=5)),
    "rc-nak-middle-first": seed(pkt(0x01, payload=data(256))),
    "rc-nak-write-past-end": seed(pkt(0x0A, reth(MR_WRITE, 4090, 64), data(64))),
    "rc-rnr-no-recv": seed(pkt(0x04, payload=data(8)), ctl=0x08),
    "rc-write-qp-no-access": seed(pkt(0x0A, reth(MR_WRITE, 0, 16), data(16)), ctl=0x10),
    "rc-read-mtu1024": seed(pkt(0x0C, reth(MR_READ, 0, 3000)), ctl=0x80),
    # SEND with invalidate: the IETH names no window (rxe's class J:
    # the receive fails, the request is ACKed, the QP goes to error)
    "rc-send-only-inv": seed(pkt(0x17, struct.pack(">I", 0x12345678), data(24))),
    "rc-send-first-last-inv": seed(pkt(0x00, payload=data(256)),
                                   pkt(0x16, struct.pack(">I", 0), data(12, 3))),
    # ATOMIC WRITE (rxe from 6.2): remote write on the MR; FLUSH (global,
    # a range or the whole MR): FLUSH_GLOBAL on the MR (MR_WRITE has it)
    "rc-atomic-write": seed(pkt(0x1D, reth(MR_WRITE, 24, 8), data(8))),
    "rc-atomic-write-duplicate": seed(pkt(0x1D, reth(MR_WRITE, 24, 8), data(8)),
                                      pkt(0x1D, reth(MR_WRITE, 24, 8), data(8, 9),
                                          psn_delta=-1)),
    "rc-nak-atomic-write-atomic-mr": seed(pkt(0x1D, reth(MR_ATOMIC, 0, 8), data(8))),
    "rc-nak-atomic-write-misaligned": seed(pkt(0x1D, reth(MR_WRITE, 4, 8), data(8))),
    "rc-flush-range": seed(pkt(0x0A, reth(MR_WRITE, 0, 64), data(64)),
                           pkt(0x1C, feth(1, 0) + reth(MR_WRITE, 0, 64))),
    "rc-flush-whole-mr": seed(pkt(0x1C, feth(1, 1) + reth(MR_WRITE, 5000, 0))),
    "rc-nak-flush-read-mr": seed(pkt(0x1C, feth(1, 0) + reth(MR_READ, 0, 8))),
    "rc-nak-flush-persistent": seed(pkt(0x1C, feth(2, 0) + reth(MR_WRITE, 0, 8))),
    "rc-ack": seed(pkt(0x11, struct.pack(">I", 0x1F000000))),
    "uc-send-only": seed(pkt(0x24, payload=data(40), qp=UC)),
    "uc-write-first-last": seed(pkt(0x26, reth(MR_WRITE, 0, 300), data(256), qp=UC),
                                pkt(0x28, payload=data(44), qp=UC)),
    "ud-send-only": seed(pkt(0x64, struct.pack(">II", 0, 0x000042), data(64), qp=UD)),
    "ud-send-only-imm": seed(pkt(0x65, struct.pack(">II", 0, 0x000042) + IMM,
                                 data(12), qp=UD)),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "uroce_resp")
    os.makedirs(out, exist_ok=True)
    for name, blob in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
