"""What a block may touch and use: its own scratch folder, its share of the
memory and of the cores, what it may print, and its time.

* ``block_sandbox`` -- a private sandbox per block (``Sandbox``): a scratch
  folder -- its working directory with a *copy* of ``snippets/``, its TMPDIR and
  its HOME -- and beside it a folder for the runner's files, out of its reach;
  ``sweep_stale`` removes those of a pytest process that was killed;
* ``block_env`` -- the environment a block starts with: a clean one, not the caller's;
* ``allow_writes_only_beneath`` -- Landlock (Linux 5.13+, unprivileged): the
  block's processes may write only beneath its scratch folder (and /dev/shm,
  /dev/null: no other device, no terminal), and
  (Linux 6.12+) signal no process but their own: not the block runner, not
  pytest (``landlock_abi``: 0 where the kernel lacks it); there ``RepoGuard``
  notices what a block changed in the repository and puts it back;
* ``memory_limit`` (the memory of all its processes, and its data segment,
  ``RLIMIT_DATA``), ``output_limit``, ``thread_share`` (OMP_NUM_THREADS when
  several pytest workers run blocks at once) and ``DEFAULT_TIMEOUT``: the limits
  a block runs under; ``block_limits`` names the first and the last for the
  census, whose reuse keys depend on them.

The block's process applies them (``devguide.run.zygote``); the pytest side sets
them up (``devguide.run.zygote_client``, ``devguide.pytest_plugin.page_items``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from devguide import settings
from devguide.paths import REPO, torch_version

DEFAULT_TIMEOUT = 120  # seconds; <!--pytest.mark.timeout(N)--> above a block overrides it


# --------------------------------------------------------------------------- the block's folders


@dataclass
class Sandbox:
    """A block's folders: ``scratch`` is the only place it may write (``work``, its
    working directory with a copy of snippets/; ``temp``, its TMPDIR; ``home``, its
    HOME); ``files``, beside it, the runner's (its captured output), out of its reach."""

    root: Path
    scratch: Path
    work: Path
    temp: Path
    home: Path
    files: Path
    left: list[str] = field(default_factory=list)  # what could not be removed after the block


PREFIX = "docs-block-"
_swept: list[object] = []


@contextlib.contextmanager
def block_sandbox():
    """A private sandbox (``Sandbox``), unique to this block, removed after it.
    Its name carries the pid of the pytest process that made it, so that the
    sandboxes of a process that was killed before it could remove them are
    removed by the next run (``sweep_stale``); the runner removes the sandbox of
    a block it is stopped in the middle of (devguide.run.zygote). What cannot be
    removed after the block is in ``box.left`` ('path: reason' each): the block that
    left it fails, at its page line (devguide.run.zygote_client)."""
    if not _swept:
        _swept.append(sweep_stale())
    root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    scratch = root / "block"
    box = Sandbox(root, scratch, scratch / "work", scratch / "tmp", scratch / "home", root / "runner")
    try:
        shutil.copytree(REPO / "snippets", box.work / "snippets")
        for folder in (box.temp, box.home, box.files):
            folder.mkdir()
        yield box
    finally:
        box.left = remove_sandbox(root)


def mark_swept() -> None:
    """This process has swept already (devguide.pytest_plugin, at the start of a run)."""
    _swept.append([])


FS_IOC_GETFLAGS, FS_IOC_SETFLAGS = 0x80086601, 0x40086602  # linux/fs.h, 64-bit
FS_IMMUTABLE_FL, FS_APPEND_FL = 0x10, 0x20
_O_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _unlock(fd: int, directory: bool) -> None:
    """Make what ``fd`` opens removable, as far as this process may: a folder
    writable and searchable by its owner, and (root, CAP_LINUX_IMMUTABLE) no
    immutable or append-only flag (``chattr +i``). Never through a symbolic link:
    ``fd`` was opened with O_NOFOLLOW."""
    if directory:
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o700)
    if not sys.platform.startswith("linux"):
        return
    import fcntl
    import struct

    with contextlib.suppress(OSError):
        flags = struct.unpack("i", fcntl.ioctl(fd, FS_IOC_GETFLAGS, bytes(8))[:4])[0]
        if flags & (FS_IMMUTABLE_FL | FS_APPEND_FL):
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", flags & ~(FS_IMMUTABLE_FL | FS_APPEND_FL)) + bytes(4))


def _shown(parts: list[str]) -> str:
    path = os.path.join(*parts)
    return path if len(path) <= 240 else f"{path[:120]}…{path[-120:]} ({len(parts) - 1} folders deep)"


def _remove_files(fd: int, parts: list[str], left: list[str]) -> list[str]:
    """Remove every entry of the folder ``fd`` but its folders; return their names."""
    folders = []
    with os.scandir(fd) as entries:
        found = [(e.name, e.is_dir(follow_symlinks=False), e.is_file(follow_symlinks=False)) for e in entries]
    for name, is_dir, is_file in found:
        if is_dir:
            folders.append(name)
            continue
        try:
            os.unlink(name, dir_fd=fd)
        except FileNotFoundError:
            continue
        except OSError as exc:
            if is_file:  # chattr +i or +a: cleared where this process may, then again
                with contextlib.suppress(OSError):
                    file = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
                    try:
                        _unlock(file, directory=False)
                    finally:
                        os.close(file)
                    os.unlink(name, dir_fd=fd)
                    continue
            left.append(f"{_shown([*parts, name])}: {exc.strerror}")
    return folders


def remove_sandbox(root: Path) -> list[str]:
    """Remove a sandbox, whatever the block did to it -- permissions taken away,
    immutable files (cleared where this process may: root), thousands of nested
    folders -- and return what could not be removed ('path: reason' each).

    One folder open at a time, climbing back through ``..``: no recursion (3,000
    nested folders made shutil.rmtree raise RecursionError in every later run), no
    path longer than the system allows, never through a symbolic link (O_NOFOLLOW:
    a link's target outside the sandbox is neither changed nor removed)."""
    root = Path(root)
    left: list[str] = []
    try:
        fd = os.open(root, _O_DIR)
    except FileNotFoundError:
        return left
    except OSError as exc:  # not a folder (or a link to one): removed as it is
        try:
            os.unlink(root)
        except OSError:
            left.append(f"{root}: {exc.strerror}")
        return left
    _unlock(fd, directory=True)
    parts = [str(root)]
    todo = [_remove_files(fd, parts, left)]  # per open level: its folders not yet visited
    try:
        while True:
            if todo[-1]:
                name = todo[-1].pop()
                try:
                    child = os.open(name, _O_DIR, dir_fd=fd)
                except OSError as exc:
                    left.append(f"{_shown([*parts, name])}: {exc.strerror}")
                    continue
                os.close(fd)
                fd = child
                parts.append(name)
                _unlock(fd, directory=True)
                todo.append(_remove_files(fd, parts, left))
                continue
            todo.pop()
            if not todo:
                break
            parent = os.open("..", _O_DIR, dir_fd=fd)
            os.close(fd)
            fd = parent
            name = parts.pop()
            try:
                os.rmdir(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            except OSError as exc:  # not empty: what it holds is named already
                if not left:
                    left.append(f"{_shown([*parts, name])}: {exc.strerror}")
    finally:
        os.close(fd)
    try:
        os.rmdir(root)
    except FileNotFoundError:
        pass
    except OSError as exc:
        if not left:
            left.append(f"{root}: {exc.strerror}")
    return left


def sweep_stale() -> list[str]:
    """Remove the sandboxes left by pytest processes that no longer run (killed,
    or killed by the out-of-memory killer); return what could not be removed
    ('path: reason' each: devguide.pytest_plugin names them at the end of the run),
    never raising: nothing one run leaves breaks the next."""
    left: list[str] = []
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return left
    for entry in entries:
        pid = entry.name.removeprefix(PREFIX).split("-", 1)[0]
        if entry.name.startswith(PREFIX) and pid.isdigit() and not _alive(int(pid)):
            try:
                left += remove_sandbox(Path(entry.path))
            except OSError as exc:
                left.append(f"{entry.path}: {exc.strerror}")
    return left


# --------------------------------------------------------------------------- shared memory left behind

SHM = Path("/dev/shm")
TORCH_SHM_FILE = re.compile(r"torch_\d+_\d+_\d+$")
SYSV_SHM = Path("/proc/sysvipc/shm")
_IPC_RMID = 0


def _shm_in_use() -> set[int]:
    """Inodes of the /dev/shm files that a process has open or mapped."""
    used: set[int] = set()
    try:
        device = os.stat(SHM).st_dev
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return used
    for pid in pids:
        try:
            with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
                used.update(int(line.split(None, 5)[4]) for line in maps if " /dev/shm/" in line)
            for fd in os.scandir(f"/proc/{pid}/fd"):
                try:
                    st = os.stat(fd.path)
                except OSError:
                    continue
                if st.st_dev == device:
                    used.add(st.st_ino)
        except (OSError, ValueError, IndexError):
            continue
    return used


def shared_memory_left(since: float) -> list[str]:
    """What a block left in shared memory, which outlives its processes and is in no
    process's memory limit (issue 39, H9): the files in /dev/shm and the System V
    segments of this user made since ``since`` (the block's start) that no process has
    open, mapped or attached when it has ended. Removed; named ('what: size (removed)'),
    so that the block fails. Blocks running at the same time on another worker are not
    told apart: what one of them left while this one ran is named here too."""
    left: list[str] = []
    uid, since = os.getuid(), since - 0.1  # file times come from a coarse clock
    try:
        entries = list(os.scandir(SHM))
    except OSError:
        entries = []
    made = []
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if st.st_uid == uid and st.st_ctime >= since and entry.is_file(follow_symlinks=False):
            made.append((entry.path, st))
    if made:
        used = _shm_in_use()
        for path, st in made:
            if st.st_ino in used:
                continue
            try:
                os.unlink(path)
                # torch's file_system sharing names its files torch_<pid>_<n>_<n>, and its
                # shared-memory manager unlinks them when its last client has gone: the
                # runner ends that manager with the block, so they are removed, not blamed
                if not TORCH_SHM_FILE.match(os.path.basename(path)):
                    left.append(f"{path}: {st.st_size} bytes in /dev/shm (removed)")
            except FileNotFoundError:  # gone meanwhile (multiprocessing's sem.* live for a moment)
                continue
            except OSError as exc:
                left.append(f"{path}: {st.st_size} bytes in /dev/shm, not removed: {exc.strerror}")
    try:
        rows = SYSV_SHM.read_text(encoding="ascii").splitlines()[1:]
    except OSError:
        rows = []
    for row in rows:
        # key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime …
        f = row.split()
        try:
            key, shmid, size, nattch, cuid, ctime = f[0], int(f[1]), int(f[3]), int(f[6]), int(f[9]), int(f[13])
        except (IndexError, ValueError):
            continue
        if cuid != uid or nattch or ctime < int(since):
            continue
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        done = libc.shmctl(shmid, _IPC_RMID, None) == 0
        left.append(f"System V shared memory segment {shmid} (key 0x{int(key) & 0xFFFFFFFF:08x}): {size} bytes"
                    + (" (removed)" if done else f", not removed: {os.strerror(ctypes.get_errno())}"))
    return left


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# Environment variables a block gets from the caller's: what a reader's fresh
# shell would have (locale, PATH, the virtual environment) and what selects or
# tunes a device or a library (CUDA_VISIBLE_DEVICES, NCCL_*, OMP_NUM_THREADS…).
# Nothing else: not OLDPWD, PWD, the caller's HOME or TMPDIR, editor or shell state.
ENV_NAMES = {"PATH", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "VIRTUAL_ENV",
             "LD_LIBRARY_PATH", "CI", "REQUIRE_CUDA", "PYTHONHASHSEED", "SSL_CERT_FILE", "SSL_CERT_DIR"}
ENV_PREFIXES = ("LC_", "CUDA", "NVIDIA_", "NCCL_", "HIP_", "ROCM", "HSA_", "ROCR_", "OMP_", "MKL_", "KMP_",
                "OPENBLAS_", "TORCH", "PYTORCH_", "DOCS_", "XLA_", "ZE_", "ONEAPI_", "SYCL_", "GLOO_", "MASTER_")


# Deprecation warnings that torch raises from its own code, whatever the block
# does; every other deprecation warning fails the block (devguide.run.zygote).
# (message prefix, the torch releases before which it is ignored, why)
TORCH_OWN_DEPRECATIONS = (
    ("`torch.jit.script_method` is deprecated", (2, 12),
     "torch 2.11: torch/utils/mkldnn.py uses it when torch._inductor is imported "
     "(torch.compile, torch._dynamo.reset()); seen in the GPU run of 2026-11-26"),
)


def _torch_own_deprecations() -> list[str]:
    """The messages of TORCH_OWN_DEPRECATIONS that this torch raises itself."""
    release = tuple(int(part) for part in torch_version().split(".")[:2])
    return [message for message, before, _ in TORCH_OWN_DEPRECATIONS if release < before]


def fail_on_deprecations() -> None:
    """In a python block's process: every deprecation warning is an error, except
    ``TORCH_OWN_DEPRECATIONS``."""
    import re
    import warnings

    warnings.simplefilter("error", DeprecationWarning)
    warnings.simplefilter("error", FutureWarning)
    # torch announces some deprecations as a plain UserWarning ("… is deprecated");
    # the message (matched from its start, ignoring case) fails those too
    warnings.filterwarnings("error", message=r".*\bdeprecat")
    for message in _torch_own_deprecations():  # torch's own, not the block's
        warnings.filterwarnings("ignore", message=re.escape(message), category=DeprecationWarning)


def warning_filters_env() -> str:
    """PYTHONWARNINGS for a bash block's Python programs: deprecations fail them,
    except ``TORCH_OWN_DEPRECATIONS`` (a later entry takes precedence)."""
    ignore = [f"ignore:{message}:DeprecationWarning" for message in _torch_own_deprecations()]
    return ",".join(["error::DeprecationWarning", "error::FutureWarning", *ignore])


def shell_env() -> dict:
    """``ENV_NAMES`` and ``ENV_PREFIXES`` of the caller's environment: what a reader's fresh
    shell has (blocks here, downloaded scripts in tests/site/test_downloads_run.py)."""
    return {k: v for k, v in os.environ.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES)}


def block_env(box: Sandbox) -> dict:
    """The environment a block starts with: ``ENV_NAMES`` and ``ENV_PREFIXES`` of
    the caller's, HOME and TMPDIR in its scratch folder, PWD its working directory."""
    env = shell_env()
    env.update(HOME=str(box.home), TMPDIR=str(box.temp), PWD=str(box.work), PYTHONIOENCODING="utf-8",
               **thread_share())
    return env


# --------------------------------------------------------------------------- its memory and its cores


def memory_limit() -> int | None:
    """Bytes a block may allocate: 60 % of the machine's memory, shared by the
    pytest workers (DOCS_BLOCK_MEMORY_GB overrides it). None where unknown."""
    now = settings.current()
    if now.block_memory_gb is not None:
        return int(now.block_memory_gb * 2**30)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    return int(total * 0.6 / max(1, now.xdist_workers))


def disk_limit() -> int:
    """Bytes of disk a block's folder may take (allocated blocks, so a sparse file counts what
    it really holds): 2 GiB (DOCS_BLOCK_DISK_GB overrides it). Issue 39, H11: a block took
    3 GiB of the shared disk with posix_fallocate and passed."""
    return int(settings.current().block_disk_gb * 2**30)


def disk_used(folder: str | Path, most_entries: int = 200_000) -> int:
    """Bytes allocated to the files beneath ``folder`` (links not followed); the walk stops
    after ``most_entries`` entries (a block that makes more is measured on those)."""
    used, stack, seen = 0, [str(folder)], 0
    while stack and seen < most_entries:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                seen += 1
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                used += st.st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return used


def output_limit() -> int:
    """Bytes a block may print, stdout and stderr each: 10 MB (DOCS_BLOCK_OUTPUT_MB overrides it)."""
    return int(settings.current().block_output_mb * 2**20)


def thread_share() -> dict:
    """OMP_NUM_THREADS for blocks when several pytest workers run blocks at once:
    each worker's share of the cores, so that two blocks do not run four intra-op
    threads on two cores (OpenMP's spinning threads then burn the CPU time the other
    block needs: a two-worker torchrun block took 17 s of CPU in 8.6 s, alone 7.4 s).
    Nothing when the variable is already set or one worker runs (-n0)."""
    now = settings.current()
    workers = now.xdist_workers
    if workers <= 1 or now.omp_threads_set:
        return {}
    return {"OMP_NUM_THREADS": str(max(1, cores() // workers))}


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def block_limits() -> tuple:
    """The limits a block runs under, as the census's reuse key counts them:
    (its thread share, its memory limit)."""
    return tuple(sorted(thread_share().items())), memory_limit()


# --------------------------------------------------------------------------- writes only into its scratch folder

# Landlock (Linux 5.13+, unprivileged): the block's process and everything it
# starts may write only beneath its own scratch folder, in /dev/shm (the shared
# memory of DataLoader workers, multiprocessing's semaphores) and to /dev/null,
# /dev/zero and /dev/full. The rest of /dev is read-only to it (issue 39: H15, a
# root block wrote a file into /dev and 512 bytes through /dev/loop0; H16, it
# wrote a fake result line into the developer's terminal, /dev/pts/N) and, with
# Landlock ABI 5 (Linux 6.10), no ioctl reaches a device outside those (TIOCSTI
# typed a command into that terminal). GPUs need /dev too: a machine with an
# NVIDIA driver runs without Landlock (landlock_abi). Where the kernel lacks it,
# RepoGuard notices what a block changed in the repository and puts it back;
# writes elsewhere are then not stopped.
_LANDLOCK_CREATE, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT = 444, 445, 446
_FILE_RIGHTS = (1 << 1)  # WRITE_FILE
_DIR_RIGHTS = (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12)
_IOCTL_DEV = 1 << 15  # LANDLOCK_ACCESS_FS_IOCTL_DEV (ABI 5)
WRITABLE_SYSTEM = ("/dev/shm",)  # folders
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")  # files
_SCOPE_SIGNAL = 1 << 1  # LANDLOCK_SCOPE_SIGNAL (ABI 6, Linux 6.12)


@functools.lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none."""
    if not sys.platform.startswith("linux") or not settings.current().landlock:
        return 0
    if os.path.exists("/dev/nvidiactl"):
        # NVIDIA's driver does not initialise under this ruleset: cudaGetDeviceCount
        # fails with error 304 ("OS call failed or operation not supported on this OS";
        # seen on an H200, Linux 6.18, Landlock ABI 7, torch 2.11, 2026-11-26). On a
        # machine with an NVIDIA GPU the repository is kept by RepoGuard instead.
        # (Allowing writes beneath /proc too let the driver start in a one-tensor test;
        # the whole run has not been tried that way, so it is not done.)
        return 0
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    version = libc.syscall(_LANDLOCK_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(0, version)


def allow_writes_only_beneath(roots: list[Path]) -> None:
    """Forbid this process and its children to create, change or delete anything
    except beneath ``roots``; reading stays allowed. Raises OSError if the kernel refuses."""
    import ctypes

    abi = landlock_abi()
    if not abi:
        raise OSError("Landlock is not available")
    libc = ctypes.CDLL(None, use_errno=True)
    file_rights = _FILE_RIGHTS | ((1 << 14) if abi >= 3 else 0) | (_IOCTL_DEV if abi >= 5 else 0)  # TRUNCATE
    handled = file_rights | _DIR_RIGHTS | ((1 << 13) if abi >= 2 else 0)  # REFER

    class RulesetAttr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64)] + (
            [("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)] if abi >= 6 else [])

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    # ABI 6+: no signal to a process outside the block's own (the block runner, pytest):
    # os.kill(os.getppid(), …) fails with PermissionError instead of killing the run
    attr = RulesetAttr(handled, 0, _SCOPE_SIGNAL) if abi >= 6 else RulesetAttr(handled)
    ruleset = libc.syscall(_LANDLOCK_CREATE, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        rules = [(root, handled) for root in [*roots, *map(Path, WRITABLE_SYSTEM)]]
        rules += [(Path(device), file_rights) for device in WRITABLE_DEVICES]  # a file's rule: file rights only
        for root, rights in rules:
            try:
                fd = os.open(root, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                rule = PathBeneath(rights, fd)
                if libc.syscall(_LANDLOCK_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule {root}")
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
    Before each block the files' sizes, times, modes, extended attributes and
    immutable/append-only flags are noted (and the contents of those that changed
    since the last block re-read, so an author's edits between blocks are kept);
    after it, anything changed, deleted or added is restored, and named in the
    block's failure. Where Landlock keeps a block from writing the repository's
    contents, its metadata is still in reach (issue 39, H14: ``chmod``, ``utime``,
    ``setxattr``, ``chattr +i``): the guard runs there too."""

    SKIP_DIRS = {".git", "build", ".cache", "__pycache__", "node_modules", ".pytest_cache", ".ruff_cache"}

    def __init__(self, root: Path, contents: bool = True):
        self.root = root
        # Where Landlock keeps blocks from writing the repository's contents, a change of contents
        # (or an added or deleted file) while a block runs is the author's edit, never put back:
        # only metadata is guarded then (contents=False)
        self.guards_contents = contents
        self.stats: dict[str, tuple] = {}  # path → (size, mtime, mode, ctime)
        self.content: dict[str, bytes] = {}
        self.marks: dict[str, tuple] = {}  # path → (extended attributes, flags): read again when ctime moves

    def _scan(self) -> dict[str, tuple]:
        found: dict[str, tuple] = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d not in self.SKIP_DIRS and not d.startswith((".venv", "."))
                           or d in (".ci", ".github")]
            for name in filenames:
                path = os.path.join(dirpath, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                found[os.path.relpath(path, self.root)] = (st.st_size, st.st_mtime_ns, st.st_mode, st.st_ctime_ns)
        # the programs of the repository's virtual environment: their metadata only (H14: a block
        # made the venv's ruff unexecutable); their contents are the installer's to restore
        for entry in self._venv_programs():
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found[os.path.relpath(entry.path, self.root)] = (None, st.st_mtime_ns, st.st_mode, st.st_ctime_ns)
        return found

    def _venv_programs(self) -> list[os.DirEntry]:
        try:
            with os.scandir(self.root / ".venv" / "bin") as entries:
                return [e for e in entries if not e.is_dir(follow_symlinks=False)]
        except OSError:
            return []

    def before(self) -> None:
        now = self._scan()
        for path, stat in now.items():
            if self.guards_contents and stat[0] is not None and (
                    self.stats.get(path, ())[:2] != stat[:2] or path not in self.content):
                try:
                    self.content[path] = (self.root / path).read_bytes()
                except OSError:
                    continue
            # every change of metadata moves ctime: attributes and flags are read again only then
            if self.stats.get(path, ())[3:] != stat[3:] or path not in self.marks:
                self.marks[path] = _marks_of(str(self.root / path))
        for path in set(self.content) - set(now):
            del self.content[path]
        for path in set(self.marks) - set(now):
            del self.marks[path]
        self.stats = now

    def after(self) -> list[str]:
        import stat

        now = self._scan()
        changed = []
        for path in sorted(set(now) | set(self.stats)):
            was, current = self.stats.get(path), now.get(path)
            if not self.guards_contents and (was is None or current is None or was[0] != current[0]):
                continue  # added, deleted or resized: an edit (a block cannot write here)
            if was is None or current is None or was[:3] != current[:3]:
                changed.append(path)
            elif was[3] != current[3] and _marks_of(str(self.root / path)) != self.marks.get(path):
                changed.append(path)
        for path in changed:
            target = self.root / path
            was, current = self.stats.get(path), now.get(path)
            if was is None:  # added by the block
                assert current is not None  # changed: it is in one of the two scans
                _restore_marks(target, ((), 0), _marks_of(str(target)))
                if current[0] is not None:  # not a program of the venv: the harness cannot tell it from an install
                    target.unlink(missing_ok=True)
                continue
            size, mtime, mode = was[:3]
            link = stat.S_ISLNK(mode)
            if current is not None:
                _restore_marks(target, self.marks.get(path, ((), 0)), _marks_of(str(target)))
                if not link:  # first: a file made unreadable or read-only is read and written again
                    with contextlib.suppress(OSError):
                        os.chmod(target, stat.S_IMODE(mode))
            if self.guards_contents and (current is None or current[:2] != was[:2]) and path in self.content:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.content[path])
            if not link:
                with contextlib.suppress(OSError):
                    os.chmod(target, stat.S_IMODE(mode))
                    os.utime(target, ns=(mtime, mtime))
        return changed


def _marks_of(path: str) -> tuple[tuple[str, ...], int]:
    """A file's extended attributes (names) and its immutable/append-only flags."""
    attrs: tuple[str, ...] = ()
    flags = 0
    if not sys.platform.startswith("linux"):
        return attrs, flags
    with contextlib.suppress(OSError):
        attrs = tuple(sorted(os.listxattr(path, follow_symlinks=False)))
    import fcntl
    import struct

    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            flags = struct.unpack("i", fcntl.ioctl(fd, FS_IOC_GETFLAGS, bytes(8))[:4])[0] & (FS_IMMUTABLE_FL | FS_APPEND_FL)
        finally:
            os.close(fd)
    return attrs, flags


def _restore_marks(target: Path, was: tuple, now: tuple) -> None:
    """Take off the flags and extended attributes a block added (as far as this process may)."""
    (attrs_was, flags_was), (attrs_now, flags_now) = was, now
    if flags_now & ~flags_was:
        with contextlib.suppress(OSError):
            fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
            try:
                _unlock(fd, directory=False)
            finally:
                os.close(fd)
    for name in set(attrs_now) - set(attrs_was):
        with contextlib.suppress(OSError):
            os.removexattr(target, name, follow_symlinks=False)


# What the block runner itself needs of the caller's environment besides ``shell_env``:
# where its Python finds devguide and torch (PYTHONPATH: make test-cuda), the project
# it serves (DEVGUIDE_ROOT), its HOME and the folder of the sandboxes (TMPDIR).
RUNNER_NAMES = {"PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONSAFEPATH",
                "DEVGUIDE_ROOT", "HOME", "TMPDIR", "PYTEST_XDIST_WORKER_COUNT"}


def zygote_env() -> dict:
    """The environment of the zygote: ``shell_env`` and ``RUNNER_NAMES`` of the caller's,
    torch's threads set before it is imported (``sandbox.thread_share``). Not the caller's
    whole environment: a block can read its runner's (its parent's) ``/proc/<pid>/environ``,
    and a forked block's own ``/proc/self/environ`` is the runner's too (issue 39, H7).
    It imports devguide as every process does: installed."""
    env = shell_env()
    env.update({k: v for k, v in os.environ.items() if k in RUNNER_NAMES})
    return dict(env, PYTHONUNBUFFERED="1", **thread_share())
