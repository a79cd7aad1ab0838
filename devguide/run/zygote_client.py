"""Running a block and checking what it printed.

``run_block`` hands the block to its own process (``devguide.run.zygote``) and turns
whatever happened -- an exception, an exit, a signal, a hang, too much memory,
undecodable output -- into a ``BlockFailure`` that names page lines and shows the
last output. ``check_output`` compares the printed text with the page's expected
output for the torch that runs (``<!--docs:expected-output torch…-->`` variants).

The zygote that runs the blocks is started and spoken to from here (``Zygote``,
one per pytest process: ``default_zygote``); its own side is ``devguide.run.zygote``,
the sandbox and limits each job names, ``devguide.run.sandbox``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from devguide import paths
from devguide.paths import REPO, rel
from devguide.run.sandbox import (
    DEFAULT_TIMEOUT,
    Sandbox,
    block_env,
    block_sandbox,
    disk_limit,
    landlock_abi,
    memory_limit,
    output_limit,
    shared_memory_left,
    warning_filters_env,
    zygote_env,
)
from devguide.source.blocks import Block, BlockFailure, compiled, numbered  # noqa: F401 - re-exported

# --------------------------------------------------------------------------- running


TAIL_LINES, TAIL_CHARS = 40, 4000


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """A failure report as text a terminal or a CI log shows and does not obey: every
    control character but newline and tab escaped (``\\x1b``, ``\\r``), so a block cannot set
    the window title, clear the screen over its own failure or type into a log parser
    (issue 39, H17)."""
    return _CONTROLS.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


def tail(text: str) -> str:
    """The end of a long output, as a failure shows it."""
    lines = text.split("\n")  # a flood of \r is one line, not 40 empty ones
    cut = "\n".join(lines[-TAIL_LINES:])[-TAIL_CHARS:]
    if len(cut) < len(text.rstrip("\n")):
        return f"[… {len(text)} characters in all; the last {len(cut)}:]\n{cut}"
    return cut


def block_timeout(block: Block) -> float:
    for mark in block.marks:
        if mark.name == "timeout":
            return float(mark.args[0])
    return DEFAULT_TIMEOUT


def run_block(block: Block, zygote: Zygote | None = None, stats: dict | None = None) -> str:
    """Run a python or bash block in a process of its own (devguide.run.zygote);
    return what it printed, or raise BlockFailure with page lines. ``stats``, if
    given, receives the run's ``seconds`` and ``cpu_seconds`` (the block's process
    and the children it waited for: a block whose CPU time is far below its wall
    time is waiting, not working; ``make bench`` lists them)."""
    zygote = zygote or default_zygote()
    with block_sandbox() as box:
        job = _job(block, box)
        if block.language == "python":
            compiled(block)  # a syntax error is reported here, at its page line
        start = time.time()
        reply = zygote.run(job)
        reply["sizes"] = {k: Path(job[k]).stat().st_size for k in ("stdout", "stderr") if Path(job[k]).exists()}
        if stats is not None:
            stats.update(seconds=reply.get("seconds"), cpu_seconds=reply.get("cpu_seconds"))
        raw = _read_capped(job["stdout"], job["output_limit"])
        err = _read_capped(job["stderr"], job["output_limit"]).decode("utf-8", "backslashreplace")
        result = reply.get("result")  # decided by the runner (devguide.run.zygote.verdict), not read here
    left = ""
    if box.left:  # after the block's sandbox was removed (sandbox.remove_sandbox)
        left = (f"{block.where}: the block left in its folder what cannot be removed (chattr +i? "
                f"a folder it made unreadable?); a block must leave its folder removable:\n"
                + "\n".join(f"  {x}" for x in box.left[:10]))
    shared = shared_memory_left(start)  # after its processes ended (devguide.run.zygote)
    if shared:
        left = "\n\n".join(filter(None, [left, (
            f"{block.where}: shared memory was left behind while the block ran, which would outlive it and "
            f"which no memory limit counts (a file in /dev/shm, a System V segment): a block must free what it "
            f"makes (unlink the file, shm.unlink(), shmctl IPC_RMID). Removed now:\n"
            + "\n".join(f"  {x}" for x in shared[:10]))]))
    try:
        _check_reply(block, job, reply, result, raw, err)
    except BlockFailure as exc:
        if left:
            raise BlockFailure(f"{exc}\n\n{left}") from None
        raise
    if left:
        raise BlockFailure(f"{left}\n\n{numbered(block)}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BlockFailure(
            f"{block.where}: the block printed bytes that are not UTF-8 (at byte {exc.start}: {raw[exc.start:exc.start + 8]!r}): print text, decode bytes first (bytes.decode()), or write binary data to a file"
            f"\n\n{numbered(block)}"
        ) from None


def _read_capped(path: str, limit: int) -> bytes:
    """A captured output; over ``limit`` (the block was stopped), only its last 64 KiB."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > limit:
                f.seek(size - 65536)
            return f.read()
    except FileNotFoundError:
        return b""


def _job(block: Block, box: Sandbox) -> dict:
    """What the zygote is sent to run a block in its sandbox (``sandbox.Sandbox``)."""
    env = block_env(box)
    if block.language == "bash":
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env["PYTHONWARNINGS"] = warning_filters_env()
    return {
        "where": block.where,
        "language": block.language,
        "code": block.code,
        "filename": f"<{block.where}>",
        "line_map": block.line_map,
        "page": str(block.page),
        "line": block.line,
        "argv0": rel(block.page),
        "cwd": str(box.work),
        "env": env,
        "sandbox": str(box.root),
        "stdout": str(box.files / "stdout"),
        "stderr": str(box.files / "stderr"),
        "result": str(box.files / "result.json"),
        "timeout": block_timeout(block),
        "memory": memory_limit(),
        "output_limit": output_limit(),
        "disk": disk_limit(),
        "scratch": str(box.scratch),
        # Landlock: the block writes only beneath its scratch folder (else RepoGuard restores the repository)
        "confine": [str(box.scratch)] if landlock_abi() else None,
    }


def _check_reply(block: Block, job: dict, reply: dict, result: dict | None, raw: bytes, err: str) -> None:
    """The BlockFailure that says what happened, raised, unless the block ran to its end and passed."""
    timeout = job["timeout"]
    err = page_lines_in(err, block)
    streams = f"\n\nlast lines printed:\n{tail(raw.decode('utf-8', 'backslashreplace'))}" + (f"\n\nstderr:\n{tail(err)}" if err.strip() else "")
    if reply.get("over_output"):
        sizes = " and ".join(f"{size / 2**20:.0f} MB on {k}" for k, size in reply["sizes"].items()
                             if size > job["output_limit"])
        raise BlockFailure(
            f"{block.where}: the {block.language} block printed more than {job['output_limit'] / 2**20:g} MB "
            f"({sizes}) and was stopped with everything it started. Print a summary (a shape, a few "
            f"values, a count) and write large data to a file in the block's folder "
            f"(DOCS_BLOCK_OUTPUT_MB sets the limit)\n\n{numbered(block)}{streams}"
        )
    if reply.get("changed"):
        raise BlockFailure(
            f"{block.where}: the block changed processes other than its own: "
            + "; ".join(reply["changed"])
            + ". A block may change the priority, limits and CPU set of its own processes only "
            f"(os.getpid(), 0), never those of the block runner (os.getppid()) or pytest\n\n{numbered(block)}{streams}")
    if reply.get("runner_died"):
        raise BlockFailure(f"{block.where}: the block runner (python -m devguide.run.zygote) died while running this block\n\n{numbered(block)}{streams}")
    if reply["timed_out"]:
        raise BlockFailure(
            f"{block.where}: {block.language} block ran longer than its limit of {timeout:g} s and was stopped "
            f"with everything it started. A block that needs longer says so on the line above its fence: "
            f"<!--pytest.mark.timeout({int(timeout) * 5})-->\n\n{numbered(block)}{streams}"
        )
    if reply.get("over_memory_at_peak"):
        raise BlockFailure(
            f"{block.where}: one of the block's processes held {reply['burst_memory'] / 2**30:.2f} GiB more than it "
            f"started with at its peak (its largest resident size, shared memory included, which the kernel "
            f"records), more than the {job['memory'] / 2**30:.2f} GiB all of a block's processes may use together, "
            f"even if only for an instant between two checks (DOCS_BLOCK_MEMORY_GB sets the limit)"
            f"\n\n{numbered(block)}{streams}"
        )
    if reply["over_memory"]:
        raise BlockFailure(
            f"{block.where}: the block's processes together used more than {job['memory'] / 2**30:.1f} GiB of "
            f"memory (the sum of their PSS: memory they share counts once) and were stopped "
            f"(the limit for one block: 60 % of this machine's memory over the pytest workers; "
            f"DOCS_BLOCK_MEMORY_GB sets it)\n\n{numbered(block)}{streams}"
        )
    if reply.get("over_disk"):
        raise BlockFailure(
            f"{block.where}: the block's folder took more than {job['disk'] / 2**30:g} GiB of disk and the block "
            f"was stopped with everything it started (the limit for one block; DOCS_BLOCK_DISK_GB sets it). "
            f"Write less: a few files of the size the example needs\n\n{numbered(block)}{streams}"
        )
    if block.language == "bash":
        if reply["exit"] != 0:
            how = f"exited with status {reply['exit']}" if reply["signal"] is None else f"was killed by {_signal_name(reply['signal'])}"
            raise BlockFailure(f"{block.where}: bash block {how}\n\n{numbered(block)}{streams}")
    elif result is None:
        how = f"exit status {reply['exit']}" if reply["signal"] is None else _signal_name(reply["signal"])
        crash = CRASH_AT.search(err)
        at = f", crashed at {crash.group(1)} (the Python frames, most recent first, are under stderr)" if crash else ""
        raise BlockFailure(
            f"{block.where}: the block's process ended before the block did ({how}){at}. A block must run to "
            f"its end: os._exit(), a crash or the out-of-memory killer end it early\n\n{numbered(block)}{streams}"
        )
    elif result["status"] == "failed":
        message = result["message"]
        if "PermissionError: [Errno 1]" in message and job.get("confine"):
            message += ("\n\n(a block may signal only the processes it started itself: not the block runner, "
                        "not pytest; Landlock forbids the rest where the kernel has it, Linux 6.12+)")
        elif "PermissionError" in message and (str(REPO) in message or job.get("confine")):
            message += (f"\n\n(a block may write only inside its own folder: it runs in {job['cwd']}, with a copy of "
                        "snippets/, and its HOME and TMPDIR are in that folder too; write there, with relative paths "
                        "or tempfile)")
        if "MemoryError" in message or "can't allocate memory" in message:
            message += f"\n\n(a block may allocate at most {job['memory'] / 2**30:.1f} GiB here; DOCS_BLOCK_MEMORY_GB sets it)"
        raise BlockFailure(f"{message}\n\nprinted before the failure:\n{tail(raw.decode('utf-8', 'backslashreplace'))}" + (f"\n\nstderr:\n{tail(err)}" if err.strip() else ""))


CRASH_AT = re.compile(r'File "(\S+:\d+)" \(page line\)')


def page_lines_in(text: str, block: Block) -> str:
    """faulthandler's ``File "<page.md:12>", line 3`` (a crash in C) as the page line."""
    pattern = f'File "<{block.where}>", line '

    def page_line(m):
        n = int(m.group(1))
        if 0 < n <= len(block.line_map):
            p, line = block.line_map[n - 1]
            return f'File "{p}:{line}" (page line)'
        return m.group(0)

    return re.sub(re.escape(pattern) + r"(\d+)", page_line, text) if pattern in text else text


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
    expected, fence = block.expected_for(paths.torch_version())
    if expected is None:
        return
    if block.matches(expected, actual):
        return
    at = f"{rel(block.page)}:{fence.line}" if fence else block.where
    which = "" if fence is None or fence is block.output_fence else f" (the output for {fence.variant})"
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
    from devguide.paths import LANGUAGES

    shown = rel(page)
    lang, _, rest = shown.removeprefix("docs/").partition("/")
    pair = [f"docs/{x}/{rest}" for x in LANGUAGES] if lang in LANGUAGES else [shown]
    return f".venv/bin/python -m pytest -n0 {' '.join(pair)} --each-language --update-outputs"


def write_output(block: Block, actual: str):
    """Replace the body of the block's expected-output fence (for this torch) with ``actual``."""
    _, fence = block.expected_for(paths.torch_version())
    assert fence is not None, f"{block.where}: no expected-output fence to write"
    lines = block.page.read_text(encoding="utf-8").splitlines(True)
    opening = lines[fence.line - 1]
    indent = opening[: len(opening) - len(opening.lstrip())]
    body = [indent + line if line.strip() else line for line in actual.splitlines(True)]
    if body and not body[-1].endswith("\n"):
        body[-1] += "\n"
    lines[fence.line : fence.end - 1] = body
    block.page.write_text("".join(lines), encoding="utf-8")
    return fence


# --------------------------------------------------------------------------- the zygote, from the pytest side


class Zygote:
    """The pytest process's handle on its zygote; restarted after it dies."""

    def __init__(self):
        self.proc: subprocess.Popen | None = None
        self.ready = False
        self.running: str | None = None  # the page line of the block it runs now

    def launch(self) -> None:
        """Start the zygote without waiting for it: it imports torch (~3 s of CPU)
        while pytest goes on collecting (devguide.pytest_plugin does this when the run
        will run blocks). Nothing when one is running already."""
        if self.proc is not None and self.proc.poll() is None:
            return
        # a runner killed by its block (RLIMIT_CPU: no signal needed, issue 39 H6) leaves the
        # daemons the block started to the nearest subreaper: pytest, which ends them (``stop``)
        from devguide.run import reaper

        reaper.become_subreaper()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "devguide.run.zygote"],
            cwd=REPO,
            env=zygote_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.ready = False

    def start(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.launch()
        assert self.proc is not None and self.proc.stdout is not None  # launched with PIPEs
        if not self.ready:
            if not self.proc.stdout.readline():
                raise RuntimeError("the block runner (python -m devguide.run.zygote) did not start")
            self.ready = True

    def run(self, job: dict) -> dict:
        self.start()  # (re)starts it if it is not running; waits for it to be ready
        self.running = job["where"]
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None  # started above
        try:
            proc.stdin.write(json.dumps(job) + "\n")
            proc.stdin.flush()
            reply = proc.stdout.readline()
            self.running = None
        except KeyboardInterrupt:
            self.stop()
            raise KeyboardInterrupt(f"interrupted while running {job['where']}") from None
        except BrokenPipeError:
            reply = ""
        if not reply:
            self.stop()
            return {"exit": None, "signal": None, "runner_died": True, "timed_out": False, "over_memory": False}
        reply = json.loads(reply)
        if any("could not be put back" in x for x in reply.get("changed", ())) or proc.poll() is not None:
            self.stop()  # the next block gets a fresh runner, with pytest's state
            if not reply.get("changed"):  # it ended just after this block: this block is the one named
                reply["runner_died"] = True
        return reply

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self.proc is not None:
            self._end_orphans()
        self.proc = None
        self.ready = False


    @staticmethod
    def _end_orphans() -> None:
        """The processes re-parented to pytest once its runner ended (pytest is a subreaper):
        what the blocks started, left behind; pytest starts no other long-lived process."""
        from devguide.run import reaper

        reaper.end_descendants(rounds=5)


_default: list[Zygote] = []


def default_zygote() -> Zygote:
    """One zygote per pytest process, started on first use and stopped at exit."""
    if not _default:
        import atexit

        _default.append(Zygote())
        atexit.register(_default[0].stop)
    return _default[0]
