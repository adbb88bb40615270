#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/fork_python.py -- the Python pattern (run by
# test_fork_python.sh, inside the test VM, with Debian's pyverbs): fork
# safety on (pyverbs.fork.fork_init), the parent registers memory that
# shares pages with Python objects -- one of 64 small bytearrays, whose
# buffers pymalloc packs next to each other, and 1 KiB in the middle of a
# 12 KiB bytearray on the malloc heap -- then multiprocessing workers
# (fork start method) read those objects and return results, while a
# thread of the parent RDMA WRITEs into the registered memory and checks
# every byte. Prints one line per check and "OK" or "FAILED: ..."; exit 0,
# 1 (a check failed: workers died, wrong results, corrupted traffic),
# 77 (no pyverbs or no device).
import ctypes
import multiprocessing
import os
import sys
import threading
import time

try:
    import pyverbs.enums as e
    from pyverbs.addr import AHAttr, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.fork import fork_init
    from pyverbs.mr import MR
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
    from pyverbs.wr import SGE, SendWR
except ImportError as ex:
    print(f"SKIP: pyverbs is missing ({ex}): apt-get install python3-pyverbs")
    sys.exit(77)

DEV = os.environ.get("RXE_DEV")
GID = int(os.environ.get("RXE_GID", "1"))
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)
NOBJ, OBJ_LEN, REG = 64, 400, 32   # objs[REG] is registered
BIG_LEN, BIG_OFF, BIG_REG = 12288, 6000, 1024

# Module level: the workers inherit them through fork.
objs = [bytearray(bytes([i % 251]) * OBJ_LEN) for i in range(NOBJ)]
big = bytearray(bytes(range(256)) * (BIG_LEN // 256))
table = {f"key{i}": i * i for i in range(1000)}


def address_of(buf):
    return ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))


def worker(i):
    """In a forked child: read Python objects that share pages with the
    parent's registered memory."""
    total = 0
    for k, o in enumerate(objs):
        if k != REG:  # its bytes are the device's (a copy at fork)
            total += sum(o)
    outside = sum(big[:BIG_OFF]) + sum(big[BIG_OFF + BIG_REG:])
    return i, total, outside, table[f"key{i}"]


def expected(i):
    total = sum((k % 251) * OBJ_LEN for k in range(NOBJ) if k != REG)
    data = bytes(range(256)) * (BIG_LEN // 256)
    outside = sum(data[:BIG_OFF]) + sum(data[BIG_OFF + BIG_REG:])
    return i, total, outside, i * i


class Loopback:
    """Two RC QPs of one device connected to each other."""

    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 64)
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                          cap=cap)
        self.qps = [QP(pd, init), QP(pd, init)]
        gid = ctx.query_gid(1, GID)
        for me, other in ((0, 1), (1, 0)):
            attr = QPAttr(port_num=1)
            attr.qp_access_flags = ACCESS
            attr.path_mtu = e.IBV_MTU_1024
            attr.max_dest_rd_atomic = 1
            attr.max_rd_atomic = 1
            attr.min_rnr_timer = 1
            attr.timeout = 14
            attr.retry_cnt = 7
            attr.rnr_retry = 7
            gr = GlobalRoute(dgid=gid, sgid_index=GID)
            gr.hop_limit = 1
            attr.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
            attr.dest_qp_num = self.qps[other].qp_num
            attr.rq_psn = 0
            attr.sq_psn = 0
            self.qps[me].to_rts(attr)

    def write(self, src_mr, src, dst_mr, dst, length):
        """RDMA WRITE length bytes, wait for its completion."""
        wr = SendWR(wr_id=1, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                    sg=[SGE(src, length, src_mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(dst_mr.rkey, dst)
        self.qps[0].post_send(wr)
        end = time.monotonic() + 60  # a hang guard, not a timing
        while True:
            n, wcs = self.cq.poll(1)
            if n:
                if wcs[0].status != e.IBV_WC_SUCCESS:
                    raise RuntimeError(f"RDMA WRITE completed with {wcs[0].status}")
                return
            if time.monotonic() > end:
                raise RuntimeError("no completion in 60 s")


def traffic(lb, src_mr, targets, stop, state):
    """Until stop: RDMA WRITE new bytes into each registered target and
    check them in the parent."""
    rounds = 0
    try:
        while not stop.is_set():
            seed = rounds % 200 + 1
            for mr, buf, off, length in targets:
                pattern = bytes((seed + k) % 256 for k in range(length))
                src_mr.write(pattern, length)
                lb.write(src_mr, src_mr.buf, mr, address_of(buf) + off, length)
                if bytes(buf[off:off + length]) != pattern:
                    raise RuntimeError(f"round {rounds}: CORRUPTED: the RDMA WRITE did not reach the parent")
            rounds += 1
    except Exception as ex:  # reported by the main thread
        state["error"] = str(ex)
    state["rounds"] = rounds


def main():
    if not DEV:
        print("SKIP: RXE_DEV is not set (run inside tests/vm/run)")
        return 77
    fork_init()
    ctx = Context(name=DEV)
    pd = PD(ctx)
    lb = Loopback(ctx, pd)
    src_mr = MR(pd, 4096, ACCESS)
    # memory that shares pages with Python objects
    obj_mr = MR(pd, OBJ_LEN, ACCESS, address=address_of(objs[REG]))
    big_mr = MR(pd, BIG_REG, ACCESS, address=address_of(big) + BIG_OFF)
    targets = [(obj_mr, objs[REG], 0, OBJ_LEN), (big_mr, big, BIG_OFF, BIG_REG)]
    near = [k for k in range(NOBJ) if k != REG and
            address_of(objs[k]) // 4096 == address_of(objs[REG]) // 4096]
    print(f"registered objs[{REG}] at {address_of(objs[REG]):#x} ({OBJ_LEN} bytes; "
          f"{len(near)} other bytearrays on its page) and {BIG_REG} bytes of a "
          f"{BIG_LEN}-byte bytearray at {address_of(big) + BIG_OFF:#x}")
    stop, state = threading.Event(), {}
    thread = threading.Thread(target=traffic, args=(lb, src_mr, targets, stop, state))
    thread.start()
    failed = []
    mp = multiprocessing.get_context("fork")
    for rnd in range(3):
        with mp.Pool(4) as pool:
            res = pool.map_async(worker, range(16))
            try:
                # a dead worker's task never returns
                got = res.get(timeout=int(os.environ.get("FORK_PY_TIMEOUT", "120")))
            except multiprocessing.TimeoutError:
                failed.append(f"pool round {rnd}: the workers did not return (died?)")
                pool.terminate()
                break
        bad = [g for g in got if g != expected(g[0])]
        if bad:
            failed.append(f"pool round {rnd}: wrong results from the workers: {bad[:2]}")
        else:
            print(f"pool round {rnd}: 16 results from 4 forked workers, all as expected")
    stop.set()
    thread.join()
    if "error" in state:
        failed.append(f"the parent's RDMA traffic: {state['error']}")
    else:
        print(f"the parent's RDMA traffic: {state.get('rounds', 0)} rounds into the "
              f"registered objects, every byte checked")
    if not state.get("rounds"):
        failed.append("the parent's RDMA traffic made no progress")
    for mr in (obj_mr, big_mr, src_mr):
        mr.close()
    if failed:
        print("FAILED: " + "; ".join(failed))
        return 1
    print("OK: workers read every Python object sharing pages with registered memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
