# SPDX-License-Identifier: GPL-2.0
"""The test VM boots with each ASI setting and has what later tests rely on."""

import re

import pytest


def test_cmdline_and_release(guest):
    cmdline = guest.check("cat /proc/cmdline").split()
    assert all(arg in cmdline for arg in guest.cmdline.split()), cmdline
    release = guest.check("uname -r").strip()
    assert release.endswith("-asi"), release


def test_smt_topology(guest):
    """Four CPUs in two cores of two SMT threads each."""
    assert guest.check("cat /sys/devices/system/cpu/online").strip() == "0-3"
    for cpu, siblings in ((0, "0-1"), (1, "0-1"), (2, "2-3"), (3, "2-3")):
        path = f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
        assert guest.check(f"cat {path}").strip() == siblings


def test_debugfs_and_ptdump(guest):
    out = guest.check("ls /sys/kernel/debug/page_tables")
    assert "kernel" in out.split()


def test_kvm_device(guest):
    guest.check("test -c /dev/kvm")
    out = guest.check("dmesg | grep -i svm || dmesg | grep -i kvm")
    assert out.strip()


def parse_exits(out):
    m = re.search(r"kvm-exits: (.*)", out)
    assert m, out
    return dict(kv.split("=", 1) for kv in m.group(1).split())


def parse_runs(out):
    """kvm-exits' totals over its runs (the "runs=" line), as strings."""
    m = re.search(r"kvm-exits: (runs=.*)", out)
    assert m, out
    return dict(kv.split("=", 1) for kv in m.group(1).split())


@pytest.mark.parametrize("n", [1, 1000])
def test_kvm_io_exits(guest, n):
    """n port writes from a real-mode guest give exactly n I/O exits and one HLT."""
    status, out = guest.run(f"kvm-exits -l io -n {n}")
    assert status == 0, out
    r = parse_exits(out)
    assert int(r["io"]) == n
    assert int(r["hlt"]) == 1
    assert int(r["mmio"]) == 0 and int(r["other"]) == 0
    print(f"{guest.name}: {n} I/O exits at {r['exits_per_sec']} exits/s")


def test_kvm_hlt_exit(guest):
    r = parse_exits(guest.check("kvm-exits -l hlt"))
    assert (int(r["io"]), int(r["hlt"])) == (0, 1)


def test_kvm_exits_rejects_bad_input(guest):
    status, out = guest.run("kvm-exits -n notanumber")
    assert status == 2
    assert "bad iteration count" in out


def test_asi_boot_state(guest):
    """asi=on sets up the restricted address spaces; asi=off leaves ASI alone."""
    dmesg = guest.check("dmesg")
    enabled = "asi: enabled; kernel mappings are non-global" in dmesg
    ready = "asi: restricted address spaces ready" in dmesg
    if "asi=on" in guest.cmdline.split():
        assert enabled and ready, [l for l in dmesg.splitlines() if "asi" in l]
        assert "asi: initialization failed" not in dmesg
    else:
        assert not enabled and not ready


FIND = "/sys/kernel/debug/asi/find"


def find_hits(guest, value, where):
    """Hits of the 64-bit value in the space where ("global" or "ram")."""
    out = guest.check(f"{{ echo '{value:#x} {where}' >&3 && cat <&3; }} 3<>{FIND}",
                      timeout=300)
    m = re.search(r"^scanned (\d+) bytes, skipped \d+, (\d+) hits", out, re.M)
    assert m, out
    assert int(m.group(1)) > 1 << 20, out      # it read the space, not nothing
    return int(m.group(2))


def test_rust_asi_sample(guest):
    """The Rust sample driver, built in (samples/rust/rust_asi.rs): with
    asi=on, the random tags in its GlobalNonSensitive state and in its
    asi_not_sensitive! static are in the global template, the one in its
    ordinary KBox is in RAM only; its class was registered and released."""
    lines = guest.check("dmesg | grep 'rust_asi: '")
    if "asi=on" not in guest.cmdline.split():
        assert "rust_asi: ASI is off: nothing is mapped" in lines, lines
        return
    m = re.search(r"rust_asi: state (0x[0-9a-f]{16}) mapped, static (0x[0-9a-f]{16}) "
                  r"mapped, private (0x[0-9a-f]{16}) not mapped$", lines, re.M)
    assert m, lines
    state, static, private = (int(v, 16) for v in m.groups())
    c = re.search(r"rust_asi: class rust-sample \(index ([1-3])\): 0 enters, 0 exits; "
                  r"released$", lines, re.M)
    assert c, lines
    assert "rust-sample" not in guest.check("asictl class show")
    # What the sample says, checked from outside Rust: the tags are where
    # their types put them.
    assert find_hits(guest, state, "global") >= 1
    assert find_hits(guest, static, "global") >= 1
    assert find_hits(guest, private, "ram") >= 1
    assert find_hits(guest, private, "global") == 0
