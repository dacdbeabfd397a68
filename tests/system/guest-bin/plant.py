# SPDX-License-Identifier: GPL-2.0
"""Plant canaries where a process's data lives in the kernel, then wait.

    plant.py BASE

Each canary is one 64-bit little-endian word at an 8-byte aligned place:

  page_cache  BASE+1, the start of a file in /tmp (tmpfs page cache)
  pipe        BASE+2, in the buffer of a pipe nobody reads
  anon        BASE+3, in an anonymous page of this process
  key         BASE+4, the payload of a "user" key in the process keyring
  stack       on this task's kernel stack: poll() copies its pollfd array
              from user memory to the stack and sleeps there. An entry is
              (fd, events, revents) and is ignored for a negative fd, with
              revents set to 0, so this canary is 0x0000EEEEFFFFFFFF with
              the fd FFFFFFFF negative: taken from BASE's low bits
  task        BASE+5 cut to a user address, this thread's GS base
              (arch_prctl(ARCH_SET_GS); glibc uses FS, not GS): the kernel
              keeps it in the task_struct while the task sleeps

Prints one "canary NAME 0xVALUE" line per canary, then "planted PID", and
sleeps in that poll() until killed. Exit status 1 if a canary cannot be
planted.
"""

import ctypes
import mmap
import os
import struct
import sys

SYS_ADD_KEY = 248                # x86_64
SYS_ARCH_PRCTL = 158
ARCH_SET_GS = 0x1001
KEY_SPEC_PROCESS_KEYRING = -2


class PollFd(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("events", ctypes.c_short),
                ("revents", ctypes.c_short)]


def main():
    base = int(sys.argv[1], 0)
    libc = ctypes.CDLL(None, use_errno=True)
    canaries = {}

    canaries["page_cache"] = base + 1
    with open("/tmp/plant-canary", "wb") as f:
        f.write(struct.pack("<Q", canaries["page_cache"]))

    canaries["pipe"] = base + 2
    r, w = os.pipe()
    os.write(w, struct.pack("<Q", canaries["pipe"]))

    canaries["anon"] = base + 3
    anon = mmap.mmap(-1, mmap.PAGESIZE)
    anon[0:8] = struct.pack("<Q", canaries["anon"])

    canaries["key"] = base + 4
    payload = struct.pack("<Q", canaries["key"])
    key = libc.syscall(SYS_ADD_KEY, b"user", b"plant-canary", payload,
                       len(payload), KEY_SPEC_PROCESS_KEYRING)
    if key < 0:
        print(f"plant: add_key: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 1

    canaries["task"] = (base + 5) & 0x3FFFFFFFFFFF
    if libc.syscall(ctypes.c_long(SYS_ARCH_PRCTL), ctypes.c_long(ARCH_SET_GS),
                    ctypes.c_ulong(canaries["task"])) < 0:
        print(f"plant: arch_prctl: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 1

    fd = -(0x40000000 | (base & 0x3FFFFFFF))
    events = (base >> 30) & 0x7FFF
    canaries["stack"] = (events << 32) | (fd & 0xFFFFFFFF)
    # The pipe's read end never becomes readable: poll() sleeps.
    idle_r, _idle_w = os.pipe()
    fds = (PollFd * 8)()
    fds[0] = PollFd(idle_r, 1, 0)
    for i in range(1, 8):
        fds[i] = PollFd(fd, events, 0)

    for name, value in canaries.items():
        print(f"canary {name} {value:#018x}")
    print(f"planted {os.getpid()}", flush=True)
    libc.poll(fds, len(fds), -1)
    del r, anon
    return 0


if __name__ == "__main__":
    sys.exit(main())
