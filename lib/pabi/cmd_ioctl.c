/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's ioctl command buffers (struct ibv_command_buffer,
 * execute_ioctl) on the core's one ioctl builder (lib/cmd.c). The
 * ibv_cmd_* methods, one file per object (cmd_device.c, cmd_mr.c,
 * cmd_cq.c, ...), build their commands with the core's sv_ioctl_*.
 *
 * A provider builds attributes in a buffer on its stack with inline
 * functions compiled into it (rdma-core's cmd_ioctl.h) and may hand it to
 * us as a "link": our command is declared with room for its attributes
 * plus every attribute already in the chain (__ioctl_final_num_attrs);
 * sending it appends the chain behind them, sends one RDMA_VERBS_IOCTL
 * and copies the chained attributes back, so that the provider reads
 * output handles and lengths through its own attribute pointers. A
 * provider's own command goes the same way through execute_ioctl. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "pabi.h"

SV_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
					       struct ibv_command_buffer *link)
{
	/* Attributes filled so far in each linked buffer count too. */
	for (; link; link = link->next)
		num_attrs += (unsigned int)(link->next_attr - link->hdr.attrs);
	return num_attrs;
}
PABI_EXPORT_34(__ioctl_final_num_attrs);

static int ioctl_fail(int err)
{
	errno = err;
	return err;
}

/* The UHW_IN attribute of the linearized command, or NULL; EINVAL when a
 * buffer's bookkeeping points at something else. */
static int find_uhw_in(struct ib_uverbs_attr *at, struct ib_uverbs_attr *end,
		       struct ib_uverbs_attr **uhw)
{
	if (at >= end || at->attr_id != UVERBS_ATTR_UHW_IN) {
		sv_err("uhw_in_idx does not name a UHW_IN attribute");
		return EINVAL;
	}
	if (*uhw) {
		sv_err("two UHW_IN attributes in one command");
		return EINVAL;
	}
	*uhw = at;
	return 0;
}

/* Sends hdr, whose own attributes end at own_end (room up to last), with
 * the chain's behind them; uhw_in_idx: where hdr's own UHW_IN is, if it
 * has one in rdma-core's bookkeeping. 0, or a positive errno also left in
 * errno. */
static int send_chain(struct ibv_context *context,
		      struct ib_uverbs_ioctl_hdr *hdr,
		      struct ib_uverbs_attr *own_end,
		      struct ib_uverbs_attr *last, uint8_t uhw_in_idx,
		      struct ibv_command_buffer *chain)
{
	struct ib_uverbs_attr *end = own_end, *uhw = NULL;
	struct ibv_command_buffer *link;
	uint64_t uhw_ptr = 0;
	size_t n;
	int ret;

	/* Linearize: the chained attributes go behind this buffer's own, in
	 * the room the caller reserved for them. */
	for (link = chain; link; link = link->next) {
		n = (size_t)(link->next_attr - link->hdr.attrs);
		if (link->buffer_error) {
			sv_dbg("object %u method %u: linked attribute too long",
			       hdr->object_id, hdr->method_id);
			return ioctl_fail(EINVAL);
		}
		if (n > (size_t)(last - end)) {
			sv_err("object %u method %u: no room for %zu linked attributes",
			       hdr->object_id, hdr->method_id, n);
			return ioctl_fail(EINVAL);
		}
		memcpy(end, link->hdr.attrs, n * sizeof(*end));
		if (link->uhw_in_idx != SV_UHW_NO_INDEX) {
			ret = find_uhw_in(end + link->uhw_in_idx, end + n, &uhw);
			if (ret)
				return ioctl_fail(ret);
		}
		end += n;
	}
	if (uhw_in_idx != SV_UHW_NO_INDEX) {
		ret = find_uhw_in(hdr->attrs + uhw_in_idx, own_end, &uhw);
		if (ret)
			return ioctl_fail(ret);
	}

	/* The driver's UHW_IN stays a pointer until now (a write fallback
	 * needs the pointer); the kernel wants up to 8 bytes inline. */
	if (uhw && uhw->len <= sizeof(uhw->data)) {
		uint64_t inline_data = 0;

		uhw_ptr = uhw->data;
		if (uhw->len)
			memcpy(&inline_data, (const void *)(uintptr_t)uhw_ptr,
			       uhw->len);
		uhw->data = inline_data;
	} else {
		uhw = NULL;
	}

	ret = sv_ioctl_send(context, hdr, (size_t)(end - hdr->attrs));
	/* the attribute describes the provider's buffer again */
	if (uhw)
		uhw->data = uhw_ptr;
	if (ret) {
		sv_dbg("object %u method %u: %s", hdr->object_id,
		       hdr->method_id, strerror(ret));
		return ioctl_fail(ret);
	}

	/* the kernel's answers (handles, fds, VALID_OUTPUT flags) back to
	 * where each provider put its attributes */
	end = own_end;
	for (link = chain; link; link = link->next) {
		n = (size_t)(link->next_attr - link->hdr.attrs);
		memcpy(link->hdr.attrs, end, n * sizeof(*end));
		end += n;
	}
	return 0;
}

SV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd)
{
	/* a fill_* was given what cannot be marshalled (len > 64 KiB) */
	if (cmd->buffer_error) {
		sv_dbg("object %u method %u: attribute too long",
		       cmd->hdr.object_id, cmd->hdr.method_id);
		return ioctl_fail(EINVAL);
	}
	return send_chain(context, &cmd->hdr, cmd->next_attr, cmd->last_attr,
			  cmd->uhw_in_idx, cmd->next);
}
PABI_EXPORT_34(execute_ioctl);

/* sv_ioctl_exec of a command declared with PABI_IOCTL_DECLARE */
static int exec_linked(struct ibv_context *context, struct sv_ioctl *cmd,
		       const struct sv_ioctl_link *link)
{
	const struct pabi_link *pl = container_of(link, struct pabi_link, link);

	if (cmd->too_long) {
		sv_dbg("object %u method %u: attribute too long",
		       cmd->hdr.object_id, cmd->hdr.method_id);
		return ioctl_fail(EINVAL);
	}
	return send_chain(context, &cmd->hdr, cmd->next_attr, cmd->last_attr,
			  SV_UHW_NO_INDEX, pl->chain);
}

struct pabi_link pabi_link_of(struct ibv_command_buffer *chain)
{
	struct pabi_link l = {
		.link = { .nattrs = __ioctl_final_num_attrs(0, chain),
			  .exec = exec_linked },
		.chain = chain,
	};

	return l;
}
