# SPDX-License-Identifier: GPL-2.0
"""KVM guests run in the "kvm" ASI restricted address space.

With asi=on the kernel registers the kvm class and every VM gets an
instance; the counters in /sys/kernel/debug/asi/stats show the vCPU
entering it and leaving it. The test runs the port-I/O exit loop of
kvm-exits, checks the VM-exit count, that every enter was matched by an
exit, that the VM's instance is gone afterwards, and reports ASI exits per
1000 VM exits with the reasons; the exit loops assert their ceilings of
ASI exits per 1000 VM exits. With asi=off no class exists and KVM works as
before.
"""

import json
import os
import re
import time

import pytest

from conftest import BUILD
from guest import Guest, GuestError
from exitloop import check_loops
from test_boot import parse_exits, parse_runs

STATS = "/sys/kernel/debug/asi/stats"


def kvm_stats(guest):
    """Counters of the kvm class, or None if it is not registered."""
    text = guest.check(f"cat {STATS}")
    m = re.search(r"^class kvm index \d+ instances (\d+)\n((?:  .*\n?)*)", text, re.M)
    if not m:
        return None
    stats = {"instances": int(m.group(1))}
    for line in m.group(2).splitlines():
        key, value = line.split()
        stats[key] = int(value)
    return stats


def exits_total(stats):
    return sum(v for k, v in stats.items() if k.startswith("exits_"))


def test_kvm_runs_restricted(guest):
    n = 2000
    if "asi=on" not in guest.cmdline.split():
        guest.check(f"test ! -e {STATS}")
        r = parse_exits(guest.check(f"kvm-exits -l io -n {n}"))
        assert int(r["io"]) == n
        return

    before = kvm_stats(guest)
    assert before is not None, "no kvm ASI class with asi=on"
    assert before["instances"] == 0

    r = parse_exits(guest.check(f"kvm-exits -l io -n {n}"))
    assert int(r["io"]) == n and int(r["exits"]) == n + 1
    after = kvm_stats(guest)

    enters = after["enters"] - before["enters"]
    exits = exits_total(after) - exits_total(before)
    # Every VM-Enter ran restricted: at least one enter per exit to userspace.
    assert enters >= n
    # Nothing is left in the space once the VM is gone.
    assert enters == exits
    assert after["instances"] == 0
    reasons = {k: after[k] - before[k] for k in after if k.startswith("exits_")}
    print(f"{guest.name}: {r['exits']} VM exits, {enters} ASI enters, "
          f"{1000 * exits / int(r['exits']):.0f} ASI exits per 1000 VM exits: {reasons}")

    # kvm.asi_ibpb=1 (conftest): an IBPB on each ASI exit, two where a
    # guest ran after an NMI had left the space; refused without IBPB.
    ibpbs = after["ibpbs"] - before["ibpbs"]
    flags = guest.check("grep -m1 '^flags' /proc/cpuinfo").split()
    if "ibpb" in flags:
        assert exits <= ibpbs <= 2 * exits, (ibpbs, exits)
    else:
        assert ibpbs == 0, ibpbs
        assert "kvm.asi_ibpb: this CPU has no IBPB, left off" in guest.check("dmesg")
    print(f"{guest.name}: {'ibpb' in flags and 'IBPB' or 'no IBPB'}: {ibpbs} IBPBs")

    # Two VMs one after the other: the class's instances come and go.
    guest.check("kvm-exits -l hlt && kvm-exits -l hlt")
    assert kvm_stats(guest)["instances"] == 0


def siblings(guest):
    """Two hyperthread siblings of CPU 0 as "a,b", or None."""
    text = guest.check("cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list")
    cpus = []
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        cpus += range(int(lo), int(hi or lo) + 1)
    return cpus[:2] if len(cpus) >= 2 else None


def exit_profile(guest):
    """ASI page-fault exits so far, summed by function (asictl's profile)."""
    prof = {}
    for e in json.loads(guest.check("asictl -j exits --top 1000")):
        fn = e.get("symbol", e["ip"]).split("+")[0]
        prof[fn] = prof.get(fn, 0) + e["count"]
    return prof




def timer_functions():
    """Where a timer interrupt leaves the space (tests/host-interrupts.txt)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "host-interrupts.txt")
    with open(path) as f:
        return {l.split()[1] for l in f
                if l.strip() and not l.startswith("#") and l.split()[0] == "timer"}


# The timer tick stays restricted, its own work included; what still
# leaves: softirq work it raises (periodic load balancing, RCU callbacks,
# expired wheel timers), run after an explicit exit, and the faults that
# tests/host-interrupts.txt lists. CONFIG_HZ of the test kernel.
TICK_FUNCTIONS = timer_functions()
HZ = 250

# ASI exits per 1000 VM exits, the tick's not counted, that a loop may
# cost in the kernel make test boots (lockdep and all). The loop's own
# set-up faults (first run of the VM, lockdep's first sight of its locks)
# and the final exit to userspace fit in it at 20000 VM exits. On SVM
# without NRIP-save and decode assists (TCG has neither) cpuid and mmio
# exits go through KVM's emulator, which reads the guest's instruction
# through the userspace mapping of guest memory: the VM's space maps the
# pages its guest faulted in, so those stay restricted too.
CEILING_PER_1000 = {"io-kernel": 1.0, "cpuid": 1.0, "mmio": 1.0}


# VM exits per second by (guest, loop), for the asi=on/asi=off ratio that
# the asi-off run prints.
EXIT_RATES = {}


@pytest.mark.parametrize("loop,n", [("io-kernel", 20000), ("cpuid", 20000),
                                    ("mmio", 20000), ("hlt", 1)])
def test_kvm_exit_loops(guest, loop, n):
    """Each exit loop gives exactly its VM exits (kvm-exits checks them
    against what userspace saw and the vCPU's own count, exit status 0),
    with asi=on every ASI enter is matched by an exit once the VM is gone,
    and the loops with a ceiling stay in the restricted space: the ASI
    exits per 1000 VM exits, ticks aside, are within it, and a failure
    names the functions that faulted."""
    asi = "asi=on" in guest.cmdline.split()
    before = exit_profile(guest) if asi else None
    stats_before = kvm_stats(guest) if asi else None
    out = guest.check(f"kvm-exits -l {loop} -n {n}", timeout=300)
    r = parse_runs(out)
    assert int(r["vm_exits"]) >= n
    EXIT_RATES[guest.name, loop] = float(r["vm_exits_per_sec"])
    if not asi:
        assert "asi_enters" not in r, r
        on = EXIT_RATES.get(("asi-on", loop))
        if on:
            print(f"{loop}: VM exits/s asi=on {on:.0f}, asi=off "
                  f"{EXIT_RATES[guest.name, loop]:.0f}, ratio "
                  f"{on / EXIT_RATES[guest.name, loop]:.2f} (asi=on with kmemleak "
                  "and kvm.asi_ibpb, under TCG: a rough figure)")
        return
    assert int(r["asi_enters"]) == int(r["asi_exits"]) > 0, r
    assert kvm_stats(guest)["instances"] == 0
    after = exit_profile(guest)
    new = {fn: c - before.get(fn, 0) for fn, c in after.items()
           if c > before.get(fn, 0)}
    ticks = sum(c for fn, c in new.items() if fn in TICK_FUNCTIONS)
    # In these loops only softirqs exit explicitly (nested VMX aside).
    softirqs = kvm_stats(guest)["exits_explicit"] - stats_before["exits_explicit"]
    others = int(r["asi_exits"]) - ticks - softirqs
    per_1000 = 1000 * others / int(r["vm_exits"])
    seconds = float(re.search(r"seconds=([0-9.]+)", out).group(1))
    print(f"{guest.name}: {loop}: {r['vm_exits']} VM exits, "
          f"{r['asi_exits_per_1000']} ASI exits per 1000, of which "
          f"{1000 * ticks / int(r['vm_exits']):.1f} timer faults and "
          f"{1000 * softirqs / int(r['vm_exits']):.1f} softirq runs; faults: {new}")
    if loop in CEILING_PER_1000:
        # Most ticks stay restricted (each left before the tick's work was
        # mapped); idle-balance kicks and softirq work follow some of them.
        assert ticks <= HZ * seconds / 4 + 10, (ticks, seconds, new)
        assert softirqs <= HZ * seconds / 2 + 10, (softirqs, seconds)
        assert per_1000 <= CEILING_PER_1000[loop], (
            f"{loop}: {per_1000:.2f} ASI exits per 1000 VM exits besides the "
            f"tick (ceiling {CEILING_PER_1000[loop]}); faults by function: "
            f"{sorted(new.items(), key=lambda kv: -kv[1])[:8]}")


HALT_POLL_NS = "/sys/module/kvm/parameters/halt_poll_ns"

# An open bug, not understood yet: in CI (twice in a row, asi=on, about
# 216 s after boot) the test VM died of a soft lockup panic on an idle CPU
# while the hlt-timer loop ran; by hand once the loop's guest stopped
# getting its timer for 120 s. Never seen in 100 loops run by hand since.
# Such a run is reported as XFAIL with the console's and kvm-exits' words
# (where the guest's APIC timer and the vCPU stood), not as a pass; any
# other failure, and every check on a run that ended, still fails.
HALT_STALL_SIGNS = ("did not halt", "softlockup: hung tasks")


def halt_run(guest, args):
    """Run the hlt-timer loop; its summary line, the kvm class's ASI exits
    by reason meanwhile, and the page faults by function."""
    asi = "asi=on" in guest.cmdline.split()
    before, prof = (kvm_stats(guest), exit_profile(guest)) if asi else ({}, {})
    try:
        out = guest.check(f"kvm-exits -l hlt-timer {args} -t 120", timeout=300)
    except (GuestError, AssertionError) as e:
        if any(sign in str(e) for sign in HALT_STALL_SIGNS):
            pytest.xfail(f"the known hlt-timer stall (README, Known problems): {e}")
        raise
    r = {k: float(v) for k, v in parse_runs(out).items()}
    if not asi:
        return r, {}, {}
    after = kvm_stats(guest)
    reasons = {k: after[k] - before[k] for k in after if k.startswith("exits_")}
    faults = {fn: c - prof.get(fn, 0) for fn, c in exit_profile(guest).items()
              if c > prof.get(fn, 0)}
    return r, reasons, faults


# ASI exits per 1000 VM exits of the hlt-timer loop when its HLTs are woken
# within the halt-poll window, the host's timer interrupts and the blocked
# HLTs aside. Without a local APIC, PIC and I/O APIC in the VM's space every
# VM exit left twice (2000). Arming the APIC timer walks the CPU's hrtimer
# queue: while other tasks' sleepers (kvm-exits' own -t thread among them)
# lay there on their stacks, up to 116 (5328 exits in timerqueue_add() of
# 47046 VM exits); with them in global non-sensitive memory (patch 120),
# lockdep's first sight of the VM's locks and a memcpy() not yet traced
# remain. The ceiling catches a path that leaves on every timer again;
# 1 per 1000 is the target (issue #20).
HALT_POLL_CEILING_PER_1000 = 30.0


def test_kvm_halt_polling(guest):
    """An idle guest's pattern: HLT until the local APIC's timer fires, with
    the local APIC in the kernel as every VMM has it. Woken within the
    halt-poll window, the vCPU is never scheduled out and stays in the
    restricted space; with polling off every HLT blocks and leaves, by
    design (a context switch). Both figures are printed, split."""
    asi = "asi=on" in guest.cmdline.split()
    n = 7000
    saved = guest.check(f"cat {HALT_POLL_NS}").strip()
    guest.check(f"echo 200000 > {HALT_POLL_NS}")
    try:
        # A 100 us period: within the 200 us window, past the VM entry.
        polled, reasons, faults = halt_run(guest, f"-n {n} -i 100000")
        guest.check(f"echo 0 > {HALT_POLL_NS}")
        blocked, b_reasons, b_faults = halt_run(guest, "-n 1000 -i 1000000")
    finally:
        if guest.running():
            guest.check(f"echo {saved} > {HALT_POLL_NS}")

    # The kernel handled every HLT, and polling woke some. Under TCG the
    # guest is slower than its timer: many HLTs find the interrupt pending
    # and do not wait, and how many of those that wait the 200 us window
    # catches swings with the host's load (measured: 18 to 5812 polled,
    # 34 to 6818 blocked). With polling off, those that wait block.
    assert polled["halt_exits"] == n, polled
    assert polled["halt_polled"] > 0, polled
    assert blocked["halt_exits"] == 1000 and blocked["halt_polled"] == 0, blocked
    assert blocked["halt_wakeups"] >= 500, blocked
    if not asi:
        assert "asi_exits" not in polled
        return

    ticks = sum(c for fn, c in faults.items() if fn in TICK_FUNCTIONS)
    others = polled["asi_exits"] - ticks - reasons["exits_explicit"]
    per_1000 = 1000 * others / polled["vm_exits"]
    print(f"{guest.name}: hlt-timer, polling: {polled['vm_exits']:.0f} VM exits, "
          f"{polled['halt_exits']:.0f} HLTs, {polled['halt_polled']:.0f} woken "
          f"while polling, {polled['halt_wakeups']:.0f} after blocking; "
          f"{polled['asi_exits']:.0f} ASI exits ({per_1000:.2f} per 1000 VM "
          f"exits besides {ticks} timer faults and {reasons['exits_explicit']} "
          f"softirq runs): {reasons}; faults: {faults}")
    print(f"{guest.name}: hlt-timer, no polling: {blocked['vm_exits']:.0f} VM "
          f"exits, {blocked['halt_wakeups']:.0f} HLTs blocked, "
          f"{blocked['asi_exits']:.0f} ASI exits, "
          f"{1000 * blocked['asi_exits'] / blocked['halt_exits']:.0f} per 1000 "
          f"HLTs: {b_reasons}; faults: {b_faults}")
    # Woken while polling: no exit of its own. Each HLT that blocked may
    # leave once (it schedules), and the polled ones not at all.
    assert per_1000 <= HALT_POLL_CEILING_PER_1000 + 1000 * polled["halt_wakeups"] / polled["vm_exits"], (
        f"hlt-timer: {per_1000:.2f} ASI exits per 1000 VM exits while "
        f"polling; faults by function: "
        f"{sorted(faults.items(), key=lambda kv: -kv[1])[:8]}")
    # Blocking leaves, by design, about once per HLT.
    assert blocked["asi_exits"] >= 0.9 * blocked["halt_wakeups"], (blocked, b_reasons)


def test_kvm_sibling_stun(guest):
    """Port I/O loops on both siblings: stuns counted with kvm.asi_stun=1 only,
    and hardly any stun gave up waiting for the sibling to leave its guest."""
    if "asi=on" not in guest.cmdline.split():
        guest.check("test ! -e /sys/module/kvm/parameters/asi_stun || "
                    "grep -q Y /sys/module/kvm/parameters/asi_stun")
        return
    pair = siblings(guest)
    assert pair, "the test VM has no SMT siblings (run-qemu.sh uses threads=2)"
    # io loops: each exit goes to userspace, so each leaves the space (CPUID
    # exits are handled restricted and hardly ever stun).
    both = (f"taskset -c {pair[0]} kvm-exits -l io -n 20000 -t 120 & "
            f"taskset -c {pair[1]} kvm-exits -l io -n 20000 -t 120; b=$?; wait %1 && [ $b = 0 ]")
    param = "/sys/module/kvm/parameters/asi_stun"
    assert guest.check(f"cat {param}").strip() == "Y"

    before = kvm_stats(guest)
    out = check_loops(guest, both, timeout=300)
    on = kvm_stats(guest)
    rates_on = [float(x) for x in re.findall(r"vm_exits_per_sec=(\d+)", out)]
    stuns = on["stuns"] - before["stuns"]
    stunned_ms = (on["stunned_ns"] - before["stunned_ns"]) / 1e6
    assert stuns > 0
    assert stunned_ms > 0
    # A stunning CPU waits for its sibling to leave the guest, here for at
    # most 20 ms (conftest.py). The host may still stall a vCPU thread
    # longer: allow 1 in 1000 (the Bochs stage, one thread, requires none).
    timeouts = on["stun_timeouts"] - before["stun_timeouts"]
    assert 1000 * timeouts <= stuns, (timeouts, stuns)

    guest.check(f"echo 0 > {param}")
    try:
        out = check_loops(guest, both, timeout=300)
        off = kvm_stats(guest)
    finally:
        guest.check(f"echo 1 > {param}")
    rates_off = [float(x) for x in re.findall(r"vm_exits_per_sec=(\d+)", out)]
    assert off["stuns"] == on["stuns"]
    assert off["stunned_ns"] == on["stunned_ns"]
    assert off["instances"] == 0
    print(f"{guest.name}: siblings {pair}: {stuns} stuns, {stunned_ms:.0f} ms "
          f"stunned, {timeouts} stun timeouts; VM exits/s with stun {rates_on}, "
          f"without {rates_off}")


KMEMLEAK = "/sys/kernel/debug/kmemleak"


def test_kvm_vm_churn(guest):
    """Create, run and destroy 1000 VMs, two at a time in one process:
    no instance left, nothing leaked."""
    leaks = "kmemleak=on" in guest.cmdline.split()
    if leaks:
        # Forget what was allocated before: only the churn's leaks count.
        guest.check(f"echo clear > {KMEMLEAK}")
    r = parse_exits(guest.check("kvm-exits -l hlt -v 2 -r 500 -t 60", timeout=600))
    assert int(r["hlt"]) == 2
    if "asi=on" in guest.cmdline.split():
        assert kvm_stats(guest)["instances"] == 0
    if leaks:
        # Objects younger than 5 s are never reported; scan twice.
        guest.check(f"sleep 6; echo scan > {KMEMLEAK}; echo scan > {KMEMLEAK}",
                    timeout=300)
        report = guest.check(f"cat {KMEMLEAK}", timeout=120)
        n = report.count("unreferenced object")
        print(f"{guest.name}: 1000 VMs created and destroyed, kmemleak: {n} "
              "unreferenced objects")
        assert n == 0, report[:4000]


def test_kvm_exits_deadline(guest):
    """kvm-exits -t fails a run whose guest never halts (here: 4e9 exits,
    all handled in the kernel, so KVM_RUN would not return), saying where
    the guest is, instead of hanging; a run that halts in time passes."""
    start = time.monotonic()
    status, out = guest.run("kvm-exits -l cpuid -n 4000000000 -t 2", timeout=120)
    took = time.monotonic() - start
    assert status == 1, out
    assert "the cpuid loop did not halt in" in out, out
    m = re.search(r"VM 0: (\d+) VM exits \(the loop makes 4000000001\).*"
                  r"rip 0x([0-9a-f]+) rcx 0x[0-9a-f]+ rsi 0x([0-9a-f]+)", out)
    assert m, out
    # The loop counts down in ESI from 4e9; RIP is inside the guest code.
    assert 0 < int(m.group(1)) and 0 < 4000000000 - int(m.group(3), 16) <= int(m.group(1)), out
    assert 0x1000 <= int(m.group(2), 16) < 0x1100, out
    assert took < 30, took
    guest.check("kvm-exits -l cpuid -n 1000 -t 60")


def test_kvm_instances(guest):
    """Each VM has a kvm restricted space of its own, also next to another
    VM of the same process: two VMs in one process, two; in two, two."""
    if "asi=on" not in guest.cmdline.split():
        return
    forever = "kvm-exits -l cpuid -n 4000000000"
    one = guest.check(f"{forever} -v 2 & a=$!; sleep 3; cat {STATS}; "
                      "kill $a; wait $a; true", timeout=120)
    two = guest.check(f"{forever} & a=$!; {forever} & b=$!; sleep 3; "
                      f"cat {STATS}; kill $a $b; wait $a $b; true", timeout=120)
    inst = re.compile(r"^class kvm index \d+ instances (\d+)", re.M)
    assert inst.search(one).group(1) == "2"
    assert inst.search(two).group(1) == "2"
    assert kvm_stats(guest)["instances"] == 0


def test_kvm_selftests(guest):
    """The kernel's own KVM selftests (the ones that pass under TCG's SVM)
    give the same results with asi=on as with asi=off: all pass.

    They run in a guest of their own, booted like the shared one, so that
    nothing they leave behind reaches the other tests."""
    own = Guest(BUILD, guest.name + "-kvm-selftests", guest.cmdline)
    own.start()
    try:
        names = own.check("ls /usr/lib/kvm-selftests").split()
        assert len(names) >= 20
        asi = "asi=on" in own.cmdline.split()
        before = kvm_stats(own) if asi else None
        status, out = own.run("kvm-selftests 300", timeout=1800)
        results = dict(re.findall(r"kvm-selftest: (\S+) (PASS|FAIL|SKIP|TIMEOUT)", out))
        print(f"{guest.name}: KVM selftests: " +
              ", ".join(f"{n} {results.get(n, '?')}" for n in names))
        assert sorted(results) == sorted(names), out
        assert all(v in ("PASS", "SKIP") for v in results.values()), out
        assert status == 0, out
        if asi:
            # They ran in the kvm class's restricted spaces, and left nothing.
            after = kvm_stats(own)
            assert after["enters"] > before["enters"]
            assert after["instances"] == 0
        splats = own.new_splats()
        assert not splats, splats
    finally:
        own.stop()


TRACING = "/sys/kernel/debug/tracing"


def test_asi_tracepoints(guest):
    """asi:asi_enter, asi:asi_exit (with the reason) and asi:asi_exit_pf
    (address, symbolized IP) trace what a VM does; with asi=off they stay
    silent."""
    guest.check(f"echo > {TRACING}/trace && echo 1 > {TRACING}/events/asi/enable")
    try:
        # The io loop leaves the space on every exit (to userspace).
        guest.check("kvm-exits -l io -n 100 >/dev/null", timeout=300)
    finally:
        guest.check(f"echo 0 > {TRACING}/events/asi/enable")
    trace = guest.check(f"cat {TRACING}/trace", timeout=120)
    enters = re.findall(r" asi_enter: class=(\d+)$", trace, re.M)
    exits = re.findall(r" asi_exit: class=(\d+) reason=(\w+)$", trace, re.M)
    faults = re.findall(r" asi_exit_pf: class=\d+ address=0x[0-9a-f]+ ip=(\S+)$",
                        trace, re.M)
    if "asi=on" not in guest.cmdline.split():
        assert not enters and not exits and not faults, trace[-2000:]
        return
    reasons = {}
    for _, reason in exits:
        reasons[reason] = reasons.get(reason, 0) + 1
    print(f"{guest.name}: traced {len(enters)} enters, exits {reasons}, "
          f"{len(faults)} page-fault exits")
    assert len(enters) >= 100, trace[-2000:]
    # The VM is gone: every enter was followed by an exit.
    assert len(exits) == len(enters), reasons
    # Each page-fault exit is traced twice: the switch and the fault.
    assert len(faults) == reasons.get("page_fault", 0) > 0, reasons
    assert all("+0x" in ip for ip in faults), faults[:5]
