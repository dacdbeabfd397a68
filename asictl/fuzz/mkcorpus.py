#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of asictl's fuzz targets (fuzz/corpus/*).

Argument seeds are command lines, one argument per line; reply seeds are a
selector byte (bit 0: dump, bit 1: JSON, bit 2: pretty) and netlink
messages as the kernel sends them, with sequence number and port 0.
Attribute numbers follow uapi/linux/asi.h."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
FAM = 0x20


def nla(t, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, t) + payload + b"\0" * ((4 - n % 4) % 4)


def u8(t, v): return nla(t, struct.pack("B", v))
def u32(t, v): return nla(t, struct.pack("I", v))
def u64(t, v): return nla(t, struct.pack("Q", v))
def s(t, v): return nla(t, v.encode() + b"\0")


def msg(typ, payload, flags=0):
    return struct.pack("IHHII", 16 + len(payload), typ, flags, 0, 0) + payload


def genl(cmd, attrs, typ=FAM, flags=0):
    return msg(typ, struct.pack("BBH", cmd, 1, 0) + b"".join(attrs), flags)


def err(e, text=None):
    tlv = s(1, text) if text else b""
    return msg(2, struct.pack("i", e) + struct.pack("IHHII", 20, FAM, 5, 0, 0) + tlv,
               0x100 | (0x200 if text else 0))


def cut(m, n):
    """Message @m without its last @n bytes, its length too."""
    return struct.pack("I", len(m) - n) + m[4:-n]


def done(e=0, text=None):
    tlv = s(1, text) if text else b""
    return msg(3, struct.pack("i", e) + tlv, 0x2 | (0x200 if text else 0))


stats = nla(6, b"".join(u64(t, t * 1000) for t in range(1, 13)))
cpu = lambda c: nla(8, b"".join(u64(t, c) for t in range(1, 13)) + u32(13, c))
cls = genl(2, [u32(1, 1), s(2, "kvm"), u32(3, 1), u32(4, 0), u32(5, 1), stats,
               cpu(0), cpu(1)], flags=2)

replies = {
    "status": (2, genl(1, [u8(1, 1), u8(2, 0), u32(3, 1), u64(4, 1 << 40), u32(5, 1),
                          u32(6, 0)]) + err(0)),
    "class-dump": (1 | 2, cls + cls + done()),
    "class-do": (6, cls + err(0)),
    "extack": (0, err(-2, "no class with this name")),
    "dump-error": (1, done(-2, "no class with this id")),
    "ack-warning": (0, err(0, "stats were reset meanwhile")),
    "dump-warning": (1, cls + done(0, "a class went away meanwhile")),
    "mark": (2, genl(6, [u32(1, 3), u32(2, 2), u64(3, 0xffffffff82000000), u64(4, 8),
                        s(5, "jiffies"), u64(6, 1)]) + err(0)),
    "exits": (1, genl(9, [u64(1, 0xffff888000001000), u64(2, 0xffffffff81000000),
                         s(3, "svm_vcpu_run+0x10/0x200"), u64(4, 306), u32(5, 1),
                         s(6, "kvm")], flags=2) + done()),
    "family": (0, genl(1, [nla(1, struct.pack("H", FAM) + b"\0\0"), s(2, "asi"), u32(3, 1),
                          nla(6, nla(1, u32(1, 1) + u32(2, 0))),
                          nla(7, nla(1, s(1, "monitor") + u32(2, 7)))], typ=0x10) + err(0)),
    "ntf-stun": (2, genl(12, [u32(1, 1), u32(5, 0)])),
    # The last attribute ends past a message of unaligned length.
    "attr-past-end": (0, cut(genl(2, [u32(1, 1), s(2, "kvm")]), 1)),
}

args = [
    "status", "-j\nstatus", "-p\nclass\nshow\nkvm", "stats\nkvm\n--per-cpu",
    "stats\n--reset", "stun\nshow\n--class\nkvm", "stun\noff\n--class=1",
    "mark\nadd\n0xffffffff81000000\n4096", "mark\nadd\njiffies",
    "mark\nadd\n--cache\nkmalloc-64", "mark\ndel\n3", "mark\nlist",
    "exits\n--top\n10\n--class\nkvm", "monitor", "help", "-V", "mark\ndel\nabc",
]

for name, (sel, data) in replies.items():
    with open(os.path.join(HERE, "corpus", "fuzz_reply", name), "wb") as f:
        f.write(bytes([sel]) + data)
for i, a in enumerate(args):
    with open(os.path.join(HERE, "corpus", "fuzz_args", f"seed-{i:02d}"), "w") as f:
        f.write(a)
