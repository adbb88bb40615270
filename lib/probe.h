/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* USDT probes (<sys/sdt.h>, systemtap-sdt-dev), always built; the list,
 * with every argument, is in softverbs(7) under PROBES.
 *
 * A probe is one NOP plus a note (section .note.stapsdt) that says where
 * each argument lives at the NOP: a register, a constant, or a memory
 * operand ("nor", sdt.h's default on x86_64). A tracer (bpftrace, perf,
 * systemtap, gdb) puts a breakpoint on the NOP; nobody listening, the NOP
 * is all that runs. What can still cost is computing an argument that is
 * not already in a register or in memory at a fixed place, so the hot
 * paths pass fields of their own objects: the device name and the names
 * of the send opcodes hang off each QP (struct sv_probe_qp), and a field
 * in memory is passed as a memory operand, which costs no instruction.
 *
 * Providers: rdma_core_rxe and rdma_core_siw with rdma-core's name and
 * argument order (providers/rxe/rxe_trace.h, rdma-core 62: post_send(dev,
 * qpn, opcode, bytes), dev and opcode strings), and softverbs for what
 * rdma-core has no probe for.
 */
#ifndef SV_PROBE_H
#define SV_PROBE_H

#include <errno.h>
#include <stdint.h>
/* STAP_PROBEV, the variadic form */
#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>

#include <infiniband/verbs.h>

/* SV_PROBE(provider, name[, args...]): up to 12 arguments, each an
 * integer or a pointer. */
#define SV_PROBE(provider, name, ...) STAP_PROBEV(provider, name, ##__VA_ARGS__)

/* A failed verb: fires softverbs:verb_error(verb, errno) and is the
 * errno (positive), so that a call site stays one expression:
 * return SV_PROBE_ERR("ibv_create_qp", ret); */
#define SV_PROBE_ERR(verb, err)                                                \
	__extension__({                                                        \
		int sv_probe_err_ = (err);                                     \
		SV_PROBE(softverbs, verb_error, (const char *)(verb),          \
			 sv_probe_err_);                                       \
		sv_probe_err_;                                                 \
	})

/* A verb's int result, with the probe when it is an error. */
static inline int sv_probe_ret(const char *verb, int ret)
{
	if (__builtin_expect(ret != 0, 0))
		SV_PROBE(softverbs, verb_error, verb, ret);
	return ret;
}

/* A pointer verb's failure: the probe with errno, then NULL. */
static inline void *sv_probe_null(const char *verb)
{
	SV_PROBE(softverbs, verb_error, verb, errno);
	return NULL;
}

/* Send opcodes with a name (enum ibv_wr_opcode, 0..SV_PROBE_NOPS-1). */
#define SV_PROBE_NOPS 16

/* What a QP's probes name: kept in the provider's QP, filled at create. */
struct sv_probe_qp {
	const char *dev;                      /* ibv_device.name */
	const char *opname[SV_PROBE_NOPS];    /* ibv_wr_opcode_str(i) */
};

/* The name of send opcode n as rdma-core's ibv_wr_opcode_str gives it
 * ("unknown" for none). */
const char *sv_probe_opcode_name(unsigned int opcode);

/* Fill *p for a QP of ctx, and read every name once, so that their pages
 * are resident when a tracer reads them from a probe (a BPF program
 * cannot fault pages in: bpftrace's str() reads "" from a page never
 * touched). */
void sv_probe_qp_init(struct sv_probe_qp *p, struct ibv_context *ctx);

#endif
