# SPDX-License-Identifier: GPL-2.0
"""Drive a QEMU guest over its serial console.

The guest's /init (vm/init) in test mode turns off tty echo, gives an empty
prompt and prints "asitest: ready". Each command is framed by two markers
that carry a random id, so its output and exit status can be cut out of the
console stream reliably; the markers are typed with an empty '' inside so
that an echo of the typed line could never match them. The command runs in
a subshell, so an `exit` in it ends only the subshell. A command that
times out gets a Ctrl-C, the console is brought back in step and what the
command left running is killed (or the guest stopped, so that the next
user boots a fresh one).
"""

import os
import re
import secrets
import time

import pexpect

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPLAT_PATTERNS = [
    re.compile(line.strip())
    for line in open(os.path.join(TOP, "tests", "splat-patterns.txt"))
    if line.strip()
]
BOOT_TIMEOUT = int(os.environ.get("ASI_BOOT_TIMEOUT", "240"))


class GuestError(Exception):
    pass


def find_splats(text):
    """Lines of text that look like a kernel splat."""
    return [l for l in text.splitlines() if any(p.search(l) for p in SPLAT_PATTERNS)]


class Guest:
    def __init__(self, build, name, cmdline, smp=None, mem=None, kernel=None):
        self.build = build
        self.kernel = kernel
        self.name = name
        self.cmdline = cmdline
        self.smp = smp
        self.mem = mem
        self.log = os.path.join(build, "logs", f"system-{name}.log")
        self.dmesg_log = os.path.join(build, "logs", f"system-{name}.dmesg")
        self.proc = None
        self.boot_seconds = None
        self._dmesg_seen = 0
        self._console_seen = 0
        self._reaping = False

    def console_tail(self, lines=40):
        try:
            with open(self.log, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no console log)"

    def start(self):
        os.makedirs(os.path.dirname(self.log), exist_ok=True)
        # A guest that died or was stopped after a splat: keep its console
        # log (system-NAME.1.log, .2.log, ...), the one place its last words
        # are whole.
        if os.path.exists(self.log):
            base = self.log[:-len(".log")]
            n = 1
            while os.path.exists(f"{base}.{n}.log"):
                n += 1
            os.rename(self.log, f"{base}.{n}.log")
        self._dmesg_seen = self._console_seen = 0
        args = ["-m", "test", "-a", self.cmdline, "-l", self.log]
        if self.smp:
            args += ["-s", self.smp]
        if self.mem:
            args += ["-M", self.mem]
        if self.kernel:
            args += ["-k", self.kernel]
        start = time.monotonic()
        self.proc = pexpect.spawn(
            os.path.join(TOP, "vm", "run-qemu.sh"), args,
            encoding="utf-8", codec_errors="replace", timeout=BOOT_TIMEOUT,
            dimensions=(24, 500))
        i = self.proc.expect(["asitest: ready", "Kernel panic", pexpect.EOF,
                              pexpect.TIMEOUT])
        if i != 0:
            what = ["", "kernel panic", "QEMU exited", "boot timed out"][i]
            self.stop()
            raise GuestError(f"{self.name}: {what} during boot; console tail:\n"
                             + self.console_tail())
        self.boot_seconds = time.monotonic() - start

    def running(self):
        return self.proc is not None and self.proc.isalive()

    def run(self, cmd, timeout=120):
        """Run cmd in the guest shell; return (exit status, output)."""
        if not self.running():
            raise GuestError(f"{self.name}: guest is not running; console tail:\n"
                             + self.console_tail())
        tag = secrets.token_hex(6)
        begin, end = f"@@{tag}-B@@", f"@@{tag}-E@@"
        typed_begin = begin[:4] + "''" + begin[4:]
        typed_end = end[:4] + "''" + end[4:]
        done = re.escape(end) + r" (\d+)\r?\n"
        self.proc.sendline(f"echo {typed_begin}; (\n{cmd}\n); echo {typed_end} $?")
        try:
            self.proc.expect_exact(begin, timeout=timeout)
            self.proc.expect(done, timeout=timeout)
        except pexpect.TIMEOUT:
            tail = self.console_tail()
            what = self._interrupt()
            if self.running() and not self._reaping:
                what += self._reap()
            raise GuestError(f"{self.name}: '{cmd}' timed out after {timeout} s "
                             f"({what}); console tail:\n" + tail) from None
        except pexpect.EOF:
            tail = self.console_tail()
            self.stop()
            raise GuestError(f"{self.name}: guest died running '{cmd}'; "
                             "console tail:\n" + tail) from None
        status = int(self.proc.match.group(1))
        out = self.proc.before.replace("\r", "")
        return status, out.lstrip("\n")

    def _interrupt(self):
        """After a timeout: Ctrl-C the command (the shell then drops the
        rest of the command line, end marker included), and wait for a
        fresh marker to be back in step; or stop the guest."""
        tag = secrets.token_hex(6)
        sync = f"@@{tag}-S@@"
        try:
            self.proc.send("\x03")
            time.sleep(0.5)
            self.proc.sendline(f"echo {sync[:4]}''{sync[4:]}")
            self.proc.expect_exact(sync, timeout=30)
            return "interrupted with Ctrl-C"
        except (pexpect.TIMEOUT, pexpect.EOF, OSError):
            self.stop()
            return "Ctrl-C did not end it: guest stopped"

    def _reap(self):
        """After an interrupted command: kill what it left running, so
        that the next test does not meet it. Ctrl-C ends the command's
        foreground jobs; its background jobs ignore SIGINT and, their
        subshell gone, are children of init in the shell's session. Killed
        in passes, as children of the killed become orphans in turn. What
        will not die (a task stuck in the kernel) stops the guest."""
        reap = ("for pass in 1 2 3 4 5 6; do left=; "
                "for d in /proc/[0-9]*; do p=${d#/proc/}; "
                "set -- $(sed 's/.*) //' $d/stat 2>/dev/null) x x x x; "
                "[ $p != $$ ] && [ \"$1\" != Z ] && [ \"$2\" = 1 ] && "
                "[ \"$4\" = $$ ] || continue; "
                "left=\"$left $p:$(cat $d/comm)\"; kill -9 $p; done; "
                "[ -z \"$left\" ] && break; echo \"reaped$left\"; sleep 1; done; "
                "[ -z \"$left\" ]")
        self._reaping = True
        try:
            status, out = self.run(reap, timeout=60)
        except GuestError:
            status, out = 1, "reaping timed out\n"
        finally:
            self._reaping = False
        out = " ".join(out.split())
        if status == 0:
            return f", {out}" if out else ""
        self.stop()
        return f", left running: {out}; guest stopped"

    def check(self, cmd, timeout=120):
        """Run cmd, which must succeed; return its output."""
        status, out = self.run(cmd, timeout)
        if status != 0:
            raise AssertionError(f"'{cmd}' exited {status}:\n{out}")
        return out

    def new_splats(self):
        """Splat lines in dmesg and in the console log since the last call
        (or the last boot)."""
        _, out = self.run("dmesg")
        lines = out.splitlines()
        fresh = lines[self._dmesg_seen:] if len(lines) >= self._dmesg_seen else lines
        self._dmesg_seen = len(lines)
        with open(self.dmesg_log, "w") as f:
            f.write(out)
        console = ""
        try:
            with open(self.log, "rb") as f:
                f.seek(self._console_seen)
                console = f.read().decode("utf-8", "replace")
                self._console_seen = f.tell()
        except OSError:
            pass
        return find_splats("\n".join(fresh)) + find_splats(console)

    def stop(self):
        if not self.proc:
            return
        if self.proc.isalive():
            try:
                self.proc.sendline("reboot -f")
                self.proc.expect(pexpect.EOF, timeout=30)
            except (pexpect.TIMEOUT, OSError):
                pass
        self.proc.close(force=True)
        self.proc = None
