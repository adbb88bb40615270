/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The *_str helpers and the rate conversions, compared with the system
 * library: ibv_devinfo and the pingpongs print these strings and scripts
 * parse them, so they must be rdma-core's, odd cases included.
 *
 * softverbs' functions come from the convenience library linked in (their
 * symbols are hidden, so they do not clash); rdma-core's are looked up in
 * the system libibverbs.so.1 opened with RTLD_LOCAL. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "../check_main.h"

#define SYSTEM_LIB_DEFAULT "/usr/lib/x86_64-linux-gnu/libibverbs.so.1"
#define SKIP 77

static void *system_lib;

typedef const char *(*str_fn)(int);
typedef int (*int_fn)(int);

static void *system_fn(const char *name, void *ours)
{
	void *fn = dlsym(system_lib, name);

	ck_assert_msg(fn, "%s not found in the system library: %s", name,
		      dlerror());
	/* Had the lookup found our own copy, the test would compare
	 * softverbs with itself. */
	ck_assert_ptr_ne(fn, ours);
	return fn;
}

/* Values inside each enum, around it, and the extremes. */
static const int edge_values[] = { INT_MIN, INT_MIN + 1, -1000, -2, -1,
				   INT_MAX, INT_MAX - 1, 1000, 255, 256,
				   65535, 65536 };

static void compare_strings(const char *name, str_fn ours, int lo, int hi)
{
	str_fn theirs = (str_fn)system_fn(name, (void *)ours);
	size_t n = sizeof(edge_values) / sizeof(edge_values[0]);

	for (int v = lo; v <= hi; v++)
		ck_assert_msg(!strcmp(ours(v), theirs(v)),
			      "%s(%d): softverbs \"%s\", rdma-core \"%s\"",
			      name, v, ours(v), theirs(v));
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(!strcmp(ours(edge_values[i]),
				      theirs(edge_values[i])),
			      "%s(%d): softverbs \"%s\", rdma-core \"%s\"",
			      name, edge_values[i], ours(edge_values[i]),
			      theirs(edge_values[i]));
}

static void compare_ints(const char *name, int_fn ours, int lo, int hi)
{
	int_fn theirs = (int_fn)system_fn(name, (void *)ours);
	size_t n = sizeof(edge_values) / sizeof(edge_values[0]);

	for (int v = lo; v <= hi; v++)
		if (ours(v) != theirs(v))
			ck_abort_msg("%s(%d): softverbs %d, rdma-core %d", name,
				     v, ours(v), theirs(v));
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(ours(edge_values[i]) == theirs(edge_values[i]),
			      "%s(%d): softverbs %d, rdma-core %d", name,
			      edge_values[i], ours(edge_values[i]),
			      theirs(edge_values[i]));
}

START_TEST(node_type_str)
{
	compare_strings("ibv_node_type_str", (str_fn)ibv_node_type_str, -5, 64);
	ck_assert_str_eq(ibv_node_type_str(IBV_NODE_CA),
			 "InfiniBand channel adapter");
}
END_TEST

START_TEST(port_state_str)
{
	compare_strings("ibv_port_state_str", (str_fn)ibv_port_state_str, -5,
			64);
	ck_assert_str_eq(ibv_port_state_str(IBV_PORT_ACTIVE), "active");
}
END_TEST

/* IBV_EVENT_DEVICE_SPEED_CHANGE (20) came with rdma-core 62: one build
 * names it whichever rdma-core it was built on; an older system library
 * says "unknown". */
START_TEST(event_type_str)
{
	str_fn theirs = (str_fn)system_fn("ibv_event_type_str",
					  (void *)ibv_event_type_str);

	compare_strings("ibv_event_type_str", (str_fn)ibv_event_type_str, -5,
			19);
	compare_strings("ibv_event_type_str", (str_fn)ibv_event_type_str, 21,
			64);
	ck_assert_str_eq(ibv_event_type_str((enum ibv_event_type)20),
			 "Device link speed change");
	ck_assert_msg(!strcmp(theirs(20), "unknown") ||
			      !strcmp(theirs(20), "Device link speed change"),
		      "rdma-core's event 20 is \"%s\"", theirs(20));
}
END_TEST

START_TEST(wc_status_str)
{
	compare_strings("ibv_wc_status_str", (str_fn)ibv_wc_status_str, -5,
			64);
	ck_assert_str_eq(ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR),
			 "Work Request Flushed Error");
}
END_TEST

START_TEST(rate_to_mult)
{
	compare_ints("ibv_rate_to_mult", (int_fn)ibv_rate_to_mult, -5, 64);
	ck_assert_int_eq(ibv_rate_to_mult(IBV_RATE_5_GBPS), 2);
}
END_TEST

START_TEST(mult_to_rate)
{
	compare_ints("mult_to_ibv_rate", (int_fn)mult_to_ibv_rate, -5, 4096);
	ck_assert_int_eq(mult_to_ibv_rate(2), IBV_RATE_5_GBPS);
}
END_TEST

START_TEST(rate_to_mbps)
{
	compare_ints("ibv_rate_to_mbps", (int_fn)ibv_rate_to_mbps, -5, 64);
	ck_assert_int_eq(ibv_rate_to_mbps(IBV_RATE_100_GBPS), 103125);
}
END_TEST

/* Every value up to past the largest known rate (1200 Gb/s): an exact
 * match is required, a near miss must give IBV_RATE_MAX on both. */
START_TEST(mbps_to_rate)
{
	compare_ints("mbps_to_ibv_rate", (int_fn)mbps_to_ibv_rate, -5,
		     1300000);
	ck_assert_int_eq(mbps_to_ibv_rate(25781), IBV_RATE_25_GBPS);
}
END_TEST

static Suite *make_strings_suite(void)
{
	Suite *s = suite_create("strings");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, node_type_str);
	tcase_add_test(tc, port_state_str);
	tcase_add_test(tc, event_type_str);
	tcase_add_test(tc, wc_status_str);
	suite_add_tcase(s, tc);

	tc = tcase_create("rates");
	tcase_add_test(tc, rate_to_mult);
	tcase_add_test(tc, mult_to_rate);
	tcase_add_test(tc, rate_to_mbps);
	tcase_add_test(tc, mbps_to_rate);
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

	return check_run(make_strings_suite());
}
