// SPDX-License-Identifier: GPL-2.0
/*
 * asictl's requests: the header, flags, command and attributes of each,
 * from the builders and as sent by each subcommand through the seam.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_asictl_mock.h"

static unsigned char buf[ASICTL_REQ_SIZE];

struct attrs {
	const struct nlattr *tb[32];
	int n;
};

static void check_hdr(const struct nlmsghdr *nlh, uint8_t cmd, bool dump)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	assert_non_null(nlh);
	assert_int_equal(nlh->nlmsg_type, MOCK_FAMILY);
	assert_int_equal(nlh->nlmsg_flags,
			 NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK));
	assert_int_equal(g->cmd, cmd);
	assert_int_equal(g->version, ASI_FAMILY_VERSION);
	assert_true(nlh->nlmsg_len <= ASICTL_REQ_SIZE);
}

static struct attrs attrs_of(const struct nlmsghdr *nlh)
{
	struct attrs at = { { 0 }, 0 };
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		assert_true(mnl_attr_get_type(a) < 32);
		assert_null(at.tb[mnl_attr_get_type(a)]);	/* no duplicates */
		at.tb[mnl_attr_get_type(a)] = a;
		at.n++;
	}
	/* The attributes fill the message exactly. */
	assert_true((const char *)a == (const char *)nlh + nlh->nlmsg_len);
	return at;
}

static void check_u32(const struct nlattr *a, uint32_t v)
{
	assert_non_null(a);
	assert_int_equal(mnl_attr_get_payload_len(a), 4);
	assert_int_equal(mnl_attr_get_u32(a), v);
}

static void check_u64(const struct nlattr *a, uint64_t v)
{
	assert_non_null(a);
	assert_int_equal(mnl_attr_get_payload_len(a), 8);
	assert_true(mnl_attr_get_u64(a) == v);
}

static void check_str(const struct nlattr *a, const char *s)
{
	assert_non_null(a);
	assert_int_equal(mnl_attr_get_payload_len(a), strlen(s) + 1);
	assert_string_equal(mnl_attr_get_str(a), s);
}

static void test_getfamily(void **state)
{
	struct nlmsghdr *nlh = asictl_msg_getfamily(buf, ASI_FAMILY_NAME);
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct attrs at;

	(void)state;
	assert_int_equal(nlh->nlmsg_type, GENL_ID_CTRL);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(g->cmd, CTRL_CMD_GETFAMILY);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 1);
	check_str(at.tb[CTRL_ATTR_FAMILY_NAME], "asi");
}

static void test_status_get(void **state)
{
	struct nlmsghdr *nlh = asictl_msg_status_get(buf, MOCK_FAMILY);

	(void)state;
	check_hdr(nlh, ASI_CMD_STATUS_GET, false);
	assert_int_equal(attrs_of(nlh).n, 0);
}

static void test_class_get(void **state)
{
	struct asictl_class_ref name = { .name = "kvm" };
	struct asictl_class_ref id = { .name = "2", .by_id = true, .id = 2 };
	struct nlmsghdr *nlh;
	struct attrs at;

	(void)state;
	nlh = asictl_msg_class_get(buf, MOCK_FAMILY, NULL, false);
	check_hdr(nlh, ASI_CMD_CLASS_GET, true);
	assert_int_equal(attrs_of(nlh).n, 0);

	nlh = asictl_msg_class_get(buf, MOCK_FAMILY, NULL, true);
	check_hdr(nlh, ASI_CMD_CLASS_GET, true);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 1);
	assert_int_equal(mnl_attr_get_payload_len(at.tb[ASI_A_CLASS_PER_CPU]), 0);

	nlh = asictl_msg_class_get(buf, MOCK_FAMILY, &name, false);
	check_hdr(nlh, ASI_CMD_CLASS_GET, false);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 1);
	check_str(at.tb[ASI_A_CLASS_NAME], "kvm");

	nlh = asictl_msg_class_get(buf, MOCK_FAMILY, &id, true);
	check_hdr(nlh, ASI_CMD_CLASS_GET, false);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 2);
	check_u32(at.tb[ASI_A_CLASS_ID], 2);
	assert_non_null(at.tb[ASI_A_CLASS_PER_CPU]);
}

static void test_class_name_too_long(void **state)
{
	char *longname = malloc(ASICTL_REQ_SIZE + 1);
	struct asictl_class_ref ref = { .name = longname };

	(void)state;
	memset(longname, 'a', ASICTL_REQ_SIZE);
	longname[ASICTL_REQ_SIZE] = '\0';
	assert_null(asictl_msg_class_get(buf, MOCK_FAMILY, &ref, false));
	free(longname);
}

static void test_stats_reset(void **state)
{
	struct nlmsghdr *nlh = asictl_msg_stats_reset(buf, MOCK_FAMILY, 0);

	(void)state;
	check_hdr(nlh, ASI_CMD_STATS_RESET, false);
	assert_int_equal(attrs_of(nlh).n, 0);
	nlh = asictl_msg_stats_reset(buf, MOCK_FAMILY, 5);
	check_hdr(nlh, ASI_CMD_STATS_RESET, false);
	check_u32(attrs_of(nlh).tb[ASI_A_CLASS_ID], 5);
}

static void test_stun(void **state)
{
	struct nlmsghdr *nlh = asictl_msg_stun_get(buf, MOCK_FAMILY, 0);
	struct attrs at;

	(void)state;
	check_hdr(nlh, ASI_CMD_STUN_GET, false);
	assert_int_equal(attrs_of(nlh).n, 0);
	nlh = asictl_msg_stun_get(buf, MOCK_FAMILY, 1);
	check_u32(attrs_of(nlh).tb[ASI_A_CLASS_ID], 1);

	nlh = asictl_msg_stun_set(buf, MOCK_FAMILY, 0, ASI_STUN_POLICY_OFF);
	check_hdr(nlh, ASI_CMD_STUN_SET, false);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 1);
	check_u32(at.tb[ASI_A_CLASS_STUN], ASI_STUN_POLICY_OFF);

	nlh = asictl_msg_stun_set(buf, MOCK_FAMILY, 3, ASI_STUN_POLICY_ON);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 2);
	check_u32(at.tb[ASI_A_CLASS_ID], 3);
	check_u32(at.tb[ASI_A_CLASS_STUN], ASI_STUN_POLICY_ON);
}

static void test_mark(void **state)
{
	struct asictl_args range = { .mark_kind = ASI_MARK_KIND_RANGE,
				     .addr = 0xffffffff81000000ull, .len = 1ull << 40 };
	struct asictl_args sym = { .mark_kind = ASI_MARK_KIND_SYMBOL, .name = "jiffies" };
	struct asictl_args cache = { .mark_kind = ASI_MARK_KIND_CACHE, .name = "kmalloc-64" };
	struct asictl_args noname = { .mark_kind = ASI_MARK_KIND_SYMBOL };
	struct nlmsghdr *nlh;
	struct attrs at;

	(void)state;
	nlh = asictl_msg_mark_add(buf, MOCK_FAMILY, &range);
	check_hdr(nlh, ASI_CMD_MARK_ADD, false);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 3);
	check_u32(at.tb[ASI_A_MARK_KIND], ASI_MARK_KIND_RANGE);
	check_u64(at.tb[ASI_A_MARK_ADDR], 0xffffffff81000000ull);
	check_u64(at.tb[ASI_A_MARK_LEN], 1ull << 40);

	nlh = asictl_msg_mark_add(buf, MOCK_FAMILY, &sym);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 2);
	check_u32(at.tb[ASI_A_MARK_KIND], ASI_MARK_KIND_SYMBOL);
	check_str(at.tb[ASI_A_MARK_NAME], "jiffies");

	nlh = asictl_msg_mark_add(buf, MOCK_FAMILY, &cache);
	at = attrs_of(nlh);
	check_u32(at.tb[ASI_A_MARK_KIND], ASI_MARK_KIND_CACHE);
	check_str(at.tb[ASI_A_MARK_NAME], "kmalloc-64");

	assert_null(asictl_msg_mark_add(buf, MOCK_FAMILY, &noname));

	nlh = asictl_msg_mark_del(buf, MOCK_FAMILY, 9);
	check_hdr(nlh, ASI_CMD_MARK_DEL, false);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 1);
	check_u32(at.tb[ASI_A_MARK_ID], 9);

	nlh = asictl_msg_mark_get(buf, MOCK_FAMILY, 0);
	check_hdr(nlh, ASI_CMD_MARK_GET, true);
	assert_int_equal(attrs_of(nlh).n, 0);
	nlh = asictl_msg_mark_get(buf, MOCK_FAMILY, 4);
	check_hdr(nlh, ASI_CMD_MARK_GET, false);
	check_u32(attrs_of(nlh).tb[ASI_A_MARK_ID], 4);
}

static void test_exits(void **state)
{
	struct nlmsghdr *nlh = asictl_msg_exits_get(buf, MOCK_FAMILY, 0, 0);
	struct attrs at;

	(void)state;
	check_hdr(nlh, ASI_CMD_EXITS_GET, true);
	assert_int_equal(attrs_of(nlh).n, 0);
	nlh = asictl_msg_exits_get(buf, MOCK_FAMILY, 10, 2);
	at = attrs_of(nlh);
	assert_int_equal(at.n, 2);
	check_u32(at.tb[ASI_A_EXIT_TOP], 10);
	check_u32(at.tb[ASI_A_EXIT_CLASS_ID], 2);
}

/* ---- what each subcommand sends ---- */

static unsigned char rbuf[MOCK_BUF];

static void push_class(uint32_t id, const char *name)
{
	struct nlmsghdr *nlh = mock_msg(rbuf, MOCK_FAMILY, ASI_CMD_CLASS_GET);

	mnl_attr_put_u32(nlh, ASI_A_CLASS_ID, id);
	mnl_attr_put_strz(nlh, ASI_A_CLASS_NAME, name);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_STUN, ASI_STUN_POLICY_ON);
	mock_push(nlh);
}

static void push_ack(void)
{
	mock_push(mock_error(rbuf, 0, NULL, -1));
}

static void run_ok(const char *cmdline)
{
	char *out, *err;
	int rc = mock_run(cmdline, &out, &err);

	if (rc)
		fail_msg("'%s': exit %d: %s", cmdline, rc, err);
	free(out);
	free(err);
}

static int setup(void **state)
{
	(void)state;
	mock_reset();
	mock_push_family();
	return 0;
}

static void test_send_family_lookup(void **state)
{
	(void)state;
	push_ack();		/* stats --reset */
	run_ok("stats --reset");
	assert_int_equal(mock_nsent, 2);
	assert_int_equal(mock_req(0)->nlmsg_type, GENL_ID_CTRL);
	check_str(mock_req_attr(0, CTRL_ATTR_FAMILY_NAME), "asi");
	check_hdr(mock_req(1), ASI_CMD_STATS_RESET, false);
	assert_null(mock_req_attr(1, ASI_A_CLASS_ID));
	/* Sequence numbers differ; the port is left to the kernel. */
	assert_int_not_equal(mock_req(0)->nlmsg_seq, mock_req(1)->nlmsg_seq);
	assert_int_equal(mock_req(1)->nlmsg_pid, 0);
}

static void test_send_stats_reset_name(void **state)
{
	(void)state;
	push_class(4, "kvm");
	push_ack();
	push_ack();
	run_ok("stats kvm --reset");
	assert_int_equal(mock_nsent, 3);
	check_hdr(mock_req(1), ASI_CMD_CLASS_GET, false);
	check_str(mock_req_attr(1, ASI_A_CLASS_NAME), "kvm");
	check_hdr(mock_req(2), ASI_CMD_STATS_RESET, false);
	check_u32(mock_req_attr(2, ASI_A_CLASS_ID), 4);
}

static void test_send_stun_set_id(void **state)
{
	(void)state;
	push_ack();
	run_ok("stun off --class 3");
	/* A class id goes as it is: no lookup. */
	assert_int_equal(mock_nsent, 2);
	check_hdr(mock_req(1), ASI_CMD_STUN_SET, false);
	check_u32(mock_req_attr(1, ASI_A_CLASS_ID), 3);
	check_u32(mock_req_attr(1, ASI_A_CLASS_STUN), ASI_STUN_POLICY_OFF);
}

static void test_send_stun_show(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	push_class(1, "kvm");
	push_ack();
	nlh = mock_msg(rbuf, MOCK_FAMILY, ASI_CMD_STUN_GET);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_STUN, ASI_STUN_POLICY_ON);
	mock_push(nlh);
	push_ack();
	nlh = mock_msg(rbuf, MOCK_FAMILY, ASI_CMD_STUN_GET);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_ID, 1);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_STUN, ASI_STUN_POLICY_OFF);
	mock_push(nlh);
	push_ack();
	run_ok("stun show --class kvm");
	assert_int_equal(mock_nsent, 4);
	check_hdr(mock_req(1), ASI_CMD_CLASS_GET, false);
	check_hdr(mock_req(2), ASI_CMD_STUN_GET, false);
	assert_null(mock_req_attr(2, ASI_A_CLASS_ID));
	check_hdr(mock_req(3), ASI_CMD_STUN_GET, false);
	check_u32(mock_req_attr(3, ASI_A_CLASS_ID), 1);
}

static void test_send_stats_per_cpu(void **state)
{
	(void)state;
	mock_push(mock_done(rbuf, 0, NULL));
	run_ok("stats --per-cpu");
	check_hdr(mock_req(1), ASI_CMD_CLASS_GET, true);
	assert_non_null(mock_req_attr(1, ASI_A_CLASS_PER_CPU));
}

static void test_send_exits(void **state)
{
	(void)state;
	push_class(2, "kvm");
	push_ack();
	mock_push(mock_done(rbuf, 0, NULL));
	run_ok("exits --top 5 --class kvm");
	check_hdr(mock_req(2), ASI_CMD_EXITS_GET, true);
	check_u32(mock_req_attr(2, ASI_A_EXIT_TOP), 5);
	check_u32(mock_req_attr(2, ASI_A_EXIT_CLASS_ID), 2);
}

static void test_send_mark(void **state)
{
	struct nlmsghdr *nlh = mock_msg(rbuf, MOCK_FAMILY, ASI_CMD_MARK_ADD);

	(void)state;
	/* Each run looks the family up again (setup queued the first). */
	mnl_attr_put_u32(nlh, ASI_A_MARK_ID, 1);
	mock_push(nlh);
	push_ack();
	mock_push_family();
	push_ack();
	mock_push_family();
	mock_push(mock_done(rbuf, 0, NULL));
	run_ok("mark add 0x1000 0x2000");
	check_hdr(mock_req(1), ASI_CMD_MARK_ADD, false);
	check_u64(mock_req_attr(1, ASI_A_MARK_ADDR), 0x1000);
	check_u64(mock_req_attr(1, ASI_A_MARK_LEN), 0x2000);
	run_ok("mark del 1");
	check_hdr(mock_req(3), ASI_CMD_MARK_DEL, false);
	check_u32(mock_req_attr(3, ASI_A_MARK_ID), 1);
	run_ok("mark list");
	check_hdr(mock_req(5), ASI_CMD_MARK_GET, true);
}

static void test_send_monitor_joins(void **state)
{
	char *out, *err;

	mock_push_errno(-EBADF);	/* ends the loop */
	assert_int_equal(mock_run("monitor", &out, &err), ASICTL_EXIT_SYSTEM);
	assert_non_null(strstr(err, "asictl: monitor: cannot receive from the kernel"));
	free(out);
	free(err);
	(void)state;
	assert_int_equal(mock_joined, MOCK_GROUP);
	assert_int_equal(mock_nsent, 1);	/* the family lookup only */
}

static void test_send_nothing_for_help(void **state)
{
	(void)state;
	run_ok("help");
	run_ok("-V");
	assert_int_equal(mock_nsent, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getfamily),
		cmocka_unit_test(test_status_get),
		cmocka_unit_test(test_class_get),
		cmocka_unit_test(test_class_name_too_long),
		cmocka_unit_test(test_stats_reset),
		cmocka_unit_test(test_stun),
		cmocka_unit_test(test_mark),
		cmocka_unit_test(test_exits),
		cmocka_unit_test_setup(test_send_family_lookup, setup),
		cmocka_unit_test_setup(test_send_stats_reset_name, setup),
		cmocka_unit_test_setup(test_send_stun_set_id, setup),
		cmocka_unit_test_setup(test_send_stun_show, setup),
		cmocka_unit_test_setup(test_send_stats_per_cpu, setup),
		cmocka_unit_test_setup(test_send_exits, setup),
		cmocka_unit_test_setup(test_send_mark, setup),
		cmocka_unit_test_setup(test_send_monitor_joins, setup),
		cmocka_unit_test_setup(test_send_nothing_for_help, setup),
	};

	return cmocka_run_group_tests_name("asictl_msg", tests, NULL, NULL);
}
