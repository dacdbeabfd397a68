#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run by vm/init (asitest.mode=batch) in the Bochs stage: KVM on VMX with
# EPT, VPID and PCID, in the kvm ASI class. Prints what the host checks
# (scripts/bochs-stage.py): the CPU's features, the ASI boot line, one
# "kvm-exits:" result line and exit status per loop, the class's counters
# and the exit profile. Exits non-zero if a loop failed.
rc=0
flags=$(grep -m1 '^flags' /proc/cpuinfo)
for f in vmx ept vpid pcid invpcid; do
	case " $flags " in
	*" $f "*) echo "vmx-checks: cpu $f yes" ;;
	*) echo "vmx-checks: cpu $f no" ;;
	esac
done
dmesg | grep -E 'asi: (restricted address spaces ready|enabled)' | sed 's/^/vmx-checks: /'
for spec in io-kernel:3000 cpuid:3000 mmio:3000 io:300 hlt:1; do
	loop=${spec%%:*} n=${spec#*:}
	out=$(kvm-exits -l "$loop" -n "$n" 2>&1)
	st=$?
	echo "$out" | sed "s/^/vmx-checks: $loop: /"
	echo "vmx-checks: $loop: status $st"
	[ $st -eq 0 ] || rc=1
done
sed 's/^/vmx-checks: stats: /' /sys/kernel/debug/asi/stats
asictl exits --top 5 | sed 's/^/vmx-checks: profile: /'
exit $rc
