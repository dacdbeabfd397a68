// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exits: create a VM with one vCPU, run a small real-mode guest that
 * causes a known number of VM exits, and check that userspace saw exactly
 * those. Used by the system tests to drive KVM inside the test VM.
 *
 * It also prints the VM exits the kernel counted for the vCPU (its binary
 * stats, "exits"), how its HLTs went (handled in the kernel, woken while
 * halt-polling, woken after blocking) and, when /sys/kernel/debug/asi/stats
 * exists, the ASI exits of the kvm class meanwhile (other VMs running at
 * the same time count too).
 *
 * Exit codes: 0 counts as expected, 1 counts wrong, 2 bad usage,
 * 3 KVM not usable (no /dev/kvm, ioctl failure).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/kvm.h>

#include "exitloop.h"

#define EXIT_WRONG	1
#define EXIT_USAGE	2
#define EXIT_KVM	3

static int kvm_fail(const char *what)
{
	fprintf(stderr, "kvm-exits: %s: %s\n", what, strerror(errno));
	return EXIT_KVM;
}

#define ASI_STATS	"/sys/kernel/debug/asi/stats"

/* Enters and exits of the kvm ASI class; -1 without ASI. */
static int read_asi_stats(uint64_t *enters, uint64_t *exits)
{
	static char buf[16384];
	size_t len;
	FILE *f;

	f = fopen(ASI_STATS, "r");
	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	return asi_stats_parse(buf, "kvm", enters, exits);
}

/*
 * Counters of the vCPU's binary stats, by name, into vals; -1 on failure
 * or if one of them is missing.
 */
static int read_vcpu_stats(int vcpu, const char *const *names, uint64_t *vals,
			   int n)
{
	struct kvm_stats_header hdr;
	struct kvm_stats_desc *desc;
	size_t desc_size;
	uint32_t i;
	int fd, j, found = 0, ret = -1;
	char *descs;

	fd = ioctl(vcpu, KVM_GET_STATS_FD, NULL);
	if (fd < 0)
		return -1;
	if (pread(fd, &hdr, sizeof(hdr), 0) != sizeof(hdr))
		goto out;
	desc_size = sizeof(*desc) + hdr.name_size;
	descs = calloc(hdr.num_desc, desc_size);
	if (!descs)
		goto out;
	if (pread(fd, descs, hdr.num_desc * desc_size, hdr.desc_offset) !=
	    (ssize_t)(hdr.num_desc * desc_size))
		goto out_free;
	for (i = 0; i < hdr.num_desc; i++) {
		desc = (struct kvm_stats_desc *)(descs + i * desc_size);
		for (j = 0; j < n; j++) {
			if (strcmp(desc->name, names[j]))
				continue;
			if (pread(fd, &vals[j], sizeof(vals[j]),
				  hdr.data_offset + desc->offset) != sizeof(vals[j]))
				goto out_free;
			found++;
		}
	}
	if (found == n)
		ret = 0;
out_free:
	free(descs);
out:
	close(fd);
	return ret;
}

/* The vCPU's "exits" counter; -1 on failure. */
static int read_vcpu_exits(int vcpu, uint64_t *exits)
{
	static const char *const name[] = { "exits" };

	return read_vcpu_stats(vcpu, name, exits, 1);
}

/*
 * How the vCPU's HLTs went: halts the kernel handled, those woken while
 * it polled (never scheduled out), polls tried, and wake-ups of a vCPU
 * that had blocked (or was about to).
 */
enum { HALT_EXITS, HALT_POLLED, HALT_POLLS, HALT_WAKEUPS, HALT_NR };

static int read_vcpu_halts(int vcpu, uint64_t *halts)
{
	static const char *const names[HALT_NR] = {
		[HALT_EXITS] = "halt_exits",
		[HALT_POLLED] = "halt_successful_poll",
		[HALT_POLLS] = "halt_attempted_poll",
		[HALT_WAKEUPS] = "halt_wakeup",
	};

	return read_vcpu_stats(vcpu, names, halts, HALT_NR);
}

/*
 * The hlt-timer loop: a local APIC in the kernel takes the HLTs and runs
 * the timer, and the guest may use x2APIC, which KVM allows only when its
 * CPUID says so. Before the vCPU exists.
 */
static int add_irqchip(int vm, const struct exit_opts *opts)
{
	if (opts->loop != LOOP_HLT_TIMER)
		return 0;
	return ioctl(vm, KVM_CREATE_IRQCHIP, 0);
}

/* Once the vCPU exists: all that KVM supports, x2APIC included. */
static int set_cpuid(int kvm, int vcpu, const struct exit_opts *opts)
{
	struct kvm_cpuid2 *cpuid;
	int nent = 128, ret;

	if (opts->loop != LOOP_HLT_TIMER)
		return 0;
	for (;;) {
		cpuid = calloc(1, sizeof(*cpuid) +
			       nent * sizeof(cpuid->entries[0]));
		if (!cpuid)
			return -1;
		cpuid->nent = nent;
		ret = ioctl(kvm, KVM_GET_SUPPORTED_CPUID, cpuid);
		if (!ret || errno != E2BIG || nent >= 4096)
			break;
		free(cpuid);
		nent *= 2;
	}
	if (!ret)
		ret = ioctl(vcpu, KVM_SET_CPUID2, cpuid);
	free(cpuid);
	return ret;
}

/*
 * In-kernel loops: an ioeventfd claims the port or MMIO address. The MMIO
 * one takes writes of any length, as VMMs register virtio notifications:
 * on VMX those take the fast MMIO path, with no instruction emulation.
 */
static int add_ioeventfd(int vm, const struct exit_opts *opts, int *efd)
{
	struct kvm_ioeventfd ioev;

	*efd = -1;
	if (opts->loop != LOOP_IO_KERNEL && opts->loop != LOOP_MMIO)
		return 0;
	*efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (*efd < 0)
		return -1;
	memset(&ioev, 0, sizeof(ioev));
	ioev.fd = *efd;
	if (opts->loop == LOOP_IO_KERNEL) {
		ioev.addr = opts->port;
		ioev.len = 1;
		ioev.flags = KVM_IOEVENTFD_FLAG_PIO;
	} else {
		ioev.addr = GUEST_MMIO_GPA;
	}
	return ioctl(vm, KVM_IOEVENTFD, &ioev);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * With -t, a thread sends the main thread a signal every second once a
 * run is over its time, so that KVM_RUN returns (EINTR) even when the
 * guest never exits to userspace, and the run is reported. (The test
 * kernel has no POSIX timers, so no setitimer().) A run within its time
 * gets no signal: its guest leaves KVM_RUN only as it would without -t.
 * The signal is blocked except inside KVM_RUN (KVM_SET_SIGNAL_MASK), so
 * no other system call is interrupted. The handler has nothing to do.
 */
static uint32_t tick_timeout;
static volatile double run_started;	/* 0: no run going on */

static void run_tick(int sig)
{
	(void)sig;
}

static void *ticker(void *arg)
{
	pthread_t main_thread = *(pthread_t *)arg;
	double started;

	for (;;) {
		sleep(1);
		started = run_started;
		if (started && now() - started > tick_timeout)
			pthread_kill(main_thread, SIGUSR1);
	}
	return NULL;
}

static int start_ticks(uint32_t timeout)
{
	static pthread_t main_thread;
	struct sigaction sa;
	sigset_t tick;
	pthread_t tid;
	int err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = run_tick;	/* no SA_RESTART: KVM_RUN returns */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&tick);
	sigaddset(&tick, SIGUSR1);
	if (sigaction(SIGUSR1, &sa, NULL) < 0 ||
	    sigprocmask(SIG_BLOCK, &tick, NULL) < 0)
		return kvm_fail("sigaction");
	main_thread = pthread_self();
	tick_timeout = timeout;
	err = pthread_create(&tid, NULL, ticker, &main_thread);
	if (err) {
		errno = err;
		return kvm_fail("pthread_create");
	}
	return 0;
}

/*
 * The tick that made KVM_RUN return is blocked again on the way out and
 * stays pending: take it, or every KVM_RUN would return at once.
 */
static void eat_tick(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t tick;

	sigemptyset(&tick);
	sigaddset(&tick, SIGUSR1);
	while (sigtimedwait(&tick, NULL, &zero) == SIGUSR1)
		;
}

/* Inside KVM_RUN, the mask of the main thread without the tick signal. */
static int unblock_ticks_in_run(int vcpu)
{
	struct {
		struct kvm_signal_mask head;
		uint8_t set[8];		/* the kernel's sigset_t */
	} mask;
	sigset_t set;

	if (sigprocmask(SIG_BLOCK, NULL, &set) < 0)
		return -1;
	sigdelset(&set, SIGUSR1);
	mask.head.len = sizeof(mask.set);
	memcpy(mask.set, &set, sizeof(mask.set));
	return ioctl(vcpu, KVM_SET_SIGNAL_MASK, &mask);
}

/* One VM with one vCPU, as kvm-exits sets it up. */
struct vm_ctx {
	int vm, vcpu, efd, mmap_size;
	struct kvm_run *run;
	uint8_t *mem;
	struct exit_counts counts;
	int done;		/* 1: HLT seen, -1: unexpected exit */
	uint64_t vm_exits;
	uint64_t halts[HALT_NR];
};

static int vm_create(int kvm, const struct exit_opts *opts, struct vm_ctx *v)
{
	struct kvm_userspace_memory_region region;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	int len;

	memset(v, 0, sizeof(*v));
	v->efd = -1;
	v->vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (v->vm < 0)
		return kvm_fail("KVM_CREATE_VM");

	v->mem = mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (v->mem == MAP_FAILED)
		return kvm_fail("mmap guest memory");
	len = guest_code(opts, v->mem + GUEST_CODE_GPA,
			 GUEST_MEM_SIZE - GUEST_CODE_GPA);
	if (len < 0 || (unsigned int)len > GUEST_SECRET_OFFSET) {
		fprintf(stderr, "kvm-exits: no guest code for this loop\n");
		return EXIT_USAGE;
	}
	/* Guest data in the page the guest runs from, for the tests to find. */
	memcpy(v->mem + GUEST_CODE_GPA + GUEST_SECRET_OFFSET, &opts->msr_value,
	       sizeof(opts->msr_value));

	memset(&region, 0, sizeof(region));
	region.slot = 0;
	region.guest_phys_addr = 0;
	region.memory_size = GUEST_MEM_SIZE;
	region.userspace_addr = (unsigned long)v->mem;
	if (ioctl(v->vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return kvm_fail("KVM_SET_USER_MEMORY_REGION");
	if (add_ioeventfd(v->vm, opts, &v->efd) < 0)
		return kvm_fail("KVM_IOEVENTFD");
	if (add_irqchip(v->vm, opts) < 0)
		return kvm_fail("KVM_CREATE_IRQCHIP");

	v->vcpu = ioctl(v->vm, KVM_CREATE_VCPU, 0);
	if (v->vcpu < 0)
		return kvm_fail("KVM_CREATE_VCPU");
	if (set_cpuid(kvm, v->vcpu, opts) < 0)
		return kvm_fail("KVM_SET_CPUID2");
	if (opts->timeout && unblock_ticks_in_run(v->vcpu) < 0)
		return kvm_fail("KVM_SET_SIGNAL_MASK");
	v->mmap_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (v->mmap_size < (int)sizeof(*v->run))
		return kvm_fail("KVM_GET_VCPU_MMAP_SIZE");
	v->run = mmap(NULL, v->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->vcpu, 0);
	if (v->run == MAP_FAILED)
		return kvm_fail("mmap kvm_run");

	if (ioctl(v->vcpu, KVM_GET_SREGS, &sregs) < 0)
		return kvm_fail("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(v->vcpu, KVM_SET_SREGS, &sregs) < 0)
		return kvm_fail("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_CODE_GPA;
	regs.rflags = 0x2;
	if (ioctl(v->vcpu, KVM_SET_REGS, &regs) < 0)
		return kvm_fail("KVM_SET_REGS");
	return 0;
}

/* One KVM_RUN; sets v->done when the guest halted or went wrong. */
static int vm_step(const struct exit_opts *opts, struct vm_ctx *v)
{
	if (ioctl(v->vcpu, KVM_RUN, 0) < 0) {
		if (errno == EINTR) {
			eat_tick();
			return 0;
		}
		return kvm_fail("KVM_RUN");
	}
	v->done = exit_counts_add(&v->counts, opts, v->run);
	if (v->done < 0) {
		struct kvm_regs regs;
		char what[64];

		exit_describe(v->run, what, sizeof(what));
		if (ioctl(v->vcpu, KVM_GET_REGS, &regs) < 0)
			memset(&regs, 0xff, sizeof(regs));
		fprintf(stderr, "kvm-exits: unexpected exit reason %u (%s) at rip"
			" 0x%llx rcx 0x%llx rsi 0x%llx\n", v->run->exit_reason,
			what, regs.rip, regs.rcx, regs.rsi);
	}
	return 0;
}

static void vm_destroy(struct vm_ctx *v)
{
	if (v->efd >= 0)
		close(v->efd);
	if (v->run && v->run != MAP_FAILED)
		munmap(v->run, v->mmap_size);
	if (v->vcpu > 0)
		close(v->vcpu);
	if (v->vm > 0)
		close(v->vm);
	if (v->mem && v->mem != MAP_FAILED)
		munmap(v->mem, GUEST_MEM_SIZE);
}

static uint32_t apic_reg(const struct kvm_lapic_state *lapic, unsigned int off)
{
	uint32_t v;

	memcpy(&v, &lapic->regs[off], sizeof(v));
	return v;
}

/* The timer vector's bit in the 256-bit register at @off (ISR, IRR). */
static int apic_vector_bit(const struct kvm_lapic_state *lapic, unsigned int off)
{
	unsigned int vec = GUEST_TIMER_VECTOR;

	return (apic_reg(lapic, off + (vec / 32) * 0x10) >> (vec % 32)) & 1;
}

/*
 * Where the hlt-timer loop's guest waits: its local APIC's timer and
 * the timer vector in service or pending, its halt figures, and how many
 * KVM APIC timers the host's hrtimer queues hold. KVM_RUN has returned,
 * but the timer goes on in the kernel.
 */
static void report_stuck_timer(struct vm_ctx *v)
{
	struct kvm_lapic_state lapic;
	struct kvm_mp_state mp;
	char line[256];
	int queued = 0;
	FILE *f;

	if (ioctl(v->vcpu, KVM_GET_LAPIC, &lapic) == 0)
		fprintf(stderr, "kvm-exits: local APIC: LVTT 0x%x TMICT %u TMCCT %u"
			" TDCR 0x%x, timer vector in service %d, pending %d\n",
			apic_reg(&lapic, 0x320), apic_reg(&lapic, 0x380),
			apic_reg(&lapic, 0x390), apic_reg(&lapic, 0x3e0),
			apic_vector_bit(&lapic, 0x100),
			apic_vector_bit(&lapic, 0x200));
	if (ioctl(v->vcpu, KVM_GET_MP_STATE, &mp) == 0)
		fprintf(stderr, "kvm-exits: mp_state %u\n", mp.mp_state);
	if (read_vcpu_halts(v->vcpu, v->halts) == 0)
		fprintf(stderr, "kvm-exits: %" PRIu64 " HLTs, %" PRIu64
			" woken while polling, %" PRIu64 " after blocking\n",
			v->halts[HALT_EXITS], v->halts[HALT_POLLED],
			v->halts[HALT_WAKEUPS]);
	f = fopen("/proc/timer_list", "r");
	while (f && fgets(line, sizeof(line), f))
		queued += strstr(line, "apic_timer_fn") != NULL;
	if (f) {
		fclose(f);
		fprintf(stderr, "kvm-exits: KVM APIC timers queued: %d\n", queued);
	}
}

/* Why a run did not end: where each unfinished guest is, and what it did. */
static void report_stuck(const struct exit_opts *opts, struct vm_ctx *vms,
			 double seconds)
{
	struct kvm_regs regs;
	uint32_t i;

	fprintf(stderr, "kvm-exits: the %s loop did not halt in %.0f s\n",
		exit_loop_name(opts->loop), seconds);
	for (i = 0; i < opts->vms; i++) {
		if (vms[i].done)
			continue;
		if (read_vcpu_exits(vms[i].vcpu, &vms[i].vm_exits) < 0)
			vms[i].vm_exits = 0;
		if (ioctl(vms[i].vcpu, KVM_GET_REGS, &regs) < 0)
			memset(&regs, 0xff, sizeof(regs));
		fprintf(stderr, "kvm-exits: VM %" PRIu32 ": %" PRIu64
			" VM exits (the loop makes %" PRIu64 "), userspace saw %"
			PRIu64 " I/O, %" PRIu64 " MMIO; rip 0x%llx rcx 0x%llx"
			" rsi 0x%llx\n", i, vms[i].vm_exits,
			exit_loop_min_vm_exits(opts), vms[i].counts.io,
			vms[i].counts.mmio, regs.rip, regs.rcx, regs.rsi);
		if (opts->loop == LOOP_HLT_TIMER)
			report_stuck_timer(&vms[i]);
	}
}

/*
 * Keep the VMs, and what the kernel holds for them, for opts->hold
 * seconds: long enough for a test to look at their restricted spaces.
 */
static void hold_vms(const struct exit_opts *opts, struct vm_ctx *vms)
{
	struct timespec left = { .tv_sec = opts->hold };
	uint32_t i;

	if (!opts->hold)
		return;
	/*
	 * The pages go back to the kernel, fresh ones take their place (no
	 * madvise() in small kernels); the VMs stay. VMs 1, 3, ... lose their
	 * memory slot first, the others keep it: both ways must unmap.
	 */
	for (i = 0; opts->drop && i < opts->vms; i++) {
		struct kvm_userspace_memory_region region = { .slot = 0 };

		if (i % 2 && ioctl(vms[i].vm, KVM_SET_USER_MEMORY_REGION, &region))
			perror("kvm-exits: deleting the memory slot");
		if (mmap(vms[i].mem, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			perror("kvm-exits: replacing guest memory");
	}
	printf("kvm-exits: holding %" PRIu32 " VM%s for %" PRIu32 " s, pid %d\n",
	       opts->vms, opts->vms == 1 ? "" : "s", opts->hold, (int)getpid());
	fflush(stdout);
	while (nanosleep(&left, &left) && errno == EINTR)
		;
}

/*
 * Create opts->vms VMs in this process, run them in turn, one KVM_RUN
 * each, until all halted, and destroy them. counts and vm_exits are the
 * sums over the VMs.
 */
static int run_vms(const struct exit_opts *opts, struct exit_counts *counts,
		   double *seconds, uint64_t *vm_exits, uint64_t *halts)
{
	struct vm_ctx vms[EXIT_MAX_VMS];
	int kvm, ret = 0, running, j;
	uint32_t i;
	double start;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		return kvm_fail("open /dev/kvm");
	if (ioctl(kvm, KVM_GET_API_VERSION, 0) != KVM_API_VERSION) {
		fprintf(stderr, "kvm-exits: unexpected KVM API version\n");
		close(kvm);
		return EXIT_KVM;
	}
	memset(vms, 0, sizeof(vms));
	for (i = 0; i < opts->vms && !ret; i++) {
		/* A value of its own per VM, to tell where each one ends up. */
		struct exit_opts vm_opts = *opts;

		vm_opts.msr_value += i;
		ret = vm_create(kvm, &vm_opts, &vms[i]);
	}

	start = now();
	run_started = start;
	do {
		running = 0;
		for (i = 0; i < opts->vms && !ret; i++) {
			if (vms[i].done)
				continue;
			ret = vm_step(opts, &vms[i]);
			running |= !vms[i].done;
		}
		if (running && !ret && opts->timeout &&
		    now() - start > opts->timeout) {
			report_stuck(opts, vms, now() - start);
			ret = EXIT_WRONG;
		}
	} while (running && !ret);
	run_started = 0;
	*seconds = now() - start;

	memset(counts, 0, sizeof(*counts));
	*vm_exits = 0;
	for (i = 0; i < opts->vms && !ret; i++) {
		if (vms[i].done < 0)
			ret = EXIT_WRONG;
		else if (read_vcpu_exits(vms[i].vcpu, &vms[i].vm_exits) < 0 ||
			 read_vcpu_halts(vms[i].vcpu, vms[i].halts) < 0)
			ret = kvm_fail("KVM_GET_STATS_FD");
		exit_counts_sum(counts, &vms[i].counts);
		*vm_exits += vms[i].vm_exits;
		for (j = 0; j < HALT_NR; j++)
			halts[j] += vms[i].halts[j];
	}
	if (!ret)
		hold_vms(opts, vms);
	for (i = 0; i < opts->vms; i++)
		vm_destroy(&vms[i]);
	close(kvm);
	return ret;
}

int main(int argc, char **argv)
{
	uint64_t asi_enters0, asi_exits0, asi_enters1, asi_exits1;
	uint64_t vm_exits = 0, vm_exits_all = 0, halts[HALT_NR] = { 0 };
	struct exit_counts counts;
	struct exit_opts opts;
	double seconds = 0, seconds_all = 0;
	int ret, asi;
	uint32_t i;

	ret = exit_opts_parse(&opts, argc, argv, stdout, stderr);
	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;

	if (opts.timeout && start_ticks(opts.timeout))
		return EXIT_KVM;
	asi = read_asi_stats(&asi_enters0, &asi_exits0) == 0;
	for (i = 0; i < opts.runs; i++) {
		ret = run_vms(&opts, &counts, &seconds, &vm_exits, halts);
		if (ret == EXIT_KVM || ret == EXIT_USAGE)
			return ret;
		if (ret || exit_counts_check(&counts, &opts, stderr)) {
			exit_counts_print(&counts, &opts, seconds, stdout);
			fprintf(stderr, "kvm-exits: run %" PRIu32 " of %" PRIu32
				" went wrong\n", i + 1, opts.runs);
			return EXIT_WRONG;
		}
		/* The kernel saw the loop's exits, handled or not. */
		if (vm_exits < exit_loop_min_vm_exits(&opts) * opts.vms) {
			fprintf(stderr, "kvm-exits: the kernel counted %" PRIu64
				" VM exits, expected at least %" PRIu64 "\n",
				vm_exits, exit_loop_min_vm_exits(&opts) * opts.vms);
			return EXIT_WRONG;
		}
		vm_exits_all += vm_exits;
		seconds_all += seconds;
	}
	exit_counts_print(&counts, &opts, seconds, stdout);
	printf("kvm-exits: runs=%" PRIu32 " vms=%" PRIu32 " vm_exits=%" PRIu64
	       " vm_exits_per_sec=%.0f halt_exits=%" PRIu64 " halt_polled=%"
	       PRIu64 " halt_polls=%" PRIu64 " halt_wakeups=%" PRIu64,
	       opts.runs, opts.vms, vm_exits_all,
	       seconds_all > 0 ? vm_exits_all / seconds_all : 0.0,
	       halts[HALT_EXITS], halts[HALT_POLLED], halts[HALT_POLLS],
	       halts[HALT_WAKEUPS]);
	if (asi && read_asi_stats(&asi_enters1, &asi_exits1) == 0)
		printf(" asi_enters=%" PRIu64 " asi_exits=%" PRIu64
		       " asi_exits_per_1000=%.1f",
		       asi_enters1 - asi_enters0, asi_exits1 - asi_exits0,
		       vm_exits_all ? 1000.0 * (asi_exits1 - asi_exits0) /
				      vm_exits_all : 0.0);
	printf("\n");
	return 0;
}
