"""Run each block in a process of its own, so that nothing a block does reaches the next.

A block runs as a reader runs a script: in a fresh process, ``__name__ ==
"__main__"``, its own working directory. Starting Python and importing torch for
each of ~800 blocks would cost minutes, so a *zygote* -- ``python -m
devguide.run.zygote`` -- imports torch and NumPy once and forks one child per block
(POSIX). The zygote never touches CUDA, so each child initialises CUDA afresh.

What the child does cannot escape it:

* a crash, ``os._exit``, a signal or the OOM killer ends the child, not pytest:
  the block fails with its page line, exit status or signal and its last output,
  and later blocks still run;
* a block that runs past its limit (``sandbox.DEFAULT_TIMEOUT``, or
  ``<!--pytest.mark.timeout(600)-->``) is killed with everything it started;
* the child leads its own process group, ended when the block ends, so a bash
  block's ``python -m http.server &`` does not outlive it;
* its data segment is capped (``RLIMIT_DATA``), so a block that allocates more
  memory than the machine should give it fails with a clear message instead of
  taking the machine down;
* global state -- threads, monkeypatched ``torch`` names, ``builtins``,
  ``sys.path``, NumPy print options, TF32 flags, the current CUDA device and
  stream -- dies with the child; nothing needs resetting;
* stdout and stderr are the child's file descriptors 1 and 2, so what a
  subprocess prints is captured like what the block prints (a reader sees both).

pytest-timeout and pytest-forked were considered: neither runs a block in a
process that has already imported torch (``--forked`` forks the whole pytest
worker, whose CUDA state would be inherited), and neither gives page lines.

Where ``fork`` is not safe (macOS: Objective-C and Accelerate; Windows has none)
the zygote starts a fresh interpreter per block instead: slower, same isolation.

This module is the zygote's side: ``python -m devguide.run.zygote`` and the block's process.
The pytest side -- the handle on the zygote (``running.Zygote``), the jobs it is sent and
what its replies mean -- is ``devguide.run.zygote_client``; the folders, limits and write protection
a block gets, ``devguide.run.sandbox``; blocks that run one at a time, ``devguide.run.ports``.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

from devguide import settings
from devguide.paths import REPO
from devguide.run import reaper
from devguide.run.ports import one_at_a_time
from devguide.run.sandbox import (
    allow_writes_only_beneath,
    disk_used,
    fail_on_deprecations,
    remove_sandbox,
    zygote_env,
)
from devguide.source import blocks
from devguide.source.blocks import Block, compiled, numbered

blocks_file = blocks.__file__  # compiles the block: its frames are the harness's

FORK = sys.platform.startswith("linux") and settings.current().fork
EXIT_PASSED, EXIT_FAILED = 0, 1  # how a python block's process ends when it ran to its end
RESULT_MOST = 1 << 20  # bytes of a result record read
MESSAGE_MOST = 100_000  # characters of a failure's message: encoded, at most 6 bytes each
BASELINE: list[tuple[str, int, dict]] = []  # (who, pid, state) noted at the zygote's start
POLL = 0.25  # seconds between memory checks while a block runs
# torch._dynamo (an optimizer, torch.compile, torch.profiler import it: 1.5 s) is imported
# before the first block that seems to need it, once; a block missed imports it itself.
NEEDS_DYNAMO = re.compile(r"\boptim\b|\bcompile\b|_dynamo|_inductor|profiler|\bexport\b|torch\.func\b")


# --------------------------------------------------------------------------- the child


def run_child(job: dict) -> None:
    """In the child: become a fresh script run of the block; never returns."""
    reaper.die_with_parent()  # the zygote killed: the block goes with it
    for _who, _pid, before in BASELINE[:1]:  # the runner's own, as it was at its start (issue 39, H3)
        reaper.restore(os.getpid(), before, reaper.changed(os.getpid(), before))
    out = os.open(job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    # opened before the block is confined to its scratch folder: the runner's
    # folder beside it is out of the block's reach; this descriptor is not inherited
    # by what the block starts (O_CLOEXEC), and what is written to it decides nothing
    # alone: the runner checks it against the exit status and this block's token (``verdict``)
    result = os.open(job["result"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    token = job.pop("token", "")
    null = os.open(os.devnull, os.O_RDONLY)
    for fd, target in ((out, 1), (err, 2), (null, 0)):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    import tempfile

    tempfile.tempdir = None  # the zygote's cached choice: read the block's TMPDIR again
    if job.get("confine"):
        allow_writes_only_beneath([Path(p) for p in job["confine"]])
    if job.get("memory") and hasattr(__import__("resource"), "RLIMIT_DATA"):
        import resource

        resource.setrlimit(resource.RLIMIT_DATA, (job["memory"], job["memory"]))
    if job["language"] == "bash":
        os.execvp("bash", ["bash", "-euo", "pipefail", "-c", job["code"]])
    sys.stdout = open(1, "w", encoding="utf-8", errors="strict", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False)  # noqa: SIM115
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.argv = [job["argv0"]]
    import faulthandler

    # a crash in C (SIGSEGV, SIGABRT…) prints the Python frames it happened in;
    # devguide.run.zygote_client turns their <page:line> names into page lines
    faulthandler.enable(file=sys.stderr, all_threads=True)
    status = {"status": "passed"}
    try:
        _run_python(job)
    except BaseException as exc:  # noqa: BLE001 - everything is the block's failure
        status = {"status": "failed", "message": _failure(job, exc)}
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, UnicodeError) as exc:
        status = {"status": "failed", "message": f"{job['where']}: output could not be written: {exc}"}
    if len(status.get("message", "")) > MESSAGE_MOST:  # the record must fit what the runner reads
        message = status["message"]
        status["message"] = (f"{message[:MESSAGE_MOST // 2]}\n[… {len(message) - MESSAGE_MOST} characters "
                             f"of the failure left out …]\n{message[-MESSAGE_MOST // 2:]}")
    os.write(result, json.dumps({**status, "token": token}).encode("utf-8"))
    os._exit(EXIT_PASSED if status["status"] == "passed" else EXIT_FAILED)


def verdict(job: dict, status: tuple, record: bytes | None) -> dict | None:
    """What a python block's run means, decided here, in the runner, from what it saw:
    the process's exit status (``status``: exit code, signal) and the one record the
    harness writes in the child after the block's code (``record``, None where there
    is none). None: the process ended before the block did (os._exit, a crash, a
    signal). A record is believed only when it is the harness's own -- one JSON object
    with this block's token, whose status agrees with the exit status -- so a block
    that writes ``{"status": "passed"}`` to a descriptor it finds does not pass; it fails
    saying so (issue 39, H8)."""
    code, sig = status[0], status[1]
    if sig is not None or code not in (EXIT_PASSED, EXIT_FAILED):
        return None
    if not record:
        return None
    try:
        found = json.loads(record.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        found = None
    expected = "passed" if code == EXIT_PASSED else "failed"
    if (isinstance(found, dict) and found.get("token") == job.get("token") and found.get("status") == expected
            and (expected == "passed" or isinstance(found.get("message"), str))):
        return {k: v for k, v in found.items() if k != "token"}
    shown = record[:200].decode("utf-8", "backslashreplace")
    return {"status": "failed", "message": (
        f"{job['where']}: the block wrote into the block runner's result channel ({len(record)} bytes, "
        f"starting {shown!r}), so its result cannot be believed: a block reports only through what it "
        "prints and the exceptions it raises; do not write to descriptors the block did not open")}


def _run_python(job: dict) -> None:
    import types

    # No seeds are set: a block runs as a reader's fresh script does, and one whose
    # output depends on randomness seeds it itself (all pass with no harness seed).
    fail_on_deprecations()
    code = compiled(Block.from_job(job))  # also feeds linecache: page lines in tracebacks
    main = types.ModuleType("__main__")  # functions defined in the block pickle
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def _failure(job: dict, exc: BaseException) -> str:
    block = Block.from_job(job)
    try:
        return (
            f"{job['where']}: python block failed\n\n{numbered(block)}\n\n"
            f"{page_traceback(block, exc)}"
        )
    except Exception:  # noqa: BLE001 - a failure must never be lost
        return f"{job['where']}: python block failed\n\n" + "".join(traceback.format_exception(exc))


def page_traceback(block: Block, exc: BaseException) -> str:
    """The traceback with the block's frames shown at their page lines (the
    harness's own frames, here and in devguide.source.blocks, left out); a line repeated
    (a recursion) is collapsed as Python collapses it, and a traceback of
    thousands of different frames keeps its first and last ones."""
    filename = f"<{block.where}>"
    lines = []
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename and frame.lineno:
            p, n = block.line_map[frame.lineno - 1]
            lines.append(f"  {p}:{n}  {frame.line}")
        elif frame.filename not in (__file__, blocks_file):
            lines.append(f"  {frame.filename}:{frame.lineno}  {frame.line or ''}")
    shown = ["Traceback (page lines first; library frames after):", *collapse_repeats(lines)]
    shown.append("".join(traceback.format_exception_only(type(exc), exc)).rstrip())
    return "\n".join(shown)


def collapse_repeats(lines: list[str], keep: int = 3, most: int = 60) -> list[str]:
    """Runs of one line (or of a few lines: mutual recursion) shown ``keep`` times,
    then ``[Previous line repeated N more times]``, as Python's own traceback
    does; then at most ``most`` lines, the first and the last halves."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        for width in range(1, 5):  # a cycle of 1 to 4 frames
            unit = lines[i:i + width]
            n = 1
            while len(unit) == width and lines[i + n * width:i + (n + 1) * width] == unit:
                n += 1
            if n > keep:
                out += unit * keep
                what = "line" if width == 1 else f"{width} lines"
                out.append(f"  [Previous {what} repeated {n - keep} more times]")
                i += n * width
                break
        else:
            out.append(lines[i])
            i += 1
    if len(out) > most:
        left = len(out) - most
        out = [*out[:most // 2], f"  [… {left} more lines of the traceback left out …]", *out[-most // 2:]]
    return out


# --------------------------------------------------------------------------- the zygote


def zygote() -> None:
    """Import what every block imports, then run jobs from stdin, one child each."""
    import numpy  # noqa: F401
    import torch  # noqa: F401

    current: list[dict] = []  # the job that runs
    reaper.become_subreaper()  # what the block starts stays below the zygote (devguide.run.reaper)
    # pytest killed: stop (below), not run on alone. SIGHUP, not SIGTERM (pytest's own
    # stop): the signal also comes while pytest's other threads still live, when
    # getppid() cannot tell that it is dying
    reaper.die_with_parent(signal.SIGHUP)

    parent = os.getppid()
    # the nice values, limits and CPU sets a block must leave as they are (reaper.process_state)
    BASELINE[:] = [("the block runner", os.getpid(), reaper.process_state()),
                   ("pytest", parent, reaper.process_state(parent))]

    def pytest_died(job: dict) -> None:
        """Nothing else can say where: pytest is gone (killed by the block, or by the
        out-of-memory killer) and the block's sandbox is still there."""
        if Path(job["sandbox"]).exists():
            os.write(2, (
                f"\n{job['where']}: the pytest process running the blocks died while this block ran"
                f"{'' if job.get('pid') else ' (or just after it)'}: the block killed it, or the "
                "out-of-memory killer did; the block runner stopped the block with everything it "
                "started and removed its sandbox\n").encode())
            remove_sandbox(Path(job["sandbox"]))

    def stop(signum, frame, gone=False):
        for job in current:
            if job.get("pid"):
                _kill_group(job["pid"])
        reaper.end_descendants()
        for job in current:  # its pytest process is gone, or going: nobody else removes it
            if gone or os.getppid() != parent:
                pytest_died(job)
            remove_sandbox(Path(job["sandbox"]))
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, lambda signum, frame: stop(signum, frame, gone=True))
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        # kept till the next job: if pytest dies first, its sandbox is removed here
        current[:] = [dict(job)]
        if NEEDS_DYNAMO.search(job["code"]):
            import torch._dynamo  # noqa: F401 - see NEEDS_DYNAMO
        with one_at_a_time(job):  # devguide.run.ports
            reply = _spawn_and_wait(job, current)
        try:
            print(json.dumps(reply), flush=True)
        except BrokenPipeError:  # pytest died while the block ran (the block killed it?)
            stop(signal.SIGPIPE, None, gone=True)
    for sig in (signal.SIGTERM, signal.SIGHUP):  # this is the end anyway
        signal.signal(sig, signal.SIG_IGN)
    for job in current:  # no more jobs, and the last one's sandbox left: pytest died
        pytest_died(job)


def _spawn_and_wait(job: dict, current: list[dict]) -> dict:
    import secrets

    job["token"] = secrets.token_hex(16)  # the child's alone: never in the reply, never in pytest
    job["changed"] = {}
    start = time.monotonic()
    inherited = _resident() if FORK else 0  # what a forked block starts with, resident already
    pid, proc = _spawn(job)
    current[0]["pid"] = pid
    try:
        status, stopped, peak = _watch(job, pid, proc, start)
    finally:
        _kill_group(pid)  # whatever the block left running in the background,
        left = reaper.end_descendants()  # daemons that left its group included
        current[0]["pid"] = None
        _put_back(job)
    code, sig, cpu, most_resident = status
    # A burst between two checks (shared memory touched and freed within a second, which
    # RLIMIT_DATA does not count either: issue 39, H10) still shows in the peak resident size
    # of the block's process and the children it waited for, which the kernel keeps.
    burst = max(0, (most_resident or 0) - inherited)
    over_at_peak = stopped is None and bool(job.get("memory")) and burst > job["memory"]
    if over_at_peak:
        stopped = "over_memory"
    result = None
    if job["language"] == "python":
        result = verdict(job, status, _read_record(job["result"]))
    return {
        "result": result,
        "exit": code,
        "signal": sig,
        "timed_out": stopped == "timed_out",
        "over_memory": stopped == "over_memory",
        "over_memory_at_peak": over_at_peak,
        "over_disk": stopped == "over_disk",
        "over_output": stopped == "over_output",
        "peak_memory": peak,
        "burst_memory": burst,
        "left_running": left,
        "seconds": round(time.monotonic() - start, 3),
        "cpu_seconds": None if cpu is None else round(cpu, 3),
        "changed": sorted(job["changed"].values()),
    }


def _put_back(job: dict) -> None:
    """The runner's and pytest's nice values, limits and CPU sets as they were at the
    start; what the block changed is noted in ``job["changed"]`` (what could not be put
    back, with why). Called each time the runner wakes while a block runs, so that a
    CPU limit set on the runner or pytest is lifted before it ends them (issue 39, H3-H6)."""
    for who, pid, before in BASELINE:
        diff = reaper.changed(pid, before)
        if not diff:
            continue
        failed = reaper.restore(pid, before, diff)
        for name, line in zip(diff, reaper.describe(who, diff), strict=True):
            why = next((f for f in failed if f.startswith(f"{name}:")), None)
            job["changed"].setdefault((who, name), line + (
                " (put back)" if why is None else f" (could not be put back: {why.split(': ', 1)[1]})"))


def _spawn(job: dict) -> tuple[int, subprocess.Popen | None]:
    """Start the block's process, leader of its own process group: a fork of the
    zygote, or where there is no fork a fresh interpreter (then also its Popen)."""
    if FORK:
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                run_child(job)
            finally:
                os._exit(70)
        return pid, None
    job_file = Path(job["result"]).with_suffix(".job.json")
    job_file.write_text(json.dumps(job), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "devguide.run.zygote", "--child", str(job_file)],
        env=zygote_env(),
        cwd=REPO,
        start_new_session=True,
    )
    return proc.pid, proc


def _watch(job: dict, pid: int, proc, start: float):
    """Wait for the block's process to end; stop it (and everything it started) once
    it runs past its time, its memory or what it may print. (exit status as
    ``_reap`` gives it, "timed_out" | "over_memory" | "over_output" | "over_disk" | None, peak
    memory of all its processes: their PSS, devguide.run.reaper)."""
    peak = 0
    pidfd = _pidfd(pid) if proc is None else None
    outputs = (job["stdout"], job["stderr"])
    next_memory = 1.0  # short blocks end before any memory check
    try:
        while True:
            _put_back(job)
            status = _reap(pid, proc)
            if status is not None:  # it ended; it may have printed too much in its last moments
                over = job.get("output_limit") and any(_size(p) > job["output_limit"] for p in outputs)
                if not over and _over_disk(job):  # or filled the disk in its last moments
                    return status, "over_disk", peak
                return status, "over_output" if over else None, peak
            elapsed = time.monotonic() - start
            stopped = None
            if elapsed > job["timeout"]:
                stopped = "timed_out"
            elif job.get("output_limit") and any(_size(p) > job["output_limit"] for p in outputs):
                stopped = "over_output"
            elif elapsed > next_memory:
                measured = time.monotonic()
                used = reaper.memory_of(reaper.descendants())
                # PSS costs a walk of each process's memory map: with many processes,
                # measure less often (at most a tenth of the block's time)
                next_memory = elapsed + max(POLL, 10 * (time.monotonic() - measured))
                peak = max(peak, used)
                if job.get("memory") and used > job["memory"]:
                    stopped = "over_memory"
                elif _over_disk(job):
                    stopped = "over_disk"
            if stopped:
                _kill_group(pid)
                reaper.kill_descendants()  # reaped once the block's own exit status is read
                return _reap(pid, proc, wait=True), stopped, peak
            wait = max(0.0, min(POLL, job["timeout"] - elapsed))
            if pidfd is not None:
                select.select([pidfd], [], [], wait)  # wakes as soon as the child ends
            else:
                time.sleep(min(wait, 0.01 if elapsed < 1 else POLL))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _over_disk(job: dict) -> bool:
    """Whether the block's folder takes more disk than it may (sandbox.disk_limit)."""
    return bool(job.get("disk") and job.get("scratch") and disk_used(job["scratch"]) > job["disk"])


def _read_record(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(RESULT_MOST + 1)
    except OSError:
        return None


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when the child ends (Linux 5.3+), else None."""
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


def _reap(pid: int, proc, wait: bool = False):
    """(exit code, signal number, CPU seconds or None, peak resident bytes or None) once the
    child has ended, else None."""
    if proc is not None:
        if wait:
            proc.wait()
        elif proc.poll() is None:
            return None
        rc = proc.returncode
        return (rc, None, None, None) if rc >= 0 else (None, -rc, None, None)
    done, status, usage = os.wait4(pid, 0 if wait else os.WNOHANG)
    if done == 0:
        return None
    cpu = usage.ru_utime + usage.ru_stime  # the block's, and its waited-for children's
    most = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)  # the largest of them (KiB on Linux)
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status), cpu, most
    return os.WEXITSTATUS(status), None, cpu, most


def _resident() -> int:
    """This process's resident size, in bytes (0 where psutil cannot tell)."""
    import psutil

    try:
        return psutil.Process().memory_info().rss
    except (psutil.Error, OSError):
        return 0


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":  # the fork-less path
        job_file = Path(sys.argv[2])
        job = json.loads(job_file.read_text(encoding="utf-8"))
        job_file.unlink()  # its token is the child's alone
        run_child(job)
    else:
        zygote()
