/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The range map on its own, against a page-array model (a map in page
 * units) and a byte-level model (a map in bytes that leaves partly
 * registered pages alone, as fork.c uses it on a copy-on-fork kernel),
 * each with a fake madvise that records what the kernel would hold and
 * fails on demand. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "range_map.h"

#include "../check_main.h"

#define SHIFT 12
#define NPAGES 1024
/* The model's pages start here so page 0 is not NULL. */
#define BASE 4096u

static unsigned long model[NPAGES]; /* refcount per page */
static unsigned char kernel_dc[NPAGES]; /* what the fake kernel holds */
static unsigned long fake_calls;
static unsigned long fail_at;  /* fail the fail_at-th call (1-based), 0 never */
static int fail_errno;

static int fake_advise(void *addr, size_t len, int advice)
{
	uintptr_t p = ((uintptr_t)addr >> SHIFT) - BASE;
	size_t n = len >> SHIFT;

	ck_assert(advice == MADV_DONTFORK || advice == MADV_DOFORK);
	ck_assert_uint_le(p + n, NPAGES);
	fake_calls++;
	if (fail_at && fake_calls == fail_at && fail_errno != ENOMEM) {
		errno = fail_errno;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		kernel_dc[p + i] = advice == MADV_DONTFORK;
	if (fail_at && fake_calls == fail_at) {
		/* ENOMEM: applied to the mapped parts (here: all), then failed. */
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static struct range_map map;

/* Under valgrind (make check-valgrind-fork sets SOFTVERBS_TEST_SHORTEN=N)
 * the random sequences and the threads' loops run N times shorter:
 * valgrind looks for bad accesses, leaks and races, which every path of
 * a shorter sequence reaches as well; the unit runs (plain, sanitized) do
 * every step against the models. */
static int steps(int n)
{
	const char *s = getenv("SOFTVERBS_TEST_SHORTEN");
	long div = s ? strtol(s, NULL, 10) : 1;

	return div > 1 && div < n ? (int)(n / div) : n;
}

static void setup(void)
{
	memset(model, 0, sizeof(model));
	memset(kernel_dc, 0, sizeof(kernel_dc));
	fake_calls = fail_at = 0;
	fail_errno = 0;
	range_map_init(&map, SHIFT, fake_advise);
}

static void teardown(void)
{
	range_map_destroy(&map);
}

/* Check sends its parent process a message (an allocation and a write
 * to a file) for every ck_assert that passes. The model checks below
 * test every entry, page and unit, thousands of times a call, and those
 * messages were nearly all of this test's time (122 s of it under
 * ASan+UBSan, 18 s plain): they test first, and only a failure reaches
 * Check. */
#define expect(cond, ...)                          \
	do {                                       \
		if (!(cond))                       \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)

/* Entries are sorted, disjoint, referenced, maximal and inside the
 * model's nunits units from base; seen[] gets each unit's count. */
static void check_entries(const struct range_map_entry *e, size_t n, uintptr_t base, size_t nunits,
			  unsigned long *seen)
{
	for (size_t i = 0; i < n; i++) {
		expect(e[i].first < e[i].end, "entry %zu: [%#lx, %#lx) is empty", i,
		       (unsigned long)e[i].first, (unsigned long)e[i].end);
		expect(e[i].refcnt >= 1, "entry %zu: refcnt 0", i);
		expect(e[i].first >= base && e[i].end <= base + nunits,
		       "entry %zu: [%#lx, %#lx) is outside the model", i, (unsigned long)e[i].first,
		       (unsigned long)e[i].end);
		if (i) {
			expect(e[i - 1].end <= e[i].first, "entries %zu and %zu overlap or are unsorted",
			       i - 1, i);
			expect(!(e[i - 1].end == e[i].first && e[i - 1].refcnt == e[i].refcnt &&
				 e[i - 1].flags == e[i].flags),
			       "entries %zu and %zu should have merged", i - 1, i);
		}
		for (uintptr_t u = e[i].first; u < e[i].end; u++)
			seen[u - base] = e[i].refcnt;
	}
}

/* Map entries are sorted, disjoint, referenced, maximal, and say exactly
 * what the model says; while active, the kernel holds DONTFORK on
 * exactly the referenced pages. */
static void check_invariants(void)
{
	struct range_map_entry e[NPAGES + 1];
	size_t n = range_map_snapshot(&map, e, NPAGES + 1);
	unsigned long seen[NPAGES] = { 0 };
	int active = range_map_is_active(&map);

	ck_assert_uint_le(n, NPAGES);
	check_entries(e, n, BASE, NPAGES, seen);
	for (size_t p = 0; p < NPAGES; p++) {
		expect(seen[p] == model[p], "page %zu: map %lu, model %lu", p, seen[p], model[p]);
		if (active)
			expect(kernel_dc[p] == (model[p] > 0), "page %zu: dc %d, refs %lu", p, kernel_dc[p],
			       model[p]);
		else
			expect(!kernel_dc[p], "page %zu: dc %d while inactive", p, kernel_dc[p]);
	}
	/* range_map_overlaps agrees with the model on a few windows. */
	for (size_t a = 0; a < NPAGES; a += 61) {
		for (size_t len = 1; a + len <= NPAGES; len = len * 3 + 1) {
			int any = 0;

			for (size_t p = a; p < a + len; p++)
				any |= model[p] > 0;
			expect(range_map_overlaps(&map, BASE + a, BASE + a + len) == any,
			       "overlaps [%zu, %zu): model %d", a, a + len, any);
		}
	}
}

static int model_insert(size_t a, size_t b)
{
	int ret = range_map_insert(&map, BASE + a, BASE + b, 0);

	if (!ret)
		for (size_t p = a; p < b; p++)
			model[p]++;
	return ret;
}

static int model_covers(size_t a, size_t b)
{
	for (size_t p = a; p < b; p++)
		if (!model[p])
			return 0;
	return 1;
}

static int model_remove(size_t a, size_t b)
{
	int ret = range_map_remove(&map, BASE + a, BASE + b, 0);

	if (!ret)
		for (size_t p = a; p < b; p++)
			model[p]--;
	return ret;
}

START_TEST(test_merge_split)
{
	struct range_map_entry e[8];

	ck_assert_int_eq(model_insert(0, 10), 0);
	ck_assert_int_eq(model_insert(10, 20), 0);
	ck_assert_uint_eq(range_map_snapshot(&map, e, 8), 1);
	ck_assert_uint_eq(e[0].first, BASE);
	ck_assert_uint_eq(e[0].end, BASE + 20);
	ck_assert_int_eq(model_insert(5, 15), 0);
	ck_assert_uint_eq(range_map_snapshot(&map, e, 8), 3);
	ck_assert_uint_eq(e[1].refcnt, 2);
	check_invariants();
	ck_assert_int_eq(model_remove(5, 15), 0);
	ck_assert_uint_eq(range_map_snapshot(&map, e, 8), 1);
	ck_assert_int_eq(model_remove(0, 20), 0);
	ck_assert_uint_eq(range_map_snapshot(&map, e, 8), 0);
	check_invariants();
}
END_TEST

START_TEST(test_empty_and_unregistered)
{
	ck_assert_int_eq(range_map_insert(&map, BASE + 5, BASE + 5, 0), -EINVAL);
	ck_assert_int_eq(range_map_insert(&map, BASE + 6, BASE + 5, 0), -EINVAL);
	ck_assert_int_eq(model_insert(0, 4), 0);
	/* Releasing what was never held fails and changes nothing. */
	ck_assert_int_eq(model_remove(2, 6), -EINVAL);
	ck_assert_int_eq(model_remove(8, 9), -EINVAL);
	check_invariants();
	ck_assert(range_map_covers(&map, BASE, BASE + 4));
	ck_assert(!range_map_covers(&map, BASE, BASE + 5));
}
END_TEST

/* While active, each 0->1 and 1->0 edge is madvised once, edges that
 * touch in one call. */
START_TEST(test_edges_coalesce)
{
	ck_assert_int_eq(range_map_activate(&map), 0);
	ck_assert_int_eq(model_insert(0, 4), 0);
	ck_assert_int_eq(model_insert(8, 12), 0);
	ck_assert_uint_eq(fake_calls, 2);
	/* Only the gap [4, 8) goes 0->1. */
	ck_assert_int_eq(model_insert(0, 12), 0);
	ck_assert_uint_eq(fake_calls, 3);
	/* Only [4, 8) goes 1->0. */
	ck_assert_int_eq(model_remove(2, 10), 0);
	ck_assert_uint_eq(fake_calls, 4);
	check_invariants();
	/* [4, 8) is no longer held: releasing across it fails, unchanged. */
	ck_assert_int_eq(model_remove(0, 12), -EINVAL);
	ck_assert_uint_eq(fake_calls, 4);
	for (size_t p = 0; p < NPAGES; p++)
		while (model[p])
			ck_assert_int_eq(model_remove(p, p + 1), 0);
	check_invariants();
	ck_assert_uint_eq(range_map_snapshot(&map, NULL, 0), 0);
}
END_TEST

/* Late activation: adjacent ranges with different counts are one call. */
START_TEST(test_activate_coalesces)
{
	ck_assert_int_eq(model_insert(0, 8), 0);
	ck_assert_int_eq(model_insert(4, 12), 0);
	ck_assert_int_eq(model_insert(20, 24), 0);
	ck_assert_uint_eq(fake_calls, 0);
	check_invariants();
	ck_assert_int_eq(range_map_activate(&map), 0);
	ck_assert_uint_eq(fake_calls, 2);
	check_invariants();
	ck_assert_int_eq(range_map_activate(&map), 0);
	ck_assert_uint_eq(fake_calls, 2);
}
END_TEST

/* Long random sequences of insert/remove against the model, activating
 * half way through. */
START_TEST(test_random_vs_model)
{
	unsigned int seed = 12345 + (unsigned int)_i;
	int nsteps = steps(6000);

	for (int step = 0; step < nsteps; step++) {
		size_t a = (size_t)rand_r(&seed) % NPAGES;
		size_t len = (size_t)rand_r(&seed) % 24 + 1;
		size_t b = a + len > NPAGES ? NPAGES : a + len;
		int op = rand_r(&seed) % 3;

		if (step == nsteps / 2)
			ck_assert_int_eq(range_map_activate(&map), 0);
		if (op == 0) {
			ck_assert_int_eq(model_insert(a, b), 0);
		} else {
			int expect = model_covers(a, b) ? 0 : -EINVAL;

			ck_assert_int_eq(model_remove(a, b), expect);
		}
		if (step % 50 == 0)
			check_invariants();
	}
	check_invariants();
}
END_TEST

/* Ranges at the very top of the address space: page numbers do not
 * overflow. */
START_TEST(test_top_of_address_space)
{
	uintptr_t last = UINTPTR_MAX >> SHIFT;
	struct range_map_entry e[4];

	range_map_set_advise(&map, NULL); /* never called: inactive */
	ck_assert_int_eq(range_map_insert(&map, last - 3, last + 1, 0), 0);
	ck_assert_int_eq(range_map_insert(&map, last, last + 1, 0), 0);
	ck_assert_uint_eq(range_map_snapshot(&map, e, 4), 2);
	ck_assert_uint_eq(e[1].end, last + 1);
	ck_assert_uint_eq(range_map_refcount(&map, last), 2);
	ck_assert_int_eq(range_map_remove(&map, last - 3, last + 1, 0), 0);
	ck_assert_int_eq(range_map_remove(&map, last, last + 1, 0), 0);
	ck_assert_uint_eq(range_map_snapshot(&map, e, 4), 0);
}
END_TEST

/* Build a state with several edges, then fail each madvise call in turn
 * (EINVAL: nothing applied; ENOMEM: applied, then failed) and check that
 * the map and the fake kernel still agree with the unchanged model. */
static void build_holes(void)
{
	for (size_t a = 0; a < 60; a += 10)
		ck_assert_int_eq(model_insert(a, a + 4), 0);
	ck_assert_int_eq(model_insert(2, 3), 0);
}

START_TEST(test_injected_insert_failures)
{
	int errs[] = { EINVAL, ENOMEM, EPERM };

	for (size_t ei = 0; ei < 3; ei++) {
		for (unsigned long k = 1;; k++) {
			unsigned long base;
			int ret;

			teardown();
			setup();
			ck_assert_int_eq(range_map_activate(&map), 0);
			build_holes();
			base = fake_calls;
			fail_errno = errs[ei];
			fail_at = base + k;
			ret = model_insert(0, 70); /* 7 gaps */
			check_invariants();
			if (!ret)
				break;
			ck_assert_int_eq(ret, -errs[ei]);
		}
	}
}
END_TEST

START_TEST(test_injected_remove_failures)
{
	for (unsigned long k = 1;; k++) {
		int ret;

		teardown();
		setup();
		ck_assert_int_eq(range_map_activate(&map), 0);
		ck_assert_int_eq(model_insert(0, 70), 0);
		build_holes();
		fail_errno = EINVAL;
		fail_at = fake_calls + k;
		ret = model_remove(0, 70); /* 1->0 edges between the holes */
		check_invariants();
		if (!ret)
			break;
		ck_assert_int_eq(ret, -EINVAL);
	}
	/* ENOMEM on DOFORK: part of the range is unmapped; the mapped parts
	 * were restored, which is success. */
	teardown();
	setup();
	ck_assert_int_eq(range_map_activate(&map), 0);
	ck_assert_int_eq(model_insert(0, 8), 0);
	fail_errno = ENOMEM;
	fail_at = fake_calls + 1;
	ck_assert_int_eq(model_remove(0, 8), 0);
	check_invariants();
}
END_TEST

START_TEST(test_injected_activate_failures)
{
	for (unsigned long k = 1;; k++) {
		int ret;

		teardown();
		setup();
		build_holes();
		fail_errno = EINVAL;
		fail_at = k;
		ret = range_map_activate(&map);
		check_invariants();
		if (!ret) {
			ck_assert(range_map_is_active(&map));
			break;
		}
		ck_assert(!range_map_is_active(&map));
		ck_assert_int_eq(ret, -EINVAL);
	}
}
END_TEST

START_TEST(test_widen_signal)
{
	struct range_map_entry e[4];

	ck_assert_int_eq(range_map_insert(&map, BASE, BASE + 512, RANGE_MAP_HUGE), 0);
	ck_assert_int_eq(range_map_insert(&map, BASE + 512, BASE + 520, 0), 0);
	/* Same count, different flags: no merge. */
	ck_assert_uint_eq(range_map_snapshot(&map, e, 4), 2);
	ck_assert_int_eq(range_map_remove(&map, BASE + 1, BASE + 2, 0), RANGE_MAP_WIDEN);
	ck_assert_int_eq(range_map_remove(&map, BASE + 512, BASE + 520, 0), 0);
	ck_assert_int_eq(range_map_remove(&map, BASE, BASE + 512, 1), 0);
	ck_assert_uint_eq(range_map_snapshot(&map, e, 4), 0);
}
END_TEST

/* Many threads growing the array at once: the lock is dropped to
 * allocate, and no update may be lost. */
struct thr {
	size_t id;
	int failures; /* counted here: Check is not called from threads */
};

static void *inserter(void *arg)
{
	struct thr *t = arg;

	for (uintptr_t i = 0; i < 2000; i++) {
		uintptr_t p = (i * 8 + t->id) * 2;

		if (range_map_insert(&map, p, p + 1, 0))
			t->failures++;
	}
	for (uintptr_t i = 0; i < 2000; i += 2) {
		uintptr_t p = (i * 8 + t->id) * 2;

		if (range_map_remove(&map, p, p + 1, 0))
			t->failures++;
	}
	return NULL;
}

START_TEST(test_threads_grow)
{
	pthread_t th[8];
	struct thr t[8];

	range_map_set_advise(&map, NULL);
	for (size_t i = 0; i < 8; i++) {
		t[i].id = i;
		t[i].failures = 0;
		ck_assert_int_eq(pthread_create(&th[i], NULL, inserter, &t[i]), 0);
	}
	for (size_t i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(t[i].failures, 0);
	}
	ck_assert_uint_eq(range_map_snapshot(&map, NULL, 0), 8 * 1000);
	{
		static struct range_map_entry e[8 * 1000];

		ck_assert_uint_eq(range_map_snapshot(&map, e, 8 * 1000), 8 * 1000);
		for (size_t i = 1; i < 8 * 1000; i++)
			expect(e[i - 1].end < e[i].first, "entries %zu and %zu touch or overlap", i - 1, i);
	}
}
END_TEST

/* ---- bytes: the partial-page rule ------------------------------------- */

/* A map in bytes (unit_shift 0) with pages of BP units, so that random
 * ranges make many partly covered pages; model units [HSTART, BUNITS)
 * are a huge-page mapping of HP-unit pages, which the fake kernel only
 * splits at HP boundaries (EINVAL otherwise, as for hugetlbfs). */
#define BG 4
#define BP (1u << BG)
#define HG 8
#define HP (1u << HG)
#define BUNITS 8192
#define HSTART 4096
#define BBASE 65536u /* unit number of model unit 0: HP aligned */

static unsigned long bmodel[BUNITS];        /* refcount per unit */
static unsigned char bdc[BUNITS / BP];      /* the fake kernel, per page */

static int byte_advise(void *addr, size_t len, int advice)
{
	uintptr_t u = (uintptr_t)addr;
	size_t p, n = len / BP;

	ck_assert(advice == MADV_DONTFORK || advice == MADV_DOFORK);
	ck_assert_uint_ge(u, BBASE);
	u -= BBASE;
	ck_assert_msg(u % BP == 0 && len % BP == 0 && len > 0, "madvise(%#lx, %zu) not page aligned",
		      (unsigned long)u, len);
	ck_assert_uint_le(u + len, BUNITS);
	fake_calls++;
	if ((u >= HSTART && u % HP) || (u + len > HSTART && (u + len) % HP)) {
		errno = EINVAL; /* hugetlbfs: cannot split there */
		return -1;
	}
	if (fail_at && fake_calls == fail_at && fail_errno != ENOMEM) {
		errno = fail_errno;
		return -1;
	}
	for (p = u / BP; p < u / BP + n; p++)
		bdc[p] = advice == MADV_DONTFORK;
	if (fail_at && fake_calls == fail_at) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static void byte_setup(void)
{
	memset(bmodel, 0, sizeof(bmodel));
	memset(bdc, 0, sizeof(bdc));
	fake_calls = fail_at = 0;
	fail_errno = 0;
	range_map_init(&map, 0, byte_advise);
	range_map_set_grain(&map, BG);
}

static int bcovered(size_t a, size_t b)
{
	for (size_t u = a; u < b; u++)
		if (!bmodel[u])
			return 0;
	return 1;
}

static int btouched(size_t a, size_t b)
{
	for (size_t u = a; u < b; u++)
		if (bmodel[u])
			return 1;
	return 0;
}

/* The entries say exactly what the model says, and the fake kernel
 * holds DONTFORK on exactly the pages (huge pages in the huge region)
 * the model covers wholly; the stats agree. */
static void bcheck(void)
{
	static struct range_map_entry e[BUNITS + 1];
	static unsigned long seen[BUNITS];
	size_t n = range_map_snapshot(&map, e, BUNITS + 1);
	int active = range_map_is_active(&map);
	struct range_map_stats st;
	uint64_t units = 0, pages = 0, covered = 0;

	memset(seen, 0, sizeof(seen));
	ck_assert_uint_le(n, BUNITS);
	check_entries(e, n, BBASE, BUNITS, seen);
	for (size_t u = 0; u < BUNITS; u++) {
		expect(seen[u] == bmodel[u], "unit %zu: map %lu, model %lu", u, seen[u], bmodel[u]);
		units += bmodel[u] > 0;
	}
	for (size_t p = 0; p < BUNITS / BP; p++) {
		size_t a = p * BP, g = a >= HSTART ? HP : BP, hp = a / g * g;
		int full = bcovered(hp, hp + g);

		expect(bdc[p] == (active && full),
		       "page %zu (units %zu..%zu): dc %d, expected %d (active %d)", p, a, a + BP, bdc[p],
		       active && full, active);
		pages += btouched(a, a + BP);
		covered += full;
	}
	range_map_get_stats(&map, &st);
	ck_assert_uint_eq(st.live_ranges, n);
	ck_assert_uint_eq(st.units, units);
	ck_assert_uint_eq(st.pages, pages);
	ck_assert_uint_eq(st.covered_pages, covered);
}

/* An insert as fork.c makes it: without flags, then (the kernel's EINVAL
 * or the map's WIDEN) at the huge page's size in the huge region; huge
 * forces the second form at once (RDMAV_HUGEPAGES_SAFE). */
static int binsert(size_t a, size_t b, int huge)
{
	unsigned int hf = RANGE_MAP_HUGE | RANGE_MAP_GRAIN(HG);
	int ret = range_map_insert(&map, BBASE + a, BBASE + b, huge && a >= HSTART ? hf : 0);

	if ((ret == -EINVAL || ret == RANGE_MAP_WIDEN) && a >= HSTART && !huge)
		ret = range_map_insert(&map, BBASE + a, BBASE + b, hf);
	if (!ret)
		for (size_t u = a; u < b; u++)
			bmodel[u]++;
	return ret;
}

static int bremove(size_t a, size_t b)
{
	int ret = range_map_remove(&map, BBASE + a, BBASE + b, 1);

	if (!ret)
		for (size_t u = a; u < b; u++)
			bmodel[u]--;
	return ret;
}

/* The probe's shape: one page, a string in its first half, a small
 * range in its second; then ranges around it that make it whole. */
START_TEST(test_bytes_partial_page)
{
	ck_assert_int_eq(range_map_activate(&map), 0);
	/* [8, 12) of page 4: partial, nothing advised */
	ck_assert_int_eq(binsert(4 * BP + 8, 4 * BP + 12, 0), 0);
	ck_assert_uint_eq(fake_calls, 0);
	bcheck();
	/* three pages and a bit: the two whole ones only, in one call */
	ck_assert_int_eq(binsert(10 * BP + 3, 13 * BP + 1, 0), 0);
	ck_assert_uint_eq(fake_calls, 1);
	ck_assert(bdc[11] && bdc[12] && !bdc[10] && !bdc[13]);
	bcheck();
	/* the rest of page 4, in two ranges that touch: whole at the second */
	ck_assert_int_eq(binsert(4 * BP, 4 * BP + 8, 0), 0);
	ck_assert_uint_eq(fake_calls, 1);
	ck_assert_int_eq(binsert(4 * BP + 12, 5 * BP, 0), 0);
	ck_assert_uint_eq(fake_calls, 2);
	ck_assert(bdc[4]);
	bcheck();
	/* releasing any piece of page 4 gives it back */
	ck_assert_int_eq(bremove(4 * BP + 8, 4 * BP + 12), 0);
	ck_assert(!bdc[4]);
	bcheck();
	/* page 10 completed from the left joins the run [11, 13): one call */
	ck_assert_int_eq(binsert(10 * BP, 10 * BP + 3, 0), 0);
	ck_assert_uint_eq(fake_calls, 4);
	ck_assert(bdc[10]);
	bcheck();
	/* a nested range and its release change nothing in the kernel */
	ck_assert_int_eq(binsert(11 * BP + 1, 11 * BP + 2, 0), 0);
	ck_assert_int_eq(bremove(11 * BP + 1, 11 * BP + 2), 0);
	ck_assert_uint_eq(fake_calls, 4);
	bcheck();
	/* late activation of another map sees the same pages */
	ck_assert_int_eq(bremove(10 * BP, 10 * BP + 3), 0);
	ck_assert_int_eq(bremove(10 * BP + 3, 13 * BP + 1), 0);
	ck_assert_int_eq(bremove(4 * BP, 4 * BP + 8), 0);
	ck_assert_int_eq(bremove(4 * BP + 12, 5 * BP), 0);
	ck_assert_uint_eq(range_map_snapshot(&map, NULL, 0), 0);
	bcheck();
}
END_TEST

/* Inactive, then activated: whole pages only, touching ones in one call. */
START_TEST(test_bytes_late_activation)
{
	ck_assert_int_eq(binsert(BP + 5, 3 * BP + 1, 1), 0);  /* page 2 whole */
	ck_assert_int_eq(binsert(3 * BP + 1, 4 * BP, 1), 0);  /* completes page 3 */
	ck_assert_int_eq(binsert(6 * BP + 1, 6 * BP + 2, 1), 0);
	ck_assert_int_eq(binsert(HSTART + 3, HSTART + 2 * HP, 1), 0); /* huge page 1 whole */
	ck_assert_uint_eq(fake_calls, 0);
	bcheck();
	ck_assert_int_eq(range_map_activate(&map), 0);
	ck_assert_uint_eq(fake_calls, 2);
	bcheck();
}
END_TEST

/* Huge pages: the same rule at the huge page's size, including a small
 * range registered before the huge page was known to be one. */
START_TEST(test_bytes_huge)
{
	size_t h = HSTART + HP;

	ck_assert_int_eq(range_map_activate(&map), 0);
	/* inside one small page: no madvise, so no EINVAL: stays small */
	ck_assert_int_eq(binsert(h + 1, h + 3, 0), 0);
	ck_assert_uint_eq(fake_calls, 0);
	/* covers small pages: EINVAL, then judged at the huge size */
	ck_assert_int_eq(binsert(h + 3, h + HP - 1, 0), 0);
	bcheck();
	/* the last unit and the first: the huge page is whole */
	ck_assert_int_eq(binsert(h + HP - 1, h + HP, 0), 0);
	ck_assert_int_eq(binsert(h, h + 1, 0), 0);
	ck_assert(bdc[h / BP]);
	bcheck();
	/* release the small range first: judged at the huge size too */
	ck_assert_int_eq(bremove(h + 1, h + 3), 0);
	ck_assert(!bdc[h / BP]);
	bcheck();
	ck_assert_int_eq(bremove(h + 3, h + HP - 1), 0);
	ck_assert_int_eq(bremove(h, h + 1), 0);
	ck_assert_int_eq(bremove(h + HP - 1, h + HP), 0);
	bcheck();
	ck_assert_uint_eq(range_map_snapshot(&map, NULL, 0), 0);
}
END_TEST

/* Random inserts and releases (live ranges released in any order, some
 * re-registered at once, some releases of what is not held), against the
 * byte model; activation part way. */
START_TEST(test_bytes_random_vs_model)
{
	static size_t live_a[4096], live_b[4096];
	unsigned int seed = 777 + (unsigned int)_i;
	size_t nlive = 0;
	int nsteps = steps(5000), activate_at = nsteps * 3 / 10;

	for (int step = 0; step < nsteps; step++) {
		int op = rand_r(&seed) % 8;
		int huge_region = rand_r(&seed) % 3 == 0;
		size_t lo = huge_region ? HSTART : 0, span = huge_region ? BUNITS - HSTART : HSTART;
		size_t len = (size_t)rand_r(&seed) % (rand_r(&seed) % 4 ? 3 * BP : 2 * HP) + 1;
		size_t a = lo + (size_t)rand_r(&seed) % (span - len), b = a + len;
		int active = step >= activate_at;

		if (step == activate_at)
			ck_assert_int_eq(range_map_activate(&map), 0);
		if (op <= 3 && nlive < 4096) {
			/* before activation fork.c records huge ranges at their
			 * size only with RDMAV_HUGEPAGES_SAFE: do that */
			ck_assert_int_eq(binsert(a, b, !active), 0);
			live_a[nlive] = a;
			live_b[nlive++] = b;
		} else if (op <= 6 && nlive) {
			size_t k = (size_t)rand_r(&seed) % nlive;

			ck_assert_int_eq(bremove(live_a[k], live_b[k]), 0);
			if (op == 6) { /* rereg: the same range again */
				ck_assert_int_eq(binsert(live_a[k], live_b[k], !active), 0);
			} else {
				live_a[k] = live_a[--nlive];
				live_b[k] = live_b[nlive];
			}
		} else if (!bcovered(a, b)) {
			ck_assert_int_eq(bremove(a, b), -EINVAL);
		}
		if (step % 100 == 0)
			bcheck();
	}
	bcheck();
	while (nlive) {
		nlive--;
		ck_assert_int_eq(bremove(live_a[nlive], live_b[nlive]), 0);
	}
	bcheck();
	ck_assert_uint_eq(range_map_snapshot(&map, NULL, 0), 0);
}
END_TEST

/* A failing madvise in the middle of an insert or remove that advises
 * several runs, whole and partial pages among them: nothing changes. */
START_TEST(test_bytes_injected_failures)
{
	int errs[] = { EPERM, ENOMEM };

	for (int remove = 0; remove < 2; remove++)
		for (size_t ei = 0; ei < 2; ei++)
			for (unsigned long k = 1;; k++) {
				int ret;

				range_map_destroy(&map);
				byte_setup();
				ck_assert_int_eq(range_map_activate(&map), 0);
				/* holes of partial pages and whole ones */
				for (size_t p = 0; p < 40; p += 5)
					ck_assert_int_eq(binsert(p * BP + 3, (p + 2) * BP + 7, 0), 0);
				if (remove)
					ck_assert_int_eq(binsert(1, 45 * BP - 2, 0), 0);
				fail_errno = errs[ei];
				fail_at = fake_calls + k;
				ret = remove ? bremove(1, 45 * BP - 2) : binsert(1, 45 * BP - 2, 0);
				bcheck();
				if (!ret)
					break;
				ck_assert_msg(!remove || errs[ei] != ENOMEM, "ENOMEM on DOFORK is success");
				ck_assert_int_eq(ret, -errs[ei]);
			}
}
END_TEST

/* Threads registering sub-page ranges that share pages: nothing lost,
 * every page given back at the end. */
static void *byte_worker(void *arg)
{
	struct thr *t = arg;
	unsigned int seed = (unsigned int)t->id + 1;
	int n = steps(3000);

	for (int i = 0; i < n; i++) {
		size_t a = (size_t)rand_r(&seed) % (HSTART - 64), b = a + (size_t)rand_r(&seed) % 60 + 1;

		if (range_map_insert(&map, BBASE + a, BBASE + b, 0) ||
		    range_map_remove(&map, BBASE + a, BBASE + b, 1))
			t->failures++;
	}
	return NULL;
}

START_TEST(test_bytes_threads)
{
	pthread_t th[8];
	struct thr t[8];

	ck_assert_int_eq(range_map_activate(&map), 0);
	for (size_t i = 0; i < 8; i++) {
		t[i].id = i;
		t[i].failures = 0;
		ck_assert_int_eq(pthread_create(&th[i], NULL, byte_worker, &t[i]), 0);
	}
	for (size_t i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(t[i].failures, 0);
	}
	bcheck();
	ck_assert_uint_eq(range_map_snapshot(&map, NULL, 0), 0);
}
END_TEST

static Suite *make_range_map_suite(void)
{
	Suite *s = suite_create("range_map");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_merge_split);
	tcase_add_test(tc, test_empty_and_unregistered);
	tcase_add_test(tc, test_edges_coalesce);
	tcase_add_test(tc, test_activate_coalesces);
	tcase_add_loop_test(tc, test_random_vs_model, 0, 4);
	tcase_add_test(tc, test_top_of_address_space);
	tcase_add_test(tc, test_injected_insert_failures);
	tcase_add_test(tc, test_injected_remove_failures);
	tcase_add_test(tc, test_injected_activate_failures);
	tcase_add_test(tc, test_widen_signal);
	suite_add_tcase(s, tc);

	tc = tcase_create("threads");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_threads_grow);
	suite_add_tcase(s, tc);

	tc = tcase_create("bytes");
	tcase_add_checked_fixture(tc, byte_setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_bytes_partial_page);
	tcase_add_test(tc, test_bytes_late_activation);
	tcase_add_test(tc, test_bytes_huge);
	tcase_add_loop_test(tc, test_bytes_random_vs_model, 0, 4);
	tcase_add_test(tc, test_bytes_injected_failures);
	tcase_add_test(tc, test_bytes_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(make_range_map_suite());
}
