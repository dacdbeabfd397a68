// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the pure logic of tests/kvm/kvm-exits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <linux/kvm.h>

#include "exitloop.h"

static FILE *devnull;

static int parse(struct exit_opts *o, const char *const *args)
{
	char *argv[16];
	int argc = 0;

	argv[argc++] = "kvm-exits";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	return exit_opts_parse(o, argc, argv, devnull, devnull);
}

static void test_parse_defaults(void **state)
{
	const char *args[] = { NULL };
	struct exit_opts o;

	(void)state;
	assert_int_equal(parse(&o, args), 0);
	assert_int_equal(o.loop, LOOP_IO);
	assert_int_equal(o.iterations, 1000);
	assert_int_equal(o.port, 0x80);
	assert_int_equal(o.timeout, 0);
}

static void test_parse_timeout(void **state)
{
	const char *args[] = { "-t", "120", NULL };
	const char *max[] = { "-t", "86400", NULL };
	struct exit_opts o;

	(void)state;
	assert_int_equal(parse(&o, args), 0);
	assert_int_equal(o.timeout, 120);
	assert_int_equal(parse(&o, max), 0);
	assert_int_equal(o.timeout, 86400);
}

static void test_parse_all_options(void **state)
{
	const char *args[] = { "-l", "hlt", "-n", "4294967295", "-p", "0x3f8", NULL };
	struct exit_opts o;

	(void)state;
	assert_int_equal(parse(&o, args), 0);
	assert_int_equal(o.loop, LOOP_HLT);
	assert_int_equal(o.iterations, 4294967295u);
	assert_int_equal(o.port, 0x3f8);
}

static void test_parse_zero_iterations(void **state)
{
	const char *args[] = { "-n", "0", NULL };
	struct exit_opts o;

	(void)state;
	assert_int_equal(parse(&o, args), 0);
	assert_int_equal(o.iterations, 0);
}

static void test_parse_help(void **state)
{
	const char *args[] = { "-h", NULL };
	struct exit_opts o;

	(void)state;
	assert_int_equal(parse(&o, args), 1);
}

/* Each of these must be refused. */
static const char *const bad_args[][4] = {
	{ "-n", "4294967296", NULL },	/* above 32 bits */
	{ "-n", "-1", NULL },
	{ "-n", "+5", NULL },
	{ "-n", "12abc", NULL },
	{ "-n", "", NULL },
	{ "-p", "65536", NULL },
	{ "-l", "mmio2", NULL },
	{ "-r", "0", NULL },
	{ "-v", "0", NULL },
	{ "-v", "17", NULL },
	{ "-r", "1000001", NULL },
	{ "-t", "86401", NULL },
	{ "-t", "-1", NULL },
	{ "-t", "1s", NULL },
	{ "-i", "999", NULL },		/* below 1 us */
	{ "-i", "1000000001", NULL },
	{ "-x", NULL },
	{ "-n", NULL },			/* missing argument */
	{ "extra", NULL },
};

static void test_parse_bad(void **state)
{
	struct exit_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_args) / sizeof(bad_args[0]); i++) {
		if (parse(&o, (const char *const *)bad_args[i]) != -1)
			fail_msg("accepted bad arguments #%zu (%s %s)", i,
				 bad_args[i][0], bad_args[i][1] ? bad_args[i][1] : "");
	}
}

static void test_guest_code_io(void **state)
{
	struct exit_opts o = { .loop = LOOP_IO, .iterations = 0x12345678, .port = 0xabcd, .vms = 1 };
	uint8_t buf[64];
	int len;

	(void)state;
	len = guest_code(&o, buf, sizeof(buf));
	assert_int_equal(len, 20);
	/* mov ecx, imm32 with the iteration count, little endian */
	assert_int_equal(buf[0], 0x66);
	assert_int_equal(buf[1], 0xb9);
	assert_memory_equal(&buf[2], "\x78\x56\x34\x12", 4);
	/* mov dx, imm16 with the port */
	assert_int_equal(buf[6], 0xba);
	assert_memory_equal(&buf[7], "\xcd\xab", 2);
	/* out dx, al inside the loop, hlt at the end */
	assert_int_equal(buf[14], 0xee);
	assert_int_equal(buf[len - 1], 0xf4);
	/* jz skips to the hlt, jmp goes back to the test */
	assert_int_equal(14 + (int8_t)buf[13], len - 1);
	assert_int_equal(19 + (int8_t)buf[18], 9);
}

static void test_guest_code_hlt(void **state)
{
	struct exit_opts o = { .loop = LOOP_HLT, .vms = 1 };
	uint8_t buf[4];

	(void)state;
	assert_int_equal(guest_code(&o, buf, sizeof(buf)), 1);
	assert_int_equal(buf[0], 0xf4);
}

static void test_guest_code_too_small(void **state)
{
	struct exit_opts o = { .loop = LOOP_IO, .iterations = 1, .vms = 1 };
	uint8_t buf[8];

	(void)state;
	assert_int_equal(guest_code(&o, buf, sizeof(buf)), -1);
}

static void test_parse_new_loops(void **state)
{
	static const struct { const char *name; enum exit_loop loop; } loops[] = {
		{ "io-kernel", LOOP_IO_KERNEL }, { "cpuid", LOOP_CPUID },
		{ "mmio", LOOP_MMIO }, { "hlt", LOOP_HLT }, { "io", LOOP_IO },
		{ "hlt-timer", LOOP_HLT_TIMER },
	};
	struct exit_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(loops) / sizeof(loops[0]); i++) {
		const char *args[] = { "-l", loops[i].name, "-r", "7", NULL };

		assert_int_equal(parse(&o, args), 0);
		assert_int_equal(o.loop, loops[i].loop);
		assert_int_equal(o.runs, 7);
		assert_string_equal(exit_loop_name(o.loop), loops[i].name);
	}
	assert_true(exit_loop_in_kernel(LOOP_CPUID));
	assert_true(exit_loop_in_kernel(LOOP_MMIO));
	assert_true(exit_loop_in_kernel(LOOP_IO_KERNEL));
	assert_false(exit_loop_in_kernel(LOOP_IO));
	assert_false(exit_loop_in_kernel(LOOP_HLT));
	assert_true(exit_loop_in_kernel(LOOP_HLT_TIMER));
}

static void test_parse_timer(void **state)
{
	const char *dflt[] = { "-l", "hlt-timer", NULL };
	const char *args[] = { "-l", "hlt-timer", "-i", "250000", NULL };
	struct exit_opts o;

	(void)state;
	assert_int_equal(parse(&o, dflt), 0);
	assert_int_equal(o.timer_ns, GUEST_TIMER_NS_DEFAULT);
	assert_int_equal(parse(&o, args), 0);
	assert_int_equal(o.timer_ns, 250000);
}

/* The hlt-timer guest: its patched fields and both jumps land on code. */
static void test_guest_code_timer(void **state)
{
	struct exit_opts o = { .loop = LOOP_HLT_TIMER, .iterations = 0x0a0b0c0d,
			       .port = 0x1234, .vms = 1, .timer_ns = 0x11223344 };
	uint16_t handler;
	uint8_t buf[256];
	int len, top, done;

	(void)state;
	len = guest_code(&o, buf, sizeof(buf));
	assert_int_equal(len, 124);
	/* the IVT entry of the timer's vector: handler, segment 0 */
	assert_memory_equal(buf + 1, "\xc7\x06\x00\x01", 4);
	memcpy(&handler, buf + 5, 2);
	assert_int_equal(handler - GUEST_CODE_GPA, 109);
	assert_memory_equal(buf + 7, "\xc7\x06\x02\x01\x00\x00", 6);
	/* the handler writes 0 to the x2APIC EOI and returns */
	assert_memory_equal(buf + 109, "\x66\xb9\x0b\x08\x00\x00", 6);
	assert_int_equal(buf[len - 1], 0xcf);
	/* LVT timer: periodic, the vector, unmasked */
	assert_memory_equal(buf + 57, "\x66\xb9\x32\x08\x00\x00\x66\xb8\x40\x00\x02\x00", 12);
	/* the period, N and the port */
	assert_memory_equal(buf + 71, "\x66\xb9\x38\x08\x00\x00\x66\xb8\x44\x33\x22\x11", 12);
	assert_memory_equal(buf + 85, "\x66\xbe\x0d\x0c\x0b\x0a", 6);
	assert_memory_equal(buf + 103, "\xba\x34\x12\xee", 4);
	/* sti; hlt: no interrupt between them */
	assert_memory_equal(buf + 96, "\xfb\xf4", 2);
	/* jz done and jmp top */
	top = 91;
	done = 103;
	assert_int_equal(buf[94], 0x74);
	assert_int_equal(96 + (int8_t)buf[95], done);
	assert_int_equal(buf[101], 0xeb);
	assert_int_equal(103 + (int8_t)buf[102], top);
	assert_memory_equal(buf + top, "\x66\x85\xf6", 3);
}

static void test_guest_code_cpuid_mmio(void **state)
{
	struct exit_opts o = { .loop = LOOP_CPUID, .iterations = 0x01020304, .vms = 1 };
	uint8_t buf[64];
	int len;

	(void)state;
	len = guest_code(&o, buf, sizeof(buf));
	assert_int_equal(len, 21);
	/* mov esi, N; the CPUID; HLT last */
	assert_memory_equal(buf, "\x66\xbe\x04\x03\x02\x01", 6);
	assert_memory_equal(buf + 14, "\x0f\xa2", 2);
	assert_int_equal(buf[len - 1], 0xf4);
	/* the jmp goes back to the test */
	assert_int_equal((int8_t)buf[len - 2], 6 - (len - 1));

	o.loop = LOOP_MMIO;
	len = guest_code(&o, buf, sizeof(buf));
	assert_int_equal(len, 24);
	/* DS = GUEST_MMIO_GPA >> 4, then mov [0], al */
	assert_int_equal(buf[7] | buf[8] << 8, GUEST_MMIO_GPA >> 4);
	assert_memory_equal(buf + 16, "\xa2\x00\x00", 3);
	assert_int_equal((int8_t)buf[len - 2], 11 - (len - 1));
	assert_int_equal(buf[len - 1], 0xf4);
}

static void test_guest_code_msr(void **state)
{
	struct exit_opts o = { .loop = LOOP_MSR, .iterations = 7, .vms = 1,
			       .msr_value = 0x1122334455667788ull };
	const char *args[] = { "-l", "msr", "-s", "0xfeedfacecafebeef",
			       "-w", "30", NULL };
	const char *bad_value[] = { "-l", "msr", "-s", "0x10000000000000000", NULL };
	const char *bad_hold[] = { "-w", "86401", NULL };
	const char *drop[] = { "-w", "5", "-d", NULL };
	const char *drop_alone[] = { "-d", NULL };
	uint8_t buf[64];
	int len, jz, jmp;

	(void)state;
	len = guest_code(&o, buf, sizeof(buf));
	assert_int_equal(len, 36);
	assert_memory_equal(buf, "\x66\xbe\x07\x00\x00\x00", 6);
	/* ECX: the MSR; EAX, EDX: the value's halves; then WRMSR */
	assert_memory_equal(buf + 11, "\x66\xb9\xfc\x01\x00\x00", 6);
	assert_memory_equal(buf + 17, "\x66\xb8\x88\x77\x66\x55", 6);
	assert_memory_equal(buf + 23, "\x66\xba\x44\x33\x22\x11", 6);
	assert_memory_equal(buf + 29, "\x0f\x30", 2);
	/* jz lands on the HLT, jmp on the test */
	jz = 11 + (int8_t)buf[10];
	jmp = 35 + (int8_t)buf[34];
	assert_int_equal(buf[jz], 0xf4);
	assert_int_equal(jz, len - 1);
	assert_int_equal(jmp, 6);
	assert_true(exit_loop_in_kernel(LOOP_MSR));
	assert_string_equal(exit_loop_name(LOOP_MSR), "msr");

	assert_int_equal(parse(&o, args), 0);
	assert_int_equal(o.loop, LOOP_MSR);
	assert_true(o.msr_value == 0xfeedfacecafebeefull);
	assert_int_equal(o.hold, 30);
	assert_int_equal(o.drop, 0);
	assert_int_equal(parse(&o, bad_value), -1);
	assert_int_equal(parse(&o, bad_hold), -1);
	assert_int_equal(parse(&o, drop), 0);
	assert_int_equal(o.drop, 1);
	/* Freeing the memory is for looking at the VMs afterwards. */
	assert_int_equal(parse(&o, drop_alone), -1);
}

static void test_two_vms(void **state)
{
	const char *args[] = { "-v", "2", "-n", "3", NULL };
	struct exit_counts one = { .io = 3, .hlt = 1 }, sum = { 0 };
	struct exit_opts o;

	(void)state;
	assert_int_equal(parse(&o, args), 0);
	assert_int_equal(o.vms, 2);
	exit_counts_sum(&sum, &one);
	/* One VM's exits are not enough for two. */
	assert_int_equal(exit_counts_check(&sum, &o, devnull), -1);
	exit_counts_sum(&sum, &one);
	assert_int_equal(exit_counts_check(&sum, &o, devnull), 0);
	assert_true(sum.io == 6 && sum.hlt == 2);
}

static void test_min_vm_exits(void **state)
{
	struct exit_opts o = { .loop = LOOP_CPUID, .iterations = 4294967295u, .vms = 1 };

	(void)state;
	assert_true(exit_loop_min_vm_exits(&o) == 4294967296ull);
	o.loop = LOOP_HLT;
	assert_true(exit_loop_min_vm_exits(&o) == 1);
}

static void test_asi_stats_parse(void **state)
{
	const char *text =
		"class other index 1 instances 0\n"
		"  enters 5\n"
		"  exits_page_fault 5\n"
		"class kvm index 2 instances 1\n"
		"  enters 100\n"
		"  exits_explicit 1\n"
		"  exits_page_fault 90\n"
		"  exits_schedule 9\n"
		"  tlb_flushes 100\n";
	uint64_t enters, exits;

	(void)state;
	assert_int_equal(asi_stats_parse(text, "kvm", &enters, &exits), 0);
	assert_true(enters == 100 && exits == 100);
	assert_int_equal(asi_stats_parse(text, "other", &enters, &exits), 0);
	assert_true(enters == 5 && exits == 5);
	assert_int_equal(asi_stats_parse(text, "kv", &enters, &exits), -1);
	assert_int_equal(asi_stats_parse("", "kvm", &enters, &exits), -1);
	/* truncated: the class line alone */
	assert_int_equal(asi_stats_parse("class kvm index 2", "kvm", &enters,
					 &exits), 0);
	assert_true(enters == 0 && exits == 0);
}

static void io_exit(struct kvm_run *run, uint16_t port, uint8_t dir)
{
	memset(run, 0, sizeof(*run));
	run->exit_reason = KVM_EXIT_IO;
	run->io.direction = dir;
	run->io.port = port;
	run->io.size = 1;
	run->io.count = 1;
}

/* Only the final port write ends it; a HLT reaching userspace is wrong. */
static void test_counts_timer_loop(void **state)
{
	struct exit_opts o = { .loop = LOOP_HLT_TIMER, .iterations = 100,
			       .port = 0x80, .vms = 1 };
	struct exit_counts c = { 0 };
	struct kvm_run run;

	(void)state;
	io_exit(&run, 0x81, KVM_EXIT_IO_OUT);
	assert_int_equal(exit_counts_add(&c, &o, &run), -1);
	memset(&c, 0, sizeof(c));
	io_exit(&run, 0x80, KVM_EXIT_IO_OUT);
	assert_int_equal(exit_counts_add(&c, &o, &run), 1);
	assert_int_equal(exit_counts_check(&c, &o, devnull), 0);
	run.exit_reason = KVM_EXIT_HLT;
	assert_int_equal(exit_counts_add(&c, &o, &run), -1);
	assert_int_equal(exit_counts_check(&c, &o, devnull), -1);
	/* a HLT per iteration, and the port write */
	assert_true(exit_loop_min_vm_exits(&o) == 101);
}

static void test_counts_io_loop(void **state)
{
	struct exit_opts o = { .loop = LOOP_IO, .iterations = 3, .port = 0x80, .vms = 1 };
	struct exit_counts c = { 0 };
	struct kvm_run run;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		io_exit(&run, 0x80, KVM_EXIT_IO_OUT);
		assert_int_equal(exit_counts_add(&c, &o, &run), 0);
	}
	memset(&run, 0, sizeof(run));
	run.exit_reason = KVM_EXIT_HLT;
	assert_int_equal(exit_counts_add(&c, &o, &run), 1);
	assert_int_equal(c.io, 3);
	assert_int_equal(c.hlt, 1);
	assert_int_equal(exit_counts_check(&c, &o, devnull), 0);
}

static void test_counts_wrong_io(void **state)
{
	struct exit_opts o = { .loop = LOOP_IO, .iterations = 1, .port = 0x80, .vms = 1 };
	struct exit_counts c = { 0 };
	struct kvm_run run;

	(void)state;
	io_exit(&run, 0x81, KVM_EXIT_IO_OUT);
	assert_int_equal(exit_counts_add(&c, &o, &run), -1);
	io_exit(&run, 0x80, KVM_EXIT_IO_IN);
	assert_int_equal(exit_counts_add(&c, &o, &run), -1);
	assert_int_equal(c.bad_io, 2);
	assert_int_equal(exit_counts_check(&c, &o, devnull), -1);
}

static void test_counts_unexpected_reasons(void **state)
{
	struct exit_opts o = { .loop = LOOP_HLT, .vms = 1 };
	struct exit_counts c = { 0 };
	struct kvm_run run;

	(void)state;
	memset(&run, 0, sizeof(run));
	run.exit_reason = KVM_EXIT_MMIO;
	assert_int_equal(exit_counts_add(&c, &o, &run), -1);
	run.exit_reason = KVM_EXIT_SHUTDOWN;
	assert_int_equal(exit_counts_add(&c, &o, &run), -1);
	assert_int_equal(c.mmio, 1);
	assert_int_equal(c.other, 1);
	/* no HLT seen and stray exits: both reported */
	assert_int_equal(exit_counts_check(&c, &o, devnull), -1);
}

static const char *describe(const struct kvm_run *run)
{
	static char buf[64];

	exit_describe(run, buf, sizeof(buf));
	return buf;
}

static void test_exit_describe(void **state)
{
	struct kvm_run run;
	char buf[4];

	(void)state;
	memset(&run, 0, sizeof(run));
	run.exit_reason = KVM_EXIT_IO;
	run.io.direction = KVM_EXIT_IO_OUT;
	run.io.port = 0x80;
	run.io.size = 1;
	assert_string_equal(describe(&run), "io out port 0x80, 1 byte");
	run.io.direction = KVM_EXIT_IO_IN;
	run.io.size = 4;
	assert_string_equal(describe(&run), "io in port 0x80, 4 bytes");

	memset(&run, 0, sizeof(run));
	run.exit_reason = KVM_EXIT_MMIO;
	run.mmio.phys_addr = GUEST_MMIO_GPA;
	run.mmio.len = 1;
	run.mmio.is_write = 1;
	assert_string_equal(describe(&run), "mmio write 0x20000, 1 byte");

	run.exit_reason = KVM_EXIT_SHUTDOWN;
	assert_string_equal(describe(&run), "shutdown");
	run.exit_reason = KVM_EXIT_HLT;
	assert_string_equal(describe(&run), "hlt");
	run.exit_reason = KVM_EXIT_INTERNAL_ERROR;
	assert_string_equal(describe(&run), "reason 17");
	/* cut to the buffer, terminated */
	exit_describe(&run, buf, sizeof(buf));
	assert_string_equal(buf, "rea");
}

static void test_counts_check_missing_exits(void **state)
{
	struct exit_opts o = { .loop = LOOP_IO, .iterations = 1000, .vms = 1 };
	struct exit_counts c = { .io = 999, .hlt = 1 };

	(void)state;
	assert_int_equal(exit_counts_check(&c, &o, devnull), -1);
	c.io = 1000;
	assert_int_equal(exit_counts_check(&c, &o, devnull), 0);
	c.hlt = 2;
	assert_int_equal(exit_counts_check(&c, &o, devnull), -1);
}

static void test_counts_print(void **state)
{
	struct exit_opts o = { .loop = LOOP_IO, .iterations = 2, .vms = 1 };
	struct exit_counts c = { .io = 2, .hlt = 1 };
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	exit_counts_print(&c, &o, 0.5, f);
	fclose(f);
	assert_non_null(strstr(buf, "loop=io iterations=2 exits=3 io=2 hlt=1 mmio=0 other=0"));
	assert_non_null(strstr(buf, "exits_per_sec=6\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_defaults),
		cmocka_unit_test(test_parse_timeout),
		cmocka_unit_test(test_parse_all_options),
		cmocka_unit_test(test_parse_zero_iterations),
		cmocka_unit_test(test_parse_help),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_guest_code_io),
		cmocka_unit_test(test_guest_code_hlt),
		cmocka_unit_test(test_guest_code_too_small),
		cmocka_unit_test(test_counts_io_loop),
		cmocka_unit_test(test_counts_wrong_io),
		cmocka_unit_test(test_counts_unexpected_reasons),
		cmocka_unit_test(test_exit_describe),
		cmocka_unit_test(test_counts_check_missing_exits),
		cmocka_unit_test(test_counts_print),
		cmocka_unit_test(test_parse_new_loops),
		cmocka_unit_test(test_guest_code_cpuid_mmio),
		cmocka_unit_test(test_min_vm_exits),
		cmocka_unit_test(test_guest_code_msr),
		cmocka_unit_test(test_two_vms),
		cmocka_unit_test(test_asi_stats_parse),
		cmocka_unit_test(test_parse_timer),
		cmocka_unit_test(test_guest_code_timer),
		cmocka_unit_test(test_counts_timer_loop),
	};

	devnull = fopen("/dev/null", "w");
	return cmocka_run_group_tests_name("kvm-exits", tests, NULL, NULL);
}
