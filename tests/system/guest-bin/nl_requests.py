#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run a batch of requests to the asi generic netlink family, in the guest.

    nl_requests.py SPEC REQUESTS [DROP]

SPEC is the family's YNL spec (/usr/share/ynl/specs/asi.yaml). REQUESTS is
a JSON list; each request is one of
    {"do": OP, "attrs": {...}}       a do request through the YNL library
    {"dump": OP, "attrs": {...}}     a dump request
    {"raw": CMD, "payload": HEX, "dumpflag": 1}
                                     a message built by hand: genetlink
                                     command CMD, the attributes as hex
    {"sub": 1}                       a second socket joins the monitor group
    {"ntf": 1}                       the notifications it has received since
DROP, if given, is who runs them: "nobody" (uid and gid 65534) or
"caps:HEX" (root with only the capabilities in the mask HEX).

Prints one line: a JSON list of results, one per request: {"ok": reply},
{"errno": n, "extack": {...}}, {"ntf": [notifications]}, {"timeout": true}
for a raw request without an answer; or [{"nofamily": text}] when the
kernel has no asi family (asi=off).

Run by test_asi_netlink.py (nl()), and through it by test_asi_control.py
and test_asi_soak.py.
"""

import ctypes
import json
import os
import socket
import struct
import sys

sys.path.insert(0, "/usr/lib/ynl")
from lib import YnlFamily, NlError
from lib.ynl import NlMsgs


def raw(ynl, req):
    flags = 0x1 | 0x4 | (0x300 if req.get("dumpflag") else 0)
    msg = ynl.nlproto.message(flags, req["raw"], 1, 77)
    msg += bytes.fromhex(req.get("payload", ""))
    msg = struct.pack("I", len(msg) + 4) + msg     # ynl leaves out nlmsg_len
    ynl.sock.send(msg, 0)
    ynl.sock.settimeout(20)
    while True:
        try:
            data = ynl.sock.recv(131072)
        except socket.timeout:
            return {"timeout": True}
        for m in NlMsgs(data):
            if m.error or m.done:
                return {"errno": -m.error if m.error else 0,
                        "extack": {k: v for k, v in (m.extack or {}).items()
                                   if isinstance(v, (int, str))}}


def one(ynl, req):
    try:
        if "do" in req:
            return {"ok": ynl.do(req["do"], req.get("attrs", {}))}
        if "dump" in req:
            return {"ok": ynl.dump(req["dump"], req.get("attrs", {}))}
        if "raw" in req:
            return raw(ynl, req)
        if "sub" in req:
            global mon
            mon = YnlFamily(SPEC, schema="")
            mon.ntf_subscribe("monitor")
            return {"ok": None}
        if "ntf" in req:
            mon.check_ntf()
            out = [dict(name=n["name"], msg=n["msg"]) for n in mon.async_msg_queue]
            mon.async_msg_queue.clear()
            return {"ntf": out}
    except NlError as e:
        ext = {k: v for k, v in (e.nl_msg.extack or {}).items()
               if isinstance(v, (int, str))}
        return {"errno": e.error, "extack": ext}


def drop(how):
    """nobody: run as uid/gid 65534; caps:HEX: keep only these capabilities."""
    if how == "nobody":
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    elif how.startswith("caps:"):
        m = int(how[5:], 16)
        hdr = struct.pack("Ii", 0x20080522, 0)
        data = struct.pack("6I", m & 0xffffffff, m & 0xffffffff, 0,
                           m >> 32, m >> 32, 0)
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.syscall(126, hdr, data):
            raise OSError(ctypes.get_errno(), "capset")


SPEC = sys.argv[1]
mon = None
if len(sys.argv) > 3:
    drop(sys.argv[3])
try:
    ynl = YnlFamily(SPEC, schema="")
except Exception as e:
    if "not supported by the kernel" not in str(e):
        raise
    print(json.dumps([{"nofamily": str(e)}]))
    sys.exit(0)
print(json.dumps([one(ynl, r) for r in json.loads(sys.argv[2])], default=str))
