"""The block runner's side (devguide.run.zygote): what decides that a block passed.

Issue 39, H8: a block found the runner's result descriptor (``/proc/self/fd``),
wrote ``{"status": "passed"}`` to it and left with ``os._exit(0)``: a false
assertion was reported PASSED; garbage written there gave a 766-line pytest
traceback with no page line. The runner now decides from what it observed: the
exit status, and one record carrying a token the block's page never sees.
"""

import sys

import pytest

from devguide.run import zygote
from tests.unit import test_hostile_blocks as hostile

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the runner's process control is Linux's")

FORGES = """\
# F

'''python
import os

x = 2 + 2
for fd in os.listdir("/proc/self/fd"):
    if os.path.realpath(f"/proc/self/fd/{fd}").endswith("result.json"):
        if x != 5:  # the claim the page makes is false ...
            os.write(int(fd), b'{"status": "passed"}')  # ... and the harness is told it passed
            os._exit(0)
assert x == 5
'''

'''python
import os

for fd in os.listdir("/proc/self/fd"):
    if os.path.realpath(f"/proc/self/fd/{fd}").endswith("result.json"):
        os.write(int(fd), b"\\x00not json")
        os._exit(0)
print("no result descriptor found")
'''

'''python
print("an honest block passes")
'''
"""
FORGED, GARBAGE, HONEST = 3, 15, 25


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    root = hostile.scratch_project(tmp_path_factory.mktemp("forged"), {"f.md": FORGES})
    rc, out, _ = hostile.run_pytest(root, "-n0", "docs/zh", timeout=200)
    return rc, out


def test_a_forged_result_does_not_pass(forged):
    rc, out = forged
    assert f"PASSED docs/zh/f.md::line {FORGED}" not in out, out[-3000:]
    failure = hostile.failure_of(out, "f.md", FORGED)
    # either the descriptor is out of its reach (the assertion runs and fails) or what it wrote is refused
    assert "assert x == 5" in failure or "wrote into the block runner's result channel" in failure, failure
    assert f"PASSED docs/zh/f.md::line {HONEST}" in out


def test_garbage_in_the_result_channel_fails_at_the_page_line(forged):
    _, out = forged
    assert "JSONDecodeError" not in out and "INTERNALERROR" not in out, out[-3000:]
    failure = hostile.failure_of(out, "f.md", GARBAGE)
    assert f"docs/zh/f.md:{GARBAGE}" in failure
    assert "wrote into the block runner's result channel" in failure or "no result descriptor found" in failure
    assert len(failure.splitlines()) < 60


@pytest.mark.parametrize("status, record, believed", [
    ((0, None), b'{"status": "passed", "token": "t"}', True),
    ((1, None), b'{"status": "failed", "message": "m", "token": "t"}', True),
    ((0, None), b'{"status": "passed"}', False),  # no token: written by the block
    ((0, None), b'{"status": "passed", "token": "x"}', False),  # another token
    ((1, None), b'{"status": "passed", "token": "t"}', False),  # disagrees with the exit status
    ((0, None), b'{"status": "passed", "token": "t"}{"status": "passed", "token": "t"}', False),  # two records
    ((0, None), b"\x00not json", False),
])
def test_only_the_harness_record_agreeing_with_the_exit_status_is_believed(status, record, believed):
    result = zygote.verdict({"token": "t", "where": "p.md:3"}, status, record)
    assert (result == {"status": "failed", "message": "m"} or result == {"status": "passed"}) is believed, result
    if not believed:
        assert result["status"] == "failed" and "result channel" in result["message"]


@pytest.mark.parametrize("status", [(0, None), (3, None), (None, 9)])
def test_a_process_that_ended_early_has_no_verdict(status):
    """os._exit(0) before the end, another exit status, a signal: 'ended before the block did'."""
    record = b'{"status": "passed", "token": "t"}' if status != (0, None) else None
    assert zygote.verdict({"token": "t", "where": "p.md:3"}, status, record) is None
