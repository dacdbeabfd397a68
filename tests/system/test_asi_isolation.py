# SPDX-License-Identifier: GPL-2.0
"""Nothing of one VM in another VM's restricted address space.

Two kvm-exits processes each run a VM whose guest writes a secret of its
own with WRMSR (the msr loop, -s). KVM handles each write on that VM's
vCPU thread, whose kernel stack carries the value, and keeps it in the
vCPU's state. While both VMs are kept (-w), /sys/kernel/debug/asi/find
reads everything the template and each VM's instance map and lists where a
secret is. Each secret must be in its own VM's instance (the vCPU state
the VM runs with) and nowhere else: not in the template, not in the other
VM's instance.

The vCPU threads' kernel stacks, found by the word at each stack's end
(STACK_END_MAGIC), are mapped in their own VM's instance only: what a
stack held last (guest registers, MSR values, copied user buffers) must
not be readable from another VM's space.

An unrelated process (guest-bin/plant.py) plants canaries where a
process's data lives in the kernel: a page-cache page, a pipe buffer, an
anonymous page, a key's payload, its kernel stack (poll() keeps the
copied pollfd array there while it sleeps) and its task_struct (the GS
base the kernel saves there). Each is in RAM (the scan of all RAM finds
it) and in no restricted space.

A process that spins in user mode with a known value in four registers
has them saved at each interrupt on the CPU's entry stack, in the
cpu_entry_area that every space maps, and then on its own kernel stack:
they are in RAM and not in the template.

Guest memory: kvm-exits keeps each VM's secret in the page its guest runs
from too. KVM maps that page into the VM's own space when the guest
faults it in (a user-half address there) and unmaps it when the VMM frees
the memory (-d: fresh pages replace it, with the memory slot kept for one
VM and deleted first for the other): then only the vCPU state holds the
secret, and the freed page, still in RAM, is in no restricted space.

Two VMs of one process (kvm-exits -v 2, VM i writes SECRET + i) have a
restricted space each: each VM's secret is in its own space only, and the
vCPU thread, which runs both VMs in turn, has its stack in one of them at
most.

The scan checks itself: a sensitive kernel word with a known value
(asi_s_test_data, 0x5ec12e7) is absent from the template, found there once
marked non-sensitive at run time, and absent again once unmarked.
"""

import re

import pytest

import guest_bin

FIND = "/sys/kernel/debug/asi/find"
SECRETS = {"a": 0x5EC2E7A1A1A1A1A1, "b": 0x5EC2E7B2B2B2B2B2}
KNOWN_SYMBOL, KNOWN_VALUE = "asi_s_test_data", 0x5EC12E7
STACK_END_MAGIC = 0x57AC6E9D


def find(guest, value, where):
    """(hits, hit lines) for value in the space where ("global" or
    "kvm PID"), from one scan."""
    out = guest.check(f"{{ echo '{value:#x} {where}' >&3 && cat <&3; }} 3<>{FIND}",
                      timeout=300)
    m = re.search(r"^scanned (\d+) bytes, skipped (\d+), (\d+) hits", out, re.M)
    assert m, out
    assert int(m.group(1)) > 1 << 20, out      # it read the space, not nothing
    lines = [line for line in out.splitlines() if re.match(r"[0-9a-f]{16} ", line)]
    return int(m.group(3)), lines


PLANT_BASE = 0x5EC2E7C3C3C3C300


def test_other_process_data_in_no_space(guest):
    """Canaries of a process that runs no VM: in RAM, in no restricted space."""
    if "asi=on" not in guest.cmdline.split():
        pytest.skip("restricted spaces exist with asi=on only")
    guest_bin.installed(guest, "plant.py")
    vms = " ".join(f"kvm-exits -l msr -n 10 -w 600 > /tmp/pl-{k}.out 2>&1 & "
                   f"echo $! > /tmp/pl-{k}.pid;" for k in SECRETS)
    guest.check(f"{vms} {guest_bin.PY} {guest_bin.path('plant.py')} {PLANT_BASE:#x} "
                "> /tmp/plant.out 2>&1 & echo $! > /tmp/plant.pid")
    try:
        out = guest.check("for i in $(seq 120); do grep -q planted /tmp/plant.out && "
                          "grep -q holding /tmp/pl-a.out && grep -q holding /tmp/pl-b.out "
                          "&& break; sleep 1; done; cat /tmp/plant.out /tmp/pl-*.out",
                          timeout=180)
        canaries = {m.group(1): int(m.group(2), 16)
                    for m in re.finditer(r"^canary (\w+) (0x[0-9a-f]+)$", out, re.M)}
        assert set(canaries) == {"page_cache", "pipe", "anon", "key", "stack",
                                 "task"}, out
        pids = [int(guest.check(f"cat /tmp/pl-{k}.pid").strip()) for k in SECRETS]
        spaces = ["global"] + [f"kvm {pid}" for pid in pids]
        for name, value in canaries.items():
            in_ram, _ = find(guest, value, "ram")
            found = {space: find(guest, value, space) for space in spaces}
            print(f"{guest.name}: canary {name} {value:#x}: {in_ram} hits in RAM, "
                  + ", ".join(f"{h} in {sp}" for sp, (h, _) in found.items()))
            assert in_ram > 0, f"canary {name} is not in RAM: {out}"
            for space, (hits, lines) in found.items():
                assert hits == 0, f"canary {name} is in restricted space {space}: {lines}"
    finally:
        guest.run("kill $(cat /tmp/plant.pid /tmp/pl-a.pid /tmp/pl-b.pid) 2>/dev/null; "
                  "sleep 1; rm -f /tmp/plant-canary; true")


SPIN_VALUE = 0x5EC2E7E5E5E5E5E5


@pytest.mark.parametrize("mode", ["spin", "syscall"])
def test_user_registers_in_no_space(guest, mode):
    """A process's registers, which every interrupt from user mode saves on
    the CPU's entry stack before moving them to the process's kernel stack,
    and which every return from a syscall passes through it (RDI and RSP),
    are in no restricted space. The control: they are in RAM (that kernel
    stack, as the process is interrupted or calls again and again)."""
    if "asi=on" not in guest.cmdline.split():
        pytest.skip("restricted spaces exist with asi=on only")
    guest_bin.installed(guest, "regs_spin.py")
    arg = " syscall" if mode == "syscall" else ""
    guest.check(f"taskset -c 1 {guest_bin.PY} {guest_bin.path('regs_spin.py')} "
                f"{SPIN_VALUE:#x}{arg} > /tmp/spin.out 2>&1 & echo $! > /tmp/spin.pid")
    try:
        out = guest.check("for i in $(seq 60); do grep -q spinning /tmp/spin.out && "
                          "break; sleep 1; done; sleep 1; cat /tmp/spin.out", timeout=120)
        assert "spinning" in out, out
        in_ram, _ = find(guest, SPIN_VALUE, "ram")
        hits, lines = find(guest, SPIN_VALUE, "global")
        print(f"{guest.name}: user registers ({mode}) {SPIN_VALUE:#x}: {in_ram} hits in RAM, "
              f"{hits} in the template")
        assert in_ram > 0, "the spinning process's registers are not in RAM"
        assert hits == 0, f"user registers in the template: {lines}"
    finally:
        guest.run("kill -9 $(cat /tmp/spin.pid) 2>/dev/null; true")


def test_find_checks_itself(guest):
    """A known sensitive word shows up in the template only while marked."""
    if "asi=on" not in guest.cmdline.split():
        pytest.skip("restricted spaces exist with asi=on only")
    def at_symbol():
        return [line for line in find(guest, KNOWN_VALUE, "global")[1]
                if f" {KNOWN_SYMBOL}+0x0/" in line]

    assert at_symbol() == []
    out = guest.check(f"asictl -j mark add {KNOWN_SYMBOL}")
    mark = re.search(r'"id":\s*(\d+)', out)
    assert mark, out
    try:
        assert len(at_symbol()) == 1
    finally:
        guest.check(f"asictl mark del {mark.group(1)}")
    assert at_symbol() == []
    # Bad requests are refused at the write.
    for bad in ("nothing", "0x1", "0x1 kvm", "0x1 nosuchclass 1", "0x1 global x",
                "0x1 ram x", "x ram"):
        st, _ = guest.run(f"echo '{bad}' > {FIND}")
        assert st != 0, bad


def test_vm_state_stays_in_its_vm(guest):
    """Each VM's WRMSR secret is in its own instance and nowhere else."""
    if "asi=on" not in guest.cmdline.split():
        pytest.skip("restricted spaces exist with asi=on only")
    start = "; ".join(
        f"kvm-exits -l msr -n 200 -s {v:#x} -w 600 > /tmp/iso-{k}.out 2>&1 & "
        f"echo $! > /tmp/iso-{k}.pid" for k, v in SECRETS.items())
    guest.check(start)
    try:
        out = guest.check("for i in $(seq 120); do "
                          "grep -q holding /tmp/iso-a.out && "
                          "grep -q holding /tmp/iso-b.out && break; sleep 1; done; "
                          "cat /tmp/iso-a.out /tmp/iso-b.out", timeout=180)
        pids = {k: int(guest.check(f"cat /tmp/iso-{k}.pid").strip()) for k in SECRETS}
        assert out.count("holding 1 VM") == 2, out
        table = {}
        for k, value in SECRETS.items():
            for space in ["global"] + [f"kvm {pids[o]}" for o in SECRETS]:
                table[(k, space)] = find(guest, value, space)
        for (k, space), (hits, lines) in table.items():
            print(f"{guest.name}: secret of VM {k} in {space}: {hits} hits {lines[:4]}")
        for k in SECRETS:
            for space, (hits, lines) in ((s, table[(k, s)]) for s in
                                         ["global"] + [f"kvm {pids[o]}" for o in SECRETS]):
                if space == f"kvm {pids[k]}":
                    assert hits > 0, (f"VM {k}'s secret is not in its own "
                                      "instance: the scan or the test is broken")
                else:
                    assert hits == 0, (f"VM {k}'s secret is in {space}: {lines}")

        # Stacks: those an instance maps besides the template's (kernel
        # threads that entered a space) are its own process's.
        def stacks(space):
            return {line.split()[0] for line in find(guest, STACK_END_MAGIC, space)[1]}
        template = stacks("global")
        own = {k: stacks(f"kvm {pids[k]}") - template for k in SECRETS}
        print(f"{guest.name}: stacks mapped: template {len(template)}, "
              f"VM a {sorted(own['a'])}, VM b {sorted(own['b'])}")
        assert own["a"] and own["b"], own
        assert not own["a"] & own["b"], own
    finally:
        guest.run("kill $(cat /tmp/iso-a.pid /tmp/iso-b.pid) 2>/dev/null; sleep 1; true")


ONE_PROCESS_SECRET = 0x5EC2E7D4D4D4D400


def test_vms_of_one_process_apart(guest):
    """Two VMs in one process: each secret in its own VM's space only."""
    if "asi=on" not in guest.cmdline.split():
        pytest.skip("restricted spaces exist with asi=on only")
    guest.check(f"kvm-exits -l msr -n 200 -v 2 -s {ONE_PROCESS_SECRET:#x} -w 600 "
                "> /tmp/iso-c.out 2>&1 & echo $! > /tmp/iso-c.pid")
    try:
        out = guest.check("for i in $(seq 120); do grep -q holding /tmp/iso-c.out && "
                          "break; sleep 1; done; cat /tmp/iso-c.out", timeout=180)
        assert "holding 2 VMs" in out, out
        pid = int(guest.check("cat /tmp/iso-c.pid").strip())
        spaces = ["global", f"kvm {pid} 0", f"kvm {pid} 1"]
        # A third space of the class does not exist: the selector is checked.
        st, _ = guest.run(f"{{ echo '0x1 kvm {pid} 2' >&3 && cat <&3; }} 3<>{FIND}")
        assert st != 0, "a third space of a process with two VMs was found"
        for vm in (0, 1):
            value = ONE_PROCESS_SECRET + vm
            found = {space: find(guest, value, space) for space in spaces}
            print(f"{guest.name}: secret of VM {vm} of one process: "
                  + ", ".join(f"{h} in {sp}" for sp, (h, _) in found.items()))
            for space, (hits, lines) in found.items():
                if space == f"kvm {pid} {vm}":
                    assert hits > 0, (f"VM {vm}'s secret is not in its own space: "
                                      "the scan or the test is broken")
                else:
                    assert hits == 0, f"VM {vm}'s secret is in {space}: {lines}"

        def stacks(space):
            return {line.split()[0] for line in find(guest, STACK_END_MAGIC, space)[1]}
        template = stacks("global")
        own = [stacks(f"kvm {pid} {vm}") - template for vm in (0, 1)]
        print(f"{guest.name}: stacks mapped: VM 0 {sorted(own[0])}, VM 1 {sorted(own[1])}")
        # One thread ran both VMs: its stack is in one space at most, the one
        # it entered last, or in none once an ioctl of the other VM (reading
        # the vCPU's stats after the run) took it out.
        assert len(own[0] | own[1]) <= 1 and not own[0] & own[1], own
    finally:
        guest.run("kill $(cat /tmp/iso-c.pid) 2>/dev/null; sleep 1; true")


def user_pages(guest, space):
    """The user-half ranges that restricted space ("kvm PID N") maps."""
    out = guest.check(f"{{ echo '{space}' >&3 && cat <&3; }} "
                      "3<>/sys/kernel/debug/asi/page_table", timeout=120)
    user = out.split("---[ User Space ]---", 1)[1].split("---[ Kernel Space ]---", 1)[0]
    return [line.split()[0] for line in user.splitlines() if " USR " in line]


GUEST_MEM_KEPT, GUEST_MEM_FREED = 0x5EC2E7E5E5E5E500, 0x5EC2E7F6F6F6F600
USER_HALF_END = 1 << 47


def test_guest_memory_mapped_until_freed(guest):
    """A VM's guest page is in its own space while the VMM keeps it, and
    gone from it once the VMM freed it, slot kept or deleted; never in
    another space."""
    if "asi=on" not in guest.cmdline.split():
        pytest.skip("restricted spaces exist with asi=on only")
    guest.check(f"kvm-exits -l msr -n 10 -s {GUEST_MEM_KEPT:#x} -w 600 "
                "> /tmp/gm-kept.out 2>&1 & echo $! > /tmp/gm-kept.pid; "
                f"kvm-exits -l msr -n 10 -v 2 -s {GUEST_MEM_FREED:#x} -w 600 -d "
                "> /tmp/gm-freed.out 2>&1 & echo $! > /tmp/gm-freed.pid")
    try:
        out = guest.check("for i in $(seq 120); do grep -q holding /tmp/gm-kept.out && "
                          "grep -q holding /tmp/gm-freed.out && break; sleep 1; done; "
                          "cat /tmp/gm-*.out", timeout=180)
        assert "holding 1 VM " in out and "holding 2 VMs" in out, out
        assert "kvm-exits: deleting" not in out and "kvm-exits: replacing" not in out, out
        kept, freed = (int(guest.check(f"cat /tmp/gm-{k}.pid").strip())
                       for k in ("kept", "freed"))
        spaces = ["global", f"kvm {kept}", f"kvm {freed} 0", f"kvm {freed} 1"]
        cases = {"kept": (GUEST_MEM_KEPT, f"kvm {kept}"),
                 "freed, slot kept": (GUEST_MEM_FREED, f"kvm {freed} 0"),
                 "freed, slot deleted": (GUEST_MEM_FREED + 1, f"kvm {freed} 1")}
        for name, (value, home) in cases.items():
            found = {space: find(guest, value, space) for space in spaces}
            own = found[home][1]
            user = [line for line in own if int(line.split()[0], 16) < USER_HALF_END]
            print(f"{guest.name}: secret of the VM whose memory is {name}: "
                  + ", ".join(f"{h} in {sp}" for sp, (h, _) in found.items())
                  + f"; in its guest page: {user}")
            for space, (hits, lines) in found.items():
                if space != home:
                    assert hits == 0, f"{name}: the VM's secret is in {space}: {lines}"
            # The vCPU state has it either way; the guest page only if kept.
            assert len(own) > len(user), own
            # A freed page may be reused at once and hold something else:
            # look at the space's user half too, which must map nothing.
            mapped = user_pages(guest, home)
            print(f"{guest.name}: user pages mapped in {home}: {mapped}")
            if name == "kept":
                assert user, f"the kept guest page is not in its VM's space: {own}"
                assert mapped, f"{home} maps no user page"
            else:
                assert not user, f"{name}: a freed guest page is still mapped: {user}"
                assert not mapped, f"{name}: {home} still maps user pages: {mapped}"
    finally:
        guest.run("kill $(cat /tmp/gm-kept.pid /tmp/gm-freed.pid) 2>/dev/null; "
                  "sleep 1; true")
