"""Start a program under a block's confinement: ``python -m devguide.run.confine
--write DIR [--write DIR …] [--memory BYTES] -- PROGRAM ARG…``.

For the paths that run page code outside the block runner (issue 39, H18: the
page-download test, ``tests/site/test_downloads_run.py``): the program and
everything it starts may write only beneath the ``--write`` folders (and /dev),
with Landlock where the kernel has it (``sandbox.allow_writes_only_beneath``), and
its data segment is limited to ``--memory`` bytes (``RLIMIT_DATA``), as a block's
is. Both survive ``exec``; this process replaces itself with the program, so its
exit status and signals are the program's. Done in a process of its own rather
than in ``preexec_fn``, which is unsafe in the caller's threads.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
from pathlib import Path

from devguide.run.sandbox import allow_writes_only_beneath, landlock_abi


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
    os.execvp(program[0], program)
    return 127  # not reached: execvp raises when it cannot start the program


if __name__ == "__main__":
    sys.exit(main())
