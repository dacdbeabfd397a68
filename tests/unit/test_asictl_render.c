// SPDX-License-Identifier: GPL-2.0
/*
 * asictl's output, text and JSON, and whole runs through the mocked seam:
 * what reaches stdout and stderr, and the exit code, for success and for
 * every kind of failure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_asictl_mock.h"

static char *text;
static size_t len;
static struct asictl_out o;
static unsigned char buf[MOCK_BUF];

static void begin(bool json, bool pretty)
{
	FILE *f = open_memstream(&text, &len);

	out_init(&o, f, json, pretty);
}

static void end(const char *want)
{
	fclose(o.fp);
	assert_string_equal(text, want);
	free(text);
}

static struct asictl_status status(void)
{
	struct asictl_status st = {
		.enabled = 1, .pcid = 0, .classes = 1,
		.global_nonsensitive_bytes = 49152,
		.stun_default = ASI_STUN_POLICY_ON, .marks = 0,
	};

	st.has = 1u << ASI_A_STATUS_ENABLED | 1u << ASI_A_STATUS_PCID |
		 1u << ASI_A_STATUS_CLASSES | 1u << ASI_A_STATUS_GLOBAL_NONSENSITIVE_BYTES |
		 1u << ASI_A_STATUS_STUN_DEFAULT | 1u << ASI_A_STATUS_MARKS;
	return st;
}

static void test_status_text(void **state)
{
	struct asictl_status st = status();

	(void)state;
	begin(false, false);
	asictl_render_status(&o, &st);
	end("ASI                   enabled\n"
	    "PCID                  no\n"
	    "classes               1\n"
	    "global non-sensitive  49152 bytes (48.0 KiB)\n"
	    "default stun policy   on\n"
	    "marks                 0\n");
}

static void test_status_json(void **state)
{
	struct asictl_status st = status();

	(void)state;
	st.global_nonsensitive_bytes = UINT64_MAX;	/* never truncated */
	st.stun_default = 9;				/* unknown: the number */
	begin(true, false);
	asictl_render_status(&o, &st);
	end("{\"enabled\":true,\"pcid\":false,\"classes\":1,"
	    "\"global-nonsensitive-bytes\":18446744073709551615,"
	    "\"stun-default\":9,\"marks\":0}\n");
}

static void test_status_pretty(void **state)
{
	struct asictl_status st = { .enabled = 0 };

	(void)state;
	st.has = 1u << ASI_A_STATUS_ENABLED | 1u << ASI_A_STATUS_CLASSES;
	begin(true, true);
	asictl_render_status(&o, &st);
	end("{\n  \"enabled\": false,\n  \"classes\": 0\n}\n");
}

static struct asictl_class kvm(void)
{
	struct asictl_class c = { .id = 1, .name = "kvm",
				  .flags = ASI_CLASS_FLAGS_MAP_STANDARD,
				  .instances = 2, .stun = ASI_STUN_POLICY_ON };

	c.has = 1u << ASI_A_CLASS_ID | 1u << ASI_A_CLASS_NAME |
		1u << ASI_A_CLASS_FLAGS | 1u << ASI_A_CLASS_INSTANCES |
		1u << ASI_A_CLASS_STUN;
	return c;
}

static void test_class_text(void **state)
{
	struct asictl_class c = kvm(), d = kvm();

	(void)state;
	d.id = 12;
	d.name = "a-longer-name";
	d.flags = 0x6;
	d.has &= ~(1u << ASI_A_CLASS_STUN);
	begin(false, false);
	asictl_render_class_head(&o);
	asictl_render_class(&o, &c);
	asictl_render_class(&o, &d);
	end("  ID  NAME             FLAGS           INSTANCES  STUN\n"
	    "   1  kvm              map-standard            2  on\n"
	    "  12  a-longer-name    0x6                     2  -\n");
}

static void test_class_json(void **state)
{
	struct asictl_class c = kvm();

	(void)state;
	c.flags |= 0x8;
	c.name = "q\"\\\x01\xc3";	/* escaped, valid JSON */
	begin(true, false);
	out_arr_open(&o, NULL);
	asictl_render_class(&o, &c);
	c.flags = 0;
	asictl_render_class(&o, &c);
	out_arr_close(&o);
	end("[{\"id\":1,\"name\":\"q\\\"\\\\\\u0001\\u00c3\",\"flags\":[\"map-standard\",\"0x8\"],"
	    "\"instances\":2,\"stun\":\"on\"},"
	    "{\"id\":1,\"name\":\"q\\\"\\\\\\u0001\\u00c3\",\"flags\":[],\"instances\":2,\"stun\":\"on\"}]\n");
}

static void test_empty_array(void **state)
{
	(void)state;
	begin(true, true);
	out_arr_open(&o, NULL);
	out_arr_close(&o);
	end("[]\n");
}

static struct asictl_class with_stats(struct asictl_stats *cpus)
{
	struct asictl_class c = kvm();
	int t, i;

	for (t = ASI_A_STATS_ENTERS; t < ASI_A_STATS_CPU; t++) {
		c.stats.v[t] = t;
		c.stats.has |= 1u << t;
		for (i = 0; i < 2; i++) {
			cpus[i].v[t] = i ? 12345678901ull : 0;
			cpus[i].has |= 1u << t;
		}
	}
	c.stats.v[ASI_A_STATS_ENTERS] = UINT64_MAX;
	for (i = 0; i < 2; i++) {
		cpus[i].v[ASI_A_STATS_CPU] = i;
		cpus[i].has |= 1u << ASI_A_STATS_CPU;
	}
	c.cpus = cpus;
	c.ncpus = 2;
	return c;
}

static void test_stats_text(void **state)
{
	struct asictl_stats cpus[2] = { { 0 } };
	struct asictl_class c = with_stats(cpus);

	(void)state;
	begin(false, false);
	asictl_render_stats(&o, &c, false);
	fclose(o.fp);
	assert_non_null(strstr(text, "class kvm (id 1)\n"));
	assert_non_null(strstr(text, "  enters                 18446744073709551615\n"));
	assert_non_null(strstr(text, "  ibpbs                                    11\n"));
	assert_non_null(strstr(text, "  stunned-ns                               13\n"));
	assert_non_null(strstr(text, "  stun-timeouts                            14\n"));
	free(text);

	begin(false, false);
	asictl_render_stats(&o, &c, true);
	fclose(o.fp);
	assert_non_null(strstr(text, "                                        total cpu0        cpu1\n"));
	assert_non_null(strstr(text, "  enters                 18446744073709551615    0 12345678901\n"));
	assert_non_null(strstr(text, "  exits-explicit                            2    0 12345678901\n"));
	free(text);
}

static void test_stats_json(void **state)
{
	struct asictl_stats cpus[2] = { { 0 } };
	struct asictl_class c = with_stats(cpus);

	(void)state;
	c.stats.has = 1u << ASI_A_STATS_ENTERS;
	cpus[0].has = cpus[1].has = 1u << ASI_A_STATS_STUNS | 1u << ASI_A_STATS_CPU;
	begin(true, false);
	asictl_render_stats(&o, &c, true);
	end("{\"id\":1,\"name\":\"kvm\",\"stats\":{\"enters\":18446744073709551615},"
	    "\"cpu-stats\":[{\"cpu\":0,\"stuns\":0},{\"cpu\":1,\"stuns\":12345678901}]}\n");
}

static void test_stun(void **state)
{
	(void)state;
	begin(false, false);
	asictl_render_stun(&o, NULL, 0, ASI_STUN_POLICY_ON);
	asictl_render_stun(&o, "kvm", 1, ASI_STUN_POLICY_OFF);
	end("default           on\nkvm               off\n");
	begin(true, false);
	out_obj_open(&o, NULL);
	asictl_render_stun(&o, NULL, 0, ASI_STUN_POLICY_ON);
	out_arr_open(&o, "classes");
	asictl_render_stun(&o, "kvm", 1, ASI_STUN_POLICY_OFF);
	out_arr_close(&o);
	out_obj_close(&o);
	end("{\"stun-default\":\"on\",\"classes\":[{\"id\":1,\"name\":\"kvm\",\"stun\":\"off\"}]}\n");
}

static void test_mark(void **state)
{
	struct asictl_mark m = { .id = 3, .kind = ASI_MARK_KIND_SYMBOL,
				 .addr = 0xffffffff82a0b000ull, .len = 8,
				 .pages = 1, .name = "jiffies" };
	struct asictl_mark r = { .id = 4, .kind = ASI_MARK_KIND_RANGE,
				 .addr = 0xffff888000000000ull, .len = 8192 };

	(void)state;
	m.has = 0x7e;
	r.has = 1u << ASI_A_MARK_ID | 1u << ASI_A_MARK_KIND |
		1u << ASI_A_MARK_ADDR | 1u << ASI_A_MARK_LEN;
	begin(false, false);
	asictl_render_mark_head(&o);
	asictl_render_mark(&o, &m);
	asictl_render_mark(&o, &r);
	end("    ID  KIND    ADDR                         LEN     PAGES  NAME\n"
	    "     3  symbol  0xffffffff82a0b000             8         1  jiffies\n"
	    "     4  range   0xffff888000000000          8192         -  -\n");
	begin(true, false);
	asictl_render_mark(&o, &m);
	end("{\"id\":3,\"kind\":\"symbol\",\"addr\":\"0xffffffff82a0b000\",\"len\":8,"
	    "\"pages\":1,\"name\":\"jiffies\"}\n");
}

static void test_exit(void **state)
{
	struct asictl_exit_ent x = { .addr = 0xffffffff81d37dfcull,
				     .ip = 0xffffffff8156fd90ull, .count = 306,
				     .class_id = 1, .class_name = "kvm",
				     .symbol = "lockdep_hardirqs_off+0x0/0xb0" };
	struct asictl_exit_ent hidden = x;

	(void)state;
	hidden.addr = hidden.ip = 0;
	hidden.class_name = NULL;
	begin(false, false);
	asictl_render_exit_head(&o);
	asictl_render_exit(&o, &x);
	asictl_render_exit(&o, &hidden);
	end("       COUNT  CLASS            ADDR                IP                  SYMBOL\n"
	    "         306  kvm              0xffffffff81d37dfc  0xffffffff8156fd90  lockdep_hardirqs_off+0x0/0xb0\n"
	    "         306  1                -                   -                   lockdep_hardirqs_off+0x0/0xb0\n");
	begin(true, false);
	asictl_render_exit(&o, &hidden);
	end("{\"count\":306,\"class-id\":1,\"class-name\":null,\"addr\":\"0x0\",\"ip\":\"0x0\","
	    "\"symbol\":\"lockdep_hardirqs_off+0x0/0xb0\"}\n");
}

static void test_events(void **state)
{
	struct nlmsghdr *nlh;
	struct asictl_err e;

	(void)state;
	begin(true, false);
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STUN_NTF);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_STUN, ASI_STUN_POLICY_OFF);
	assert_int_equal(asictl_render_event(&o, nlh, &e), 0);
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STUN_NTF);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_ID, 1);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_STUN, ASI_STUN_POLICY_ON);
	assert_int_equal(asictl_render_event(&o, nlh, &e), 0);
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_MARK_ADD_NTF);
	mnl_attr_put_u32(nlh, ASI_A_MARK_ID, 2);
	mnl_attr_put_u32(nlh, ASI_A_MARK_KIND, ASI_MARK_KIND_CACHE);
	mnl_attr_put_strz(nlh, ASI_A_MARK_NAME, "kmalloc-64");
	assert_int_equal(asictl_render_event(&o, nlh, &e), 0);
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_ADD_NTF);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_ID, 2);
	mnl_attr_put_strz(nlh, ASI_A_CLASS_NAME, "test");
	mnl_attr_put_u32(nlh, ASI_A_CLASS_FLAGS, 0);
	assert_int_equal(asictl_render_event(&o, nlh, &e), 0);
	assert_int_equal(asictl_render_event(&o, mock_msg(buf, MOCK_FAMILY, 77), &e), 0);
	end("{\"event\":\"stun\",\"stun\":\"off\"}\n"
	    "{\"event\":\"stun\",\"id\":1,\"stun\":\"on\"}\n"
	    "{\"event\":\"mark-add\",\"id\":2,\"kind\":\"cache\",\"name\":\"kmalloc-64\"}\n"
	    "{\"event\":\"class-add\",\"id\":2,\"name\":\"test\",\"flags\":[]}\n"
	    "{\"event\":\"unknown\",\"cmd\":77}\n");

	begin(false, false);
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_MARK_DEL_NTF);
	mnl_attr_put_u32(nlh, ASI_A_MARK_ID, 2);
	mnl_attr_put_u64(nlh, ASI_A_MARK_ADDR, 0x1000);
	mnl_attr_put_u64(nlh, ASI_A_MARK_LEN, 4096);
	assert_int_equal(asictl_render_event(&o, nlh, &e), 0);
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STUN_NTF);
	mnl_attr_put_u32(nlh, ASI_A_CLASS_STUN, ASI_STUN_POLICY_ON);
	assert_int_equal(asictl_render_event(&o, nlh, &e), 0);
	/* Malformed: the error, nothing printed. */
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STUN_NTF);
	mnl_attr_put_u16(nlh, ASI_A_CLASS_STUN, 1);
	assert_int_equal(asictl_render_event(&o, nlh, &e), -EBADMSG);
	nlh->nlmsg_len = NLMSG_HDRLEN;
	assert_int_equal(asictl_render_event(&o, nlh, &e), -EBADMSG);
	end("mark-del   id 2 addr 0x1000 len 4096\n"
	    "stun       default on\n");
}

/* ---- whole runs ---- */

static char *out, *err;

static int setup(void **state)
{
	(void)state;
	mock_reset();
	out = err = NULL;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(out);
	free(err);
	return 0;
}

static void test_run_status(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STATUS_GET);

	(void)state;
	mock_push_family();
	mnl_attr_put_u8(nlh, ASI_A_STATUS_ENABLED, 1);
	mnl_attr_put_u32(nlh, ASI_A_STATUS_CLASSES, 1);
	mock_push(nlh);
	mock_push(mock_error(buf, 0, NULL, -1));
	assert_int_equal(mock_run("-j status", &out, &err), 0);
	assert_string_equal(out, "{\"enabled\":true,\"classes\":1}\n");
	assert_string_equal(err, "");
}

static void test_run_absent(void **state)
{
	(void)state;
	mock_push(mock_error(buf, -ENOENT, "Generic Netlink family not found", -1));
	assert_int_equal(mock_run("status", &out, &err), ASICTL_EXIT_DISABLED);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "ASI is disabled"));
}

static void test_run_extack(void **state)
{
	(void)state;
	mock_push_family();
	mock_push(mock_error(buf, -ENOENT, "no class with this name",
			     NLMSG_HDRLEN + GENL_HDRLEN));
	assert_int_equal(mock_run("-j class show nosuch", &out, &err), ASICTL_EXIT_KERNEL);
	/* Nothing half-written on stdout, not even "[". */
	assert_string_equal(out, "");
	assert_string_equal(err, "asictl: class-get of class nosuch: no class with this name "
			    "(attribute 'name') (No such file or directory)\n");
}

static void test_run_perm(void **state)
{
	(void)state;
	mock_push_family();
	mock_push(mock_error(buf, -EPERM, NULL, -1));
	assert_int_equal(mock_run("stun off", &out, &err), ASICTL_EXIT_PERM);
	assert_non_null(strstr(err, "asictl: stun-set: Operation not permitted\n"));
	assert_non_null(strstr(err, "permission denied"));
}

static void test_run_perm_extack(void **state)
{
	(void)state;
	mock_push_family();
	mock_push(mock_error(buf, -EPERM, "asi: CAP_SYS_ADMIN is required", -1));
	assert_int_equal(mock_run("stats --reset", &out, &err), ASICTL_EXIT_PERM);
	assert_non_null(strstr(err, "asictl: stats-reset: asi: CAP_SYS_ADMIN is required "
			       "(Operation not permitted)\n"));
}

/* A request done with a remark: the kernel's extack on the ack. */
static void test_run_warning(void **state)
{
	(void)state;
	mock_push_family();
	mock_push(mock_error(buf, 0, "stats of class kvm were reset meanwhile", -1));
	assert_int_equal(mock_run("stats --reset", &out, &err), ASICTL_EXIT_OK);
	assert_string_equal(err, "Warning: stats of class kvm were reset meanwhile\n");
}

/* The end of a dump may carry a remark as well. */
static void test_run_dump_warning(void **state)
{
	(void)state;
	mock_push_family();
	mock_push(mock_done(buf, 0, "a mark went away meanwhile"));
	assert_int_equal(mock_run("-j mark list", &out, &err), ASICTL_EXIT_OK);
	assert_string_equal(out, "[]\n");
	assert_string_equal(err, "Warning: a mark went away meanwhile\n");
}

/* An ack without extack says nothing. */
static void test_run_no_warning(void **state)
{
	(void)state;
	mock_push_family();
	mock_push(mock_error(buf, 0, NULL, -1));
	assert_int_equal(mock_run("stats --reset", &out, &err), ASICTL_EXIT_OK);
	assert_string_equal(err, "");
}

/* OBJECT help: that object's usage only, without asking the kernel. */
static void test_run_object_help(void **state)
{
	(void)state;
	assert_int_equal(mock_run("mark help", &out, &err), ASICTL_EXIT_OK);
	assert_string_equal(out, "Usage: asictl mark add ADDR LEN | SYMBOL | --cache NAME\n"
			    "       asictl mark del ID\n"
			    "       asictl mark list\n"
			    "See asictl(8).\n");
	assert_string_equal(err, "");
	free(out);
	free(err);
	assert_int_equal(mock_run("stats help", &out, &err), ASICTL_EXIT_OK);
	assert_string_equal(out, "Usage: asictl stats [CLASS] [--per-cpu] [--reset]\n"
			    "See asictl(8).\n");
	assert_string_equal(err, "");
	assert_int_equal(mock_nsent, 0);
}

/* Every object answers help on stdout, exit 0, and asks the kernel nothing. */
static void test_run_every_object_help(void **state)
{
	static const char *const objects[] = {
		"status", "class", "stats", "stun", "mark", "exits", "monitor",
	};
	char cmdline[32], usage[32];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		snprintf(cmdline, sizeof(cmdline), "%s help", objects[i]);
		snprintf(usage, sizeof(usage), "Usage: asictl %s", objects[i]);
		assert_int_equal(mock_run(cmdline, &out, &err), ASICTL_EXIT_OK);
		if (strncmp(out, usage, strlen(usage)))
			fail_msg("'asictl %s' printed '%s'", cmdline, out);
		assert_string_equal(err, "");
		free(out);
		free(err);
		out = err = NULL;
	}
	assert_int_equal(mock_nsent, 0);
}

static void test_run_unsupported_op(void **state)
{
	static unsigned char fam[MOCK_BUF];
	struct nlmsghdr *nlh = mock_family(fam, false);
	struct nlattr *ops, *op;

	(void)state;
	/* A kernel whose family lists status-get only. */
	ops = mnl_attr_nest_start(nlh, CTRL_ATTR_OPS);
	op = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_u32(nlh, CTRL_ATTR_OP_ID, ASI_CMD_STATUS_GET);
	mnl_attr_nest_end(nlh, op);
	mnl_attr_nest_end(nlh, ops);
	mock_push(nlh);
	mock_push(mock_error(buf, 0, NULL, -1));
	assert_int_equal(mock_run("exits", &out, &err), ASICTL_EXIT_KERNEL);
	assert_non_null(strstr(err, "has no exits-get operation"));
	assert_int_equal(mock_nsent, 1);
}

static void test_run_malformed(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_CLASS_GET);

	(void)state;
	mock_push_family();
	mnl_attr_put_u16(nlh, ASI_A_CLASS_ID, 1);
	mock_push(nlh);
	assert_int_equal(mock_run("class show", &out, &err), ASICTL_EXIT_SYSTEM);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "asictl: class-get: malformed reply: attribute class.id has a bad size (2 bytes)"));
}

static void test_run_system(void **state)
{
	(void)state;
	mock_open_err = -EPROTONOSUPPORT;
	assert_int_equal(mock_run("status", &out, &err), ASICTL_EXIT_SYSTEM);
	assert_non_null(strstr(err, "cannot open a generic netlink socket"));
	free(out);
	free(err);
	mock_reset();
	mock_push_family();
	mock_push_errno(-ENOBUFS);
	assert_int_equal(mock_run("status", &out, &err), ASICTL_EXIT_SYSTEM);
	assert_non_null(strstr(err, "cannot receive from the kernel: No buffer space available"));
}

static void test_run_recv_eintr(void **state)
{
	struct nlmsghdr *nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_STATUS_GET);

	(void)state;
	mock_push_family();
	mock_push_errno(-EINTR);	/* retried */
	mnl_attr_put_u32(nlh, ASI_A_STATUS_MARKS, 4);
	mock_push(nlh);
	mock_push(mock_error(buf, 0, NULL, -1));
	assert_int_equal(mock_run("status", &out, &err), 0);
	assert_string_equal(out, "marks                 4\n");
}

static void test_run_dump(void **state)
{
	struct nlmsghdr *nlh;
	unsigned char two[MOCK_BUF];
	size_t n;

	(void)state;
	mock_push_family();
	/* Two replies in one receive, then the end of the dump. */
	nlh = mock_msg(buf, MOCK_FAMILY, ASI_CMD_EXITS_GET);
	mnl_attr_put_u64(nlh, ASI_A_EXIT_COUNT, 5);
	mnl_attr_put_strz(nlh, ASI_A_EXIT_SYMBOL, "a+0x1/0x2");
	memcpy(two, nlh, nlh->nlmsg_len);
	n = NLMSG_ALIGN(nlh->nlmsg_len);
	memcpy(two + n, nlh, nlh->nlmsg_len);
	n += NLMSG_ALIGN(nlh->nlmsg_len);
	mock_push_raw(two, n);
	mock_push(mock_done(buf, 0, NULL));
	assert_int_equal(mock_run("--json exits --top 2", &out, &err), 0);
	assert_string_equal(out,
		"[{\"count\":5,\"class-id\":0,\"class-name\":null,\"addr\":\"0x0\",\"ip\":\"0x0\",\"symbol\":\"a+0x1/0x2\"},"
		"{\"count\":5,\"class-id\":0,\"class-name\":null,\"addr\":\"0x0\",\"ip\":\"0x0\",\"symbol\":\"a+0x1/0x2\"}]\n");
}

static void test_run_empty_dump(void **state)
{
	(void)state;
	mock_push_family();
	mock_push(mock_done(buf, 0, NULL));
	assert_int_equal(mock_run("-j mark list", &out, &err), 0);
	assert_string_equal(out, "[]\n");
	free(out);
	free(err);
	mock_reset();
	mock_push_family();
	mock_push(mock_done(buf, 0, NULL));
	assert_int_equal(mock_run("mark list", &out, &err), 0);
	assert_string_equal(out, "");	/* no header without marks */
}

static void test_run_help_version(void **state)
{
	(void)state;
	assert_int_equal(mock_run("-V", &out, &err), 0);
	assert_string_equal(out, "asictl " ASICTL_VERSION " (asi netlink family version 1)\n");
	free(out);
	free(err);
	assert_int_equal(mock_run("help", &out, &err), 0);
	assert_non_null(strstr(out, "Usage: asictl"));
	assert_int_equal(mock_nsent, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_status_pretty),
		cmocka_unit_test(test_class_text),
		cmocka_unit_test(test_class_json),
		cmocka_unit_test(test_empty_array),
		cmocka_unit_test(test_stats_text),
		cmocka_unit_test(test_stats_json),
		cmocka_unit_test(test_stun),
		cmocka_unit_test(test_mark),
		cmocka_unit_test(test_exit),
		cmocka_unit_test(test_events),
		cmocka_unit_test_setup_teardown(test_run_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_extack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_perm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_perm_extack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_warning, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_dump_warning, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_no_warning, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_object_help, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_every_object_help, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_unsupported_op, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_system, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_recv_eintr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_empty_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_help_version, setup, teardown),
	};

	return cmocka_run_group_tests_name("asictl_render", tests, NULL, NULL);
}
