#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Seeded fuzzer of the asi generic netlink family, for the test guest.

The initramfs carries this file (/usr/lib/asitest/) and test_asi_fuzz.py runs
it there with the guest's Python 3.11 (stdlib only: no YNL, no yaml); the
host imports it too, to derive the op table from uapi/asi.yaml and to
rebuild the message stream of a seed, which must hash the same as the one
the guest sent.

    fuzz_asi_nl.py prepare SPEC.json CTX.json INITIAL.json
                                                 resolve the family, save the
                                                 initial state, add a canary
                                                 mark; write the context
    fuzz_asi_nl.py snap CTX.json                 the state, as JSON
    fuzz_asi_nl.py run CTX.json IDENTITY SEED COUNT
                                                 send COUNT messages as IDENTITY
                                                 (root, nobody or nosysadmin),
                                                 classify every reply
    fuzz_asi_nl.py restore CTX.json INITIAL.json delete the marks that were not
                                                 there initially, put the stun
                                                 policies back; the state after
    fuzz_asi_nl.py replay CTX.json IDENTITY HEX  send one buffer (an anomaly's
                                                 "msg") and judge the answers

Every command prints one line of JSON. The stream of messages depends only
on (seed, identity, count, context): random.Random is seeded with a string,
nothing iterates over a set, and replies never steer the generator.
"""

import errno
import hashlib
import json
import os
import random
import select
import socket
import struct
import sys
import time

# netlink(7), genetlink
NLMSG_ERROR, NLMSG_DONE = 2, 3
F_REQUEST, F_MULTI, F_ACK, F_ECHO = 0x1, 0x2, 0x4, 0x8
F_ROOT, F_MATCH, F_ATOMIC, F_DUMP = 0x100, 0x200, 0x400, 0x300
F_CAPPED, F_ACK_TLVS = 0x100, 0x200          # in acks
NLA_F_NESTED, NLA_F_NET_BYTEORDER = 0x8000, 0x4000
SOL_NETLINK, NETLINK_GENERIC = 270, 16
NETLINK_ADD_MEMBERSHIP, NETLINK_CAP_ACK = 1, 10
NETLINK_EXT_ACK, NETLINK_GET_STRICT_CHK = 11, 12
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS = 1, 2
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_VERSION = 1, 2, 3
CTRL_ATTR_MCAST_GROUPS = 7
HDR = struct.Struct("<IHHII")                 # nlmsghdr
GENL = struct.Struct("<BBH")                  # genlmsghdr
NOBODY = 65534
CAP_SYS_ADMIN = 21
# Outcomes that mean the request was carried out.
DONE_OK = ("ack", "data", "data+ack", "none")


def errname(e):
    """errno's name; 95 is EOPNOTSUPP (errno calls it ENOTSUP)."""
    return "EOPNOTSUPP" if e == errno.EOPNOTSUPP else errno.errorcode.get(e, str(e))


def align4(n):
    return (n + 3) & ~3


# ---------------------------------------------------------------- the spec

def spec_table(path):
    """The op table of a YNL genetlink spec (host side; needs yaml)."""
    import yaml
    with open(path) as f:
        spec = yaml.safe_load(f)
    enums = {}
    for d in spec.get("definitions", []):
        if d["type"] == "enum":
            start = d.get("value-start", 0)
            enums[d["name"]] = [start + i for i in range(len(d["entries"]))]
        elif d["type"] == "flags":
            enums[d["name"]] = [1 << i for i in range(len(d["entries"]))]
    sets = {}
    for s in spec["attribute-sets"]:
        attrs, val = {}, 1
        for a in s["attributes"]:
            val = a.get("value", val)
            ent = {"value": val, "type": a["type"]}
            checks = a.get("checks", {})
            for k in ("min", "max", "max-len"):
                if k in checks:
                    ent[k] = checks[k]
            if a.get("enum") in enums and a["type"] != "string":
                ent["enum"] = enums[a["enum"]]
            if a["type"] == "nest":
                ent["nest"] = a["nested-attributes"]
            attrs[a["name"]] = ent
            val += 1
        sets[s["name"]] = attrs
    ops, val = [], 1
    for o in spec["operations"]["list"]:
        val = o.get("value", val)
        op = {"name": o["name"], "value": val,
              "set": o.get("attribute-set"),
              "admin": "admin-perm" in o.get("flags", []),
              "event": "event" in o or "notify" in o}
        if "notify" in o:
            op["set"] = next(p.get("attribute-set") for p in spec["operations"]["list"]
                             if p["name"] == o["notify"])
        for form in ("do", "dump"):
            if form in o:
                body = o[form] or {}
                op[form] = {
                    "request": (body.get("request") or {}).get("attributes", []),
                    "reply": "reply" in body}
            else:
                op[form] = None
        ops.append(op)
        val += 1
    return {"name": spec["name"], "sets": sets, "ops": ops}


# ---------------------------------------------------------------- encoding

def nla(atype, payload, pad=True):
    n = 4 + len(payload)
    out = struct.pack("<HH", n & 0xffff, atype & 0xffff) + payload
    return out + b"\0" * (-n % 4) if pad else out


def parse_attrs(data):
    """[(type without flags, payload)] of well-formed attributes."""
    out, off = [], 0
    while off + 4 <= len(data):
        n, t = struct.unpack_from("<HH", data, off)
        if n < 4 or off + n > len(data):
            break
        out.append((t & 0x3fff, data[off + 4:off + n]))
        off += align4(n)
    return out


def decode(spec, setname, data):
    """An attribute set's payload as {name: value}; multi-attr as lists."""
    names = {a["value"]: (n, a) for n, a in spec["sets"][setname].items()}
    out = {}
    for t, p in parse_attrs(data):
        if t not in names:
            out.setdefault("?%d" % t, p.hex())
            continue
        n, a = names[t]
        kind = a["type"]
        if kind == "u8":
            v = p[0]
        elif kind == "u32":
            v = struct.unpack("<I", p[:4])[0]
        elif kind == "uint":
            v = int.from_bytes(p, "little")
        elif kind == "string":
            v = p.split(b"\0")[0].decode(errors="replace")
        elif kind == "flag":
            v = True
        elif kind == "nest":
            v = decode(spec, a["nest"], p)
        else:
            v = p.hex()
        if n in _MULTI:
            out.setdefault(n, []).append(v)
        else:
            out.setdefault(n, v)
    return out


_MULTI = ("cpu-stats",)


def split_msgs(data):
    """The netlink messages of one datagram: (type, flags, seq, payload)."""
    out, off = [], 0
    while off + 16 <= len(data):
        n, t, fl, seq, _ = HDR.unpack_from(data, off)
        if n < 16 or off + n > len(data):
            out.append((-1, 0, 0, data[off:]))
            break
        out.append((t, fl, seq, data[off + 16:off + n]))
        off += align4(n)
    return out


def parse_err(fl, payload):
    """(errno, extack msg, bad-attr offset) of an NLMSG_ERROR payload."""
    err = -struct.unpack_from("<i", payload)[0]
    msg, offs = None, None
    if fl & F_ACK_TLVS and len(payload) >= 20:
        olen = struct.unpack_from("<I", payload, 4)[0]
        tlv = 4 + (16 if fl & F_CAPPED else olen)
        for t, p in parse_attrs(payload[align4(tlv):]):
            if t == NLMSGERR_ATTR_MSG:
                msg = p.split(b"\0")[0].decode(errors="replace")
            elif t == NLMSGERR_ATTR_OFFS and len(p) >= 4:
                offs = struct.unpack_from("<I", p)[0]
    return err, msg, offs


def parse_done(fl, payload):
    status = struct.unpack_from("<i", payload)[0] if len(payload) >= 4 else 0
    msg = None
    if fl & F_ACK_TLVS:
        for t, p in parse_attrs(payload[4:]):
            if t == NLMSGERR_ATTR_MSG:
                msg = p.split(b"\0")[0].decode(errors="replace")
    return -status, msg


def kernel_view(buf):
    """The messages netlink_rcv_skb() hands on, as (offset, header)."""
    out, off = [], 0
    while len(buf) - off >= 16:
        hdr = HDR.unpack_from(buf, off)
        if hdr[0] < 16 or hdr[0] > len(buf) - off:
            break
        out.append((off, hdr))
        off += min(align4(hdr[0]), len(buf) - off)
    return out


# ---------------------------------------------------------------- generator

U32_VALUES = [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 127, 128, 255, 256,
              1023, 1024, 1025, 4096, 0xffff, 0x10000, 0x7fffffff, 0x80000000,
              0xfffffffe, 0xffffffff]
U64_VALUES = [0, 1, 4095, 4096, 4097, 8192, 1 << 20, 1 << 21, 1 << 30, 1 << 32,
              (1 << 32) - 1, 1 << 47, 1 << 63, (1 << 64) - 1, (1 << 64) - 4096,
              0x10000, 0x7ffffffff000, 0x800000000000, 0xffff800000000000,
              0xff00000000000000, 0xffffffff80000000, 0xffffffffff600000,
              0xfffffe0000000000, 0xffffc90000000000]
STRINGS = [b"", b"kvm", b"KVM", b"kvm\0junk", b"loops_per_jiffy", b"schedule",
           b"base_crng", b"crngs", b"init_net", b"no_such_symbol_x",
           b"kmalloc-64", b"task_struct", b"cred_jar", b"%s%s%n%p", b"\xff\xfe",
           b"a" * 15, b"b" * 16, b"c" * 127, b"d" * 128]
MAX_BODY = 16384
NOISE_FLAGS = [F_ROOT, F_MATCH, F_ATOMIC, 0x10, 0x20, 0x40, 0x800, 0x1000, 0x8000]


class Send:
    """One send(): the buffer and what the generator meant by it."""

    def __init__(self, buf, msgs, abandon=False, reopen=None):
        self.buf = buf
        self.msgs = msgs            # [{"seq", "off", "mode", ...}], generated
        self.abandon = abandon
        self.reopen = reopen        # socket options, or None

    def digest_bytes(self):
        tag = b"A" if self.abandon else b"S"
        if self.reopen is not None:
            tag += b"R" + bytes(self.reopen)
        return tag + struct.pack("<I", len(self.buf)) + self.buf


class Generator:
    """Sends for one identity: random messages, and mutated valid ones."""

    def __init__(self, ctx, seed, identity):
        self.ctx = ctx
        self.spec = ctx["spec"]
        self.r = random.Random("asi-nl-fuzz/%s/%s" % (seed, identity))
        self.fam = ctx["family_id"]
        self.version = ctx["family_version"]
        self.ops = self.spec["ops"]
        self.requests = [o for o in self.ops if o["do"] or o["dump"]]
        self.events = [o for o in self.ops if o["event"]]
        self.max_cmd = max(o["value"] for o in self.ops)
        self.setnames = sorted(self.spec["sets"])
        self.seq = 1000
        self.stats = {}
        self.sane = False           # values for a template: mostly good ones

    def count(self, what):
        self.stats[what] = self.stats.get(what, 0) + 1

    # values

    def runtime(self, setname, aname):
        return self.ctx["values"].get("%s.%s" % (setname, aname), [])

    def int_value(self, setname, aname, a, bits):
        r = self.r
        lo, hi = a.get("min"), a.get("max")
        pool = list(self.runtime(setname, aname))
        pool += a.get("enum", [])
        if lo is not None:
            pool += [lo, lo + 1]
        if hi is not None:
            pool += [hi, hi - 1]
        if r.random() < (0.92 if self.sane else 0.6) and pool:
            v = r.choice(pool)
        elif r.random() < 0.5:
            v = r.choice(U32_VALUES if bits == 32 else U64_VALUES + U32_VALUES)
        else:
            v = r.getrandbits(bits)
        out = [x for x in (lo - 1 if lo is not None else None,
                           hi + 1 if hi is not None else None) if x is not None]
        if out and r.random() < (0.02 if self.sane else 0.1):
            v = r.choice(out)                                   # out of range
        return v & ((1 << bits) - 1)

    def string_value(self, setname, aname, a):
        r = self.r
        pool = [s.encode() for s in self.runtime(setname, aname)]
        if r.random() < (0.9 if self.sane else 0.5) and pool:
            s = r.choice(pool)
        else:
            s = r.choice(STRINGS)
        return s + b"\0"

    def valid_payload(self, setname, aname, a, depth):
        kind = a["type"]
        if kind == "u8":
            return bytes([self.int_value(setname, aname, a, 8)])
        if kind == "u32":
            return struct.pack("<I", self.int_value(setname, aname, a, 32))
        if kind == "uint":
            v = self.int_value(setname, aname, a, 64)
            if v < 1 << 32 and self.r.random() < 0.5:
                return struct.pack("<I", v)
            return struct.pack("<Q", v)
        if kind == "string":
            return self.string_value(setname, aname, a)
        if kind == "flag":
            return b""
        if kind == "nest":
            return self.attrs(a["nest"], depth + 1, self.r.randrange(4))
        return self.r.randbytes(self.r.randrange(9))

    def invalid_payload(self, a):
        r, kind = self.r, a["type"]
        if kind == "string":
            lim = a.get("max-len", 64)
            how = r.randrange(8)
            if how == 0:
                return b""
            if how == 1:
                return b"x" * r.randrange(1, 40)                # no NUL
            if how == 2:
                return b"y" * (lim + 1) + b"\0"
            if how == 3:
                return b"z" * lim + b"\0"                       # just fits
            if how == 4:
                return b"w" * r.randrange(lim, 4000) + b"\0"    # oversized
            if how == 5:
                return b"kvm\0" + r.randbytes(r.randrange(1, 200))
            if how == 6:
                return b"\0" * r.randrange(1, 20)
            return r.randbytes(r.randrange(1, 300))
        if kind == "flag":
            return r.randbytes(r.choice([1, 4, 8]))
        good = {"u8": 1, "u32": 4, "uint": 8}.get(kind)
        n = r.choice([0, 1, 2, 3, 5, 6, 7, 9, 12, 16, 17, r.randrange(65)])
        if kind == "uint" and n == 4:
            n = 3
        if n == good:
            n += 1
        return r.randbytes(n)

    def attr(self, setname, depth):
        """One attribute of setname's space, good or bad."""
        r = self.r
        aset = self.spec["sets"][setname]
        roll = r.random()
        if roll < 0.7:
            aname = r.choice(sorted(aset))
        elif roll < 0.82:
            setname = r.choice(self.setnames)
            aset = self.spec["sets"][setname]
            aname = r.choice(sorted(aset))
        else:
            aname = None
        if aname:
            a = aset[aname]
            atype = a["value"]
            if r.random() < 0.72:
                payload = self.valid_payload(setname, aname, a, depth)
                self.count("attr-valid")
            else:
                payload = self.invalid_payload(a)
                self.count("attr-invalid")
        else:
            top = max(x["value"] for x in aset.values())
            atype = r.choice([0, top + 1, top + 2, 0x3fff, r.randrange(top + 1, 0x4000)])
            payload = r.randbytes(r.choice([0, 1, 4, 8, r.randrange(64)]))
            self.count("attr-unknown")
        if depth < 4 and r.random() < 0.1:
            payload = self.attrs(r.choice(self.setnames), depth + 1, r.randrange(4))
            if r.random() < 0.7:
                atype |= NLA_F_NESTED
            self.count("attr-nested-depth-%d" % (depth + 1))
        elif r.random() < 0.04:
            atype |= NLA_F_NESTED
            self.count("attr-nested-flag")
        if r.random() < 0.03:
            atype |= NLA_F_NET_BYTEORDER
        pad = r.random() > 0.03
        if not pad and (4 + len(payload)) % 4:
            self.count("attr-unpadded")
        return nla(atype, payload, pad)

    def attrs(self, setname, depth, n):
        return b"".join(self.attr(setname, depth) for _ in range(n))

    def flags(self, op):
        r = self.r
        fl = F_REQUEST
        if r.random() < 0.5:
            fl |= F_ACK
        can_dump = op is not None and op["dump"] is not None
        can_do = op is not None and op["do"] is not None
        p = 0.9 if can_dump and not can_do else 0.45 if can_dump else 0.08
        if r.random() < p:
            fl |= F_DUMP
        if r.random() < 0.04:
            fl |= F_ECHO
        if r.random() < 0.06:
            fl |= r.choice(NOISE_FLAGS) if r.random() < 0.8 else r.getrandbits(16)
            fl |= F_REQUEST
        return fl

    def genl(self, cmd):
        r = self.r
        version = self.version if r.random() < 0.93 else r.randrange(256)
        reserved = 0 if r.random() < 0.96 else r.randrange(1, 1 << 16)
        return GENL.pack(cmd & 0xff, version, reserved)

    def tail(self):
        """A broken attribute header at the end."""
        r = self.r
        how = r.randrange(4)
        self.count("tail-%d" % how)
        if how == 0:
            return r.randbytes(r.randrange(1, 4))                # < 4 bytes
        if how == 1:                                             # nla_len < 4
            return struct.pack("<HH", r.randrange(4), r.randrange(1, 12))
        if how == 2:                                             # beyond the end
            return struct.pack("<HH", r.randrange(9, 0x10000), r.randrange(1, 12)) + \
                r.randbytes(r.randrange(5))
        return struct.pack("<HH", 8, 1) + b"\1\0"                # cut payload

    def random_message(self):
        r = self.r
        roll = r.random()
        if roll < 0.76:
            op = r.choice(self.requests)
            cmd = op["value"]
        elif roll < 0.84:
            op = r.choice(self.events)
            cmd = op["value"]
        else:
            op = None
            cmd = r.choice([0, self.max_cmd + 1, self.max_cmd + 2, 0x7f, 0xff,
                            r.randrange(self.max_cmd + 1, 256)])
        setname = op["set"] if op and op["set"] else r.choice(self.setnames)
        n = r.choice([0, 0, 1, 1, 1, 2, 2, 3, 4, 6])
        body = self.genl(cmd) + self.attrs(setname, 0, n)
        if r.random() < 0.06:
            body += self.tail()
        self.count("mode-random")
        return self.flags(op), body

    def template(self):
        """A valid request of a random op, from the spec."""
        r = self.r
        op = r.choice(self.requests)
        forms = [f for f in ("do", "dump") if op[f]]
        form = r.choice(forms)
        fl = F_REQUEST | (F_ACK if r.random() < 0.5 else 0)
        if form == "dump":
            fl |= F_DUMP
        aset = self.spec["sets"][op["set"]]
        names = [a for a in op[form]["request"] if r.random() < 0.75]
        fixed = {}
        if op["name"] == "mark-add" and r.random() < 0.8:
            # The attributes that go with the kind (asi_nl_mark_attrs()).
            kind = r.choice(aset["kind"]["enum"])
            names = ["kind"] + (["addr", "len"] if kind == 1 else ["name"])
            fixed["kind"] = struct.pack("<I", kind)
        self.sane = True
        attrs = []
        for aname in names:
            a = aset[aname]
            payload = fixed.get(aname)
            if payload is None:
                payload = self.valid_payload(op["set"], aname, a, 0)
            attrs.append(nla(a["value"], payload))
        self.sane = False
        return op, fl, attrs

    def mutated_message(self):
        r = self.r
        op, fl, attrs = self.template()
        self.count("template-%s" % op["name"])
        body = bytearray(GENL.pack(op["value"], self.version, 0) + b"".join(attrs))
        for _ in range(r.choice([0, 1, 1, 2, 2, 3, 4])):
            how = r.randrange(10)
            self.count("mutation-%d" % how)
            if how == 0 and body:                                # bit flip
                i = r.randrange(len(body))
                body[i] ^= 1 << r.randrange(8)
            elif how == 1 and body:                              # interesting byte
                body[r.randrange(len(body))] = r.choice([0, 1, 0x7f, 0x80, 0xff])
            elif how == 2 and len(body) > 4:                     # truncate
                del body[r.randrange(4, len(body)):]
            elif how == 3:                                       # insert bytes
                i = r.randrange(len(body) + 1)
                body[i:i] = r.randbytes(r.randrange(1, 9))
            elif how == 4 and attrs:                             # duplicate attr
                body += r.choice(attrs)
            elif how == 5 and attrs:                             # nla_len lie
                off = 4 + sum(len(a) for a in attrs[:r.randrange(len(attrs))])
                if off + 2 <= len(body):
                    body[off:off + 2] = struct.pack("<H", r.choice(
                        [0, 1, 3, 4, 5, 7, 9, 0xffff, r.randrange(0x10000)]))
            elif how == 6 and attrs:                             # drop an attr
                keep = list(attrs)
                del keep[r.randrange(len(keep))]
                body = bytearray(bytes(body[:4]) + b"".join(keep))
            elif how == 7:                                       # other op
                body[0] = r.choice(self.requests)["value"]
            elif how == 8:                                       # flip do/dump/ack
                fl ^= r.choice([F_DUMP, F_ACK, F_ROOT, F_MATCH])
            else:                                                # foreign attr
                body += self.attr(r.choice(self.setnames), 0)
        self.count("mode-mutated")
        return fl, bytes(body)

    def message(self):
        """(flags, genl header + attributes) of one message, at most 16 KB
        (deep nests of long strings could outgrow the socket buffers)."""
        if self.r.random() < 0.5:
            fl, body = self.random_message()
        else:
            fl, body = self.mutated_message()
        if len(body) > MAX_BODY:
            self.count("cut-to-16k")
        return fl, body[:MAX_BODY]

    def header(self, fl, body):
        """nlmsghdr, with nlmsg_len lying now and then."""
        r = self.r
        self.seq += 1
        real = 16 + len(body)
        n, lie = real, None
        if r.random() < 0.04:
            lie = r.choice(["tiny", "short", "short", "long"])
            if lie == "tiny":
                n = r.randrange(16)
            elif lie == "short":
                n = r.randrange(16, real) if real > 16 else 16
            else:
                n = r.choice([real + r.randrange(1, 64), 0xffffffff])
            self.count("len-" + lie)
        return HDR.pack(n, self.fam, fl & 0xffff, self.seq, 0), lie

    def next_send(self, left):
        r = self.r
        reopen = None
        if self.seq == 1000 or r.random() < 0.02:
            reopen = [r.random() < 0.5, r.random() < 0.9, r.random() < 0.5]
        if r.random() < 0.015:
            return self.abandon_send(reopen)
        n = 1 if r.random() < 0.6 else r.randrange(2, 9)
        n = min(n, left)
        buf, msgs = bytearray(), []
        for _ in range(n):
            fl, body = self.message()
            hdr, lie = self.header(fl, body)
            msgs.append({"seq": self.seq, "off": len(buf), "lie": lie})
            buf += hdr + body
            if r.random() < 0.95:
                buf += b"\0" * (-len(buf) % 4)
            elif len(buf) % 4:
                self.count("msg-unpadded")
        if n > 1:
            self.count("batch")
        return Send(self.sanitize(buf, msgs), msgs, reopen=reopen)

    def abandon_send(self, reopen):
        """A dump whose socket is closed before the answer is read."""
        r = self.r
        dumps = [o for o in self.requests if o["dump"]]
        op = r.choice(dumps)
        aset = self.spec["sets"][op["set"]]
        attrs = b"".join(nla(aset[a]["value"], self.valid_payload(op["set"], a, aset[a], 0))
                         for a in op["dump"]["request"] if r.random() < 0.5)
        body = GENL.pack(op["value"], self.version, 0) + attrs
        self.seq += 1
        buf = HDR.pack(16 + len(body), self.fam, F_REQUEST | F_DUMP, self.seq, 0) + body
        self.count("abandon")
        return Send(buf, [{"seq": self.seq, "off": 0, "lie": None}], abandon=True,
                    reopen=reopen)

    def sanitize(self, buf, msgs):
        """Make sure the kernel parses no header but ours: a lying nlmsg_len
        can make it read a header out of the middle of a message, with any
        type (another family) and any seq; such a header gets length 0, which
        ends the parsing there."""
        ours = {m["off"] for m in msgs}
        while True:
            for off, hdr in kernel_view(buf):
                if off not in ours:
                    buf[off:off + 4] = b"\0\0\0\0"
                    self.count("sanitized")
                    break
            else:
                return bytes(buf)

    def sends(self, count):
        left = count
        while left > 0:
            s = self.next_send(left)
            left -= len(s.msgs)
            yield s


def stream_digest(ctx, seed, identity, count):
    """sha256 of the sends of (seed, identity, count), and the generator."""
    g = Generator(ctx, seed, identity)
    h = hashlib.sha256()
    n = 0
    for s in g.sends(count):
        h.update(s.digest_bytes())
        n += len(s.msgs)
    return h.hexdigest(), n, g


# ---------------------------------------------------------------- client

class NlError(Exception):
    def __init__(self, err, msg):
        super().__init__("%s: %s" % (errno.errorcode.get(err, err), msg))
        self.errno = err
        self.msg = msg


def nl_socket(cap_ack=False, ext_ack=True, strict=False, rcvbuf=1 << 20):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, int(ext_ack))
    s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, int(cap_ack))
    s.setsockopt(SOL_NETLINK, NETLINK_GET_STRICT_CHK, int(strict))
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, rcvbuf)          # SO_RCVBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((0, 0))
    return s


class Client:
    """Plain requests to the family, for the context and the snapshots."""

    def __init__(self, spec, name="asi"):
        self.spec = spec
        self.sock = nl_socket()
        self.seq = 1
        self.ops = {o["name"]: o for o in spec["ops"]}
        a = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                         nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))[0]
        attrs = dict(parse_attrs(a))
        self.fam = struct.unpack("<H", attrs[CTRL_ATTR_FAMILY_ID][:2])[0]
        self.version = struct.unpack("<I", attrs[CTRL_ATTR_VERSION][:4])[0]
        self.mcgrps = {}
        for _, grp in parse_attrs(attrs.get(CTRL_ATTR_MCAST_GROUPS, b"")):
            g = dict(parse_attrs(grp))
            self.mcgrps[g[1].split(b"\0")[0].decode()] = struct.unpack("<I", g[2][:4])[0]

    def request(self, fam, cmd, attrs=b"", dump=False, version=1):
        self.seq += 1
        body = GENL.pack(cmd, version, 0) + attrs
        fl = F_REQUEST | F_ACK | (F_DUMP if dump else 0)
        self.sock.send(HDR.pack(16 + len(body), fam, fl, self.seq, 0) + body)
        out = []
        while True:
            r, _, _ = select.select([self.sock], [], [], 30)
            if not r:
                raise NlError(errno.ETIMEDOUT, "no answer")
            for t, fl2, seq, p in split_msgs(self.sock.recv(1 << 20)):
                if seq != self.seq:
                    continue
                if t == NLMSG_ERROR:
                    err, msg, _ = parse_err(fl2, p)
                    if err:
                        raise NlError(err, msg)
                    if not dump:
                        return out
                elif t == NLMSG_DONE:
                    err, msg = parse_done(fl2, p)
                    if err:
                        raise NlError(err, msg)
                    return out
                else:
                    out.append(p[4:])

    def op(self, opname, dump=False, **attrs):
        op = self.ops[opname]
        aset = self.spec["sets"][op["set"]]
        data = b""
        for k, v in attrs.items():
            a = aset[k.replace("_", "-")]
            if a["type"] == "u32":
                p = struct.pack("<I", v)
            elif a["type"] == "uint":
                p = struct.pack("<Q", v)
            elif a["type"] == "string":
                p = v.encode() + b"\0"
            elif a["type"] == "flag":
                p = b""
            else:
                raise ValueError(k)
            data += nla(a["value"], p)
        replies = self.request(self.fam, op["value"], data, dump, self.version)
        return [decode(self.spec, op["set"], p) for p in replies]


def snapshot(cl):
    """What an operator can see and change: status, classes, policies, marks."""
    status = cl.op("status-get")[0]
    classes = cl.op("class-get", dump=True)
    stun = {"default": cl.op("stun-get")[0]["stun"]}
    for c in classes:
        stun[str(c["id"])] = cl.op("stun-get", id=c["id"])[0]["stun"]
    marks = cl.op("mark-get", dump=True)
    param = None
    try:
        with open("/sys/module/kvm/parameters/asi_stun") as f:
            param = f.read().strip()
    except OSError:
        pass
    return {"status": status, "classes": classes, "stun": stun, "marks": marks,
            "kvm_asi_stun": param}


def kallsyms(names):
    out = {}
    with open("/proc/kallsyms") as f:
        for line in f:
            addr, _, name = line.split()[:3]
            if name in names and name not in out:
                out[name] = int(addr, 16)
    return out


def prepare(spec_path, ctx_path, initial_path):
    with open(spec_path) as f:
        spec = json.load(f)
    cl = Client(spec)
    initial = snapshot(cl)
    with open(initial_path, "w") as f:
        json.dump(initial, f)
    syms = kallsyms({"loops_per_jiffy", "init_net", "_stext"})
    page = 4096
    jif = syms.get("loops_per_jiffy", 0) & ~(page - 1)
    canary = None
    try:
        canary = cl.op("mark-add", kind=2, name="loops_per_jiffy")[0]["id"]
    except NlError as e:
        canary_err = str(e)
    else:
        canary_err = None
    before = snapshot(cl)
    ids = [c["id"] for c in before["classes"]]
    values = {
        "class.id": ids, "class.name": [c["name"] for c in before["classes"]],
        "exit.class-id": ids, "exit.top": [1, 2, 10, 1024],
        "mark.id": [canary + i for i in range(4)] if canary else [1, 2],
        "mark.addr": [jif, jif + page, jif - page, syms.get("init_net", 0) & ~(page - 1),
                      syms.get("_stext", 0)],
        "mark.len": [page, 2 * page, 16 * page],
        "mark.name": ["loops_per_jiffy", "init_net", "schedule", "base_crng", "crngs",
                      "kmalloc-64", "task_struct", "no_such_cache"],
        "class.stun": [0, 1],
    }
    ctx = {"spec": spec, "family_id": cl.fam, "family_version": cl.version,
           "monitor": cl.mcgrps.get("monitor"), "canary": canary,
           "canary_error": canary_err, "values": values}
    with open(ctx_path, "w") as f:
        json.dump(ctx, f)
    os.chmod(ctx_path, 0o644)
    return {"ctx": ctx, "initial": initial, "before": before}


def restore(ctx, initial):
    """Delete the marks that were not there initially, set the policies
    back; the state after."""
    cl = Client(ctx["spec"])
    keep = {m["id"] for m in initial["marks"]}
    deleted = []
    for m in cl.op("mark-get", dump=True):
        if m["id"] not in keep:
            cl.op("mark-del", id=m["id"])
            deleted.append(m)
    cl.op("stun-set", stun=initial["stun"]["default"])
    for cid, pol in initial["stun"].items():
        if cid != "default":
            cl.op("stun-set", id=int(cid), stun=pol)
    return {"deleted": deleted, "after": snapshot(cl)}


# ---------------------------------------------------------------- runner

def drop_privileges(identity):
    if identity == "nobody":
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    elif identity == "nosysadmin":
        # Every capability but CAP_SYS_ADMIN: GENL_ADMIN_PERM (CAP_NET_ADMIN)
        # passes, the family's own check must refuse.
        import ctypes
        m = ((1 << 41) - 1) & ~(1 << CAP_SYS_ADMIN)
        hdr = struct.pack("Ii", 0x20080522, 0)
        data = struct.pack("6I", m & 0xffffffff, m & 0xffffffff, 0,
                           m >> 32, m >> 32, 0)
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.syscall(126, hdr, data):
            raise OSError(ctypes.get_errno(), "capset")
    elif identity != "root":
        raise ValueError(identity)
    with open("/proc/self/status") as f:
        st = dict(l.split(":", 1) for l in f if ":" in l)
    return {"uid": os.getuid(), "capeff": st["CapEff"].strip()}


class Runner:
    """Sends the stream of one identity and classifies every answer."""

    LATE = 2.0          # seconds to wait for an answer that must come

    def __init__(self, ctx, identity, seed, count):
        self.ctx = ctx
        self.spec = ctx["spec"]
        self.identity = identity
        self.seed = seed
        self.count = count
        self.ops = {o["value"]: o for o in self.spec["ops"]}
        self.noreply = {o["value"] for o in self.spec["ops"]
                        if o["do"] and not o["do"]["reply"]}
        self.admin = {o["value"] for o in self.spec["ops"] if o["admin"]}
        self.fam = ctx["family_id"]
        self.sock = None
        self.mon = None
        self.res = {
            "identity": identity, "seed": str(seed), "messages": 0, "sends": 0,
            "parsed": 0, "dropped": 0, "abandoned": 0, "outcomes": {},
            "errnos": {}, "extack": {}, "by_cmd": {}, "mutating_ok": {},
            "mark_ids": [], "anomalies": [], "n_anomalies": 0, "ntf": {},
            "ntf_mark_add": [], "ntf_mark_del": [], "send_errors": {},
            "expected_errno_checked": 0, "replies": 0, "dump_data_without_multi": 0,
        }

    def bump(self, key, sub, n=1):
        d = self.res[key]
        d[sub] = d.get(sub, 0) + n

    def anomaly(self, kind, send, m, got):
        self.res["n_anomalies"] += 1
        if len(self.res["anomalies"]) < 25:
            end = m["off"] + 16 + 200 if m else len(send.buf)
            self.res["anomalies"].append({
                "kind": kind, "seq": m["seq"] if m else None,
                "nlmsg_len_lie": m["lie"] if m else None,
                "msg": send.buf[m["off"] if m else 0:end].hex(), "got": got})

    def open(self, opts):
        if self.sock:
            self.sock.close()
        cap_ack, self.ext_ack, strict = opts
        self.sock = nl_socket(cap_ack, self.ext_ack, strict)

    def drain(self, sock, wait=0.0):
        out = []
        deadline = time.monotonic() + wait
        while True:
            try:
                data = sock.recv(1 << 20, socket.MSG_DONTWAIT)
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([sock], [], [], left)[0]:
                    return out
                continue
            except OSError as e:
                out.append((-2, e.errno, 0, b""))
                continue
            out += split_msgs(data)

    def expected_errno(self, hdr, body):
        """The errno genetlink's own checks must give, before any handler,
        or None. Mirrors genl_family_rcv_msg() and genl_header_check()."""
        n, _, fl, _, _ = hdr
        if n < 20:
            return errno.EINVAL
        cmd, _, reserved = GENL.unpack_from(body)
        if reserved:
            return errno.EINVAL
        f = fl & ~F_DUMP if fl & F_DUMP == F_DUMP else fl
        if f & ~(F_REQUEST | F_ACK | F_ECHO):
            return errno.EINVAL
        op = self.ops.get(cmd)
        form = "dump" if fl & F_DUMP == F_DUMP else "do"
        if not op or not op[form]:
            return errno.EOPNOTSUPP
        if op["admin"] and self.identity == "nobody":
            return errno.EPERM
        return None

    def classify(self, send, replies):
        view = {off: hdr for off, hdr in kernel_view(send.buf)}
        by_seq = {}
        for rep in replies:
            t, fl, seq, p = rep
            if t == -2:
                self.bump("send_errors", "recv-" + errno.errorcode.get(fl, str(fl)))
                self.anomaly("recv error %s" % fl, send, None, [])
                continue
            by_seq.setdefault(seq, []).append(rep)
        seqs = {m["seq"] for m in send.msgs}
        for seq in by_seq:
            if seq not in seqs:
                self.anomaly("reply to an unknown seq", send, None,
                             [(t, fl, s, p[:64].hex()) for t, fl, s, p in by_seq[seq]])
        for m in send.msgs:
            got = by_seq.get(m["seq"], [])
            hdr = view.get(m["off"])
            if hdr is None:
                self.res["dropped"] += 1
                if got:
                    self.anomaly("answer to a message the kernel cannot parse", send, m,
                                 [(t, fl, p[:32].hex()) for t, fl, _, p in got])
                continue
            self.res["parsed"] += 1
            self.judge(send, m, hdr, got)

    def judge(self, send, m, hdr, got):
        n, _, fl, _, _ = hdr
        body = send.buf[m["off"] + 16:m["off"] + n]
        cmd = body[0] if body else -1
        dump = fl & F_DUMP == F_DUMP
        errs = [parse_err(f, p) for t, f, _, p in got if t == NLMSG_ERROR]
        dones = [parse_done(f, p) for t, f, _, p in got if t == NLMSG_DONE]
        data = [(f, p) for t, f, _, p in got if t == self.fam]
        other = [t for t, _, _, _ in got if t not in (NLMSG_ERROR, NLMSG_DONE, self.fam)]
        self.res["replies"] += len(got)
        why = None
        extack = None
        if other:
            why = "unexpected message types %s" % other
        elif len(errs) + len(dones) > 1:
            why = "more than one final message"
        if errs:
            err, extack, _ = errs[0]
            outcome = "E%d" % err if err else ("data+ack" if data else "ack")
            if err and data:
                why = why or "data and an error"
            if not err and not fl & F_ACK:
                why = why or "ack without NLM_F_ACK"
        elif dones:
            err, extack = dones[0]
            outcome = "done" if not err else "done-E%d" % err
            if not dump:
                why = why or "NLMSG_DONE for a do"
        elif data:
            outcome = "data"
        else:
            outcome = "none"
        # What each outcome requires.
        if dump:
            if not errs and not dones:
                why = why or "dump without NLMSG_DONE or error"
            if data and any(not f & F_MULTI for f, _ in data):
                # Like 6.12's netdev family, the dumpits start each entry
                # with genlmsg_iput(): no NLM_F_MULTI. Counted, not an error.
                self.res["dump_data_without_multi"] += 1
        else:
            if data:
                op = self.ops.get(cmd)
                if not op or not op["do"] or not op["do"]["reply"]:
                    why = why or "data for an op without a reply"
                if any(p[:1] != bytes([cmd]) for _, p in data):
                    why = why or "reply with another cmd"
                if fl & F_ACK and not errs:
                    why = why or "reply without the ack asked for"
            if outcome == "none" and (fl & F_ACK or cmd not in self.noreply):
                why = why or "no answer"
        exp = self.expected_errno(hdr, body)
        if exp is not None:
            self.res["expected_errno_checked"] += 1
            e = errs[0][0] if errs else None
            if e != exp:
                why = why or "genetlink should have said %s" % errname(exp)
        if why:
            self.anomaly(why, send, m, [(t, f, p[:48].hex()) for t, f, _, p in got])
        self.bump("outcomes", outcome)
        key = self.ops[cmd]["name"] if cmd in self.ops else "cmd%d" % cmd if body else "no-genlmsghdr"
        key += "/dump" if dump else ""
        self.res["by_cmd"].setdefault(key, {})
        self.res["by_cmd"][key][outcome] = self.res["by_cmd"][key].get(outcome, 0) + 1
        if outcome.startswith(("E", "done-E")):
            e = outcome.split("E")[-1]
            name = errname(int(e))
            self.bump("errnos", name)
            self.bump("extack", "%s: %s" % (name, extack or (
                "-" if self.ext_ack else "(NETLINK_EXT_ACK off)")))
        if cmd in self.admin and not dump and outcome in DONE_OK:
            self.bump("mutating_ok", self.ops[cmd]["name"])
            if self.ops[cmd]["name"] == "mark-add":
                for _, p in data:
                    mid = decode(self.spec, "mark", p[4:]).get("id")
                    if mid is not None:
                        self.res["mark_ids"].append(mid)

    def notifications(self):
        if not self.mon:
            return
        for t, fl, seq, p in self.drain(self.mon):
            if t != self.fam or len(p) < 4:
                self.bump("ntf", "other-%d" % t)
                continue
            op = self.ops.get(p[0])
            name = op["name"] if op else "cmd%d" % p[0]
            self.bump("ntf", name)
            if name in ("mark-add-ntf", "mark-del-ntf"):
                mid = decode(self.spec, "mark", p[4:]).get("id")
                self.res["ntf_" + name[:8].replace("-", "_")].append(mid)

    def run(self):
        t0 = time.monotonic()
        if self.ctx.get("monitor") is not None:
            self.mon = nl_socket(rcvbuf=4 << 20)
            self.mon.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, self.ctx["monitor"])
        gen = Generator(self.ctx, self.seed, self.identity)
        h = hashlib.sha256()
        for send in gen.sends(self.count):
            h.update(send.digest_bytes())
            self.res["messages"] += len(send.msgs)
            self.res["sends"] += 1
            if send.reopen is not None or self.sock is None:
                self.open(send.reopen or [False, True, False])
            try:
                self.sock.send(send.buf)
            except OSError as e:
                self.bump("send_errors", errno.errorcode.get(e.errno, str(e.errno)))
                continue
            if send.abandon:
                self.res["abandoned"] += 1
                self.sock.close()
                self.sock = None
                continue
            replies = self.drain(self.sock)
            if not self.complete(send, replies):
                replies += self.drain(self.sock, self.LATE)
            self.classify(send, replies)
            self.notifications()
        if self.sock:
            self.sock.close()
        self.notifications()
        self.res["hash"] = h.hexdigest()
        self.res["generator"] = gen.stats
        self.res["seconds"] = round(time.monotonic() - t0, 2)
        return self.res

    def complete(self, send, replies):
        """Whether every parsed message has what it must get."""
        view = {off: hdr for off, hdr in kernel_view(send.buf)}
        final, data = set(), set()
        for t, fl, seq, p in replies:
            if t in (NLMSG_ERROR, NLMSG_DONE):
                final.add(seq)
            elif t == self.fam:
                data.add(seq)
        for m in send.msgs:
            hdr = view.get(m["off"])
            if hdr is None or m["seq"] in final:
                continue
            fl = hdr[2]
            if fl & F_DUMP == F_DUMP or fl & F_ACK:
                return False
            body = send.buf[m["off"] + 16:m["off"] + hdr[0]]
            if m["seq"] not in data and (not body or body[0] not in self.noreply):
                return False
        return True


def replay(ctx, identity, buf):
    """Send one buffer (an anomaly's "msg") as identity; the answers and
    how the runner judges them."""
    info = drop_privileges(identity)
    run = Runner(ctx, identity, "replay", 0)
    run.open([False, True, False])
    msgs = [{"seq": hdr[3], "off": off, "lie": None} for off, hdr in kernel_view(buf)]
    send = Send(buf, msgs)
    run.sock.send(buf)
    replies = run.drain(run.sock)
    if not run.complete(send, replies):
        replies += run.drain(run.sock, run.LATE)
    run.classify(send, replies)
    res = {k: run.res[k] for k in ("outcomes", "extack", "anomalies", "mutating_ok")}
    res["answers"] = [(t, fl, seq, p[:256].hex()) for t, fl, seq, p in replies]
    res.update(info)
    return res


def snap_once(ctx):
    cl = Client(ctx["spec"])
    try:
        return snapshot(cl)
    finally:
        cl.sock.close()


def run_as(ctx, identity, seed, count):
    """The run of identity, in a child that drops privileges; for the
    unprivileged, with root's snapshots of the state before and after."""
    before = snap_once(ctx) if identity != "root" else None
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        try:
            info = drop_privileges(identity)
            res = Runner(ctx, identity, seed, count).run()
            res.update(info)
        except BaseException:
            import traceback
            res = {"error": traceback.format_exc()}
        with os.fdopen(wfd, "w") as f:
            json.dump(res, f)
        os._exit(0)
    os.close(wfd)
    with os.fdopen(rfd) as f:
        text = f.read()
    os.waitpid(pid, 0)
    res = json.loads(text)
    if "error" in res:
        raise SystemExit(res["error"])
    if before is not None:
        res["before"], res["after"] = before, snap_once(ctx)
    return res


def main(argv):
    what = argv[1]
    if what == "prepare":
        out = prepare(argv[2], argv[3], argv[4])
    else:
        with open(argv[2]) as f:
            ctx = json.load(f)
        if what == "snap":
            out = snap_once(ctx)
        elif what == "run":
            out = run_as(ctx, argv[3], argv[4], int(argv[5]))
        elif what == "replay":
            out = replay(ctx, argv[3], bytes.fromhex(argv[4]))
        elif what == "restore":
            with open(argv[3]) as f:
                out = restore(ctx, json.load(f))
        else:
            raise SystemExit("unknown command " + what)
    print("ASIFUZZ " + json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
