// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exits: create a VM with one vCPU, run a small real-mode guest that
 * causes a known number of VM exits, and check that userspace saw exactly
 * those. Used by the system tests to drive KVM inside the test VM.
 *
 * Exit codes: 0 counts as expected, 1 counts wrong, 2 bad usage,
 * 3 KVM not usable (no /dev/kvm, ioctl failure).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_vm(const struct exit_opts *opts, struct exit_counts *counts,
		  double *seconds)
{
	struct kvm_userspace_memory_region region;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int kvm, vm, vcpu, len, ret, mmap_size;
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

	munmap(run, mmap_size);
	close(vcpu);
	close(vm);
	munmap(mem, GUEST_MEM_SIZE);
	close(kvm);
	return ret < 0 ? EXIT_WRONG : 0;
}

int main(int argc, char **argv)
{
	struct exit_counts counts = { 0 };
	struct exit_opts opts;
	double seconds = 0;
	int ret;

	ret = exit_opts_parse(&opts, argc, argv, stdout, stderr);
	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;

	ret = run_vm(&opts, &counts, &seconds);
	if (ret == EXIT_KVM || ret == EXIT_USAGE)
		return ret;
	exit_counts_print(&counts, &opts, seconds, stdout);
	if (ret || exit_counts_check(&counts, &opts, stderr))
		return EXIT_WRONG;
	return 0;
}
