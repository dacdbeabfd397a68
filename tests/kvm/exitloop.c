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
		"Usage: kvm-exits [-l LOOP] [-n N] [-p PORT]\n"
		"Run a real-mode guest that causes VM exits and count them.\n"
		"  -l LOOP  io (N port writes, then HLT; default) or hlt\n"
		"  -n N     iterations of the loop, 0..4294967295 (default 1000)\n"
		"  -p PORT  I/O port written by the io loop (default 0x80)\n");
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
	opts->port = 0x80;

	optind = 1;
	opterr = 0;
	while ((c = getopt(argc, argv, ":l:n:p:h")) != -1) {
		switch (c) {
		case 'l':
			if (!strcmp(optarg, "io")) {
				opts->loop = LOOP_IO;
			} else if (!strcmp(optarg, "hlt")) {
				opts->loop = LOOP_HLT;
			} else {
				fprintf(err, "kvm-exits: unknown loop '%s' (io, hlt)\n", optarg);
				return -1;
			}
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
	const uint8_t *code;
	size_t len;

	switch (opts->loop) {
	case LOOP_IO:
		io[2] = opts->iterations & 0xff;
		io[3] = (opts->iterations >> 8) & 0xff;
		io[4] = (opts->iterations >> 16) & 0xff;
		io[5] = (opts->iterations >> 24) & 0xff;
		io[7] = opts->port & 0xff;
		io[8] = opts->port >> 8;
		code = io;
		len = sizeof(io);
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
		return 1;
	case KVM_EXIT_MMIO:
		c->mmio++;
		return -1;
	default:
		c->other++;
		return -1;
	}
}

int exit_counts_check(const struct exit_counts *c,
		      const struct exit_opts *opts, FILE *err)
{
	uint64_t want_io = opts->loop == LOOP_IO ? opts->iterations : 0;
	int ok = 1;

	if (c->io != want_io) {
		fprintf(err, "kvm-exits: %" PRIu64 " I/O exits, expected %" PRIu64 "\n",
			c->io, want_io);
		ok = 0;
	}
	if (c->hlt != 1) {
		fprintf(err, "kvm-exits: %" PRIu64 " HLT exits, expected 1\n", c->hlt);
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
