/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure logic of kvm-exits, kept apart from the KVM ioctls so that the unit
 * tests can exercise it without /dev/kvm: option parsing, the guest code for
 * each loop and the accounting of exits seen by userspace.
 */
#ifndef EXITLOOP_H
#define EXITLOOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kvm_run;

enum exit_loop {
	LOOP_IO,	/* N "out" instructions, then HLT */
	LOOP_HLT,	/* HLT only */
	LOOP_IO_KERNEL,	/* N "out" to a port an ioeventfd claims, then HLT */
	LOOP_CPUID,	/* N CPUID, then HLT */
	LOOP_MMIO,	/* N writes to an ioeventfd's MMIO address, then HLT */
	LOOP_MSR,	/* N WRMSR of opts->msr_value, then HLT */
	LOOP_HLT_TIMER,	/* N HLTs, each woken by a periodic LAPIC timer */
	LOOP_NR
};

struct exit_opts {
	enum exit_loop loop;
	uint32_t iterations;
	uint32_t runs;		/* times the VMs are created and destroyed */
	uint32_t vms;		/* VMs at once in this process, run in turn */
	uint32_t timeout;	/* seconds a run may take, 0: no limit */
	uint16_t port;
	uint64_t msr_value;	/* what the msr loop writes */
	uint32_t hold;		/* seconds to keep the VMs after a run */
	int drop;		/* free the guests' memory before holding */
	uint32_t timer_ns;	/* the hlt-timer loop's one-shot timer */
};

/*
 * The MSR the msr loop writes: KVM takes any value a guest writes there and
 * keeps it in the vCPU's state, where a test can look for it.
 */
#define GUEST_WRMSR_INDEX	0x1fcu	/* MSR_IA32_POWER_CTL */

/*
 * Loops whose exits the kernel handles: userspace sees only the HLT, or
 * for hlt-timer the final port write (with an in-kernel local APIC the
 * kernel handles the HLTs too).
 */
static inline int exit_loop_in_kernel(enum exit_loop loop)
{
	return loop == LOOP_IO_KERNEL || loop == LOOP_CPUID ||
	       loop == LOOP_MMIO || loop == LOOP_MSR || loop == LOOP_HLT_TIMER;
}

/*
 * The hlt-timer loop: its x2APIC timer's vector, the vector's entry in the
 * real-mode interrupt vector table, and the timer's default period.
 */
#define GUEST_TIMER_VECTOR	0x40u
#define GUEST_TIMER_IVT		(GUEST_TIMER_VECTOR * 4)
#define GUEST_TIMER_NS_DEFAULT	100000u

struct exit_counts {
	uint64_t io;
	uint64_t hlt;
	uint64_t mmio;
	uint64_t other;
	uint64_t bad_io;	/* I/O exits that do not match the loop */
};

#define EXIT_MAX_VMS	16

/* Where the guest code is placed and started (real mode, CS = 0). */
#define GUEST_CODE_GPA	0x1000u
#define GUEST_MEM_SIZE	0x10000u
/* Where in the code page the VALUE of -s is kept, 8-byte aligned. */
#define GUEST_SECRET_OFFSET	0x800u
/* Written by the mmio loop (DS = 0x2000): outside guest memory. */
#define GUEST_MMIO_GPA	0x20000u

/*
 * Parse argv. Returns 0 on success, 1 when help was printed, -1 on a bad
 * argument (message written to err).
 */
int exit_opts_parse(struct exit_opts *opts, int argc, char **argv,
		    FILE *out, FILE *err);

const char *exit_loop_name(enum exit_loop loop);

/* Emit the guest code for opts into buf; returns its length or -1. */
int guest_code(const struct exit_opts *opts, uint8_t *buf, size_t size);

/*
 * Account one KVM_RUN return. Returns 1 when the guest is done (HLT, or
 * the hlt-timer loop's final port write), 0 to run again, -1 on an exit
 * the loop does not expect.
 */
int exit_counts_add(struct exit_counts *c, const struct exit_opts *opts,
		    const struct kvm_run *run);

/*
 * VM exits the kernel must count at least: the loop's and the final HLT
 * or port write (an hlt-timer iteration: its HLT; the EOI may be
 * virtualized).
 */
static inline uint64_t exit_loop_min_vm_exits(const struct exit_opts *opts)
{
	return (opts->loop == LOOP_HLT ? 0 : (uint64_t)opts->iterations) + 1;
}

/*
 * What an exit was, for a report: "io out port 0x80, 1 byte",
 * "mmio write 0x20000, 1 byte", "shutdown", "hlt" or "reason N".
 */
void exit_describe(const struct kvm_run *run, char *buf, size_t size);

/* Add one VM's counts to a sum. */
void exit_counts_sum(struct exit_counts *sum, const struct exit_counts *c);

/*
 * Exits the loop should produce, opts->vms times; compared against the
 * counts at the end.
 */
int exit_counts_check(const struct exit_counts *c,
		      const struct exit_opts *opts, FILE *err);

void exit_counts_print(const struct exit_counts *c,
		       const struct exit_opts *opts, double seconds, FILE *out);

/*
 * From the text of /sys/kernel/debug/asi/stats, the enters and the exits
 * (all reasons) of the class named name. Returns 0, or -1 if the class is
 * not there.
 */
int asi_stats_parse(const char *text, const char *name, uint64_t *enters,
		    uint64_t *exits);

#endif
