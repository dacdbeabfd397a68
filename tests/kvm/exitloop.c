// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kvm.h>

#include "exitloop.h"

static const char *const loop_names[] = {
	[LOOP_IO] = "io",
	[LOOP_HLT] = "hlt",
	[LOOP_IO_KERNEL] = "io-kernel",
	[LOOP_CPUID] = "cpuid",
	[LOOP_MMIO] = "mmio",
	[LOOP_MSR] = "msr",
	[LOOP_HLT_TIMER] = "hlt-timer",
};

const char *exit_loop_name(enum exit_loop loop)
{
	if ((size_t)loop >= sizeof(loop_names) / sizeof(loop_names[0]))
		return "?";
	return loop_names[loop];
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: kvm-exits [-l LOOP] [-n N] [-p PORT] [-r RUNS] [-s VALUE]\n"
		"                 [-t SECS] [-v VMS] [-w SECS [-d]] [-i NS]\n"
		"Run a real-mode guest that causes VM exits and count them.\n"
		"  -l LOOP  io: N port writes, each an exit to userspace (default)\n"
		"           io-kernel: N port writes handled by an ioeventfd\n"
		"           cpuid: N CPUID instructions\n"
		"           mmio: N writes handled by an ioeventfd\n"
		"           msr: N WRMSR of VALUE to MSR 0x1fc (POWER_CTL)\n"
		"           hlt: HLT only; every loop ends with one HLT\n"
		"           hlt-timer: N HLTs, each woken by the periodic timer\n"
		"           of the in-kernel local APIC; ends with a write to\n"
		"           PORT\n"
		"  -n N     iterations of the loop, 0..4294967295 (default 1000)\n"
		"  -p PORT  I/O port of the io loops (default 0x80)\n"
		"  -r RUNS  times to create, run and destroy the VMs, 1..1000000\n"
		"           (default 1)\n"
		"  -s VALUE 64-bit value the msr loop writes; with -v, VM i\n"
		"           (from 0) writes VALUE + i (default 0x5ec2e7)\n"
		"  -t SECS  fail a run that has not halted after SECS seconds,\n"
		"           with the guest's registers (default 0: no limit)\n"
		"  -v VMS   VMs at once in this process, run in turn, 1..16\n"
		"           (default 1)\n"
		"  -w SECS  after each run, keep the VMs for SECS seconds before\n"
		"           destroying them, 0..86400 (default 0)\n"
		"  -d       with -w, free the guests' memory first (fresh pages\n"
		"           replace it; VMs 1, 3, ... delete their slot before)\n"
		"  -i NS    the hlt-timer loop's period, 1000..1000000000 ns\n"
		"           (default 100000)\n"
		"The guest's code page also holds VALUE (+ i) as a 64-bit word.\n");
}

static int parse_u64(const char *s, uint64_t max, uint64_t *val)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*val = v;
	return 0;
}

int exit_opts_parse(struct exit_opts *opts, int argc, char **argv,
		    FILE *out, FILE *err)
{
	uint64_t v;
	int c;

	opts->loop = LOOP_IO;
	opts->iterations = 1000;
	opts->runs = 1;
	opts->vms = 1;
	opts->timeout = 0;
	opts->port = 0x80;
	opts->msr_value = 0x5ec2e7;
	opts->hold = 0;
	opts->drop = 0;
	opts->timer_ns = GUEST_TIMER_NS_DEFAULT;

	optind = 1;
	opterr = 0;
	while ((c = getopt(argc, argv, ":di:l:n:p:r:s:t:v:w:h")) != -1) {
		switch (c) {
		case 'l':
			for (v = 0; v < LOOP_NR; v++)
				if (!strcmp(optarg, loop_names[v]))
					break;
			if (v == LOOP_NR) {
				fprintf(err, "kvm-exits: unknown loop '%s' "
					"(io, io-kernel, cpuid, mmio, msr, hlt, "
					"hlt-timer)\n",
					optarg);
				return -1;
			}
			opts->loop = (enum exit_loop)v;
			break;
		case 'd':
			opts->drop = 1;
			break;
		case 'i':
			if (parse_u64(optarg, 1000000000, &v) || v < 1000) {
				fprintf(err, "kvm-exits: bad timer period '%s' "
					"(1000..1000000000 ns)\n", optarg);
				return -1;
			}
			opts->timer_ns = (uint32_t)v;
			break;
		case 'r':
			if (parse_u64(optarg, 1000000, &v) || !v) {
				fprintf(err, "kvm-exits: bad run count '%s'\n", optarg);
				return -1;
			}
			opts->runs = (uint32_t)v;
			break;
		case 's':
			if (parse_u64(optarg, UINT64_MAX, &v)) {
				fprintf(err, "kvm-exits: bad MSR value '%s'\n", optarg);
				return -1;
			}
			opts->msr_value = v;
			break;
		case 'w':
			if (parse_u64(optarg, 86400, &v)) {
				fprintf(err, "kvm-exits: bad hold time '%s' (0..86400 s)\n",
					optarg);
				return -1;
			}
			opts->hold = (uint32_t)v;
			break;
		case 't':
			if (parse_u64(optarg, 86400, &v)) {
				fprintf(err, "kvm-exits: bad timeout '%s' (0..86400 s)\n",
					optarg);
				return -1;
			}
			opts->timeout = (uint32_t)v;
			break;
		case 'v':
			if (parse_u64(optarg, EXIT_MAX_VMS, &v) || !v) {
				fprintf(err, "kvm-exits: bad VM count '%s' (1..%d)\n",
					optarg, EXIT_MAX_VMS);
				return -1;
			}
			opts->vms = (uint32_t)v;
			break;
		case 'n':
			if (parse_u64(optarg, UINT32_MAX, &v)) {
				fprintf(err, "kvm-exits: bad iteration count '%s'\n", optarg);
				return -1;
			}
			opts->iterations = (uint32_t)v;
			break;
		case 'p':
			if (parse_u64(optarg, UINT16_MAX, &v)) {
				fprintf(err, "kvm-exits: bad port '%s'\n", optarg);
				return -1;
			}
			opts->port = (uint16_t)v;
			break;
		case 'h':
			usage(out);
			return 1;
		case ':':
			fprintf(err, "kvm-exits: option -%c needs an argument\n", optopt);
			return -1;
		default:
			fprintf(err, "kvm-exits: unknown option -%c\n", optopt);
			usage(err);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(err, "kvm-exits: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (opts->drop && !opts->hold) {
		fprintf(err, "kvm-exits: -d needs -w\n");
		return -1;
	}
	return 0;
}

/*
 * io loop, 16-bit real mode:
 *	mov  ecx, N
 *	mov  dx, PORT
 * top:	test ecx, ecx
 *	jz   done
 *	out  dx, al
 *	dec  ecx
 *	jmp  top
 * done: hlt
 *
 * msr loop, the same with the counter in ESI and, in the body:
 *	mov  ecx, GUEST_WRMSR_INDEX
 *	mov  eax, low half; mov edx, high half
 *	wrmsr
 */
int guest_code(const struct exit_opts *opts, uint8_t *buf, size_t size)
{
	static const uint8_t hlt[] = { 0xf4 };
	uint8_t io[] = {
		0x66, 0xb9, 0, 0, 0, 0,		/* mov ecx, imm32 */
		0xba, 0, 0,			/* mov dx, imm16 */
		0x66, 0x85, 0xc9,		/* test ecx, ecx */
		0x74, 0x05,			/* jz +5 */
		0xee,				/* out dx, al */
		0x66, 0x49,			/* dec ecx */
		0xeb, 0xf6,			/* jmp -10 */
		0xf4,				/* hlt */
	};
	/* the counter is ESI: CPUID writes ECX */
	uint8_t cpuid[] = {
		0x66, 0xbe, 0, 0, 0, 0,		/* mov esi, imm32 */
		0x66, 0x85, 0xf6,		/* test esi, esi */
		0x74, 0x09,			/* jz +9 */
		0x66, 0x31, 0xc0,		/* xor eax, eax */
		0x0f, 0xa2,			/* cpuid */
		0x66, 0x4e,			/* dec esi */
		0xeb, 0xf2,			/* jmp -14 */
		0xf4,				/* hlt */
	};
	uint8_t mmio[] = {
		0x66, 0xb9, 0, 0, 0, 0,		/* mov ecx, imm32 */
		0xb8, (GUEST_MMIO_GPA >> 4) & 0xff,	/* mov ax, GPA >> 4 */
		(GUEST_MMIO_GPA >> 12) & 0xff,
		0x8e, 0xd8,			/* mov ds, ax */
		0x66, 0x85, 0xc9,		/* test ecx, ecx */
		0x74, 0x07,			/* jz +7 */
		0xa2, 0x00, 0x00,		/* mov [0], al */
		0x66, 0x49,			/* dec ecx */
		0xeb, 0xf4,			/* jmp -12 */
		0xf4,				/* hlt */
	};
	uint8_t msr[] = {
		0x66, 0xbe, 0, 0, 0, 0,		/* mov esi, imm32 */
		0x66, 0x85, 0xf6,		/* test esi, esi */
		0x74, 0x18,			/* jz +24 */
		0x66, 0xb9, 0, 0, 0, 0,		/* mov ecx, imm32 */
		0x66, 0xb8, 0, 0, 0, 0,		/* mov eax, imm32 */
		0x66, 0xba, 0, 0, 0, 0,		/* mov edx, imm32 */
		0x0f, 0x30,			/* wrmsr */
		0x66, 0x4e,			/* dec esi */
		0xeb, 0xe3,			/* jmp -29 */
		0xf4,				/* hlt */
	};
	/*
	 * hlt-timer: x2APIC mode, the timer's vector in the interrupt vector
	 * table, the timer periodic, then N times STI; HLT, and the handler
	 * writes the EOI. Periodic, not one-shot: a wake-up taken before the
	 * HLT (an emulator that does not keep STI's interrupt shadow) costs a
	 * period, not the run. The counter is ESI: the MSR writes use ECX,
	 * EAX and EDX.
	 */
	uint8_t timer[] = {
		0xfa,					/*  0: cli */
		0xc7, 0x06, GUEST_TIMER_IVT & 0xff,	/*  1: mov word [IVT], */
		GUEST_TIMER_IVT >> 8, 0, 0,		/*     handler */
		0xc7, 0x06, (GUEST_TIMER_IVT + 2) & 0xff, /* 7: mov word [IVT+2], */
		(GUEST_TIMER_IVT + 2) >> 8, 0, 0,	/*     0 (segment) */
		0x66, 0xb9, 0x1b, 0, 0, 0,		/* 13: mov ecx, APIC_BASE */
		0x0f, 0x32,				/* 19: rdmsr */
		0x0d, 0x00, 0x0c,			/* 21: or ax, EN | EXTD */
		0x0f, 0x30,				/* 24: wrmsr */
		0x66, 0xb9, 0x0f, 0x08, 0, 0,		/* 26: mov ecx, x2APIC SVR */
		0x66, 0xb8, 0xff, 0x01, 0, 0,		/* 32: mov eax, 0x1ff */
		0x66, 0x31, 0xd2,			/* 38: xor edx, edx */
		0x0f, 0x30,				/* 41: wrmsr */
		0x66, 0xb9, 0x3e, 0x08, 0, 0,		/* 43: mov ecx, TDCR */
		0x66, 0xb8, 0x0b, 0, 0, 0,		/* 49: mov eax, 0xb (by 1) */
		0x0f, 0x30,				/* 55: wrmsr */
		0x66, 0xb9, 0x32, 0x08, 0, 0,		/* 57: mov ecx, LVTT */
		0x66, 0xb8, GUEST_TIMER_VECTOR, 0,	/* 63: mov eax, periodic */
		0x02, 0,				/*     | vector */
		0x0f, 0x30,				/* 69: wrmsr */
		0x66, 0xb9, 0x38, 0x08, 0, 0,		/* 71: mov ecx, TMICT */
		0x66, 0xb8, 0, 0, 0, 0,			/* 77: mov eax, period */
		0x0f, 0x30,				/* 83: wrmsr */
		0x66, 0xbe, 0, 0, 0, 0,			/* 85: mov esi, N */
		0x66, 0x85, 0xf6,			/* 91: top: test esi, esi */
		0x74, 0x07,				/* 94: jz done (+7) */
		0xfb,					/* 96: sti */
		0xf4,					/* 97: hlt */
		0xfa,					/* 98: cli */
		0x66, 0x4e,				/* 99: dec esi */
		0xeb, 0xf4,				/* 101: jmp top (-12) */
		0xba, 0, 0,				/* 103: done: mov dx, PORT */
		0xee,					/* 106: out dx, al */
		0xeb, 0xfe,				/* 107: jmp $ */
		0x66, 0xb9, 0x0b, 0x08, 0, 0,		/* 109: handler: mov ecx, EOI */
		0x66, 0x31, 0xc0,			/* 115: xor eax, eax */
		0x66, 0x31, 0xd2,			/* 118: xor edx, edx */
		0x0f, 0x30,				/* 121: wrmsr */
		0xcf,					/* 123: iret */
	};
	uint16_t handler = GUEST_CODE_GPA + 109;
	uint32_t index = GUEST_WRMSR_INDEX;
	uint32_t low = (uint32_t)opts->msr_value;
	uint32_t high = (uint32_t)(opts->msr_value >> 32);
	const uint8_t *code;
	size_t len;

	switch (opts->loop) {
	case LOOP_MSR:
		memcpy(&msr[2], &opts->iterations, 4);
		memcpy(&msr[13], &index, 4);
		memcpy(&msr[19], &low, 4);
		memcpy(&msr[25], &high, 4);
		code = msr;
		len = sizeof(msr);
		break;
	case LOOP_CPUID:
		memcpy(&cpuid[2], &opts->iterations, 4);
		code = cpuid;
		len = sizeof(cpuid);
		break;
	case LOOP_MMIO:
		memcpy(&mmio[2], &opts->iterations, 4);
		code = mmio;
		len = sizeof(mmio);
		break;
	case LOOP_IO:
	case LOOP_IO_KERNEL:
		io[2] = opts->iterations & 0xff;
		io[3] = (opts->iterations >> 8) & 0xff;
		io[4] = (opts->iterations >> 16) & 0xff;
		io[5] = (opts->iterations >> 24) & 0xff;
		io[7] = opts->port & 0xff;
		io[8] = opts->port >> 8;
		code = io;
		len = sizeof(io);
		break;
	case LOOP_HLT_TIMER:
		memcpy(&timer[5], &handler, 2);
		/* APIC bus cycles, 1 ns each in KVM (divide by 1) */
		memcpy(&timer[79], &opts->timer_ns, 4);
		memcpy(&timer[87], &opts->iterations, 4);
		timer[104] = opts->port & 0xff;
		timer[105] = opts->port >> 8;
		code = timer;
		len = sizeof(timer);
		break;
	case LOOP_HLT:
		code = hlt;
		len = sizeof(hlt);
		break;
	default:
		return -1;
	}
	if (len > size)
		return -1;
	memcpy(buf, code, len);
	return (int)len;
}

int exit_counts_add(struct exit_counts *c, const struct exit_opts *opts,
		    const struct kvm_run *run)
{
	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		c->io++;
		if (opts->loop == LOOP_HLT_TIMER &&
		    run->io.direction == KVM_EXIT_IO_OUT &&
		    run->io.port == opts->port && run->io.size == 1 &&
		    run->io.count == 1)
			return 1;
		if (opts->loop != LOOP_IO ||
		    run->io.direction != KVM_EXIT_IO_OUT ||
		    run->io.port != opts->port || run->io.size != 1 ||
		    run->io.count != 1) {
			c->bad_io++;
			return -1;
		}
		return 0;
	case KVM_EXIT_HLT:
		c->hlt++;
		/* The in-kernel local APIC takes the hlt-timer loop's HLTs. */
		return opts->loop == LOOP_HLT_TIMER ? -1 : 1;
	case KVM_EXIT_MMIO:
		c->mmio++;
		return -1;
	default:
		c->other++;
		return -1;
	}
}

void exit_describe(const struct kvm_run *run, char *buf, size_t size)
{
	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		snprintf(buf, size, "io %s port 0x%x, %u byte%s",
			 run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in",
			 run->io.port, run->io.size, run->io.size == 1 ? "" : "s");
		break;
	case KVM_EXIT_MMIO:
		snprintf(buf, size, "mmio %s 0x%llx, %u byte%s",
			 run->mmio.is_write ? "write" : "read",
			 (unsigned long long)run->mmio.phys_addr, run->mmio.len,
			 run->mmio.len == 1 ? "" : "s");
		break;
	case KVM_EXIT_SHUTDOWN:
		snprintf(buf, size, "shutdown");
		break;
	case KVM_EXIT_HLT:
		snprintf(buf, size, "hlt");
		break;
	default:
		snprintf(buf, size, "reason %u", run->exit_reason);
		break;
	}
}

int exit_counts_check(const struct exit_counts *c,
		      const struct exit_opts *opts, FILE *err)
{
	uint64_t want_io = opts->loop == LOOP_IO ?
			   (uint64_t)opts->iterations * opts->vms : 0;
	uint64_t want_hlt = opts->vms;

	/*
	 * In-kernel loops: userspace sees the HLT only; hlt-timer's final
	 * port write takes the place of the HLT.
	 */
	int ok = 1;

	if (opts->loop == LOOP_HLT_TIMER) {
		want_io = opts->vms;
		want_hlt = 0;
	}

	if (c->io != want_io) {
		fprintf(err, "kvm-exits: %" PRIu64 " I/O exits, expected %" PRIu64 "\n",
			c->io, want_io);
		ok = 0;
	}
	if (c->hlt != want_hlt) {
		fprintf(err, "kvm-exits: %" PRIu64 " HLT exits, expected %" PRIu64 "\n",
			c->hlt, want_hlt);
		ok = 0;
	}
	if (c->mmio || c->other || c->bad_io) {
		fprintf(err, "kvm-exits: unexpected exits: mmio=%" PRIu64
			" other=%" PRIu64 " bad_io=%" PRIu64 "\n",
			c->mmio, c->other, c->bad_io);
		ok = 0;
	}
	return ok ? 0 : -1;
}

void exit_counts_print(const struct exit_counts *c,
		       const struct exit_opts *opts, double seconds, FILE *out)
{
	uint64_t total = c->io + c->hlt + c->mmio + c->other;

	fprintf(out, "kvm-exits: loop=%s iterations=%" PRIu32 " exits=%" PRIu64
		" io=%" PRIu64 " hlt=%" PRIu64 " mmio=%" PRIu64 " other=%" PRIu64
		" seconds=%.6f exits_per_sec=%.0f\n",
		exit_loop_name(opts->loop), opts->iterations, total, c->io,
		c->hlt, c->mmio, c->other, seconds,
		seconds > 0 ? total / seconds : 0.0);
}

void exit_counts_sum(struct exit_counts *sum, const struct exit_counts *c)
{
	sum->io += c->io;
	sum->hlt += c->hlt;
	sum->mmio += c->mmio;
	sum->other += c->other;
	sum->bad_io += c->bad_io;
}

int asi_stats_parse(const char *text, const char *name, uint64_t *enters,
		    uint64_t *exits)
{
	const char *line = text;
	int in_class = 0, found = 0;

	*enters = 0;
	*exits = 0;
	while (line && *line) {
		const char *next = strchr(line, '\n');
		char key[64], word[64];
		unsigned long long val;

		if (!strncmp(line, "class ", 6)) {
			in_class = sscanf(line, "class %63s", word) == 1 &&
				   !strcmp(word, name);
			found |= in_class;
		} else if (in_class &&
			   sscanf(line, " %63s %llu", key, &val) == 2) {
			if (!strcmp(key, "enters"))
				*enters = val;
			else if (!strncmp(key, "exits_", 6))
				*exits += val;
		}
		line = next ? next + 1 : NULL;
	}
	return found ? 0 : -1;
}
