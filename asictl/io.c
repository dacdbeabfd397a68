// SPDX-License-Identifier: GPL-2.0
/*
 * The seam: every system call asictl makes on its netlink socket. The unit
 * tests link the rest of asictl with -Wl,--wrap=asictl_io_* and answer
 * from canned replies instead.
 */
#include <errno.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>

#include "asictl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int asictl_io_open(struct asictl_io *io)
{
	int one = 1, err;

	io->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!io->sock)
		return -errno;
	if (mnl_socket_bind(io->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		mnl_socket_close(io->sock);
		io->sock = NULL;
		return err;
	}
	io->portid = mnl_socket_get_portid(io->sock);
	/* Extack messages; errors without a copy of the request. */
	mnl_socket_setsockopt(io->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(io->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;
}

int asictl_io_join(struct asictl_io *io, uint32_t group)
{
	if (mnl_socket_setsockopt(io->sock, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0)
		return -errno;
	return 0;
}

ssize_t asictl_io_send(struct asictl_io *io, const void *buf, size_t len)
{
	ssize_t n = mnl_socket_sendto(io->sock, buf, len);

	return n < 0 ? -errno : n;
}

/* -ENOSPC when a message did not fit in @len (MSG_TRUNC). */
ssize_t asictl_io_recv(struct asictl_io *io, void *buf, size_t len)
{
	ssize_t n = mnl_socket_recvfrom(io->sock, buf, len);

	return n < 0 ? -errno : n;
}

void asictl_io_close(struct asictl_io *io)
{
	if (io->sock)
		mnl_socket_close(io->sock);
	io->sock = NULL;
}
