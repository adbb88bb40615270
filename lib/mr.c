/* Memory registration: argument checks, the fork-safety range map around
 * the REG_MR / DEREG_MR commands, and the three exported versions of
 * ibv_reg_mr. */
#include "config.h"

#include <errno.h>
#include <stdint.h>

#include "core.h"

#define SV_ACCESS_KNOWN                                                        \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                   \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED | IBV_ACCESS_ON_DEMAND |   \
	 IBV_ACCESS_HUGETLB | IBV_ACCESS_OPTIONAL_RANGE)

static int valid_pd(struct ibv_pd *pd)
{
	return pd && pd->context &&
	       pd->context->abi_compat == __VERBS_ABI_IS_EXTENDED;
}

/* 0 or a positive errno; *access loses the optional bits the kernel
 * does not know (they are hints: dropping them is allowed). */
static int check_access(struct ibv_context *ctx, unsigned int *access)
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

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t iova, unsigned int access)
{
	struct ibv_context *ctx;
	struct ibv_mr *mr;
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

	/* DONTFORK before the kernel pins the pages, so that no fork in
	 * between can give the child the pinned pages */
	ret = sv_fork_range_add(addr, length);
	if (ret) {
		sv_err("fork protection of %zu bytes at %p failed: %d", length,
		       addr, ret);
		errno = -ret;
		return NULL;
	}
	mr = sv_priv(ctx)->ops.reg_mr(pd, addr, length, iova, (int)access);
	if (!mr) {
		int err = errno ? errno : EIO;

		sv_dbg("REG_MR of %zu bytes at %p: errno %d", length, addr, err);
		sv_fork_range_del(addr, length);
		errno = err;
		return NULL;
	}
	mr->context = ctx;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	return mr;
}

SV_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					  size_t length, uint64_t iova,
					  unsigned int access)
{
	return reg_mr(pd, addr, length, iova, access);
}

#undef ibv_reg_mr
SV_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
				    size_t length, int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

#undef ibv_reg_mr_iova
SV_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					 size_t length, uint64_t iova,
					 int access)
{
	return reg_mr(pd, addr, length, iova, (unsigned int)access);
}

SV_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	void *addr;
	size_t length;
	int ret;

	if (!mr || !valid_pd(mr->pd))
		return EINVAL;
	addr = mr->addr;
	length = mr->length;
	ret = sv_priv(mr->context)->ops.dereg_mr(mr);
	if (ret)
		return ret;
	/* the pages are unpinned: the last registration of a page makes it
	 * inheritable again */
	ret = sv_fork_range_del(addr, length);
	if (ret)
		sv_err("restoring fork inheritance of %p+%zu: %d", addr, length,
		       ret);
	return 0;
}

/* ibv_rereg_mr(3): 0, or an enum ibv_rereg_mr_err_code with errno set. */
SV_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			   void *addr, size_t length, int access)
{
	unsigned int acc = (unsigned int)access;
	void *old_addr;
	size_t old_len;
	int ret;

	if (!mr || !valid_pd(mr->pd) || !flags ||
	    (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    ((flags & IBV_REREG_MR_CHANGE_PD) && !valid_pd(pd)) ||
	    ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!addr || !length))) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		ret = check_access(mr->context, &acc);
		if (ret) {
			errno = ret;
			return IBV_REREG_MR_ERR_INPUT;
		}
	}
	old_addr = mr->addr;
	old_len = mr->length;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		ret = sv_fork_range_add(addr, length);
		if (ret) {
			errno = -ret;
			return IBV_REREG_MR_ERR_DONT_FORK_NEW;
		}
	}
	ret = sv_priv(mr->context)->ops.rereg_mr(mr, flags, pd, addr,
						       length, (int)acc);
	if (ret) {
		if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
		    sv_fork_range_del(addr, length)) {
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
		ret = sv_fork_range_del(old_addr, old_len);
		if (ret) {
			errno = -ret;
			return IBV_REREG_MR_ERR_DO_FORK_OLD;
		}
	}
	return 0;
}
