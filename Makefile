# SPDX-License-Identifier: GPL-2.0
#
# Address Space Isolation for Linux 6.12: build, boot and test.
#
#   make run       build everything and boot the ASI kernel to a shell
#   make test      build everything and run every test
#   make help      list all targets
#
# Everything is built below build/ (ignored by git): the kernel tree in
# build/linux (a git repo: pristine Debian source + our series), kernel
# objects in build/obj, userspace in build/user, logs in build/logs.

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build
TREE := $(BUILD)/linux
KOBJ := $(BUILD)/obj
KOBJ_PERF := $(BUILD)/obj-perf
UBUILD := $(BUILD)/user
LOGS := $(BUILD)/logs
RESULTS := $(BUILD)/results
BZIMAGE := $(KOBJ)/arch/x86/boot/bzImage
INITRD := $(BUILD)/initramfs.cpio.gz
# Debian's python3 carries the apt-installed pytest and pexpect.
PYTHON := /usr/bin/python3
JOBS ?= $(shell nproc)

# Extra kernel arguments for "make run"; asi=on unless overridden.
CMDLINE ?= asi=on

# Paths relative to the checkout, so that ccache hits from any clone.
export CCACHE_BASEDIR := $(TOP)
export CCACHE_NOHASHDIR := 1

# rustc links host programs with -Clinker=$(HOSTCC), one word: ccache's
# masquerading gcc, not "ccache gcc".
HOSTCC_CCACHE := /usr/lib/ccache/gcc
# In-kernel Rust: Debian 12's rustc-web and Debian 13's bindgen.
RUST_DIR := $(BUILD)/rust
KRUST := $(shell scripts/rust-toolchain.sh vars $(RUST_DIR))
KMAKE := $(MAKE) -C $(TREE) O=$(KOBJ) ARCH=x86_64 CC="ccache gcc" \
	 HOSTCC=$(HOSTCC_CCACHE) LOCALVERSION= $(KRUST) -j$(JOBS)
CONFIG_FRAGMENTS := $(sort $(wildcard $(TOP)/kernel/config/*.config))

GUEST_PROGS := $(UBUILD)/kvm-exits tests/kvm/kvm-selftests
# Nested VMX, which the Bochs stage runs (they skip on SVM): those that end
# within a minute under Bochs; the others run L2 there for many minutes.
KVM_SELFTESTS_VMX := vmx_close_while_nested_test vmx_set_nested_state_test \
	vmx_msrs_test
# The kernel's own KVM selftests run in the guest with asi=on and asi=off:
# those that pass under TCG's SVM (see tests/README.md for the others).
KVM_SELFTESTS := cpuid_test cr4_cpuid_sync_test exit_on_emulation_failure_test \
	fix_hypercall_test get_msr_index_features hwcr_msr_test kvm_pv_test \
	platform_info_test recalc_apic_map_test set_boot_cpu_id set_sregs_test \
	smm_test svm_int_ctl_test svm_nested_shutdown_test \
	svm_vmcall_test sync_regs_test triple_fault_event_test tsc_msrs_test \
	userspace_io_test userspace_msr_exit_test $(KVM_SELFTESTS_VMX)
KVM_SELFTESTS_GENERIC := guest_print_test kvm_binary_stats_test
KSFT_OUT := $(UBUILD)/kvm-selftests
# What the initramfs gets: /usr/lib/kvm-selftests/
KSFT_RUN := $(UBUILD)/ksft-run/kvm-selftests
# Debian programs copied into the initramfs with their libraries.
GUEST_EXTRA := /usr/bin/stress-ng
ASICTL := $(if $(wildcard asictl/Makefile),$(UBUILD)/asictl)
# Python 3 and the tree's YNL library for the guest, with these specs.
PYROOT := $(UBUILD)/pyroot
GUEST_SPECS := $(wildcard uapi/*.yaml)
# The system tests' programs for the guest's Python: /usr/lib/asitest/
GUEST_SCRIPTS := $(sort $(wildcard tests/system/guest-bin/*.py)) \
		 $(sort $(wildcard tests/bochs/*.sh))

.PHONY: all help deps kernel-tree kernel kernel-config kernel-export \
	kernel-reset kernel-status series-check ynl-gen ynl-check guest-progs \
	rust-toolchain \
	asictl initramfs \
	kernel-perf measure kvm-selftests pyroot \
	run test test-unit test-model test-kunit test-system test-bochs fuzz soak clean distclean

all: kernel initramfs

help:
	@echo "Setup and run:"
	@echo "  deps           install the Debian packages everything needs (apt)"
	@echo "  run            build all, boot the ASI kernel to a shell (CMDLINE='$(CMDLINE)')"
	@echo "Build:"
	@echo "  kernel-tree    extract linux-source-6.12 to build/linux and apply kernel/patches"
	@echo "  rust-toolchain fetch Debian 13's bindgen to build/rust (Rust in the kernel)"
	@echo "  kernel         configure and build build/obj/arch/x86/boot/bzImage"
	@echo "  asictl         build the asictl CLI"
	@echo "  pyroot         Python 3 and YNL (ynl CLI, netlink specs) for the guest"
	@echo "  initramfs      build build/initramfs.cpio.gz with busybox and our programs"
	@echo "  kvm-selftests  build the kernel's KVM selftests that the guest runs (static)"
	@echo "  kernel-perf    the measurement kernel (no lockdep/DEBUG_VM) in build/obj-perf"
	@echo "Tests:"
	@echo "  test           all of: ynl-check test-unit test-model test-kunit test-system test-bochs"
	@echo "  test-unit      cmocka tests of our userspace C code"
	@echo "  test-model     spin's exhaustive search of the ASI protocol models, and their mutants"
	@echo "  test-kunit     boot once per asi=on/off with our KUnit suites (and the C marks in the measurement kernel), parse KTAP"
	@echo "  test-system    pytest suite driving the guest over its serial console"
	@echo "  test-bochs     VMX, EPT, VPID and PCID under Bochs: ASI KUnit suites and the KVM exit loops"
	@echo "  fuzz           libFuzzer on asictl's parsers, FUZZ_SECONDS (30) per target"
	@echo "  soak           the soak test for SOAK_SECONDS (600)"
	@echo "  measure        VM exits/s asi=on vs asi=off and ASI exits per 1000 VM exits"
	@echo "Kernel patch workflow (see kernel/README.md):"
	@echo "  kernel-export  regenerate kernel/patches from the commits in build/linux"
	@echo "  kernel-reset   drop local work in build/linux, re-apply kernel/patches"
	@echo "  kernel-status  what build/linux holds"
	@echo "  series-check   checkpatch --strict every patch, build every commit, and the"
	@echo "                 last one with ASI=n and KVM=m (slow; SERIES_BUILD=0: checkpatch only)"
	@echo "Netlink ABI (see uapi/README.md):"
	@echo "  ynl-gen        regenerate uapi/linux/asi.h and uapi/kernel/* from uapi/asi.yaml"
	@echo "  ynl-check      fail if uapi/ or the tree's copies differ from what uapi/asi.yaml generates"
	@echo "Cleaning:"
	@echo "  clean          remove build outputs, keep the kernel tree and ccache"
	@echo "  distclean      remove build/ entirely"

deps:
	@scripts/deps.sh

kernel-tree: deps
	@scripts/kernel-tree.sh sync

rust-toolchain: deps
	@scripts/rust-toolchain.sh $(RUST_DIR)

kernel-config: kernel-tree rust-toolchain
	@scripts/kernel-config.sh $(TREE) $(KOBJ) $(CONFIG_FRAGMENTS)

kernel: kernel-config
	+$(KMAKE) bzImage
	@echo "kernel: $(BZIMAGE) ($$(cat $(KOBJ)/include/config/kernel.release))"

# The measurement kernel: same tree, debugging off, its own object directory.
kernel-perf: kernel-tree rust-toolchain
	@scripts/kernel-config.sh $(TREE) $(KOBJ_PERF) $(CONFIG_FRAGMENTS) \
		$(TOP)/kernel/config/perf.frag
	+$(MAKE) -C $(TREE) O=$(KOBJ_PERF) ARCH=x86_64 CC="ccache gcc" \
		HOSTCC=$(HOSTCC_CCACHE) LOCALVERSION= $(KRUST) -j$(JOBS) bzImage

# VM-exit rates and ASI exits per 1000 VM exits, asi=on vs asi=off.
measure: kernel-perf initramfs
	$(PYTHON) scripts/measure.py $(KOBJ_PERF)/arch/x86/boot/bzImage

kernel-export:
	@scripts/kernel-tree.sh export

kernel-reset:
	@scripts/kernel-tree.sh reset

kernel-status:
	@scripts/kernel-tree.sh status

series-check: kernel-tree
	@scripts/series-check.sh $(TREE)

# The netlink ABI: uapi/asi.yaml through the tree's ynl-gen-c.py.
ynl-gen:
	@TREE=$(TREE) scripts/ynl-gen.sh

ynl-check: kernel-tree
	@TREE=$(TREE) scripts/ynl-gen.sh --check

$(UBUILD)/kvm-exits: tests/kvm/kvm-exits.c tests/kvm/exitloop.c tests/kvm/exitloop.h
	@mkdir -p $(UBUILD)
	$(MAKE) -C tests/kvm O=$(UBUILD)

guest-progs: deps $(GUEST_PROGS) kvm-selftests

# Static, against the UAPI headers of our tree; rebuilt with the kernel.
kvm-selftests: kernel-config
	+$(KMAKE) headers
	@mkdir -p $(KSFT_OUT)
	+$(MAKE) -C $(TREE)/tools/testing/selftests/kvm OUTPUT=$(KSFT_OUT) \
		KHDR_INCLUDES="-isystem $(KOBJ)/usr/include" CC="ccache gcc" \
		LDFLAGS="-static -pthread -no-pie" \
		$(addprefix $(KSFT_OUT)/x86_64/,$(KVM_SELFTESTS)) \
		$(addprefix $(KSFT_OUT)/,$(KVM_SELFTESTS_GENERIC)) >/dev/null
	@rm -rf $(KSFT_RUN) && mkdir -p $(KSFT_RUN)
	@cp $(addprefix $(KSFT_OUT)/x86_64/,$(KVM_SELFTESTS)) \
		$(addprefix $(KSFT_OUT)/,$(KVM_SELFTESTS_GENERIC)) $(KSFT_RUN)/

asictl: deps
	$(if $(ASICTL),$(MAKE) -C asictl O=$(UBUILD),@echo "asictl: not in this tree yet")

fuzz: deps
	$(MAKE) -C asictl O=$(UBUILD) fuzz

pyroot: kernel-tree
	vm/mkpython.sh $(PYROOT) $(TREE) $(GUEST_SPECS)

initramfs: guest-progs asictl pyroot $(GUEST_SCRIPTS)
	@mkdir -p $(BUILD)
	vm/mkinitramfs.sh -r $(PYROOT) $(addprefix -s ,$(GUEST_SCRIPTS)) \
		$(INITRD) $(GUEST_PROGS) $(ASICTL) $(GUEST_EXTRA) $(KSFT_RUN)

run: kernel initramfs
	vm/run-qemu.sh -m shell -a "$(CMDLINE)" -l $(LOGS)/run-console.log

test: deps
	@rm -rf $(RESULTS)
	@rc=0; \
	$(MAKE) --no-print-directory ynl-check || rc=1; \
	$(MAKE) --no-print-directory test-unit || rc=1; \
	$(MAKE) --no-print-directory test-model || rc=1; \
	$(MAKE) --no-print-directory test-kunit || rc=1; \
	$(MAKE) --no-print-directory test-system || rc=1; \
	$(MAKE) --no-print-directory test-bochs || rc=1; \
	scripts/test-summary.sh $(RESULTS) || rc=1; \
	exit $$rc

test-unit: deps
	@scripts/run-unit-tests.sh $(UBUILD)/unit $(RESULTS)

test-model: deps
	@mkdir -p $(RESULTS)
	@tests/model/run-models.sh $(RESULTS)

# VMX, EPT, VPID and PCID under Bochs: KUnit and the KVM exit loops.
test-bochs: kernel kernel-perf initramfs
	@scripts/bochs-stage.py $(TREE) $(LOGS) $(RESULTS) $(KOBJ_PERF)/arch/x86/boot/bzImage

test-kunit: kernel kernel-perf initramfs
	@scripts/run-kunit.sh $(TREE) $(LOGS) $(RESULTS) $(KOBJ_PERF)/arch/x86/boot/bzImage

test-system: kernel initramfs
	@mkdir -p $(LOGS) $(RESULTS)
	cd tests/system && ASI_BUILD=$(BUILD) $(PYTHON) -m pytest -ra \
		--junitxml=$(RESULTS)/system.xml; rc=$$?; \
	$(PYTHON) $(TOP)/scripts/junit-results.py system $(RESULTS)/system.xml \
		$(RESULTS)/system.res; exit $$rc

SOAK_SECONDS ?= 600
soak: kernel initramfs
	@mkdir -p $(LOGS)
	cd tests/system && ASI_BUILD=$(BUILD) ASI_SOAK_SECONDS=$(SOAK_SECONDS) \
		$(PYTHON) -m pytest -ra -s test_asi_soak.py

clean:
	rm -rf $(KOBJ) $(UBUILD) $(LOGS) $(RESULTS) $(INITRD)

distclean:
	rm -rf $(BUILD)
