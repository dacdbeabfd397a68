# SPDX-License-Identifier: GPL-2.0
"""The exposure audit (asictl audit, /sys/kernel/debug/asi/audit): every
byte the global template and each VM's restricted space map, by owner.

Three kvm-exits processes hold their VMs (-w): two with one VM each, one
with two VMs (-v 2). Every range of the template and of each VM's space
has an owner the audit can name (nothing "other"), and none is
"foreign" (another domain's local memory, a user task's stack outside
its own domain, user memory in the template). The template maps code,
data, the entry area, slab caches and vmalloc areas (the IRQ stacks),
and no stack of a VM's thread. Each VM's space maps its own VM's state
(local) and guest memory (user), and of user tasks' stacks only those of
its own process's threads, with their task_structs (no user task's
task_struct is in the template); the vCPU thread that runs both VMs of
one process has its stack and task_struct in one of their spaces at
most.

Whether the audit can call something foreign at all is for KUnit
(asi_ns_test_audit_owner: another domain's page, local cache object and
local vmalloc area, and user memory in the template, are foreign).
"""

import json
import re

import pytest

HOLDERS = {"a": "", "b": "", "two": "-v 2"}


def audit(guest, space="global"):
    return json.loads(guest.check(f"asictl -j audit {space}", timeout=300))


def kinds(report):
    return {t["kind"]: t["bytes"] for t in report["totals"]}


def stacks(report, kind=None, what="stack"):
    """PIDs of the task stacks (or user task_structs) a space maps (of one
    kind)."""
    return {int(m.group(1)) for r in report["ranges"]
            if (kind is None or r["kind"] == kind)
            and (m := re.match(what + r" (\d+) ", r["owner"]))}


def check_attributed(name, report):
    """Every range has an owner, none of them another context."""
    for kind in ("foreign", "other"):
        ranges = [r for r in report["ranges"] if r["kind"] == kind]
        assert not ranges, f"{name} maps {kind} ranges: {ranges[:20]}"


def test_audit(guest):
    if "asi=on" not in guest.cmdline.split():
        # No restricted spaces, no audit file: "ASI is disabled".
        st, out = guest.run("asictl audit")
        assert st == 3, out
        return
    start = "; ".join(f"kvm-exits -l msr -n 10 {opt} -w 600 > /tmp/au-{k}.out 2>&1 & "
                      f"echo $! > /tmp/au-{k}.pid" for k, opt in HOLDERS.items())
    guest.check(start)
    try:
        out = guest.check("for i in $(seq 120); do "
                          + " && ".join(f"grep -q holding /tmp/au-{k}.out" for k in HOLDERS)
                          + " && break; sleep 1; done; cat /tmp/au-*.out", timeout=180)
        assert out.count("holding") == 3, out
        pids = {k: int(guest.check(f"cat /tmp/au-{k}.pid").strip()) for k in HOLDERS}
        threads = {k: {int(t) for t in guest.check(f"ls /proc/{pid}/task").split()}
                   for k, pid in pids.items()}

        template = audit(guest)
        check_attributed("the template", template)
        t = kinds(template)
        for kind in ("text", "data", "entry", "slab", "vmalloc"):
            assert t.get(kind, 0) > 0, (kind, t)
        vm_threads = set().union(*threads.values())
        assert not stacks(template) & vm_threads, stacks(template) & vm_threads
        # User tasks' task_structs are in no one's template.
        assert not stacks(template, what="task_struct"), \
            stacks(template, what="task_struct")
        print(f"\n{guest.name}: template: {template['bytes']} bytes: "
              + ", ".join(f"{k} {v}" for k, v in t.items()))

        spaces = [(k, 0) for k in HOLDERS] + [("two", 1)]
        for k, nth in spaces:
            name = f"kvm {pids[k]} {nth}"
            report = audit(guest, name)
            check_attributed(name, report)
            v = kinds(report)
            assert v.get("local", 0) > 0 and v.get("user", 0) > 0, (name, v)
            # Kernel threads' stacks come with the template; a user task's
            # only with its own domain.
            user_stacks = stacks(report, "local")
            assert user_stacks <= threads[k], (name, user_stacks, threads[k])
            # The vCPU thread's task_struct comes with its stack. "two"'s
            # thread makes ioctls for both VMs after their runs, and may be
            # in neither space then (asi_leave_other_domain()).
            tasks = stacks(report, what="task_struct")
            assert tasks == user_stacks, (name, tasks, user_stacks)
            assert tasks or k == "two", (name, v)
            if nth == 0:
                print(f"{guest.name}: {name}: {report['bytes']} bytes: "
                      + ", ".join(f"{kk} {vv}" for kk, vv in v.items()))
        two = [audit(guest, f"kvm {pids['two']} {n}") for n in (0, 1)]
        both = [stacks(r) & threads["two"] for r in two]
        assert not both[0] & both[1], both
        both = [stacks(r, what="task_struct") for r in two]
        assert not both[0] & both[1], both

        # Bad spaces are refused with the kernel's reason and exit 2.
        st, out = guest.run("asictl audit kvm 999999 2>&1")
        assert st == 2 and "no such process" in out, out
        st, out = guest.run(f"asictl audit kvm {pids['a']} 5 2>&1")
        assert st == 2 and "no space" in out, out
        st, out = guest.run("asictl audit nosuchclass 1 2>&1")
        assert st == 2, out
        summary = guest.check("asictl audit --summary")
        assert re.search(r"^text +\d+  code$", summary, re.M), summary
    finally:
        guest.run("kill $(cat /tmp/au-*.pid) 2>/dev/null; sleep 1; true")
