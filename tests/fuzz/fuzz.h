/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/fuzz/fuzz.h -- what the libFuzzer targets share: the input as a
 * stream that runs dry into zeros. */
#ifndef SV_FUZZ_H
#define SV_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fuzz_in {
	const uint8_t *p;
	size_t left;
};

static inline void fuzz_take(struct fuzz_in *in, void *dst, size_t n)
{
	size_t k = n < in->left ? n : in->left;

	memcpy(dst, in->p, k);
	memset((uint8_t *)dst + k, 0, n - k);
	in->p += k;
	in->left -= k;
}

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	uint8_t v;

	fuzz_take(in, &v, 1);
	return v;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t v;

	fuzz_take(in, &v, 2);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
