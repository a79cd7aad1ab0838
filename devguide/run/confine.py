"""Start a program under a block's confinement: ``python -m devguide.run.confine
--write DIR [--write DIR …] [--memory BYTES] [--timeout SECONDS] -- PROGRAM ARG…``.

For the paths that run page code outside the block runner (issue 39: the page-download
test, ``tests/site/test_downloads_run.py``, H18; the site build's notebook kernel,
``devguide.run.kernel``, H19): the program and everything it starts may write only
beneath the ``--write`` folders (and /dev/shm, /dev/null…), with Landlock where the
kernel has it (``sandbox.allow_writes_only_beneath``); its data segment is limited to
``--memory`` bytes (``RLIMIT_DATA``), as a block's is, and, as for a block, what all its
processes use together (the sum of their PSS, ``reaper.memory_of``) is checked while it
runs: past ``--memory`` they are all stopped. ``--timeout`` stops them all after that
many seconds, ``--disk`` when the ``--write`` folders take more disk than that. This
process is a child subreaper (``reaper``), as the block runner is: when the program
ends, every process it started ends too, a daemon in a session of its own included
(H18's helper outlived the download and held its output pipes open: the run "hung" for
300 s and ran again). Its exit status is the program's (124 when it ran out of time,
125 when it took too much disk, 137 when it used too much memory, with a line on stderr
that says so); the signals the caller sends (SIGABRT for a hung run's stacks, SIGTERM,
SIGINT) go on to the program. Done in a process of its own rather than in
``preexec_fn``, which is unsafe in the caller's threads.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import sys
import time
from pathlib import Path

from devguide.run import reaper
from devguide.run.sandbox import allow_writes_only_beneath, disk_used, landlock_abi

POLL = 0.25  # seconds between memory checks, as for a block (devguide.run.zygote)
PASSED_ON = (signal.SIGABRT, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devguide.run.confine")
    parser.add_argument("--write", action="append", default=[], type=Path, help="a folder it may write beneath")
    parser.add_argument("--memory", type=int, help="its data segment's limit, and all its processes', in bytes")
    parser.add_argument("--timeout", type=float, help="seconds after which it is stopped with all it started")
    parser.add_argument("--disk", type=int, help="bytes of disk the --write folders may take together")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="-- then the program and its arguments")
    args = parser.parse_args(argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("no program given: write -- and the program after the options")
    if not args.write:
        parser.error("no --write folder given: the program could then write nowhere")
    if landlock_abi():
        allow_writes_only_beneath(args.write)
    if args.memory:
        resource.setrlimit(resource.RLIMIT_DATA, (args.memory, args.memory))
    reaper.become_subreaper()
    child = os.fork()
    if child == 0:
        try:
            os.execvp(program[0], program)
        except OSError as exc:
            print(f"python -m devguide.run.confine: cannot start {program[0]}: {exc}", file=sys.stderr)
        os._exit(127)
    for sig in PASSED_ON:
        signal.signal(sig, lambda number, _frame: os.kill(child, number))
    status = _watch(child, program[0], args.memory, args.timeout, args.disk and (args.disk, args.write))
    reaper.end_descendants()  # what the program started and left running
    if isinstance(status, tuple):  # stopped: (exit status, why)
        print(f"python -m devguide.run.confine: {status[1]}", file=sys.stderr)
        return status[0]
    if os.WIFSIGNALED(status):  # the caller sees the program's signal, as if it had run it itself
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    return os.waitstatus_to_exitcode(status)


def _over_disk(name: str, disk: tuple[int, list[Path]] | None) -> tuple[int, str] | None:
    if not disk:
        return None
    most, folders = disk
    used = sum(disk_used(folder) for folder in folders)
    if used <= most:
        return None
    return 125, (f"{name} and the processes it started took {used / 2**30:.2f} GiB of disk in their folders, more "
                 f"than their limit of {most / 2**30:.2f} GiB, and were stopped")


def _watch(child: int, name: str, memory: int | None, timeout: float | None,
           disk: tuple[int, list[Path]] | None = None) -> int | tuple[int, str]:
    """Wait for the program: its wait status, or what stopped it (124, 125 or 137, and a sentence)."""
    start = time.monotonic()
    next_memory = next_disk = 1.0  # short programs end before any check, as short blocks do
    while True:
        try:
            pid, status = os.waitpid(child, os.WNOHANG)
        except InterruptedError:
            continue
        if pid:
            return _over_disk(name, disk) or status  # or filled the disk in its last moments
        elapsed = time.monotonic() - start
        stopped = None
        if timeout and elapsed > timeout:
            stopped = 124, f"{name} ran longer than {timeout:g} s and was stopped with everything it started"
        elif memory and elapsed > next_memory:
            measured = time.monotonic()
            used = reaper.memory_of(reaper.descendants())
            next_memory = elapsed + max(POLL, 10 * (time.monotonic() - measured))
            if used > memory:
                stopped = 137, (f"{name} and the processes it started used {used / 2**30:.2f} GiB together, "
                                f"more than their limit of {memory / 2**30:.2f} GiB, and were stopped")
        if not stopped and disk and elapsed > next_disk:
            next_disk = elapsed + 1.0
            stopped = _over_disk(name, disk)
        if stopped:
            reaper.kill_descendants()
            os.waitpid(child, 0)
            return stopped
        time.sleep(0.01 if elapsed < 1 else POLL)


if __name__ == "__main__":
    sys.exit(main())
