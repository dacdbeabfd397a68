// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/asi.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "asi_nl_gen.h"

#include <uapi/linux/asi.h>

/* ASI_CMD_CLASS_GET - do */
static const struct nla_policy asi_class_get_do_nl_policy[ASI_A_CLASS_PER_CPU + 1] = {
	[ASI_A_CLASS_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[ASI_A_CLASS_NAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[ASI_A_CLASS_PER_CPU] = { .type = NLA_FLAG, },
};

/* ASI_CMD_CLASS_GET - dump */
static const struct nla_policy asi_class_get_dump_nl_policy[ASI_A_CLASS_PER_CPU + 1] = {
	[ASI_A_CLASS_PER_CPU] = { .type = NLA_FLAG, },
};

/* ASI_CMD_STATS_RESET - do */
static const struct nla_policy asi_stats_reset_nl_policy[ASI_A_CLASS_ID + 1] = {
	[ASI_A_CLASS_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* ASI_CMD_STUN_GET - do */
static const struct nla_policy asi_stun_get_nl_policy[ASI_A_CLASS_ID + 1] = {
	[ASI_A_CLASS_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* ASI_CMD_STUN_SET - do */
static const struct nla_policy asi_stun_set_nl_policy[ASI_A_CLASS_STUN + 1] = {
	[ASI_A_CLASS_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[ASI_A_CLASS_STUN] = NLA_POLICY_MAX(NLA_U32, 1),
};

/* ASI_CMD_MARK_ADD - do */
static const struct nla_policy asi_mark_add_nl_policy[ASI_A_MARK_NAME + 1] = {
	[ASI_A_MARK_KIND] = NLA_POLICY_RANGE(NLA_U32, 1, 3),
	[ASI_A_MARK_ADDR] = { .type = NLA_UINT, },
	[ASI_A_MARK_LEN] = { .type = NLA_UINT, },
	[ASI_A_MARK_NAME] = { .type = NLA_NUL_STRING, .len = 127, },
};

/* ASI_CMD_MARK_DEL - do */
static const struct nla_policy asi_mark_del_nl_policy[ASI_A_MARK_ID + 1] = {
	[ASI_A_MARK_ID] = { .type = NLA_U32, },
};

/* ASI_CMD_MARK_GET - do */
static const struct nla_policy asi_mark_get_nl_policy[ASI_A_MARK_ID + 1] = {
	[ASI_A_MARK_ID] = { .type = NLA_U32, },
};

/* ASI_CMD_EXITS_GET - dump */
static const struct nla_policy asi_exits_get_nl_policy[ASI_A_EXIT_TOP + 1] = {
	[ASI_A_EXIT_TOP] = NLA_POLICY_RANGE(NLA_U32, 1, 1024),
	[ASI_A_EXIT_CLASS_ID] = { .type = NLA_U32, },
};

/* Ops table for asi */
static const struct genl_split_ops asi_nl_ops[] = {
	{
		.cmd	= ASI_CMD_STATUS_GET,
		.doit	= asi_nl_status_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ASI_CMD_CLASS_GET,
		.doit		= asi_nl_class_get_doit,
		.policy		= asi_class_get_do_nl_policy,
		.maxattr	= ASI_A_CLASS_PER_CPU,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ASI_CMD_CLASS_GET,
		.dumpit		= asi_nl_class_get_dumpit,
		.policy		= asi_class_get_dump_nl_policy,
		.maxattr	= ASI_A_CLASS_PER_CPU,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= ASI_CMD_STATS_RESET,
		.doit		= asi_nl_stats_reset_doit,
		.policy		= asi_stats_reset_nl_policy,
		.maxattr	= ASI_A_CLASS_ID,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ASI_CMD_STUN_GET,
		.doit		= asi_nl_stun_get_doit,
		.policy		= asi_stun_get_nl_policy,
		.maxattr	= ASI_A_CLASS_ID,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ASI_CMD_STUN_SET,
		.doit		= asi_nl_stun_set_doit,
		.policy		= asi_stun_set_nl_policy,
		.maxattr	= ASI_A_CLASS_STUN,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ASI_CMD_MARK_ADD,
		.doit		= asi_nl_mark_add_doit,
		.policy		= asi_mark_add_nl_policy,
		.maxattr	= ASI_A_MARK_NAME,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ASI_CMD_MARK_DEL,
		.doit		= asi_nl_mark_del_doit,
		.policy		= asi_mark_del_nl_policy,
		.maxattr	= ASI_A_MARK_ID,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ASI_CMD_MARK_GET,
		.doit		= asi_nl_mark_get_doit,
		.policy		= asi_mark_get_nl_policy,
		.maxattr	= ASI_A_MARK_ID,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= ASI_CMD_MARK_GET,
		.dumpit	= asi_nl_mark_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= ASI_CMD_EXITS_GET,
		.dumpit		= asi_nl_exits_get_dumpit,
		.policy		= asi_exits_get_nl_policy,
		.maxattr	= ASI_A_EXIT_TOP,
		.flags		= GENL_CMD_CAP_DUMP,
	},
};

static const struct genl_multicast_group asi_nl_mcgrps[] = {
	[ASI_NLGRP_MONITOR] = { "monitor", },
};

struct genl_family asi_nl_family __ro_after_init = {
	.name		= ASI_FAMILY_NAME,
	.version	= ASI_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.split_ops	= asi_nl_ops,
	.n_split_ops	= ARRAY_SIZE(asi_nl_ops),
	.mcgrps		= asi_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(asi_nl_mcgrps),
};
