#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run by vm/init (asitest.mode=batch) in the Bochs stage with 4 CPUs (two
# cores of two SMT threads): a port I/O loop on each thread of CPU 0's
# core, at once, so that one CPU's ASI exits stun a sibling that runs a
# guest. Each exit to userspace leaves the space with its vCPU loaded
# (KVM copies the data to the run page), so every exit stuns, whatever the
# host's timer does.
# Prints the siblings, each loop's "kvm-exits:" line and status, and the
# kvm class's counters; scripts/bochs-stage.py checks them.
rc=0
pair=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)
echo "smt-checks: online $(cat /sys/devices/system/cpu/online) siblings $pair"
a=${pair%%[,-]*} b=${pair##*[,-]}
echo "smt-checks: stun $(cat /sys/module/kvm/parameters/asi_stun)"
asictl stats kvm --reset >/dev/null || rc=1
taskset -c "$a" kvm-exits -l io -n "${SMT_EXITS:-2000}" >/tmp/smt-a 2>&1 &
taskset -c "$b" kvm-exits -l io -n "${SMT_EXITS:-2000}" >/tmp/smt-b 2>&1
st_b=$?
wait $!
st_a=$?
sed "s/^/smt-checks: cpu$a: /" /tmp/smt-a
sed "s/^/smt-checks: cpu$b: /" /tmp/smt-b
echo "smt-checks: status $st_a $st_b"
[ $st_a -eq 0 ] && [ $st_b -eq 0 ] || rc=1
sed "s/^/smt-checks: stats: /" /sys/kernel/debug/asi/stats
asictl stats kvm --per-cpu | sed "s/^/smt-checks: per-cpu: /"
asictl exits --top 10 --class kvm | sed "s/^/smt-checks: profile: /"
exit $rc
