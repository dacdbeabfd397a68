// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the command line parser, and the request built from
 * what it accepted. The input is the arguments separated by newlines or
 * NUL bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "asictl.h"

#define MAXARGS 80

static FILE *devnull;

static void build(const struct asictl_args *a)
{
	static char buf[ASICTL_REQ_SIZE];
	struct nlmsghdr *nlh = NULL;

	switch (a->op) {
	case ASICTL_OP_CLASS_SHOW:
	case ASICTL_OP_STATS:
		nlh = asictl_msg_class_get(buf, 0x20, &a->class, a->per_cpu);
		break;
	case ASICTL_OP_STATS_RESET:
		nlh = asictl_msg_stats_reset(buf, 0x20, a->class.id);
		break;
	case ASICTL_OP_STUN_SHOW:
		nlh = asictl_msg_stun_get(buf, 0x20, a->class.id);
		break;
	case ASICTL_OP_STUN_SET:
		nlh = asictl_msg_stun_set(buf, 0x20, a->class.id, a->stun);
		break;
	case ASICTL_OP_MARK_ADD:
		nlh = asictl_msg_mark_add(buf, 0x20, a);
		break;
	case ASICTL_OP_MARK_DEL:
		nlh = asictl_msg_mark_del(buf, 0x20, a->mark_id);
		break;
	case ASICTL_OP_EXITS:
		nlh = asictl_msg_exits_get(buf, 0x20, a->top, a->class.id);
		break;
	default:
		return;
	}
	if (nlh && nlh->nlmsg_len > ASICTL_REQ_SIZE)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[MAXARGS + 1], *p;
	struct asictl_args a;
	int argc = 0;
	size_t i;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = "asictl";
	for (p = copy, i = 0; i <= size && argc < MAXARGS; i++) {
		if (i == size || copy[i] == '\n' || copy[i] == '\0') {
			copy[i] = '\0';
			argv[argc++] = p;
			p = copy + i + 1;
		}
	}
	argv[argc] = NULL;
	if (!asictl_parse_args(argc, argv, &a, devnull))
		build(&a);
	free(copy);
	return 0;
}
