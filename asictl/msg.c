// SPDX-License-Identifier: GPL-2.0
/*
 * Request messages of the asi family and the genetlink controller. Each
 * builder fills @buf (ASICTL_REQ_SIZE bytes) and returns the message, or
 * NULL if an argument does not fit; the session sets seq and port.
 */
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "asictl.h"

static const char *const cmd_names[ASI_CMD_MAX + 1] = {
	[ASI_CMD_STATUS_GET] = "status-get",
	[ASI_CMD_CLASS_GET] = "class-get",
	[ASI_CMD_STATS_RESET] = "stats-reset",
	[ASI_CMD_STUN_GET] = "stun-get",
	[ASI_CMD_STUN_SET] = "stun-set",
	[ASI_CMD_MARK_ADD] = "mark-add",
	[ASI_CMD_MARK_DEL] = "mark-del",
	[ASI_CMD_MARK_GET] = "mark-get",
	[ASI_CMD_EXITS_GET] = "exits-get",
	[ASI_CMD_CLASS_ADD_NTF] = "class-add-ntf",
	[ASI_CMD_CLASS_DEL_NTF] = "class-del-ntf",
	[ASI_CMD_STUN_NTF] = "stun-ntf",
	[ASI_CMD_MARK_ADD_NTF] = "mark-add-ntf",
	[ASI_CMD_MARK_DEL_NTF] = "mark-del-ntf",
};

const char *asictl_cmd_name(unsigned int cmd)
{
	return cmd <= ASI_CMD_MAX && cmd_names[cmd] ? cmd_names[cmd] : "?";
}

static struct nlmsghdr *put_hdr(void *buf, uint16_t type, uint8_t cmd,
				uint8_t version, bool dump)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	memset(buf, 0, ASICTL_REQ_SIZE);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	/* A do is acked after its reply; a dump ends with NLMSG_DONE. */
	nlh->nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

static struct nlmsghdr *put_asi(void *buf, uint16_t family, uint8_t cmd,
				bool dump)
{
	return put_hdr(buf, family, cmd, ASI_FAMILY_VERSION, dump);
}

struct nlmsghdr *asictl_msg_getfamily(void *buf, const char *name)
{
	struct nlmsghdr *nlh = put_hdr(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
				       1, false);

	if (!mnl_attr_put_strz_check(nlh, ASICTL_REQ_SIZE,
				     CTRL_ATTR_FAMILY_NAME, name))
		return NULL;
	return nlh;
}

struct nlmsghdr *asictl_msg_status_get(void *buf, uint16_t family)
{
	return put_asi(buf, family, ASI_CMD_STATUS_GET, false);
}

/* By id, by name, or (no class) a dump of all classes. */
struct nlmsghdr *asictl_msg_class_get(void *buf, uint16_t family,
				      const struct asictl_class_ref *ref,
				      bool per_cpu)
{
	bool one = ref && ref->name;
	struct nlmsghdr *nlh = put_asi(buf, family, ASI_CMD_CLASS_GET, !one);

	if (one && ref->by_id)
		mnl_attr_put_u32(nlh, ASI_A_CLASS_ID, ref->id);
	else if (one && !mnl_attr_put_strz_check(nlh, ASICTL_REQ_SIZE,
						 ASI_A_CLASS_NAME, ref->name))
		return NULL;
	if (per_cpu)
		mnl_attr_put(nlh, ASI_A_CLASS_PER_CPU, 0, NULL);
	return nlh;
}

struct nlmsghdr *asictl_msg_stats_reset(void *buf, uint16_t family,
					uint32_t id)
{
	struct nlmsghdr *nlh = put_asi(buf, family, ASI_CMD_STATS_RESET, false);

	if (id)
		mnl_attr_put_u32(nlh, ASI_A_CLASS_ID, id);
	return nlh;
}

struct nlmsghdr *asictl_msg_stun_get(void *buf, uint16_t family, uint32_t id)
{
	struct nlmsghdr *nlh = put_asi(buf, family, ASI_CMD_STUN_GET, false);

	if (id)
		mnl_attr_put_u32(nlh, ASI_A_CLASS_ID, id);
	return nlh;
}

struct nlmsghdr *asictl_msg_stun_set(void *buf, uint16_t family, uint32_t id,
				     uint32_t stun)
{
	struct nlmsghdr *nlh = put_asi(buf, family, ASI_CMD_STUN_SET, false);

	if (id)
		mnl_attr_put_u32(nlh, ASI_A_CLASS_ID, id);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_STUN, stun);
	return nlh;
}

struct nlmsghdr *asictl_msg_mark_add(void *buf, uint16_t family,
				     const struct asictl_args *a)
{
	struct nlmsghdr *nlh = put_asi(buf, family, ASI_CMD_MARK_ADD, false);

	mnl_attr_put_u32(nlh, ASI_A_MARK_KIND, a->mark_kind);
	if (a->mark_kind == ASI_MARK_KIND_RANGE) {
		/* uint (NLA_UINT): always 8 bytes from us. */
		mnl_attr_put_u64(nlh, ASI_A_MARK_ADDR, a->addr);
		mnl_attr_put_u64(nlh, ASI_A_MARK_LEN, a->len);
	} else if (!a->name ||
		   !mnl_attr_put_strz_check(nlh, ASICTL_REQ_SIZE,
					    ASI_A_MARK_NAME, a->name)) {
		return NULL;
	}
	return nlh;
}

struct nlmsghdr *asictl_msg_mark_del(void *buf, uint16_t family, uint32_t id)
{
	struct nlmsghdr *nlh = put_asi(buf, family, ASI_CMD_MARK_DEL, false);

	mnl_attr_put_u32(nlh, ASI_A_MARK_ID, id);
	return nlh;
}

/* One mark by id, or (id 0) a dump of all of them. */
struct nlmsghdr *asictl_msg_mark_get(void *buf, uint16_t family, uint32_t id)
{
	struct nlmsghdr *nlh = put_asi(buf, family, ASI_CMD_MARK_GET, !id);

	if (id)
		mnl_attr_put_u32(nlh, ASI_A_MARK_ID, id);
	return nlh;
}

struct nlmsghdr *asictl_msg_exits_get(void *buf, uint16_t family,
				      uint32_t top, uint32_t class_id)
{
	struct nlmsghdr *nlh = put_asi(buf, family, ASI_CMD_EXITS_GET, true);

	if (top)
		mnl_attr_put_u32(nlh, ASI_A_EXIT_TOP, top);
	if (class_id)
		mnl_attr_put_u32(nlh, ASI_A_EXIT_CLASS_ID, class_id);
	return nlh;
}
