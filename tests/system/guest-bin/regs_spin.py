# SPDX-License-Identifier: GPL-2.0
"""Run in user mode for ever with a known value in four registers.

    regs_spin.py VALUE

Writes machine code that loads VALUE into r12, r13, r14 and r15 and then
jumps to itself into an executable page, and calls it. Every interrupt
the CPU takes from this process saves those registers: first on the
CPU's entry stack, then (sync_regs()) on the process's kernel stack. The
code keeps the value at unaligned offsets, so the only 8-byte aligned
copies of it in memory are saved registers. Prints "spinning PID" before
it starts; kill it to end it.
"""

import ctypes
import mmap
import os
import struct
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: regs_spin.py VALUE", file=sys.stderr)
        return 2
    value = int(sys.argv[1], 0)
    code = b"\x90"                               # nop: the values unaligned
    for reg in (0xBC, 0xBD, 0xBE, 0xBF):         # mov r12..r15, imm64
        code += bytes((0x49, reg)) + struct.pack("<Q", value)
    code += b"\xeb\xfe"                          # jmp .
    page = mmap.mmap(-1, mmap.PAGESIZE,
                     prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    spin = ctypes.CFUNCTYPE(None)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
    print(f"spinning {os.getpid()}", flush=True)
    spin()
    return 1


if __name__ == "__main__":
    sys.exit(main())
