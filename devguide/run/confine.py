"""Start a program under a block's confinement: ``python -m devguide.run.confine
--write DIR [--write DIR …] [--memory BYTES] -- PROGRAM ARG…``.

For the paths that run page code outside the block runner (issue 39, H18: the
page-download test, ``tests/site/test_downloads_run.py``): the program and
everything it starts may write only beneath the ``--write`` folders (and /dev),
with Landlock where the kernel has it (``sandbox.allow_writes_only_beneath``), and
its data segment is limited to ``--memory`` bytes (``RLIMIT_DATA``), as a block's
is. Both survive ``exec``. This process is a child subreaper (``reaper``), as the
block runner is: when the program ends, every process it started ends too, a
daemon in a session of its own included (H18's helper outlived the download and
held its output pipes open: the run "hung" for 300 s and ran again). Its exit
status is the program's; the signals the caller sends (SIGABRT for a hung run's
stacks, SIGTERM, SIGINT) go on to the program. Done in a process of its own
rather than in ``preexec_fn``, which is unsafe in the caller's threads.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import sys
from pathlib import Path

from devguide.run import reaper
from devguide.run.sandbox import allow_writes_only_beneath, landlock_abi

PASSED_ON = (signal.SIGABRT, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devguide.run.confine")
    parser.add_argument("--write", action="append", default=[], type=Path, help="a folder it may write beneath")
    parser.add_argument("--memory", type=int, help="its data segment's limit, in bytes")
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
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    reaper.end_descendants()  # what the program started and left running
    if os.WIFSIGNALED(status):  # the caller sees the program's signal, as if it had run it itself
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
