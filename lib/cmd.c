/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The one place that formats uverbs commands: the legacy write ABI
 * (struct ib_uverbs_cmd_hdr, optionally the extended header) and the
 * ioctl ABI (RDMA_VERBS_IOCTL). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core.h"

static int ioctl_sys(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}

/* write() itself, not a wrapper: the doorbell of every rxe/siw send calls
 * it through here (provider.h) */
ssize_t (*sv_cmd_write_fn)(int fd, const void *buf, size_t len) = write;
int (*sv_cmd_ioctl_fn)(int fd, unsigned long request, void *arg) = ioctl_sys;

/* Most commands fit; larger ones (none today) go to the heap. */
#define SV_CMD_STACK 512

static size_t udata_req_len(const struct sv_udata *u)
{
	return u && u->req ? u->req_len : 0;
}

static size_t udata_resp_len(const struct sv_udata *u)
{
	return u && u->resp ? u->resp_len : 0;
}

static int exec_write(struct ibv_context *ctx, uint32_t command, int ex,
		      void *req, size_t req_len, void *resp, size_t resp_len,
		      struct sv_udata *udata)
{
	const size_t unit = ex ? 8 : 4;
	size_t ureq = udata_req_len(udata), uresp = udata_resp_len(udata);
	size_t hdr_len = sizeof(struct ib_uverbs_cmd_hdr) +
			 (ex ? sizeof(struct ib_uverbs_ex_cmd_hdr) : 0);
	size_t in_len = hdr_len + req_len + ureq;
	size_t out_len = resp_len + uresp;
	uint8_t in_stack[SV_CMD_STACK], out_stack[SV_CMD_STACK];
	uint8_t *in = in_stack, *out = resp;
	struct ib_uverbs_cmd_hdr hdr;
	int ret;

	if (req_len % unit || ureq % unit || resp_len % unit || uresp % unit ||
	    (!ex && resp_len && req_len < sizeof(uint64_t)))
		return EINVAL;
	if ((ex ? req_len : in_len) / unit > UINT16_MAX ||
	    out_len / unit > UINT16_MAX || ureq / unit > UINT16_MAX ||
	    uresp / unit > UINT16_MAX)
		return E2BIG;

	if (in_len > sizeof(in_stack)) {
		in = malloc(in_len);
		if (!in)
			return ENOMEM;
	}
	/* The kernel writes the core response and the driver's part as one
	 * block: give it one, then split. */
	if (uresp) {
		out = out_len > sizeof(out_stack) ? malloc(out_len) : out_stack;
		if (!out) {
			ret = ENOMEM;
			goto out_free_in;
		}
		memset(out, 0, out_len);
	}

	hdr.command = command | (ex ? IB_USER_VERBS_CMD_FLAG_EXTENDED : 0);
	if (ex) {
		struct ib_uverbs_ex_cmd_hdr ex_hdr = {
			.response = (uintptr_t)(out_len ? out : NULL),
			.provider_in_words = (uint16_t)(ureq / 8),
			.provider_out_words = (uint16_t)(uresp / 8),
		};

		hdr.in_words = (uint16_t)(req_len / 8);
		hdr.out_words = (uint16_t)(resp_len / 8);
		memcpy(in + sizeof(hdr), &ex_hdr, sizeof(ex_hdr));
	} else {
		hdr.in_words = (uint16_t)(in_len / 4);
		hdr.out_words = (uint16_t)(out_len / 4);
		if (resp_len) {
			uint64_t ptr = (uintptr_t)out;

			/* every legacy request with a reply starts with
			 * its address */
			memcpy(req, &ptr, sizeof(ptr));
		}
	}
	memcpy(in, &hdr, sizeof(hdr));
	memcpy(in + hdr_len, req, req_len);
	if (ureq)
		memcpy(in + hdr_len + req_len, udata->req, ureq);

	ret = sv_cmd_send(ctx, in, in_len);
	if (!ret && uresp) {
		memcpy(resp, out, resp_len);
		memcpy(udata->resp, out + resp_len, uresp);
	}
	if (!ret && udata && udata->core_resp && resp_len)
		memcpy(udata->core_resp, resp, resp_len);
	if (uresp && out != out_stack)
		free(out);
out_free_in:
	if (in != in_stack)
		free(in);
	return ret;
}

int sv_cmd_write(struct ibv_context *ctx, uint32_t command, void *req,
		 size_t req_len, void *resp, size_t resp_len,
		 struct sv_udata *udata)
{
	return exec_write(ctx, command, 0, req, req_len, resp, resp_len, udata);
}

int sv_cmd_write_ex(struct ibv_context *ctx, uint32_t command, void *req,
		    size_t req_len, void *resp, size_t resp_len,
		    struct sv_udata *udata)
{
	return exec_write(ctx, command, 1, req, req_len, resp, resp_len, udata);
}

/* ---- ioctl -------------------------------------------------------------- */

int sv_ioctl_init(struct sv_ioctl *cmd, uint16_t object_id,
		  uint16_t method_id, unsigned int nattrs,
		  const struct sv_ioctl_link *link)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->next_attr = cmd->hdr.attrs;
	cmd->last_attr = cmd->hdr.attrs + nattrs + sv_ioctl_link_nattrs(link);
	cmd->link = link;
	cmd->hdr.object_id = object_id;
	cmd->hdr.method_id = method_id;
	return 0;
}

struct ib_uverbs_attr *sv_ioctl_attr(struct sv_ioctl *cmd, uint16_t attr_id)
{
	struct ib_uverbs_attr *a;

	/* commands are declared with room for what they put in: a
	 * programming error, not a runtime condition */
	if (cmd->next_attr >= cmd->last_attr)
		abort();
	a = cmd->next_attr++;
	memset(a, 0, sizeof(*a));
	a->attr_id = attr_id;
	/* mandatory: a kernel that does not know the attribute must fail
	 * the command rather than ignore it */
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

static uint16_t attr_len(struct sv_ioctl *cmd, size_t len)
{
	if (len > UINT16_MAX) {
		cmd->too_long = true;
		return 0;
	}
	return (uint16_t)len;
}

struct ib_uverbs_attr *sv_ioctl_in_ptr(struct sv_ioctl *cmd, uint16_t attr_id,
				       const void *buf, size_t len)
{
	struct ib_uverbs_attr *a = sv_ioctl_attr(cmd, attr_id);

	a->len = attr_len(cmd, len);
	if (len <= sizeof(a->data)) {
		if (len)
			memcpy(&a->data, buf, len);
	} else {
		a->data = (uintptr_t)buf;
	}
	return a;
}

void sv_ioctl_in_u64(struct sv_ioctl *cmd, uint16_t attr_id, uint64_t val)
{
	sv_ioctl_in_ptr(cmd, attr_id, &val, sizeof(val));
}

void sv_ioctl_in_u32(struct sv_ioctl *cmd, uint16_t attr_id, uint32_t val)
{
	sv_ioctl_in_ptr(cmd, attr_id, &val, sizeof(val));
}

void sv_ioctl_in_enum(struct sv_ioctl *cmd, uint16_t attr_id, uint8_t elem_id,
		      const void *buf, size_t len)
{
	sv_ioctl_in_ptr(cmd, attr_id, buf, len)->attr_data.enum_data.elem_id =
		elem_id;
}

void sv_ioctl_in_obj(struct sv_ioctl *cmd, uint16_t attr_id, uint32_t handle)
{
	sv_ioctl_attr(cmd, attr_id)->data = handle;
}

struct ib_uverbs_attr *sv_ioctl_out_obj(struct sv_ioctl *cmd, uint16_t attr_id)
{
	return sv_ioctl_attr(cmd, attr_id);
}

struct ib_uverbs_attr *sv_ioctl_in_fd(struct sv_ioctl *cmd, uint16_t attr_id,
				      int fd)
{
	struct ib_uverbs_attr *a = sv_ioctl_attr(cmd, attr_id);

	a->data = (uint64_t)(int64_t)fd;
	return a;
}

struct ib_uverbs_attr *sv_ioctl_out_fd(struct sv_ioctl *cmd, uint16_t attr_id)
{
	return sv_ioctl_attr(cmd, attr_id);
}

void sv_ioctl_out(struct sv_ioctl *cmd, uint16_t attr_id, void *buf,
		  size_t len)
{
	struct ib_uverbs_attr *a = sv_ioctl_attr(cmd, attr_id);

	a->len = attr_len(cmd, len);
	a->data = (uintptr_t)buf;
}

int sv_ioctl_send(struct ibv_context *ctx, struct ib_uverbs_ioctl_hdr *hdr,
		  size_t num_attrs)
{
	struct verbs_ex_private *priv = sv_priv(ctx);
	size_t len = sizeof(*hdr) + num_attrs * sizeof(hdr->attrs[0]);

	if (len > UINT16_MAX)
		return E2BIG;
	hdr->length = (uint16_t)len;
	hdr->num_attrs = (uint16_t)num_attrs;
	hdr->reserved1 = 0;
	hdr->reserved2 = 0;
	/* the provider's driver id picks its namespace of attributes */
	hdr->driver_id = priv ? priv->driver_id : RDMA_DRIVER_UNKNOWN;
	if (sv_cmd_ioctl_fn(ctx->cmd_fd, RDMA_VERBS_IOCTL, hdr))
		return errno ? errno : EIO;
	return 0;
}

int sv_ioctl_exec(struct ibv_context *ctx, struct sv_ioctl *cmd)
{
	if (cmd->link)
		return cmd->link->exec(ctx, cmd, cmd->link);
	/* a length that does not fit the attribute's 16 bits */
	if (cmd->too_long) {
		sv_dbg("object %u method %u: attribute too long",
		       cmd->hdr.object_id, cmd->hdr.method_id);
		return EINVAL;
	}
	return sv_ioctl_send(ctx, &cmd->hdr,
			     (size_t)(cmd->next_attr - cmd->hdr.attrs));
}

/* ---- rdma-core's command buffers ------------------------------------------ */

int sv_udata_of_provider(struct sv_udata *u, int ex, size_t req_len,
			 size_t resp_len, const void *cmd, size_t cmd_size,
			 void *presp, size_t presp_size)
{
	/* the provider's buffer starts with room for the header(s) and the
	 * core request; its own data follows */
	size_t core_in = sizeof(struct ib_uverbs_cmd_hdr) +
			 (ex ? sizeof(struct ib_uverbs_ex_cmd_hdr) : 0) + req_len;

	memset(u, 0, sizeof(*u));
	/* rdma-core's request and response types always hold the core part:
	 * anything shorter is a provider bug, not a command */
	if ((cmd && cmd_size < core_in) || (presp && presp_size < resp_len)) {
		sv_err("provider buffers too short (request %zu < %zu or reply %zu < %zu bytes)",
		       cmd_size, core_in, presp_size, resp_len);
		return EINVAL;
	}
	if (cmd && cmd_size > core_in) {
		u->req = (const uint8_t *)cmd + core_in;
		u->req_len = cmd_size - core_in;
	}
	if (presp && presp_size > resp_len) {
		u->resp = (uint8_t *)presp + resp_len;
		u->resp_len = presp_size - resp_len;
	}
	if (presp && resp_len)
		u->core_resp = presp;
	return 0;
}

int sv_cmd_write_drv(struct ibv_context *ctx, uint32_t command, int ex,
		     void *req, size_t req_len, void *resp, size_t resp_len,
		     const void *cmd, size_t cmd_size, void *presp,
		     size_t presp_size)
{
	struct sv_udata udata;
	int ret;

	ret = sv_udata_of_provider(&udata, ex, req_len, resp_len, cmd,
				   cmd_size, presp, presp_size);
	if (ret)
		return ret;
	if (ex)
		return sv_cmd_write_ex(ctx, command, req, req_len, resp,
				       resp_len, &udata);
	return sv_cmd_write(ctx, command, req, req_len, resp, resp_len,
			    &udata);
}
