"""Run each block in a process of its own, so that nothing a block does reaches the next.

A block runs as a reader runs a script: in a fresh process, ``__name__ ==
"__main__"``, its own working directory. Starting Python and importing torch for
each of ~800 blocks would cost minutes, so a *zygote* -- ``python -m
devguide.runner`` -- imports torch and NumPy once and forks one child per block
(POSIX). The zygote never touches CUDA, so each child initialises CUDA afresh.

What the child does cannot escape it:

* a crash, ``os._exit``, a signal or the OOM killer ends the child, not pytest:
  the block fails with its page line, exit status or signal and its last output,
  and later blocks still run;
* a block that runs past its limit (``DEFAULT_TIMEOUT``, or
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
"""

from __future__ import annotations

import functools
import json
import os
import select
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

DEFAULT_TIMEOUT = 120  # seconds; <!--pytest.mark.timeout(N)--> above a block overrides it
FORK = sys.platform.startswith("linux") and os.environ.get("DOCS_FORK", "1") != "0"
POLL = 0.25  # seconds between memory checks while a block runs


def memory_limit() -> int | None:
    """Bytes a block may allocate: 60 % of the machine's memory, shared by the
    pytest workers (DOCS_BLOCK_MEMORY_GB overrides it). None where unknown."""
    if os.environ.get("DOCS_BLOCK_MEMORY_GB"):
        return int(float(os.environ["DOCS_BLOCK_MEMORY_GB"]) * 2**30)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    return int(total * 0.6 / max(1, workers))


# --------------------------------------------------------------------------- no writes into the repository

# Landlock (Linux 5.13+, unprivileged): the block's process may write anywhere
# except beneath the repository. Where the kernel lacks it, RepoGuard notices and
# restores instead.
_LANDLOCK_CREATE, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT = 444, 445, 446
_FILE_RIGHTS = (1 << 1)  # WRITE_FILE
_DIR_RIGHTS = (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12)


@functools.lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none."""
    if not sys.platform.startswith("linux") or os.environ.get("DOCS_LANDLOCK", "1") == "0":
        return 0
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    version = libc.syscall(_LANDLOCK_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(0, version)


def deny_writes_beneath(root: Path) -> None:
    """Forbid this process and its children to create, change or delete anything
    beneath ``root``; everything else stays writable. Raises OSError if the kernel refuses."""
    import ctypes

    abi = landlock_abi()
    if not abi:
        raise OSError("Landlock is not available")
    libc = ctypes.CDLL(None, use_errno=True)
    file_rights = _FILE_RIGHTS | ((1 << 14) if abi >= 3 else 0)  # TRUNCATE
    handled = file_rights | _DIR_RIGHTS | ((1 << 13) if abi >= 2 else 0)  # REFER

    class RulesetAttr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64)]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    attr = RulesetAttr(handled)
    ruleset = libc.syscall(_LANDLOCK_CREATE, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        root = root.resolve()
        parts = root.parts
        for depth in range(len(parts) - 1):
            parent = Path(*parts[: depth + 1])
            keep = parts[depth + 1]
            for entry in os.scandir(parent):
                if entry.name == keep or entry.is_symlink():
                    # a symlink is followed by the rule: one to the repository (or above it,
                    # like pytest's "…current" links) would open it up again
                    continue
                try:
                    fd = os.open(entry.path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    is_dir = entry.is_dir(follow_symlinks=True)
                    rule = PathBeneath(handled if is_dir else file_rights, fd)
                    libc.syscall(_LANDLOCK_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0)
                finally:
                    os.close(fd)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_LANDLOCK_RESTRICT, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)


# --------------------------------------------------------------------------- the child


def run_child(job: dict) -> None:
    """In the child: become a fresh script run of the block; never returns."""
    os.chdir(job["cwd"])
    out = os.open(job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    for fd, target in ((out, 1), (err, 2), (null, 0)):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(job["env"])
    import tempfile

    tempfile.tempdir = None  # the zygote's cached choice: read the block's TMPDIR again
    if job.get("protect"):
        deny_writes_beneath(Path(job["protect"]))
    if job.get("memory") and hasattr(__import__("resource"), "RLIMIT_DATA"):
        import resource

        resource.setrlimit(resource.RLIMIT_DATA, (job["memory"], job["memory"]))
    if job["language"] == "bash":
        os.execvp("bash", ["bash", "-euo", "pipefail", "-c", job["code"]])
    sys.stdout = open(1, "w", encoding="utf-8", errors="strict", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False)  # noqa: SIM115
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.argv = [job["argv0"]]
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
    Path(job["result"]).write_text(json.dumps(status), encoding="utf-8")
    os._exit(0)


def _run_python(job: dict) -> None:
    import types
    import warnings

    from devguide import running

    # No seeds are set: a block runs as a reader's fresh script does, and one whose
    # output depends on randomness seeds it itself (all pass with no harness seed).
    warnings.simplefilter("error", DeprecationWarning)
    warnings.simplefilter("error", FutureWarning)
    # torch announces some deprecations as a plain UserWarning ("… is deprecated");
    # the message (matched from its start, ignoring case) fails those too
    warnings.filterwarnings("error", message=r".*\bdeprecat")
    code = running.compiled(running.Block.from_job(job))  # also feeds linecache: page lines in tracebacks
    main = types.ModuleType("__main__")  # functions defined in the block pickle
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def _failure(job: dict, exc: BaseException) -> str:
    from devguide import running

    block = running.Block.from_job(job)
    try:
        return (
            f"{job['where']}: python block failed\n\n{running.numbered(block)}\n\n"
            f"{running.page_traceback(block, exc)}"
        )
    except Exception:  # noqa: BLE001 - a failure must never be lost
        return f"{job['where']}: python block failed\n\n" + "".join(traceback.format_exception(exc))


# --------------------------------------------------------------------------- the zygote


def zygote() -> None:
    """Import what every block imports, then run jobs from stdin, one child each."""
    import numpy  # noqa: F401
    import torch  # noqa: F401

    # Creating any optimizer imports torch._dynamo (and with it torch._inductor,
    # which torch.profiler and torch.compile use too): 1.5 to 4 s on 2 cores, paid
    # by every block that builds one. The import starts no thread, so the forked
    # children inherit it safely.
    import torch._dynamo  # noqa: F401

    from devguide import running  # noqa: F401 - imported once, not per child

    current: list[int] = []

    def stop(signum, frame):
        for pid in current:
            _kill_group(pid)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        reply = _spawn_and_wait(job, current)
        print(json.dumps(reply), flush=True)


def _spawn_and_wait(job: dict, current: list[int]) -> dict:
    start = time.monotonic()
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
        proc = None
    else:
        job_file = Path(job["result"]).with_suffix(".job.json")
        job_file.write_text(json.dumps(job), encoding="utf-8")
        proc = subprocess.Popen(
            [sys.executable, "-m", "devguide.runner", "--child", str(job_file)],
            env=_env(),
            cwd=_repo(),
            start_new_session=True,
        )
        pid = proc.pid
    current[:] = [pid]
    timed_out = over_memory = False
    peak = 0
    pidfd = None
    if hasattr(os, "pidfd_open") and proc is None:
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    try:
        while True:
            status = _reap(pid, proc)
            if status is not None:
                break
            elapsed = time.monotonic() - start
            if elapsed > job["timeout"]:
                timed_out = True
                _kill_group(pid)
                status = _reap(pid, proc, wait=True)
                break
            if elapsed > 1:  # short blocks end before any memory check
                rss = _group_rss(pid)
                peak = max(peak, rss)
                if job.get("memory") and rss > job["memory"]:
                    over_memory = True
                    _kill_group(pid)
                    status = _reap(pid, proc, wait=True)
                    break
            wait = max(0.0, min(POLL, job["timeout"] - elapsed))
            if pidfd is not None:
                select.select([pidfd], [], [], wait)  # wakes as soon as the child ends
            else:
                time.sleep(min(wait, 0.01 if elapsed < 1 else POLL))
    finally:
        if pidfd is not None:
            os.close(pidfd)
        _kill_group(pid)  # whatever the block left running in the background
        current[:] = []
    code, sig, cpu = status
    return {
        "exit": code,
        "signal": sig,
        "timed_out": timed_out,
        "over_memory": over_memory,
        "peak_rss": peak,
        "seconds": round(time.monotonic() - start, 3),
        "cpu_seconds": None if cpu is None else round(cpu, 3),
    }


def _reap(pid: int, proc, wait: bool = False):
    """(exit code, signal number, CPU seconds or None) once the child has ended, else None."""
    if proc is not None:
        if wait:
            proc.wait()
        elif proc.poll() is None:
            return None
        rc = proc.returncode
        return (rc, None, None) if rc >= 0 else (None, -rc, None)
    done, status, usage = os.wait4(pid, 0 if wait else os.WNOHANG)
    if done == 0:
        return None
    cpu = usage.ru_utime + usage.ru_stime  # the block's, and its waited-for children's
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status), cpu
    return os.WEXITSTATUS(status), None, cpu


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _group_rss(pgid: int) -> int:
    """Resident memory of the block's process group (Linux /proc; 0 elsewhere)."""
    total = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            if int(fields[2]) != pgid:  # field 5 of stat: process group
                continue
            with open(f"/proc/{entry}/statm", "rb") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total


def _repo() -> Path:
    from devguide.config import REPO

    return REPO


def thread_share() -> dict:
    """OMP_NUM_THREADS for blocks when several pytest workers run blocks at once:
    each worker's share of the cores, so that two blocks do not run four intra-op
    threads on two cores (OpenMP's spinning threads then burn the CPU time the other
    block needs: a two-worker torchrun block took 17 s of CPU in 8.6 s, alone 7.4 s).
    Nothing when the variable is already set or one worker runs (-n0)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if workers <= 1 or "OMP_NUM_THREADS" in os.environ:
        return {}
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return {"OMP_NUM_THREADS": str(max(1, cores // workers))}


def _env() -> dict:
    """The environment of the zygote: torch's threads set before it is imported
    (thread_share). It imports devguide as every process does: installed."""
    return dict(os.environ, PYTHONUNBUFFERED="1", **thread_share())


# --------------------------------------------------------------------------- the pytest side


class Zygote:
    """The pytest process's handle on its zygote; restarted after it dies."""

    def __init__(self):
        self.proc: subprocess.Popen | None = None
        self.ready = False

    def launch(self) -> None:
        """Start the zygote without waiting for it: it imports torch (~3 s of CPU)
        while pytest goes on collecting (devguide.pytest_plugin does this when the run
        will run blocks). Nothing when one is running already."""
        if self.proc is not None and self.proc.poll() is None:
            return
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "devguide.runner"],
            cwd=_repo(),
            env=_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.ready = False

    def start(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.launch()
        if not self.ready:
            if not self.proc.stdout.readline():
                raise RuntimeError("the block runner (python -m devguide.runner) did not start")
            self.ready = True

    def run(self, job: dict) -> dict:
        self.start()  # (re)starts it if it is not running; waits for it to be ready
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            reply = self.proc.stdout.readline()
        except KeyboardInterrupt:
            self.stop()
            raise KeyboardInterrupt(f"interrupted while running {job['where']}") from None
        except BrokenPipeError:
            reply = ""
        if not reply:
            self.stop()
            return {"exit": None, "signal": None, "runner_died": True, "timed_out": False, "over_memory": False}
        return json.loads(reply)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None
        self.ready = False


class RepoGuard:
    """Notices a block that changed the repository and puts the files back.

    Blocks run in a temporary folder with a copy of ``snippets/``, so a relative
    path cannot reach the repository; this catches the rest (an absolute path).
    Before each block the files' sizes and times are noted (and the contents of
    those that changed since the last block re-read, so an author's edits
    between blocks are kept); after it, anything changed, deleted or added is
    restored, and named in the block's failure."""

    SKIP_DIRS = {".git", "build", ".cache", "__pycache__", "node_modules", ".pytest_cache", ".ruff_cache"}

    def __init__(self, root: Path):
        self.root = root
        self.stats: dict[str, tuple[int, int]] = {}
        self.content: dict[str, bytes] = {}

    def _scan(self) -> dict[str, tuple[int, int]]:
        found = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d not in self.SKIP_DIRS and not d.startswith((".venv", "."))
                           or d in (".ci", ".github")]
            for name in filenames:
                path = os.path.join(dirpath, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                found[os.path.relpath(path, self.root)] = (st.st_size, st.st_mtime_ns)
        return found

    def before(self) -> None:
        now = self._scan()
        for path, stat in now.items():
            if self.stats.get(path) != stat or path not in self.content:
                try:
                    self.content[path] = (self.root / path).read_bytes()
                except OSError:
                    continue
        for path in set(self.content) - set(now):
            del self.content[path]
        self.stats = now

    def after(self) -> list[str]:
        now = self._scan()
        changed = sorted(p for p in set(now) | set(self.stats) if now.get(p) != self.stats.get(p))
        for path in changed:
            target = self.root / path
            if path in self.content:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.content[path])
                os.utime(target, ns=(self.stats[path][1], self.stats[path][1]))
            else:
                target.unlink(missing_ok=True)
        return changed


_default: list[Zygote] = []


def default_zygote() -> Zygote:
    """One zygote per pytest process, started on first use and stopped at exit."""
    if not _default:
        import atexit

        _default.append(Zygote())
        atexit.register(_default[0].stop)
    return _default[0]


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":  # the fork-less path
        run_child(json.loads(Path(sys.argv[2]).read_text(encoding="utf-8")))
    else:
        zygote()
