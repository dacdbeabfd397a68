# SPDX-License-Identifier: GPL-2.0
"""Fault injection: every allocation failure on ASI's paths ends cleanly.

One boot, asi=on with kmemleak, failslab and fail_page_alloc set to fail
GFP_KERNEL allocations too (ignore-gfp-wait=N) and to stay quiet (verbose=0,
the injected failures are expected), only where a task asks for it through
its fail-nth file: the N-th failable allocation of that task fails. Each
operation runs for N = 1, 2, ... until it completes without reaching the
N-th, so that every allocation on its path fails once:

- in the kernel, the asi_fault_injection KUnit suite (non-sensitive pages,
  kmalloc, vmalloc, per-CPU, local memory, ASI instances), re-run from
  debugfs once the knobs are set (the boot-time run skips);
- from userspace, a VM's life (create, vCPU, memory, run to HLT, close:
  the kvm class instance, local memory, stack mapping, teardown) and a
  run-time mark (mark-add over netlink: a failure must leave no mark).

Then kmemleak must find nothing and the kernel must not have splatted.
"""

import json
import re

import pytest

from conftest import BUILD
from guest import Guest, GuestError, find_splats
import guest_bin
import test_asi_netlink as asinl

CMDLINE = ("asi=on kmemleak=on kunit.enable=1 "
           "kunit.filter_glob=asi_fault_injection")
KUNIT = "/sys/kernel/debug/kunit/asi_fault_injection"
# In the guest (guest-bin/): an operation with each allocation failed in turn.
PROGRAM = "fail_nth.py"
MAX_POINTS = 3000


@pytest.fixture(scope="module")
def fi():
    g = Guest(BUILD, "asi-faults", CMDLINE)
    try:
        g.start()
    except GuestError as e:
        pytest.fail(str(e), pytrace=False)
    print(f"\nasi-faults: booted to the shell in {g.boot_seconds:.1f} s")
    for d in ("failslab", "fail_page_alloc"):
        g.check(f"echo 0 > /sys/kernel/debug/{d}/verbose; "
                f"echo N > /sys/kernel/debug/{d}/ignore-gfp-wait")
    g.check("echo N > /sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem; "
            "echo 0 > /sys/kernel/debug/fail_page_alloc/min-order")
    try:
        guest_bin.installed(g, PROGRAM)
    except BaseException:
        g.stop()
        raise
    yield g
    g.stop()


# The kernel's own report of a failed allocation (warn_alloc(), for
# callers that did not pass __GFP_NOWARN) comes with a stack trace: here
# it is what was asked for, not a splat.
ALLOC_REPORT = re.compile(r"(page allocation failure|vmalloc error): ")


def unexpected_splats(dmesg):
    lines = dmesg.splitlines()
    bad = []
    for i, line in enumerate(lines):
        if not find_splats(line):
            continue
        if "Call Trace:" in line and any(ALLOC_REPORT.search(l)
                                         for l in lines[max(0, i - 4):i]):
            continue
        bad.append(line)
    return bad


@pytest.fixture(autouse=True)
def fi_no_splats(fi):
    yield
    _, dmesg = fi.run("dmesg")
    with open(fi.dmesg_log, "w") as f:
        f.write(dmesg)
    splats = unexpected_splats(dmesg)
    if splats:
        pytest.fail("asi-faults: kernel splat:\n" + "\n".join(splats[:20]),
                    pytrace=False)


def test_kernel_allocations(fi):
    fi.check(f"echo 1 > {KUNIT}/run", timeout=600)
    res = fi.check(f"cat {KUNIT}/results")
    cases = re.findall(r"^\s*(ok|not ok) \d+ (asi_fi_test_\w+)(.*)$", res, re.M)
    assert len(cases) == 6, res
    bad = [c for c in cases if c[0] != "ok" or "SKIP" in c[2]]
    assert not bad, res
    points = re.findall(r"# asi_fi_test_\w+: (\w+): (\d+) allocations failed "
                        r"in turn, (\d+) made it fail", res)
    assert len(points) == 6, res
    # Every path had allocations to fail; most operations then failed
    # (per-CPU memory can come from a chunk already there, and a failed
    # attempt at a high-order slab page falls back to a small one).
    assert all(int(n) >= 1 for _, n, _ in points), points
    assert sum(int(f) >= 1 for _, _, f in points) >= 5, points
    print("asi-faults: kernel: " + ", ".join(
        f"{w} {n} points ({f} failed)" for w, n, f in points))


def run_kind(fi, what):
    out = fi.check(f"{guest_bin.PY} {guest_bin.path(PROGRAM)} {what} {asinl.SPEC} "
                   f"{MAX_POINTS}", timeout=1200)
    return json.loads([l for l in out.splitlines() if l.startswith("{")][-1])


def test_vm_life(fi):
    r = run_kind(fi, "vm")
    assert r["last"] == 0, r            # the run that reached no failure
    assert 0 < r["points"] < MAX_POINTS, r
    assert r["failed"] >= 1, r
    # Failures are clean errors: out of memory, or what a failed
    # allocation turns into on KVM's and the VFS's paths.
    allowed = {str(e) for e in (12, 14, 4, 23, 24, 22)}
    assert set(r["errors"]) <= allowed, r
    fi.check("kvm-exits -l io -n 1000", timeout=300)
    print(f"asi-faults: VM life: {r['points']} points, {r['failed']} failed, "
          f"errors {r['errors']}")


def test_mark_add(fi):
    r = run_kind(fi, "mark")
    assert r["last"] == 0, r
    assert 0 < r["points"] < MAX_POINTS, r
    # A failed mark-add leaves no mark, unless only its answer was lost.
    assert r["leftovers"] == 0, r
    assert set(r["errors"]) <= {"12", "105"}, r     # ENOMEM, ENOBUFS
    print(f"asi-faults: mark-add: {r['points']} points, {r['failed']} failed, "
          f"errors {r['errors']}, answers lost {r['acks_lost']}")


def test_kmemleak_after(fi):
    for d in ("failslab", "fail_page_alloc"):
        fi.check(f"echo Y > /sys/kernel/debug/{d}/ignore-gfp-wait")
    fi.check("echo scan > /sys/kernel/debug/kmemleak; "
             "echo scan > /sys/kernel/debug/kmemleak", timeout=600)
    leaks = fi.check("cat /sys/kernel/debug/kmemleak", timeout=300)
    n = len(re.findall(r"^unreferenced object", leaks, re.M))
    assert n == 0, leaks[:4000]
