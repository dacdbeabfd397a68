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
import test_asi_netlink as asinl

CMDLINE = ("asi=on kmemleak=on kunit.enable=1 "
           "kunit.filter_glob=asi_fault_injection")
KUNIT = "/sys/kernel/debug/kunit/asi_fault_injection"
SCRIPT = "/tmp/asifail.py"
MAX_POINTS = 3000

# Runs one kind of operation with fail-nth = 1, 2, ... and prints a JSON
# summary: points (allocations failed in turn), failed (operations that
# returned an error), errors (errno -> count), and, for marks, leftovers.
HELPER = r'''
import errno, fcntl, json, mmap, os, struct, sys
sys.path.insert(0, "/usr/lib/ynl")

FAIL = os.open("/proc/thread-self/fail-nth", os.O_RDWR)

def arm(n):
    os.pwrite(FAIL, b"%d" % n, 0)

def left():
    v = int(os.pread(FAIL, 32, 0))
    arm(0)
    return v

KVM_GET_VCPU_MMAP_SIZE, KVM_CREATE_VM, KVM_CREATE_VCPU = 0xAE04, 0xAE01, 0xAE41
KVM_RUN, KVM_SET_USER_MEMORY_REGION = 0xAE80, 0x4020AE46
KVM_EXIT_HLT = 5
kvm = os.open("/dev/kvm", os.O_RDWR)
run_size = fcntl.ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0)
# 64 KiB at the reset vector's segment: HLT at 0xfffffff0.
mem = mmap.mmap(-1, 0x10000)
mem[0xfff0] = 0xf4
import ctypes
mem_addr = ctypes.addressof(ctypes.c_char.from_buffer(mem))

def vm_life():
    fds = []
    try:
        vm = fcntl.ioctl(kvm, KVM_CREATE_VM, 0)
        fds.append(vm)
        region = struct.pack("IIQQQ", 0, 0, 0xffff0000, 0x10000, mem_addr)
        fcntl.ioctl(vm, KVM_SET_USER_MEMORY_REGION, region)
        vcpu = fcntl.ioctl(vm, KVM_CREATE_VCPU, 0)
        fds.append(vcpu)
        run = mmap.mmap(vcpu, run_size)
        try:
            fcntl.ioctl(vcpu, KVM_RUN, 0)
            reason = struct.unpack_from("I", run, 8)[0]
        finally:
            run.close()
        if reason != KVM_EXIT_HLT:
            return "exit reason " + str(reason)
        return 0
    except OSError as e:
        return e.errno
    finally:
        for fd in reversed(fds):
            os.close(fd)

def mark_life(ynl):
    """Adds a mark under fail-nth; returns (result, fail-nth left)."""
    from lib import NlError
    try:
        rsp = ynl.do("mark-add", {"kind": "symbol", "name": "jiffies"})
    except NlError as e:
        return e.error, left()
    except OSError as e:
        return e.errno, left()
    return 0, left()

what = sys.argv[1]
if what == "mark":
    from lib import YnlFamily
    chk = YnlFamily("@SPEC@", schema="")
points = failed = leftovers = acks_lost = 0
errors = {}
for n in range(1, @MAX@ + 1):
    if what == "vm":
        arm(n)
        res = vm_life()
        reached = left() == 0
    else:
        ynl = YnlFamily("@SPEC@", schema="")    # no stray replies
        arm(n)
        res, rest = mark_life(ynl)
        reached = rest == 0
        ynl.sock.close()
    if res:
        failed += 1
        errors[str(res)] = errors.get(str(res), 0) + 1
    if what == "mark":
        marks = chk.dump("mark-get", {})
        if marks and res == errno.ENOBUFS:
            # The kernel made the mark and answered; the answer was
            # dropped on the way (the socket's receive allocation).
            acks_lost += 1
        elif marks and res:
            leftovers += len(marks)
        for m in marks:
            chk.do("mark-del", {"id": m["id"]})
    if not reached:
        break
    points = n
print(json.dumps({"points": points, "failed": failed, "errors": errors,
                  "last": res, "leftovers": leftovers,
                  "acks_lost": acks_lost}))
'''.replace("@SPEC@", asinl.SPEC).replace("@MAX@", str(MAX_POINTS))


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
    g.check(f"cat > {SCRIPT} <<'ASIFAIL_EOF'\n{HELPER}\nASIFAIL_EOF")
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
    out = fi.check(f"/usr/bin/python3 {SCRIPT} {what}", timeout=1200)
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
