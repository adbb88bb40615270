/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "log.h"
#include "probe.h"
#include "range_map.h"

#define BLK RANGE_MAP_BLOCK
/* Entries per block when a window is written back: room to grow. */
#define FILL (BLK * 3 / 4)

void range_map_init(struct range_map *m, unsigned int unit_shift, range_map_advise_fn advise)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	m->unit_shift = unit_shift;
	m->advise = advise ? advise : madvise;
}

void range_map_set_grain(struct range_map *m, unsigned int grain_shift)
{
	pthread_mutex_lock(&m->lock);
	m->grain_shift = grain_shift;
	m->grain_mask = ((uintptr_t)1 << grain_shift) - 1;
	pthread_mutex_unlock(&m->lock);
}

void range_map_destroy(struct range_map *m)
{
	for (size_t i = 0; i < m->nblk; i++)
		free(m->blk[i].b);
	for (size_t i = 0; i < m->nspare; i++)
		free(m->spare[i]);
	free(m->blk);
	free(m->spare);
	free(m->in);
	free(m->out);
	pthread_mutex_destroy(&m->lock);
	memset(m, 0, sizeof(*m));
}

range_map_advise_fn range_map_set_advise(struct range_map *m, range_map_advise_fn advise)
{
	range_map_advise_fn old;

	pthread_mutex_lock(&m->lock);
	old = m->advise;
	m->advise = advise ? advise : madvise;
	pthread_mutex_unlock(&m->lock);
	return old;
}

static uintptr_t umax(uintptr_t a, uintptr_t b)
{
	return a > b ? a : b;
}

static uintptr_t umin(uintptr_t a, uintptr_t b)
{
	return a < b ? a : b;
}

static size_t zmax(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Round down and up to a page of g units (a power of 2). */
static uintptr_t pdown(uintptr_t x, uintptr_t g)
{
	return x & ~(g - 1);
}

static uintptr_t pup(uintptr_t x, uintptr_t g)
{
	return (x + g - 1) & ~(g - 1);
}

/* ---- searching a sorted run of entries -------------------------------- */

/* First index whose range ends after page `first`. */
static size_t find_lo(const struct range_map_entry *v, size_t n, uintptr_t first)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (v[mid].end > first)
			b = mid;
		else
			a = mid + 1;
	}
	return a;
}

/* First index at or after lo whose range starts at or after page `end`.
 * Usually lo itself or the next: look there before searching. */
static size_t find_hi(const struct range_map_entry *v, size_t lo, size_t n, uintptr_t end)
{
	size_t a = lo, b = n;

	for (; a < n && a < lo + 2; a++)
		if (v[a].first >= end)
			return a;
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (v[mid].first >= end)
			b = mid;
		else
			a = mid + 1;
	}
	return a;
}

/* First block whose last range ends after `first` (lock held). */
static size_t block_lo(const struct range_map *m, uintptr_t first)
{
	size_t a = 0, b = m->nblk;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (m->blk[mid].last_end > first)
			b = mid;
		else
			a = mid + 1;
	}
	return a;
}

/* First block at or after lo whose last range starts at or after `end`
 * (lock held). Usually lo itself. */
static size_t block_hi(const struct range_map *m, size_t lo, uintptr_t end)
{
	size_t a = lo, b = m->nblk;

	if (a < b && m->blk[a].last_first >= end)
		return a;
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (m->blk[mid].last_first >= end)
			b = mid;
		else
			a = mid + 1;
	}
	return a;
}

static void slot_set(struct range_map_slot *s, struct range_map_block *b)
{
	s->b = b;
	s->last_first = b->e[b->n - 1].first;
	s->last_end = b->e[b->n - 1].end;
}

/* ---- the window: the blocks an operation reads and rewrites ----------- */

struct window {
	size_t b0, b1;  /* blocks [b0, b1) */
	size_t nin;     /* their entries */
	/* The entries: the block itself when there is one, else a copy in
	 * m->in. */
	const struct range_map_entry *v;
	size_t lo, hi;  /* in v: the ranges overlapping [first, end) */
	size_t bl, ol;  /* the block holding lo, and lo in it (SIZE_MAX: none) */
};

/* Blocks holding the ranges overlapping [first, end) and both their
 * neighbours (which may merge with them). Lock held. */
static void window_locate(const struct range_map *m, uintptr_t first, uintptr_t end, struct window *w)
{
	size_t bl = block_lo(m, first), bh = block_hi(m, bl, end);

	w->b0 = bl;
	w->bl = bl;
	w->ol = SIZE_MAX;
	if (bl == m->nblk) {
		if (bl > 0)
			w->b0 = bl - 1;
	} else {
		const struct range_map_block *b = m->blk[bl].b;

		/* The left neighbour is in the block before when the first
		 * overlapping range opens this one. */
		w->ol = find_lo(b->e, b->n, first);
		if (w->ol == 0 && bl > 0)
			w->b0 = bl - 1;
	}
	w->b1 = bh < m->nblk ? bh + 1 : m->nblk;
	w->nin = 0;
	for (size_t i = w->b0; i < w->b1; i++)
		w->nin += m->blk[i].b->n;
	/* Fold a small window into the next block, so blocks do not
	 * dwindle to a few entries each. */
	if (w->nin < BLK / 2 && w->b1 < m->nblk && w->nin + m->blk[w->b1].b->n <= FILL) {
		w->nin += m->blk[w->b1].b->n;
		w->b1++;
	}
}

/* Most ranges a rewrite of nin entries can produce: each one, a gap
 * before each and after the last, two split-off ends. */
static size_t out_max(size_t nin)
{
	return 2 * nin + 3;
}

static size_t blocks_for(size_t n)
{
	return n == 0 ? 0 : n <= BLK ? 1 : (n + FILL - 1) / FILL;
}

struct need {
	size_t in, out, spares, blk_cap, spare_cap;
};

static void window_need(const struct range_map *m, const struct window *w, struct need *nd)
{
	size_t k_old = w->b1 - w->b0, k_new = blocks_for(out_max(w->nin));

	nd->in = w->nin;
	nd->out = out_max(w->nin);
	nd->spares = k_new > k_old ? k_new - k_old : 0;
	nd->blk_cap = m->nblk - k_old + k_new;
	/* Every block may come to rest in the spare list. */
	nd->spare_cap = m->nblk + zmax(m->nspare, nd->spares);
}

static int need_met(const struct range_map *m, const struct need *nd)
{
	return m->in_cap >= nd->in && m->out_cap >= nd->out && m->nspare >= nd->spares &&
	       m->blk_cap >= nd->blk_cap && m->spare_cap >= nd->spare_cap;
}

/* ---- capacity: lock held on entry and exit, dropped inside ------------ */

static size_t grown(size_t cap, size_t need)
{
	return need <= cap ? 0 : zmax(zmax(2 * cap, need), 16);
}

/* Reserve what nd asks for without calling malloc (or free) under the
 * lock: drop it, allocate, retake it, install what is still needed, and
 * free the rest after dropping it again. The caller must recompute
 * everything it derived from the map. */
static int grow(struct range_map *m, const struct need *nd)
{
	size_t in_cap = grown(m->in_cap, nd->in), out_cap = grown(m->out_cap, nd->out);
	size_t blk_cap = grown(m->blk_cap, nd->blk_cap);
	size_t nnew = nd->spares > m->nspare ? nd->spares - m->nspare + 4 : 0;
	size_t spare_cap = grown(m->spare_cap, zmax(nd->spare_cap, m->nblk + m->nspare + nnew));
	struct range_map_entry *in = NULL, *out = NULL;
	struct range_map_slot *blk = NULL;
	struct range_map_block **spare = NULL, **blocks = NULL;
	size_t nblocks = 0;
	int err = 0;

	pthread_mutex_unlock(&m->lock);
	if (in_cap && !(in = malloc(in_cap * sizeof(*in))))
		err = -ENOMEM;
	if (out_cap && !(out = malloc(out_cap * sizeof(*out))))
		err = -ENOMEM;
	if (blk_cap && !(blk = malloc(blk_cap * sizeof(*blk))))
		err = -ENOMEM;
	if (spare_cap && !(spare = malloc(spare_cap * sizeof(*spare))))
		err = -ENOMEM;
	if (nnew && !(blocks = malloc(nnew * sizeof(*blocks))))
		err = -ENOMEM;
	for (; blocks && nblocks < nnew; nblocks++)
		if (!(blocks[nblocks] = malloc(sizeof(**blocks)))) {
			err = -ENOMEM;
			break;
		}
	pthread_mutex_lock(&m->lock);

	if (!err) {
		/* Install what another thread has not already grown. */
		if (in && m->in_cap < in_cap) {
			struct range_map_entry *t = m->in;

			m->in = in;
			m->in_cap = in_cap;
			in = t;
		}
		if (out && m->out_cap < out_cap) {
			struct range_map_entry *t = m->out;

			m->out = out;
			m->out_cap = out_cap;
			out = t;
		}
		if (blk && m->blk_cap < blk_cap) {
			struct range_map_slot *t = m->blk;

			if (m->nblk)
				memcpy(blk, m->blk, m->nblk * sizeof(*blk));
			m->blk = blk;
			m->blk_cap = blk_cap;
			blk = t;
		}
		if (spare && m->spare_cap < spare_cap) {
			struct range_map_block **t = m->spare;

			if (m->nspare)
				memcpy(spare, m->spare, m->nspare * sizeof(*spare));
			m->spare = spare;
			m->spare_cap = spare_cap;
			spare = t;
		}
		while (nblocks && m->nblk + m->nspare < m->spare_cap)
			m->spare[m->nspare++] = blocks[--nblocks];
	}
	pthread_mutex_unlock(&m->lock);
	free(in);
	free(out);
	free(blk);
	free(spare);
	while (nblocks)
		free(blocks[--nblocks]);
	free(blocks);
	pthread_mutex_lock(&m->lock);
	return err;
}

/* Lock, locate the window for [first, end), reserve what rewriting it
 * needs, and copy it to m->in. Returns with the lock held (0) or
 * released (-ENOMEM). */
static int window_open(struct range_map *m, uintptr_t first, uintptr_t end, struct window *w)
{
	struct need nd;
	size_t at = 0;

	pthread_mutex_lock(&m->lock);
	for (;;) {
		window_locate(m, first, end, w);
		window_need(m, w, &nd);
		if (need_met(m, &nd))
			break;
		if (grow(m, &nd)) {
			pthread_mutex_unlock(&m->lock);
			return -ENOMEM;
		}
	}
	if (w->b1 - w->b0 == 1) {
		w->v = m->blk[w->b0].b->e;
		/* Same block as the search in window_locate: reuse it. */
		if (w->ol != SIZE_MAX && w->bl == w->b0) {
			w->lo = w->ol;
			w->hi = find_hi(w->v, w->lo, w->nin, end);
			return 0;
		}
	} else {
		for (size_t i = w->b0; i < w->b1; i++) {
			memcpy(&m->in[at], m->blk[i].b->e, m->blk[i].b->n * sizeof(*m->in));
			at += m->blk[i].b->n;
		}
		w->v = m->in;
	}
	w->lo = find_lo(w->v, w->nin, first);
	w->hi = find_hi(w->v, w->lo, w->nin, end);
	return 0;
}

/* Replace the window's blocks by nout entries of m->out, spread evenly
 * over as few blocks as hold them with room to spare. Lock held;
 * capacity reserved by window_open. */
static void window_commit(struct range_map *m, const struct window *w, size_t nout)
{
	size_t k_old = w->b1 - w->b0, k_new = blocks_for(nout), at = 0;

	for (size_t i = w->b0; i < w->b1; i++)
		m->spare[m->nspare++] = m->blk[i].b;
	if (m->nblk > w->b1)
		memmove(&m->blk[w->b0 + k_new], &m->blk[w->b1], (m->nblk - w->b1) * sizeof(*m->blk));
	m->nblk = m->nblk - k_old + k_new;
	for (size_t j = 0; j < k_new; j++) {
		struct range_map_block *b = m->spare[--m->nspare];

		b->n = nout / k_new + (j < nout % k_new);
		memcpy(b->e, &m->out[at], b->n * sizeof(*b->e));
		at += b->n;
		slot_set(&m->blk[w->b0 + j], b);
	}
	m->n = m->n - w->nin + nout;
}

/* ---- madvise edges (lock held) ---------------------------------------- */

enum edge_kind {
	EDGE_GAPS, /* units of [first, end) with no reference: 0->1 on insert */
	EDGE_LAST, /* units of [first, end) with one reference: 1->0 on remove */
	EDGE_ALL,  /* every unit in the map: activation */
};

struct edge_it {
	const struct range_map_entry *v;
	enum edge_kind kind;
	size_t i, hi;
	uintptr_t cur, first, end;
	unsigned int run_shift; /* EDGE_ALL: the largest RANGE_MAP_GRAIN in the run */
};

/* Next maximal run of units whose state changes, as [*es, *ee). Runs
 * that touch are joined. */
static int edge_next(struct edge_it *it, uintptr_t *es, uintptr_t *ee)
{
	int found = 0;

	if (it->kind == EDGE_GAPS) {
		/* Gaps are separated by ranges, so they never touch. */
		while (it->cur < it->end) {
			const struct range_map_entry *x = &it->v[it->i];

			if (it->i < it->hi && x->first <= it->cur) {
				it->cur = umax(it->cur, x->end);
				it->i++;
				continue;
			}
			*es = it->cur;
			*ee = it->i < it->hi ? umin(x->first, it->end) : it->end;
			it->cur = *ee;
			return 1;
		}
		return 0;
	}

	for (; it->i < it->hi; it->i++) {
		const struct range_map_entry *x = &it->v[it->i];
		uintptr_t a = umax(x->first, it->first), b = umin(x->end, it->end);

		if (it->kind == EDGE_ALL || x->refcnt == 1) {
			if (found && a != *ee)
				return 1;
			if (!found) {
				*es = a;
				it->run_shift = 0;
			}
			*ee = b;
			if (RANGE_MAP_GRAIN_SHIFT(x->flags) > it->run_shift)
				it->run_shift = RANGE_MAP_GRAIN_SHIFT(x->flags);
			found = 1;
		} else if (found) {
			return 1;
		}
	}
	return found;
}

/* ---- from units to pages (lock held) ----------------------------------- */

/* 1 if every unit of [ps, pe) is in a range of the map or in [xa, xb)
 * (the range an insert adds; xa == xb for none). */
static int page_covered(const struct range_map *m, uintptr_t ps, uintptr_t pe, uintptr_t xa,
			uintptr_t xb)
{
	size_t bi = block_lo(m, ps), i = 0;
	uintptr_t cur = ps;

	if (bi < m->nblk)
		i = find_lo(m->blk[bi].b->e, m->blk[bi].b->n, ps);
	for (;;) {
		const struct range_map_entry *x;

		if (cur >= pe)
			return 1;
		if (xa <= cur && cur < xb) {
			cur = xb;
			continue;
		}
		while (bi < m->nblk && (i >= m->blk[bi].b->n || m->blk[bi].b->e[i].end <= cur)) {
			if (i >= m->blk[bi].b->n) {
				bi++;
				i = 0;
			} else {
				i++;
			}
		}
		if (bi == m->nblk)
			return 0;
		x = &m->blk[bi].b->e[i];
		if (x->first > cur)
			return 0;
		cur = x->end;
	}
}

/* Some range of the map with RANGE_MAP_GRAIN(shift) lies in the page of
 * 1 << shift units holding unit u. */
static int grain_in_page(const struct range_map *m, uintptr_t u, unsigned int shift)
{
	uintptr_t g = (uintptr_t)1 << shift, ps = pdown(u, g), pe = ps + g;

	for (size_t bi = block_lo(m, ps); bi < m->nblk; bi++) {
		const struct range_map_block *b = m->blk[bi].b;

		for (size_t i = find_lo(b->e, b->n, ps); i < b->n; i++) {
			if (b->e[i].first >= pe)
				return 0;
			if (RANGE_MAP_GRAIN_SHIFT(b->e[i].flags) == shift)
				return 1;
		}
	}
	return 0;
}

/* The page size, in units, at which an operation on [first, end) with
 * flags judges pages: the map's grain, or the huge page's when the range,
 * a range it overlaps (lo..hi of v) or a range in the same huge page as
 * one of its ends was registered in a huge-page mapping. Per operation,
 * not per page: a range spanning a small-page and a huge-page mapping is
 * judged at the huge size at both ends, which leaves more of the small
 * pages to the kernel's copy-on-fork, never fewer. */
static uintptr_t op_grain(const struct range_map *m, const struct range_map_entry *v, size_t lo,
			  size_t hi, uintptr_t first, uintptr_t end, unsigned int flags)
{
	unsigned int sh = RANGE_MAP_GRAIN_SHIFT(flags);

	for (size_t i = lo; i < hi; i++)
		if (RANGE_MAP_GRAIN_SHIFT(v[i].flags) > sh)
			sh = RANGE_MAP_GRAIN_SHIFT(v[i].flags);
	if (m->huge_shifts)
		for (unsigned int s = 31; s > sh; s--)
			if ((m->huge_shifts & (1u << s)) &&
			    (grain_in_page(m, first, s) || grain_in_page(m, end - 1, s)))
				sh = s;
	return (uintptr_t)1 << (sh > m->grain_shift ? sh : m->grain_shift);
}

/* The units [*lo, *hi) within which an insert (ins) or a remove of
 * [first, end) changes pages of g units: every page wholly inside the
 * range, and each end page it only partly holds whose coverage changes
 * -- for an insert, one that the map and the range then cover wholly,
 * for a remove, one that the map covered wholly. Runs of changed units
 * are rounded out to pages and clipped to this (page_next). */
static void op_span(const struct range_map *m, uintptr_t first, uintptr_t end, uintptr_t g, int ins,
		    uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t pf = pdown(first, g), pl = pdown(end - 1, g);
	uintptr_t xa = ins ? first : 0, xb = ins ? end : 0;

	*lo = first;
	*hi = end;
	if (first != pf)
		*lo = page_covered(m, pf, pf + g, xa, xb) ? pf : pf + g;
	if (end != pl + g) {
		if (pl == pf && first != pf)
			*hi = *lo == pf ? pf + g : pf;
		else
			*hi = page_covered(m, pl, pl + g, xa, xb) ? pl + g : pl;
	}
}

/* Runs of pages to madvise, built from the runs of units whose state
 * changes: rounded out to pages and clipped to [lo, hi) for an insert or
 * a remove, the pages wholly inside each run for activation. Runs that
 * touch are joined, so each is one madvise call. */
struct page_it {
	struct edge_it e;
	int shrink;
	unsigned int grain_shift; /* shrink: the map's */
	uintptr_t g, lo, hi;      /* not shrink: page size, clip */
	uintptr_t ps, pe;         /* the run being built */
	int pending;
};

static int page_next(struct page_it *it, uintptr_t *ps, uintptr_t *pe)
{
	uintptr_t es = 0, ee = 0, a, b;

	while (edge_next(&it->e, &es, &ee)) {
		if (it->shrink) {
			unsigned int sh = it->e.run_shift > it->grain_shift ? it->e.run_shift
									   : it->grain_shift;
			uintptr_t g = (uintptr_t)1 << sh;

			a = pup(es, g);
			b = pdown(ee, g);
		} else {
			a = umax(pdown(es, it->g), it->lo);
			b = umin(pup(ee, it->g), it->hi);
		}
		if (a >= b)
			continue;
		if (it->pending && a <= it->pe) {
			it->pe = umax(it->pe, b);
			continue;
		}
		if (it->pending) {
			*ps = it->ps;
			*pe = it->pe;
			it->ps = a;
			it->pe = b;
			return 1;
		}
		it->ps = a;
		it->pe = b;
		it->pending = 1;
	}
	if (!it->pending)
		return 0;
	*ps = it->ps;
	*pe = it->pe;
	it->pending = 0;
	return 1;
}

static int call_advise(struct range_map *m, uintptr_t es, uintptr_t ee, int advice)
{
	void *addr = (void *)(es << m->unit_shift);
	size_t len = (size_t)(ee - es) << m->unit_shift;
	int err = 0;

	m->madvise_calls++;
	if (m->advise(addr, len, advice)) {
		err = errno ? -errno : -EIO;
		m->madvise_failures++;
		sv_dbg("madvise(%p, %zu, %s): %s", addr, len,
		       advice == MADV_DONTFORK ? "MADV_DONTFORK" : "MADV_DOFORK", strerror(-err));
	}
	SV_PROBE(softverbs, madvise, addr, len, advice, -err);
	return err;
}

/* madvise every run of `start`; on a failure, undo the runs already done
 * (and the failing one when the kernel applied it in part, i.e. ENOMEM)
 * and return the error. With enomem_ok, ENOMEM counts as success: the
 * kernel still applied the advice to the mapped parts of the run. */
static int advise_edges(struct range_map *m, const struct page_it *start, int advice, int enomem_ok)
{
	int undo_advice = advice == MADV_DONTFORK ? MADV_DOFORK : MADV_DONTFORK;
	struct page_it it = *start;
	uintptr_t es = 0, ee = 0; /* set by edge_next before use (GCC 14 cannot tell) */
	size_t done = 0, undo;
	int err = 0;

	while (page_next(&it, &es, &ee)) {
		err = call_advise(m, es, ee, advice);
		if (err == -ENOMEM && enomem_ok) {
			sv_dbg("pages [%#lx, %#lx) are partly unmapped; the mapped parts were advised",
			       (unsigned long)(es << m->unit_shift), (unsigned long)(ee << m->unit_shift));
			err = 0;
		}
		if (err)
			break;
		done++;
	}
	if (!err)
		return 0;

	undo = done + (err == -ENOMEM);
	it = *start;
	while (undo-- && page_next(&it, &es, &ee)) {
		int uerr = call_advise(m, es, ee, undo_advice);

		if (uerr && uerr != -ENOMEM)
			sv_err("rollback madvise of [%#lx, %#lx) failed: %s; the kernel may differ from the map",
			       (unsigned long)(es << m->unit_shift), (unsigned long)(ee << m->unit_shift),
			       strerror(-uerr));
	}
	return err;
}

/* advise_edges for a single run [es, ee), the usual case: no loop.
 * Inline: the common registration and release are this and no more. */
static inline __attribute__((always_inline)) int advise_one(struct range_map *m, uintptr_t es, uintptr_t ee, int advice, int enomem_ok)
{
	int err = call_advise(m, es, ee, advice), uerr;

	if (err != -ENOMEM)
		return err;
	if (enomem_ok) {
		sv_dbg("pages [%#lx, %#lx) are partly unmapped; the mapped parts were advised",
		       (unsigned long)(es << m->unit_shift), (unsigned long)(ee << m->unit_shift));
		return 0;
	}
	/* Applied in part: undo, as advise_edges does. */
	uerr = call_advise(m, es, ee, advice == MADV_DONTFORK ? MADV_DOFORK : MADV_DONTFORK);
	if (uerr && uerr != -ENOMEM)
		sv_err("rollback madvise of [%#lx, %#lx) failed: %s; the kernel may differ from the map",
		       (unsigned long)(es << m->unit_shift), (unsigned long)(ee << m->unit_shift),
		       strerror(-uerr));
	return err;
}

/* ---- rewriting (lock held) -------------------------------------------- */

struct emitter {
	struct range_map_entry *out;
	size_t n;
};

/* Append a piece, merging with the previous one when they touch and
 * agree; empty and unreferenced pieces vanish. */
static inline void emit(struct emitter *e, uintptr_t first, uintptr_t end, unsigned long refcnt,
		 unsigned int flags)
{
	struct range_map_entry *p = e->n ? &e->out[e->n - 1] : NULL;

	if (first >= end || !refcnt)
		return;
	if (p && p->end == first && p->refcnt == refcnt && p->flags == flags) {
		p->end = end;
		return;
	}
	e->out[e->n++] = (struct range_map_entry){ first, end, refcnt, flags };
}

/* Write to out the ranges lo-1 .. hi of the window (the overlapping
 * ones and their neighbours) with delta (+1 or -1) added to every page
 * of [first, end); returns how many. The rest of the window is
 * unchanged: no range outside can merge with these. */
static size_t rewrite_mid(const struct window *w, size_t wlo, size_t whi, uintptr_t first,
			  uintptr_t end, int delta, unsigned int flags, struct range_map_entry *out)
{
	struct emitter e = { .out = out, .n = 0 };
	uintptr_t cur = first;

	for (size_t i = wlo; i < whi; i++) {
		const struct range_map_entry *x = &w->v[i];
		uintptr_t a, b;

		if (x->end <= first) {
			emit(&e, x->first, x->end, x->refcnt, x->flags);
			continue;
		}
		if (x->first >= end) {
			if (delta > 0)
				emit(&e, cur, end, 1, flags);
			cur = end;
			emit(&e, x->first, x->end, x->refcnt, x->flags);
			continue;
		}
		if (delta > 0 && cur < x->first)
			emit(&e, cur, x->first, 1, flags);
		a = umax(x->first, first);
		b = umin(x->end, end);
		emit(&e, x->first, a, x->refcnt, x->flags);
		emit(&e, a, b, x->refcnt + (unsigned long)(long)delta, x->flags | flags);
		emit(&e, b, x->end, x->refcnt, x->flags);
		cur = b;
	}
	if (delta > 0 && cur < end)
		emit(&e, cur, end, 1, flags);
	return e.n;
}

/* The two shapes nearly every call has, edited in place when the window
 * is one block: an insert into a gap (it overlaps no range) and a remove
 * of part of one range held once. The result is what rewrite_mid would
 * give: a new piece merges with a neighbour only when that touches it
 * with refcount 1 and the same flags, and the ends cut off a range held
 * once cannot merge (they already did not). Returns 1 when done, 0 to
 * leave it to the general rewrite. Lock held, capacity reserved. */
static int apply_simple(struct range_map *m, const struct window *w, uintptr_t first,
			uintptr_t end, int delta, unsigned int flags)
{
	struct range_map_block *b;
	struct range_map_entry *v;
	size_t lo = w->lo, n;

	if (w->b1 - w->b0 != 1)
		return 0;
	b = m->blk[w->b0].b;
	v = b->e;
	n = b->n;
	if (delta > 0) {
		int ml, mr;

		if (w->hi != lo)
			return 0;
		ml = lo > 0 && v[lo - 1].end == first && v[lo - 1].refcnt == 1 &&
		     v[lo - 1].flags == flags;
		mr = lo < n && v[lo].first == end && v[lo].refcnt == 1 && v[lo].flags == flags;
		if (ml && mr) {
			v[lo - 1].end = v[lo].end;
			memmove(&v[lo], &v[lo + 1], (n - lo - 1) * sizeof(*v));
			n--;
		} else if (ml) {
			v[lo - 1].end = end;
		} else if (mr) {
			v[lo].first = first;
		} else {
			if (n == BLK)
				return 0;
			memmove(&v[lo + 1], &v[lo], (n - lo) * sizeof(*v));
			v[lo] = (struct range_map_entry){ first, end, 1, flags };
			n++;
		}
	} else {
		struct range_map_entry *x = &v[lo];

		/* covered() has checked that x holds all of [first, end). */
		if (w->hi != lo + 1 || x->refcnt != 1)
			return 0;
		if (x->first < first && end < x->end) {
			if (n == BLK)
				return 0;
			memmove(&v[lo + 2], &v[lo + 1], (n - lo - 1) * sizeof(*v));
			v[lo + 1] = (struct range_map_entry){ end, x->end, 1, x->flags };
			x->end = first;
			n++;
		} else if (x->first < first) {
			x->end = first;
		} else if (end < x->end) {
			x->first = end;
		} else {
			if (n == 1)
				return 0;
			memmove(&v[lo], &v[lo + 1], (n - lo - 1) * sizeof(*v));
			n--;
		}
	}
	b->n = n;
	slot_set(&m->blk[w->b0], b);
	m->n = m->n - w->nin + n;
	return 1;
}

/* Apply delta to [first, end) in the window and store the result. A
 * window of one block that still fits is edited in place (one memmove
 * within the block); otherwise the window is rebuilt in m->out and
 * spread over blocks again. Lock held, capacity reserved. */
static void apply(struct range_map *m, const struct window *w, uintptr_t first, uintptr_t end,
		  int delta, unsigned int flags)
{
	size_t wlo = w->lo > 0 ? w->lo - 1 : 0;
	size_t whi = w->hi < w->nin ? w->hi + 1 : w->hi;
	size_t tail = w->nin - whi, nmid, nout;

	if (apply_simple(m, w, first, end, delta, flags))
		return;
	if (w->b1 - w->b0 == 1) {
		struct range_map_block *b = m->blk[w->b0].b;

		nmid = rewrite_mid(w, wlo, whi, first, end, delta, flags, m->out);
		nout = wlo + nmid + tail;
		if (nout && nout <= BLK) {
			memmove(&b->e[wlo + nmid], &b->e[whi], tail * sizeof(*b->e));
			memcpy(&b->e[wlo], m->out, nmid * sizeof(*b->e));
			b->n = nout;
			slot_set(&m->blk[w->b0], b);
			m->n = m->n - w->nin + nout;
			return;
		}
		/* Rebuild in m->out around the middle. */
		if (nmid)
			memmove(&m->out[wlo], m->out, nmid * sizeof(*m->out));
	} else {
		nmid = rewrite_mid(w, wlo, whi, first, end, delta, flags, &m->out[wlo]);
	}
	if (wlo)
		memcpy(m->out, w->v, wlo * sizeof(*m->out));
	if (tail)
		memcpy(&m->out[wlo + nmid], &w->v[whi], tail * sizeof(*m->out));
	window_commit(m, w, wlo + nmid + tail);
}

/* An end of [lo, hi) lies in a range of a huge-page mapping. */
static int ends_huge(const struct range_map *m, const struct window *w)
{
	(void)m;
	return w->hi > w->lo &&
	       ((w->v[w->lo].flags & RANGE_MAP_HUGE) || (w->v[w->hi - 1].flags & RANGE_MAP_HUGE));
}

/* Every page of [first, end) is in ranges lo..hi-1 of v. */
static int covered(const struct range_map_entry *v, size_t lo, size_t hi, uintptr_t first,
		   uintptr_t end)
{
	uintptr_t cur = first;

	for (size_t i = lo; i < hi; i++) {
		if (v[i].first > cur)
			return 0;
		cur = v[i].end;
	}
	return cur >= end;
}

/* ---- operations -------------------------------------------------------- */


/* madvise for an insert (advice MADV_DONTFORK) or a remove (MADV_DOFORK)
 * of [first, end) in window w, judged at pages of g units, before the
 * map changes. Lock held. */
static int advise_op(struct range_map *m, const struct window *w, uintptr_t first, uintptr_t end,
		     uintptr_t g, int advice)
{
	int ins = advice == MADV_DONTFORK;
	uintptr_t lo = first, hi = end, a, b;
	struct page_it it;

	/* ends on page boundaries: no end page to judge */
	if ((first | end) & (g - 1))
		op_span(m, first, end, g, ins, &lo, &hi);
	/* The usual cases, one run of units: an insert into a gap (all of
	 * it goes 0->1), a remove within one range held once (1->0). */
	if (ins ? w->hi == w->lo : w->hi == w->lo + 1 && w->v[w->lo].refcnt == 1) {
		a = umax(pdown(first, g), lo);
		b = umin(pup(end, g), hi);
		return a < b ? advise_one(m, a, b, advice, !ins) : 0;
	}
	it = (struct page_it){
		.e = { .v = w->v, .kind = ins ? EDGE_GAPS : EDGE_LAST, .i = w->lo, .hi = w->hi,
		       .cur = first, .first = first, .end = end },
		.g = g, .lo = lo, .hi = hi,
	};
	return advise_edges(m, &it, advice, !ins);
}

int range_map_insert(struct range_map *m, uintptr_t first, uintptr_t end, unsigned int flags)
{
	unsigned int sh;
	struct window w;
	int err;

	if (first >= end)
		return -EINVAL;
	err = window_open(m, first, end, &w);
	if (err)
		return err;

	if (!(flags & RANGE_MAP_HUGE) && ends_huge(m, &w)) {
		err = RANGE_MAP_WIDEN;
		goto out;
	}
	if (m->active && !(flags & RANGE_MAP_GRAIN(0xff)) && !((first | end) & m->grain_mask) &&
	    w.hi == w.lo) {
		/* The usual case: whole pages into a gap: all of it goes 0->1,
		 * no page is judged. (Next to a range in a huge-page mapping,
		 * madvise refuses the base pages with EINVAL, and fork.c comes
		 * back with RANGE_MAP_GRAIN.) */
		err = advise_one(m, first, end, MADV_DONTFORK, 0);
		if (err)
			goto out;
		apply(m, &w, first, end, +1, flags);
		goto out;
	}
	sh = RANGE_MAP_GRAIN_SHIFT(flags);
	if (m->active) {
		uintptr_t g = op_grain(m, w.v, w.lo, w.hi, first, end, flags);

		err = advise_op(m, &w, first, end, g, MADV_DONTFORK);
		if (err)
			goto out;
		/* Judged at a huge page's size because of its neighbours: say
		 * so in the range, so that it is judged the same way when they
		 * are gone. */
		if (g >> m->grain_shift > 1 && !sh) {
			sh = (unsigned int)__builtin_ctzl(g);
			flags |= RANGE_MAP_HUGE | RANGE_MAP_GRAIN(sh);
		}
	}
	if (sh) /* (a page of 2^32 units or more is only looked for in ranges it overlaps) */
		m->huge_shifts |= 1u << (sh < 32 ? sh : 31);
	apply(m, &w, first, end, +1, flags);
out:
	pthread_mutex_unlock(&m->lock);
	SV_PROBE(softverbs, fork_range_add, first << m->unit_shift,
		 end << m->unit_shift, err);
	return err;
}

int range_map_remove(struct range_map *m, uintptr_t first, uintptr_t end, int widened)
{
	struct window w;
	int err;

	if (first >= end)
		return -EINVAL;
	err = window_open(m, first, end, &w);
	if (err)
		return err;

	if (!widened && ends_huge(m, &w)) {
		err = RANGE_MAP_WIDEN;
		goto out;
	}
	if (!covered(w.v, w.lo, w.hi, first, end)) {
		sv_err("[%#lx, %#lx) was not registered (or not as often as it is released)",
		       (unsigned long)(first << m->unit_shift), (unsigned long)(end << m->unit_shift));
		err = -EINVAL;
		goto out;
	}
	if (m->active && !((first | end) & m->grain_mask) && w.hi == w.lo + 1 &&
	    w.v[w.lo].refcnt == 1 && !(w.v[w.lo].flags & RANGE_MAP_GRAIN(0xff))) {
		/* The usual case: whole pages within one range held once (it
		 * covers them, see covered()), not of a huge-page mapping:
		 * all of it goes 1->0. (Whole pages of a huge-page mapping
		 * are only ever inserted with RANGE_MAP_GRAIN while active.) */
		err = advise_one(m, first, end, MADV_DOFORK, 1);
		if (err)
			goto out;
	} else if (m->active) {
		err = advise_op(m, &w, first, end, op_grain(m, w.v, w.lo, w.hi, first, end, 0),
				MADV_DOFORK);
		if (err)
			goto out;
	}
	apply(m, &w, first, end, -1, 0);
out:
	pthread_mutex_unlock(&m->lock);
	SV_PROBE(softverbs, fork_range_del, first << m->unit_shift,
		 end << m->unit_shift, err);
	return err;
}

int range_map_activate(struct range_map *m)
{
	struct window all;
	struct page_it it;
	int err;

	/* The window over the whole map: every block, copied to m->in. */
	err = window_open(m, 0, UINTPTR_MAX, &all);
	if (err)
		return err;
	if (!m->active) {
		it = (struct page_it){
			.e = { .v = all.v, .kind = EDGE_ALL, .i = 0, .hi = all.nin, .first = 0,
			       .end = UINTPTR_MAX },
			.shrink = 1, .grain_shift = m->grain_shift,
		};
		err = advise_edges(m, &it, MADV_DONTFORK, 1);
		if (!err)
			m->active = 1;
	}
	pthread_mutex_unlock(&m->lock);
	return err;
}

int range_map_is_active(struct range_map *m)
{
	int active;

	pthread_mutex_lock(&m->lock);
	active = m->active;
	pthread_mutex_unlock(&m->lock);
	return active;
}

int range_map_covers(struct range_map *m, uintptr_t first, uintptr_t end)
{
	uintptr_t cur = first;

	if (first >= end)
		return 1;
	pthread_mutex_lock(&m->lock);
	for (size_t bi = block_lo(m, first); bi < m->nblk && cur < end; bi++) {
		const struct range_map_block *b = m->blk[bi].b;

		for (size_t i = find_lo(b->e, b->n, cur); i < b->n && cur < end; i++) {
			if (b->e[i].first > cur)
				goto out;
			cur = b->e[i].end;
		}
	}
out:
	pthread_mutex_unlock(&m->lock);
	return cur >= end;
}

int range_map_overlaps(struct range_map *m, uintptr_t first, uintptr_t end)
{
	int any = 0;
	size_t bi;

	if (first >= end)
		return 0;
	pthread_mutex_lock(&m->lock);
	bi = block_lo(m, first);
	if (bi < m->nblk) {
		const struct range_map_block *b = m->blk[bi].b;
		size_t i = find_lo(b->e, b->n, first);

		any = i < b->n && b->e[i].first < end;
	}
	pthread_mutex_unlock(&m->lock);
	return any;
}

unsigned long range_map_refcount(struct range_map *m, uintptr_t page)
{
	unsigned long refcnt = 0;
	size_t bi, i;

	pthread_mutex_lock(&m->lock);
	bi = block_lo(m, page);
	if (bi < m->nblk) {
		const struct range_map_block *b = m->blk[bi].b;

		i = find_lo(b->e, b->n, page);
		if (i < b->n && b->e[i].first <= page)
			refcnt = b->e[i].refcnt;
	}
	pthread_mutex_unlock(&m->lock);
	return refcnt;
}

void range_map_get_stats(struct range_map *m, struct range_map_stats *st)
{
	uintptr_t gb, rs = 0, re = 0, touched = 0;
	unsigned int rsh = 0;
	int in_run = 0;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&m->lock);
	gb = (uintptr_t)1 << m->grain_shift;
	st->live_ranges = m->n;
	/* Over the runs of touching ranges: pages are counted at the map's
	 * grain, a run's covered pages at its own (huge) page size. */
	for (size_t bi = 0; bi <= m->nblk; bi++) {
		const struct range_map_block *b = bi < m->nblk ? m->blk[bi].b : NULL;

		for (size_t i = 0; i < (b ? b->n : 1); i++) {
			const struct range_map_entry *x = b ? &b->e[i] : NULL;
			uintptr_t g, a, c;

			if (x) {
				st->units += x->end - x->first;
				if (in_run && x->first == re) {
					re = x->end;
					if (RANGE_MAP_GRAIN_SHIFT(x->flags) > rsh)
						rsh = RANGE_MAP_GRAIN_SHIFT(x->flags);
					continue;
				}
			}
			if (in_run) {
				g = (uintptr_t)1 << (rsh > m->grain_shift ? rsh : m->grain_shift);
				a = umax(pdown(rs, gb), touched);
				touched = pup(re, gb);
				st->pages += (touched - a) / gb;
				a = pup(rs, g);
				c = pdown(re, g);
				if (a < c)
					st->covered_pages += (c - a) / gb;
			}
			if (!x)
				break;
			in_run = 1;
			rs = x->first;
			re = x->end;
			rsh = RANGE_MAP_GRAIN_SHIFT(x->flags);
		}
	}
	st->madvise_calls = m->madvise_calls;
	st->madvise_failures = m->madvise_failures;
	pthread_mutex_unlock(&m->lock);
}

size_t range_map_snapshot(struct range_map *m, struct range_map_entry *out, size_t max)
{
	size_t n, at = 0;

	pthread_mutex_lock(&m->lock);
	n = m->n;
	for (size_t bi = 0; out && bi < m->nblk; bi++)
		for (size_t i = 0; i < m->blk[bi].b->n && at < max; i++)
			out[at++] = m->blk[bi].b->e[i];
	pthread_mutex_unlock(&m->lock);
	return n;
}

void range_map_fork_prepare(struct range_map *m)
{
	pthread_mutex_lock(&m->lock);
}

void range_map_fork_parent(struct range_map *m)
{
	pthread_mutex_unlock(&m->lock);
}

/* The child is a copy of the thread that forked, which holds the lock. */
void range_map_fork_child(struct range_map *m)
{
	/* Empty: the blocks become spares (the spare list has room for all
	 * of them, see window_need), or are freed (malloc works in a child's
	 * atfork handler with glibc, which resets its locks before). */
	for (size_t i = 0; i < m->nblk; i++) {
		if (m->nspare < m->spare_cap)
			m->spare[m->nspare++] = m->blk[i].b;
		else
			free(m->blk[i].b);
	}
	m->nblk = 0;
	m->n = 0;
	pthread_mutex_unlock(&m->lock);
}
