/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Mapping rxe queues (see rxe_queue.h for the layout and the ordering
 * contract). */
#include "config.h"

#include <errno.h>
#include <sys/mman.h>

#include "log.h"
#include "rxe_queue.h"

int rxe_queue_map(struct rxe_queue *q, int cmd_fd, const struct mminfo *mi)
{
	struct rxe_queue_buf *buf;
	uint32_t log2_elem, mask;
	size_t need;
	int ret;

	q->buf = NULL;
	q->map_len = 0;
	if (mi->size < sizeof(struct rxe_queue_buf)) {
		sv_err("kernel gave a queue of %u bytes, too small for its header",
		       mi->size);
		return EPROTO;
	}
	buf = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		   (off_t)mi->offset);
	if (buf == MAP_FAILED) {
		ret = errno;
		sv_err("mmap of a %u-byte queue at offset %#llx failed: %d",
		       mi->size, (unsigned long long)mi->offset, ret);
		return ret;
	}

	/* The header is the kernel's word; check it once so that no index
	 * can ever reach outside the mapping. */
	log2_elem = buf->log2_elem_size;
	mask = buf->index_mask;
	need = log2_elem < 24 ? ((size_t)mask + 1) << log2_elem : SIZE_MAX;
	if (log2_elem >= 24 || (mask & (mask + 1)) ||
	    need > mi->size - sizeof(struct rxe_queue_buf)) {
		sv_err("queue header does not fit its mapping (elem 2^%u, mask %#x, %u bytes)",
		       log2_elem, mask, mi->size);
		munmap(buf, mi->size);
		return EPROTO;
	}
	q->buf = buf;
	q->map_len = mi->size;
	q->mask = mask;
	q->log2_elem = log2_elem;
	return 0;
}

void rxe_queue_unmap(struct rxe_queue *q)
{
	if (q->buf)
		munmap(q->buf, q->map_len);
	q->buf = NULL;
	q->map_len = 0;
}
