/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Names of enum values and the link-rate conversions.
 *
 * ibv_devinfo, the pingpong examples and many applications print these
 * strings, and scripts parse that output, so every string and every odd
 * case (values outside the enum print "unknown", rates the conversion does
 * not know give -1 or IBV_RATE_MAX) matches rdma-core 44 exactly.
 * tests/unit/test_strings compares them with the system library. */
#include "config.h"

#include <stddef.h>

#include <infiniband/verbs.h>

#include "core.h"
#include "probe.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Look a value up in a table of names indexed by enum value; holes and
 * values outside the table are "unknown". */
static const char *name_of(const char *const *names, size_t count, long value)
{
	if (value < 0 || (size_t)value >= count || !names[value])
		return "unknown";
	return names[value];
}

SV_EXPORT const char *ibv_node_type_str(enum ibv_node_type node_type)
{
	/* IBV_NODE_UNKNOWN (-1) and the unused 0 fall through to "unknown". */
	static const char *const names[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	return name_of(names, ARRAY_SIZE(names), node_type);
}

SV_EXPORT const char *ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const names[] = {
		[IBV_PORT_NOP] = "no state change (NOP)",
		[IBV_PORT_DOWN] = "down",
		[IBV_PORT_INIT] = "init",
		[IBV_PORT_ARMED] = "armed",
		[IBV_PORT_ACTIVE] = "active",
		[IBV_PORT_ACTIVE_DEFER] = "active defer",
	};

	return name_of(names, ARRAY_SIZE(names), port_state);
}

SV_EXPORT const char *ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const names[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
		/* rdma-core 62 */
		[IBV_EVENT_DEVICE_SPEED_CHANGE] = "Device link speed change",
	};

	return name_of(names, ARRAY_SIZE(names), event);
}

SV_EXPORT const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	/* The odd capitalisation of the flush error is rdma-core's; scripts
	 * grep for it, so it stays. */
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	return name_of(names, ARRAY_SIZE(names), status);
}

/* IBVERBS_PRIVATE_34 since rdma-core 49 (declared in its verbs.h): the
 * opcode's name as rdma-core prints it (the table is the probes', which
 * pass the same names: lib/probe.c). */
const char *sv_wr_opcode_str(enum ibv_wr_opcode opcode)
{
	return sv_probe_opcode_name((unsigned int)opcode);
}

/* ---- link rates -------------------------------------------------------- */

/* One row per rate the enum knows. `mult` is the multiple of 2.5 Gb/s that
 * ibv_rate_to_mult/mult_to_ibv_rate use; 0 where rdma-core has no multiple
 * for the rate (FDR/EDR-era rates it never added there), which makes
 * ibv_rate_to_mult return -1; 28 Gb/s is 11 (rounded down) in rdma-core.
 * `mbps` is the data rate after encoding overhead, as rdma-core reports. */
static const struct rate_row {
	enum ibv_rate rate;
	int mult;
	int mbps;
} rate_table[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },
	{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },
	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },
	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, 0, 14062 },
	{ IBV_RATE_56_GBPS, 0, 56250 },
	{ IBV_RATE_112_GBPS, 0, 112500 },
	{ IBV_RATE_168_GBPS, 0, 168750 },
	{ IBV_RATE_25_GBPS, 0, 25781 },
	{ IBV_RATE_100_GBPS, 0, 103125 },
	{ IBV_RATE_200_GBPS, 0, 206250 },
	{ IBV_RATE_300_GBPS, 0, 309375 },
	{ IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },
	{ IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },
	{ IBV_RATE_800_GBPS, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};

static const struct rate_row *rate_row_of(enum ibv_rate rate)
{
	for (size_t i = 0; i < ARRAY_SIZE(rate_table); i++)
		if (rate_table[i].rate == rate)
			return &rate_table[i];
	return NULL;
}

SV_EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
	const struct rate_row *row = rate_row_of(rate);

	return row && row->mult ? row->mult : -1;
}

SV_EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
	if (mult <= 0)
		return IBV_RATE_MAX;
	for (size_t i = 0; i < ARRAY_SIZE(rate_table); i++)
		if (rate_table[i].mult == mult)
			return rate_table[i].rate;
	return IBV_RATE_MAX;
}

SV_EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
	const struct rate_row *row = rate_row_of(rate);

	return row ? row->mbps : -1;
}

SV_EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	if (mbps <= 0)
		return IBV_RATE_MAX;
	for (size_t i = 0; i < ARRAY_SIZE(rate_table); i++)
		if (rate_table[i].mbps == mbps)
			return rate_table[i].rate;
	return IBV_RATE_MAX;
}
