/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rxe queues: rings of fixed-size elements in kernel memory, mapped into
 * the process from the uverbs fd.
 *
 * Layout (struct rxe_queue_buf, <rdma/rdma_user_rxe.h>): log2 of the
 * element size at byte 0, index mask at 4, producer index at 128, consumer
 * index at 256, elements from 384. Both indices stay in [0, mask]. The
 * ring is full when (prod + 1) & mask == cons, so it holds mask elements.
 *
 * Memory-ordering contract with the kernel (rdma_rxe, rxe_queue.h):
 *  - Each index has one writer. For the queues we fill (send, receive,
 *    shared receive) we write the producer index and the kernel the
 *    consumer index; for the completion queue it is the other way round.
 *  - The writer fills or drains elements first, then publishes its index
 *    with a release store. The reader loads the other side's index with
 *    an acquire load before it touches the elements that index covers.
 *    The kernel does the same with smp_load_acquire/smp_store_release.
 *  - Our own index is never read back from shared memory on the fast
 *    path: we keep a private copy (the kernel masks whatever it finds in
 *    the buffer, but we should not have to trust that page).
 *  - Indices are shared as C11 atomics on 32-bit words; nothing else in
 *    the header changes after creation, so mask and element size are
 *    copied once when the queue is mapped.
 * Between our own threads a per-queue lock orders producers (and
 * consumers); the atomics only order us against the kernel.
 */
#ifndef RXE_QUEUE_H
#define RXE_QUEUE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_user_rxe.h>

_Static_assert(offsetof(struct rxe_queue_buf, producer_index) == 128,
	       "rxe queue header: producer index at 128");
_Static_assert(offsetof(struct rxe_queue_buf, consumer_index) == 256,
	       "rxe queue header: consumer index at 256");
_Static_assert(offsetof(struct rxe_queue_buf, data) == 384,
	       "rxe queue header: data at 384");

struct rxe_queue {
	struct rxe_queue_buf *buf; /* the mapping; NULL when not mapped */
	size_t map_len;            /* bytes mapped (mminfo.size) */
	uint32_t mask;             /* index mask, copied at map time */
	uint32_t log2_elem;        /* log2 of the element size */
};

/* Map the queue the kernel described in *mi from the uverbs fd. 0 or
 * a positive errno (the queue stays unmapped). */
int rxe_queue_map(struct rxe_queue *q, int cmd_fd, const struct mminfo *mi);
/* Undo rxe_queue_map; harmless on an unmapped queue. */
void rxe_queue_unmap(struct rxe_queue *q);

static inline _Atomic uint32_t *rxe_queue_prod_word(struct rxe_queue *q)
{
	return (_Atomic uint32_t *)&q->buf->producer_index;
}

static inline _Atomic uint32_t *rxe_queue_cons_word(struct rxe_queue *q)
{
	return (_Atomic uint32_t *)&q->buf->consumer_index;
}

/* The kernel's index, acquire: the elements it covers are visible. */
static inline uint32_t rxe_queue_kernel_prod(struct rxe_queue *q)
{
	return atomic_load_explicit(rxe_queue_prod_word(q),
				    memory_order_acquire) & q->mask;
}

static inline uint32_t rxe_queue_kernel_cons(struct rxe_queue *q)
{
	return atomic_load_explicit(rxe_queue_cons_word(q),
				    memory_order_acquire) & q->mask;
}

/* Publish our index, release: everything written to (or read from) the
 * elements before it is ordered before the kernel sees it. */
static inline void rxe_queue_publish_prod(struct rxe_queue *q, uint32_t prod)
{
	atomic_store_explicit(rxe_queue_prod_word(q), prod,
			      memory_order_release);
}

static inline void rxe_queue_publish_cons(struct rxe_queue *q, uint32_t cons)
{
	atomic_store_explicit(rxe_queue_cons_word(q), cons,
			      memory_order_release);
}

/* Our own index as the buffer holds it, for resynchronising the private
 * copy after the kernel re-created or reset the queue. */
static inline uint32_t rxe_queue_read_prod(struct rxe_queue *q)
{
	return atomic_load_explicit(rxe_queue_prod_word(q),
				    memory_order_relaxed) & q->mask;
}

static inline uint32_t rxe_queue_read_cons(struct rxe_queue *q)
{
	return atomic_load_explicit(rxe_queue_cons_word(q),
				    memory_order_relaxed) & q->mask;
}

static inline uint32_t rxe_queue_next(const struct rxe_queue *q,
				      uint32_t index)
{
	return (index + 1) & q->mask;
}

static inline void *rxe_queue_elem(struct rxe_queue *q, uint32_t index)
{
	return q->buf->data + ((size_t)(index & q->mask) << q->log2_elem);
}

static inline size_t rxe_queue_elem_size(const struct rxe_queue *q)
{
	return (size_t)1 << q->log2_elem;
}

#endif
