#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run by vm/init (asitest.mode=batch) in the Bochs stage: the kernel's
# nested VMX selftests, booted once with asi=on and once with asi=off
# (scripts/bochs-stage.py compares the two). Prints one "kvm-selftest:"
# line per test, then the kvm class's counters when ASI is on. Exits with
# the status of kvm-selftests.
# VMX_SELFTESTS (from the kernel command line) replaces the list: names
# separated by commas.
names=$(echo "${VMX_SELFTESTS:-vmx_close_while_nested_test,vmx_set_nested_state_test,vmx_msrs_test}" | tr , ' ')
kvm-selftests 120 $names >/tmp/vmx-selftests.out 2>&1
rc=$?
sed 's/^/vmx-selftests: /' /tmp/vmx-selftests.out
grep -q 'asi=on' /proc/cmdline &&
	sed 's/^/vmx-selftests: stats: /' /sys/kernel/debug/asi/stats
exit $rc
