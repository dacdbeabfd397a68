// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: received bytes as replies to a request (the first
 * byte picks a do or a dump), each reply message through every parser and
 * renderer, text and JSON.
 */
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "asictl.h"

static FILE *devnull;

static int each(const struct nlmsghdr *nlh, void *data, struct asictl_err *e)
{
	struct asictl_out *o = data;
	struct asictl_status st;
	struct asictl_class c;
	struct asictl_mark m;
	struct asictl_exit_ent x;
	struct asictl_family f;

	if (!asictl_parse_status(nlh, &st, e))
		asictl_render_status(o, &st);
	if (!asictl_parse_class(nlh, &c, e)) {
		asictl_render_class(o, &c);
		asictl_render_stats(o, &c, true);
		asictl_class_free(&c);
	}
	if (!asictl_parse_mark(nlh, &m, e)) {
		asictl_render_mark(o, &m);
		asictl_mark_free(&m);
	}
	if (!asictl_parse_exit(nlh, &x, e)) {
		asictl_render_exit(o, &x);
		asictl_exit_free(&x);
	}
	if (!asictl_parse_family(nlh, &f, e))
		asictl_family_has_op(&f, ASI_CMD_STATUS_GET);
	asictl_render_event(o, nlh, e);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char req_buf[ASICTL_REQ_SIZE];
	struct asictl_class_ref ref = { .name = "kvm" };
	struct asictl_out o;
	struct asictl_err e;
	struct nlmsghdr *req;
	void *buf;

	if (!size)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	/* Requests with seq and port 0: replies with 0 are ours. */
	req = asictl_msg_class_get(req_buf, 0x20, data[0] & 1 ? NULL : &ref,
				   false);
	req->nlmsg_seq = 0;
	/* An aligned copy, as recv() would give. */
	buf = malloc(size - 1 ? size - 1 : 1);
	memcpy(buf, data + 1, size - 1);
	out_init(&o, devnull, data[0] & 2, data[0] & 4);
	asictl_process(req, 0, buf, size - 1, each, &o, &e);
	free(buf);
	return 0;
}
