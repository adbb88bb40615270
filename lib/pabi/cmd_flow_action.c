/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's flow actions (IBVERBS_PRIVATE_34): ESP create and modify,
 * and destroy, ioctl methods only. Flows themselves are cmd_flow.c's. */
#include "config.h"

#include <stdint.h>

#include "pabi.h"

/* The ESP attributes both create and modify send: only what is set. */
static void fill_esp(struct sv_ioctl *cmd,
		     const struct ibv_flow_action_esp_attr *esp)
{
	if (esp->comp_mask & IBV_FLOW_ACTION_ESP_MASK_ESN)
		sv_ioctl_in_ptr(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_ESN, &esp->esn,
				sizeof(esp->esn));
	if (esp->keymat_ptr)
		sv_ioctl_in_enum(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT,
				 (uint8_t)esp->keymat_proto, esp->keymat_ptr,
				 esp->keymat_len);
	if (esp->replay_ptr)
		sv_ioctl_in_enum(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY,
				 (uint8_t)esp->replay_proto, esp->replay_ptr,
				 esp->replay_len);
	/* The encap list's pointers are 64-bit unions in the uAPI: on a
	 * 64-bit build they need no widening. */
	if (esp->esp_encap)
		sv_ioctl_in_ptr(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP,
				esp->esp_encap, sizeof(*esp->esp_encap));
	if (esp->esp_attr)
		sv_ioctl_in_ptr(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS,
				esp->esp_attr, sizeof(*esp->esp_attr));
}
_Static_assert(sizeof(void *) == sizeof(uint64_t),
	       "ESP encap pointers are passed as they are");

/* a handle plus the five ESP attributes */
#define ESP_ATTRS 6

SV_EXPORT int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
					     struct ibv_flow_action_esp_attr *attr,
					     struct verbs_flow_action *flow_action,
					     struct ibv_command_buffer *driver)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_FLOW_ACTION,
			   UVERBS_METHOD_FLOW_ACTION_ESP_CREATE, ESP_ATTRS,
			   driver);
	struct ib_uverbs_attr *handle;
	int ret;

	handle = sv_ioctl_out_obj(cmd,
				  UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE);
	fill_esp(cmd, attr);
	ret = sv_ioctl_exec(ctx, cmd);
	if (ret)
		return ret;
	flow_action->action.context = ctx;
	flow_action->type = IBV_FLOW_ACTION_ESP;
	flow_action->handle = (uint32_t)handle->data;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_create_flow_action_esp);

SV_EXPORT int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
					     struct ibv_flow_action_esp_attr *attr,
					     struct ibv_command_buffer *driver)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_FLOW_ACTION,
			   UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY, ESP_ATTRS,
			   driver);

	sv_ioctl_in_obj(cmd, UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE,
			flow_action->handle);
	fill_esp(cmd, attr);
	return sv_ioctl_exec(flow_action->action.context, cmd);
}
PABI_EXPORT_34(ibv_cmd_modify_flow_action_esp);

SV_EXPORT int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_FLOW_ACTION,
			   UVERBS_METHOD_FLOW_ACTION_DESTROY, 1, NULL);

	sv_ioctl_in_obj(cmd, UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE,
			action->handle);
	return sv_destroy_result(sv_ioctl_exec(action->action.context, cmd));
}
PABI_EXPORT_34(ibv_cmd_destroy_flow_action);
