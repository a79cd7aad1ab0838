"""What a block may touch and use: its own folders, nothing beneath the repository,
its share of the memory and of the cores, and its time.

* ``block_sandbox`` -- a private working directory with a *copy* of ``snippets/``,
  a folder for the runner's files out of the block's sight, and one for its
  temporary files (TMPDIR);
* ``deny_writes_beneath`` -- Landlock (Linux 5.13+, unprivileged): the block's
  process may write anywhere except beneath the repository (``landlock_abi``: 0
  where the kernel lacks it); there ``RepoGuard`` notices what a block changed in
  the repository and puts it back;
* ``memory_limit`` (the block's data segment, ``RLIMIT_DATA``), ``thread_share``
  (OMP_NUM_THREADS when several pytest workers run blocks at once) and
  ``DEFAULT_TIMEOUT``: the limits a block runs under; ``block_limits`` names the
  first two for the census, whose reuse keys depend on them.

The block's process applies them (``devguide.runner``); the pytest side sets
them up (``devguide.running``, ``devguide.collection``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path

from devguide.config import REPO

DEFAULT_TIMEOUT = 120  # seconds; <!--pytest.mark.timeout(N)--> above a block overrides it


# --------------------------------------------------------------------------- the block's folders


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


# --------------------------------------------------------------------------- its memory and its cores


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


def block_limits() -> tuple:
    """The limits a block runs under, as the census's reuse key counts them:
    (its thread share, its memory limit)."""
    return tuple(sorted(thread_share().items())), memory_limit()


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
