# SPDX-License-Identifier: GPL-2.0
"""What the restricted address spaces map, read from the kernel's own dump.

/sys/kernel/debug/page_tables/asi_global dumps the kernel half that every
restricted address space shares, in the format of the other page_tables
files. The test sums the present mappings per region, keeps the dump and
the summary under build/logs, and checks that the direct map of guest
memory is absent except for the few pages ASI needs.
"""

import os
import re

from conftest import BUILD

DUMP = "/sys/kernel/debug/page_tables/asi_global"
UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}


def writable_executable(dump):
    """Present mappings that are both writable and executable."""
    bad = []
    for line in dump.splitlines():
        m = re.match(r"(0x[0-9a-f]+-0x[0-9a-f]+)\s+\d+[KMGTP]\s+(.*)", line)
        if m and re.search(r"\bRW\b", m.group(2)) and not re.search(r"\bNX\b", m.group(2)):
            bad.append(line.strip())
    return bad


def summarize(dump):
    regions, region = {}, "?"
    for line in dump.splitlines():
        m = re.match(r"---\[ (.*) \]---", line)
        if m:
            region = m.group(1)
            continue
        m = re.match(r"0x[0-9a-f]+-0x[0-9a-f]+\s+(\d+)([KMGTP])\s+(.*)", line)
        if not m or not re.search(r"\b(ro|RW)\b", m.group(3)):
            continue
        size = int(m.group(1)) * UNITS[m.group(2)]
        total, lines = regions.get(region, (0, 0))
        regions[region] = (total + size, lines + 1)
    return regions


def test_asi_global_page_table(guest):
    if "asi=on" not in guest.cmdline.split():
        guest.check(f"test ! -e {DUMP}")
        return
    dump = guest.check(f"cat {DUMP}", timeout=300)
    regions = summarize(dump)
    mem_kib = int(guest.check("grep MemTotal /proc/meminfo").split()[1])
    direct = regions.get("Low Kernel Mapping", (0, 0))[0]
    share = f"non-sensitive share of the direct map: {direct >> 10} KiB of " \
            f"{mem_kib} KiB MemTotal = {100.0 * (direct >> 10) / mem_kib:.4f}%"
    with open(os.path.join(BUILD, "logs", f"asi-global-{guest.name}.txt"), "w") as f:
        f.write(dump)
        f.write("\nsummary (present mappings):\n")
        for name, (size, n) in regions.items():
            f.write(f"{name:32} {size >> 10:10} KiB in {n} ranges\n")
        f.write(share + "\n")
    for name, (size, n) in regions.items():
        print(f"{guest.name}: {name}: {size >> 10} KiB in {n} ranges")
    print(f"{guest.name}: {share}")

    assert regions.get("High Kernel Mapping", (0, 0))[0] > 0     # text, rodata
    assert regions.get("CPU entry Area", (0, 0))[0] > 0
    # The guest has 2 GiB: its direct map must be (nearly) all absent.
    assert direct < 16 << 20, f"{direct >> 10} KiB of the direct map is mapped"
    assert "User Space" not in regions
    # The final permissions of the kernel image (mark_rodata_ro()) reach the
    # restricted tables: nothing there is both writable and executable.
    assert writable_executable(dump) == []
