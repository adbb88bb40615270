/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The kernel-structure converters librdmacm calls
 * (ibv_copy_{qp_attr,ah_attr,path_rec}_from_kern, ibv_copy_path_rec_to_kern),
 * compared byte for byte with the system library's on patterned input:
 * both write into a destination prefilled the same way, so fields a
 * converter must leave alone are checked too.
 *
 * softverbs' functions come from the convenience library (hidden
 * symbols); rdma-core's from the system library opened RTLD_LOCAL. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

#include "../check_main.h"

#define SYSTEM_LIB_DEFAULT "/usr/lib/x86_64-linux-gnu/libibverbs.so.1"
#define SKIP 77

static void *system_lib;

static void *system_fn(const char *name, void *ours)
{
	void *fn = dlsym(system_lib, name);

	ck_assert_msg(fn, "%s not in the system library: %s", name, dlerror());
	ck_assert_ptr_ne(fn, ours);
	return fn;
}

/* Pattern `seed` over n bytes: every byte distinct from its neighbours, so
 * a field copied from the wrong offset shows. */
static void fill(void *p, size_t n, unsigned int seed)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 37u + (i >> 3));
}

static const unsigned int seeds[] = { 0, 1, 0x55, 0xa5, 0xff, 0x1234 };
#define NSEEDS (sizeof(seeds) / sizeof(seeds[0]))

/* Compare one converter: dst prefilled with dst_seed, src with seed. */
#define COMPARE_CONVERTER(fn, dst_type, src_type)                             \
	do {                                                                  \
		typedef void (*conv_t)(dst_type *, src_type *);               \
		conv_t theirs = (conv_t)system_fn(#fn, (void *)fn);          \
		for (size_t i = 0; i < NSEEDS; i++) {                         \
			src_type src;                                         \
			dst_type a, b;                                        \
			fill(&src, sizeof(src), seeds[i]);                    \
			fill(&a, sizeof(a), ~seeds[i]);                       \
			memcpy(&b, &a, sizeof(a));                            \
			fn(&a, &src);                                         \
			theirs(&b, &src);                                     \
			ck_assert_msg(!memcmp(&a, &b, sizeof(a)),             \
				      #fn ": result differs from rdma-core's " \
				      "(seed 0x%x)", seeds[i]);               \
		}                                                             \
	} while (0)

START_TEST(ah_attr_from_kern)
{
	COMPARE_CONVERTER(ibv_copy_ah_attr_from_kern, struct ibv_ah_attr,
			  struct ib_uverbs_ah_attr);
}
END_TEST

START_TEST(qp_attr_from_kern)
{
	COMPARE_CONVERTER(ibv_copy_qp_attr_from_kern, struct ibv_qp_attr,
			  struct ib_uverbs_qp_attr);
}
END_TEST

START_TEST(path_rec_from_kern)
{
	COMPARE_CONVERTER(ibv_copy_path_rec_from_kern, struct ibv_sa_path_rec,
			  struct ib_user_path_rec);
}
END_TEST

START_TEST(path_rec_to_kern)
{
	COMPARE_CONVERTER(ibv_copy_path_rec_to_kern, struct ib_user_path_rec,
			  struct ibv_sa_path_rec);
}
END_TEST

/* What a user reads back: a few named fields, not just "same bytes". */
START_TEST(qp_attr_fields_land_where_expected)
{
	struct ib_uverbs_qp_attr k;
	struct ibv_qp_attr u;

	memset(&k, 0, sizeof(k));
	memset(&u, 0, sizeof(u));
	u.qp_state = IBV_QPS_INIT; /* the state the caller asked about */
	k.qp_state = IBV_QPS_RTS;
	k.cur_qp_state = IBV_QPS_RTR;
	k.max_inline_data = 64;
	k.ah_attr.dlid = 7;
	k.ah_attr.grh.dgid[15] = 0x42;
	k.alt_timeout = 14;
	ibv_copy_qp_attr_from_kern(&u, &k);
	ck_assert_int_eq(u.qp_state, IBV_QPS_INIT);
	ck_assert_int_eq(u.cur_qp_state, IBV_QPS_RTR);
	ck_assert_uint_eq(u.cap.max_inline_data, 64);
	ck_assert_uint_eq(u.ah_attr.dlid, 7);
	ck_assert_uint_eq(u.ah_attr.grh.dgid.raw[15], 0x42);
	ck_assert_uint_eq(u.alt_timeout, 14);
}
END_TEST

static Suite *make_compat_suite(void)
{
	Suite *s = suite_create("compat");
	TCase *tc = tcase_create("converters");

	tcase_add_test(tc, ah_attr_from_kern);
	tcase_add_test(tc, qp_attr_from_kern);
	tcase_add_test(tc, path_rec_from_kern);
	tcase_add_test(tc, path_rec_to_kern);
	tcase_add_test(tc, qp_attr_fields_land_where_expected);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *path = getenv("SYSTEM_LIBIBVERBS");

	if (!path || !*path)
		path = SYSTEM_LIB_DEFAULT;
	system_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!system_lib) {
		printf("SKIP: cannot load the system libibverbs to compare "
		       "with (%s)\n", dlerror());
		return SKIP;
	}

	return check_run(make_compat_suite());
}
