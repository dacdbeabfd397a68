/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' stand-in for asictl's seam (asictl/io.c): the tests link
 * asictl with -Wl,--wrap=asictl_io_open,... and these functions answer.
 * Requests sent are kept for inspection; replies are queued beforehand
 * and get the sequence number and port of the request sent last.
 */
#ifndef TEST_ASICTL_MOCK_H
#define TEST_ASICTL_MOCK_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "asictl.h"

#define MOCK_FAMILY	0x1c
#define MOCK_GROUP	7
#define MOCK_PORT	4242
#define MOCK_MAX	16
#define MOCK_BUF	8192

struct mock_sent {
	unsigned char buf[ASICTL_REQ_SIZE];
	size_t len;
};

extern struct mock_sent mock_sent[MOCK_MAX];
extern int mock_nsent;
extern int mock_open_err;
extern uint32_t mock_joined;

void mock_reset(void);
/* Queue one receive: the bytes of @nlh (nlh->nlmsg_len), or an errno. */
void mock_push(const struct nlmsghdr *nlh);
void mock_push_raw(const void *buf, size_t len);
void mock_push_errno(int err);

/* Building replies in a MOCK_BUF buffer. */
struct nlmsghdr *mock_msg(void *buf, uint16_t type, uint8_t cmd);
struct nlmsghdr *mock_family(void *buf, bool with_ops);
struct nlmsghdr *mock_error(void *buf, int err, const char *extack,
			    int offs);
struct nlmsghdr *mock_done(void *buf, int err, const char *extack);
/* The family lookup succeeds (every op, monitor group). */
void mock_push_family(void);

/* The request sent @i-th, its genl command and attribute @type (or NULL). */
const struct nlmsghdr *mock_req(int i);
uint8_t mock_req_cmd(int i);
const struct nlattr *mock_req_attr(int i, uint16_t type);

/* Run asictl with a command line; out and err are captured. */
int mock_run(const char *cmdline, char **out, char **err);

#endif
