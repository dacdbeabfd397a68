# SPDX-License-Identifier: GPL-2.0
"""Run in user mode for ever with a known value in registers.

    regs_spin.py VALUE [syscall]

Writes machine code that loads VALUE into r12, r13, r14 and r15 and then
jumps to itself into an executable page, and calls it. Every interrupt
the CPU takes from this process saves those registers: first on the
CPU's entry stack, then (sync_regs()) on the process's kernel stack.
With "syscall" the code also loads VALUE into RDI and RSP and calls
getpid() in a loop: the return from each syscall passes RDI and RSP
through the entry stack. The code keeps the value at unaligned offsets,
so the only 8-byte aligned copies of it in memory are saved registers.
Prints "spinning PID" before it starts; kill it to end it.
"""

import ctypes
import mmap
import os
import struct
import sys


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["syscall"]):
        print("usage: regs_spin.py VALUE [syscall]", file=sys.stderr)
        return 2
    value = int(sys.argv[1], 0)
    code = b"\x90"                               # nop: the values unaligned
    for reg in (0xBC, 0xBD, 0xBE, 0xBF):         # mov r12..r15, imm64
        code += bytes((0x49, reg)) + struct.pack("<Q", value)
    if sys.argv[2:] == ["syscall"]:
        code += b"\x48\xbf" + struct.pack("<Q", value)  # mov rdi, imm64
        code += b"\x48\x89\xfc"                  # mov rsp, rdi
        code += b"\xb8" + struct.pack("<I", 39)  # 1: mov eax, __NR_getpid
        code += b"\x0f\x05"                      # syscall
        code += b"\xeb\xf7"                      # jmp 1b
    else:
        code += b"\xeb\xfe"                      # jmp .
    page = mmap.mmap(-1, mmap.PAGESIZE,
                     prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    spin = ctypes.CFUNCTYPE(None)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
    print(f"spinning {os.getpid()}", flush=True)
    spin()
    return 1


if __name__ == "__main__":
    sys.exit(main())
