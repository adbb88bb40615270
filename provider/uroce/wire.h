/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * provider/uroce/wire.h -- the RoCE v2 wire format, as the kernel's rxe
 * (drivers/infiniband/sw/rxe) writes and reads it: the transport headers,
 * the opcode table, the parser of a UDP payload (BTH onwards), the ICRC
 * and the header builder. Every field goes through byte-wise big-endian
 * loads and stores; no packed struct is ever laid over a packet.
 *
 * The facts, with the kernel file each was read from, are in
 * kmod-notes/uroce-wire.md.
 */
#ifndef UROCE_WIRE_H
#define UROCE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ROCE_V2_UDP_DPORT (include/rdma/ib_verbs.h) */
#define UROCE_UDP_PORT 4791

/* Header sizes (IBTA vol 1 ch. 9; rxe_hdr.h's enum rxe_hdr_length). */
enum {
	UROCE_BTH_BYTES = 12,
	UROCE_RETH_BYTES = 16,
	UROCE_AETH_BYTES = 4,
	UROCE_ATMETH_BYTES = 28,
	UROCE_ATMACK_BYTES = 8,
	UROCE_DETH_BYTES = 8,
	UROCE_IMMDT_BYTES = 4,
	UROCE_IETH_BYTES = 4,
	UROCE_FETH_BYTES = 4,
	UROCE_ICRC_BYTES = 4,
	/* the longest header set: BTH + AtomicETH (CMP&SWAP, FETCH&ADD) */
	UROCE_MAX_HDR_BYTES = 40,
	/* the largest IB MTU: no packet carries more payload */
	UROCE_MAX_PAYLOAD = 4096,
	UROCE_IP4_BYTES = 20,
	UROCE_IP6_BYTES = 40,
	UROCE_UDP_BYTES = 8,
};

/* BTH constants (rxe_hdr.h) */
#define UROCE_BTH_TVER 0
#define UROCE_DEF_PKEY 0xffff
#define UROCE_QPN_MASK 0x00ffffffu
#define UROCE_PSN_MASK 0x00ffffffu
#define UROCE_MULTICAST_QPN 0x00ffffffu

/* Extension headers, one bit each. The order of the enum is the order in
 * which they follow the BTH in every opcode rxe knows. */
enum uroce_hdr {
	UROCE_HDR_DETH = 1u << 0,
	UROCE_HDR_FETH = 1u << 1,
	UROCE_HDR_RETH = 1u << 2,
	UROCE_HDR_AETH = 1u << 3,
	UROCE_HDR_ATMACK = 1u << 4,
	UROCE_HDR_ATMETH = 1u << 5,
	UROCE_HDR_IMMDT = 1u << 6,
	UROCE_HDR_IETH = 1u << 7,
};

/* What an opcode is (rxe_opcode.h's RXE_*_MASK, renamed). */
enum uroce_opf {
	UROCE_OPF_PAYLOAD = 1u << 0, /* may carry payload */
	UROCE_OPF_REQ = 1u << 1,     /* a request (to the responder) */
	UROCE_OPF_ACK = 1u << 2,     /* a response (to the requester) */
	UROCE_OPF_FIRST = 1u << 3,   /* starts a message */
	UROCE_OPF_MIDDLE = 1u << 4,
	UROCE_OPF_LAST = 1u << 5,    /* ends a message (ONLY: FIRST|LAST) */
	UROCE_OPF_SEND = 1u << 6,
	UROCE_OPF_WRITE = 1u << 7,
	UROCE_OPF_READ = 1u << 8,
	UROCE_OPF_ATOMIC = 1u << 9,
	UROCE_OPF_ATOMIC_WRITE = 1u << 10,
	UROCE_OPF_FLUSH = 1u << 11,
	UROCE_OPF_COMP = 1u << 12,   /* completes a receive WQE */
	UROCE_OPF_RWR = 1u << 13,    /* consumes a receive WQE */
};

enum uroce_qpt {
	UROCE_QPT_RC = 0x00, /* the opcode's top three bits (IB_OPCODE_RC) */
	UROCE_QPT_UC = 0x20,
	UROCE_QPT_UD = 0x60,
};

/* X-macro: every opcode rxe's table (rxe_opcode.c) has for RC, UC and UD,
 * with its extension headers and flags. RD (0x40-0x5f) is left out: rxe
 * has no RD QPs and drops them in check_type_state. */
#define UROCE_F_SEND_FIRST (UROCE_OPF_PAYLOAD | UROCE_OPF_REQ | UROCE_OPF_RWR | UROCE_OPF_SEND | UROCE_OPF_FIRST)
#define UROCE_F_SEND_MIDDLE (UROCE_OPF_PAYLOAD | UROCE_OPF_REQ | UROCE_OPF_SEND | UROCE_OPF_MIDDLE)
#define UROCE_F_SEND_LAST (UROCE_OPF_PAYLOAD | UROCE_OPF_REQ | UROCE_OPF_COMP | UROCE_OPF_SEND | UROCE_OPF_LAST)
#define UROCE_F_SEND_ONLY (UROCE_F_SEND_LAST | UROCE_OPF_RWR | UROCE_OPF_FIRST)
#define UROCE_F_WRITE_FIRST (UROCE_OPF_PAYLOAD | UROCE_OPF_REQ | UROCE_OPF_WRITE | UROCE_OPF_FIRST)
#define UROCE_F_WRITE_MIDDLE (UROCE_OPF_PAYLOAD | UROCE_OPF_REQ | UROCE_OPF_WRITE | UROCE_OPF_MIDDLE)
#define UROCE_F_WRITE_LAST (UROCE_OPF_PAYLOAD | UROCE_OPF_REQ | UROCE_OPF_WRITE | UROCE_OPF_LAST)
#define UROCE_F_WRITE_LAST_IMM (UROCE_F_WRITE_LAST | UROCE_OPF_COMP | UROCE_OPF_RWR)
#define UROCE_F_WRITE_ONLY (UROCE_F_WRITE_LAST | UROCE_OPF_FIRST)
#define UROCE_F_WRITE_ONLY_IMM (UROCE_F_WRITE_LAST_IMM | UROCE_OPF_FIRST)
#define UROCE_F_READ_RESP(pos) (UROCE_OPF_PAYLOAD | UROCE_OPF_ACK | (pos))
#define UROCE_F_ONE (UROCE_OPF_FIRST | UROCE_OPF_LAST)

#define UROCE_OPCODES(X) \
	X(RC_SEND_FIRST, 0x00, 0, UROCE_F_SEND_FIRST) \
	X(RC_SEND_MIDDLE, 0x01, 0, UROCE_F_SEND_MIDDLE) \
	X(RC_SEND_LAST, 0x02, 0, UROCE_F_SEND_LAST) \
	X(RC_SEND_LAST_WITH_IMMEDIATE, 0x03, UROCE_HDR_IMMDT, UROCE_F_SEND_LAST) \
	X(RC_SEND_ONLY, 0x04, 0, UROCE_F_SEND_ONLY) \
	X(RC_SEND_ONLY_WITH_IMMEDIATE, 0x05, UROCE_HDR_IMMDT, UROCE_F_SEND_ONLY) \
	X(RC_RDMA_WRITE_FIRST, 0x06, UROCE_HDR_RETH, UROCE_F_WRITE_FIRST) \
	X(RC_RDMA_WRITE_MIDDLE, 0x07, 0, UROCE_F_WRITE_MIDDLE) \
	X(RC_RDMA_WRITE_LAST, 0x08, 0, UROCE_F_WRITE_LAST) \
	X(RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x09, UROCE_HDR_IMMDT, UROCE_F_WRITE_LAST_IMM) \
	X(RC_RDMA_WRITE_ONLY, 0x0a, UROCE_HDR_RETH, UROCE_F_WRITE_ONLY) \
	X(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x0b, UROCE_HDR_RETH | UROCE_HDR_IMMDT, UROCE_F_WRITE_ONLY_IMM) \
	X(RC_RDMA_READ_REQUEST, 0x0c, UROCE_HDR_RETH, UROCE_OPF_REQ | UROCE_OPF_READ | UROCE_F_ONE) \
	X(RC_RDMA_READ_RESPONSE_FIRST, 0x0d, UROCE_HDR_AETH, UROCE_F_READ_RESP(UROCE_OPF_FIRST)) \
	X(RC_RDMA_READ_RESPONSE_MIDDLE, 0x0e, 0, UROCE_F_READ_RESP(UROCE_OPF_MIDDLE)) \
	X(RC_RDMA_READ_RESPONSE_LAST, 0x0f, UROCE_HDR_AETH, UROCE_F_READ_RESP(UROCE_OPF_LAST)) \
	X(RC_RDMA_READ_RESPONSE_ONLY, 0x10, UROCE_HDR_AETH, UROCE_F_READ_RESP(UROCE_F_ONE)) \
	X(RC_ACKNOWLEDGE, 0x11, UROCE_HDR_AETH, UROCE_OPF_ACK | UROCE_F_ONE) \
	X(RC_ATOMIC_ACKNOWLEDGE, 0x12, UROCE_HDR_AETH | UROCE_HDR_ATMACK, UROCE_OPF_ACK | UROCE_F_ONE) \
	X(RC_COMPARE_SWAP, 0x13, UROCE_HDR_ATMETH, UROCE_OPF_REQ | UROCE_OPF_ATOMIC | UROCE_F_ONE) \
	X(RC_FETCH_ADD, 0x14, UROCE_HDR_ATMETH, UROCE_OPF_REQ | UROCE_OPF_ATOMIC | UROCE_F_ONE) \
	X(RC_SEND_LAST_WITH_INVALIDATE, 0x16, UROCE_HDR_IETH, UROCE_F_SEND_LAST) \
	X(RC_SEND_ONLY_WITH_INVALIDATE, 0x17, UROCE_HDR_IETH, UROCE_F_SEND_ONLY) \
	X(RC_FLUSH, 0x1c, UROCE_HDR_FETH | UROCE_HDR_RETH, UROCE_OPF_REQ | UROCE_OPF_FLUSH | UROCE_F_ONE) \
	X(RC_ATOMIC_WRITE, 0x1d, UROCE_HDR_RETH, UROCE_OPF_PAYLOAD | UROCE_OPF_REQ | UROCE_OPF_ATOMIC_WRITE | UROCE_F_ONE) \
	X(UC_SEND_FIRST, 0x20, 0, UROCE_F_SEND_FIRST) \
	X(UC_SEND_MIDDLE, 0x21, 0, UROCE_F_SEND_MIDDLE) \
	X(UC_SEND_LAST, 0x22, 0, UROCE_F_SEND_LAST) \
	X(UC_SEND_LAST_WITH_IMMEDIATE, 0x23, UROCE_HDR_IMMDT, UROCE_F_SEND_LAST) \
	X(UC_SEND_ONLY, 0x24, 0, UROCE_F_SEND_ONLY) \
	X(UC_SEND_ONLY_WITH_IMMEDIATE, 0x25, UROCE_HDR_IMMDT, UROCE_F_SEND_ONLY) \
	X(UC_RDMA_WRITE_FIRST, 0x26, UROCE_HDR_RETH, UROCE_F_WRITE_FIRST) \
	X(UC_RDMA_WRITE_MIDDLE, 0x27, 0, UROCE_F_WRITE_MIDDLE) \
	X(UC_RDMA_WRITE_LAST, 0x28, 0, UROCE_F_WRITE_LAST) \
	X(UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x29, UROCE_HDR_IMMDT, UROCE_F_WRITE_LAST_IMM) \
	X(UC_RDMA_WRITE_ONLY, 0x2a, UROCE_HDR_RETH, UROCE_F_WRITE_ONLY) \
	X(UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x2b, UROCE_HDR_RETH | UROCE_HDR_IMMDT, UROCE_F_WRITE_ONLY_IMM) \
	X(UD_SEND_ONLY, 0x64, UROCE_HDR_DETH, UROCE_F_SEND_ONLY) \
	X(UD_SEND_ONLY_WITH_IMMEDIATE, 0x65, UROCE_HDR_DETH | UROCE_HDR_IMMDT, UROCE_F_SEND_ONLY)

enum uroce_opcode {
#define UROCE_OPCODE_ENUM(name, val, hdrs, flags) UROCE_OP_##name = (val),
	UROCE_OPCODES(UROCE_OPCODE_ENUM)
#undef UROCE_OPCODE_ENUM
};

struct uroce_opcode_info {
	const char *name;  /* NULL: not an opcode rxe speaks */
	uint32_t hdrs;     /* enum uroce_hdr bits */
	uint32_t flags;    /* enum uroce_opf bits */
	uint8_t hdr_len;   /* BTH and every extension header */
	uint8_t qpt;       /* enum uroce_qpt */
};

/* The table entry of an opcode, or NULL when rxe does not speak it. */
const struct uroce_opcode_info *uroce_opcode_info(uint8_t opcode);
/* Offset of one extension header (one bit of enum uroce_hdr) from the
 * start of the BTH, or 0 when the opcode does not carry it. */
unsigned int uroce_hdr_offset(uint8_t opcode, uint32_t hdr);

/* ---- the headers, decoded (host byte order) ---- */

struct uroce_bth {
	uint8_t opcode;
	bool se, mig;
	uint8_t pad;       /* 0..3 */
	uint8_t tver;      /* 0..15 */
	uint16_t pkey;
	bool fecn, becn;
	uint8_t resv6a;    /* kept so that decode/encode is the identity */
	uint32_t dest_qpn; /* 24 bits */
	bool ack_req;
	uint8_t resv7;
	uint32_t psn;      /* 24 bits */
};

struct uroce_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t len;
};

/* AETH syndromes (rxe_hdr.h's enum aeth_syndrome) */
enum {
	UROCE_AETH_TYPE_MASK = 0xe0,
	UROCE_AETH_ACK = 0x00,
	UROCE_AETH_RNR_NAK = 0x20,
	UROCE_AETH_RSVD = 0x40,
	UROCE_AETH_NAK = 0x60,
	UROCE_AETH_ACK_UNLIMITED = 0x1f,
	UROCE_AETH_NAK_PSN_SEQ_ERROR = 0x60,
	UROCE_AETH_NAK_INVALID_REQ = 0x61,
	UROCE_AETH_NAK_REM_ACC_ERR = 0x62,
	UROCE_AETH_NAK_REM_OP_ERR = 0x63,
};

struct uroce_aeth {
	uint8_t syndrome;
	uint32_t msn; /* 24 bits */
};

struct uroce_atmeth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t comp;
};

struct uroce_deth {
	uint32_t qkey;
	uint8_t resv8;
	uint32_t src_qpn; /* 24 bits */
};

/* FLUSH extended transport header (rxe_hdr.h's struct rxe_feth) */
struct uroce_feth {
	uint32_t resv;  /* bits 31-6, kept for the identity */
	uint8_t sel;    /* bits 5-4: selectivity level */
	uint8_t plt;    /* bits 3-0: placement type */
};

void uroce_bth_decode(const uint8_t *p, struct uroce_bth *bth);
void uroce_bth_encode(uint8_t *p, const struct uroce_bth *bth);
void uroce_reth_decode(const uint8_t *p, struct uroce_reth *reth);
void uroce_reth_encode(uint8_t *p, const struct uroce_reth *reth);
void uroce_aeth_decode(const uint8_t *p, struct uroce_aeth *aeth);
void uroce_aeth_encode(uint8_t *p, const struct uroce_aeth *aeth);
void uroce_atmeth_decode(const uint8_t *p, struct uroce_atmeth *a);
void uroce_atmeth_encode(uint8_t *p, const struct uroce_atmeth *a);
void uroce_deth_decode(const uint8_t *p, struct uroce_deth *deth);
void uroce_deth_encode(uint8_t *p, const struct uroce_deth *deth);
void uroce_feth_decode(const uint8_t *p, struct uroce_feth *feth);
void uroce_feth_encode(uint8_t *p, const struct uroce_feth *feth);
/* AtomicAckETH, ImmDt and IETH are one big-endian word each: */
uint64_t uroce_atmack_decode(const uint8_t *p);
void uroce_atmack_encode(uint8_t *p, uint64_t orig);
uint32_t uroce_be32_decode(const uint8_t *p);
void uroce_be32_encode(uint8_t *p, uint32_t v);

/* ---- a packet ---- */

struct uroce_pkt {
	struct uroce_bth bth;
	uint32_t hdrs;             /* which members below are valid */
	struct uroce_reth reth;
	struct uroce_aeth aeth;
	struct uroce_atmeth atmeth;
	uint64_t atmack_orig;
	struct uroce_deth deth;
	uint32_t imm;              /* ImmDt as a big-endian word, host order */
	uint32_t ieth_rkey;
	struct uroce_feth feth;
	const uint8_t *payload;    /* into the parsed buffer; NULL when built */
	uint32_t payload_len;      /* without pad */
	uint16_t hdr_len;          /* BTH and extension headers */
	uint16_t pkt_len;          /* everything, ICRC included */
	uint8_t qpt;               /* enum uroce_qpt, from the opcode */
	uint32_t flags;            /* enum uroce_opf, from the opcode */
};

/* Why a packet was dropped: an index into a counter array. */
#define UROCE_DROPS(X) \
	X(OK, "accepted") \
	X(SHORT, "shorter than a BTH") \
	X(OPCODE, "opcode rxe does not speak") \
	X(TRUNCATED, "shorter than its headers and ICRC") \
	X(TOO_LONG, "longer than the largest MTU's packet") \
	X(ALIGN, "length not a multiple of 4") \
	X(TVER, "transport version not 0") \
	X(PKEY, "P_Key does not match 0xffff") \
	X(QPN, "destination QP 0") \
	X(PAD, "pad count the opcode cannot have") \
	X(PAYLOAD_LEN, "payload length the opcode cannot have") \
	X(QP_TYPE, "opcode of another QP type") \
	X(ICRC, "ICRC mismatch")

enum uroce_drop {
#define UROCE_DROP_ENUM(name, text) UROCE_DROP_##name,
	UROCE_DROPS(UROCE_DROP_ENUM)
#undef UROCE_DROP_ENUM
	UROCE_DROP_COUNT
};

const char *uroce_drop_name(enum uroce_drop drop);

/* Parse a UDP payload of len bytes (BTH to ICRC). Reads nothing past
 * buf + len. On UROCE_DROP_OK fills *out (out->payload points into buf);
 * the ICRC is not checked here (it needs the IP and UDP headers: see
 * uroce_icrc_check). The QP type is checked by uroce_check_qpt once the
 * destination QP is known. */
enum uroce_drop uroce_parse(const uint8_t *buf, size_t len,
			    struct uroce_pkt *out);
/* UROCE_DROP_QP_TYPE unless the opcode belongs to a QP of type qpt. */
enum uroce_drop uroce_check_qpt(const struct uroce_pkt *pkt,
				enum uroce_qpt qpt);

/* The packet length for an opcode and payload: headers, payload, pad to 4,
 * ICRC; 0 when the opcode is unknown or the payload cannot be carried. */
size_t uroce_pkt_len(uint8_t opcode, size_t payload_len);
/* Write pkt's BTH (its pad count from payload_len) and the opcode's
 * extension headers into buf. Returns the header length, or -EINVAL for an
 * unknown opcode or a payload it cannot carry, -ENOSPC when cap is short. */
int uroce_build_hdrs(uint8_t *buf, size_t cap, const struct uroce_pkt *pkt,
		     size_t payload_len);
/* Headers, payload, zero pad and a zero ICRC (filled by uroce_icrc_fill).
 * Returns the packet length or a negative errno as uroce_build_hdrs. */
int uroce_build(uint8_t *buf, size_t cap, const struct uroce_pkt *pkt,
		const void *payload, size_t payload_len);

/* ---- ICRC ---- */

/* The IP and UDP fields the ICRC covers (the rest is masked): addresses in
 * network order; for IPv4 the identification and the flags/fragment word
 * (DF: 0x4000) the sender put in the header. */
struct uroce_ipudp {
	bool ipv6;
	uint8_t saddr[16]; /* IPv4: the first 4 bytes */
	uint8_t daddr[16];
	uint16_t ip4_id;
	uint16_t ip4_frag_off;
	uint16_t sport, dport;
};

/* CRC-32 (reflected, poly 0xedb88320) continued from crc, without a final
 * inversion: the kernel's crc32_le(). */
uint32_t uroce_crc32_le(uint32_t crc, const uint8_t *p, size_t len);
/* The ICRC of a packet of len bytes (BTH to ICRC inclusive; the last four
 * bytes are not read) sent with the IP/UDP fields net; 0 when len is
 * shorter than a BTH and an ICRC. */
uint32_t uroce_icrc(const struct uroce_ipudp *net, const uint8_t *pkt,
		    size_t len);
/* Store the ICRC in the packet's last four bytes (nothing when len is
 * shorter than a BTH and an ICRC). */
void uroce_icrc_fill(const struct uroce_ipudp *net, uint8_t *pkt, size_t len);
/* UROCE_DROP_ICRC unless the packet's last four bytes are its ICRC. */
enum uroce_drop uroce_icrc_check(const struct uroce_ipudp *net,
				 const uint8_t *pkt, size_t len);
/* The same for an IPv4 packet whose IP identification is not known (a UDP
 * socket does not show it; rxe sends non-zero ones): UROCE_DROP_OK when
 * the ICRC holds for some ID, which goes to *ip4_id. net->ip4_id is not
 * read. A damaged packet passes with probability 2^-16. */
enum uroce_drop uroce_icrc_check_ip4(const struct uroce_ipudp *net,
				     const uint8_t *pkt, size_t len,
				     uint16_t *ip4_id);

#endif
