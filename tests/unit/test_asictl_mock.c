// SPDX-License-Identifier: GPL-2.0
/* The seam's stand-in for the asictl unit tests; see test_asictl_mock.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_asictl_mock.h"

struct mock_sent mock_sent[MOCK_MAX];
int mock_nsent;
int mock_open_err;
uint32_t mock_joined;

static struct {
	unsigned char buf[MOCK_BUF];
	size_t len;
	int err;
} queue[MOCK_MAX];
static int nqueue, qhead;
static uint32_t last_seq;

void mock_reset(void)
{
	memset(mock_sent, 0, sizeof(mock_sent));
	mock_nsent = 0;
	mock_open_err = 0;
	mock_joined = 0;
	nqueue = qhead = 0;
	last_seq = 0;
}

void mock_push_raw(const void *buf, size_t len)
{
	assert_true(nqueue < MOCK_MAX && len <= MOCK_BUF);
	memcpy(queue[nqueue].buf, buf, len);
	queue[nqueue].len = len;
	queue[nqueue++].err = 0;
}

void mock_push(const struct nlmsghdr *nlh)
{
	mock_push_raw(nlh, nlh->nlmsg_len);
}

void mock_push_errno(int err)
{
	assert_true(nqueue < MOCK_MAX);
	queue[nqueue].len = 0;
	queue[nqueue++].err = err;
}

struct nlmsghdr *mock_msg(void *buf, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	memset(buf, 0, MOCK_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

struct nlmsghdr *mock_family(void *buf, bool with_ops)
{
	struct nlmsghdr *nlh = mock_msg(buf, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	struct nlattr *ops, *op, *grps, *grp;
	int cmd;

	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, MOCK_FAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ASI_FAMILY_NAME);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, ASI_FAMILY_VERSION);
	if (with_ops) {
		ops = mnl_attr_nest_start(nlh, CTRL_ATTR_OPS);
		for (cmd = ASI_CMD_STATUS_GET; cmd <= ASI_CMD_EXITS_GET; cmd++) {
			op = mnl_attr_nest_start(nlh, cmd);
			mnl_attr_put_u32(nlh, CTRL_ATTR_OP_ID, cmd);
			mnl_attr_put_u32(nlh, CTRL_ATTR_OP_FLAGS, 0);
			mnl_attr_nest_end(nlh, op);
		}
		mnl_attr_nest_end(nlh, ops);
	}
	grps = mnl_attr_nest_start(nlh, CTRL_ATTR_MCAST_GROUPS);
	grp = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME, ASI_MCGRP_MONITOR);
	mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, MOCK_GROUP);
	mnl_attr_nest_end(nlh, grp);
	mnl_attr_nest_end(nlh, grps);
	return nlh;
}

/* NLMSG_ERROR with NETLINK_CAP_ACK (no request copy) and extack TLVs. */
struct nlmsghdr *mock_error(void *buf, int err, const char *extack, int offs)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	memset(buf, 0, MOCK_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = err;
	e->msg.nlmsg_len = 64;	/* the request's, not copied */
	if (extack || offs >= 0)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (extack)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, extack);
	if (offs >= 0)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, offs);
	return nlh;
}

struct nlmsghdr *mock_done(void *buf, int err, const char *extack)
{
	struct nlmsghdr *nlh;
	int *e;

	memset(buf, 0, MOCK_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	*e = err;
	if (extack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, extack);
	}
	return nlh;
}

void mock_push_family(void)
{
	static unsigned char buf[MOCK_BUF];

	mock_push(mock_family(buf, true));
	mock_push(mock_error(buf, 0, NULL, -1));
}

const struct nlmsghdr *mock_req(int i)
{
	assert_true(i < mock_nsent);
	return (const struct nlmsghdr *)mock_sent[i].buf;
}

uint8_t mock_req_cmd(int i)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(mock_req(i));

	return g->cmd;
}

const struct nlattr *mock_req_attr(int i, uint16_t type)
{
	const struct nlmsghdr *nlh = mock_req(i);
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

int mock_run(const char *cmdline, char **out, char **err)
{
	char *argv[32], *copy = strdup(cmdline), *tok, *save = NULL;
	struct asictl_args a;
	size_t olen, elen;
	FILE *fo, *fe;
	int argc = 0, rc;

	argv[argc++] = "asictl";
	for (tok = strtok_r(copy, " ", &save); tok && argc < 31;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	fo = open_memstream(out, &olen);
	fe = open_memstream(err, &elen);
	rc = asictl_parse_args(argc, argv, &a, fe);
	if (!rc)
		rc = asictl_run(&a, fo, fe);
	fclose(fo);
	fclose(fe);
	free(copy);
	return rc;
}

/* ---- the wrapped seam ---- */

int __wrap_asictl_io_open(struct asictl_io *io);
int __wrap_asictl_io_join(struct asictl_io *io, uint32_t group);
ssize_t __wrap_asictl_io_send(struct asictl_io *io, const void *buf, size_t len);
ssize_t __wrap_asictl_io_recv(struct asictl_io *io, void *buf, size_t len);
void __wrap_asictl_io_close(struct asictl_io *io);

int __wrap_asictl_io_open(struct asictl_io *io)
{
	io->sock = NULL;
	io->portid = MOCK_PORT;
	return mock_open_err;
}

int __wrap_asictl_io_join(struct asictl_io *io, uint32_t group)
{
	(void)io;
	mock_joined = group;
	return 0;
}

ssize_t __wrap_asictl_io_send(struct asictl_io *io, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;

	(void)io;
	assert_true(mock_nsent < MOCK_MAX && len <= ASICTL_REQ_SIZE);
	assert_int_equal(nlh->nlmsg_len, len);
	memcpy(mock_sent[mock_nsent].buf, buf, len);
	mock_sent[mock_nsent++].len = len;
	last_seq = nlh->nlmsg_seq;
	return len;
}

ssize_t __wrap_asictl_io_recv(struct asictl_io *io, void *buf, size_t len)
{
	struct nlmsghdr *nlh;
	size_t n;
	int left;

	(void)io;
	if (qhead == nqueue)
		return -EAGAIN;	/* nothing queued: the test is wrong */
	if (queue[qhead].err)
		return queue[qhead++].err;
	n = queue[qhead].len;
	assert_true(n <= len);
	memcpy(buf, queue[qhead++].buf, n);
	/* Replies carry the request's sequence number and our port. */
	for (nlh = buf, left = n; mnl_nlmsg_ok(nlh, left);
	     nlh = mnl_nlmsg_next(nlh, &left)) {
		if (!(nlh->nlmsg_flags & 0x8000)) {	/* test marker: keep */
			nlh->nlmsg_seq = last_seq;
			nlh->nlmsg_pid = MOCK_PORT;
		}
		nlh->nlmsg_flags &= ~0x8000;
	}
	return n;
}

void __wrap_asictl_io_close(struct asictl_io *io)
{
	(void)io;
}
