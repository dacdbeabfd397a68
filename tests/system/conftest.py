# SPDX-License-Identifier: GPL-2.0
"""pytest fixtures: one booted guest per configuration, shared by tests.

Set ASI_BUILD to the build directory (the Makefile does). A test fails if
the guest's dmesg or console log shows a new kernel splat
(tests/splat-patterns.txt) after it ran; the guest then boots afresh for the
next test. Console logs stay in $ASI_BUILD/logs/system-<config>.log.
"""

import os

import pytest

from guest import Guest, GuestError

BUILD = os.environ.get("ASI_BUILD") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "build")

# name -> extra kernel arguments
CONFIGS = {
    # kmemleak: test_asi_kvm.py scans for what creating VMs leaked.
    # kvm.asi_stun_wait_us: QEMU runs the 4 vCPUs as threads on the host's
    # 2 cores, and the host may stall a sibling longer than the 1 ms a
    # stunning CPU waits on hardware. kvm.asi_ibpb: test_asi_kvm.py checks
    # the IBPB on ASI exits, or that KVM refuses it without IBPB.
    "asi-on": "asi=on kmemleak=on kvm.asi_stun_wait_us=20000 kvm.asi_ibpb=1",
    "asi-off": "asi=off",
}

_guests = {}


def boot(name):
    """The running guest for configuration name, booted on first use."""
    g = _guests.get(name)
    if g is None or g.proc is None:
        g = Guest(BUILD, name, CONFIGS[name])
        _guests[name] = g
        g.start()
        print(f"\n{name}: booted to the shell in {g.boot_seconds:.1f} s")
    return g


@pytest.fixture(scope="session", params=list(CONFIGS))
def guest(request):
    try:
        g = boot(request.param)
    except GuestError as e:
        pytest.fail(str(e), pytrace=False)
    yield g
    g.stop()
    _guests.pop(request.param, None)


@pytest.fixture(autouse=True)
def no_splats(request):
    """A test fails for a splat that appeared while it ran, and only that
    test: the guest is stopped after it, and the next test boots a fresh
    one (as it does when the guest died or timed out for good)."""
    g = None
    if "guest" in request.fixturenames:
        g = request.getfixturevalue("guest")
        if not g.running():
            try:
                g.start()
            except GuestError as e:
                pytest.fail(str(e), pytrace=False)
            print(f"\n{g.name}: booted again, in {g.boot_seconds:.1f} s")
    yield
    if g is None or not g.running():
        return
    try:
        splats = g.new_splats()
    except GuestError as e:
        pytest.fail(str(e), pytrace=False)
    if splats:
        g.stop()
        pytest.fail(f"{g.name}: kernel splat:\n" + "\n".join(splats[:20]), pytrace=False)
