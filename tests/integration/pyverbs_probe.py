#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/pyverbs_probe.py DEV -- what a pyverbs user sees of a
# device, printed in a form that does not change from one run to the next
# (no keys, no QP numbers): run by test_pyverbs.sh once on rdma-core and
# once on softverbs, outputs compared. Also imports the direct-verbs
# modules (mlx5dv, efadv), which load libmlx5/libefa: their constructors
# need the library's IBVERBS_PRIVATE_34 (libmlx5 of rdma-core 53 and
# later, ibv_cmd_create_cq_ex2).
import sys

import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr

name = sys.argv[1]
print("devices:", " ".join(sorted(x.name.decode() for x in d.get_device_list())))
with d.Context(name=name) as ctx:
    a = ctx.query_device()
    fw = a.fw_version
    fw = fw.decode() if isinstance(fw, bytes) else fw
    print("device %s: vendor %#x part %d hw %d fw %s ports %d" %
          (name, a.vendor_id, a.vendor_part_id, a.hw_ver, fw, a.phys_port_cnt))
    print("limits: qp %d qp_wr %d sge %d cq %d cqe %d mr %d pd %d mr_size %d" %
          (a.max_qp, a.max_qp_wr, a.max_sge, a.max_cq, a.max_cqe, a.max_mr,
           a.max_pd, a.max_mr_size))
    p = ctx.query_port(1)
    print("port 1: state %d max_mtu %d active_mtu %d gid_tbl_len %d link_layer %d width %d speed %d" %
          (p.state, p.max_mtu, p.active_mtu, p.gid_tbl_len, p.link_layer,
           p.active_width, p.active_speed))
    print("gid 0:", ctx.query_gid(1, 0), "type", ctx.query_gid_type(1, 0))
    with PD(ctx) as pd:
        with MR(pd, 65536, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE) as mr:
            mr.write(b"softverbs", 9)
            print("mr: length %d, reads back %r" % (mr.length, mr.read(9, 0)))
            with CQ(ctx, 64) as cq:
                cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1,
                            max_recv_sge=1)
                qia = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap)
                with QP(pd, qia) as qp:
                    print("qp: type %d state %d, data in order %d" %
                          (qp.qp_type, qp.qp_state,
                           qp.query_data_in_order(e.IBV_WR_RDMA_WRITE)))
for mod in ("pyverbs.providers.mlx5.mlx5dv", "pyverbs.providers.efa.efadv"):
    __import__(mod)
    print("imported", mod)
with open("/proc/self/maps") as f:
    libs = sorted({l.split()[-1] for l in f if "libibverbs.so" in l})
print("libibverbs:", " ".join(libs), file=sys.stderr)
