#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Catch the asi family's class notifications of a KUnit suite re-run.

    class_ntf.py SPEC KUNIT_RUN

Subscribes to the monitor group of the asi generic netlink family (SPEC,
its YNL spec), writes "1" to KUNIT_RUN (a suite's debugfs run file, e.g.
/sys/kernel/debug/kunit/asi_core/run: the suite registers and unregisters
classes), then prints the notifications that brought as one line of JSON:
a list of {"name": NOTIFICATION, "msg": ATTRIBUTES}.

Run by test_asi_control.py.
"""

import json
import sys

sys.path.insert(0, "/usr/lib/ynl")
from lib import YnlFamily

spec, kunit_run = sys.argv[1:3]
mon = YnlFamily(spec, schema="")
mon.ntf_subscribe("monitor")
with open(kunit_run, "w") as f:
    f.write("1\n")
mon.check_ntf()
print(json.dumps([dict(name=n["name"], msg=n["msg"])
                  for n in mon.async_msg_queue], default=str))
