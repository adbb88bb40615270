/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Memory registration: argument checks, the fork-safety range map around
 * the REG_MR / DEREG_MR commands, the three exported versions of
 * ibv_reg_mr, rereg and dma-buf registration.
 *
 * Only registrations that pin user memory enter the range map: an
 * on-demand-paging MR (IBV_ACCESS_ON_DEMAND) pins nothing and a dma-buf
 * MR has no user address range, so neither gets MADV_DONTFORK (rdma-core
 * 44 skips them too). ibv_dereg_mr tells them apart by the MR object's
 * mr_type and access, which the command helpers fill for every provider. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core.h"
#include "probe.h"

#define SV_ACCESS_KNOWN                                                        \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                   \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED | IBV_ACCESS_ON_DEMAND |   \
	 IBV_ACCESS_HUGETLB | IBV_ACCESS_OPTIONAL_RANGE |                      \
	 SV_ACCESS_FLUSH_GLOBAL | SV_ACCESS_FLUSH_PERSISTENT)

static int valid_pd(struct ibv_pd *pd)
{
	return pd && pd->context &&
	       pd->context->abi_compat == __VERBS_ABI_IS_EXTENDED;
}

/* 0 or a positive errno; *access loses the optional bits the kernel
 * does not know (they are hints: dropping them is allowed). */
static inline __attribute__((always_inline)) int
check_access(struct ibv_context *ctx, unsigned int *access)
{
	if (*access & ~(unsigned int)SV_ACCESS_KNOWN) {
		sv_err("unknown access bits 0x%x",
		       *access & ~(unsigned int)SV_ACCESS_KNOWN);
		return EINVAL;
	}
	/* IBTA 10.6.3.1: remote write or atomic need local write */
	if ((*access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(*access & IBV_ACCESS_LOCAL_WRITE)) {
		sv_err("REMOTE_WRITE/REMOTE_ATOMIC need LOCAL_WRITE");
		return EINVAL;
	}
	if (!(sv_priv(ctx)->core_support &
	      IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS))
		*access &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	return 0;
}

/* Does a registration with these access flags pin its pages? */
static int pins_pages(unsigned int access)
{
	return !(access & IBV_ACCESS_ON_DEMAND);
}

static int mr_in_map(struct ibv_mr *mr)
{
	struct sv_mr *smr = container_of(mr, struct sv_mr, mr);

	return smr->mr_type == SV_MR_TYPE_MR &&
	       pins_pages((unsigned int)smr->access);
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t iova, unsigned int access)
{
	struct ibv_context *ctx;
	struct ibv_mr *mr;
	int pinned, protect;
	int ret;

	if (!valid_pd(pd)) {
		sv_err("NULL or foreign protection domain");
		errno = EINVAL;
		return NULL;
	}
	/* A zero length goes to the kernel, which decides (6.1 accepts it,
	 * as with rdma-core); the range map records nothing for it. */
	if ((uintptr_t)addr + length < (uintptr_t)addr) {
		sv_err("bad range: %zu bytes at %p", length, addr);
		errno = EINVAL;
		return NULL;
	}
	ctx = pd->context;
	ret = check_access(ctx, &access);
	if (ret) {
		errno = ret;
		return NULL;
	}

	/* With fork safety on: DONTFORK before the kernel pins the pages,
	 * so that no fork in between can give the child the pinned pages.
	 * Off: a note after REG_MR (sv_fork_mr_record). */
	pinned = pins_pages(access);
	protect = pinned && sv_fork_mr_protecting();
	ret = protect ? sv_fork_mr_protect(addr, length) : 0;
	if (ret) {
		sv_explain_reg_mr_fork(addr, length, -ret);
		errno = -ret;
		return NULL;
	}
	if (!pinned)
		sv_dbg("on-demand paging MR of %zu bytes at %p: pins nothing, not in the fork map",
		       length, addr);
	mr = sv_priv(ctx)->ops.reg_mr(pd, addr, length, iova, (int)access);
	if (!mr) {
		int err = errno ? errno : EIO;

		sv_dbg("REG_MR of %zu bytes at %p: errno %d", length, addr, err);
		if (protect)
			sv_fork_range_del(addr, length);
		/* read again from where check_access left it: nothing is
		 * kept live across the registration for this */
		sv_explain_reg_mr(pd, addr, length, *(volatile unsigned int *)&access, err);
		errno = err;
		return NULL;
	}
	if (pinned && !protect) {
		ret = sv_fork_mr_record(mr, addr, length);
		if (ret) {
			sv_err("recording %zu bytes at %p for fork safety failed: %d",
			       length, addr, ret);
			sv_priv(ctx)->ops.dereg_mr(mr);
			errno = -ret;
			return NULL;
		}
	}
	mr->context = ctx;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	SV_PROBE(softverbs, reg_mr, addr, length, mr->lkey, mr->rkey, protect);
	return mr;
}

/* reg_mr for the exported names: the failure probe, out of line. */
static struct ibv_mr *__attribute__((noinline, cold)) reg_failed(void)
{
	errno = SV_PROBE_ERR("ibv_reg_mr", errno);
	return NULL;
}

static inline struct ibv_mr *reg_mr_probed(struct ibv_pd *pd, void *addr,
					   size_t length, uint64_t iova,
					   unsigned int access)
{
	struct ibv_mr *mr = reg_mr(pd, addr, length, iova, access);

	return __builtin_expect(!!mr, 1) ? mr : reg_failed();
}

SV_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					  size_t length, uint64_t iova,
					  unsigned int access)
{
	return reg_mr_probed(pd, addr, length, iova, access);
}

#undef ibv_reg_mr
SV_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
				    size_t length, int access)
{
	return reg_mr_probed(pd, addr, length, (uintptr_t)addr,
			     (unsigned int)access);
}

#undef ibv_reg_mr_iova
SV_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					 size_t length, uint64_t iova,
					 int access)
{
	return reg_mr_probed(pd, addr, length, iova, (unsigned int)access);
}

/* ibv_dereg_mr's failure probe, out of line: the way to success keeps
 * no register for it. */
static int __attribute__((noinline, cold)) dereg_failed(int err)
{
	return SV_PROBE_ERR("ibv_dereg_mr", err);
}

SV_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	void *addr;
	size_t length;
	int in_map;
	int ret;

	if (!mr || !valid_pd(mr->pd))
		return dereg_failed(EINVAL);
	addr = mr->addr;
	length = mr->length;
	in_map = mr_in_map(mr);
	ret = sv_priv(mr->context)->ops.dereg_mr(mr);
	if (ret)
		return dereg_failed(ret);
	/* the probe in each branch, in_map a constant there: no register
	 * holds it for the probe */
	if (!in_map) {
		SV_PROBE(softverbs, dereg_mr, addr, length, 0);
		return 0;
	}
	SV_PROBE(softverbs, dereg_mr, addr, length, 1);
	/* the pages are unpinned: the last registration of a page makes it
	 * inheritable again (mr is a key here, no longer an object) */
	ret = sv_fork_mr_forget(mr, addr, length);
	if (ret)
		sv_err("restoring fork inheritance of %p+%zu: %d", addr, length,
		       ret);
	return 0;
}

/* ibv_rereg_mr(3): 0, or an enum ibv_rereg_mr_err_code with errno set.
 * The range map follows what the MR pins before and after: a new pinned
 * range is protected before the command, an old one released after it;
 * an on-demand-paging MR (before or after) pins nothing. */
SV_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			   void *addr, size_t length, int access)
{
	unsigned int acc = (unsigned int)access;
	struct sv_mr *smr;
	int old_pinned, new_pinned, add_new, del_old;
	void *old_addr, *new_addr;
	size_t old_len, new_len;
	int ret;

	if (!mr || !valid_pd(mr->pd) || !flags ||
	    (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    ((flags & IBV_REREG_MR_CHANGE_PD) && !valid_pd(pd)) ||
	    ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!addr || !length)) ||
	    (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS))) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	smr = container_of(mr, struct sv_mr, mr);
	if (smr->mr_type != SV_MR_TYPE_MR) {
		sv_err("only a memory registration of user memory can be re-registered");
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		ret = check_access(mr->context, &acc);
		if (ret) {
			errno = ret;
			return IBV_REREG_MR_ERR_INPUT;
		}
	} else {
		acc = (unsigned int)smr->access;
	}
	old_addr = mr->addr;
	old_len = mr->length;
	new_addr = (flags & IBV_REREG_MR_CHANGE_TRANSLATION) ? addr : old_addr;
	new_len = (flags & IBV_REREG_MR_CHANGE_TRANSLATION) ? length : old_len;
	old_pinned = pins_pages((unsigned int)smr->access);
	new_pinned = pins_pages(acc);
	add_new = new_pinned &&
		  ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) || !old_pinned);
	del_old = old_pinned &&
		  ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) || !new_pinned);

	/* both through the map: rare, and a note would need the MR key
	 * (sv_fork_mr_forget finds the old range wherever it is) */
	if (add_new) {
		ret = sv_fork_range_add(new_addr, new_len);
		if (ret) {
			errno = -ret;
			return IBV_REREG_MR_ERR_DONT_FORK_NEW;
		}
	}
	ret = sv_priv(mr->context)->ops.rereg_mr(mr, flags, pd, addr, length,
						 (int)acc);
	if (ret) {
		if (add_new && sv_fork_range_del(new_addr, new_len)) {
			errno = ret;
			return IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW;
		}
		errno = ret;
		return IBV_REREG_MR_ERR_CMD;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr->addr = addr;
		mr->length = length;
	}
	/* what ibv_dereg_mr will go by */
	smr->access = (int)acc;
	if (del_old) {
		ret = sv_fork_mr_forget(mr, old_addr, old_len);
		if (ret) {
			errno = -ret;
			return IBV_REREG_MR_ERR_DO_FORK_OLD;
		}
	}
	return 0;
}

/* A dma-buf (GPU memory and the like): the provider registers it; there
 * is no user address range, so nothing enters the fork map. */
SV_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					   size_t length, uint64_t iova,
					   int fd, int access)
{
	unsigned int acc = (unsigned int)access;
	struct ibv_mr *mr;
	int ret;

	if (!valid_pd(pd)) {
		sv_err("ibv_reg_dmabuf_mr: NULL or foreign protection domain");
		errno = EINVAL;
		return NULL;
	}
	if (!length) {
		sv_err("ibv_reg_dmabuf_mr: length is 0");
		errno = EINVAL;
		return NULL;
	}
	if (fd < 0) {
		sv_err("ibv_reg_dmabuf_mr: dma-buf fd %d is invalid", fd);
		errno = EBADF;
		return NULL;
	}
	ret = check_access(pd->context, &acc);
	if (ret) {
		errno = ret;
		return NULL;
	}
	mr = sv_priv(pd->context)->ops.reg_dmabuf_mr(pd, offset, length, iova,
						     fd, (int)acc);
	if (!mr) {
		sv_dbg("dma-buf registration (fd %d, %zu bytes at offset %#llx): %s",
		       fd, length, (unsigned long long)offset, strerror(errno));
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = (void *)(uintptr_t)offset;
	mr->length = length;
	return mr;
}

/* ---- ibv_reg_mr_ex (rdma-core 59) and ibv_reg_buf_mr (64) ------------------- */

#define SV_REG_MR_MASK_KNOWN                                                   \
	(IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD |    \
	 IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_DMAH |                    \
	 IBV_REG_MR_MASK_BUF)

/* A registration of a buffer of ibv_alloc_buf as what it is: memory by
 * address, or, when the buffer has a dma-buf, a range of that dma-buf
 * (rdma-core 64's rule). 0 or a positive errno. */
static int reg_attr_of_buf(struct ibv_pd *pd, struct ibv_buf *buf,
			   struct ibv_mr_init_attr *a)
{
	uintptr_t base, addr = (uintptr_t)a->addr;
	size_t off;

	if (!buf) {
		sv_err("ibv_reg_mr_ex: IBV_REG_MR_MASK_BUF without a buffer");
		return EINVAL;
	}
	base = (uintptr_t)buf->addr;
	if (buf->pd != pd) {
		sv_err("ibv_reg_mr_ex: the buffer was allocated on another protection domain");
		return EINVAL;
	}
	if (!(a->comp_mask & IBV_REG_MR_MASK_ADDR) ||
	    (a->comp_mask & (IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET))) {
		sv_err("ibv_reg_mr_ex: a buffer is registered by address (ADDR, no FD or FD_OFFSET)");
		return EINVAL;
	}
	off = addr - base;
	if (addr < base || off > buf->size || a->length > buf->size - off) {
		sv_err("ibv_reg_mr_ex: %zu bytes at %p are not inside the buffer (%zu bytes at %p)",
		       a->length, a->addr, buf->size, buf->addr);
		return EINVAL;
	}
	a->comp_mask &= ~(uint64_t)IBV_REG_MR_MASK_BUF;
	if (buf->dmabuf_fd < 0)
		return 0;
	if (a->comp_mask & IBV_REG_MR_MASK_IOVA) {
		sv_err("ibv_reg_mr_ex: a dma-buf backed buffer takes no iova (its address is the iova)");
		return EINVAL;
	}
	a->comp_mask &= ~(uint64_t)IBV_REG_MR_MASK_ADDR;
	a->comp_mask |= IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET |
			IBV_REG_MR_MASK_IOVA;
	a->fd = buf->dmabuf_fd;
	a->fd_offset = off;
	a->iova = addr;
	a->addr = NULL;
	return 0;
}

static struct ibv_mr *reg_mr_ex_fail(int err)
{
	errno = err;
	return NULL;
}

/* ibv_reg_mr(3) of rdma-core 59: memory by address (with an iova, a DMA
 * handle) or a dma-buf (fd, offset, iova), or a buffer of ibv_alloc_buf.
 * Fork safety as ibv_reg_mr: memory that pins pages gets MADV_DONTFORK
 * before the kernel pins it (fork safety on) or a note after (off); an
 * on-demand-paging or dma-buf registration pins nothing of ours. The
 * caller's attributes are not changed. */
static struct ibv_mr *reg_mr_ex(struct ibv_pd *pd,
				const struct ibv_mr_init_attr *mr_init_attr,
				struct ibv_buf *buf)
{
	struct ibv_mr_init_attr a;
	unsigned int access;
	struct ibv_context *ctx;
	int pinned, protect, ret;
	struct sv_mr *smr;
	struct ibv_mr *mr;
	uint64_t mask;

	if (!valid_pd(pd) || !mr_init_attr) {
		sv_err("ibv_reg_mr_ex: NULL or foreign protection domain, or no attributes");
		return reg_mr_ex_fail(EINVAL);
	}
	ctx = pd->context;
	mask = mr_init_attr->comp_mask;
	if (mask & ~(uint64_t)SV_REG_MR_MASK_KNOWN) {
		sv_err("ibv_reg_mr_ex: unknown comp_mask bits %#llx",
		       (unsigned long long)(mask & ~(uint64_t)SV_REG_MR_MASK_KNOWN));
		return reg_mr_ex_fail(EOPNOTSUPP);
	}
	/* only what the mask names is read */
	memset(&a, 0, sizeof(a));
	a.length = mr_init_attr->length;
	a.access = mr_init_attr->access;
	a.comp_mask = mask;
	a.fd = -1;
	if (mask & IBV_REG_MR_MASK_IOVA)
		a.iova = mr_init_attr->iova;
	if (mask & IBV_REG_MR_MASK_ADDR)
		a.addr = mr_init_attr->addr;
	if (mask & IBV_REG_MR_MASK_FD)
		a.fd = mr_init_attr->fd;
	if (mask & IBV_REG_MR_MASK_FD_OFFSET)
		a.fd_offset = mr_init_attr->fd_offset;
	if (mask & IBV_REG_MR_MASK_DMAH)
		a.dmah = mr_init_attr->dmah;
	if (mask & IBV_REG_MR_MASK_BUF) {
		ret = reg_attr_of_buf(pd, buf, &a);
		if (ret)
			return reg_mr_ex_fail(ret);
		mask = a.comp_mask;
	}

	if (mask & IBV_REG_MR_MASK_FD) {
		if ((mask & IBV_REG_MR_MASK_ADDR) ||
		    !(mask & IBV_REG_MR_MASK_FD_OFFSET) ||
		    !(mask & IBV_REG_MR_MASK_IOVA)) {
			sv_err("ibv_reg_mr_ex: a dma-buf needs FD, FD_OFFSET and IOVA, and no ADDR");
			return reg_mr_ex_fail(EINVAL);
		}
		if (a.fd < 0) {
			sv_err("ibv_reg_mr_ex: dma-buf fd %d is invalid", a.fd);
			return reg_mr_ex_fail(EBADF);
		}
	} else if (!(mask & IBV_REG_MR_MASK_ADDR) ||
		   (mask & IBV_REG_MR_MASK_FD_OFFSET)) {
		sv_err("ibv_reg_mr_ex: memory needs ADDR (and no FD_OFFSET), a dma-buf FD");
		return reg_mr_ex_fail(EINVAL);
	} else if ((uintptr_t)a.addr + a.length < (uintptr_t)a.addr &&
		   !((a.access & IBV_ACCESS_ON_DEMAND) && a.length == SIZE_MAX)) {
		sv_err("ibv_reg_mr_ex: bad range: %zu bytes at %p", a.length, a.addr);
		return reg_mr_ex_fail(EINVAL);
	}
	if ((mask & IBV_REG_MR_MASK_DMAH) &&
	    (!a.dmah || a.dmah->context != ctx)) {
		sv_err("ibv_reg_mr_ex: NULL or foreign DMA handle");
		return reg_mr_ex_fail(EINVAL);
	}
	access = (unsigned int)a.access;
	ret = check_access(ctx, &access);
	if (ret)
		return reg_mr_ex_fail(ret);
	a.access = (int)access;

	/* the fork-safety part, exactly as ibv_reg_mr's */
	pinned = !(mask & IBV_REG_MR_MASK_FD) && pins_pages(access);
	protect = pinned && sv_fork_mr_protecting();
	ret = protect ? sv_fork_mr_protect(a.addr, a.length) : 0;
	if (ret) {
		sv_explain_reg_mr_fork(a.addr, a.length, -ret);
		return reg_mr_ex_fail(-ret);
	}
	mr = sv_priv(ctx)->ops.reg_mr_ex(pd, &a);
	if (!mr) {
		int err = errno ? errno : EIO;

		sv_dbg("ibv_reg_mr_ex (comp_mask %#llx, %zu bytes): %s",
		       (unsigned long long)mask, a.length, strerror(err));
		if (protect)
			sv_fork_range_del(a.addr, a.length);
		sv_explain_reg_mr(pd, a.addr, a.length, *(volatile unsigned int *)&access, err);
		return reg_mr_ex_fail(err);
	}
	if (pinned && !protect) {
		ret = sv_fork_mr_record(mr, a.addr, a.length);
		if (ret) {
			sv_err("recording %zu bytes at %p for fork safety failed: %d",
			       a.length, a.addr, ret);
			sv_priv(ctx)->ops.dereg_mr(mr);
			return reg_mr_ex_fail(-ret);
		}
	}
	/* what ibv_dereg_mr goes by, whoever made the MR */
	smr = container_of(mr, struct sv_mr, mr);
	smr->mr_type = (mask & IBV_REG_MR_MASK_FD) ? SV_MR_TYPE_DMABUF_MR :
						     SV_MR_TYPE_MR;
	smr->access = (int)access;
	mr->context = ctx;
	mr->pd = pd;
	mr->length = a.length;
	/* a dma-buf's "address" is its offset, as ibv_reg_dmabuf_mr's */
	mr->addr = (mask & IBV_REG_MR_MASK_ADDR) ? a.addr :
						   (void *)(uintptr_t)a.fd_offset;
	return mr;
}

SV_EXPORT struct ibv_mr *ibv_reg_mr_ex(struct ibv_pd *pd,
				       struct ibv_mr_init_attr *mr_init_attr)
{
	/* attr->buf is read only when the mask names it: a program built
	 * against an rdma-core 59-63 verbs.h has no such member */
	return reg_mr_ex(pd, mr_init_attr,
			 mr_init_attr &&
					 (mr_init_attr->comp_mask & IBV_REG_MR_MASK_BUF) ?
				 sv_mr_init_attr_buf(mr_init_attr) :
				 NULL);
}

SV_EXPORT struct ibv_mr *ibv_reg_buf_mr(struct ibv_pd *pd, struct ibv_buf *buf,
					void *addr, size_t length, int access)
{
	struct ibv_mr_init_attr a;

	if (!buf) {
		sv_err("ibv_reg_buf_mr: no buffer");
		errno = EINVAL;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	a.length = length;
	a.access = access;
	a.comp_mask = IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR;
	a.addr = addr;
	return reg_mr_ex(pd, &a, buf);
}
