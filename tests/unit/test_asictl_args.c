// SPDX-License-Identifier: GPL-2.0
/*
 * asictl's command line: every subcommand with good and bad inputs,
 * table-driven in the way of ethtool's test-cmdline.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "asictl.h"

struct good {
	const char *cmdline;
	struct asictl_args want;
};

#define CLASS_NAME(n)	{ .name = n }
#define CLASS_ID(n, i)	{ .name = n, .by_id = true, .id = i }

static const struct good goods[] = {
	{ "status", { .op = ASICTL_OP_STATUS } },
	{ "-j status", { .op = ASICTL_OP_STATUS, .json = true } },
	{ "status --json", { .op = ASICTL_OP_STATUS, .json = true } },
	{ "-p status", { .op = ASICTL_OP_STATUS, .json = true, .pretty = true } },
	{ "-jp status", { .op = ASICTL_OP_STATUS, .json = true, .pretty = true } },
	{ "--json --pretty status", { .op = ASICTL_OP_STATUS, .json = true, .pretty = true } },
	{ "help", { .op = ASICTL_OP_HELP } },
	{ "-h", { .op = ASICTL_OP_HELP } },
	{ "--help", { .op = ASICTL_OP_HELP } },
	{ "stats --help", { .op = ASICTL_OP_HELP } },
	{ "status help", { .op = ASICTL_OP_HELP, .topic = "status" } },
	{ "class help", { .op = ASICTL_OP_HELP, .topic = "class" } },
	{ "stats help", { .op = ASICTL_OP_HELP, .topic = "stats" } },
	{ "stun help", { .op = ASICTL_OP_HELP, .topic = "stun" } },
	{ "mark help", { .op = ASICTL_OP_HELP, .topic = "mark" } },
	{ "exits help", { .op = ASICTL_OP_HELP, .topic = "exits" } },
	{ "monitor help", { .op = ASICTL_OP_HELP, .topic = "monitor" } },
	{ "-j mark help", { .op = ASICTL_OP_HELP, .json = true, .topic = "mark" } },
	{ "-V", { .op = ASICTL_OP_VERSION } },
	{ "--version", { .op = ASICTL_OP_VERSION } },
	{ "version", { .op = ASICTL_OP_VERSION } },
	{ "class", { .op = ASICTL_OP_CLASS_SHOW } },
	{ "class show", { .op = ASICTL_OP_CLASS_SHOW } },
	{ "class list", { .op = ASICTL_OP_CLASS_SHOW } },
	{ "class show kvm", { .op = ASICTL_OP_CLASS_SHOW, .class = CLASS_NAME("kvm") } },
	{ "class show 3", { .op = ASICTL_OP_CLASS_SHOW, .class = CLASS_ID("3", 3) } },
	{ "class show 0x10", { .op = ASICTL_OP_CLASS_SHOW, .class = CLASS_ID("0x10", 16) } },
	{ "-- class show kvm", { .op = ASICTL_OP_CLASS_SHOW, .class = CLASS_NAME("kvm") } },
	{ "stats", { .op = ASICTL_OP_STATS } },
	{ "stats kvm", { .op = ASICTL_OP_STATS, .class = CLASS_NAME("kvm") } },
	{ "stats kvm --per-cpu", { .op = ASICTL_OP_STATS, .per_cpu = true, .class = CLASS_NAME("kvm") } },
	{ "stats --per-cpu 1", { .op = ASICTL_OP_STATS, .per_cpu = true, .class = CLASS_ID("1", 1) } },
	{ "stats --reset", { .op = ASICTL_OP_STATS_RESET } },
	{ "stats kvm --reset -j", { .op = ASICTL_OP_STATS_RESET, .json = true, .class = CLASS_NAME("kvm") } },
	{ "stun", { .op = ASICTL_OP_STUN_SHOW } },
	{ "stun show", { .op = ASICTL_OP_STUN_SHOW } },
	{ "stun show --class kvm", { .op = ASICTL_OP_STUN_SHOW, .class = CLASS_NAME("kvm") } },
	{ "stun --class=kvm", { .op = ASICTL_OP_STUN_SHOW, .class = CLASS_NAME("kvm") } },
	{ "stun on", { .op = ASICTL_OP_STUN_SET, .stun = ASI_STUN_POLICY_ON } },
	{ "stun off", { .op = ASICTL_OP_STUN_SET, .stun = ASI_STUN_POLICY_OFF } },
	{ "stun off --class 2", { .op = ASICTL_OP_STUN_SET, .stun = ASI_STUN_POLICY_OFF, .class = CLASS_ID("2", 2) } },
	{ "stun on --class -j", { .op = ASICTL_OP_STUN_SET, .stun = ASI_STUN_POLICY_ON, .class = CLASS_NAME("-j") } },
	{ "mark", { .op = ASICTL_OP_MARK_LIST } },
	{ "mark list", { .op = ASICTL_OP_MARK_LIST } },
	{ "mark add 0xffffffff81000000 4096", { .op = ASICTL_OP_MARK_ADD, .mark_kind = ASI_MARK_KIND_RANGE, .addr = 0xffffffff81000000ull, .len = 4096 } },
	{ "mark add 18446744073709551615 1", { .op = ASICTL_OP_MARK_ADD, .mark_kind = ASI_MARK_KIND_RANGE, .addr = UINT64_MAX, .len = 1 } },
	{ "mark add jiffies", { .op = ASICTL_OP_MARK_ADD, .mark_kind = ASI_MARK_KIND_SYMBOL, .name = "jiffies" } },
	{ "mark add --cache kmalloc-64", { .op = ASICTL_OP_MARK_ADD, .mark_kind = ASI_MARK_KIND_CACHE, .name = "kmalloc-64" } },
	{ "mark add --cache=task_struct", { .op = ASICTL_OP_MARK_ADD, .mark_kind = ASI_MARK_KIND_CACHE, .name = "task_struct" } },
	{ "mark del 3", { .op = ASICTL_OP_MARK_DEL, .mark_id = 3 } },
	{ "mark del 4294967295", { .op = ASICTL_OP_MARK_DEL, .mark_id = UINT32_MAX } },
	{ "exits", { .op = ASICTL_OP_EXITS } },
	{ "exits --top 10", { .op = ASICTL_OP_EXITS, .top = 10 } },
	{ "exits --top=0x10 --class kvm", { .op = ASICTL_OP_EXITS, .top = 16, .class = CLASS_NAME("kvm") } },
	{ "exits --class 1 --top 1024", { .op = ASICTL_OP_EXITS, .top = 1024, .class = CLASS_ID("1", 1) } },
	{ "monitor", { .op = ASICTL_OP_MONITOR } },
	{ "-j monitor", { .op = ASICTL_OP_MONITOR, .json = true } },
	{ "audit", { .op = ASICTL_OP_AUDIT, .space = "global" } },
	{ "audit global --summary", { .op = ASICTL_OP_AUDIT, .space = "global", .summary = true } },
	{ "-j audit kvm 123", { .op = ASICTL_OP_AUDIT, .json = true, .space = "kvm 123 0" } },
	{ "audit --summary kvm 0x10 2", { .op = ASICTL_OP_AUDIT, .space = "kvm 16 2", .summary = true } },
	{ "audit help", { .op = ASICTL_OP_HELP, .topic = "audit" } },
};

struct bad {
	const char *cmdline;
	const char *msg;	/* part of the message on stderr */
};

static const struct bad bads[] = {
	{ "", "missing object" },
	{ "frob", "unknown object 'frob'" },
	{ "-x status", "unknown option '-x'" },
	{ "--frob", "unknown option '--frob'" },
	{ "status now", "status: unexpected argument 'now'" },
	{ "status --per-cpu", "status: unknown option '--per-cpu'" },
	{ "help me", "help: unexpected argument 'me'" },
	{ "class frob", "class: unknown command 'frob'" },
	{ "class show a b", "class show: unexpected argument 'b'" },
	{ "class show --x", "unknown option '--x'" },
	{ "stats a b", "stats: unexpected argument 'b'" },
	{ "stats --per-cpu --reset", "do not go together" },
	{ "stats --bogus", "stats: unknown option '--bogus'" },
	{ "stun maybe", "stun: unknown command 'maybe'" },
	{ "stun on extra", "stun on: unexpected argument 'extra'" },
	{ "stun off --class", "stun off: --class needs an argument" },
	{ "stun show --class=", "stun show: empty class" },
	{ "stun show --top 3", "stun show: unknown option '--top'" },
	{ "mark frob", "mark: unknown command 'frob'" },
	{ "mark add", "mark add: missing ADDR LEN, SYMBOL or --cache NAME" },
	{ "mark add 0x1000", "mark add: missing LEN after ADDR" },
	{ "mark add 0x1000 0", "LEN must not be 0" },
	{ "mark add 0xzz 1", "mark add: ADDR '0xzz' is not a number" },
	{ "mark add 1 18446744073709551616", "mark add: LEN '18446744073709551616' is out of range" },
	{ "mark add 1 4k", "LEN '4k' is not a number" },
	{ "mark add -5 3", "unknown option '-5'" },
	{ "mark add --cache", "mark add: --cache needs an argument" },
	{ "mark add --cache=", "mark add: empty cache name" },
	{ "mark add jiffies extra", "mark add: unexpected argument 'extra'" },
	{ "mark del", "mark del: missing ID" },
	{ "mark del abc", "mark del: ID 'abc' is not a number" },
	{ "mark del 4294967296", "mark del: ID '4294967296' is out of range (max 4294967295)" },
	{ "mark del -1", "mark del: ID '-1' is not a number" },
	{ "mark del 1 2", "mark del: unexpected argument '2'" },
	{ "mark list x", "mark list: unexpected argument 'x'" },
	{ "exits --top", "exits: --top needs an argument" },
	{ "exits --top 0", "--top must be at least 1" },
	{ "exits --top abc", "--top 'abc' is not a number" },
	{ "exits --top -1", "--top '-1' is not a number" },
	{ "exits --top 4294967296", "is out of range" },
	{ "exits --class", "exits: --class needs an argument" },
	{ "exits kvm", "exits: unexpected argument 'kvm'" },
	{ "monitor now", "monitor: unexpected argument 'now'" },
	{ "mark help now", "mark: unexpected argument 'now'" },
	{ "exits help --top 3", "exits: unknown option '--top'" },
	{ "audit kvm", "audit: missing PID after class 'kvm'" },
	{ "audit kvm abc", "audit: PID 'abc' is not a number" },
	{ "audit kvm 0", "audit: PID must be 1 to 2147483647" },
	{ "audit kvm 2147483648", "audit: PID must be 1 to 2147483647" },
	{ "audit kvm 1 2147483648", "audit: N must be at most 2147483647" },
	{ "audit kvm 1 -1", "audit: unknown option '-1'" },
	{ "audit kvm 1 x", "audit: N 'x' is not a number" },
	{ "audit kvm 1 2 3", "audit: unexpected argument '3'" },
	{ "audit --all", "audit: unknown option '--all'" },
	{ "audit aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1", "audit: bad class name" },
};

static int split(char *s, char **argv, int max)
{
	int argc = 0;
	char *tok, *save = NULL;

	argv[argc++] = "asictl";
	for (tok = strtok_r(s, " ", &save); tok && argc < max - 1;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return argc;
}

/* The args point into the command line: it lives until the next call. */
static int parse(const char *cmdline, struct asictl_args *a, char **err)
{
	static char *copy;
	char *argv[32];
	size_t len;
	FILE *fe = open_memstream(err, &len);
	int rc;

	free(copy);
	copy = strdup(cmdline);
	rc = asictl_parse_args(split(copy, argv, 32), argv, a, fe);
	fclose(fe);
	return rc;
}

static void same_str(const char *what, const char *got, const char *want)
{
	if (!got || !want) {
		if (got != want)
			fail_msg("%s: got %s, want %s", what, got ? got : "NULL",
				 want ? want : "NULL");
		return;
	}
	assert_string_equal(got, want);
}

static void test_good(void **state)
{
	const struct good *g = *state;
	struct asictl_args a;
	char *err;
	int rc = parse(g->cmdline, &a, &err);

	if (rc)
		fail_msg("'%s' failed (%d): %s", g->cmdline, rc, err);
	assert_string_equal(err, "");
	assert_int_equal(a.op, g->want.op);
	assert_int_equal(a.json, g->want.json);
	assert_int_equal(a.pretty, g->want.pretty);
	assert_int_equal(a.per_cpu, g->want.per_cpu);
	same_str("class", a.class.name, g->want.class.name);
	assert_int_equal(a.class.by_id, g->want.class.by_id);
	assert_int_equal(a.class.id, g->want.class.id);
	assert_int_equal(a.stun, g->want.stun);
	assert_int_equal(a.mark_kind, g->want.mark_kind);
	assert_true(a.addr == g->want.addr);
	assert_true(a.len == g->want.len);
	same_str("name", a.name, g->want.name);
	assert_int_equal(a.mark_id, g->want.mark_id);
	assert_string_equal(a.space, g->want.space);
	assert_int_equal(a.summary, g->want.summary);
	assert_int_equal(a.top, g->want.top);
	same_str("topic", a.topic, g->want.topic);
	free(err);
}

static void test_bad(void **state)
{
	const struct bad *b = *state;
	struct asictl_args a;
	char *err;
	int rc = parse(b->cmdline, &a, &err);

	if (rc != ASICTL_EXIT_USAGE)
		fail_msg("'%s': exit %d, want %d", b->cmdline, rc, ASICTL_EXIT_USAGE);
	if (!strstr(err, b->msg))
		fail_msg("'%s': message '%s' lacks '%s'", b->cmdline, err, b->msg);
	assert_non_null(strstr(err, "Try 'asictl help'."));
	free(err);
}

static void test_numbers(void **state)
{
	uint64_t v;
	uint32_t u;

	(void)state;
	assert_int_equal(asictl_parse_u64("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(asictl_parse_u64("0x10", &v), 0);
	assert_true(v == 16);
	assert_int_equal(asictl_parse_u64("010", &v), 0);	/* octal, as strtoull */
	assert_true(v == 8);
	assert_int_equal(asictl_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(asictl_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(asictl_parse_u64("", &v), -EINVAL);
	assert_int_equal(asictl_parse_u64(NULL, &v), -EINVAL);
	assert_int_equal(asictl_parse_u64("+1", &v), -EINVAL);
	assert_int_equal(asictl_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(asictl_parse_u64(" 1", &v), -EINVAL);
	assert_int_equal(asictl_parse_u64("1 ", &v), -EINVAL);
	assert_int_equal(asictl_parse_u64("0x", &v), -EINVAL);
	assert_int_equal(asictl_parse_u32("4294967295", &u), 0);
	assert_true(u == UINT32_MAX);
	assert_int_equal(asictl_parse_u32("4294967296", &u), -ERANGE);
}

static void test_too_many(void **state)
{
	char *argv[80];
	struct asictl_args a;
	int i;

	(void)state;
	argv[0] = "asictl";
	for (i = 1; i < 79; i++)
		argv[i] = "x";
	argv[79] = NULL;
	assert_int_equal(asictl_parse_args(79, argv, &a, NULL), ASICTL_EXIT_USAGE);
}

static void test_usage_text(void **state)
{
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	asictl_usage(f);
	fclose(f);
	/* Every subcommand of asictl(8) is in the help. */
	assert_non_null(strstr(text, "asictl status"));
	assert_non_null(strstr(text, "asictl class show [CLASS]"));
	assert_non_null(strstr(text, "asictl stats [CLASS] [--per-cpu] [--reset]"));
	assert_non_null(strstr(text, "asictl stun on|off [--class CLASS]"));
	assert_non_null(strstr(text, "asictl mark add ADDR LEN | SYMBOL | --cache NAME"));
	assert_non_null(strstr(text, "asictl exits [--top N] [--class CLASS]"));
	assert_non_null(strstr(text, "asictl monitor"));
	assert_non_null(strstr(text, "asictl OBJECT help"));
	assert_non_null(strstr(text, "Exit codes"));
	free(text);
}

/*
 * "asictl OBJECT help": the usage lines of that object and of no other,
 * as many as asictl(8) has for it.
 */
static void test_usage_topics(void **state)
{
	static const struct {
		const char *object;
		int lines;
	} topics[] = {
		{ "status", 1 }, { "class", 1 }, { "stats", 1 }, { "stun", 2 },
		{ "mark", 3 }, { "exits", 1 }, { "monitor", 1 },
	};
	char *text, *line, *save = NULL, want[32];
	unsigned int i;
	size_t len;
	FILE *f;
	int n;

	(void)state;
	for (i = 0; i < sizeof(topics) / sizeof(topics[0]); i++) {
		f = open_memstream(&text, &len);
		asictl_usage_topic(f, topics[i].object);
		fclose(f);
		snprintf(want, sizeof(want), "asictl %s", topics[i].object);
		n = 0;
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (!strcmp(line, "See asictl(8)."))
				break;
			if (strncmp(line, n ? "       " : "Usage: ", 7))
				fail_msg("%s help: '%s'", topics[i].object, line);
			if (strncmp(line + 7, want, strlen(want)) ||
			    (line[7 + strlen(want)] && line[7 + strlen(want)] != ' '))
				fail_msg("%s help: '%s'", topics[i].object, line);
			n++;
		}
		if (!line || strtok_r(NULL, "\n", &save))
			fail_msg("%s help does not end with its reference", topics[i].object);
		assert_int_equal(n, topics[i].lines);
		free(text);
	}
}

int main(void)
{
	size_t ng = sizeof(goods) / sizeof(goods[0]);
	size_t nb = sizeof(bads) / sizeof(bads[0]);
	struct CMUnitTest *t = calloc(ng + nb + 4, sizeof(*t));
	char *names = calloc(ng + nb, 80);
	size_t i, n = 0;

	for (i = 0; i < ng; i++, n++) {
		snprintf(names + n * 80, 80, "good: %s", goods[i].cmdline);
		t[n] = (struct CMUnitTest){ names + n * 80, test_good, NULL, NULL,
					    (void *)&goods[i] };
	}
	for (i = 0; i < nb; i++, n++) {
		snprintf(names + n * 80, 80, "bad: %s", bads[i].cmdline);
		t[n] = (struct CMUnitTest){ names + n * 80, test_bad, NULL, NULL,
					    (void *)&bads[i] };
	}
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_numbers);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_too_many);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_usage_text);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_usage_topics);
	return _cmocka_run_group_tests("asictl_args", t, n, NULL, NULL);
}
