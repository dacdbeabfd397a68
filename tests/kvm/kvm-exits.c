// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exits: create a VM with one vCPU, run a small real-mode guest that
 * causes a known number of VM exits, and check that userspace saw exactly
 * those. Used by the system tests to drive KVM inside the test VM.
 *
 * It also prints the VM exits the kernel counted for the vCPU (its binary
 * stats, "exits") and, when /sys/kernel/debug/asi/stats exists, the ASI
 * exits of the kvm class meanwhile (other VMs running at the same time
 * count too).
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

/* The vCPU's "exits" counter from its binary stats; -1 on failure. */
static int read_vcpu_exits(int vcpu, uint64_t *exits)
{
	struct kvm_stats_header hdr;
	struct kvm_stats_desc *desc;
	size_t desc_size;
	uint32_t i;
	int fd, ret = -1;
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
		if (strcmp(desc->name, "exits"))
			continue;
		if (pread(fd, exits, sizeof(*exits),
			  hdr.data_offset + desc->offset) == sizeof(*exits))
			ret = 0;
		break;
	}
out_free:
	free(descs);
out:
	close(fd);
	return ret;
}

/* In-kernel loops: an ioeventfd claims the port or MMIO address. */
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
	ioev.len = 1;
	if (opts->loop == LOOP_IO_KERNEL) {
		ioev.addr = opts->port;
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

static int run_vm(const struct exit_opts *opts, struct exit_counts *counts,
		  double *seconds, uint64_t *vm_exits)
{
	struct kvm_userspace_memory_region region;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int kvm, vm, vcpu, len, ret, mmap_size, efd;
	uint8_t *mem;
	double start;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		return kvm_fail("open /dev/kvm");
	if (ioctl(kvm, KVM_GET_API_VERSION, 0) != KVM_API_VERSION) {
		fprintf(stderr, "kvm-exits: unexpected KVM API version\n");
		return EXIT_KVM;
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		return kvm_fail("KVM_CREATE_VM");

	mem = mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		return kvm_fail("mmap guest memory");
	len = guest_code(opts, mem + GUEST_CODE_GPA, GUEST_MEM_SIZE - GUEST_CODE_GPA);
	if (len < 0) {
		fprintf(stderr, "kvm-exits: no guest code for this loop\n");
		return EXIT_USAGE;
	}

	memset(&region, 0, sizeof(region));
	region.slot = 0;
	region.guest_phys_addr = 0;
	region.memory_size = GUEST_MEM_SIZE;
	region.userspace_addr = (unsigned long)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return kvm_fail("KVM_SET_USER_MEMORY_REGION");
	if (add_ioeventfd(vm, opts, &efd) < 0)
		return kvm_fail("KVM_IOEVENTFD");

	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		return kvm_fail("KVM_CREATE_VCPU");
	mmap_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (mmap_size < (int)sizeof(*run))
		return kvm_fail("KVM_GET_VCPU_MMAP_SIZE");
	run = mmap(NULL, mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		return kvm_fail("mmap kvm_run");

	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		return kvm_fail("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0)
		return kvm_fail("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_CODE_GPA;
	regs.rflags = 0x2;
	if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		return kvm_fail("KVM_SET_REGS");

	start = now();
	do {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR)
				continue;
			return kvm_fail("KVM_RUN");
		}
		ret = exit_counts_add(counts, opts, run);
	} while (ret == 0);
	*seconds = now() - start;

	if (ret < 0)
		fprintf(stderr, "kvm-exits: unexpected exit reason %u\n",
			run->exit_reason);
	if (read_vcpu_exits(vcpu, vm_exits) < 0)
		return kvm_fail("KVM_GET_STATS_FD");

	if (efd >= 0)
		close(efd);
	munmap(run, mmap_size);
	close(vcpu);
	close(vm);
	munmap(mem, GUEST_MEM_SIZE);
	close(kvm);
	return ret < 0 ? EXIT_WRONG : 0;
}

int main(int argc, char **argv)
{
	uint64_t asi_enters0, asi_exits0, asi_enters1, asi_exits1;
	uint64_t vm_exits = 0, vm_exits_all = 0;
	struct exit_counts counts;
	struct exit_opts opts;
	double seconds = 0, seconds_all = 0;
	int ret, asi;
	uint32_t i;

	ret = exit_opts_parse(&opts, argc, argv, stdout, stderr);
	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;

	asi = read_asi_stats(&asi_enters0, &asi_exits0) == 0;
	for (i = 0; i < opts.runs; i++) {
		memset(&counts, 0, sizeof(counts));
		ret = run_vm(&opts, &counts, &seconds, &vm_exits);
		if (ret == EXIT_KVM || ret == EXIT_USAGE)
			return ret;
		if (ret || exit_counts_check(&counts, &opts, stderr)) {
			exit_counts_print(&counts, &opts, seconds, stdout);
			fprintf(stderr, "kvm-exits: run %" PRIu32 " of %" PRIu32
				" went wrong\n", i + 1, opts.runs);
			return EXIT_WRONG;
		}
		/* The kernel saw the loop's exits, handled or not. */
		if (vm_exits < exit_loop_min_vm_exits(&opts)) {
			fprintf(stderr, "kvm-exits: the kernel counted %" PRIu64
				" VM exits, expected at least %" PRIu64 "\n",
				vm_exits, exit_loop_min_vm_exits(&opts));
			return EXIT_WRONG;
		}
		vm_exits_all += vm_exits;
		seconds_all += seconds;
	}
	exit_counts_print(&counts, &opts, seconds, stdout);
	printf("kvm-exits: runs=%" PRIu32 " vm_exits=%" PRIu64
	       " vm_exits_per_sec=%.0f", opts.runs, vm_exits_all,
	       seconds_all > 0 ? vm_exits_all / seconds_all : 0.0);
	if (asi && read_asi_stats(&asi_enters1, &asi_exits1) == 0)
		printf(" asi_enters=%" PRIu64 " asi_exits=%" PRIu64
		       " asi_exits_per_1000=%.1f",
		       asi_enters1 - asi_enters0, asi_exits1 - asi_exits0,
		       vm_exits_all ? 1000.0 * (asi_exits1 - asi_exits0) /
				      vm_exits_all : 0.0);
	printf("\n");
	return 0;
}
