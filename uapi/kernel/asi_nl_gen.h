/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/asi.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_ASI_GEN_H
#define _LINUX_ASI_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/asi.h>

int asi_nl_status_get_doit(struct sk_buff *skb, struct genl_info *info);
int asi_nl_class_get_doit(struct sk_buff *skb, struct genl_info *info);
int asi_nl_class_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int asi_nl_stats_reset_doit(struct sk_buff *skb, struct genl_info *info);
int asi_nl_stun_get_doit(struct sk_buff *skb, struct genl_info *info);
int asi_nl_stun_set_doit(struct sk_buff *skb, struct genl_info *info);
int asi_nl_mark_add_doit(struct sk_buff *skb, struct genl_info *info);
int asi_nl_mark_del_doit(struct sk_buff *skb, struct genl_info *info);
int asi_nl_mark_get_doit(struct sk_buff *skb, struct genl_info *info);
int asi_nl_mark_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int asi_nl_exits_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

enum {
	ASI_NLGRP_MONITOR,
};

extern struct genl_family asi_nl_family;

#endif /* _LINUX_ASI_GEN_H */
