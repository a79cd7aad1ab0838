"""Every process a block starts, found, measured and ended with the block.

The block runner (``python -m devguide.run.zygote``, the zygote) makes itself a
*child subreaper* (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``): a process the block
starts stays its descendant even when it leaves the block's process group or
session (``setsid``, ``start_new_session=True``, a double fork: the daemon is
re-parented to the zygote, not to init). So

* ``descendants`` -- every process the block started, whatever it did to escape;
* ``end_descendants`` -- kills them all and reaps them, round after round until
  none is left (a process that forks while it is being killed leaves its children
  to the zygote, and the next round takes them);
* ``memory_of`` -- what they really use: the sum of their *proportional* set
  sizes (PSS, ``/proc/PID/smaps_rollup`` read by psutil), so that memory shared by 200 forked
  workers with their parent counts once, not 200 times (resident sizes summed,
  the way this was measured before, failed 200 sleeping forks using 191 MiB as
  "over 14.1 GiB").

No cgroup: on the CI machines and contributors' laptops the harness runs
unprivileged, where a cgroup of one's own is not given (cgroup v2 delegation
needs systemd or root); on the machine this was built on, cgroup v2 is mounted
read-only beside v1, with no memory controller and no ``cgroup.kill``. A block that kills the zygote itself would be the one
way out: its own process dies with the zygote (``PR_SET_PDEATHSIG``), but the
daemons it started before would be re-parented beyond the harness. Where
Landlock scopes signals (Linux 6.12+, ``devguide.run.sandbox``) a block cannot
signal the zygote or pytest at all. Elsewhere than Linux the block's process
group is all there is (``os.killpg``).
"""

from __future__ import annotations

import os
import signal
import sys

LINUX = sys.platform.startswith("linux")
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36


def _prctl(option: int, value: int) -> bool:
    if not LINUX:
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(option, value, 0, 0, 0) == 0


def become_subreaper() -> bool:
    """Orphans of this process's descendants become its children (Linux 3.4+)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """This process gets ``sig`` when its parent dies."""
    return _prctl(PR_SET_PDEATHSIG, int(sig))


def descendants(root: int | None = None) -> list[int]:
    """The pids below ``root`` (this process by default): psutil reads every process's
    parent from /proc once. Empty where ``root`` is gone or /proc is missing."""
    import psutil

    try:
        return [p.pid for p in psutil.Process(os.getpid() if root is None else root).children(recursive=True)]
    except (psutil.Error, OSError):
        return []


def kill_descendants() -> None:
    """SIGKILL every descendant of this process, reaping none (one round)."""
    for pid in descendants():
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def end_descendants(rounds: int = 100) -> int:
    """SIGKILL every descendant of this process and reap those that are its
    children; returns how many were killed. Where /proc is missing: nothing."""
    killed = 0
    for _ in range(rounds):
        if not _has_children():  # the usual case: nothing left, no /proc scan (4 ms of CPU)
            return killed
        pids = descendants()
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        _reap_children()
    _reap_children()
    return killed


def _has_children() -> bool:
    """Has this process any child, running or ended (one ended is reaped here)?"""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return True


def _reap_children(patience: float = 0.5) -> None:
    """Reap the children that have ended; wait a little for those still dying
    (SIGKILL is not instant), never for long: the next round kills again."""
    import time

    deadline = time.monotonic() + patience
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                return
            time.sleep(0.005)


def memory_of(pids: list[int]) -> int:
    """Bytes the processes really use: the sum of their PSS (their own pages, and
    an equal share of each page they share; psutil reads /proc/PID/smaps_rollup, or
    smaps before Linux 4.14). A process that ended meanwhile counts nothing."""
    import psutil

    total = 0
    for pid in pids:
        try:
            total += psutil.Process(pid).memory_full_info().pss
        except (psutil.Error, OSError, AttributeError):  # AttributeError: no PSS on this system
            continue
    return total


# --------------------------------------------------------------------------- what a block may change in other processes

# A block runs as the same user as its runner and pytest, so the kernel lets it change
# their priority (setpriority), their limits (prlimit) and their CPU set
# (sched_setaffinity): Landlock does not cover these. The runner notes its own and
# pytest's at its start (``process_state``), looks again each time it wakes while a block
# runs and after it (``changed``), puts back what it may (``restore``: raising a hard limit
# or lowering a nice value needs root) and fails the block that did it (issue 39, H3-H6).

def _limit_names() -> list[str]:
    import resource

    return sorted(n for n in dir(resource) if n.startswith("RLIMIT_"))


def process_state(pid: int = 0) -> dict:
    """The nice value, limits and CPU set of ``pid`` (0: this process); {} where unknown."""
    if not LINUX:
        return {}
    import resource

    pid = pid or os.getpid()
    try:
        state = {"nice": os.getpriority(os.PRIO_PROCESS, pid), "cpus": sorted(os.sched_getaffinity(pid))}
        for name in _limit_names():
            state[name] = resource.prlimit(pid, getattr(resource, name))
    except (OSError, ValueError):
        return {}
    return state


def changed(pid: int, before: dict) -> dict:
    """What differs in ``pid``'s state from ``before``: {name: (before, now)}."""
    if not before:
        return {}
    now = process_state(pid)
    return {k: (v, now[k]) for k, v in before.items() if k in now and now[k] != v}


def restore(pid: int, before: dict, diff: dict) -> list[str]:
    """Put ``diff``'s entries of ``pid`` back as ``before`` had them; returns what could not be."""
    import resource

    failed = []
    for name in diff:
        try:
            if name == "nice":
                os.setpriority(os.PRIO_PROCESS, pid, before["nice"])
            elif name == "cpus":
                os.sched_setaffinity(pid, before["cpus"])
            else:
                resource.prlimit(pid, getattr(resource, name), tuple(before[name]))
        except (OSError, ValueError) as exc:
            failed.append(f"{name}: {exc.strerror if isinstance(exc, OSError) else exc}")
    return failed


def describe(who: str, diff: dict) -> list[str]:
    def shown(name, value):
        if name.startswith("RLIMIT_"):
            return "(" + ", ".join("unlimited" if v == -1 else str(v) for v in value) + ")"
        return str(value)

    return [f"{who}'s {'nice value' if k == 'nice' else 'CPU set' if k == 'cpus' else k} from {shown(k, a)} to {shown(k, b)}"
            for k, (a, b) in diff.items()]
