"""Running a block and checking what it printed.

``run_block`` hands the block to its own process (``devguide.runner``) and turns
whatever happened -- an exception, an exit, a signal, a hang, too much memory,
undecodable output -- into a ``BlockFailure`` that names page lines and shows the
last output. ``check_output`` compares the printed text with the page's expected
output for the torch that runs (``<!--docs:expected-output torch…-->`` variants).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import linecache
import os
import re
import shutil
import signal
import sys
import tempfile
import traceback
from pathlib import Path

from devguide import config, runner
from devguide.config import REPO, rel
from devguide.pages import Block

# --------------------------------------------------------------------------- running


class BlockFailure(Exception):
    """A block failed; the message is ready to show to the reader."""


@contextlib.contextmanager
def block_sandbox():
    """A private working directory holding a *copy* of ``snippets/`` (so a block
    that writes there changes nothing in the repository), and a folder beside it
    for the runner's files, out of the block's sight, and one for its temporary
    files (TMPDIR): where the repository itself lies in the system's temporary
    folder (a clone in /tmp), Landlock lets a block write only into folders that
    existed when it started, so new ones (multiprocessing's pymp-*) go here."""
    with tempfile.TemporaryDirectory(prefix="docs-block-") as tmp:
        work, files, temp = Path(tmp) / "work", Path(tmp) / "runner", Path(tmp) / "tmp"
        shutil.copytree(REPO / "snippets", work / "snippets")
        files.mkdir()
        temp.mkdir()
        yield work, files, temp


def numbered(block: Block) -> str:
    width = max(len(f"{p}:{n}") for p, n in block.line_map) if block.line_map else 0
    return "\n".join(
        f"  {f'{p}:{n}':>{width}} | {text}"
        for (p, n), text in zip(block.line_map, block.code.splitlines(), strict=False)
    )


def compiled(block: Block):
    """Compile a python block; syntax errors name the page line."""
    filename = f"<{block.where}>"
    linecache.cache[filename] = (len(block.code), None, block.code.splitlines(True), filename)
    try:
        return compile(block.code, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        p, n = block.line_map[(exc.lineno or 1) - 1] if block.line_map else (rel(block.page), block.line)
        raise BlockFailure(f"{p}:{n}: SyntaxError: {exc.msg}\n\n{numbered(block)}") from None


def page_traceback(block: Block, exc: BaseException) -> str:
    """The traceback with the block's frames shown at their page lines."""
    filename = f"<{block.where}>"
    lines = ["Traceback (page lines first; library frames after):"]
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename and frame.lineno:
            p, n = block.line_map[frame.lineno - 1]
            lines.append(f"  {p}:{n}  {frame.line}")
        elif frame.filename not in (__file__, runner.__file__):
            lines.append(f"  {frame.filename}:{frame.lineno}  {frame.line or ''}")
    lines.append("".join(traceback.format_exception_only(type(exc), exc)).rstrip())
    return "\n".join(lines)


TAIL_LINES, TAIL_CHARS = 40, 4000


def tail(text: str) -> str:
    """The end of a long output, as a failure shows it."""
    lines = text.splitlines()
    cut = "\n".join(lines[-TAIL_LINES:])[-TAIL_CHARS:]
    if len(cut) < len(text.rstrip("\n")):
        return f"[… {len(text)} characters in all; the last {len(cut)}:]\n{cut}"
    return cut


def block_timeout(block: Block) -> float:
    for mark in block.marks:
        if mark.name == "timeout":
            return float(mark.args[0])
    return runner.DEFAULT_TIMEOUT


def run_block(block: Block, zygote: runner.Zygote | None = None, stats: dict | None = None) -> str:
    """Run a python or bash block in a process of its own (devguide.runner);
    return what it printed, or raise BlockFailure with page lines. ``stats``, if
    given, receives the run's ``seconds`` and ``cpu_seconds`` (the block's process
    and the children it waited for: a block whose CPU time is far below its wall
    time is waiting, not working; ``make bench`` lists them)."""
    zygote = zygote or runner.default_zygote()
    env = dict(os.environ, PYTHONIOENCODING="utf-8", **runner.thread_share())
    if block.language == "bash":
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env["PYTHONWARNINGS"] = "error::DeprecationWarning,error::FutureWarning"
    timeout = block_timeout(block)
    with block_sandbox() as (work, files, temp):
        env["TMPDIR"] = str(temp)
        job = {
            "where": block.where,
            "language": block.language,
            "code": block.code,
            "filename": f"<{block.where}>",
            "line_map": block.line_map,
            "page": str(block.page),
            "line": block.line,
            "argv0": rel(block.page),
            "cwd": str(work),
            "env": env,
            "stdout": str(files / "stdout"),
            "stderr": str(files / "stderr"),
            "result": str(files / "result.json"),
            "timeout": timeout,
            "memory": runner.memory_limit(),
            # Landlock: the block cannot write beneath the repository (else RepoGuard restores)
            "protect": str(REPO) if runner.landlock_abi() else None,
        }
        if block.language == "python":
            compiled(block)  # a syntax error is reported here, at its page line
        reply = zygote.run(job)
        if stats is not None:
            stats.update(seconds=reply.get("seconds"), cpu_seconds=reply.get("cpu_seconds"))
        raw = Path(job["stdout"]).read_bytes() if Path(job["stdout"]).exists() else b""
        err = Path(job["stderr"]).read_bytes().decode("utf-8", "backslashreplace") if Path(job["stderr"]).exists() else ""
        result = Path(job["result"])
        result = json.loads(result.read_text(encoding="utf-8")) if result.exists() else None
    try:
        printed = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        printed = None
        bad = f"{block.where}: the block printed bytes that are not UTF-8 (at byte {exc.start}: {raw[exc.start:exc.start + 8]!r}): print text, decode bytes first (bytes.decode()), or write binary data to a file"
    streams = f"\n\nlast lines printed:\n{tail(raw.decode('utf-8', 'backslashreplace'))}" + (f"\n\nstderr:\n{tail(err)}" if err.strip() else "")
    if reply.get("runner_died"):
        raise BlockFailure(f"{block.where}: the block runner (python -m devguide.runner) died while running this block\n\n{numbered(block)}{streams}")
    if reply["timed_out"]:
        raise BlockFailure(
            f"{block.where}: {block.language} block ran longer than its limit of {timeout:g} s and was stopped "
            f"with everything it started. A block that needs longer says so on the line above its fence: "
            f"<!--pytest.mark.timeout({int(timeout) * 5})-->\n\n{numbered(block)}{streams}"
        )
    if reply["over_memory"]:
        raise BlockFailure(
            f"{block.where}: the block used more than {job['memory'] / 2**30:.1f} GiB of memory and was stopped "
            f"(the limit for one block: 60 % of this machine's memory over the pytest workers; "
            f"DOCS_BLOCK_MEMORY_GB sets it)\n\n{numbered(block)}{streams}"
        )
    if block.language == "bash":
        if reply["exit"] != 0:
            how = f"exited with status {reply['exit']}" if reply["signal"] is None else f"was killed by {_signal_name(reply['signal'])}"
            raise BlockFailure(f"{block.where}: bash block {how}\n\n{numbered(block)}{streams}")
    elif result is None:
        how = f"exit status {reply['exit']}" if reply["signal"] is None else _signal_name(reply["signal"])
        raise BlockFailure(
            f"{block.where}: the block's process ended before the block did ({how}). A block must run to "
            f"its end: os._exit(), a crash or the out-of-memory killer end it early\n\n{numbered(block)}{streams}"
        )
    elif result["status"] == "failed":
        message = result["message"]
        if "PermissionError" in message and str(REPO) in message:
            message += "\n\n(blocks may not write into the repository: they run in a temporary folder with a copy of snippets/; write there)"
        if "MemoryError" in message or "can't allocate memory" in message:
            message += f"\n\n(a block may allocate at most {job['memory'] / 2**30:.1f} GiB here; DOCS_BLOCK_MEMORY_GB sets it)"
        raise BlockFailure(f"{message}\n\nprinted before the failure:\n{tail(raw.decode('utf-8', 'backslashreplace'))}" + (f"\n\nstderr:\n{tail(err)}" if err.strip() else ""))
    if printed is None:
        raise BlockFailure(f"{bad}\n\n{numbered(block)}")
    return printed


def _signal_name(number: int) -> str:
    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


def run_python(block: Block) -> str:
    assert block.language == "python"
    return run_block(block)


def run_bash(block: Block) -> str:
    assert block.language == "bash"
    return run_block(block)


def check_output(block: Block, actual: str) -> None:
    """Compare printed output with the page's expected-output fence."""
    expected, fence = block.expected_for(config.torch_version())
    if expected is None:
        return
    same = (
        re.sub(r"\s+", "", expected) == re.sub(r"\s+", "", actual)
        if block.ignore_whitespace
        else expected == actual
    )
    if same:
        return
    at = f"{rel(block.page)}:{fence.line}" if fence else block.where
    which = "" if fence is block.output_fence else f" (the output for {fence.variant})"
    diff = "\n".join(
        difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "expected (page)", "actual", lineterm=""
        )
    )
    raise BlockFailure(
        f"{block.where}: printed output differs from the expected output at {at}{which}\n\n"
        f"{diff}\n\nIf the new output is right, update the ```text fence at {at} and its twin "
        f"in the other language, or rewrite both from what the blocks print: {update_command(block.page)}"
    )


def update_command(page: Path) -> str:
    """The command that rewrites a page pair's expected outputs, ready to paste."""
    from devguide.config import LANGUAGES

    page = rel(page)
    lang, _, rest = page.removeprefix("docs/").partition("/")
    pair = [f"docs/{x}/{rest}" for x in LANGUAGES] if lang in LANGUAGES else [page]
    return f".venv/bin/python -m pytest -n0 {' '.join(pair)} --each-language --update-outputs"


def write_output(block: Block, actual: str):
    """Replace the body of the block's expected-output fence (for this torch) with ``actual``."""
    _, fence = block.expected_for(config.torch_version())
    lines = block.page.read_text(encoding="utf-8").splitlines(True)
    opening = lines[fence.line - 1]
    indent = opening[: len(opening) - len(opening.lstrip())]
    body = [indent + line if line.strip() else line for line in actual.splitlines(True)]
    if body and not body[-1].endswith("\n"):
        body[-1] += "\n"
    lines[fence.line : fence.end - 1] = body
    block.page.write_text("".join(lines), encoding="utf-8")
    return fence


