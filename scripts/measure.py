#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""VM-exit rates with asi=on vs asi=off, and ASI exits per 1000 VM exits.

Boots the given kernel image (the measurement kernel of "make measure",
without lockdep and DEBUG_VM) once with asi=off and once with asi=on, runs
each kvm-exits loop in the guest, and prints one table. Same image, same
loops, one run each: the ratios are what to compare, not the absolute
rates, which are TCG's.

    measure.py BZIMAGE
"""

import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "system"))

from guest import Guest  # noqa: E402

LOOPS = [("io", 2000), ("io-kernel", 20000), ("cpuid", 20000),
         ("mmio", 20000), ("hlt", 1)]


def run_loops(kernel, cmdline):
    g = Guest(os.path.join(TOP, "build"), "measure-" + cmdline.replace("=", "-"),
              cmdline, kernel=kernel)
    g.start()
    results = {}
    try:
        for loop, n in LOOPS:
            runs = 200 if loop == "hlt" else 1
            out = g.check(f"kvm-exits -l {loop} -n {n} -r {runs}", timeout=600)
            m = re.search(r"kvm-exits: (runs=.*)", out)
            results[loop] = dict(kv.split("=", 1) for kv in m.group(1).split())
        splats = g.new_splats()
        if splats:
            sys.exit(f"measure: splats with {cmdline}: {splats}")
    finally:
        g.stop()
    return results


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    kernel = sys.argv[1]
    off = run_loops(kernel, "asi=off")
    on = run_loops(kernel, "asi=on")
    print(f"{'loop':<10} {'exits/s off':>12} {'exits/s on':>11} {'on/off':>7}"
          f" {'ASI exits/1000':>15}")
    for loop, _ in LOOPS:
        r_off = float(off[loop]["vm_exits_per_sec"])
        r_on = float(on[loop]["vm_exits_per_sec"])
        per_1000 = on[loop].get("asi_exits_per_1000", "-")
        print(f"{loop:<10} {r_off:>12.0f} {r_on:>11.0f} "
              f"{r_on / r_off if r_off else 0:>7.2f} {per_1000:>15}")


if __name__ == "__main__":
    main()
