# SPDX-License-Identifier: GPL-2.0
"""The console harness itself (guest.py): an `exit` in a command ends only
its subshell, a timed-out command is interrupted, what it left running is
killed and the console is back in step for the next one, background jobs
and `wait %1` work inside the subshell, and a splat is reported once, to
the test during which it appeared."""

import time

import pytest

from guest import GuestError


def test_exit_ends_only_the_command(guest):
    start = time.monotonic()
    assert guest.run("echo before; exit 3; echo after") == (3, "before\n")
    assert time.monotonic() - start < 10
    assert guest.check("echo still here").strip() == "still here"


def test_timeout_interrupts_and_resyncs(guest):
    with pytest.raises(GuestError, match="interrupted with Ctrl-C"):
        guest.run("sleep 600", timeout=3)
    assert guest.running()
    assert guest.check("echo in step").strip() == "in step"
    # The interrupted sleep is gone.
    assert "sleep 600" not in guest.check("ps -o args")


def test_timeout_reaps_background_jobs(guest):
    """A timed-out command's background jobs ignore Ctrl-C: they are killed,
    and named in the error, before the next command runs."""
    with pytest.raises(GuestError, match=r"reaped \d+:sleep"):
        guest.run("sleep 601 & sleep 602 & wait", timeout=3)
    assert guest.running()
    args = guest.check("ps -o args")
    assert "sleep 601" not in args and "sleep 602" not in args, args


def test_jobs_in_the_subshell(guest):
    assert guest.run("sleep 1 & (exit 4) & wait %2; echo $?; wait %1") == (0, "4\n")


def test_splat_reported_once(guest):
    fake = "WARNING: CPU: 0 PID: 0 at harness-self-test"
    guest.new_splats()                      # what came before is not ours
    guest.check(f"echo '{fake}'")
    assert [l.strip() for l in guest.new_splats()] == [fake]
    assert guest.new_splats() == []
