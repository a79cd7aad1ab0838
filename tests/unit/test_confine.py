"""``python -m devguide.run.confine`` (devguide/run/confine.py): the confinement of the paths that
run page code outside the block runner -- the page downloads of make test and the site build's
notebook kernel (issue 39, H18 and H19) -- has a block's limits: a time limit and a check of
the memory all its processes use together, besides the write rule and the subreaper."""

import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the subreaper and /proc are Linux's")

# two processes of 150 MiB each: each under a 250 MiB data limit, together over it
TWO_PROCESSES = """
import subprocess, sys, time
code = "b = bytearray(150 << 20); b[::4096] = b'x' * len(b[::4096]); import time; time.sleep(30)"
others = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(2)]
time.sleep(30)
"""


def confine(tmp_path, *options, program):
    return subprocess.run([sys.executable, "-m", "devguide.run.confine", f"--write={tmp_path}", *options,
                           "--", sys.executable, "-c", program], capture_output=True, text=True, timeout=120)


def test_all_the_processes_memory_is_checked_together(tmp_path):
    start = time.monotonic()
    done = confine(tmp_path, f"--memory={250 << 20}", program=TWO_PROCESSES)
    assert done.returncode == 137, done.stderr
    assert "used" in done.stderr and "more than their limit of 0.24 GiB, and were stopped" in done.stderr, done.stderr
    assert time.monotonic() - start < 25


def test_a_program_that_runs_too_long_is_stopped_with_what_it_started(tmp_path):
    program = ("import subprocess, time\n"
               "subprocess.Popen(['sleep', '876549'], start_new_session=True)\n"
               "time.sleep(60)\n")
    start = time.monotonic()
    done = confine(tmp_path, "--timeout=2", program=program)
    assert done.returncode == 124, done.stderr
    assert "ran longer than 2 s and was stopped with everything it started" in done.stderr
    assert time.monotonic() - start < 20
    assert subprocess.run(["pgrep", "-f", "sleep 876549"], capture_output=True).returncode == 1, "the daemon survived"


def test_a_program_within_its_limits_keeps_its_exit_status(tmp_path):
    done = confine(tmp_path, f"--memory={1 << 30}", "--timeout=60", program="import sys; print('ran'); sys.exit(3)")
    assert (done.returncode, done.stdout) == (3, "ran\n")


def test_the_folders_disk_is_checked(tmp_path):
    program = ("import os, time\n"
               f"with open({str(tmp_path / 'big.bin')!r}, 'wb') as f:\n"
               "    os.posix_fallocate(f.fileno(), 0, 64 << 20)\n")
    done = confine(tmp_path, f"--disk={32 << 20}", program=program + "time.sleep(30)\n")
    assert done.returncode == 125, done.stderr
    assert "more than their limit of 0.03 GiB, and were stopped" in done.stderr, done.stderr
    (tmp_path / "big.bin").unlink()
    done = confine(tmp_path, f"--disk={32 << 20}", program=program)  # ends at once: checked at its end
    assert done.returncode == 125, done.stderr
