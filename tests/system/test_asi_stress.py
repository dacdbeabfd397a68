# SPDX-License-Identifier: GPL-2.0
"""Restricted address spaces entered and left in a loop on every CPU under load.

The kernel's test-only trigger /sys/kernel/debug/asi/stress runs, on each
online CPU, a thread that enters a restricted space, takes interrupts there,
faults out on sensitive memory and exits, for the given number of seconds;
each round sends an NMI to the next CPU, whose handler reads sensitive
memory too, so NMIs land anywhere in the enter, fault and exit paths (the
fault path's NMI window, tests/model/asi.pml BUG_LIVE_CR3_WALK, oopsed on
one). stress-ng loads the guest meanwhile; the harness fails the test on
any splat.
"""

import os
import re

STRESS = "/sys/kernel/debug/asi/stress"
SECONDS = int(os.environ.get("ASI_STRESS_SECONDS", "60"))


def test_asi_stress_under_load(guest):
    if "asi=on" not in guest.cmdline.split():
        status, out = guest.run(f"echo 5 > {STRESS}")
        assert status != 0
        assert "not supported" in out.lower(), out
        return

    guest.check("command -v stress-ng")
    guest.check(f"stress-ng --cpu 2 --vm 1 --vm-bytes 32M --switch 1 "
                f"--timeout {SECONDS + 20}s --quiet >/tmp/stress-ng.log 2>&1 &")
    try:
        guest.check(f"echo {SECONDS} > {STRESS}", timeout=SECONDS * 4 + 120)
    finally:
        guest.run("killall stress-ng; sleep 1")
    out = guest.check(f"cat {STRESS}")
    print(out)
    assert f"seconds {SECONDS} cpus 4" in out, out
    cpus = re.findall(r"cpu (\d+) iterations (\d+) fault_exits (\d+) err (-?\d+) "
                      r"nmis (\d+)", out)
    assert sorted(int(c[0]) for c in cpus) == [0, 1, 2, 3], out
    for cpu, iterations, fault_exits, err, nmis in cpus:
        assert int(err) == 0, out
        assert int(iterations) > 0, out
        # every other iteration reads sensitive memory and must exit
        assert int(fault_exits) >= int(iterations) // 2, out
        # the CPU before it in the run sent it an NMI per round
        assert int(nmis) > 0, out


def test_asi_stress_rejects_bad_input(guest):
    for bad in ("0", "abc", "99999"):
        status, out = guest.run(f"echo {bad} > {STRESS}")
        assert status != 0, f"{bad} accepted"
