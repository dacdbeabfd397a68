#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fail each allocation on the path of an operation in turn (fail-nth).

    fail_nth.py vm|mark SPEC MAX

Runs one kind of operation with this thread's fail-nth set to N = 1, 2, ...
(the N-th failable allocation fails; failslab and fail_page_alloc must be
set up to honour it), until a run completes without reaching the N-th, or
up to N = MAX:
    vm     a VM's life through /dev/kvm: create it, give it 64 KiB of
           memory at the reset vector, a vCPU, run it to its HLT, close
    mark   mark-add of the symbol loops_per_jiffy through the asi generic netlink
           family (SPEC, its YNL spec), on a fresh socket each time; every
           mark left afterwards is deleted and counted
Prints one line of JSON: points (allocations failed in turn), failed
(operations that returned an error), errors (errno -> count), last (the
result of the last run: 0 for success), leftovers (marks left by a failed
mark-add) and acks_lost (mark-adds that made their mark but whose answer
was dropped, ENOBUFS).

Run by test_asi_faults.py.
"""

import ctypes
import errno
import fcntl
import json
import mmap
import os
import struct
import sys

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
        ynl.do("mark-add", {"kind": "symbol", "name": "loops_per_jiffy"})
    except NlError as e:
        return e.error, left()
    except OSError as e:
        return e.errno, left()
    return 0, left()


what, spec, max_points = sys.argv[1], sys.argv[2], int(sys.argv[3])
if what == "mark":
    from lib import YnlFamily
    chk = YnlFamily(spec, schema="")
points = failed = leftovers = acks_lost = 0
errors = {}
for n in range(1, max_points + 1):
    if what == "vm":
        arm(n)
        res = vm_life()
        reached = left() == 0
    else:
        ynl = YnlFamily(spec, schema="")    # no stray replies
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
