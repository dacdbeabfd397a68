# SPDX-License-Identifier: GPL-2.0
"""The asi generic netlink family, driven from inside the guest.

Requests go through the kernel tree's YNL library (/usr/lib/ynl/lib in the
initramfs) with the family's spec, from a small program in the initramfs
(guest-bin/nl_requests.py) that runs a batch of requests and prints one
JSON result per request, so each guest command checks many things. Raw
requests (bad attributes) are built by hand on the library's socket. Marks
(ranges, symbols, slab caches) are checked against the template's ptdump,
debugfs and the monitor's notifications. With asi=off the family must be
absent.
"""

import json
import re
import shlex

import pytest

import guest_bin

SPEC = "/usr/share/ynl/specs/asi.yaml"
# The in-guest program (guest-bin/) that runs a batch of requests.
PROGRAM = "nl_requests.py"

ASI_CMD_CLASS_GET = 2
ASI_CMD_STUN_GET = 4
ASI_CMD_STUN_SET = 5
ASI_A_CLASS_ID = 1
ASI_A_CLASS_NAME = 2
EPERM, ENOENT, EFAULT, EBUSY, EEXIST, EINVAL, ERANGE, EOPNOTSUPP = 1, 2, 14, 16, 17, 22, 34, 95


def nla(kind, payload):
    """One netlink attribute, padded, as hex."""
    n = 4 + len(payload)
    pad = (4 - n % 4) % 4
    return (n.to_bytes(2, "little") + kind.to_bytes(2, "little") + payload
            + b"\0" * pad).hex()


# Capabilities 0-40 but one, for "caps:" below.
ALL_CAPS = (1 << 41) - 1
CAP_SYS_ADMIN, CAP_SYSLOG = 21, 34
NOBODY = "nobody"
NO_SYS_ADMIN = f"caps:{ALL_CAPS & ~(1 << CAP_SYS_ADMIN):x}"
NO_SYSLOG = f"caps:{ALL_CAPS & ~(1 << CAP_SYSLOG):x}"


def nl(guest, reqs, prefix="", drop=""):
    """Run the requests in the guest; one result per request."""
    cmd = (f"{prefix}{guest_bin.PY} {guest_bin.path(PROGRAM)} {SPEC} "
           f"{shlex.quote(json.dumps(reqs))} {drop}")
    out = guest.check(cmd, timeout=300)
    line = [l for l in out.splitlines() if l.startswith("[")][-1]
    return json.loads(line)


def ok(res):
    assert "ok" in res, res
    return res["ok"]


def err(res, errno, msg=None):
    assert res.get("errno") == errno, res
    if msg is not None:
        assert res["extack"].get("msg") == msg, res


def asi_on(guest):
    return "asi=on" in guest.cmdline.split()


@pytest.fixture(scope="module")
def helper(guest):
    guest_bin.installed(guest, PROGRAM)
    return guest


def test_netlink_family_presence(helper):
    guest = helper
    res = nl(guest, [{"do": "status-get"}])[0]
    if not asi_on(guest):
        assert "nofamily" in res, res
        return
    st = ok(res)
    assert st["enabled"] == 1
    assert st["pcid"] in (0, 1)
    assert st["classes"] >= 1
    # What the template maps, by the kernel's own ptdump of it: at least
    # the kernel text, and no more than the dump (which also has the
    # cpu_entry_area that the status leaves out).
    dump = guest.check("cat /sys/kernel/debug/page_tables/asi_global")
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    dumped = sum(int(m.group(1)) * units[m.group(2)] for m in re.finditer(
        r"^0x\S+-0x\S+\s+(\d+)([KMGT])\s+(?:RW|ro)\b", dump, re.M))
    assert 1 << 20 < st["global-nonsensitive-bytes"] <= dumped, (st, dumped)
    assert st["stun-default"] == "on"
    assert st["marks"] == 0
    print(f"{guest.name}: status {st}")


def kvm_class(guest, per_cpu=False):
    attrs = {"name": "kvm"}
    if per_cpu:
        attrs["per-cpu"] = True
    return ok(nl(guest, [{"do": "class-get", "attrs": attrs}])[0])


def test_netlink_classes(helper):
    guest = helper
    if not asi_on(guest):
        pytest.skip("needs asi=on")
    kvm = kvm_class(guest, per_cpu=True)
    kid = kvm["id"]
    lo, _, hi = guest.check("cat /sys/devices/system/cpu/possible").strip().partition("-")
    ncpu = int(hi or lo) + 1
    assert kvm["name"] == "kvm"
    assert kvm["flags"] == {"map-standard"} or kvm["flags"] in (
        ["map-standard"], "{'map-standard'}")
    assert kvm["stun"] == "on"
    assert "enters" in kvm["stats"]
    assert len(kvm["cpu-stats"]) == ncpu
    assert sorted(c["cpu"] for c in kvm["cpu-stats"]) == list(range(ncpu))

    r = nl(guest, [
        {"do": "class-get", "attrs": {"id": kid}},
        {"dump": "class-get", "attrs": {}},
        {"do": "class-get", "attrs": {"id": kid, "name": "kvm"}},
        {"do": "class-get", "attrs": {}},
        {"do": "class-get", "attrs": {"name": "nosuch"}},
        {"do": "class-get", "attrs": {"id": 3 if kid != 3 else 2}},
        {"do": "class-get", "attrs": {"id": kid + 1, "name": "kvm"}},
        {"do": "class-get", "attrs": {"id": 0}},
        {"do": "class-get", "attrs": {"id": 1000}},
    ])
    assert ok(r[0])["name"] == "kvm"
    assert "cpu-stats" not in ok(r[0])
    assert "kvm" in [c["name"] for c in ok(r[1])]
    assert ok(r[2])["id"] == kid
    err(r[3], EINVAL, "class id or name is required")
    err(r[4], ENOENT, "no class with this name")
    err(r[5], ENOENT, "no class with this id")
    err(r[6], EINVAL, "class id and name do not match")
    assert r[7].get("errno") in (EINVAL, ERANGE), r[7]      # policy: min 1
    err(r[8], ENOENT, "no class with this id")


def siblings(guest):
    text = guest.check(
        "cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list").strip()
    cpus = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus += range(int(lo), int(hi or lo) + 1)
    return cpus[:2] if len(cpus) >= 2 else None


def test_netlink_stats_and_exits(helper):
    guest = helper
    if not asi_on(guest):
        pytest.skip("needs asi=on")
    kid = kvm_class(guest)["id"]
    r = nl(guest, [{"do": "stats-reset", "attrs": {"id": kid}},
                   {"do": "class-get", "attrs": {"id": kid}},
                   {"dump": "exits-get", "attrs": {"class-id": kid}}])
    ok(r[0])
    assert ok(r[1])["stats"]["enters"] == 0
    assert ok(r[2]) == []

    guest.check("kvm-exits -l io -n 1000", timeout=300)
    r = nl(guest, [{"do": "class-get", "attrs": {"id": kid}},
                   {"dump": "exits-get", "attrs": {}},
                   {"dump": "exits-get", "attrs": {"top": 2}},
                   {"dump": "exits-get", "attrs": {"class-id": kid, "top": 1024}},
                   {"dump": "exits-get", "attrs": {"class-id": 77}},
                   {"dump": "exits-get", "attrs": {"top": 0}},
                   {"dump": "exits-get", "attrs": {"top": 1025}}])
    st = ok(r[0])["stats"]
    assert st["enters"] >= 1000, st
    assert st["exits-page-fault"] > 0, st
    exits = ok(r[1])
    assert exits, "no exits after 1000 VM exits"
    counts = [e["count"] for e in exits]
    assert counts == sorted(counts, reverse=True)
    assert sum(counts) <= st["exits-page-fault"]
    for e in exits:
        assert e["class-id"] == kid and e["class-name"] == "kvm"
        assert e["symbol"] and e["addr"] != 0 and e["ip"] != 0
    assert ok(r[2]) == exits[:2]
    assert len(ok(r[3])) == len(exits)
    err(r[4], ENOENT, "no class with this id")
    assert r[5].get("errno") in (EINVAL, ERANGE), r[5]
    assert r[6].get("errno") in (EINVAL, ERANGE), r[6]
    print(f"{guest.name}: after 1000 io exits: enters {st['enters']}, "
          f"page-fault exits {st['exits-page-fault']}, {len(exits)} places, "
          f"top: {exits[0]['symbol']} x{exits[0]['count']}")

    r = nl(guest, [{"do": "stats-reset", "attrs": {}},
                   {"do": "class-get", "attrs": {"id": kid, "per-cpu": True}},
                   {"dump": "exits-get", "attrs": {}},
                   {"do": "stats-reset", "attrs": {"id": 77}}])
    ok(r[0])
    cls = ok(r[1])
    assert all(v == 0 for v in cls["stats"].values()), cls["stats"]
    for c in cls["cpu-stats"]:
        assert all(v == 0 for k, v in c.items() if k != "cpu"), c
    assert ok(r[2]) == []
    err(r[3], ENOENT, "no class with this id")


def test_netlink_stun(helper):
    guest = helper
    if not asi_on(guest):
        pytest.skip("needs asi=on")
    kid = kvm_class(guest)["id"]
    param = "/sys/module/kvm/parameters/asi_stun"
    r = nl(guest, [
        {"sub": 1},
        {"do": "stun-get", "attrs": {}},
        {"do": "stun-set", "attrs": {"id": kid, "stun": "off"}},
        {"do": "stun-get", "attrs": {"id": kid}},
        {"do": "stun-get", "attrs": {}},
        {"do": "stun-set", "attrs": {}},
        {"do": "stun-set", "attrs": {"id": 77, "stun": "on"}},
        {"raw": ASI_CMD_STUN_SET, "payload": nla(5, (2).to_bytes(4, "little"))},
        {"ntf": 1},
    ])
    assert ok(r[1]) == {"stun": "on"}
    ok(r[2])
    assert ok(r[3]) == {"id": kid, "stun": "off"}
    assert ok(r[4]) == {"stun": "on"}
    assert r[5].get("errno") == EINVAL, r[5]
    assert r[5]["extack"].get("msg") == "stun policy is required", r[5]
    err(r[6], ENOENT, "no class with this id")
    assert r[7].get("errno") in (EINVAL, ERANGE), r[7]      # policy: max 1
    assert r[8]["ntf"] == [{"name": "stun-ntf",
                            "msg": {"id": kid, "stun": "off"}}], r[8]
    assert guest.check(f"cat {param}").strip() == "N"

    # KVM honours the class policy: no stuns while it is off.
    pair = siblings(guest)
    assert pair, "the test VM has no SMT siblings"
    # io loops leave the space on every exit (to userspace).
    both = (f"taskset -c {pair[0]} kvm-exits -l io -n 5000 -t 120 & "
            f"taskset -c {pair[1]} kvm-exits -l io -n 5000 -t 120; b=$?; wait %1 && [ $b = 0 ]")
    try:
        ok(nl(guest, [{"do": "stats-reset", "attrs": {"id": kid}}])[0])
        guest.check(both, timeout=300)
        off = kvm_class(guest)["stats"]
        r = nl(guest, [{"do": "stun-set", "attrs": {"stun": "on"}},
                       {"do": "stun-get", "attrs": {"id": kid}},
                       {"do": "stats-reset", "attrs": {"id": kid}}])
        assert ok(r[1]) == {"id": kid, "stun": "on"}
        guest.check(both, timeout=300)
        on = kvm_class(guest)["stats"]
    finally:
        guest.check(f"echo 1 > {param}")
    assert off["stuns"] == 0 and off["stunned-ns"] == 0, off
    assert off["enters"] >= 10000, off
    assert on["stuns"] > 0, on
    print(f"{guest.name}: stun off: {off['stuns']} stuns in {off['enters']} "
          f"enters; on: {on['stuns']} stuns, {on['stunned-ns'] / 1e6:.0f} ms")

    # Global: every class and the default; the parameter follows.
    r = nl(guest, [{"sub": 1},
                   {"do": "stun-set", "attrs": {"stun": "off"}},
                   {"do": "stun-get", "attrs": {}},
                   {"do": "stun-get", "attrs": {"id": kid}},
                   {"do": "status-get"},
                   {"ntf": 1},
                   {"do": "stun-set", "attrs": {"stun": "on"}},
                   {"do": "stun-get", "attrs": {"id": kid}}])
    assert ok(r[2]) == {"stun": "off"}
    assert ok(r[3]) == {"id": kid, "stun": "off"}
    assert ok(r[4])["stun-default"] == "off"
    assert r[5]["ntf"] == [{"name": "stun-ntf", "msg": {"stun": "off"}}], r[5]
    assert ok(r[7]) == {"id": kid, "stun": "on"}
    assert guest.check(f"cat {param}").strip() == "Y"
    # Writing the parameter sets the class policy.
    r = nl(guest, [{"do": "stun-get", "attrs": {"id": kid}}],
           prefix=f"echo N > {param}; ")
    assert ok(r[0]) == {"id": kid, "stun": "off"}
    r = nl(guest, [{"do": "stun-get", "attrs": {"id": kid}}],
           prefix=f"echo Y > {param}; ")
    assert ok(r[0]) == {"id": kid, "stun": "on"}


def test_netlink_permissions(helper):
    guest = helper
    if not asi_on(guest):
        pytest.skip("needs asi=on")
    kid = kvm_class(guest)["id"]
    guest.check("kvm-exits -l cpuid -n 200", timeout=300)
    reqs = [{"do": "status-get"},
            {"do": "stats-reset", "attrs": {}},
            {"do": "stun-set", "attrs": {"stun": "off"}},
            {"do": "mark-add", "attrs": {"kind": "symbol", "name": "loops_per_jiffy"}},
            {"dump": "exits-get", "attrs": {"top": 1}}]
    r = nl(guest, reqs, drop=NOBODY)
    ok(r[0])
    for res in r[1:4]:
        assert res.get("errno") == EPERM, res

    # CAP_NET_ADMIN (GENL_ADMIN_PERM) is not enough.
    r = nl(guest, reqs, drop=NO_SYS_ADMIN)
    ok(r[0])
    err(r[1], EPERM, "CAP_SYS_ADMIN is required")
    err(r[2], EPERM, "CAP_SYS_ADMIN is required")
    assert ok(nl(guest, [{"do": "stun-get", "attrs": {"id": kid}}])[0])["stun"] == "on"

    # Addresses per kptr_restrict: 1 hides them from readers without
    # CAP_SYSLOG only, 2 from everyone.
    old = guest.check("cat /proc/sys/kernel/kptr_restrict").strip()
    try:
        guest.check("echo 1 > /proc/sys/kernel/kptr_restrict")
        root = ok(nl(guest, [reqs[4]])[0])
        hidden = ok(nl(guest, [reqs[4]], drop=NO_SYSLOG)[0])
        nobody_sees = ok(nl(guest, [reqs[4]], drop=NOBODY)[0])
        guest.check("echo 2 > /proc/sys/kernel/kptr_restrict")
        root2 = ok(nl(guest, [reqs[4]])[0])
    finally:
        guest.check(f"echo {old} > /proc/sys/kernel/kptr_restrict")
    assert root and root[0]["addr"] != 0 and root[0]["ip"] != 0, root
    assert hidden and hidden[0]["addr"] == 0 and hidden[0]["symbol"], hidden
    assert nobody_sees and nobody_sees[0]["ip"] == 0, nobody_sees
    assert root2 and root2[0]["addr"] == 0 and root2[0]["ip"] == 0, root2


def test_netlink_malformed(helper):
    guest = helper
    if not asi_on(guest):
        pytest.skip("needs asi=on")
    u32 = lambda v: v.to_bytes(4, "little")
    r = nl(guest, [
        # unknown attribute type (strict validation)
        {"raw": ASI_CMD_STUN_GET, "payload": nla(9, u32(1))},
        # id as a u16
        {"raw": ASI_CMD_CLASS_GET, "payload": nla(ASI_A_CLASS_ID, b"\1\0")},
        # name longer than 15
        {"raw": ASI_CMD_CLASS_GET,
         "payload": nla(ASI_A_CLASS_NAME, b"x" * 40 + b"\0")},
        # name without its NUL
        {"raw": ASI_CMD_CLASS_GET, "payload": nla(ASI_A_CLASS_NAME, b"kvm")},
        # truncated attribute header
        {"raw": ASI_CMD_CLASS_GET, "payload": "0800"},
        # attribute longer than the message
        {"raw": ASI_CMD_CLASS_GET, "payload": "4000010001000000"},
        # unknown command, and a notification id as a request
        {"raw": 99},
        {"raw": 11},
        # a dump of a do-only command
        {"raw": ASI_CMD_STUN_GET, "dumpflag": 1},
        # no such mark
        {"do": "mark-get", "attrs": {"id": 4242}},
    ])
    for res in r[:6]:
        assert res.get("errno") in (EINVAL, ERANGE), res
    assert "msg" in r[0]["extack"] or "bad-attr-offs" in r[0]["extack"], r[0]
    for res in r[6:9]:
        assert res.get("errno") == EOPNOTSUPP, res
    err(r[9], ENOENT, "no mark with this id")
    print(f"{guest.name}: malformed: " + ", ".join(
        f"{x.get('errno')}:{x.get('extack', {}).get('msg', '-')}" for x in r))


def ksym(guest, name):
    """The address of a kernel symbol, from /proc/kallsyms."""
    out = guest.check(f"grep -m1 ' {name}$' /proc/kallsyms")
    return int(out.split()[0], 16)


def ptdump_maps(dump, addr):
    """Whether the ptdump has a present mapping covering addr."""
    for m in re.finditer(r"^0x([0-9a-f]+)-0x([0-9a-f]+)\s+\d+[KMGTP]\s+(.*)$",
                         dump, re.M):
        if int(m.group(1), 16) <= addr < int(m.group(2), 16):
            return bool(re.search(r"\b(RW|ro)\b", m.group(3)))
    return False


def test_netlink_mark_errors(helper):
    guest = helper
    if not asi_on(guest):
        pytest.skip("needs asi=on")
    page = 4096
    jif = ksym(guest, "loops_per_jiffy") & ~(page - 1)
    text = ksym(guest, "_stext") & ~(page - 1)
    rng = lambda a, n: {"do": "mark-add", "attrs": {"kind": "range", "addr": a, "len": n}}
    sym = lambda n: {"do": "mark-add", "attrs": {"kind": "symbol", "name": n}}
    cache = lambda n: {"do": "mark-add", "attrs": {"kind": "cache", "name": n}}
    cases = [
        ({"do": "mark-add", "attrs": {}}, EINVAL, "mark kind is required"),
        ({"do": "mark-add", "attrs": {"kind": "range", "addr": jif}}, EINVAL,
         "addr and len are required for a range"),
        ({"do": "mark-add", "attrs": {"kind": "symbol"}}, EINVAL,
         "name is required for a symbol or cache"),
        ({"do": "mark-add", "attrs": {"kind": "range", "addr": jif, "len": page,
                                      "name": "loops_per_jiffy"}}, EINVAL,
         "attribute does not apply to this kind"),
        ({"do": "mark-add", "attrs": {"kind": "symbol", "name": "loops_per_jiffy",
                                      "len": page}}, EINVAL,
         "attribute does not apply to this kind"),
        (rng(jif, 0), EINVAL, "length is 0"),
        (rng(jif + 8, page), EINVAL, "address is not page aligned"),
        (rng(jif, 100), EINVAL, "length is not page aligned"),
        (rng(2**64 - page, 2 * page), EINVAL, "range wraps around the address space"),
        (rng(0x10000, page), EINVAL, "user address"),
        (rng(0xffff800000000000, page), EFAULT, "range is not mapped"),
        (rng(text, page), EEXIST, "range is already non-sensitive"),
        (sym("no_such_symbol_x"), ENOENT, "unknown symbol"),
        (sym("schedule"), EINVAL, "kernel text is mapped already"),
        (sym("base_crng"), EPERM, "range holds secrets: base_crng"),
        (sym("crngs"), EINVAL, "symbol is per-CPU or absolute: no address to mark"),
        (cache("no_such_cache"), ENOENT, "unknown slab cache"),
        (cache("kmalloc-64"), EBUSY,
         "cache is shared by merged caches (boot with slab_nomerge)"),
        (cache("task_struct"), EEXIST, "cache is already non-sensitive"),
        ({"do": "mark-del", "attrs": {}}, EINVAL, "mark id is required"),
        ({"do": "mark-del", "attrs": {"id": 4242}}, ENOENT, "no mark with this id"),
        ({"do": "mark-get", "attrs": {}}, EINVAL, "mark id is required"),
        ({"do": "mark-get", "attrs": {"id": 4242}}, ENOENT, "no mark with this id"),
    ]
    r = nl(guest, [c[0] for c in cases] + [{"do": "status-get"}])
    for (req, errno, msg), res in zip(cases, r):
        assert res.get("errno") == errno and res["extack"].get("msg") == msg, (req, res)
    # The attribute at fault is pointed at, where there is one.
    for i in (3, 4, 6, 9, 12, 14, 17):
        assert "bad-attr" in r[i]["extack"] or "bad-attr-offs" in r[i]["extack"], r[i]
    assert ok(r[-1])["marks"] == 0
    print(f"{guest.name}: mark errors: " + ", ".join(
        f"{x.get('errno')}:{x.get('extack', {}).get('msg', '-')}" for x in r[:-1]))


def test_netlink_marks(helper):
    guest = helper
    if not asi_on(guest):
        pytest.skip("needs asi=on")
    page = 4096
    jif = ksym(guest, "loops_per_jiffy") & ~(page - 1)
    dump = guest.check(f"cat /sys/kernel/debug/page_tables/asi_global", timeout=300)
    assert not ptdump_maps(dump, jif), hex(jif)

    # By range: add, get, dump, overlap, status, monitor, del.
    r = nl(guest, [{"sub": 1},
                   {"do": "mark-add", "attrs": {"kind": "range", "addr": jif, "len": page}},
                   {"do": "status-get"}, {"dump": "mark-get"}])
    m = ok(r[1])
    assert m["kind"] == "range" and m["addr"] == jif and m["len"] == page, m
    assert m["pages"] == 1 and m["id"] >= 1 and "name" not in m, m
    assert ok(r[2])["marks"] == 1
    assert ok(r[3]) == [m]
    mid = m["id"]
    debugfs = guest.check("cat /sys/kernel/debug/asi/marks")
    assert debugfs.strip() == f"{mid} range {jif:#x} {page:#x} -", debugfs
    dump = guest.check(f"cat /sys/kernel/debug/page_tables/asi_global", timeout=300)
    assert ptdump_maps(dump, jif), hex(jif)
    r = nl(guest, [{"sub": 1},
                   {"do": "mark-get", "attrs": {"id": mid}},
                   {"do": "mark-add", "attrs": {"kind": "symbol", "name": "loops_per_jiffy"}},
                   {"do": "mark-del", "attrs": {"id": mid}},
                   {"do": "mark-del", "attrs": {"id": mid}},
                   {"dump": "mark-get"}, {"ntf": 1}])
    assert ok(r[1]) == m
    err(r[2], EEXIST, f"range overlaps mark {mid}")
    ok(r[3])
    err(r[4], ENOENT, "no mark with this id")
    assert ok(r[5]) == []
    ntf = r[6]["ntf"]
    assert [n["name"] for n in ntf] == ["mark-del-ntf"], ntf
    assert ntf[0]["msg"]["id"] == mid and ntf[0]["msg"]["len"] == page, ntf
    dump = guest.check(f"cat /sys/kernel/debug/page_tables/asi_global", timeout=300)
    assert not ptdump_maps(dump, jif), hex(jif)

    # By symbol, with the notifications of a monitor.
    r = nl(guest, [{"sub": 1},
                   {"do": "mark-add", "attrs": {"kind": "symbol", "name": "loops_per_jiffy"}},
                   {"ntf": 1}])
    s = ok(r[1])
    assert s["kind"] == "symbol" and s["name"] == "loops_per_jiffy" and s["addr"] == jif, s
    assert s["len"] >= page and s["pages"] == s["len"] // page and s["id"] != mid, s
    assert [n["name"] for n in r[2]["ntf"]] == ["mark-add-ntf"], r[2]
    assert r[2]["ntf"][0]["msg"]["id"] == s["id"], r[2]
    dump = guest.check(f"cat /sys/kernel/debug/page_tables/asi_global", timeout=300)
    assert ptdump_maps(dump, jif), hex(jif)
    # Addresses follow kptr_restrict, as for exits.
    old = guest.check("cat /proc/sys/kernel/kptr_restrict").strip()
    try:
        guest.check("echo 2 > /proc/sys/kernel/kptr_restrict")
        hidden = ok(nl(guest, [{"do": "mark-get", "attrs": {"id": s["id"]}}])[0])
    finally:
        guest.check(f"echo {old} > /proc/sys/kernel/kptr_restrict")
    assert hidden["addr"] == 0 and hidden["len"] == s["len"], hidden
    # Only root changes marks.
    r = nl(guest, [{"do": "mark-del", "attrs": {"id": s["id"]}}], drop=NO_SYS_ADMIN)
    err(r[0], EPERM, "CAP_SYS_ADMIN is required")
    r = nl(guest, [{"do": "mark-del", "attrs": {"id": s["id"]}}, {"do": "status-get"}])
    ok(r[0])
    assert ok(r[1])["marks"] == 0
    dump = guest.check(f"cat /sys/kernel/debug/page_tables/asi_global", timeout=300)
    assert not ptdump_maps(dump, jif), hex(jif)
    assert guest.check("cat /sys/kernel/debug/asi/marks").strip() == ""
    print(f"{guest.name}: marks: range {m}, symbol {s}")


def test_netlink_cache_marks(helper):
    """Mark a slab cache by name: add, get, dump, debugfs, monitor, del."""
    guest = helper
    if not asi_on(guest):
        pytest.skip("needs asi=on")
    page = 4096
    # filp is SLAB_TYPESAFE_BY_RCU, so never merged, and always has slabs.
    assert guest.check("cat /sys/kernel/slab/filp/aliases").strip() == "0"
    r = nl(guest, [{"sub": 1}, {"do": "status-get"},
                   {"do": "mark-add", "attrs": {"kind": "cache", "name": "filp"}},
                   {"do": "mark-add", "attrs": {"kind": "cache", "name": "filp"}},
                   {"do": "status-get"}, {"dump": "mark-get"}, {"ntf": 1}])
    before = ok(r.pop(1))
    m = ok(r[1])
    assert m["kind"] == "cache" and m["name"] == "filp" and m["addr"] == 0, m
    assert m["pages"] >= 1 and m["len"] == m["pages"] * page, m
    mid = m["id"]
    err(r[2], EEXIST, f"cache is already marked: mark {mid}")
    st = ok(r[3])
    assert st["marks"] == 1, st
    # The slabs are in the template now (other allocations move it too).
    assert (st["global-nonsensitive-bytes"] >
            before["global-nonsensitive-bytes"]), (before, st)
    assert ok(r[4]) == [m]
    ntf = r[5]["ntf"]
    assert [n["name"] for n in ntf] == ["mark-add-ntf"], ntf
    assert ntf[0]["msg"]["id"] == mid and ntf[0]["msg"]["name"] == "filp", ntf
    debugfs = guest.check("cat /sys/kernel/debug/asi/marks")
    assert debugfs.strip() == f"{mid} cache 0x0 {m['len']:#x} filp", debugfs
    # Files opened while marked come from mapped slabs; the guest runs on.
    guest.check("for i in $(seq 200); do exec 3</proc/self/stat; exec 3<&-; done")
    r = nl(guest, [{"sub": 1},
                   {"do": "mark-get", "attrs": {"id": mid}},
                   {"do": "mark-del", "attrs": {"id": mid}},
                   {"do": "mark-del", "attrs": {"id": mid}},
                   {"do": "status-get"}, {"ntf": 1}])
    assert ok(r[1]) == m
    ok(r[2])
    err(r[3], ENOENT, "no mark with this id")
    assert ok(r[4])["marks"] == 0
    ntf = r[5]["ntf"]
    assert [n["name"] for n in ntf] == ["mark-del-ntf"], ntf
    assert ntf[0]["msg"]["id"] == mid, ntf
    assert guest.check("cat /sys/kernel/debug/asi/marks").strip() == ""
    print(f"{guest.name}: cache mark {m}")
