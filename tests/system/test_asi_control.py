# SPDX-License-Identifier: GPL-2.0
"""Control-plane corners that need a guest of their own.

One boot, asi=on, with the asi_core KUnit suite built to be re-run from
debugfs after boot (kunit.enable=1, filtered to that suite): the suite
registers and unregisters classes, which is how the monitor group's class
notifications are driven from userspace without a module. Then the
per-instance page-table dump, and last, because it cannot be undone in a
running kernel, lockdown: every change refused, every read still served.
"""

import json
import re
import shlex

import pytest

from conftest import BUILD
from guest import Guest, GuestError
import guest_bin
import test_asi_netlink as asinl

CMDLINE = "asi=on kunit.enable=1 kunit.filter_glob=asi_core"
# In the guest (guest-bin/): the monitor group's notifications of a re-run.
NTF_PROGRAM = "class_ntf.py"
KUNIT_RUN = "/sys/kernel/debug/kunit/asi_core/run"
PAGE_TABLE = "/sys/kernel/debug/asi/page_table"
LOCKED = "the kernel is locked down: ASI cannot be changed"


@pytest.fixture(scope="module")
def ctl():
    g = Guest(BUILD, "asi-control", CMDLINE)
    try:
        g.start()
    except GuestError as e:
        pytest.fail(str(e), pytrace=False)
    print(f"\nasi-control: booted to the shell in {g.boot_seconds:.1f} s")
    try:
        guest_bin.installed(g, asinl.PROGRAM, NTF_PROGRAM)
    except BaseException:
        g.stop()
        raise
    yield g
    g.stop()


@pytest.fixture(autouse=True)
def ctl_no_splats(ctl):
    yield
    splats = ctl.new_splats()
    if splats:
        pytest.fail("asi-control: kernel splat:\n" + "\n".join(splats[:20]),
                    pytrace=False)


def test_class_notifications(ctl):
    out = ctl.check(f"{guest_bin.PY} {guest_bin.path(NTF_PROGRAM)} {asinl.SPEC} "
                    f"{KUNIT_RUN}", timeout=300)
    ntfs = json.loads([l for l in out.splitlines() if l.startswith("[")][-1])
    # The suite's fixture class "kunit", and the classes its cases register.
    new = [n["msg"]["name"] for n in ntfs if n["name"] == "class-add-ntf"]
    gone = [n["msg"]["name"] for n in ntfs if n["name"] == "class-del-ntf"]
    assert "kunit" in new and "kunit" in gone, ntfs
    assert sorted(new) == sorted(gone), ntfs
    for n in ntfs:
        if n["name"] in ("class-add-ntf", "class-del-ntf"):
            assert n["msg"]["id"] > 0, n
    # The re-run itself passed.
    res = ctl.check("cat /sys/kernel/debug/kunit/asi_core/results")
    assert re.search(r"^ok \d+ asi_core", res, re.M), res
    assert not re.search(r"^not ok", res, re.M), res
    # And the classes are gone again.
    dump = asinl.ok(asinl.nl(ctl, [{"dump": "class-get"}])[0])
    assert [c["name"] for c in dump] == ["kvm"], dump
    print(f"asi-control: {len(new)} class-add, {len(gone)} class-del notifications")


def mapped(dump):
    """The mapped ranges of a ptdump, as a set of (start, end) strings."""
    return {(m.group(1), m.group(2)) for m in re.finditer(
        r"^(0x[0-9a-f]+)-(0x[0-9a-f]+)\s+\d+[KMGT]\s+(?:RW|ro)\b", dump, re.M)}


def page_table(g, choice=None):
    """(status, output) of reading page_table after writing choice."""
    if choice is None:
        return g.run(f"cat {PAGE_TABLE}")
    return g.run(f"{{ echo {shlex.quote(choice)} >&3 && cat <&3; }} 3<>{PAGE_TABLE}")


def test_page_table_dump(ctl):
    # Default and "global": the template, as page_tables/asi_global has it.
    st, glob = page_table(ctl)
    assert st == 0, glob
    ref = ctl.check("cat /sys/kernel/debug/page_tables/asi_global")
    assert mapped(glob) and mapped(glob) == mapped(ref)
    st, out = page_table(ctl, "global")
    assert st == 0 and mapped(out) == mapped(ref), out

    # Bad choices are refused at the write.
    for choice, errtext in (("nosuchclass 1", "No such file"),
                            ("kvm", "Invalid argument"),
                            ("kvm -3", "Invalid argument"),
                            ("kvm 1x", "Invalid argument"),
                            ("global 1", "Invalid argument"),
                            ("kvm 99999", "No such process")):
        st, out = page_table(ctl, choice)
        assert st != 0 and errtext in out, (choice, out)
    # A process with no kvm instance (the shell, "current" of the echo).
    st, out = page_table(ctl, "kvm current")
    assert st != 0 and "No such file" in out, out
    st, out = page_table(ctl, "kvm 1")
    assert st != 0 and "No such file" in out, out

    # A VM's process: its instance maps what the template does not (its
    # local region: struct kvm, vCPU state), the rest is the template's.
    ctl.check("kvm-exits -l io -n 100000000 >/tmp/vm.out 2>&1 & echo $! >/tmp/vm.pid")
    try:
        pid = ctl.check("sleep 2; cat /tmp/vm.pid").split()[-1]
        ctl.check(f"test -d /proc/{pid}")
        st, inst = page_table(ctl, f"kvm {pid}")
        assert st == 0, inst
        own = mapped(inst) - mapped(ref)
        assert own, "the instance maps nothing of its own"
        assert len(mapped(inst) & mapped(ref)) > len(mapped(ref)) // 2
        # The own ranges are in the local region, not the user half.
        assert all(int(s, 16) >= 1 << 63 for s, _ in own), own
        # The address-space markers of the ptdump format are there.
        assert "---[ Kernel Space ]---" in inst or "---[" in inst, inst[:400]
        print(f"asi-control: kvm instance of {pid}: {len(mapped(inst))} ranges, "
              f"{len(own)} not in the template")
    finally:
        ctl.run("kill $(cat /tmp/vm.pid); wait")
    st, out = page_table(ctl, f"kvm {pid}")
    assert st != 0 and ("No such process" in out or "No such file" in out), out


def test_lockdown_refuses_changes(ctl):
    stun_before = asinl.ok(asinl.nl(ctl, [{"do": "stun-get"}])[0])
    # A mark made before lockdown, to try deleting under it.
    res = asinl.nl(ctl, [{"do": "mark-add", "attrs": {"kind": "symbol", "name": "loops_per_jiffy"}}])[0]
    mark = asinl.ok(res)["id"]

    ctl.check("mount -t securityfs securityfs /sys/kernel/security 2>/dev/null;"
              " echo integrity > /sys/kernel/security/lockdown")
    lock = ctl.check("cat /sys/kernel/security/lockdown")
    assert "[integrity]" in lock, lock

    changes = [
        {"do": "stats-reset", "attrs": {}},
        {"do": "stun-set", "attrs": {"stun": "off"}},
        {"do": "stun-set", "attrs": {"stun": "on"}},
        {"do": "mark-add", "attrs": {"kind": "symbol", "name": "jiffies_64"}},
        {"do": "mark-del", "attrs": {"id": mark}},
    ]
    for req, res in zip(changes, asinl.nl(ctl, changes)):
        assert res.get("errno") == asinl.EPERM, (req, res)
        assert res["extack"].get("msg") == LOCKED, (req, res)

    # Reads are served as before.
    reads = [{"do": "status-get"}, {"dump": "class-get"}, {"do": "stun-get"},
             {"dump": "exits-get"}, {"dump": "mark-get"}]
    res = asinl.nl(ctl, reads)
    for req, r in zip(reads, res):
        assert "ok" in r, (req, r)
    assert res[2]["ok"] == stun_before
    assert [m["id"] for m in res[4]["ok"]] == [mark]

    # The other ways in: debugfs and the kvm module parameter.
    st, out = ctl.run("echo off > /sys/kernel/debug/asi/stun")
    assert st != 0, out
    st, out = ctl.run("echo N > /sys/module/kvm/parameters/asi_stun")
    assert st != 0 and "Operation not permitted" in out, out
    assert ctl.check("cat /sys/module/kvm/parameters/asi_stun").strip().endswith("Y")
    assert asinl.ok(asinl.nl(ctl, [{"do": "stun-get"}])[0]) == stun_before
    dmesg = ctl.check("dmesg | grep -c 'changing address space isolation at run time is restricted' || true")
    assert int(dmesg.split()[-1]) >= 1, dmesg
