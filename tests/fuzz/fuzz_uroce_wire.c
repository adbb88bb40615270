/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/fuzz/fuzz_uroce_wire.c -- uroce's RoCE v2 parser
 * (provider/uroce/wire.c) fed any bytes as a UDP payload, in a heap buffer
 * of exactly that size: it never reads past the end, and whatever it
 * accepts lies inside the buffer and encodes back to the same bytes
 * (reserved bits included) with the same ICRC; a packet one byte-flip
 * away from a good ICRC never passes the check. The first input byte picks
 * IPv4 or IPv6 for the ICRC's pseudo header. */
#include "config.h"

#include <stdlib.h>

#include "wire.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uroce_ipudp net = {
		.saddr = { 10, 0, 0, 1 }, .daddr = { 10, 0, 0, 2 },
		.ip4_frag_off = 0x4000, .sport = 0xc000,
		.dport = UROCE_UDP_PORT,
	};
	uint8_t *buf, *again;
	struct uroce_pkt pkt;
	size_t len;
	int n;

	if (size < 1)
		return 0;
	net.ipv6 = data[0] & 1;
	len = size - 1;
	buf = malloc(len ? len : 1);
	again = malloc(len ? len : 1);
	if (!buf || !again)
		abort();
	memcpy(buf, data + 1, len);

	if (uroce_parse(buf, len, &pkt) == UROCE_DROP_OK) {
		if (pkt.pkt_len != len || pkt.payload < buf ||
		    pkt.payload + pkt.payload_len + pkt.bth.pad +
		    UROCE_ICRC_BYTES != buf + len)
			abort();
		if (uroce_pkt_len(pkt.bth.opcode, pkt.payload_len) != len)
			abort();
		n = uroce_build(again, len, &pkt, pkt.payload, pkt.payload_len);
		if (n != (int)len)
			abort();
		/* the same bytes but the pad (the builder writes zeros) and
		 * the ICRC (the builder leaves it to uroce_icrc_fill) */
		if (memcmp(again, buf, len - pkt.bth.pad - UROCE_ICRC_BYTES))
			abort();
		memcpy(again + len - pkt.bth.pad - UROCE_ICRC_BYTES,
		       buf + len - pkt.bth.pad - UROCE_ICRC_BYTES,
		       pkt.bth.pad);
		uroce_icrc_fill(&net, again, len);
		if (uroce_icrc_check(&net, again, len) != UROCE_DROP_OK)
			abort();
		if ((uroce_icrc_check(&net, buf, len) == UROCE_DROP_OK) !=
		    !memcmp(again, buf, len))
			abort();
		/* any one flipped byte outside BTH byte 4 breaks the ICRC */
		again[data[0] % (len - UROCE_ICRC_BYTES) == 4 ? 5 :
		      data[0] % (len - UROCE_ICRC_BYTES)] ^= 0x01;
		if (uroce_icrc_check(&net, again, len) != UROCE_DROP_ICRC)
			abort();
	}
	free(buf);
	free(again);
	return 0;
}
