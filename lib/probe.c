/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The names the probes pass (lib/probe.h). Built into the core and into
 * each rdma-core plug-in. */
#include "config.h"

#include <stddef.h>

#include "probe.h"

/* The send opcodes' names as rdma-core's ibv_wr_opcode_str spells them
 * (rdma-core 49 on); FLUSH (14) is newer than some verbs.h this builds
 * with, hence the number. */
static const char *const opnames[SV_PROBE_NOPS] = {
	[IBV_WR_RDMA_WRITE] = "rdma-write",
	[IBV_WR_RDMA_WRITE_WITH_IMM] = "rdma-write-with-imm",
	[IBV_WR_SEND] = "send",
	[IBV_WR_SEND_WITH_IMM] = "send-with-imm",
	[IBV_WR_RDMA_READ] = "rdma-read",
	[IBV_WR_ATOMIC_CMP_AND_SWP] = "atomic-cmp-and-swp",
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = "atomic-fetch-and-add",
	[IBV_WR_LOCAL_INV] = "local-inv",
	[IBV_WR_BIND_MW] = "bind-mw",
	[IBV_WR_SEND_WITH_INV] = "send-with-inv",
	[IBV_WR_TSO] = "tso",
	[IBV_WR_DRIVER1] = "driver1",
	[14] = "flush",
	[IBV_WR_ATOMIC_WRITE] = "atomic-write",
};

const char *sv_probe_opcode_name(unsigned int opcode)
{
	if (opcode >= SV_PROBE_NOPS || !opnames[opcode])
		return "unknown";
	return opnames[opcode];
}

void sv_probe_qp_init(struct sv_probe_qp *p, struct ibv_context *ctx)
{
	volatile char sink = 0;

	p->dev = ctx->device->name;
	for (unsigned int i = 0; i < SV_PROBE_NOPS; i++) {
		const char *s = sv_probe_opcode_name(i);

		p->opname[i] = s;
		/* every byte: a name may cross a page boundary */
		for (const volatile char *c = s; *c; c++)
			sink ^= *c;
	}
	(void)sink;
}
