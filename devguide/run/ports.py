"""Blocks that need a machine-wide resource run one at a time across pytest workers.

A block that starts torchrun with no port and without ``--standalone``: torch
before 2.13 then listens on the fixed port 29500, so two such blocks in two
pytest workers (a page's zh and en twins) fail with EADDRINUSE (seen on a GPU
machine with torch 2.11 and 8 workers). The block runner holds an ``flock`` on
one file of the machine's temporary folder while such a block runs.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no lock
    fcntl = None

DEFAULT_PORT_TORCHRUN = re.compile(
    r"^(?!.*(--standalone|--master[-_]port|--rdzv[-_]endpoint))"
    r".*(\btorchrun\s+--|-m\s+torch\.distributed\.(run|launch)\b|\"torch\.distributed\.(run|launch)\")",
    re.M,
)
DEFAULT_PORT_LOCK = Path(tempfile.gettempdir()) / "devguide-torchrun-default-port.lock"


@contextlib.contextmanager
def one_at_a_time(job: dict):
    """Hold the machine-wide lock while a default-port torchrun block runs (POSIX)."""
    if fcntl is None or not DEFAULT_PORT_TORCHRUN.search(job["code"]):
        yield
        return
    with open(DEFAULT_PORT_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
