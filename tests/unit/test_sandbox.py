"""The sandbox's own rules (devguide.run.sandbox): what is left behind after a block.

Issue 39, H12 and H13: a file made immutable (``chattr +i``) in a block's scratch
folder, or 3,000 nested folders there, made the removal of the sandbox fail -- with
a RecursionError of 1,184 lines -- in that block and in every block of every later
run on the machine (the sweep of stale sandboxes met them again each time).
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from devguide.run import sandbox

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="chattr and the folders' flags are Linux's")


def nested(root: Path, depth: int) -> None:
    """``depth`` folders inside each other below ``root``, a file at the bottom (as a block
    makes them: one folder at a time, each relative to the last)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    with open(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, dir_fd=fd), "w") as f:
        f.write("at the bottom")
    os.close(fd)


def can_chattr(folder: Path) -> bool:
    probe = folder / "probe"
    probe.write_text("x")
    done = shutil.which("chattr") and subprocess.run(["chattr", "+i", probe], capture_output=True).returncode == 0
    if done:
        subprocess.run(["chattr", "-i", probe], check=True)
    probe.unlink()
    return bool(done)


@pytest.fixture
def stale(tmp_path, monkeypatch):
    """A temporary folder of its own, holding the sandbox of a pytest process that no longer runs."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    box = tmp_path / f"{sandbox.PREFIX}{dead}-x"
    (box / "block" / "work").mkdir(parents=True)
    yield box
    if box.exists() and shutil.which("chattr"):  # a failed test leaves no flag behind
        subprocess.run(["chattr", "-R", "-ia", box], capture_output=True)


def test_thousands_of_nested_folders_are_removed(stale):
    nested(stale / "block" / "work", 3000)
    assert sandbox.sweep_stale() == []
    assert not stale.exists()


@linux
def test_an_immutable_file_is_removed_where_the_process_may(stale):
    if not can_chattr(stale):
        pytest.skip("chattr +i needs root (CAP_LINUX_IMMUTABLE) and a file system with the flag")
    (stale / "block" / "work" / "locked.txt").write_text("chattr +i")
    subprocess.run(["chattr", "+i", stale / "block" / "work" / "locked.txt"], check=True)
    subprocess.run(["chattr", "+a", stale / "block" / "work"], check=True)
    assert sandbox.sweep_stale() == []
    assert not stale.exists()


@linux
def test_what_cannot_be_removed_is_named_with_its_path(stale, monkeypatch):
    """Where the flag cannot be cleared (a process without root): no traceback, the path and why."""
    if not can_chattr(stale):
        pytest.skip("chattr +i needs root (CAP_LINUX_IMMUTABLE) and a file system with the flag")
    locked = stale / "block" / "work" / "locked.txt"
    locked.write_text("chattr +i")
    nested(stale / "block" / "work", 1200)
    subprocess.run(["chattr", "+i", locked], check=True)
    monkeypatch.setattr(sandbox, "_unlock", lambda fd, directory: None)  # as a process without root
    try:
        left = sandbox.sweep_stale()
        assert left == [f"{locked}: Operation not permitted"], left
        assert not (stale / "block" / "work" / "d").exists()  # the rest is gone
    finally:
        subprocess.run(["chattr", "-i", locked], check=True)


def test_a_link_to_a_folder_outside_is_removed_not_followed(stale, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the caller's")
    os.chmod(outside, 0o500)
    (stale / "block" / "work" / "link").symlink_to(outside)
    try:
        assert sandbox.sweep_stale() == []
        assert not stale.exists() and (outside / "keep.txt").exists()
        assert outside.stat().st_mode & 0o777 == 0o500
    finally:
        os.chmod(outside, 0o700)


def _sysv_segment(size: int, attach: bool) -> tuple[int, int | None]:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    shmid = libc.shmget(0, size, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    assert shmid >= 0, os.strerror(ctypes.get_errno())
    return shmid, (libc.shmat(shmid, None, 0) if attach else None)


def _sysv_ids() -> set[int]:
    return {int(row.split()[1]) for row in sandbox.SYSV_SHM.read_text().splitlines()[1:]}


@linux
def test_shared_memory_left_since_a_blocks_start_is_named_and_removed():
    """Issue 39, H9: a 1 GiB file in /dev/shm and a SysV segment without IPC_RMID outlived the
    run (RAM taken, and a later page read the file). What was made since the block's start and
    is used by no process is removed and named; what a process still maps, and what was there
    before, is left alone."""
    import ctypes
    import mmap
    import time

    before = sandbox.SHM / f"devguide-test-before-{os.getpid()}"
    before.write_bytes(b"x")
    time.sleep(0.2)
    start = time.time()
    left = sandbox.SHM / f"devguide-test-left-{os.getpid()}"
    left.write_bytes(b"\1" * 4096)
    held = sandbox.SHM / f"devguide-test-held-{os.getpid()}"
    held.write_bytes(b"\1" * 4096)
    libc = ctypes.CDLL(None, use_errno=True)
    with open(held, "r+b") as f:
        mapping = mmap.mmap(f.fileno(), 4096)
    abandoned, _ = _sysv_segment(8192, attach=False)
    attached, address = _sysv_segment(8192, attach=True)
    try:
        named = sandbox.shared_memory_left(start)
        text = "\n".join(named)
        assert f"{left}: 4096 bytes in /dev/shm (removed)" in named, text
        assert f"segment {abandoned} " in text and "8192 bytes (removed)" in text, text
        assert str(held) not in text and str(before) not in text and f"segment {attached} " not in text, text
        assert not left.exists() and held.exists() and before.exists()
        assert abandoned not in _sysv_ids() and attached in _sysv_ids()
    finally:
        mapping.close()
        for path in (before, left, held):
            path.unlink(missing_ok=True)
        libc.shmdt(ctypes.c_void_p(address))
        for shmid in (abandoned, attached):
            libc.shmctl(shmid, 0, None)
