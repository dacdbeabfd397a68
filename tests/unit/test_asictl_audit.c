// SPDX-License-Identifier: GPL-2.0
/*
 * asictl audit: the kernel's audit text parsed into ranges and totals,
 * malformed text refused with the line at fault, and the text and JSON
 * renderings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_asictl_mock.h"

static const char good[] =
	"ffffffff81000000-ffffffff81200000    2097152 text    kernel\n"
	"ffff888004000000-ffff888004001000       4096 slab    task_struct\n"
	"ffff888100000000-ffff888100002000       8192 local   slab kvm_vcpu\n"
	"total text 2097152 code\n"
	"total slab 4096 global non-sensitive slab caches\n"
	"total local 8192 this space's own domain: its process or VM\n"
	"total all 2109440\n";

static void test_parse_good(void **state)
{
	struct asictl_audit au;
	struct asictl_err e = { 0 };

	(void)state;
	assert_int_equal(asictl_parse_audit(good, &au, &e), 0);
	assert_int_equal(au.nranges, 3);
	assert_true(au.ranges[0].start == 0xffffffff81000000ull);
	assert_true(au.ranges[0].end == 0xffffffff81200000ull);
	assert_true(au.ranges[0].bytes == 2097152);
	assert_string_equal(au.ranges[0].kind, "text");
	assert_string_equal(au.ranges[0].owner, "kernel");
	assert_string_equal(au.ranges[2].kind, "local");
	assert_string_equal(au.ranges[2].owner, "slab kvm_vcpu");
	assert_int_equal(au.ntotals, 3);
	assert_string_equal(au.totals[1].reason, "global non-sensitive slab caches");
	assert_true(asictl_audit_bytes(&au, "local") == 8192);
	assert_true(asictl_audit_bytes(&au, "foreign") == 0);
	assert_true(au.all == 2109440);
	asictl_audit_free(&au);
	assert_int_equal(au.nranges, 0);
}

/* Many ranges: the arrays grow past their first sizes. */
static void test_parse_many(void **state)
{
	struct asictl_audit au;
	struct asictl_err e = { 0 };
	size_t i, n = 1000;
	char *text = malloc(n * 80 + 64), *p = text;

	(void)state;
	for (i = 0; i < n; i++)
		p += sprintf(p, "%016zx-%016zx 4096 page page\n", i << 12,
			     (i + 1) << 12);
	sprintf(p, "total page %zu global non-sensitive pages\ntotal all %zu\n",
		n << 12, n << 12);
	assert_int_equal(asictl_parse_audit(text, &au, &e), 0);
	assert_int_equal(au.nranges, n);
	assert_true(au.ranges[n - 1].start == (n - 1) << 12);
	asictl_audit_free(&au);
	free(text);
}

static void bad(const char *text, const char *msg)
{
	struct asictl_audit au;
	struct asictl_err e = { 0 };

	if (asictl_parse_audit(text, &au, &e) != -EINVAL)
		fail_msg("accepted: %s", text);
	assert_int_equal(e.err, -EINVAL);
	if (!strstr(e.msg, msg))
		fail_msg("'%s': message '%s', want '%s'", text, e.msg, msg);
	assert_null(au.ranges);
	assert_null(au.totals);
}

static void test_parse_bad(void **state)
{
	(void)state;
	bad("", "ends without its total");
	bad("total text 4096 code\n", "ends without its total");
	bad("0000000000001000-0000000000002000 4096 page page\n",
	    "ends without its total");
	bad("0000000000001000-0000000000002000 8192 page page\ntotal all 4096\n",
	    "unexpected audit line 1");
	bad("0000000000002000-0000000000001000 4096 page page\ntotal all 4096\n",
	    "unexpected audit line 1");
	bad("0000000000001000-0000000000002000 4096 page\ntotal all 4096\n",
	    "unexpected audit line 1");
	bad("00000000000010000000000000002000 4096 page page\ntotal all 4096\n",
	    "unexpected audit line 1");
	bad("total all 4096\n0000000000001000-0000000000002000 4096 page page\n",
	    "unexpected audit line 2");
	bad("total all 4096 more\n", "unexpected audit line 1");
	bad("total page x global\ntotal all 0\n", "unexpected audit line 1");
	bad("total all -1\n", "unexpected audit line 1");
	bad("0000000000001000-0000000000002000 4096 page \ntotal all 4096\n",
	    "unexpected audit line 1");
}

static char *run_render(bool json, bool summary)
{
	struct asictl_audit au;
	struct asictl_err e = { 0 };
	struct asictl_out o;
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	assert_int_equal(asictl_parse_audit(good, &au, &e), 0);
	out_init(&o, f, json, false);
	asictl_render_audit(&o, "kvm 42 0", &au, summary);
	fclose(f);
	asictl_audit_free(&au);
	return text;
}

static void test_render_text(void **state)
{
	char *text = run_render(false, true);

	(void)state;
	assert_string_equal(text,
		"space kvm 42 0\n"
		"KIND            BYTES  WHY IT IS MAPPED\n"
		"text          2097152  code\n"
		"slab             4096  global non-sensitive slab caches\n"
		"local            8192  this space's own domain: its process or VM\n"
		"all           2109440\n");
	free(text);
	text = run_render(false, false);
	assert_non_null(strstr(text,
		"0xffff888100000000  0xffff888100002000          8192  local    slab kvm_vcpu\n"));
	free(text);
}

static void test_render_json(void **state)
{
	char *text = run_render(true, true);

	(void)state;
	assert_string_equal(text,
		"{\"space\":\"kvm 42 0\",\"totals\":["
		"{\"kind\":\"text\",\"bytes\":2097152,\"reason\":\"code\"},"
		"{\"kind\":\"slab\",\"bytes\":4096,\"reason\":\"global non-sensitive slab caches\"},"
		"{\"kind\":\"local\",\"bytes\":8192,\"reason\":\"this space's own domain: its process or VM\"}],"
		"\"bytes\":2109440}\n");
	free(text);
	text = run_render(true, false);
	assert_non_null(strstr(text,
		"\"ranges\":[{\"start\":\"0xffffffff81000000\",\"end\":\"0xffffffff81200000\","
		"\"bytes\":2097152,\"kind\":\"text\",\"owner\":\"kernel\"},"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_many),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_render_text),
		cmocka_unit_test(test_render_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
