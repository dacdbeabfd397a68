#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Change marks and stun policies over and over, for the soak.

    churn.py SPEC SECONDS

Through the asi generic netlink family (SPEC, its YNL spec), until SECONDS
have passed: add a mark of the symbol loops_per_jiffy, set the global stun policy
off, wait 20 ms, delete the mark, set the policy on. A request whose answer
does not come within 30 s fails the run (an exception) rather than hanging
it. At the end prints "churn: marks N stun-changes M".

Run by test_asi_soak.py.
"""

import sys
import time

sys.path.insert(0, "/usr/lib/ynl")
from lib import YnlFamily

ynl = YnlFamily(sys.argv[1], schema="")
ynl.sock.settimeout(30)     # a lost answer fails the run, not hangs it
end = time.time() + float(sys.argv[2])
marks = stuns = 0
while time.time() < end:
    m = ynl.do("mark-add", {"kind": "symbol", "name": "loops_per_jiffy"})
    ynl.do("stun-set", {"stun": "off"})
    time.sleep(0.02)
    ynl.do("mark-del", {"id": m["id"]})
    ynl.do("stun-set", {"stun": "on"})
    marks += 1
    stuns += 2
print("churn: marks %d stun-changes %d" % (marks, stuns))
