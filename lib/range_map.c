/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "log.h"
#include "range_map.h"

#define BLK RANGE_MAP_BLOCK
/* Entries per block when a window is written back: room to grow. */
#define FILL (BLK * 3 / 4)

void range_map_init(struct range_map *m, unsigned int page_shift, range_map_advise_fn advise)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	m->page_shift = page_shift;
	m->advise = advise ? advise : madvise;
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
	EDGE_GAPS, /* pages of [first, end) with no reference: 0->1 on insert */
	EDGE_LAST, /* pages of [first, end) with one reference: 1->0 on remove */
	EDGE_ALL,  /* every page in the map: activation */
};

struct edge_it {
	const struct range_map_entry *v;
	enum edge_kind kind;
	size_t i, hi;
	uintptr_t cur, first, end;
};

/* Next maximal run of pages to madvise, as [*es, *ee). Runs that touch
 * are joined, so each is one madvise call. */
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
			if (!found)
				*es = a;
			*ee = b;
			found = 1;
		} else if (found) {
			return 1;
		}
	}
	return found;
}

static int call_advise(struct range_map *m, uintptr_t es, uintptr_t ee, int advice)
{
	void *addr = (void *)(es << m->page_shift);
	size_t len = (size_t)(ee - es) << m->page_shift;
	int err = 0;

	m->madvise_calls++;
	if (m->advise(addr, len, advice)) {
		err = errno ? -errno : -EIO;
		m->madvise_failures++;
		sv_dbg("madvise(%p, %zu, %s): %s", addr, len,
		       advice == MADV_DONTFORK ? "MADV_DONTFORK" : "MADV_DOFORK", strerror(-err));
	}
	return err;
}

/* madvise every run of `start`; on a failure, undo the runs already done
 * (and the failing one when the kernel applied it in part, i.e. ENOMEM)
 * and return the error. With enomem_ok, ENOMEM counts as success: the
 * kernel still applied the advice to the mapped parts of the run. */
static int advise_edges(struct range_map *m, const struct edge_it *start, int advice, int enomem_ok)
{
	int undo_advice = advice == MADV_DONTFORK ? MADV_DOFORK : MADV_DONTFORK;
	struct edge_it it = *start;
	uintptr_t es = 0, ee = 0; /* set by edge_next before use (GCC 14 cannot tell) */
	size_t done = 0, undo;
	int err = 0;

	while (edge_next(&it, &es, &ee)) {
		err = call_advise(m, es, ee, advice);
		if (err == -ENOMEM && enomem_ok) {
			sv_dbg("pages [%#lx, %#lx) are partly unmapped; the mapped parts were advised",
			       (unsigned long)(es << m->page_shift), (unsigned long)(ee << m->page_shift));
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
	while (undo-- && edge_next(&it, &es, &ee)) {
		int uerr = call_advise(m, es, ee, undo_advice);

		if (uerr && uerr != -ENOMEM)
			sv_err("rollback madvise of [%#lx, %#lx) failed: %s; the kernel may differ from the map",
			       (unsigned long)(es << m->page_shift), (unsigned long)(ee << m->page_shift),
			       strerror(-uerr));
	}
	return err;
}

/* advise_edges for a single run [es, ee), the usual case: no loop. */
static int advise_one(struct range_map *m, uintptr_t es, uintptr_t ee, int advice, int enomem_ok)
{
	int err = call_advise(m, es, ee, advice), uerr;

	if (err != -ENOMEM)
		return err;
	if (enomem_ok) {
		sv_dbg("pages [%#lx, %#lx) are partly unmapped; the mapped parts were advised",
		       (unsigned long)(es << m->page_shift), (unsigned long)(ee << m->page_shift));
		return 0;
	}
	/* Applied in part: undo, as advise_edges does. */
	uerr = call_advise(m, es, ee, advice == MADV_DONTFORK ? MADV_DOFORK : MADV_DONTFORK);
	if (uerr && uerr != -ENOMEM)
		sv_err("rollback madvise of [%#lx, %#lx) failed: %s; the kernel may differ from the map",
		       (unsigned long)(es << m->page_shift), (unsigned long)(ee << m->page_shift),
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

int range_map_insert(struct range_map *m, uintptr_t first, uintptr_t end, unsigned int flags)
{
	struct window w;
	struct edge_it it;
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
	if (m->active && w.hi == w.lo) {
		/* Into a gap: the whole range goes 0->1. */
		err = advise_one(m, first, end, MADV_DONTFORK, 0);
		if (err)
			goto out;
	} else if (m->active) {
		it = (struct edge_it){ .v = w.v, .kind = EDGE_GAPS, .i = w.lo, .hi = w.hi,
				       .cur = first, .first = first, .end = end };
		err = advise_edges(m, &it, MADV_DONTFORK, 0);
		if (err)
			goto out;
	}
	apply(m, &w, first, end, +1, flags);
out:
	pthread_mutex_unlock(&m->lock);
	return err;
}

int range_map_remove(struct range_map *m, uintptr_t first, uintptr_t end, int widened)
{
	struct window w;
	struct edge_it it;
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
		       (unsigned long)(first << m->page_shift), (unsigned long)(end << m->page_shift));
		err = -EINVAL;
		goto out;
	}
	if (m->active && w.hi == w.lo + 1 && w.v[w.lo].refcnt == 1) {
		/* Within one range held once (covered): all of it goes 1->0. */
		err = advise_one(m, first, end, MADV_DOFORK, 1);
		if (err)
			goto out;
	} else if (m->active) {
		it = (struct edge_it){ .v = w.v, .kind = EDGE_LAST, .i = w.lo, .hi = w.hi,
				       .first = first, .end = end };
		err = advise_edges(m, &it, MADV_DOFORK, 1);
		if (err)
			goto out;
	}
	apply(m, &w, first, end, -1, 0);
out:
	pthread_mutex_unlock(&m->lock);
	return err;
}

int range_map_activate(struct range_map *m)
{
	struct window all;
	struct edge_it it;
	int err;

	/* The window over the whole map: every block, copied to m->in. */
	err = window_open(m, 0, UINTPTR_MAX, &all);
	if (err)
		return err;
	if (!m->active) {
		it = (struct edge_it){ .v = all.v, .kind = EDGE_ALL, .i = 0, .hi = all.nin,
				       .first = 0, .end = UINTPTR_MAX };
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
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&m->lock);
	st->live_ranges = m->n;
	for (size_t bi = 0; bi < m->nblk; bi++)
		for (size_t i = 0; i < m->blk[bi].b->n; i++)
			st->pages += m->blk[bi].b->e[i].end - m->blk[bi].b->e[i].first;
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
	pthread_mutex_unlock(&m->lock);
}
