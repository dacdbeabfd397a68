# SPDX-License-Identifier: GPL-2.0
"""The programs of guest-bin/, as the tests find them in the guest.

make initramfs (vm/mkinitramfs.sh -s) copies every guest-bin/*.py to DIR;
tests run them there with the guest's Python (PY). installed() makes sure
the booted initramfs carries them as they are in this tree.
"""

import hashlib
import os

HOST_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest-bin")
DIR = "/usr/lib/asitest"
PY = "/usr/bin/python3"


def path(name):
    """Where the guest has the program name (e.g. "nl_requests.py")."""
    return f"{DIR}/{name}"


def installed(guest, *names):
    """Fail unless the guest's copies of these programs are the tree's: an
    initramfs built before a change to one of them would run the old one."""
    want = {}
    for name in names:
        with open(os.path.join(HOST_DIR, name), "rb") as f:
            want[path(name)] = hashlib.sha256(f.read()).hexdigest()
    _, out = guest.run("sha256sum " + " ".join(want) + " 2>&1")
    have = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1] in want:
            have[parts[1]] = parts[0]
    stale = [p for p, digest in want.items() if have.get(p) != digest]
    assert not stale, (f"{guest.name}: the initramfs has no or an old "
                       f"{', '.join(stale)} (run: make initramfs)\n{out}")
