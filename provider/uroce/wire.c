/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * provider/uroce/wire.c -- RoCE v2 headers, opcode table, parser, builder
 * and ICRC, wire-compatible with the kernel's rxe. Packets from the network
 * are untrusted: every read is bounded by the length checked first, and
 * fields are loaded byte by byte (no struct overlay, no alignment needs).
 * The kernel facts behind each rule: kmod-notes/uroce-wire.md.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "wire.h"

/* ---- byte order ---- */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

uint32_t uroce_be32_decode(const uint8_t *p)
{
	return get32(p);
}

void uroce_be32_encode(uint8_t *p, uint32_t v)
{
	put32(p, v);
}

/* ---- the opcode table ---- */

/* Extension headers in wire order, with their sizes. */
static const struct {
	uint32_t hdr;
	uint8_t bytes;
} hdr_order[] = {
	{ UROCE_HDR_DETH, UROCE_DETH_BYTES },
	{ UROCE_HDR_FETH, UROCE_FETH_BYTES },
	{ UROCE_HDR_RETH, UROCE_RETH_BYTES },
	{ UROCE_HDR_AETH, UROCE_AETH_BYTES },
	{ UROCE_HDR_ATMACK, UROCE_ATMACK_BYTES },
	{ UROCE_HDR_ATMETH, UROCE_ATMETH_BYTES },
	{ UROCE_HDR_IMMDT, UROCE_IMMDT_BYTES },
	{ UROCE_HDR_IETH, UROCE_IETH_BYTES },
};

#define HDR_BYTES(h, bit, n) (((h) & (bit)) ? (n) : 0)
#define HDRS_LEN(h) (UROCE_BTH_BYTES + \
	HDR_BYTES(h, UROCE_HDR_DETH, UROCE_DETH_BYTES) + \
	HDR_BYTES(h, UROCE_HDR_FETH, UROCE_FETH_BYTES) + \
	HDR_BYTES(h, UROCE_HDR_RETH, UROCE_RETH_BYTES) + \
	HDR_BYTES(h, UROCE_HDR_AETH, UROCE_AETH_BYTES) + \
	HDR_BYTES(h, UROCE_HDR_ATMACK, UROCE_ATMACK_BYTES) + \
	HDR_BYTES(h, UROCE_HDR_ATMETH, UROCE_ATMETH_BYTES) + \
	HDR_BYTES(h, UROCE_HDR_IMMDT, UROCE_IMMDT_BYTES) + \
	HDR_BYTES(h, UROCE_HDR_IETH, UROCE_IETH_BYTES))

static const struct uroce_opcode_info opcode_table[256] = {
#define UROCE_OPCODE_ROW(name, val, hdrs, flags) \
	[val] = { #name, (hdrs), (flags), HDRS_LEN(hdrs), (val) & 0xe0 },
	UROCE_OPCODES(UROCE_OPCODE_ROW)
#undef UROCE_OPCODE_ROW
};

_Static_assert(HDRS_LEN(UROCE_HDR_ATMETH) == UROCE_MAX_HDR_BYTES,
	       "UROCE_MAX_HDR_BYTES is the AtomicETH request's");

const struct uroce_opcode_info *uroce_opcode_info(uint8_t opcode)
{
	const struct uroce_opcode_info *info = &opcode_table[opcode];

	return info->name ? info : NULL;
}

unsigned int uroce_hdr_offset(uint8_t opcode, uint32_t hdr)
{
	const struct uroce_opcode_info *info = uroce_opcode_info(opcode);
	unsigned int off = UROCE_BTH_BYTES;
	size_t i;

	if (!info || !(info->hdrs & hdr))
		return 0;
	for (i = 0; i < sizeof(hdr_order) / sizeof(hdr_order[0]); i++) {
		if (hdr_order[i].hdr == hdr)
			return off;
		if (info->hdrs & hdr_order[i].hdr)
			off += hdr_order[i].bytes;
	}
	return 0;
}

/* ---- headers ---- */

void uroce_bth_decode(const uint8_t *p, struct uroce_bth *bth)
{
	bth->opcode = p[0];
	bth->se = p[1] & 0x80;
	bth->mig = p[1] & 0x40;
	bth->pad = (p[1] >> 4) & 3;
	bth->tver = p[1] & 0x0f;
	bth->pkey = get16(p + 2);
	bth->fecn = p[4] & 0x80;
	bth->becn = p[4] & 0x40;
	bth->resv6a = p[4] & 0x3f;
	bth->dest_qpn = get32(p + 4) & UROCE_QPN_MASK;
	bth->ack_req = p[8] & 0x80;
	bth->resv7 = p[8] & 0x7f;
	bth->psn = get32(p + 8) & UROCE_PSN_MASK;
}

void uroce_bth_encode(uint8_t *p, const struct uroce_bth *bth)
{
	p[0] = bth->opcode;
	p[1] = (uint8_t)((bth->se ? 0x80 : 0) | (bth->mig ? 0x40 : 0) |
			 (bth->pad & 3) << 4 | (bth->tver & 0x0f));
	put16(p + 2, bth->pkey);
	put32(p + 4, bth->dest_qpn & UROCE_QPN_MASK);
	p[4] = (uint8_t)((bth->fecn ? 0x80 : 0) | (bth->becn ? 0x40 : 0) |
			 (bth->resv6a & 0x3f));
	put32(p + 8, bth->psn & UROCE_PSN_MASK);
	p[8] = (uint8_t)((bth->ack_req ? 0x80 : 0) | (bth->resv7 & 0x7f));
}

void uroce_reth_decode(const uint8_t *p, struct uroce_reth *reth)
{
	reth->va = get64(p);
	reth->rkey = get32(p + 8);
	reth->len = get32(p + 12);
}

void uroce_reth_encode(uint8_t *p, const struct uroce_reth *reth)
{
	put64(p, reth->va);
	put32(p + 8, reth->rkey);
	put32(p + 12, reth->len);
}

void uroce_aeth_decode(const uint8_t *p, struct uroce_aeth *aeth)
{
	aeth->syndrome = p[0];
	aeth->msn = get32(p) & 0x00ffffffu;
}

void uroce_aeth_encode(uint8_t *p, const struct uroce_aeth *aeth)
{
	put32(p, aeth->msn & 0x00ffffffu);
	p[0] = aeth->syndrome;
}

/* 28 bytes with no padding: va at 0, rkey at 8, swap/add at 12, compare
 * at 20 (rxe's struct rxe_atmeth is __packed). */
void uroce_atmeth_decode(const uint8_t *p, struct uroce_atmeth *a)
{
	a->va = get64(p);
	a->rkey = get32(p + 8);
	a->swap_add = get64(p + 12);
	a->comp = get64(p + 20);
}

void uroce_atmeth_encode(uint8_t *p, const struct uroce_atmeth *a)
{
	put64(p, a->va);
	put32(p + 8, a->rkey);
	put64(p + 12, a->swap_add);
	put64(p + 20, a->comp);
}

void uroce_deth_decode(const uint8_t *p, struct uroce_deth *deth)
{
	deth->qkey = get32(p);
	deth->resv8 = p[4];
	deth->src_qpn = get32(p + 4) & UROCE_QPN_MASK;
}

void uroce_deth_encode(uint8_t *p, const struct uroce_deth *deth)
{
	put32(p, deth->qkey);
	put32(p + 4, deth->src_qpn & UROCE_QPN_MASK);
	p[4] = deth->resv8;
}

void uroce_feth_decode(const uint8_t *p, struct uroce_feth *feth)
{
	uint32_t bits = get32(p);

	feth->resv = bits >> 6;
	feth->sel = (bits >> 4) & 3;
	feth->plt = bits & 0x0f;
}

void uroce_feth_encode(uint8_t *p, const struct uroce_feth *feth)
{
	put32(p, feth->resv << 6 | (uint32_t)(feth->sel & 3) << 4 |
		 (feth->plt & 0x0fu));
}

uint64_t uroce_atmack_decode(const uint8_t *p)
{
	return get64(p);
}

void uroce_atmack_encode(uint8_t *p, uint64_t orig)
{
	put64(p, orig);
}

/* ---- parser ---- */

const char *uroce_drop_name(enum uroce_drop drop)
{
	static const char *const names[] = {
#define UROCE_DROP_NAME(name, text) [UROCE_DROP_##name] = text,
		UROCE_DROPS(UROCE_DROP_NAME)
#undef UROCE_DROP_NAME
	};

	if ((unsigned int)drop >= UROCE_DROP_COUNT)
		return "unknown";
	return names[drop];
}

/* The kernel's pkey_match() against rxe's only P_Key, 0xffff: the low 15
 * bits equal and non-zero, one side a full member (0xffff is). */
static bool pkey_ok(uint16_t pkey)
{
	return (pkey & 0x7fff) == 0x7fff;
}

static void decode_ext(const uint8_t *buf, const struct uroce_opcode_info *info,
		       struct uroce_pkt *out)
{
	const uint8_t *p = buf + UROCE_BTH_BYTES;

	if (info->hdrs & UROCE_HDR_DETH) {
		uroce_deth_decode(p, &out->deth);
		p += UROCE_DETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_FETH) {
		uroce_feth_decode(p, &out->feth);
		p += UROCE_FETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_RETH) {
		uroce_reth_decode(p, &out->reth);
		p += UROCE_RETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_AETH) {
		uroce_aeth_decode(p, &out->aeth);
		p += UROCE_AETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_ATMACK) {
		out->atmack_orig = get64(p);
		p += UROCE_ATMACK_BYTES;
	}
	if (info->hdrs & UROCE_HDR_ATMETH) {
		uroce_atmeth_decode(p, &out->atmeth);
		p += UROCE_ATMETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_IMMDT) {
		out->imm = get32(p);
		p += UROCE_IMMDT_BYTES;
	}
	if (info->hdrs & UROCE_HDR_IETH)
		out->ieth_rkey = get32(p);
}

/* Payload and pad rules shared by the parser and the builder: payload only
 * where the opcode carries it, at most one MTU, exactly 8 bytes for ATOMIC
 * WRITE; pad only on a packet that ends a message (FIRST and MIDDLE carry
 * whole MTUs, multiples of 4). */
static enum uroce_drop check_payload(const struct uroce_opcode_info *info,
				     size_t payload_len, unsigned int pad)
{
	if (!(info->flags & UROCE_OPF_PAYLOAD)) {
		if (pad)
			return UROCE_DROP_PAD;
		if (payload_len)
			return UROCE_DROP_PAYLOAD_LEN;
		return UROCE_DROP_OK;
	}
	if (pad && !(info->flags & UROCE_OPF_LAST))
		return UROCE_DROP_PAD;
	if (payload_len > UROCE_MAX_PAYLOAD)
		return UROCE_DROP_PAYLOAD_LEN;
	if ((info->flags & UROCE_OPF_ATOMIC_WRITE) && payload_len != 8)
		return UROCE_DROP_PAYLOAD_LEN;
	return UROCE_DROP_OK;
}

enum uroce_drop uroce_parse(const uint8_t *buf, size_t len,
			    struct uroce_pkt *out)
{
	const struct uroce_opcode_info *info;
	struct uroce_bth bth;
	enum uroce_drop drop;
	size_t region;

	if (len < UROCE_BTH_BYTES)
		return UROCE_DROP_SHORT;
	uroce_bth_decode(buf, &bth);
	info = uroce_opcode_info(bth.opcode);
	if (!info)
		return UROCE_DROP_OPCODE;
	if (len < (size_t)info->hdr_len + UROCE_ICRC_BYTES)
		return UROCE_DROP_TRUNCATED;
	if (len > (size_t)info->hdr_len + UROCE_MAX_PAYLOAD + UROCE_ICRC_BYTES)
		return UROCE_DROP_TOO_LONG;
	if (len % 4)
		return UROCE_DROP_ALIGN;
	if (bth.tver != UROCE_BTH_TVER)
		return UROCE_DROP_TVER;
	if (!pkey_ok(bth.pkey))
		return UROCE_DROP_PKEY;
	if (bth.dest_qpn == 0)
		return UROCE_DROP_QPN;
	/* payload and pad, between the headers and the ICRC */
	region = len - info->hdr_len - UROCE_ICRC_BYTES;
	if (bth.pad > region)
		return UROCE_DROP_PAD;
	drop = check_payload(info, region - bth.pad, bth.pad);
	if (drop != UROCE_DROP_OK)
		return drop;

	memset(out, 0, sizeof(*out));
	out->bth = bth;
	out->hdrs = info->hdrs;
	decode_ext(buf, info, out);
	out->payload = buf + info->hdr_len;
	out->payload_len = (uint32_t)(region - bth.pad);
	out->hdr_len = info->hdr_len;
	out->pkt_len = (uint16_t)len;
	out->qpt = info->qpt;
	out->flags = info->flags;
	return UROCE_DROP_OK;
}

enum uroce_drop uroce_check_qpt(const struct uroce_pkt *pkt,
				enum uroce_qpt qpt)
{
	return pkt->qpt == qpt ? UROCE_DROP_OK : UROCE_DROP_QP_TYPE;
}

/* ---- builder ---- */

size_t uroce_pkt_len(uint8_t opcode, size_t payload_len)
{
	const struct uroce_opcode_info *info = uroce_opcode_info(opcode);
	size_t pad = (4 - (payload_len & 3)) & 3;

	if (!info || check_payload(info, payload_len, (unsigned int)pad) !=
		     UROCE_DROP_OK)
		return 0;
	return info->hdr_len + payload_len + pad + UROCE_ICRC_BYTES;
}

int uroce_build_hdrs(uint8_t *buf, size_t cap, const struct uroce_pkt *pkt,
		     size_t payload_len)
{
	const struct uroce_opcode_info *info =
		uroce_opcode_info(pkt->bth.opcode);
	struct uroce_bth bth = pkt->bth;
	uint8_t *p = buf + UROCE_BTH_BYTES;

	if (!info)
		return -EINVAL;
	bth.pad = (uint8_t)((4 - (payload_len & 3)) & 3);
	if (check_payload(info, payload_len, bth.pad) != UROCE_DROP_OK)
		return -EINVAL;
	if (cap < info->hdr_len)
		return -ENOSPC;

	uroce_bth_encode(buf, &bth);
	if (info->hdrs & UROCE_HDR_DETH) {
		uroce_deth_encode(p, &pkt->deth);
		p += UROCE_DETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_FETH) {
		uroce_feth_encode(p, &pkt->feth);
		p += UROCE_FETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_RETH) {
		uroce_reth_encode(p, &pkt->reth);
		p += UROCE_RETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_AETH) {
		uroce_aeth_encode(p, &pkt->aeth);
		p += UROCE_AETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_ATMACK) {
		put64(p, pkt->atmack_orig);
		p += UROCE_ATMACK_BYTES;
	}
	if (info->hdrs & UROCE_HDR_ATMETH) {
		uroce_atmeth_encode(p, &pkt->atmeth);
		p += UROCE_ATMETH_BYTES;
	}
	if (info->hdrs & UROCE_HDR_IMMDT) {
		put32(p, pkt->imm);
		p += UROCE_IMMDT_BYTES;
	}
	if (info->hdrs & UROCE_HDR_IETH)
		put32(p, pkt->ieth_rkey);
	return info->hdr_len;
}

int uroce_build(uint8_t *buf, size_t cap, const struct uroce_pkt *pkt,
		const void *payload, size_t payload_len)
{
	size_t len = uroce_pkt_len(pkt->bth.opcode, payload_len);
	int hdr_len;

	if (!len)
		return -EINVAL;
	if (cap < len)
		return -ENOSPC;
	hdr_len = uroce_build_hdrs(buf, cap, pkt, payload_len);
	if (hdr_len < 0)
		return hdr_len;
	/* memmove: the payload may already sit in buf, after the headers */
	if (payload_len)
		memmove(buf + hdr_len, payload, payload_len);
	/* the pad bytes and the ICRC's place */
	memset(buf + hdr_len + payload_len, 0,
	       len - (size_t)hdr_len - payload_len);
	return (int)len;
}

/* ---- ICRC ---- */

static const uint32_t crc32_table[256] = {
	0x00000000, 0x77073096, 0xee0e612c, 0x990951ba, 0x076dc419, 0x706af48f,
	0xe963a535, 0x9e6495a3, 0x0edb8832, 0x79dcb8a4, 0xe0d5e91e, 0x97d2d988,
	0x09b64c2b, 0x7eb17cbd, 0xe7b82d07, 0x90bf1d91, 0x1db71064, 0x6ab020f2,
	0xf3b97148, 0x84be41de, 0x1adad47d, 0x6ddde4eb, 0xf4d4b551, 0x83d385c7,
	0x136c9856, 0x646ba8c0, 0xfd62f97a, 0x8a65c9ec, 0x14015c4f, 0x63066cd9,
	0xfa0f3d63, 0x8d080df5, 0x3b6e20c8, 0x4c69105e, 0xd56041e4, 0xa2677172,
	0x3c03e4d1, 0x4b04d447, 0xd20d85fd, 0xa50ab56b, 0x35b5a8fa, 0x42b2986c,
	0xdbbbc9d6, 0xacbcf940, 0x32d86ce3, 0x45df5c75, 0xdcd60dcf, 0xabd13d59,
	0x26d930ac, 0x51de003a, 0xc8d75180, 0xbfd06116, 0x21b4f4b5, 0x56b3c423,
	0xcfba9599, 0xb8bda50f, 0x2802b89e, 0x5f058808, 0xc60cd9b2, 0xb10be924,
	0x2f6f7c87, 0x58684c11, 0xc1611dab, 0xb6662d3d, 0x76dc4190, 0x01db7106,
	0x98d220bc, 0xefd5102a, 0x71b18589, 0x06b6b51f, 0x9fbfe4a5, 0xe8b8d433,
	0x7807c9a2, 0x0f00f934, 0x9609a88e, 0xe10e9818, 0x7f6a0dbb, 0x086d3d2d,
	0x91646c97, 0xe6635c01, 0x6b6b51f4, 0x1c6c6162, 0x856530d8, 0xf262004e,
	0x6c0695ed, 0x1b01a57b, 0x8208f4c1, 0xf50fc457, 0x65b0d9c6, 0x12b7e950,
	0x8bbeb8ea, 0xfcb9887c, 0x62dd1ddf, 0x15da2d49, 0x8cd37cf3, 0xfbd44c65,
	0x4db26158, 0x3ab551ce, 0xa3bc0074, 0xd4bb30e2, 0x4adfa541, 0x3dd895d7,
	0xa4d1c46d, 0xd3d6f4fb, 0x4369e96a, 0x346ed9fc, 0xad678846, 0xda60b8d0,
	0x44042d73, 0x33031de5, 0xaa0a4c5f, 0xdd0d7cc9, 0x5005713c, 0x270241aa,
	0xbe0b1010, 0xc90c2086, 0x5768b525, 0x206f85b3, 0xb966d409, 0xce61e49f,
	0x5edef90e, 0x29d9c998, 0xb0d09822, 0xc7d7a8b4, 0x59b33d17, 0x2eb40d81,
	0xb7bd5c3b, 0xc0ba6cad, 0xedb88320, 0x9abfb3b6, 0x03b6e20c, 0x74b1d29a,
	0xead54739, 0x9dd277af, 0x04db2615, 0x73dc1683, 0xe3630b12, 0x94643b84,
	0x0d6d6a3e, 0x7a6a5aa8, 0xe40ecf0b, 0x9309ff9d, 0x0a00ae27, 0x7d079eb1,
	0xf00f9344, 0x8708a3d2, 0x1e01f268, 0x6906c2fe, 0xf762575d, 0x806567cb,
	0x196c3671, 0x6e6b06e7, 0xfed41b76, 0x89d32be0, 0x10da7a5a, 0x67dd4acc,
	0xf9b9df6f, 0x8ebeeff9, 0x17b7be43, 0x60b08ed5, 0xd6d6a3e8, 0xa1d1937e,
	0x38d8c2c4, 0x4fdff252, 0xd1bb67f1, 0xa6bc5767, 0x3fb506dd, 0x48b2364b,
	0xd80d2bda, 0xaf0a1b4c, 0x36034af6, 0x41047a60, 0xdf60efc3, 0xa867df55,
	0x316e8eef, 0x4669be79, 0xcb61b38c, 0xbc66831a, 0x256fd2a0, 0x5268e236,
	0xcc0c7795, 0xbb0b4703, 0x220216b9, 0x5505262f, 0xc5ba3bbe, 0xb2bd0b28,
	0x2bb45a92, 0x5cb36a04, 0xc2d7ffa7, 0xb5d0cf31, 0x2cd99e8b, 0x5bdeae1d,
	0x9b64c2b0, 0xec63f226, 0x756aa39c, 0x026d930a, 0x9c0906a9, 0xeb0e363f,
	0x72076785, 0x05005713, 0x95bf4a82, 0xe2b87a14, 0x7bb12bae, 0x0cb61b38,
	0x92d28e9b, 0xe5d5be0d, 0x7cdcefb7, 0x0bdbdf21, 0x86d3d2d4, 0xf1d4e242,
	0x68ddb3f8, 0x1fda836e, 0x81be16cd, 0xf6b9265b, 0x6fb077e1, 0x18b74777,
	0x88085ae6, 0xff0f6a70, 0x66063bca, 0x11010b5c, 0x8f659eff, 0xf862ae69,
	0x616bffd3, 0x166ccf45, 0xa00ae278, 0xd70dd2ee, 0x4e048354, 0x3903b3c2,
	0xa7672661, 0xd06016f7, 0x4969474d, 0x3e6e77db, 0xaed16a4a, 0xd9d65adc,
	0x40df0b66, 0x37d83bf0, 0xa9bcae53, 0xdebb9ec5, 0x47b2cf7f, 0x30b5ffe9,
	0xbdbdf21c, 0xcabac28a, 0x53b39330, 0x24b4a3a6, 0xbad03605, 0xcdd70693,
	0x54de5729, 0x23d967bf, 0xb3667a2e, 0xc4614ab8, 0x5d681b02, 0x2a6f2b94,
	0xb40bbe37, 0xc30c8ea1, 0x5a05df1b, 0x2d02ef8d,
};

/* Slicing by 8: slice[k][b] is the CRC of byte b followed by k zero
 * bytes (slice[0] is crc32_table), so 8 bytes take 8 lookups and no
 * chain of shifts between them. The same CRC as the byte loop, about
 * five times faster; the ICRC pass over every payload was 40% of a
 * uroce ib_write_bw's time on the byte loop. Built once. */
static uint32_t slice[8][256];
static pthread_once_t slice_once = PTHREAD_ONCE_INIT;

static void slice_init(void)
{
	for (int b = 0; b < 256; b++) {
		slice[0][b] = crc32_table[b];
		for (int k = 1; k < 8; k++)
			slice[k][b] = (slice[k - 1][b] >> 8) ^
				      crc32_table[slice[k - 1][b] & 0xff];
	}
}

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t crc32_slices(uint32_t crc, const uint8_t *p, size_t len);

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_CRC32_CLMUL 1

/* Folding with carry-less multiplication (PCLMULQDQ), the technique of
 * Intel's white paper "Fast CRC Computation for Generic Polynomials
 * Using PCLMULQDQ Instruction" (Gopal et al., 2009) for the reflected
 * polynomial 0xedb88320. Four 128-bit lanes fold 64 bytes ahead at a time
 * (x^(512+32) and x^(512-32) mod P, bit-reflected), then into one lane
 * (x^(128+32), x^(128-32)), 16 bytes at a time, then 128 to 64 to 32 bits
 * (x^64 mod P) and a Barrett reduction (P and floor(x^64 / P)). The
 * constants are those the paper's method gives for this polynomial (the
 * same as zlib's and the kernel's). len is a multiple of 16, at least
 * 64; crc as uroce_crc32_le's. About ten times faster than the slices:
 * the ICRC pass, twice per packet (sent, received), was the largest
 * single cost of a uroce ib_write_bw (22% of the sender's time with the
 * slices). */
static inline __attribute__((target("pclmul,sse4.1"))) __m128i
fold16(__m128i x, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
					   _mm_clmulepi64_si128(x, k, 0x11)),
			     next);
}

static __attribute__((target("pclmul,sse4.1"))) uint32_t
crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i k_64 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
	const __m128i k_16 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
	const __m128i k_32 = _mm_set_epi64x(0, 0x163cd6124);
	const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641);
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	const __m128i *q = (const __m128i *)(const void *)p;
	__m128i x0, x1, x2, x3, t;

	x0 = _mm_xor_si128(_mm_loadu_si128(q), _mm_cvtsi32_si128((int)crc));
	x1 = _mm_loadu_si128(q + 1);
	x2 = _mm_loadu_si128(q + 2);
	x3 = _mm_loadu_si128(q + 3);
	for (q += 4, len -= 64; len >= 64; q += 4, len -= 64) {
		x0 = fold16(x0, k_64, _mm_loadu_si128(q));
		x1 = fold16(x1, k_64, _mm_loadu_si128(q + 1));
		x2 = fold16(x2, k_64, _mm_loadu_si128(q + 2));
		x3 = fold16(x3, k_64, _mm_loadu_si128(q + 3));
	}
	x0 = fold16(x0, k_16, x1);
	x0 = fold16(x0, k_16, x2);
	x0 = fold16(x0, k_16, x3);
	for (; len >= 16; q++, len -= 16)
		x0 = fold16(x0, k_16, _mm_loadu_si128(q));
	/* 128 bits to 64: the low half times x^(128-32), onto the high */
	t = _mm_clmulepi64_si128(k_16, x0, 0x01);
	x0 = _mm_xor_si128(_mm_srli_si128(x0, 8), t);
	/* 64 to 32 */
	t = _mm_srli_si128(x0, 4);
	x0 = _mm_clmulepi64_si128(_mm_and_si128(x0, low32), k_32, 0x00);
	x0 = _mm_xor_si128(x0, t);
	/* Barrett: q = low32 * floor(x^64 / P), then x ^ (low32(q) * P) */
	t = x0;
	x0 = _mm_clmulepi64_si128(_mm_and_si128(x0, low32), barrett, 0x10);
	x0 = _mm_clmulepi64_si128(_mm_and_si128(x0, low32), barrett, 0x00);
	x0 = _mm_xor_si128(x0, t);
	return (uint32_t)_mm_extract_epi32(x0, 1);
}

static uint64_t clock_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The faster of the two on this CPU, timed once over a packet's worth:
 * where the instruction is emulated (QEMU's TCG runs PCLMULQDQ as a
 * loop over the bits, which made uroce's ib_write_bw three times slower
 * in the test VM than with the slices), the slices win. */
static bool clmul_ok;
static pthread_once_t clmul_once = PTHREAD_ONCE_INIT;

static void clmul_choose(void)
{
	static uint8_t probe[4096];
	uint64_t t_clmul = UINT64_MAX, t_slices = UINT64_MAX;
	volatile uint32_t sink = 0;

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("sse4.1"))
		return;
	for (size_t i = 0; i < sizeof(probe); i++)
		probe[i] = (uint8_t)(i * 131 + 7);
	for (int round = 0; round < 3; round++) {
		uint64_t t0 = clock_ns(), t1, t2;

		sink ^= crc32_clmul(~0u, probe, sizeof(probe));
		t1 = clock_ns();
		sink ^= crc32_slices(~0u, probe, sizeof(probe));
		t2 = clock_ns();
		if (t1 - t0 < t_clmul)
			t_clmul = t1 - t0;
		if (t2 - t1 < t_slices)
			t_slices = t2 - t1;
	}
	(void)sink;
	clmul_ok = t_clmul < t_slices;
}

static bool have_clmul(void)
{
	pthread_once(&clmul_once, clmul_choose);
	return clmul_ok;
}
#endif

uint32_t uroce_crc32_le(uint32_t crc, const uint8_t *p, size_t len)
{
#ifdef HAVE_CRC32_CLMUL
	if (len >= 64 && have_clmul()) {
		size_t n = len & ~(size_t)15;

		crc = crc32_clmul(crc, p, n);
		p += n;
		len -= n;
	}
#endif
	return crc32_slices(crc, p, len);
}

static uint32_t crc32_slices(uint32_t crc, const uint8_t *p, size_t len)
{
	if (len >= 16) {
		pthread_once(&slice_once, slice_init);
		for (; len >= 8; p += 8, len -= 8) {
			uint32_t a = load_le32(p) ^ crc, b = load_le32(p + 4);

			crc = slice[7][a & 0xff] ^ slice[6][(a >> 8) & 0xff] ^
			      slice[5][(a >> 16) & 0xff] ^ slice[4][a >> 24] ^
			      slice[3][b & 0xff] ^ slice[2][(b >> 8) & 0xff] ^
			      slice[1][(b >> 16) & 0xff] ^ slice[0][b >> 24];
		}
	}
	while (len--)
		crc = crc32_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/* rxe_icrc.c starts from crc32_le(~0) over 8 bytes of 0xff (the masked
 * LRH of an IB packet), which is this value. */
#define UROCE_ICRC_SEED 0xdebb20e3u

/*
 * The pseudo header rxe_icrc_hdr() hashes before the BTH: the IP header
 * (20 bytes, no options / 40 bytes) and the UDP header as sent, with
 * IPv4 TOS, TTL and header checksum, IPv6 traffic class, flow label and
 * hop limit, and the UDP checksum all set to ones. Lengths follow from the
 * UDP payload's length.
 */
static size_t icrc_pseudo(const struct uroce_ipudp *net, size_t len,
			  uint8_t *ph)
{
	size_t udp_len = UROCE_UDP_BYTES + len;
	uint8_t *udp;

	if (!net->ipv6) {
		ph[0] = 0x45;
		ph[1] = 0xff;                    /* TOS */
		put16(ph + 2, (uint16_t)(UROCE_IP4_BYTES + udp_len));
		put16(ph + 4, net->ip4_id);
		put16(ph + 6, net->ip4_frag_off);
		ph[8] = 0xff;                    /* TTL */
		ph[9] = 17;                      /* IPPROTO_UDP */
		ph[10] = ph[11] = 0xff;          /* header checksum */
		memcpy(ph + 12, net->saddr, 4);
		memcpy(ph + 16, net->daddr, 4);
		udp = ph + UROCE_IP4_BYTES;
	} else {
		ph[0] = 0x6f;                    /* version 6, class and */
		ph[1] = ph[2] = ph[3] = 0xff;    /* flow label masked */
		put16(ph + 4, (uint16_t)udp_len);
		ph[6] = 17;                      /* next header: UDP */
		ph[7] = 0xff;                    /* hop limit */
		memcpy(ph + 8, net->saddr, 16);
		memcpy(ph + 24, net->daddr, 16);
		udp = ph + UROCE_IP6_BYTES;
	}
	put16(udp, net->sport);
	put16(udp + 2, net->dport);
	put16(udp + 4, (uint16_t)udp_len);
	udp[6] = udp[7] = 0xff;                  /* UDP checksum */
	return (size_t)(udp + UROCE_UDP_BYTES - ph);
}

uint32_t uroce_icrc(const struct uroce_ipudp *net, const uint8_t *pkt,
		    size_t len)
{
	uint8_t ph[UROCE_IP6_BYTES + UROCE_UDP_BYTES + UROCE_BTH_BYTES];
	size_t n;
	uint32_t crc;

	if (len < UROCE_BTH_BYTES + UROCE_ICRC_BYTES)
		return 0;
	n = icrc_pseudo(net, len, ph);

	/* the BTH, its byte 4 (FECN, BECN, resv6a) set to ones: rxe ORs
	 * ~BTH_QPN_MASK into the qpn word */
	memcpy(ph + n, pkt, UROCE_BTH_BYTES);
	ph[n + 4] = 0xff;
	crc = uroce_crc32_le(UROCE_ICRC_SEED, ph, n + UROCE_BTH_BYTES);
	crc = uroce_crc32_le(crc, pkt + UROCE_BTH_BYTES,
			     len - UROCE_BTH_BYTES - UROCE_ICRC_BYTES);
	return ~crc;
}

/* rxe stores the inverted CRC as a CPU-order u32 (*icrcp = ~icrc): on the
 * little-endian hosts rxe runs on, the least significant byte first. */
void uroce_icrc_fill(const struct uroce_ipudp *net, uint8_t *pkt, size_t len)
{
	uint32_t icrc;
	uint8_t *p;

	if (len < UROCE_BTH_BYTES + UROCE_ICRC_BYTES)
		return;
	icrc = uroce_icrc(net, pkt, len);
	p = pkt + len - UROCE_ICRC_BYTES;
	p[0] = (uint8_t)icrc;
	p[1] = (uint8_t)(icrc >> 8);
	p[2] = (uint8_t)(icrc >> 16);
	p[3] = (uint8_t)(icrc >> 24);
}

enum uroce_drop uroce_icrc_check(const struct uroce_ipudp *net,
				 const uint8_t *pkt, size_t len)
{
	const uint8_t *p;
	uint32_t got;

	if (len < UROCE_BTH_BYTES + UROCE_ICRC_BYTES)
		return UROCE_DROP_ICRC;
	p = pkt + len - UROCE_ICRC_BYTES;
	got = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	      (uint32_t)p[3] << 24;
	return got == uroce_icrc(net, pkt, len) ? UROCE_DROP_OK :
						  UROCE_DROP_ICRC;
}

/*
 * Recovering the IPv4 identification a peer sent. A UDP socket does not
 * show the sender's IP header, and rxe's ICRC covers its ID, which rxe
 * takes from __ip_select_ident (not 0). The CRC register is linear over
 * GF(2): the ICRC with ID x is the ICRC with ID 0 XOR the register that
 * the two ID bytes alone leave, from a zero register, carried through the
 * zero bytes that follow them. So the difference between the received
 * ICRC and the one for ID 0 is carried back over those zero bytes (a CRC
 * step of a zero byte is undone through the top byte of the table's
 * entries, which are all different), and what remains must be the
 * register of two bytes from zero: 32 bits for 16 unknowns, so a damaged
 * packet still fails, except with probability 2^-16.
 */
static uint8_t crc_top_index[256]; /* i with crc32_table[i] >> 24 == top */
static pthread_once_t crc_top_once = PTHREAD_ONCE_INIT;

static void crc_top_init(void)
{
	for (unsigned int i = 0; i < 256; i++)
		crc_top_index[crc32_table[i] >> 24] = (uint8_t)i;
}

/* The register before one zero byte took it to s. */
static uint32_t crc_unstep_zero(uint32_t s)
{
	uint8_t i = crc_top_index[s >> 24];

	return (s ^ crc32_table[i]) << 8 | i;
}

enum uroce_drop uroce_icrc_check_ip4(const struct uroce_ipudp *net,
				     const uint8_t *pkt, size_t len,
				     uint16_t *ip4_id)
{
	struct uroce_ipudp zero = *net;
	const uint8_t *p;
	uint32_t diff, x;
	uint8_t hi, lo, i2;

	if (net->ipv6 || len < UROCE_BTH_BYTES + UROCE_ICRC_BYTES)
		return UROCE_DROP_ICRC;
	pthread_once(&crc_top_once, crc_top_init);
	zero.ip4_id = 0;
	p = pkt + len - UROCE_ICRC_BYTES;
	diff = ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24) ^ uroce_icrc(&zero, pkt, len);
	if (!diff) {
		*ip4_id = 0;
		return UROCE_DROP_OK;
	}
	/* after the ID (bytes 4-5 of the pseudo header): the rest of it, the
	 * BTH and the packet up to its ICRC */
	for (size_t n = UROCE_IP4_BYTES + UROCE_UDP_BYTES - 6 + len -
			UROCE_ICRC_BYTES; n; n--)
		diff = crc_unstep_zero(diff);
	/* diff = T[(T[hi] ^ lo) & 0xff] ^ T[hi] >> 8 */
	i2 = crc_top_index[diff >> 24];
	x = diff ^ crc32_table[i2];          /* T[hi] >> 8 */
	hi = crc_top_index[(x >> 16) & 0xff];
	if (crc32_table[hi] >> 8 != x)
		return UROCE_DROP_ICRC;
	lo = (uint8_t)(i2 ^ crc32_table[hi]);
	*ip4_id = (uint16_t)(hi << 8 | lo);
	return UROCE_DROP_OK;
}
