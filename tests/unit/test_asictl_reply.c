// SPDX-License-Identifier: GPL-2.0
/*
 * asictl's reply parsing: well-formed replies of each kind, acks, kernel
 * errors with extack, dumps, and truncated or malformed messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_asictl_mock.h"

static unsigned char buf[MOCK_BUF], req_buf[ASICTL_REQ_SIZE];
static struct asictl_err e;

/* An attribute with a raw payload, whatever its type should be. */
static void put_raw(struct nlmsghdr *nlh, uint16_t type, const void *p, size_t n)
{
	mnl_attr_put(nlh, type, n, p);
}

static void test_status(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STATUS_GET);
	struct asictl_status st;

	(void)state;
	mnl_attr_put_u8(nlh, ASI_A_STATUS_ENABLED, 1);
	mnl_attr_put_u8(nlh, ASI_A_STATUS_PCID, 0);
	mnl_attr_put_u32(nlh, ASI_A_STATUS_CLASSES, 2);
	mnl_attr_put_u64(nlh, ASI_A_STATUS_GLOBAL_NONSENSITIVE_BYTES, 1ull << 40);
	mnl_attr_put_u32(nlh, ASI_A_STATUS_STUN_DEFAULT, ASI_STUN_POLICY_ON);
	mnl_attr_put_u32(nlh, 99, 5);	/* unknown: skipped */
	assert_int_equal(asictl_parse_status(nlh, &st, &e), 0);
	assert_int_equal(st.enabled, 1);
	assert_int_equal(st.pcid, 0);
	assert_int_equal(st.classes, 2);
	assert_true(st.global_nonsensitive_bytes == 1ull << 40);
	assert_int_equal(st.stun_default, ASI_STUN_POLICY_ON);
	assert_true(ASICTL_HAS(&st, ASI_A_STATUS_PCID));
	assert_false(ASICTL_HAS(&st, ASI_A_STATUS_MARKS));
}

static void test_uint_sizes(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STATUS_GET);
	struct asictl_status st;
	uint16_t two = 1;

	(void)state;
	/* NLA_UINT: 4 bytes... */
	mnl_attr_put_u32(nlh, ASI_A_STATUS_GLOBAL_NONSENSITIVE_BYTES, 4096);
	assert_int_equal(asictl_parse_status(nlh, &st, &e), 0);
	assert_true(st.global_nonsensitive_bytes == 4096);
	/* ...or 8, every bit kept... */
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STATUS_GET);
	mnl_attr_put_u64(nlh, ASI_A_STATUS_GLOBAL_NONSENSITIVE_BYTES, UINT64_MAX);
	assert_int_equal(asictl_parse_status(nlh, &st, &e), 0);
	assert_true(st.global_nonsensitive_bytes == UINT64_MAX);
	/* ...but not 2. */
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STATUS_GET);
	put_raw(nlh, ASI_A_STATUS_GLOBAL_NONSENSITIVE_BYTES, &two, 2);
	assert_int_equal(asictl_parse_status(nlh, &st, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "status.global-nonsensitive-bytes has a bad size (2 bytes)"));
}

static void test_class_stats(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET);
	struct nlattr *nest;
	struct asictl_class c;
	int cpu;

	(void)state;
	mnl_attr_put_u32(nlh, ASI_A_CLASS_ID, 1);
	mnl_attr_put_strz(nlh, ASI_A_CLASS_NAME, "old");
	mnl_attr_put_strz(nlh, ASI_A_CLASS_NAME, "kvm");	/* last wins, no leak */
	mnl_attr_put_u32(nlh, ASI_A_CLASS_FLAGS, ASI_CLASS_FLAGS_MAP_STANDARD);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_INSTANCES, 3);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_STUN, ASI_STUN_POLICY_OFF);
	nest = mnl_attr_nest_start(nlh, ASI_A_CLASS_STATS);
	mnl_attr_put_u64(nlh, ASI_A_STATS_ENTERS, 1ull << 50);
	mnl_attr_put_u32(nlh, ASI_A_STATS_STUNNED_NS, 7);
	mnl_attr_nest_end(nlh, nest);
	for (cpu = 0; cpu < 3; cpu++) {
		nest = mnl_attr_nest_start(nlh, ASI_A_CLASS_CPU_STATS);
		mnl_attr_put_u64(nlh, ASI_A_STATS_ENTERS, cpu * 10);
		mnl_attr_put_u32(nlh, ASI_A_STATS_CPU, cpu);
		mnl_attr_nest_end(nlh, nest);
	}
	assert_int_equal(asictl_parse_class(nlh, &c, &e), 0);
	assert_int_equal(c.id, 1);
	assert_string_equal(c.name, "kvm");
	assert_int_equal(c.flags, ASI_CLASS_FLAGS_MAP_STANDARD);
	assert_int_equal(c.instances, 3);
	assert_int_equal(c.stun, ASI_STUN_POLICY_OFF);
	assert_true(c.stats.v[ASI_A_STATS_ENTERS] == 1ull << 50);
	assert_true(c.stats.v[ASI_A_STATS_STUNNED_NS] == 7);
	assert_false(ASICTL_HAS(&c.stats, ASI_A_STATS_STUNS));
	assert_int_equal(c.ncpus, 3);
	assert_true(c.cpus[2].v[ASI_A_STATS_ENTERS] == 20);
	assert_true(c.cpus[2].v[ASI_A_STATS_CPU] == 2);
	asictl_class_free(&c);
}

static void test_class_bad_nest(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET);
	struct asictl_class c;
	struct nlattr *nest;

	(void)state;
	mnl_attr_put_strz(nlh, ASI_A_CLASS_NAME, "kvm");
	nest = mnl_attr_nest_start(nlh, ASI_A_CLASS_CPU_STATS);
	mnl_attr_put_u32(nlh, ASI_A_STATS_ENTERS, 1);
	mnl_attr_put_u8(nlh, ASI_A_STATS_CPU, 1);	/* u32 expected */
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(asictl_parse_class(nlh, &c, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "stats.cpu has a bad size (1 bytes)"));
	assert_null(c.name);	/* freed on error */
	assert_null(c.cpus);
}

static void test_string_without_nul(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET);
	struct asictl_class c;

	(void)state;
	put_raw(nlh, ASI_A_CLASS_NAME, "kvm", 3);
	assert_int_equal(asictl_parse_class(nlh, &c, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "class.name is not NUL-terminated"));
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET);
	put_raw(nlh, ASI_A_CLASS_NAME, "", 0);
	assert_int_equal(asictl_parse_class(nlh, &c, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "class.name has a bad size (0 bytes)"));
}

static void test_truncated_attr(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_MARK_GET);
	struct asictl_mark m;
	struct nlattr *a;

	(void)state;
	mnl_attr_put_strz(nlh, ASI_A_MARK_NAME, "jiffies");
	mnl_attr_put_u32(nlh, ASI_A_MARK_ID, 1);
	/* The last attribute claims more than the message holds. */
	a = (struct nlattr *)((char *)nlh + nlh->nlmsg_len - 8);
	a->nla_len = 64;
	assert_int_equal(asictl_parse_mark(nlh, &m, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "truncated attribute in mark"));
	assert_null(m.name);
	/* An attribute header cut short. */
	a->nla_len = 8;
	nlh->nlmsg_len -= 6;
	assert_int_equal(asictl_parse_mark(nlh, &m, &e), -EBADMSG);
	/* nla_len below the header size. */
	nlh->nlmsg_len += 6;
	a->nla_len = 2;
	assert_int_equal(asictl_parse_mark(nlh, &m, &e), -EBADMSG);
	/*
	 * The last attribute ends a byte past a message of unaligned length,
	 * in what would be its padding: past the message all the same.
	 */
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_MARK_GET);
	mnl_attr_put_strz(nlh, ASI_A_MARK_NAME, "jiffies");
	nlh->nlmsg_len -= 1;
	assert_int_equal(asictl_parse_mark(nlh, &m, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "truncated attribute in mark"));
	assert_null(m.name);
}

static void test_short_message(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_EXITS_GET);
	struct asictl_exit_ent x;

	(void)state;
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;	/* no room for the genl header */
	assert_int_equal(asictl_parse_exit(nlh, &x, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "message too short"));
}

static void test_mark_and_exit(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_MARK_ADD);
	struct asictl_exit_ent x;
	struct asictl_mark m;

	(void)state;
	mnl_attr_put_u32(nlh, ASI_A_MARK_ID, 7);
	mnl_attr_put_u32(nlh, ASI_A_MARK_KIND, ASI_MARK_KIND_SYMBOL);
	mnl_attr_put_u64(nlh, ASI_A_MARK_ADDR, 0xffffffff82000000ull);
	mnl_attr_put_u32(nlh, ASI_A_MARK_LEN, 8);
	mnl_attr_put_strz(nlh, ASI_A_MARK_NAME, "jiffies");
	mnl_attr_put_u64(nlh, ASI_A_MARK_PAGES, 1);
	assert_int_equal(asictl_parse_mark(nlh, &m, &e), 0);
	assert_int_equal(m.id, 7);
	assert_int_equal(m.kind, ASI_MARK_KIND_SYMBOL);
	assert_true(m.addr == 0xffffffff82000000ull && m.len == 8 && m.pages == 1);
	assert_string_equal(m.name, "jiffies");
	asictl_mark_free(&m);

	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_EXITS_GET);
	mnl_attr_put_u64(nlh, ASI_A_EXIT_ADDR, 0xffff888000001000ull);
	mnl_attr_put_u64(nlh, ASI_A_EXIT_IP, 0xffffffff81000010ull);
	mnl_attr_put_strz(nlh, ASI_A_EXIT_SYMBOL, "svm_vcpu_run+0x10/0x200");
	mnl_attr_put_u64(nlh, ASI_A_EXIT_COUNT, 1000);
	mnl_attr_put_u32(nlh, ASI_A_EXIT_CLASS_ID, 1);
	mnl_attr_put_strz(nlh, ASI_A_EXIT_CLASS_NAME, "kvm");
	assert_int_equal(asictl_parse_exit(nlh, &x, &e), 0);
	assert_true(x.addr == 0xffff888000001000ull && x.ip == 0xffffffff81000010ull);
	assert_true(x.count == 1000);
	assert_string_equal(x.symbol, "svm_vcpu_run+0x10/0x200");
	assert_string_equal(x.class_name, "kvm");
	asictl_exit_free(&x);
}

static void test_family(void **state)
{
	struct asictl_family f;
	struct nlmsghdr *nlh;

	(void)state;
	assert_int_equal(asictl_parse_family(mock_family(buf, true), &f, &e), 0);
	assert_int_equal(f.id, MOCK_FAMILY);
	assert_int_equal(f.version, ASI_FAMILY_VERSION);
	assert_int_equal(f.monitor_group, MOCK_GROUP);
	assert_true(f.ops_known);
	assert_true(asictl_family_has_op(&f, ASI_CMD_EXITS_GET));
	assert_false(asictl_family_has_op(&f, ASI_CMD_MARK_DEL_NTF));
	assert_false(asictl_family_has_op(&f, 200));
	/* No ops list: assume everything is there. */
	assert_int_equal(asictl_parse_family(mock_family(buf, false), &f, &e), 0);
	assert_true(asictl_family_has_op(&f, ASI_CMD_MARK_ADD));
	/* No family id. */
	nlh = mock_msg(buf, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "asi");
	assert_int_equal(asictl_parse_family(nlh, &f, &e), -EBADMSG);
}

/* ---- the exchange: acks, errors, dumps ---- */

static int count_cb(const struct nlmsghdr *nlh, void *data, struct asictl_err *err)
{
	(void)nlh;
	(void)err;
	(*(int *)data)++;
	return 0;
}

static struct nlmsghdr *req_do(void)
{
	struct asictl_class_ref ref = { .name = "kvm" };
	struct nlmsghdr *req = asictl_msg_class_get(req_buf, MOCK_FAMILY, &ref, false);

	req->nlmsg_seq = 5;
	return req;
}

static size_t append(unsigned char *dst, size_t off, const struct nlmsghdr *nlh,
		     uint32_t seq)
{
	memcpy(dst + off, nlh, nlh->nlmsg_len);
	((struct nlmsghdr *)(dst + off))->nlmsg_seq = seq;
	((struct nlmsghdr *)(dst + off))->nlmsg_pid = MOCK_PORT;
	return off + NLMSG_ALIGN(nlh->nlmsg_len);
}

static void test_process_do(void **state)
{
	static unsigned char rx[MOCK_BUF];
	struct nlmsghdr *req = req_do();
	size_t n = 0;
	int calls = 0;

	(void)state;
	/* A notification (seq 0) and a stale reply are skipped. */
	n = append(rx, n, mock_msg(buf, MOCK_FAMILY, ASI_CMD_STUN_NTF), 0);
	n = append(rx, n, mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET), 4);
	n = append(rx, n, mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, count_cb, &calls, &e), 1);
	assert_int_equal(calls, 1);
	n = append(rx, 0, mock_error(buf, 0, NULL, -1), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, count_cb, &calls, &e), 0);
	assert_int_equal(calls, 1);
	assert_string_equal(e.warning, "");
	/* An ack with a remark: done, its message kept as a warning. */
	n = append(rx, 0, mock_error(buf, 0, "stats were reset meanwhile",
				     NLMSG_HDRLEN + GENL_HDRLEN), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), 0);
	assert_string_equal(e.warning, "stats were reset meanwhile");
	assert_string_equal(e.msg, "");
	assert_string_equal(e.attr, "");
	assert_false(e.kernel);
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_OK);
}

static void test_process_extack(void **state)
{
	static unsigned char rx[MOCK_BUF];
	struct nlmsghdr *req = req_do();
	size_t n;

	(void)state;
	/* The offset points at the request's name attribute. */
	n = append(rx, 0, mock_error(buf, -ENOENT, "no class with this name",
				     NLMSG_HDRLEN + GENL_HDRLEN), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -ENOENT);
	assert_true(e.kernel);
	assert_string_equal(e.msg, "no class with this name");
	assert_string_equal(e.attr, "name");
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_KERNEL);

	/* Offset out of the request: no attribute named. */
	n = append(rx, 0, mock_error(buf, -EINVAL, "bad", 4000), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EINVAL);
	assert_string_equal(e.attr, "");

	/* No extack at all. */
	n = append(rx, 0, mock_error(buf, -EPERM, NULL, -1), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EPERM);
	assert_string_equal(e.msg, "");
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_PERM);

	/* The kernel's capability message: still a permission error. */
	n = append(rx, 0, mock_error(buf, -EPERM, "CAP_SYS_ADMIN is required", -1), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EPERM);
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_PERM);

	/* The exit status follows the errno, whatever the reason says. */
	n = append(rx, 0, mock_error(buf, -EPERM, "range holds secrets: base_crng", -1), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EPERM);
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_PERM);
	n = append(rx, 0, mock_error(buf, -EACCES, NULL, -1), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EACCES);
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_PERM);
	n = append(rx, 0, mock_error(buf, -EINVAL, "CAP_SYS_ADMIN is required", -1), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EINVAL);
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_KERNEL);
}

static void test_process_uncapped(void **state)
{
	static unsigned char rx[MOCK_BUF];
	struct nlmsghdr *req = req_do(), *nlh;
	struct nlmsgerr *err;

	(void)state;
	/* Without NETLINK_CAP_ACK the request is copied before the TLVs. */
	memset(rx, 0, sizeof(rx));
	nlh = mnl_nlmsg_put_header(rx);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_ACK_TLVS;
	nlh->nlmsg_seq = 5;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err) - NLMSG_HDRLEN);
	err->error = -EINVAL;
	memcpy(&err->msg, req, req->nlmsg_len);
	nlh->nlmsg_len += req->nlmsg_len;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "class id and name do not match");
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, nlh->nlmsg_len, NULL,
					NULL, &e), -EINVAL);
	assert_string_equal(e.msg, "class id and name do not match");
	/* A copy claiming to be longer than the error: errno only. */
	err->msg.nlmsg_len = 4000;
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, nlh->nlmsg_len, NULL,
					NULL, &e), -EINVAL);
	assert_string_equal(e.msg, "");
}

static void test_process_dump(void **state)
{
	static unsigned char rx[MOCK_BUF];
	struct nlmsghdr *req = asictl_msg_class_get(req_buf, MOCK_FAMILY, NULL, false);
	size_t n = 0;
	int calls = 0;

	(void)state;
	req->nlmsg_seq = 9;
	n = append(rx, n, mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET), 9);
	n = append(rx, n, mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET), 9);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, count_cb, &calls, &e), 1);
	n = append(rx, 0, mock_done(buf, 0, NULL), 9);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, count_cb, &calls, &e), 0);
	assert_int_equal(calls, 2);
	/* A dump that failed: the errno and extack in NLMSG_DONE. */
	n = append(rx, 0, mock_done(buf, -ENOENT, "no class with this id"), 9);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -ENOENT);
	assert_string_equal(e.msg, "no class with this id");
	assert_string_equal(e.warning, "");
	assert_true(e.kernel);
	/* A dump done with a remark: a warning, not an error. */
	n = append(rx, 0, mock_done(buf, 0, "a class went away meanwhile"), 9);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), 0);
	assert_string_equal(e.warning, "a class went away meanwhile");
	assert_string_equal(e.msg, "");
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_OK);
	/* An old-style NLMSG_DONE without payload. */
	n = append(rx, 0, mock_done(buf, 0, NULL), 9);
	((struct nlmsghdr *)rx)->nlmsg_len = NLMSG_HDRLEN;
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, NLMSG_HDRLEN, NULL, NULL, &e), 0);
}

static void test_process_malformed(void **state)
{
	static unsigned char rx[MOCK_BUF];
	struct nlmsghdr *req = req_do(), *nlh;
	size_t n;

	(void)state;
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, 0, NULL, NULL, &e), -EBADMSG);
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_SYSTEM);
	/* Shorter than a header. */
	n = append(rx, 0, mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, 10, NULL, NULL, &e), -EBADMSG);
	/* nlmsg_len beyond what was received. */
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n - 4, NULL, NULL, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "truncated message"));
	/* nlmsg_len below the header. */
	((struct nlmsghdr *)rx)->nlmsg_len = 4;
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EBADMSG);
	/* Another family's message with our sequence number. */
	n = append(rx, 0, mock_msg(buf, MOCK_FAMILY + 1, 1), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "unexpected message type"));
	/* Our family, no room for the genl header. */
	nlh = mock_msg(buf, MOCK_FAMILY, 1);
	nlh->nlmsg_len = NLMSG_HDRLEN;
	n = append(rx, 0, nlh, 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EBADMSG);
	/* A truncated error message. */
	nlh = mock_error(buf, -EINVAL, NULL, -1);
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	n = append(rx, 0, nlh, 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EBADMSG);
	/* A positive error. */
	n = append(rx, 0, mock_error(buf, 5, NULL, -1), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EBADMSG);
	/* nlmsg_len above INT_MAX, which libmnl's mnl_nlmsg_ok() lets by. */
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET);
	n = append(rx, 0, nlh, 5);
	((struct nlmsghdr *)rx)->nlmsg_len = 0x80000010u;
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "truncated message"));
	((struct nlmsghdr *)rx)->nlmsg_type = NLMSG_DONE;
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EBADMSG);
	((struct nlmsghdr *)rx)->nlmsg_type = 7;	/* a reserved control type */
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EBADMSG);
	/* A dump that the kernel's changes interrupted: not malformed. */
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET);
	nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
	n = append(rx, 0, nlh, 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EINTR);
	assert_non_null(strstr(e.msg, "interrupted"));
	assert_int_equal(asictl_err_exit(&e), ASICTL_EXIT_SYSTEM);
	/* Trailing bytes after a complete message. */
	n = append(rx, 0, mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET), 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n + 8, NULL, NULL, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "truncated message (8 bytes left)"));
	/* Overrun. */
	nlh = mock_msg(buf, NLMSG_OVERRUN, 0);
	n = append(rx, 0, nlh, 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EBADMSG);
}

static void test_malformed_extack_ignored(void **state)
{
	static unsigned char rx[MOCK_BUF];
	struct nlmsghdr *req = req_do(), *nlh;
	size_t n;

	(void)state;
	nlh = mock_error(buf, -EINVAL, "abc", -1);
	/* Cut the message's NUL off: the errno is still reported. */
	((struct nlattr *)((char *)nlh + NLMSG_HDRLEN + sizeof(struct nlmsgerr)))->nla_len = 6;
	n = append(rx, 0, nlh, 5);
	assert_int_equal(asictl_process(req, MOCK_PORT, rx, n, NULL, NULL, &e), -EINVAL);
	assert_string_equal(e.msg, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_uint_sizes),
		cmocka_unit_test(test_class_stats),
		cmocka_unit_test(test_class_bad_nest),
		cmocka_unit_test(test_string_without_nul),
		cmocka_unit_test(test_truncated_attr),
		cmocka_unit_test(test_short_message),
		cmocka_unit_test(test_mark_and_exit),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_process_do),
		cmocka_unit_test(test_process_extack),
		cmocka_unit_test(test_process_uncapped),
		cmocka_unit_test(test_process_dump),
		cmocka_unit_test(test_process_malformed),
		cmocka_unit_test(test_malformed_extack_ignored),
	};

	return cmocka_run_group_tests_name("asictl_reply", tests, NULL, NULL);
}
