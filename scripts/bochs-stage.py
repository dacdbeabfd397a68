#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The Bochs stage of make test: VMX, EPT, VPID and PCID, which QEMU's TCG
does not have, run for real.

Boots of the test kernel under Bochs (vm/run-bochs.sh), asi=on, on
each CPU model in BOCHS_MODELS (default: corei7_skylake_x, without
SPEC_CTRL, where PTI is on; tigerlake, with SPEC_CTRL, eIBRS and PCID
without PTI):
  1. KUnit: every ASI suite, parsed with the tree's kunit.py; the restricted
     spaces must use PCIDs.
  2. Batch: tests/bochs/vmx-checks.sh runs each kvm-exits loop on VMX;
     every loop must end with its exact VM-exit count (kvm-exits checks),
     every ASI enter be matched by an exit, the in-kernel loops stay within
     their ceiling of ASI exits per 1000 VM exits (host interrupts aside, and
     a looser one with them), the HLTs of hlt-timer that the halt-poll window
     catches stay restricted while those that block leave, L1D
     flushes come only after an ASI exit, and TLB flushes stay rare. The
     boot has kvm.asi_ibpb=1: where the CPU has IBPB (tigerlake), each ASI
     exit issues one IBPB, the conventional way one per VM exit; where it
     has none (corei7_skylake_x), KVM says so and issues none.
  2b. With PERF_BZIMAGE, the same batch boot of the measurement kernel
     (make kernel-perf: no lockdep, no DEBUG_VM), whose figures are the
     ones the targets name; ASI must be on in it.
  3. On tigerlake only, two more boots, asi=on and asi=off: the kernel's
     nested VMX selftests that finish quickly under Bochs
     (tests/bochs/vmx-selftests.sh) pass alike.
  4. On corei7_skylake_x only, a boot with 4 CPUs (two cores of two SMT
     threads): tests/bochs/smt-checks.sh runs a port I/O loop on both
     threads of a core at once. Each exit to userspace leaves the
     restricted space with the vCPU loaded, so each thread stuns the other
     while it runs a guest: both must stun, the stunned threads must have
     waited, and no stunning thread may have given up waiting for its
     sibling to leave its guest.
Any splat fails the stage except the pristine kernel's own warnings listed
in tests/bochs/allowed-warnings.txt. Prints one line per check, the ASI
exits per 1000 VM exits per loop, and writes RESULTS/bochs.res.

    bochs-stage.py TREE LOGDIR RESULTS [PERF_BZIMAGE]
"""

import os
import re
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.environ.get("BOCHS_MODELS", "corei7_skylake_x tigerlake").split()
LOOPS = ["io-kernel", "cpuid", "mmio", "io", "hlt", "hlt-timer"]
# The HLTs of the hlt-timer loop (tests/bochs/vmx-checks.sh). It runs where
# the CPU has a TSC deadline timer; on corei7_skylake_x, which has none, it
# did not finish in 12 minutes (cause not known yet), so it is not run there.
HLT_TIMER_HALTS = 5000
# ASI exits per 1000 VM exits, host interrupts aside, that an in-kernel loop
# may cause on VMX: the VM's first run only. What host interrupts do may
# leave the restricted space: a device interrupt runs its driver, softirq
# work runs after an explicit exit, and the faults tests/host-interrupts.txt
# lists. Bochs's emulated clock ticks often against its VM exits.
CEILING_PER_1000 = {"io-kernel": 1.0, "cpuid": 1.0, "mmio": 1.0}
# All ASI exits per 1000 VM exits, host interrupts included: a timer
# interrupt that finds no timer due stays restricted, so only the ticks
# that expire their timer and device interrupts leave (on
# corei7_skylake_x the APIC timer fires early about a thousand times per
# tick: 161 per 1000 when those interrupts left the space).
TOTAL_CEILING_PER_1000 = 5.0
# hlt-timer: ASI exits per 1000 VM exits besides host interrupts and the
# HLTs that blocked (a blocked vCPU schedules: it leaves by design). An HLT
# woken within the halt-poll window stays restricted; the VM's first run
# (lockdep's first sight of its locks, guest memory faulted in: about 10
# faults) fits in it at the loop's 10000 VM exits.
HALT_POLL_CEILING_PER_1000 = 2.0
# The nested VMX selftests run on one model: each boot costs about a minute.
SELFTEST_MODEL = os.environ.get("BOCHS_SELFTEST_MODEL", "tigerlake")
# The SMT boot (4 CPUs) runs on one model: it takes about two minutes.
SMT_MODEL = os.environ.get("BOCHS_SMT_MODEL", "corei7_skylake_x")


def host_interrupt_functions():
    """Where host interrupts leave the space (tests/host-interrupts.txt)."""
    with open(os.path.join(TOP, "tests", "host-interrupts.txt")) as f:
        return {l.split()[1] for l in f if l.strip() and not l.startswith("#")}


IRQ_FUNCTIONS = host_interrupt_functions()


class Stage:
    def __init__(self):
        self.passed = self.failed = 0

    model = ""  # the Bochs CPU model
    label = ""  # what the lines printed name: the model, and which kernel

    def check(self, ok, what):
        print(f"bochs: {self.label}: {'ok  ' if ok else 'FAIL'} {what}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


def splat_patterns():
    with open(os.path.join(TOP, "tests", "splat-patterns.txt")) as f:
        pats = [re.compile(l.strip()) for l in f if l.strip()]
    # The lines around a warning; the warning itself is what is judged.
    return [p for p in pats if p.pattern not in ("cut here", "Call Trace:")]


def allowed_warnings():
    allowed = []
    with open(os.path.join(TOP, "tests", "bochs", "allowed-warnings.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                allowed.append(re.compile(re.split(r"\s{2,}", line.strip())[0]))
    return allowed


def splats(log):
    pats, allowed = splat_patterns(), allowed_warnings()
    with open(log, errors="replace") as f:
        return [l.rstrip() for l in f
                if any(p.search(l) for p in pats)
                and not any(a.search(l) for a in allowed)]


def boot(model, log, args, mode, end, timeout=900, cpus=1, kernel=None):
    start = time.monotonic()
    rc = subprocess.call([os.path.join(TOP, "vm", "run-bochs.sh"), "-M", model,
                          "-m", mode, "-a", args, "-l", log, "-e", end,
                          "-t", str(timeout), "-c", str(cpus)] +
                         (["-k", kernel] if kernel else []))
    print(f"bochs: {model}: {mode} boot ({cpus} CPUs) took "
          f"{time.monotonic() - start:.0f} s", flush=True)
    return rc


def boot_checked(stage, log, args, mode, end, what, cpus=1, kernel=None):
    """Boot, check that the end line came, return the console text."""
    stage.check(boot(stage.model, log, args, mode, end, cpus=cpus, kernel=kernel) == 0,
                what)
    with open(log, errors="replace") as f:
        return f.read()


def kunit(stage, tree, logs):
    log = os.path.join(logs, f"bochs-kunit-{stage.model}.log")
    text = boot_checked(stage, log, "asi=on kunit.filter_glob=asi*", "kunit",
                        "asitest: kunit finished|Kernel panic",
                        "KUnit boot reached /init")
    stage.check(re.search(r"asi: restricted address spaces ready: .*, PCID$",
                          text, re.M), "restricted spaces use PCIDs")
    js = os.path.join(logs, f"bochs-kunit-{stage.model}.json")
    if os.path.exists(js):
        os.unlink(js)
    subprocess.call([sys.executable, os.path.join(tree, "tools", "testing", "kunit",
                                                   "kunit.py"), "parse", f"--json={js}",
                     log], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    out = ""
    if os.path.exists(js):
        out = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "kunit-counts.py"),
                              js], capture_output=True, text=True).stdout
    lines = out.splitlines()
    passed, failed, skipped = (int(x) for x in lines[0].split()) if lines else (0, 0, 0)
    # Each KUnit test counts as a check of the stage.
    print(f"bochs: {stage.label}: KUnit: {passed} passed, {failed} failed, {skipped} skipped"
          + "".join(f"\nbochs: {stage.label}: FAIL KUnit {l}" for l in lines[1:]))
    stage.passed += passed
    stage.failed += failed
    stage.check(passed + failed > 0, "KUnit ran")
    bad = splats(log)
    stage.check(not bad, "no splat in the KUnit boot" + "".join(f"\n  {l}" for l in bad[:10]))


def class_stats(text, loop, name):
    """The counters of class NAME that vmx-checks printed after LOOP."""
    stats, inside = {}, False
    for line in re.findall(rf"^vmx-checks: {loop}: stats: (.*)$", text, re.M):
        if line.startswith("class "):
            inside = line.split()[1] == name
        elif inside and len(line.split()) == 2:
            key, value = line.split()
            stats[key] = int(value)
    return stats


def profile(text, loop):
    """ASI exits by faulting function from asictl's table after LOOP."""
    prof = {}
    for line in re.findall(rf"^vmx-checks: {loop}: profile: (.*)$", text, re.M):
        f = line.split()
        if len(f) == 5 and f[0].isdigit():
            fn = f[4].split("+")[0]
            prof[fn] = prof.get(fn, 0) + int(f[0])
    return prof


def halt_loop(stage, r, vm_exits, asi_exits, others, prof):
    """The hlt-timer loop: every HLT handled in the kernel, those woken
    while polling do not leave, those that blocked do."""
    halts, polled, blocked = (int(r.get(k, -1)) for k in
                              ("halt_exits", "halt_polled", "halt_wakeups"))
    print(f"bochs: {stage.label}: hlt-timer: {vm_exits} VM exits, {halts} HLTs, "
          f"{polled} woken while polling, {blocked} after blocking, {asi_exits} "
          f"ASI exits ({1000 * (others - blocked) / vm_exits:.2f} per 1000 VM exits "
          "besides host interrupts and blocked HLTs)")
    stage.check(halts == HLT_TIMER_HALTS,
                f"hlt-timer: the kernel handled all {HLT_TIMER_HALTS} HLTs ({halts})")
    stage.check(polled + blocked > 0, f"hlt-timer: HLTs waited ({polled} polled, "
                f"{blocked} blocked)")
    stage.check(1000 * (others - blocked) / vm_exits <= HALT_POLL_CEILING_PER_1000,
                f"hlt-timer: {others - blocked} ASI exits for {vm_exits} VM exits besides "
                f"host interrupts and {blocked} blocked HLTs, ceiling "
                f"{HALT_POLL_CEILING_PER_1000} per 1000; faults by function: {prof}")
    stage.check(asi_exits >= 0.9 * blocked,
                f"hlt-timer: blocked HLTs leave ({asi_exits} ASI exits, {blocked} blocked)")


def vmx(stage, logs, kernel=None, name="test kernel"):
    """The exit loops on VMX in KERNEL (default: the test kernel)."""
    tag = "-perf" if kernel else ""
    log = os.path.join(logs, f"bochs-vmx-{stage.model}{tag}.log")
    text = boot_checked(stage, log,
                        "asi=on kvm.asi_ibpb=1 asitest.run=/usr/lib/asitest/vmx-checks.sh",
                        "batch", "asitest: batch finished|Kernel panic",
                        f"batch boot of the {name} finished", kernel=kernel)
    stage.check(re.search(r"^vmx-checks: .*asi: restricted address spaces ready", text, re.M),
                f"ASI is on in the {name}")
    for feature in ("vmx", "ept", "vpid", "pcid", "invpcid"):
        stage.check(f"vmx-checks: cpu {feature} yes" in text, f"CPU has {feature}")
    ibpb = "vmx-checks: cpu ibpb yes" in text
    if not ibpb:
        stage.check(re.search(r"^vmx-checks: .*kvm\.asi_ibpb: this CPU has no IBPB, left off",
                              text, re.M), "without IBPB, kvm.asi_ibpb is refused")
    mitigations = []
    stage.check("asitest: batch rc=0" in text, "vmx-checks.sh exited 0")
    figures = []
    for loop in LOOPS:
        if loop == "hlt-timer" and "vmx-checks: cpu tsc_deadline_timer no" in text:
            stage.check("vmx-checks: hlt-timer: not run: no TSC deadline timer" in text,
                        "hlt-timer: not run without a TSC deadline timer")
            continue
        st = re.search(rf"^vmx-checks: {loop}: status (\d+)", text, re.M)
        res = re.search(rf"^vmx-checks: {loop}: kvm-exits: (runs=.*)", text, re.M)
        ok = st is not None and st.group(1) == "0" and res is not None
        r = dict(kv.split("=", 1) for kv in res.group(1).split()) if res else {}
        stage.check(ok, f"{loop}: exact VM exits on VMX")
        stage.check(ok and int(r.get("asi_enters", 0)) == int(r.get("asi_exits", -1)) > 0,
                    f"{loop}: every ASI enter matched by an exit ({r.get('asi_enters')}"
                    f" enters, {r.get('asi_exits')} exits)")
        if not ok:
            continue
        vm_exits, asi_exits = int(r["vm_exits"]), int(r["asi_exits"])
        stats = class_stats(text, loop, "kvm")
        prof = profile(text, loop)
        for line in re.findall(rf"^vmx-checks: {loop}: profile: (.*)$", text, re.M):
            print(f"bochs: {stage.label}: {loop}: exit profile: {line}")
        # In these loops only softirqs exit explicitly (nested VMX aside).
        irqs = (sum(c for fn, c in prof.items() if fn in IRQ_FUNCTIONS) +
                stats.get("exits_explicit", 0))
        others = asi_exits - irqs
        figures.append(f"{loop} {r['asi_exits_per_1000']} ({1000 * others / vm_exits:.2f}"
                       " besides host interrupts; L1D flushes "
                       f"{1000 * stats.get('l1d_flushes', 0) / vm_exits:.1f})")
        if loop == "hlt-timer":
            halt_loop(stage, r, vm_exits, asi_exits, others, prof)
        if loop in CEILING_PER_1000:
            stage.check(1000 * others / vm_exits <= CEILING_PER_1000[loop],
                        f"{loop}: {others} ASI exits for {vm_exits} VM exits besides "
                        f"{irqs} host interrupts, ceiling {CEILING_PER_1000[loop]} per "
                        f"1000; faults by function: {prof}")
            stage.check(1000 * asi_exits / vm_exits <= TOTAL_CEILING_PER_1000,
                        f"{loop}: {asi_exits} ASI exits for {vm_exits} VM exits, host "
                        f"interrupts included, ceiling {TOTAL_CEILING_PER_1000} per 1000")
        # The flush on entering the space replaces the per-entry one: at
        # most one per exit, plus the VM's first entry.
        flushes = stats.get("l1d_flushes", -1)
        stage.check(0 <= flushes <= asi_exits + 1,
                    f"{loop}: {flushes} L1D flushes for {asi_exits} ASI exits")
        # PCIDs: the new VM's space is flushed once, then it stays cached.
        tlb, enters = stats.get("tlb_flushes", -1), stats.get("enters", 0)
        stage.check(0 <= tlb <= 1 + enters / 1000,
                    f"{loop}: {tlb} TLB flushes for {enters} ASI enters")
        # kvm.asi_ibpb: one IBPB per ASI exit (two where a guest ran after
        # an NMI had left the space); none without IBPB.
        ibpbs = stats.get("ibpbs", -1)
        if ibpb:
            stage.check(asi_exits <= ibpbs <= 2 * asi_exits,
                        f"{loop}: {ibpbs} IBPBs for {asi_exits} ASI exits")
        else:
            stage.check(ibpbs == 0, f"{loop}: no IBPB without IBPB ({ibpbs})")
        mitigations.append(f"{loop}: L1D flush {1000 * max(flushes, 0) / vm_exits:.1f}"
                           f", IBPB {1000 * max(ibpbs, 0) / vm_exits:.1f}")
    print(f"bochs: {stage.label}: per 1000 VM exits on VMX, ASI exits (and L1D flushes, "
          "where kvm-intel.vmentry_l1d_flush=always would do 1000): " + ", ".join(figures))
    print(f"bochs: {stage.label}: mitigation actions per 1000 VM exits, ASI (kvm.asi_ibpb=1)"
          " against 1000 each for an L1D flush on every VM-Enter and an IBPB on every"
          " VM exit: " + "; ".join(mitigations))
    bad = splats(log)
    stage.check(not bad, "no splat in the VMX boot" + "".join(f"\n  {l}" for l in bad[:10]))


def selftests(stage, logs):
    """The nested VMX selftests that finish quickly under Bochs, asi=on
    against asi=off: the same tests must pass, and with asi=on they must
    have run in the kvm class's restricted spaces."""
    results = {}
    for asi in ("on", "off"):
        log = os.path.join(logs, f"bochs-selftests-{stage.model}-asi-{asi}.log")
        text = boot_checked(stage, log,
                            f"asi={asi} asitest.run=/usr/lib/asitest/vmx-selftests.sh",
                            "batch", "asitest: batch finished|Kernel panic",
                            f"selftest boot (asi={asi}) finished")
        results[asi] = dict(re.findall(
            r"^vmx-selftests: kvm-selftest: (\S+) (PASS|FAIL|SKIP|TIMEOUT)", text, re.M))
        print(f"bochs: {stage.label}: asi={asi} VMX selftests: " +
              ", ".join(f"{n} {v}" for n, v in sorted(results[asi].items())))
        stage.check(len(results[asi]) >= 3 and
                    all(v == "PASS" for v in results[asi].values()),
                    f"asi={asi}: every VMX selftest passes")
        stage.check("asitest: batch rc=0" in text, f"asi={asi}: vmx-selftests.sh exited 0")
        if asi == "on":
            st = re.search(r"^vmx-selftests: stats:   enters (\d+)", text, re.M)
            stage.check(st is not None and int(st.group(1)) > 0,
                        "the selftests' vCPUs ran in restricted spaces "
                        f"({st.group(1) if st else 'no'} enters)")
        bad = splats(log)
        stage.check(not bad, f"no splat in the selftest boot (asi={asi})" +
                    "".join(f"\n  {l}" for l in bad[:10]))
    stage.check(results["on"] == results["off"], "same selftest results with asi=on and off")


def per_cpu_stats(text):
    """{counter: [per-CPU values]} from smt-checks' asictl --per-cpu table."""
    rows = {}
    for line in re.findall(r"^smt-checks: per-cpu:   (\S+ .*)$", text, re.M):
        f = line.split()
        if all(x.isdigit() for x in f[1:]):
            rows[f[0]] = [int(x) for x in f[2:]]
    return rows


def smt(stage, logs):
    """Two SMT threads of one core run guests at once: stunning holds."""
    log = os.path.join(logs, f"bochs-smt-{stage.model}.log")
    text = boot_checked(stage, log, "asi=on asitest.run=/usr/lib/asitest/smt-checks.sh",
                        "batch", "asitest: batch finished|Kernel panic",
                        "SMT boot (4 CPUs) finished", cpus=4)
    m = re.search(r"^smt-checks: online (\S+) siblings (\S+)$", text, re.M)
    stage.check(m is not None and m.group(1) == "0-3" and
                re.fullmatch(r"\d+[,-]\d+", m.group(2)) is not None,
                f"4 CPUs online, CPU 0 has an SMT sibling ({m.groups() if m else 'none'})")
    stage.check("smt-checks: stun Y" in text, "kvm.asi_stun is on by default")
    st = re.search(r"^smt-checks: status (\d+) (\d+)$", text, re.M)
    stage.check(st is not None and st.groups() == ("0", "0"),
                "both siblings' loops ended with their exact VM exits")
    stats = {}
    for line in re.findall(r"^smt-checks: stats:   (\S+ \d+)$", text, re.M):
        key, value = line.split()
        stats[key] = int(value)
    cpus = per_cpu_stats(text)
    stuns, stunned_ns = stats.get("stuns", 0), stats.get("stunned_ns", 0)
    print(f"bochs: {stage.label}: SMT: {stats.get('enters')} ASI enters, {stuns} stuns "
          f"(per CPU {cpus.get('stuns')}), {stunned_ns / 1e6:.2f} ms stunned (per CPU "
          f"{cpus.get('stunned-ns')} ns), {stats.get('stun_timeouts')} stun timeouts")
    stage.check(all(n > 0 for n in cpus.get("stuns", [0])[:2]),
                f"both siblings stunned the other ({cpus.get('stuns')})")
    stage.check(stunned_ns > 0, f"stunned siblings waited ({stunned_ns} ns)")
    stage.check(stats.get("stun_timeouts", -1) == 0,
                f"every stun saw its sibling out of the guest "
                f"({stats.get('stun_timeouts')} timeouts)")
    # Every exit counts, whatever its reason: softirq work and a reschedule
    # leave too, and the enter after each flushes.
    flushes = stats.get("l1d_flushes", -1)
    exits = sum(v for k, v in stats.items() if k.startswith("exits_"))
    stage.check(0 <= flushes <= exits + 2,
                f"{flushes} L1D flushes for {exits} ASI exits of two VMs")
    bad = splats(log)
    stage.check(not bad, "no splat in the SMT boot" + "".join(f"\n  {l}" for l in bad[:10]))


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    tree, logs, results = sys.argv[1:4]
    perf = sys.argv[4] if len(sys.argv) == 5 else None
    os.makedirs(logs, exist_ok=True)
    os.makedirs(results, exist_ok=True)
    stage = Stage()
    start = time.monotonic()
    for model in MODELS:
        stage.model = stage.label = model
        kunit(stage, tree, logs)
        vmx(stage, logs)
        if perf:
            stage.label = f"{model} (measurement kernel)"
            vmx(stage, logs, kernel=perf, name="measurement kernel")
            stage.label = model
        if model == SELFTEST_MODEL:
            selftests(stage, logs)
        if model == SMT_MODEL:
            smt(stage, logs)
    print(f"bochs: {stage.passed} passed, {stage.failed} failed in "
          f"{time.monotonic() - start:.0f} s ({', '.join(MODELS)})")
    with open(os.path.join(results, "bochs.res"), "w") as f:
        f.write(f"bochs {stage.passed} {stage.failed} 0\n")
    return 1 if stage.failed else 0


if __name__ == "__main__":
    sys.exit(main())
