/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The public fork-safety API (ibv_fork_init(3)) over the range map.
 *
 * Registered ranges are recorded from the first registration on, even
 * while fork safety is off, so a late ibv_fork_init() can protect them
 * all and return 0 where rdma-core returns EINVAL. While it is off, an MR
 * is only noted in a hash set (mr_notes, a few dozen instructions); the
 * notes become range-map entries (refcounts, no madvise) when
 * ibv_fork_init() arrives or the stats are asked for.
 *
 * Partly registered pages. MADV_DONTFORK works on whole pages, so a
 * child loses every byte that shares a page with registered memory:
 * heap data next to a malloc'd buffer, a Python object, a stdio buffer.
 * A kernel that reports copy-on-fork (RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK,
 * Linux 5.12 on) copies each DMA-pinned anonymous page into the child at
 * fork time instead of sharing it (mm/memory.c copy_present_pte ->
 * copy_present_page; kmod-notes/fork.md), which keeps the parent's pinned
 * page in place. There the map holds exact byte ranges and DONTFORKs only
 * the pages that registered memory covers entirely; a page only partly
 * covered (at most two per registration) is left to the kernel's copy,
 * so fork() stays flat and the child keeps every byte it did not
 * register. Without copy-on-fork (or with SOFTVERBS_FORK_WHOLE_PAGES set)
 * ranges are rounded out to whole pages, as rdma-core does. Which of the
 * two is decided once, before the first range enters the map. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "fork.h"
#include "netlink.h"
#include "pagesize.h"
#include "probe.h"
#include "range_map.h"

#include <softverbs/softverbs.h>

_Static_assert(offsetof(struct softverbs_fork_stats, tracked_pages) == SOFTVERBS_FORK_STATS_V1_SIZE,
	       "the first version of struct softverbs_fork_stats ends before tracked_pages");

static struct range_map fork_map;
static unsigned int page_shift;
static size_t base_page;
/* RDMAV_HUGEPAGES_SAFE: widen every range to its backing page size.
 * Only ever turns on. */
static atomic_int huge_safe;
/* Copy-on-fork as the kernel reported it: -1 not asked yet, else 0/1. */
static atomic_int copy_on_fork = -1;
/* 1: partly registered pages are left to the kernel (exact byte ranges
 * in the map); 0: ranges rounded out to whole pages; -1: not decided
 * yet (decided before the first insert, then fixed). */
static atomic_int exact_pages = -1;
static range_map_advise_fn probe_advise = madvise;

/* MRs registered while fork safety was off, not yet in the map: an
 * open-addressing hash set keyed by the MR pointer (linear probing, at
 * most half full counting the marks of removed notes). A removal leaves
 * a mark (NOTE_GONE) rather than shifting the rest of the probe run
 * back: ibv_dereg_mr then costs the same whatever lies next to its note
 * (the shift cost 20 instructions a neighbour, and the neighbours depend
 * on the heap's layout). An insert reuses a mark; the marks go when the
 * table is rebuilt. */
struct mr_note {
	const void *mr; /* NULL: free slot; NOTE_GONE: a removed note */
	void *base;
	size_t len;
};
#define NOTE_GONE ((const void *)1)
static struct {
	atomic_int lock;         /* guards everything below (notes_lock) */
	struct mr_note *slot;
	size_t mask;             /* capacity - 1 (capacity a power of 2) */
	unsigned int shift;      /* 64 - log2(capacity), for note_hash */
	size_t count;            /* notes */
	size_t gone;             /* NOTE_GONE marks */
	int to_map;              /* 1: fork safety on, MRs go to the map */
} notes;
static void notes_lock(void)
{
	while (atomic_exchange_explicit(&notes.lock, 1, memory_order_acquire))
		while (atomic_load_explicit(&notes.lock, memory_order_relaxed))
			;
}

static void notes_unlock(void)
{
	atomic_store_explicit(&notes.lock, 0, memory_order_release);
}

/* notes.count and notes.to_map, readable without the lock */
static atomic_size_t notes_count;
static atomic_int notes_to_map;

static int env_on(const char *name)
{
	const char *v = sv_env(name);

	return v && strcmp(v, "0") != 0;
}

static void atfork_prepare(void)
{
	SV_PROBE(softverbs, fork_prepare);
	sv_inherit_fork_prepare();
	notes_lock();
	range_map_fork_prepare(&fork_map);
	sv_pagesize_fork_prepare();
}

static void atfork_parent(void)
{
	sv_pagesize_fork_parent();
	range_map_fork_parent(&fork_map);
	notes_unlock();
	sv_inherit_fork_parent();
	SV_PROBE(softverbs, fork_parent);
}

static void atfork_child(void)
{
	sv_pagesize_fork_child();
	/* None of the parent's registrations is the child's: the map and the
	 * notes start empty (the verbs on inherited MRs fail, see
	 * lib/inherit.c, so nothing would ever remove them). */
	range_map_fork_child(&fork_map);
	free(notes.slot);
	notes.slot = NULL;
	notes.mask = 0;
	notes.count = 0;
	notes.gone = 0;
	atomic_store_explicit(&notes_count, 0, memory_order_relaxed);
	atomic_store(&notes.lock, 0);
	sv_inherit_fork_child();
	SV_PROBE(softverbs, fork_child);
}

static int copy_on_fork_reported(void)
{
	int cof = atomic_load(&copy_on_fork);

	if (cof < 0) {
		int ret = sv_nl_copy_on_fork();

		/* No NETLINK_RDMA at all (no ib_core): no device of this
		 * process can pin a page. Its devices can only be uroce's,
		 * whose "DMA" is the process's own thread writing through
		 * the parent's addresses, which fork never takes away: fork
		 * is as safe as on a copy-on-fork kernel, and the pages
		 * registered only in part (Python's objects beside a
		 * registered buffer) stay the child's. Any other failure to
		 * ask: not reported. */
		cof = ret > 0 || ret == -EPROTONOSUPPORT;
		if (ret < 0)
			sv_dbg("could not ask the kernel about copy-on-fork: %s%s", strerror(-ret),
			       cof ? " (no RDMA in the kernel: nothing pins pages, fork is safe)" : "");
		atomic_store(&copy_on_fork, cof);
	}
	return cof;
}

static int notes_flush(int for_good);

/* Decide, once, how ranges enter the map (exact_pages). Before the
 * first insert: ibv_fork_init(), sv_fork_range_add, the stats. */
static int exact_pages_decide(void)
{
	int exact = atomic_load(&exact_pages);

	if (exact < 0) {
		exact = copy_on_fork_reported() && !env_on("SOFTVERBS_FORK_WHOLE_PAGES");
		atomic_store(&exact_pages, exact);
		sv_dbg("%s", exact ? "copy-on-fork kernel: pages registered only in part are left to the kernel's copy at fork"
				   : "registered ranges are rounded out to whole pages");
	}
	return exact;
}

/* ibv_fork_init(), also run by fork_setup() at load.
 * 0 or a positive errno. */
static int fork_init(void)
{
	void *page;
	int ret;

	if (env_on("RDMAV_HUGEPAGES_SAFE"))
		atomic_store(&huge_safe, 1);
	if (range_map_is_active(&fork_map))
		return 0;
	/* Even where the kernel reports copy-on-fork, protection is applied
	 * to the pages registered memory covers entirely: the kernel would
	 * otherwise copy every pinned page into the child eagerly, so fork()
	 * time and the child's memory would grow with the registered size
	 * (rdma-core 56's ibv_fork_init() does nothing there, and pays
	 * that). The pages registered only in part are left to that copy.
	 * ibv_is_fork_initialized() still answers IBV_FORK_UNNEEDED there,
	 * as its man page says. */
	exact_pages_decide();

	/* Can madvise(MADV_DONTFORK) be used here at all? */
	page = mmap(NULL, base_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return errno;
	ret = probe_advise(page, base_page, MADV_DONTFORK) ||
	      probe_advise(page, base_page, MADV_DOFORK);
	munmap(page, base_page);
	if (ret) {
		sv_err("madvise(MADV_DONTFORK) is not usable here: %s", strerror(errno));
		return ENOSYS;
	}

	ret = notes_flush(1);
	if (!ret)
		ret = range_map_activate(&fork_map);
	if (ret < 0) {
		sv_err("could not protect the ranges registered before ibv_fork_init(): %s%s",
		       strerror(-ret),
		       ret == -EINVAL ? " (memory in a hugetlbfs mapping? set RDMAV_HUGEPAGES_SAFE)" : "");
		return -ret;
	}
	sv_info("fork safety on%s", atomic_load(&huge_safe) ? " (huge-page aligned)" : "");
	return 0;
}

/* RDMAV_FORK_SAFE / IBV_FORK_SAFE (set and not "0"): fork safety on.
 * A failure is a warning: the program runs on without it. */
static void fork_env_apply(const char *when)
{
	int ret;

	if (env_on("RDMAV_HUGEPAGES_SAFE"))
		atomic_store(&huge_safe, 1);
	if (!env_on("RDMAV_FORK_SAFE") && !env_on("IBV_FORK_SAFE"))
		return;
	ret = fork_init();
	if (ret)
		sv_warn("RDMAV_FORK_SAFE is set but fork safety could not be enabled %s: %s",
			when, strerror(ret));
}

static void fork_env_first_use(void)
{
	fork_env_apply("at the first device listing or registration");
}

/* rdma-core reads the variables when the device list is first built, so
 * a program may setenv() them in main(); they are read again then (or at
 * the first registration, if that comes first). Only ever turns on. */
void sv_fork_env_first_use(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	/* on every registration's path: after the first call, pthread_once
	 * is one load and a return (an atomic flag of our own in front of it
	 * saved a call but is a race to helgrind and drd, which check this
	 * path in CI) */
	pthread_once(&once, fork_env_first_use);
}

/* At library load, before main() and before any library that depends on
 * this one can call a verb (the loader runs a library's constructors
 * before those of the objects that need it), after the log's: the range
 * map, the pthread_atfork handlers, and the environment (RDMAV_FORK_SAFE,
 * IBV_FORK_SAFE, RDMAV_HUGEPAGES_SAFE; read once more at the first device
 * listing or registration, for a program that sets them in main()). */
__attribute__((constructor(102))) static void fork_setup(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	base_page = ps > 0 ? (size_t)ps : 4096;
	page_shift = (unsigned int)__builtin_ctzl(base_page);
	/* bytes, madvised in base pages */
	range_map_init(&fork_map, 0, NULL);
	range_map_set_grain(&fork_map, page_shift);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	fork_env_apply("at library load");
}

/* The page size backing each end of [first, end) (bytes): 0 when both
 * ends lie in base-page mappings, else the larger huge page size of the
 * two (*lo_ps, *hi_ps get each end's, for widening). Ranges spanning
 * several mappings only need their ends looked at: mappings wholly
 * inside are covered whatever their page size. */
static size_t huge_size(uintptr_t first, uintptr_t end, size_t *lo_ps, size_t *hi_ps)
{
	uintptr_t vma_end = 0;
	size_t lo = sv_mapping_page_size(first, &vma_end), hi = lo;

	/* Ask again for the last byte unless it lies in the same mapping. */
	if (!lo || end - 1 >= vma_end)
		hi = sv_mapping_page_size(end - 1, NULL);
	*lo_ps = lo > base_page ? lo : base_page;
	*hi_ps = hi > base_page ? hi : base_page;
	return *lo_ps > base_page || *hi_ps > base_page ? (*lo_ps > *hi_ps ? *lo_ps : *hi_ps) : 0;
}

/* Round [*first, *end) out to the page size backing each end (whole-page
 * mode). 1 when an end lies in a mapping with pages larger than the base
 * page. */
static int widen(uintptr_t *first, uintptr_t *end)
{
	size_t lo_ps, hi_ps;

	if (!huge_size(*first, *end, &lo_ps, &hi_ps))
		return 0;
	*first &= ~(uintptr_t)(lo_ps - 1);
	*end = (*end + hi_ps - 1) & ~(uintptr_t)(hi_ps - 1);
	return 1;
}

/* The flags of a range in a huge-page mapping in exact mode: the huge
 * page is the unit of DONTFORK there (the same rule at its size), or 0. */
static unsigned int huge_grain(uintptr_t first, uintptr_t end)
{
	size_t lo_ps, hi_ps, ps = huge_size(first, end, &lo_ps, &hi_ps);

	return ps ? RANGE_MAP_HUGE | RANGE_MAP_GRAIN(__builtin_ctzl(ps)) : 0;
}

/* A range in a hugetlbfs mapping that is aligned to its huge pages gets
 * no EINVAL from madvise to give it away, so ranges aligned to the
 * smallest huge page (2 MiB on x86-64) are looked up: rare for ordinary
 * buffers except large ones, whose pinning costs far more than the one
 * lookup (~0.6 us). In exact mode, a range that covers no whole huge
 * page gets no madvise either: looked up only once an insert says so. */
#define SMALLEST_HUGE_PAGE (2ul << 20)

static int huge_aligned(uintptr_t first, uintptr_t end)
{
	return !(first & (SMALLEST_HUGE_PAGE - 1)) && !(end & (SMALLEST_HUGE_PAGE - 1));
}

/* [*first, *end) in bytes, with room to round the end up to a huge page
 * without overflow (user addresses end far below the top). */
static int to_bytes(const void *base, size_t len, uintptr_t *first, uintptr_t *end)
{
	uintptr_t s = (uintptr_t)base;

	if (len > UINTPTR_MAX - s || s + len > UINTPTR_MAX - (1ul << 30)) {
		sv_err("range %p + %zu wraps around the address space", base, len);
		return -EINVAL;
	}
	*first = s;
	*end = s + len;
	return 0;
}

static int range_add_exact(void *base, size_t len, uintptr_t first, uintptr_t end)
{
	unsigned int flags = 0;
	int ret;

	if (atomic_load(&huge_safe) || huge_aligned(first, end))
		flags = huge_grain(first, end);
	ret = range_map_insert(&fork_map, first, end, flags);
	/* A hugetlbfs mapping shows itself by the kernel's EINVAL (it cannot
	 * be split at a base page boundary) or by the map (another range in
	 * the same huge page): only then is the page size looked up. */
	if ((ret == -EINVAL || ret == RANGE_MAP_WIDEN) && !flags && (flags = huge_grain(first, end))) {
		sv_dbg("%p + %zu lies in a huge-page mapping: its pages are %lu KiB", base, len,
		       (1ul << RANGE_MAP_GRAIN_SHIFT(flags)) >> 10);
		ret = range_map_insert(&fork_map, first, end, flags);
	}
	return ret;
}

static int range_add_whole(void *base, size_t len, uintptr_t first, uintptr_t end)
{
	unsigned int flags = 0;
	int ret;

	/* Partly registered pages become DONTFORK whole: the child loses
	 * their other bytes (a kernel without copy-on-fork would hand it the
	 * pinned page otherwise, and the parent a copy). */
	if ((first | end) & (base_page - 1)) {
		uintptr_t fp = first & ~(uintptr_t)(base_page - 1);
		uintptr_t lp = (end - 1) & ~(uintptr_t)(base_page - 1);

		sv_dbg("%p + %zu covers page %#lx%s only in part: all of %s is MADV_DONTFORK, a child loses the rest",
		       base, len, (unsigned long)(first & (base_page - 1) ? fp : lp),
		       (first & (base_page - 1)) && (end & (base_page - 1)) && fp != lp ? " (and the last)" : "",
		       (first & (base_page - 1)) && (end & (base_page - 1)) && fp != lp ? "both" : "it");
	}
	first &= ~(uintptr_t)(base_page - 1);
	end = (end + base_page - 1) & ~(uintptr_t)(base_page - 1);
	if ((atomic_load(&huge_safe) || huge_aligned(first, end)) && widen(&first, &end))
		flags = RANGE_MAP_HUGE;
	ret = range_map_insert(&fork_map, first, end, flags);
	/* Without RDMAV_HUGEPAGES_SAFE, a hugetlbfs mapping shows itself by
	 * the kernel's EINVAL or by the map (another range in the same huge
	 * page): only then is the page size looked up. */
	if ((ret == -EINVAL || ret == RANGE_MAP_WIDEN) && !flags && widen(&first, &end)) {
		sv_dbg("%p + %zu lies in a huge-page mapping: widened to [%#lx, %#lx)", base, len,
		       (unsigned long)first, (unsigned long)end);
		ret = range_map_insert(&fork_map, first, end, RANGE_MAP_HUGE);
	}
	return ret;
}

static int range_add(void *base, size_t len)
{
	uintptr_t first, end;
	int ret;

	ret = to_bytes(base, len, &first, &end);
	if (ret)
		return ret;
	if (exact_pages_decide())
		ret = range_add_exact(base, len, first, end);
	else
		ret = range_add_whole(base, len, first, end);
	if (ret == RANGE_MAP_WIDEN) /* the lookup disagrees with the map */
		ret = -EINVAL;
	if (ret)
		sv_err("cannot protect %p + %zu from fork: %s", base, len, strerror(-ret));
	return ret;
}

int sv_fork_range_add(void *base, size_t len)
{
	if (!base || !len)
		return 0;
	sv_fork_env_first_use();
	return range_add(base, len);
}

int sv_fork_mr_protect(void *base, size_t len)
{
	/* sv_fork_mr_protecting read the environment already */
	return base && len ? range_add(base, len) : 0;
}

int sv_fork_range_del(void *base, size_t len)
{
	uintptr_t first, end;
	int widened = 0;
	int ret;

	if (!base || !len)
		return 0;
	ret = to_bytes(base, len, &first, &end);
	if (ret)
		return ret;
	if (exact_pages_decide()) {
		/* exact bytes, as inserted (a huge page size is in the map) */
		ret = range_map_remove(&fork_map, first, end, 1);
	} else {
		first &= ~(uintptr_t)(base_page - 1);
		end = (end + base_page - 1) & ~(uintptr_t)(base_page - 1);
		if (atomic_load(&huge_safe) || huge_aligned(first, end)) {
			widen(&first, &end);
			widened = 1;
		}
		ret = range_map_remove(&fork_map, first, end, widened);
		if (ret == RANGE_MAP_WIDEN) {
			widen(&first, &end);
			ret = range_map_remove(&fork_map, first, end, 1);
		}
	}
	if (ret)
		sv_err("cannot release %p + %zu: %s", base, len, strerror(-ret));
	return ret;
}

/* ---- MR notes ------------------------------------------------------------ */

/* Fibonacci hashing: the top bits of the product. MR pointers come
 * from malloc roughly in arithmetic progression, which this spreads
 * evenly whatever the heap's (randomised) base, so probe runs, and the
 * cost of a note, do not change from run to run. notes.lock held. */
static size_t note_hash(const void *mr)
{
	return (size_t)((((uint64_t)(uintptr_t)mr >> 4) *
			 0x9e3779b97f4a7c15ull) >> notes.shift);
}

static int note_live(const struct mr_note *n)
{
	return n->mr && n->mr != NOTE_GONE;
}

/* Room for one more note; notes.lock held. 0 or -ENOMEM. A table
 * half full of notes and marks is rebuilt without the marks: twice the
 * size if a quarter of it are notes, else the same size (at least a
 * quarter of it free for inserts until the next rebuild). */
static int notes_reserve(void)
{
	struct mr_note *old = notes.slot, *fresh;
	size_t old_cap = old ? notes.mask + 1 : 0;
	size_t cap;

	if (old && (notes.count + notes.gone + 1) * 2 <= old_cap)
		return 0;
	if (!old)
		cap = 64;
	else
		cap = (notes.count + 1) * 4 > old_cap ? old_cap * 2 : old_cap;
	/* rare, and the lock is not the map's */
	fresh = calloc(cap, sizeof(*fresh));
	if (!fresh)
		return -ENOMEM;
	notes.slot = fresh;
	notes.mask = cap - 1;
	notes.shift = 64 - (unsigned int)__builtin_ctzll((unsigned long long)cap);
	notes.gone = 0;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j;

		if (!note_live(&old[i]))
			continue;
		for (j = note_hash(old[i].mr) & notes.mask; fresh[j].mr;
		     j = (j + 1) & notes.mask)
			;
		fresh[j] = old[i];
	}
	free(old);
	return 0;
}

/* Mark slot i's note removed; notes.lock held. */
static void note_drop(size_t i)
{
	notes.slot[i].mr = NOTE_GONE;
	notes.gone++;
	notes.count--;
	atomic_store_explicit(&notes_count, notes.count, memory_order_relaxed);
}

/* Remove the note {mr, base, len}; notes.lock held. 1 if it was there. */
static int notes_remove(const void *mr, void *base, size_t len)
{
	for (size_t i = note_hash(mr) & notes.mask; notes.slot[i].mr;
	     i = (i + 1) & notes.mask)
		if (notes.slot[i].mr == mr && notes.slot[i].base == base &&
		    notes.slot[i].len == len) {
			note_drop(i);
			return 1;
		}
	return 0;
}

/* Put every note into the range map (refcounts; madvise only if the map
 * is active). for_good: from now on MRs go to the map directly (fork
 * safety is coming on). 0 or -errno; on error the notes not moved stay
 * notes and nothing else changes. */
static int notes_flush(int for_good)
{
	int ret = 0;

	notes_lock();
	for (size_t i = 0; notes.count && i <= notes.mask; i++) {
		if (!note_live(&notes.slot[i]))
			continue;
		ret = range_add(notes.slot[i].base, notes.slot[i].len);
		if (ret)
			break;
		note_drop(i);
	}
	if (!ret && for_good) {
		notes.to_map = 1;
		atomic_store(&notes_to_map, 1);
	}
	notes_unlock();
	return ret;
}

int sv_fork_mr_protecting(void)
{
	sv_fork_env_first_use();
	return atomic_load_explicit(&notes_to_map, memory_order_acquire);
}

int sv_fork_mr_record(const void *mr, void *base, size_t len)
{
	int ret;

	if (!base || !len)
		return 0;
	notes_lock();
	if (notes.to_map) {
		/* ibv_fork_init() came in between: protect it now */
		notes_unlock();
		return range_add(base, len);
	}
	ret = notes_reserve();
	if (!ret) {
		size_t i;

		/* the first free slot or mark of the probe run (MR pointers
		 * are unique: no note for mr is further along) */
		for (i = note_hash(mr) & notes.mask; note_live(&notes.slot[i]);
		     i = (i + 1) & notes.mask)
			;
		if (notes.slot[i].mr == NOTE_GONE)
			notes.gone--;
		notes.slot[i] = (struct mr_note){ mr, base, len };
		notes.count++;
		atomic_store_explicit(&notes_count, notes.count,
				      memory_order_relaxed);
	}
	notes_unlock();
	return ret;
}

int sv_fork_mr_forget(const void *mr, void *base, size_t len)
{
	int found = 0;

	if (!base || !len)
		return 0;
	if (atomic_load_explicit(&notes_count, memory_order_relaxed)) {
		notes_lock();
		found = notes_remove(mr, base, len);
		notes_unlock();
	}
	/* not a note: it went into the map (fork safety on, or the stats
	 * built the map meanwhile) */
	return found ? 0 : sv_fork_range_del(base, len);
}

/* ---- public ------------------------------------------------------------ */

SV_EXPORT int ibv_fork_init(void)
{
	return fork_init();
}

SV_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	if (copy_on_fork_reported())
		return IBV_FORK_UNNEEDED;
	return range_map_is_active(&fork_map) ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
}

SV_EXPORT int ibv_dontfork_range(void *base, size_t size)
{
	int ret;

	ret = sv_fork_range_add(base, size);
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

SV_EXPORT int ibv_dofork_range(void *base, size_t size)
{
	uintptr_t first, end;
	int ret;

	/* Cleanup code may release what it never registered: rdma-core
	 * returns 0 for that, so do the same and change nothing. A range
	 * only partly registered is still an error (EINVAL, nothing done). */
	if (base && size && !to_bytes(base, size, &first, &end) &&
	    !range_map_overlaps(&fork_map, first, end)) {
		sv_dbg("ibv_dofork_range(%p, %zu): nothing registered there, nothing to do", base,
		       size);
		return 0;
	}
	ret = sv_fork_range_del(base, size);
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

SV_EXPORT int softverbs_fork_stats(struct softverbs_fork_stats *stats, size_t size)
{
	struct softverbs_fork_stats st;
	struct range_map_stats ms;

	if (!stats || size < SOFTVERBS_FORK_STATS_V1_SIZE)
		return EINVAL;
	/* the stats count what is registered: build the map from the notes
	 * (refcounts only while fork safety is off) */
	exact_pages_decide();
	if (notes_flush(0))
		sv_dbg("fork stats: some MR notes could not enter the map");
	range_map_get_stats(&fork_map, &ms);
	memset(&st, 0, sizeof(st));
	st.fork_safe = range_map_is_active(&fork_map);
	st.huge_pages_safe = atomic_load(&huge_safe);
	st.live_ranges = ms.live_ranges;
	st.protected_pages = st.fork_safe ? ms.covered_pages : 0;
	st.partial_pages = ms.pages - ms.covered_pages;
	st.madvise_calls = ms.madvise_calls;
	st.madvise_failures = ms.madvise_failures;
	st.tracked_pages = ms.pages;
	st.copy_on_fork = atomic_load(&copy_on_fork) > 0;
	memcpy(stats, &st, size < sizeof(st) ? size : sizeof(st));
	return 0;
}

/* ---- test seams ---------------------------------------------------------- */

struct range_map *sv_fork_map(void)
{
	return &fork_map;
}

void sv_fork_set_advise(range_map_advise_fn advise)
{
	range_map_set_advise(&fork_map, advise);
	probe_advise = advise ? advise : madvise;
}

void sv_fork_set_copy_on_fork(int cof)
{
	atomic_store(&copy_on_fork, cof);
	atomic_store(&exact_pages, -1); /* decided again (the map is empty) */
}
