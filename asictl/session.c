// SPDX-License-Identifier: GPL-2.0
/*
 * Exchanges with the kernel over the seam (io.c): one request, its
 * replies until the ack or the end of the dump; the family lookup; the
 * monitor loop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "asictl.h"

static int sys_err(struct asictl_nl *nl, int err, const char *what)
{
	asictl_err_set(&nl->err, err, "%s", what);
	return err;
}

int asictl_nl_transact(struct asictl_nl *nl, struct nlmsghdr *req,
		       asictl_msg_cb cb, void *data)
{
	const struct genlmsghdr *g = (const void *)((char *)req + NLMSG_HDRLEN);
	ssize_t n;
	int ret = 1;

	memset(&nl->err, 0, sizeof(nl->err));
	if (req->nlmsg_type == nl->fam.id &&
	    !asictl_family_has_op(&nl->fam, g->cmd)) {
		asictl_err_set(&nl->err, -EOPNOTSUPP,
			       "the kernel's %s family has no %s operation",
			       ASI_FAMILY_NAME, asictl_cmd_name(g->cmd));
		nl->err.kernel = true;
		return -EOPNOTSUPP;
	}
	req->nlmsg_seq = ++nl->seq;
	req->nlmsg_pid = 0;
	n = asictl_io_send(&nl->io, req, req->nlmsg_len);
	if (n < 0)
		return sys_err(nl, n, "cannot send to the kernel");
	if ((size_t)n != req->nlmsg_len)
		return sys_err(nl, -EIO, "short send to the kernel");
	do {
		n = asictl_io_recv(&nl->io, nl->rx, ASICTL_RX_SIZE);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return sys_err(nl, n, "cannot receive from the kernel");
		ret = asictl_process(req, nl->io.portid, nl->rx, n, cb, data,
				     &nl->err);
	} while (n == -EINTR || ret > 0);
	return ret;
}

static int family_cb(const struct nlmsghdr *nlh, void *data,
		     struct asictl_err *e)
{
	return asictl_parse_family(nlh, data, e);
}

int asictl_nl_open(struct asictl_nl *nl)
{
	char buf[ASICTL_REQ_SIZE];
	struct nlmsghdr *req;
	int err;

	memset(nl, 0, sizeof(*nl));
	nl->seq = time(NULL);
	nl->rx = malloc(ASICTL_RX_SIZE);
	if (!nl->rx)
		return sys_err(nl, -ENOMEM, "out of memory");
	err = asictl_io_open(&nl->io);
	if (err)
		return sys_err(nl, err, "cannot open a generic netlink socket");
	req = asictl_msg_getfamily(buf, ASI_FAMILY_NAME);
	err = asictl_nl_transact(nl, req, family_cb, &nl->fam);
	if (err == -ENOENT && nl->err.kernel)
		nl->err.absent = true;
	else if (!err && !nl->fam.id)
		err = sys_err(nl, -EBADMSG, "the controller did not answer");
	return err;
}

struct monitor {
	struct asictl_nl *nl;
	asictl_msg_cb cb;
	void *data;
	const char *start;
	size_t len;
	int err;
};

/*
 * Whether the message fits in what was received: libmnl's mnl_nlmsg_ok()
 * lets a length above INT_MAX through. What does not fit ends the batch.
 */
static bool monitor_fits(const struct monitor *m, const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_len <= m->len - ((const char *)nlh - m->start);
}

/* A notification of our family; anything else on the socket is skipped. */
static int monitor_msg(const struct nlmsghdr *nlh, void *data)
{
	struct monitor *m = data;

	if (!monitor_fits(m, nlh))
		return MNL_CB_STOP;
	if (nlh->nlmsg_type != m->nl->fam.id)
		return MNL_CB_OK;
	m->err = m->cb(nlh, m->data, &m->nl->err);
	return m->err ? MNL_CB_ERROR : MNL_CB_OK;
}

static int monitor_ctl(const struct nlmsghdr *nlh, void *data)
{
	return monitor_fits(data, nlh) ? MNL_CB_OK : MNL_CB_STOP;
}

int asictl_nl_monitor(struct asictl_nl *nl, asictl_msg_cb cb, void *data,
		      volatile sig_atomic_t *stop)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[0 ... NLMSG_MIN_TYPE - 1] = monitor_ctl,
	};
	struct monitor m = { nl, cb, data, NULL, 0, 0 };
	ssize_t n;
	int err;

	memset(&nl->err, 0, sizeof(nl->err));
	if (!nl->fam.monitor_group)
		return sys_err(nl, -ENOENT, "the family has no monitor group");
	err = asictl_io_join(&nl->io, nl->fam.monitor_group);
	if (err)
		return sys_err(nl, err, "cannot join the monitor group");
	while (!*stop) {
		n = asictl_io_recv(&nl->io, nl->rx, ASICTL_RX_SIZE);
		if (n == -EINTR)
			continue;
		if (n == -ENOBUFS) {
			/* The socket overflowed: events were lost. */
			fputs("asictl: monitor: events were lost (receive buffer overrun)\n",
			      stderr);
			continue;
		}
		if (n < 0)
			return sys_err(nl, n, "cannot receive from the kernel");
		m.err = 0;
		m.start = nl->rx;
		m.len = n;
		if (mnl_cb_run2(nl->rx, n, 0, 0, monitor_msg, &m, ctl,
				NLMSG_MIN_TYPE) < 0 && m.err)
			return m.err;
	}
	return 0;
}

void asictl_nl_close(struct asictl_nl *nl)
{
	asictl_io_close(&nl->io);
	free(nl->rx);
	nl->rx = NULL;
}
