# SPDX-License-Identifier: GPL-2.0
"""asictl, the operator's CLI, against the real kernel in the guest.

Every subcommand runs with asi=on and with asi=off; JSON output is read
with Python's json module; errors are checked for their exit code and
message (asictl(8): 1 usage, 2 kernel refused, 3 ASI disabled, 4
permission denied). Commands are batched: one guest command runs many
asictl invocations and prints each one's output and exit status.

With asi=on a missing asi family fails. ASI_NL_KERNEL=path/to/bzImage
boots the asi=on tests on that kernel instead.
Marks are added, listed and deleted for real (a symbol, a slab cache), and
the kernel's reasons for refusing one (secrets, merged or marked caches,
kernel text, user addresses) must reach the user.
"""

import json
import os
import re
import shlex

import pytest

from conftest import BUILD
from guest import Guest

USAGE, KERNEL, DISABLED, PERM = 1, 2, 3, 4
NOBODY = "su nobody -s /bin/sh -c "


def asi_on(g):
    return "asi=on" in g.cmdline.split()


def many(g, cmds, timeout=300):
    """Run each shell command; a list of (exit status, output with stderr)."""
    script = "".join(f"echo @@C{i}; {c} 2>&1; echo @@R$?\n" for i, c in enumerate(cmds))
    out = g.check(f"sh -c {shlex.quote(script)}", timeout=timeout)
    res = []
    for i in range(len(cmds)):
        m = re.search(rf"^@@C{i}\n(.*?)^@@R(\d+)$", out, re.S | re.M)
        assert m, f"no result for {cmds[i]!r} in:\n{out}"
        res.append((int(m.group(2)), m.group(1)))
    return res


def ok_json(res):
    rc, out = res
    assert rc == 0, out
    return json.loads(out)


@pytest.fixture(scope="module")
def ctl(guest):
    """The guest asictl runs in: the shared one, or for asi=on the kernel
    named by ASI_NL_KERNEL."""
    g, own = guest, None
    kernel = os.environ.get("ASI_NL_KERNEL")
    if kernel and asi_on(guest):
        own = Guest(BUILD, guest.name + "-asictl", guest.cmdline, kernel=kernel)
        own.start()
        g = own
    try:
        rc, out = g.run("command -v asictl")
        if rc != 0:
            pytest.fail("asictl is not in the initramfs (make asictl initramfs)",
                        pytrace=False)
        yield g
        if own:
            splats = own.new_splats()
            assert not splats, splats
    finally:
        if own:
            own.stop()


@pytest.fixture
def on(ctl):
    """asi=on, where the asi family must be present."""
    if not asi_on(ctl):
        pytest.skip("needs asi=on")
    rc, out = ctl.run("asictl status")
    assert rc == 0, f"asi=on, but asictl finds no asi family:\n{out}"
    return ctl


def test_asictl_usage_errors(ctl):
    """No kernel needed: help, version and every kind of bad command line."""
    r = many(ctl, ["asictl -V", "asictl help", "asictl", "asictl frob",
                   "asictl -x status", "asictl status now", "asictl class frob",
                   "asictl stats --per-cpu --reset", "asictl stun maybe",
                   "asictl stun off --class", "asictl mark add",
                   "asictl mark add 0x1000", "asictl mark add 1 18446744073709551616",
                   "asictl mark del", "asictl mark del abc", "asictl mark del 4294967296",
                   "asictl exits --top 0", "asictl exits --top x", "asictl monitor now"])
    assert r[0] == (0, "asictl 1.0 (asi netlink family version 1)\n"), r[0]
    assert r[1][0] == 0 and "Usage: asictl" in r[1][1] and "Exit codes" in r[1][1]
    want = ["missing object", "unknown object 'frob'", "unknown option '-x'",
            "status: unexpected argument 'now'", "class: unknown command 'frob'",
            "do not go together", "stun: unknown command 'maybe'",
            "--class needs an argument", "missing ADDR LEN, SYMBOL or --cache NAME",
            "missing LEN after ADDR", "LEN '18446744073709551616' is out of range",
            "mark del: missing ID", "ID 'abc' is not a number",
            "ID '4294967296' is out of range", "--top must be at least 1",
            "--top 'x' is not a number", "monitor: unexpected argument 'now'"]
    for (rc, out), w in zip(r[2:], want):
        assert rc == USAGE and w in out and "Try 'asictl help'." in out, (w, rc, out)


def test_asictl_object_help(ctl):
    """No kernel needed: every object answers help with its own usage."""
    objects = ["status", "class", "stats", "stun", "mark", "exits", "monitor"]
    r = many(ctl, [f"asictl {o} help" for o in objects])
    for o, (rc, out) in zip(objects, r):
        assert rc == 0 and out.startswith(f"Usage: asictl {o}"), (o, rc, out)
        assert out.endswith("See asictl(8).\n") and "unknown" not in out, (o, out)


ALL = ["status", "-j status", "class show", "class show kvm", "stats",
       "stats kvm --per-cpu", "stats --reset", "stun show", "stun off",
       "stun on --class kvm", "mark add loops_per_jiffy", "mark add 0x1000 4096",
       "mark add --cache kmalloc-64", "mark del 1", "mark list", "exits",
       "exits --top 5 --class kvm", "monitor"]


def test_asictl_disabled(ctl):
    """asi=off: the family is absent, every subcommand says so, exit 3."""
    if asi_on(ctl):
        pytest.skip("needs asi=off")
    msg = ("asictl: ASI is disabled: the kernel has no 'asi' generic netlink "
           "family (booted with asi=off, or built without ASI)\n")
    r = many(ctl, [f"asictl {c}" for c in ALL] + [f"{NOBODY}'asictl stun off'"])
    for c, (rc, out) in zip(ALL + ["nobody: stun off"], r):
        assert (rc, out) == (DISABLED, msg), (c, rc, out)


def test_asictl_status_class(on):
    g = on
    ncpu = int(g.check("cat /sys/devices/system/cpu/possible").strip().split("-")[-1]) + 1
    r = many(g, ["asictl -j status", "asictl status", "asictl -p class show",
                 "asictl class show", "asictl -j class show kvm",
                 "asictl class show nosuch", "asictl class show 77",
                 "asictl -j stats --per-cpu", "asictl stats kvm --per-cpu",
                 "asictl -j class show 0"])
    st = ok_json(r[0])
    assert st["enabled"] is True and st["classes"] >= 1 and st["marks"] >= 0
    assert st["stun-default"] in ("on", "off") and isinstance(st["pcid"], bool)
    assert st["global-nonsensitive-bytes"] > 1 << 20
    assert re.search(r"^ASI +enabled$", r[1][1], re.M), r[1]
    assert re.search(rf"^global non-sensitive +{st['global-nonsensitive-bytes']} bytes",
                     r[1][1], re.M), r[1]
    classes = ok_json(r[2])
    kvm = [c for c in classes if c["name"] == "kvm"]
    assert kvm and kvm[0]["flags"] == ["map-standard"], classes
    assert re.search(r"^ +ID +NAME +FLAGS +INSTANCES +STUN$", r[3][1], re.M), r[3]
    assert re.search(rf"^ +{kvm[0]['id']} +kvm +map-standard +\d+ +(on|off)$", r[3][1],
                     re.M), r[3]
    assert ok_json(r[4]) == kvm
    assert r[5] == (KERNEL, "asictl: class-get of class nosuch: no class with this "
                    "name (attribute 'name') (No such file or directory)\n"), r[5]
    assert r[6][0] == KERNEL and "no class with this id (attribute 'id')" in r[6][1], r[6]
    stats = ok_json(r[7])
    assert [c["name"] for c in stats] == [c["name"] for c in classes]
    for c in stats:
        assert len(c["cpu-stats"]) == ncpu and sorted(x["cpu"] for x in c["cpu-stats"]) == list(range(ncpu))
        assert set(c["stats"]) == {"enters", "exits-explicit", "exits-page-fault",
                                   "exits-schedule", "exits-return-to-user",
                                   "exits-mm-switch", "tlb-flushes", "faults-handled",
                                   "l1d-flushes", "cpu-buffer-clears", "ibpbs", "stuns",
                                   "stunned-ns", "stun-timeouts"}
    assert "cpu0" in r[8][1] and re.search(r"^  enters +\d+", r[8][1], re.M), r[8]
    # id 0 is below the policy's minimum: the kernel's message, verbatim.
    assert r[9][0] == KERNEL and "(attribute 'id')" in r[9][1], r[9]


def test_asictl_stats_exits(on):
    g = on
    # Earlier tests in this guest ran other classes (the stress trigger's):
    # forget their exits, then check the per-class reset on its own.
    g.check("asictl stats --reset")
    r = many(g, ["asictl stats kvm --reset", "asictl -j stats kvm",
                 "asictl -j exits --class kvm"])
    assert r[0] == (0, ""), r[0]
    assert ok_json(r[1])[0]["stats"]["enters"] == 0
    assert ok_json(r[2]) == []
    g.check("kvm-exits -l io -n 500 >/dev/null", timeout=300)
    r = many(g, ["asictl -j stats kvm --per-cpu", "asictl -j exits",
                 "asictl -j exits --top 2 --class kvm", "asictl exits --top 3",
                 "asictl exits --top 2000", "asictl exits --class nosuch",
                 "asictl -j exits --class 77", "asictl stats --reset",
                 "asictl -j stats"])
    kvm = ok_json(r[0])[0]
    total = kvm["stats"]
    assert total["enters"] >= 500 and total["exits-page-fault"] > 0, total
    for k, v in total.items():
        assert v == sum(c[k] for c in kvm["cpu-stats"]), k
    exits = ok_json(r[1])
    assert exits and [e["count"] for e in exits] == sorted(
        (e["count"] for e in exits), reverse=True)
    for e in exits:
        assert e["class-name"] == "kvm" and e["class-id"] == kvm["id"] and e["symbol"]
        assert re.fullmatch(r"0x[0-9a-f]+", e["addr"]) and e["ip"] != "0x0"
    assert ok_json(r[2]) == exits[:2]
    assert re.search(r"^ +COUNT +CLASS +ADDR +IP +SYMBOL$", r[3][1], re.M), r[3]
    assert len(r[3][1].splitlines()) == 1 + min(3, len(exits))
    assert r[4][0] == KERNEL and "(attribute 'top')" in r[4][1], r[4]
    assert r[5][0] == KERNEL and "no class with this name" in r[5][1], r[5]
    assert r[6][0] == KERNEL and "no class with this id" in r[6][1], r[6]
    assert r[7] == (0, "")
    assert all(v == 0 for c in ok_json(r[8]) for v in c["stats"].values())
    print(f"{g.name}: asictl after 500 cpuid exits: {total['enters']} enters, "
          f"{len(exits)} exit places, top {exits[0]['symbol']} x{exits[0]['count']}")


YNL = "ynl --spec /usr/share/ynl/specs/asi.yaml --output-json"


def keys(obj):
    """The keys of a JSON object and of the objects nested in it, by path."""
    out = set()
    for k, v in obj.items():
        out.add(k)
        if isinstance(v, dict):
            out |= {f"{k}.{x}" for x in keys(v)}
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            out |= {f"{k}[].{x}" for e in v for x in keys(e)}
    return out


def test_asictl_keys_are_the_specs(on):
    """asictl's JSON keys are the spec's attribute names: what the kernel's
    YNL CLI prints for the same request (its replies may hold more)."""
    g = on
    r = many(g, ["asictl -j status", f"{YNL} --do status-get",
                 "asictl -j class show", f"{YNL} --dump class-get",
                 "asictl -j stats kvm --per-cpu",
                 f"{YNL} --do class-get --json '{{\"name\": \"kvm\", \"per-cpu\": true}}'"])
    status, ynl_status = ok_json(r[0]), ok_json(r[1])
    assert keys(status) == keys(ynl_status), (status, ynl_status)
    classes = {c["id"]: c for c in ok_json(r[3])}
    for c in ok_json(r[2]):
        assert keys(c) <= keys(classes[c["id"]]), (c, classes[c["id"]])
    stats, ynl_stats = ok_json(r[4])[0], ok_json(r[5])
    assert keys(stats) <= keys(ynl_stats), (keys(stats) - keys(ynl_stats))
    # Every counter and the per-CPU nest, under the spec's names.
    assert "stats.exits-page-fault" in keys(stats) and "cpu-stats[].cpu" in keys(stats)


def test_asictl_stun(on):
    g = on
    param = "/sys/module/kvm/parameters/asi_stun"
    try:
        r = many(g, ["asictl -j stun show", "asictl stun off --class kvm",
                     "asictl -j stun show --class kvm", f"cat {param}",
                     "asictl stun show", "asictl stun on", "asictl -j stun show",
                     "asictl stun on --class nosuch"])
    finally:
        g.check("asictl stun on")
    assert ok_json(r[0])["stun-default"] == "on"
    assert r[1] == (0, "")
    assert ok_json(r[2]) == {"stun-default": "on", "classes": [
        {"id": ok_json(r[2])["classes"][0]["id"], "name": "kvm", "stun": "off"}]}
    assert r[3][1].strip() == "N"
    assert re.search(r"^default +on$", r[4][1], re.M) and re.search(
        r"^kvm +off$", r[4][1], re.M), r[4]
    assert r[5] == (0, "")
    assert all(c["stun"] == "on" for c in ok_json(r[6])["classes"])
    assert r[7][0] == KERNEL and "no class with this name" in r[7][1], r[7]


def test_asictl_marks(on):
    g = on
    r = many(g, ["asictl -j mark add loops_per_jiffy", "asictl -j mark list", "asictl -j status"])
    m = ok_json(r[0])
    assert m["kind"] == "symbol" and m["name"] == "loops_per_jiffy" and m["pages"] >= 1, m
    assert m in ok_json(r[1])
    assert ok_json(r[2])["marks"] >= 1
    r = many(g, [f"asictl mark del {m['id']}", "asictl -j mark list",
                 f"asictl mark del {m['id']}", "asictl mark add no_such_symbol_x"])
    assert r[0] == (0, "")
    assert m["id"] not in [x["id"] for x in ok_json(r[1])]
    assert r[2][0] == KERNEL and r[3][0] == KERNEL, r
    assert "unknown symbol" in r[3][1], r[3]
    # The kernel's reasons reach the user.
    r = many(g, ["asictl mark add base_crng", "asictl mark add --cache kmalloc-64",
                 "asictl mark add --cache task_struct", "asictl mark add schedule",
                 "asictl mark add 0x1000 4096"])
    # Secrets are refused with EPERM: the exit status follows the errno
    # (4), the kernel's reason is shown, and no hint about capabilities.
    assert r[0][0] == PERM and "range holds secrets: base_crng" in r[0][1], r[0]
    assert "permission denied" not in r[0][1], r[0]
    for (rc, out), why in zip(r[1:], ["cache is shared by merged caches",
                                      "cache is already non-sensitive",
                                      "kernel text is mapped already", "user address"]):
        assert rc == KERNEL and why in out, (why, out)
    # A slab cache by name (filp: never merged, always has slabs).
    r = many(g, ["asictl -j mark add --cache filp"])
    m = ok_json(r[0])
    assert m["kind"] == "cache" and m["name"] == "filp" and m["pages"] > 0, m
    assert many(g, [f"asictl mark del {m['id']}"])[0] == (0, "")
    # Text mode: the list shows the mark, by name.
    r = many(g, ["asictl -j mark add loops_per_jiffy", "asictl mark list"])
    m = ok_json(r[0])
    assert re.search(rf"^ *{m['id']}\b.*\bsymbol\b.*\bloops_per_jiffy\b", r[1][1], re.M), r[1]
    assert many(g, [f"asictl mark del {m['id']}"])[0] == (0, "")


def test_asictl_monitor(on):
    """monitor (JSON lines) sees what a second shell does."""
    g = on
    second = ("asictl stun off --class kvm; asictl stun on --class kvm; asictl stun on"
              "; id=$(asictl -j mark add loops_per_jiffy | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')"
              "; asictl mark del $id")
    out = g.check("asictl -j monitor >/tmp/mon 2>&1 & m=$!; sleep 1; "
                  f"sh -c {shlex.quote(second)}; sleep 1; kill $m; wait $m; "
                  "echo monitor-exit=$?; cat /tmp/mon", timeout=120)
    assert "monitor-exit=0" in out, out
    events = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    kid = ok_json(g.run("asictl -j class show kvm"))[0]["id"]
    assert events[:3] == [{"event": "stun", "id": kid, "stun": "off"},
                          {"event": "stun", "id": kid, "stun": "on"},
                          {"event": "stun", "stun": "on"}], events
    assert [e["event"] for e in events[3:]] == ["mark-add", "mark-del"], events
    assert events[3]["name"] == "loops_per_jiffy" and events[3]["id"] == events[4]["id"]
    # Text mode, stopped by SIGINT as from a terminal.
    out = g.check("asictl monitor >/tmp/mon 2>&1 & m=$!; sleep 1; asictl stun on; "
                  "sleep 1; kill -INT $m; kill $m 2>/dev/null; wait $m; cat /tmp/mon",
                  timeout=60)
    assert re.search(r"^stun +default on$", out, re.M), out


def test_asictl_unprivileged(on):
    """nobody reads; changes are refused with exit 4 (permission denied)."""
    g = on
    r = many(g, [f"{NOBODY}{shlex.quote('asictl ' + c)}" for c in
                 ["-j status", "class show", "stats", "stun show", "exits --top 1",
                  "stun off", "stats --reset", "mark add loops_per_jiffy", "mark del 1",
                  "stun on --class kvm"]])
    for rc, out in r[:5]:
        assert rc == 0, out
    ok_json(r[0])
    for rc, out in r[5:]:
        assert rc == PERM, out
        assert "permission denied: changing ASI needs CAP_NET_ADMIN and CAP_SYS_ADMIN" in out
    assert ok_json(g.run("asictl -j stun show"))["stun-default"] == "on"
