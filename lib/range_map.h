/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fork-safety range map: which memory is registered, how many times,
 * and (once the map is active) which pages are MADV_DONTFORK. It knows
 * nothing of devices.
 *
 * A sorted array of disjoint [first, end) ranges of units, each with a
 * refcount >= 1; neighbours that touch and have the same refcount and
 * flags are always merged. A unit is 1 << unit_shift bytes: fork.c uses
 * bytes (unit_shift 0), the unit tests and benchmarks may use pages, so
 * that a range ending at the top of the address space has no
 * overflowing end.
 *
 * madvise works on pages of 1 << grain_shift units (range_map_set_grain;
 * 0: every unit is a page, the old page-only map). The map keeps a page
 * MADV_DONTFORK exactly while the union of its ranges covers every unit
 * of it: a page only partly registered is left alone, for a kernel that
 * copies DMA-pinned pages into the child at fork (copy-on-fork; fork.c
 * rounds ranges out to whole pages itself where the kernel does not).
 * A range in a huge-page mapping carries the huge page's size in its
 * flags (RANGE_MAP_GRAIN), and the rule then holds for huge pages.
 *
 * The array is stored in blocks of at most RANGE_MAP_BLOCK entries under
 * a sorted array of block pointers: a flat array must memmove half of
 * itself on every insert or remove, which at 30,000 ranges cost 35 us a
 * call (measured); a block bounds that to one or two blocks.
 *
 * While active, madvise(MADV_DONTFORK) is called on each 0->1 edge of an
 * insert and MADV_DOFORK on each 1->0 edge of a remove; edges that touch
 * become one call. Every operation is all or nothing: the map and the
 * kernel agree after any failure.
 *
 * One mutex. Capacity is grown before it is taken (the lock is dropped
 * and retaken if a reservation turns out too small), so nothing here
 * calls malloc with the lock held. */
#ifndef SV_RANGE_MAP_H
#define SV_RANGE_MAP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* madvise(2) with the same contract: 0, or -1 with errno. A seam so unit
 * tests can inject failures. */
typedef int (*range_map_advise_fn)(void *addr, size_t len_bytes, int advice);

/* The range lies (at least partly) in a mapping whose pages are larger
 * than the base page: removals must be widened the same way inserts
 * were. Ranges with different flags never merge. */
#define RANGE_MAP_HUGE 0x1u
/* The range's DONTFORK pages are 1 << shift units (a huge page), not the
 * map's grain: bits 8..15 of the flags, 0 for the map's own. */
#define RANGE_MAP_GRAIN(shift) ((unsigned int)(shift) << 8)
#define RANGE_MAP_GRAIN_SHIFT(flags) (((flags) >> 8) & 0xffu)

struct range_map_entry {
	uintptr_t first;      /* first unit */
	uintptr_t end;        /* one past the last unit */
	unsigned long refcnt; /* >= 1 */
	unsigned int flags;   /* RANGE_MAP_* */
};

struct range_map_stats {
	uint64_t live_ranges;
	uint64_t units;           /* units with refcount >= 1 */
	uint64_t pages;           /* pages with a unit of refcount >= 1 */
	uint64_t covered_pages;   /* pages whose every unit has one: DONTFORK while active */
	uint64_t madvise_calls;
	uint64_t madvise_failures;
};

#define RANGE_MAP_BLOCK 16

struct range_map_block {
	size_t n;
	struct range_map_entry e[RANGE_MAP_BLOCK];
};

/* A block and the bounds of its last range, kept beside it so that the
 * search over blocks reads one contiguous array. */
struct range_map_slot {
	uintptr_t last_first, last_end;
	struct range_map_block *b;
};

struct range_map {
	pthread_mutex_t lock;
	unsigned int unit_shift;           /* set at init, then read-only */
	unsigned int grain_shift;          /* set before the first insert, then read-only */
	uintptr_t grain_mask;              /* (1 << grain_shift) - 1, as grain_shift */
	unsigned int huge_shifts;          /* guarded by lock: RANGE_MAP_GRAIN shifts ever inserted, a bit each */
	range_map_advise_fn advise;        /* guarded by lock */
	struct range_map_slot *blk;        /* guarded by lock: sorted, none empty */
	size_t nblk, blk_cap;              /* guarded by lock */
	size_t n;                          /* guarded by lock: entries in all blocks */
	/* Reserved before each operation (never allocated under the lock),
	 * all guarded by lock: */
	struct range_map_block **spare;    /* unused blocks */
	size_t nspare, spare_cap;
	struct range_map_entry *in, *out;  /* an operation's window, before and after */
	size_t in_cap, out_cap;
	int active;                        /* guarded by lock: madvise on edges */
	uint64_t madvise_calls;            /* guarded by lock */
	uint64_t madvise_failures;         /* guarded by lock */
};

void range_map_init(struct range_map *m, unsigned int unit_shift, range_map_advise_fn advise);
/* madvise pages of 1 << grain_shift units (default 0). Before the first
 * insert. */
void range_map_set_grain(struct range_map *m, unsigned int grain_shift);
/* Frees the array. Nobody may use the map concurrently. */
void range_map_destroy(struct range_map *m);

/* Swap the madvise seam (tests). Returns the previous one. */
range_map_advise_fn range_map_set_advise(struct range_map *m, range_map_advise_fn advise);

/* Returned by range_map_insert (without RANGE_MAP_HUGE) and
 * range_map_remove (without widened) when an end of [first, end) lies
 * in a RANGE_MAP_HUGE range: widen to the backing page size (or, for a
 * map that leaves partial pages alone, find the RANGE_MAP_GRAIN) and
 * call again, saying so. */
#define RANGE_MAP_WIDEN 1

/* Add one reference to every unit of [first, end). While active, the
 * pages it leaves wholly covered that were not become MADV_DONTFORK
 * first. flags are ORed into
 * every range covering [first, end); RANGE_MAP_HUGE also says the caller
 * widened. 0, RANGE_MAP_WIDEN, or -errno (the failed madvise's errno,
 * -ENOMEM when the array cannot grow, -EINVAL for an empty or inverted
 * range); on error nothing changed. */
int range_map_insert(struct range_map *m, uintptr_t first, uintptr_t end, unsigned int flags);

/* Drop one reference from every unit of [first, end). While active, the
 * pages no longer wholly covered become MADV_DOFORK (an ENOMEM from madvise means
 * part of the range is no longer mapped; the mapped parts were still
 * restored, so that counts as success). 0, RANGE_MAP_WIDEN, or -errno
 * (-EINVAL when some unit of the range holds no reference); on error
 * nothing changed. */
int range_map_remove(struct range_map *m, uintptr_t first, uintptr_t end, int widened);

/* Make the map active: MADV_DONTFORK on every page its ranges cover,
 * touching pages in one call. An ENOMEM (registered memory since unmapped) is
 * logged and tolerated as in range_map_remove. 0 if already active; else
 * 0 or -errno, and on error the map stays inactive and no page is left
 * MADV_DONTFORK by it. */
int range_map_activate(struct range_map *m);

int range_map_is_active(struct range_map *m);

/* 1 if every unit of [first, end) holds at least one reference. */
int range_map_covers(struct range_map *m, uintptr_t first, uintptr_t end);

/* 1 if some unit of [first, end) holds a reference. */
int range_map_overlaps(struct range_map *m, uintptr_t first, uintptr_t end);

/* Refcount of one unit (0 when not in the map). */
unsigned long range_map_refcount(struct range_map *m, uintptr_t unit);

void range_map_get_stats(struct range_map *m, struct range_map_stats *st);

/* Copy up to max entries (under the lock, into caller memory); returns
 * the number of entries in the map. For tests and debugging. */
size_t range_map_snapshot(struct range_map *m, struct range_map_entry *out, size_t max);

/* For pthread_atfork: prepare takes the lock, parent and child release
 * it, so a child forked while another thread held the lock can use the
 * map. The child's map is emptied first (it stays active): none of the
 * parent's registrations is the child's, and their DONTFORK pages are
 * not even in its address space. */
void range_map_fork_prepare(struct range_map *m);
void range_map_fork_parent(struct range_map *m);
void range_map_fork_child(struct range_map *m);

#endif
