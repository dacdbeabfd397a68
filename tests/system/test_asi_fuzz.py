# SPDX-License-Identifier: GPL-2.0
"""Fuzzing the asi generic netlink family from inside the guest.

test_asi_netlink.py checks each op and a handful of malformed requests by
hand; this throws a seeded stream of random and mutated messages at the
family, as root and as unprivileged users, and checks that the kernel only
ever answers cleanly: every message it can parse gets an ack, an error with
an errno, dump data closed by NLMSG_DONE, or (only for a successful request
without NLM_F_ACK to an op that has no reply) nothing; no splat, no leak;
nothing changes when the requester is not allowed to change it.

The generator and the in-guest runner are guest-bin/fuzz_asi_nl.py (in the
initramfs, run with the guest's Python): random commands (valid ones weighted
up, notification ids and unknown ones too), flags (NLM_F_REQUEST always, ACK,
DUMP, ECHO, reserved bits), attributes of every type of the spec with good and
bad payloads (lengths 0, short, long; strings without NUL, at and over
max-len, up to 4 KB), unknown types, nests up to depth 4 with NLA_F_NESTED on
or off, broken attribute headers, nlmsg_len shorter or longer than the
message, several messages per send(), dumps whose socket is closed unread; and
a mutational mode that takes a valid request of every op of uapi/asi.yaml and
flips bits and bytes, truncates, inserts, duplicates and drops attributes,
lies in nla_len, swaps the op. A monitor socket listens to the family's
notifications meanwhile.

Identities: nobody (uid 65534, no capabilities), nosysadmin (root without
CAP_SYS_ADMIN: GENL_ADMIN_PERM passes, the family's own check must refuse)
and root. The unprivileged ones go first, against a state with a canary
mark; their state-changing requests must all fail, the state (policies,
marks, classes) must be the same after, counters must not go back (no
stats-reset) and no notification may appear. For every identity, what
genetlink refuses before any handler runs must get the errno it gives:
EINVAL for a short header, reserved bits or a nonzero reserved field,
EOPNOTSUPP for an unknown op or form, EPERM for nobody's admin ops. Root's requests change state now and then (marks of ranges next
to loops_per_jiffy, stun policies, stats resets): the marks it made and the
notifications must agree, and afterwards every mark it left is deleted and
the policies are put back. Then the family must still answer, the console
must show no splat, and kmemleak (the guest boots with kmemleak=on; what
boot left is cleared first) must find nothing leaked by netlink. The guest
is the test's own, so that none of this reaches the other tests.

Each send's answers are read until none is pending: genetlink handles a
request inside send(), and each recv() runs the next part of a dump, so a
missing answer is known without waiting; a message that must be answered
and is not gets 2 s more, then counts as an anomaly. Which messages the
kernel parses at all is computed from the bytes (netlink_rcv_skb() drops
the rest of a buffer at the first header whose nlmsg_len is < 16 or beyond
the end); headers that a lying nlmsg_len would expose in the middle of a
message are zeroed by the generator, so that nothing reaches another family.

The stream depends only on (seed, identity, count, context): the host
rebuilds it and compares its sha256 with the one the guest sent.

    ASI_FUZZ_SEED        seed (default 1; "random" draws one)
    ASI_FUZZ_COUNT       messages per identity (default 2000)
    ASI_FUZZ_IDENTITIES  comma-separated, default nobody,nosysadmin,root
                         (root always runs last)
"""

import json
import os
import random
import re
import shlex
import sys
import time
import warnings

import pytest

from conftest import BUILD
from guest import TOP, Guest, GuestError
import guest_bin

sys.path.insert(0, guest_bin.HOST_DIR)
import fuzz_asi_nl as fz  # noqa: E402 (guest-bin/ is not a package)

SPEC = os.path.join(TOP, "uapi", "asi.yaml")
CMDLINE = "asi=on kmemleak=on"
KMEMLEAK = "/sys/kernel/debug/kmemleak"
G_PROGRAM = "fuzz_asi_nl.py"
G_SCRIPT = guest_bin.path(G_PROGRAM)
G_SPEC = "/tmp/asifuzz-spec.json"
G_CTX = "/tmp/asifuzz-ctx.json"
G_INITIAL = "/tmp/asifuzz-initial.json"
PY = guest_bin.PY

_seed = os.environ.get("ASI_FUZZ_SEED", "1")
SEED = str(random.SystemRandom().randrange(1 << 32)) if _seed == "random" else _seed
COUNT = int(os.environ.get("ASI_FUZZ_COUNT", "2000"))
_ids = os.environ.get("ASI_FUZZ_IDENTITIES", "nobody,nosysadmin,root").split(",")
# Root last: its stats resets would hide one by an unprivileged identity.
UNPRIVILEGED = [i for i in _ids if i != "root"]
IDENTITIES = UNPRIVILEGED + ["root"] * ("root" in _ids)
# Allocation backtraces that make a kmemleak report netlink's.
NETLINK_FRAMES = re.compile(r"\b(genl|genlmsg|netlink|nlmsg|nla|asi_nl|asi_mark)_\w*|"
                            r"\b__?(sys_)?(sendmsg|recvmsg|sendto)\b")


def push(guest, path, text):
    """Write text to path in the guest, through the console: in canonical
    mode the tty takes lines of at most 4095 characters."""
    mark = "ASIFUZZ_EOF"
    assert mark not in text
    assert max(len(l) for l in text.splitlines()) < 4000
    guest.check(f"cat > {path} <<'{mark}'\n{text}\n{mark}")


def guest_json(guest, cmd, timeout=300):
    out = guest.check(cmd, timeout=timeout)
    lines = [l for l in out.splitlines() if l.startswith("ASIFUZZ ")]
    assert lines, f"'{cmd}' printed no result:\n{out[-3000:]}"
    return json.loads(lines[-1][len("ASIFUZZ "):])


def state(snap):
    """What nobody may change: everything but counters and exposure."""
    st = dict(snap["status"])
    st.pop("global-nonsensitive-bytes", None)
    classes = [{k: v for k, v in c.items() if k not in ("instances", "stats")}
               for c in snap["classes"]]
    return {"status": st, "classes": classes, "stun": snap["stun"],
            "marks": snap["marks"], "kvm_asi_stun": snap["kvm_asi_stun"]}


def counters(snap):
    return {c["id"]: c["stats"] for c in snap["classes"]}


def short(res):
    """An identity's run in one line, for the log."""
    errs = ", ".join(f"{k} {v}" for k, v in sorted(res["errnos"].items(),
                                                    key=lambda kv: -kv[1]))
    return (f"{res['identity']} (uid {res['uid']}, CapEff {res['capeff']}): seed "
            f"{res['seed']}, {res['messages']} messages in {res['sends']} sends, "
            f"{res['parsed']} parsed, {res['dropped']} dropped by nlmsg_len, "
            f"{res['abandoned']} dumps abandoned, {res['seconds']} s; outcomes "
            f"{res['outcomes']}; errnos: {errs}; state changed by "
            f"{res['mutating_ok'] or 'nothing'}; notifications {res['ntf'] or 'none'}")


class Fuzzed:
    pass


@pytest.fixture(scope="module")
def fuzzed():
    """The guest after the whole run: prepare, each identity, restore."""
    spec = fz.spec_table(SPEC)
    g = Guest(BUILD, "asi-on-fuzz", CMDLINE)
    try:
        g.start()
    except GuestError as e:
        pytest.fail(str(e), pytrace=False)
    f = Fuzzed()
    f.guest, f.spec, f.seed, f.count = g, spec, SEED, COUNT
    f.runs = {}
    t0 = time.monotonic()
    try:
        print(f"\nfuzz guest booted in {g.boot_seconds:.1f} s; seed {SEED}, "
              f"{COUNT} messages per identity ({', '.join(IDENTITIES)})")
        guest_bin.installed(g, G_PROGRAM)
        push(g, G_SPEC, json.dumps(spec, indent=1))
        # Counters that are not zero, so that a reset would show.
        g.check("kvm-exits -l cpuid -n 100 >/dev/null", timeout=300)
        # Only what the run leaks counts: forget what boot left.
        g.check(f"echo scan > {KMEMLEAK}; echo clear > {KMEMLEAK}", timeout=300)
        prep = guest_json(g, f"{PY} {G_SCRIPT} prepare {G_SPEC} {G_CTX} {G_INITIAL}")
        f.ctx, f.initial = prep["ctx"], prep["initial"]
        run = f"{PY} {G_SCRIPT} run {G_CTX} {{}} {shlex.quote(SEED)} {COUNT}"
        for ident in IDENTITIES:
            f.runs[ident] = guest_json(g, run.format(ident), timeout=120 + COUNT // 5)
            print(short(f.runs[ident]))
        f.restored = guest_json(g, f"{PY} {G_SCRIPT} restore {G_CTX} {G_INITIAL}")
        with open(os.path.join(BUILD, "logs", "fuzz-asi-nl.json"), "w") as out:
            json.dump({"seed": SEED, "count": COUNT, "runs": f.runs,
                       "restored": f.restored}, out, indent=1)
    except GuestError as e:
        g.stop()
        pytest.fail(str(e), pytrace=False)
    except BaseException:
        g.stop()
        raise
    f.seconds = time.monotonic() - t0
    print(f"fuzz: prepare, {len(IDENTITIES)} runs and restore in {f.seconds:.1f} s")
    yield f
    g.stop()


def test_fuzz_stream_reproducible():
    """The same seed gives the same stream, another seed another one, and the
    stream has every kind of message the generator claims to make."""
    ctx = {"spec": json.loads(json.dumps(fz.spec_table(SPEC))), "family_id": 0x1b,
           "family_version": 1, "monitor": 7, "canary": 3,
           "values": {"class.id": [1], "class.name": ["kvm"], "mark.id": [3],
                      "mark.addr": [0xffffffff83a05000]}}
    a, n, gen = fz.stream_digest(ctx, SEED, "root", 3000)
    b, _, _ = fz.stream_digest(ctx, SEED, "root", 3000)
    c, _, _ = fz.stream_digest(ctx, SEED + "x", "root", 3000)
    d, _, _ = fz.stream_digest(ctx, SEED, "nobody", 3000)
    assert n == 3000
    assert a == b
    assert len({a, c, d}) == 3
    st = gen.stats
    print(f"seed {SEED}: 3000 messages, sha256 {a[:16]}; generator: {st}")
    wanted = (["mode-random", "mode-mutated", "attr-valid", "attr-invalid",
               "attr-unknown", "attr-nested-depth-1", "attr-nested-depth-2",
               "attr-nested-flag", "attr-unpadded", "len-tiny", "len-short",
               "len-long", "batch", "abandon", "msg-unpadded"]
              + [f"tail-{i}" for i in range(4)]
              + [f"mutation-{i}" for i in range(10)]
              + [f"template-{o['name']}" for o in ctx["spec"]["ops"]
                 if o["do"] or o["dump"]])
    missing = [w for w in wanted if not st.get(w)]
    assert not missing, missing


def test_fuzz_unprivileged_changes_nothing(fuzzed):
    """No state-changing request of nobody or of root without CAP_SYS_ADMIN
    succeeds; policies, marks and classes are as they were, counters did not
    go back, no notification went out."""
    if not UNPRIVILEGED:
        pytest.skip("ASI_FUZZ_IDENTITIES has no unprivileged identity")
    admin = [o["name"] for o in fuzzed.spec["ops"] if o["admin"]]
    assert fuzzed.ctx["canary"], fuzzed.ctx["canary_error"]
    for ident in UNPRIVILEGED:
        res = fuzzed.runs[ident]
        if ident == "nobody":
            assert res["uid"] == fz.NOBODY and int(res["capeff"], 16) == 0, res
        else:
            assert res["uid"] == 0 and not int(res["capeff"], 16) >> fz.CAP_SYS_ADMIN & 1
        assert res["mutating_ok"] == {}, (ident, res["mutating_ok"])
        # The refusals were exercised: each admin op was asked for and refused.
        for name in admin:
            refused = sum(v for k, v in res["by_cmd"].get(name, {}).items()
                          if k.startswith("E"))
            assert refused > 0, (ident, name, res["by_cmd"].get(name))
        if ident == "nobody":
            assert res["by_cmd"]["mark-del"].get("E1", 0) > 0, res["by_cmd"]["mark-del"]
        else:
            # Past genetlink's CAP_NET_ADMIN, into the family's own check.
            assert any(k.endswith(": CAP_SYS_ADMIN is required") for k in res["extack"]), \
                res["extack"]
        before, after = res["before"], res["after"]
        assert state(after) == state(before), (ident, state(before), state(after))
        assert any(m["id"] == fuzzed.ctx["canary"] for m in after["marks"])
        old, new = counters(before), counters(after)
        assert any(v for st in old.values() for v in st.values()), old
        for cid, st in old.items():
            for k, v in st.items():
                assert new[cid][k] >= v, (ident, cid, k, v, new[cid][k])
        assert res["ntf"] == {}, (ident, res["ntf"])
        print(f"{ident}: {res['by_cmd']}")


def test_fuzz_root_reaches_handlers(fuzzed):
    """Root's stream gets past the parser: successes and many different
    errors, the handlers' own extack messages among them; what changed
    state matches the notifications the monitor saw."""
    if "root" not in IDENTITIES:
        pytest.skip("ASI_FUZZ_IDENTITIES has no root")
    res = fuzzed.runs["root"]
    out = res["outcomes"]
    ok = sum(out.get(k, 0) for k in ("ack", "data", "data+ack", "done"))
    errors = sum(v for k, v in out.items() if "E" in k)
    assert ok >= res["parsed"] // 20 and errors >= res["parsed"] // 4, out
    for e in ("EINVAL", "EOPNOTSUPP", "ENOENT"):
        assert res["errnos"].get(e), res["errnos"]
    # Handler messages, not only the policy's.
    msgs = {k.split(": ", 1)[1] for k in res["extack"]}
    assert msgs & {"class id or name is required", "no class with this id",
                   "no mark with this id", "mark kind is required",
                   "stun policy is required"}, msgs
    # Every mark root added was announced, every delete and policy change too.
    assert sorted(res["ntf_mark_add"]) == sorted(res["mark_ids"]), res
    assert len(res["ntf_mark_del"]) == res["mutating_ok"].get("mark-del", 0), res
    assert res["ntf"].get("stun-ntf", 0) == res["mutating_ok"].get("stun-set", 0), res
    print("root: extack messages seen: " + "; ".join(
        f"{k} x{v}" for k, v in sorted(res["extack"].items())))
    print(f"root: by op: {res['by_cmd']}")


def test_fuzz_every_request_answered(fuzzed):
    """Every message the kernel parsed got the answer its flags and op call
    for (and genetlink's own refusals the errno they must have); nothing
    answered a message the kernel could not parse."""
    bad = {i: r for i, r in fuzzed.runs.items() if r["n_anomalies"]}
    assert not bad, json.dumps({i: {"n": r["n_anomalies"], "first": r["anomalies"][:8]}
                                for i, r in bad.items()}, indent=1)
    for ident, res in fuzzed.runs.items():
        assert res["messages"] == fuzzed.count
        assert res["parsed"] + res["dropped"] + res["abandoned"] == res["messages"]
        assert res["parsed"] > res["messages"] // 2, res
        assert res["expected_errno_checked"] > 0
        assert not res["send_errors"], res["send_errors"]


def test_fuzz_stream_matches_host(fuzzed):
    """The guest sent exactly the stream the host derives from the seed."""
    for ident, res in fuzzed.runs.items():
        digest, n, _ = fz.stream_digest(fuzzed.ctx, fuzzed.seed, ident, fuzzed.count)
        assert (res["hash"], res["messages"]) == (digest, n), ident


def test_fuzz_state_restored(fuzzed):
    """After root's run and the clean-up, the family answers and the state is
    the one before the fuzzing."""
    restored = fuzzed.restored
    assert state(restored["after"]) == state(fuzzed.initial), restored
    st = restored["after"]["status"]
    assert st["enabled"] == 1 and st["classes"] == fuzzed.initial["status"]["classes"], st
    assert st["marks"] == len(fuzzed.initial["marks"]), st
    left = sorted(m["id"] for m in restored["deleted"])
    print(f"restore: deleted marks {left} (canary {fuzzed.ctx['canary']}), "
          f"stun back to {fuzzed.initial['stun']}")


def test_fuzz_no_splat_no_leak(fuzzed):
    """The guest is alive, its console and dmesg show no splat, and kmemleak
    finds nothing that netlink allocated."""
    g = fuzzed.guest
    try:
        g.check("true")
        splats = g.new_splats()
        # Objects younger than 5 s are never reported; scan twice.
        t0 = time.monotonic()
        g.check(f"sleep 5; echo scan > {KMEMLEAK}; echo scan > {KMEMLEAK}", timeout=600)
        report = g.check(f"cat {KMEMLEAK}", timeout=120)
        scan = time.monotonic() - t0
    except GuestError as e:
        pytest.fail(str(e), pytrace=False)
    assert not splats, "\n".join(splats[:30])
    blocks = [b for b in re.split(r"(?=^unreferenced object)", report, flags=re.M)
              if b.startswith("unreferenced object")]
    ours = [b for b in blocks if NETLINK_FRAMES.search(b)]
    others = [b for b in blocks if b not in ours]
    print(f"kmemleak after the fuzzing ({scan:.1f} s): {len(blocks)} unreferenced "
          f"objects, {len(ours)} from netlink")
    if others:
        warnings.warn(f"kmemleak: {len(others)} unreferenced objects not from netlink:\n"
                      + "".join(others[:5])[:4000])
    assert not ours, "".join(ours[:10])[:8000]
