# SPDX-License-Identifier: GPL-2.0
"""kvm-exits runs whose guest nested SVM under TCG corrupted, told apart
from runs the kernel got wrong.

QEMU 7.2's TCG corrupts a nested guest now and then under load, with
asi=off as with asi=on (README, Known problems). kvm-exits reports such a
run: the guest shuts down, writes where its loop does not, makes more VM
exits than its loop, or is found outside its code (-t, which reports
where the guest is when a run does not halt in time). A guest that
stopped making progress inside its code is the kernel's.
"""

import re

# tests/kvm/exitloop.h: where kvm-exits puts its guest's code (each loop
# is shorter than 0x100 bytes) and the address its mmio loop writes.
GUEST_CODE = (0x1000, 0x1100)
GUEST_MMIO_GPA = 0x20000


def guest_went_wrong(report):
    """Whether one failed kvm-exits run is its guest's (TCG's) doing."""
    if re.search(r"unexpected exit reason 8 ", report):
        return True
    m = re.search(r"unexpected exit reason 6 \(mmio \w+ 0x([0-9a-f]+),", report)
    if m and int(m.group(1), 16) != GUEST_MMIO_GPA:
        return True
    m = re.search(r"VM \d+: (\d+) VM exits \(the loop makes (\d+)\)", report)
    if m and int(m.group(1)) > int(m.group(2)):
        return True
    m = re.search(r" rip 0x([0-9a-f]+) ", report)
    return bool(m) and not GUEST_CODE[0] <= int(m.group(1), 16) < GUEST_CODE[1]


def check_loops(guest, cmd, timeout):
    """Run cmd (kvm-exits runs, each with -t); return its output. A run
    that failed because TCG corrupted its guest is run once more, and
    said so; any other failure fails the caller."""
    status, out = guest.run(cmd, timeout)
    if status == 0:
        return out
    reports = [line for line in out.splitlines() if line.startswith("kvm-exits: ")]
    if not any(guest_went_wrong(line) for line in reports):
        raise AssertionError(f"'{cmd}' exited {status}:\n{out}")
    print(f"\n{guest.name}: TCG corrupted a nested guest, run again:\n{out}")
    return guest.check(cmd, timeout)
