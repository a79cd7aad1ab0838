"""Blocks that need a machine-wide resource run one at a time across pytest workers.

A fixed port is such a resource. A block that starts torchrun with no port and
without ``--standalone``: torch before 2.13 then listens on the fixed port 29500,
so two such blocks in two pytest workers (a page's zh and en twins) fail with
EADDRINUSE (seen on a GPU machine with torch 2.11 and 8 workers). A block that
names a port itself (``MASTER_PORT=29517``, ``--master-port=29517``,
``bind(("127.0.0.1", 29517))``, ``tcp://localhost:29517``) collides the same way
with another page's block that names it (issue 39, H28: flaky under ``-n 2``).
The block runner holds an ``flock`` on one file per port, in the machine's
temporary folder, while such a block runs.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no lock
    fcntl = None  # type: ignore[assignment]

DEFAULT_PORT_TORCHRUN = re.compile(
    r"^(?!.*(--standalone|--master[-_]port|--rdzv[-_]endpoint))"
    r".*(\btorchrun\s+--|-m\s+torch\.distributed\.(run|launch)\b|\"torch\.distributed\.(run|launch)\")",
    re.M,
)
TORCHRUN_DEFAULT_PORT = 29500
FIXED_PORT = re.compile(
    r"(?:MASTER_PORT|master[-_]port|\bport)[\"'\]]*\s*[=:,\s]\s*[\"']?(\d{4,5})\b"  # MASTER_PORT=…, --master-port …
    r"|(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]):(\d{4,5})\b"  # host:port, tcp://host:port
    r"|\(\s*[\"'][\w.:\[\]-]*[\"']\s*,\s*(\d{4,5})\s*\)",  # a socket address: ("127.0.0.1", 29517)
    re.I,
)


def fixed_ports(code: str) -> list[int]:
    """The ports a block's code fixes (sorted, so that locks are always taken in one order)."""
    found = {int(next(g for g in m.groups() if g)) for m in FIXED_PORT.finditer(code)}
    if DEFAULT_PORT_TORCHRUN.search(code):
        found.add(TORCHRUN_DEFAULT_PORT)
    return sorted(p for p in found if 1024 <= p <= 65535)


def port_lock(port: int) -> Path:
    return Path(tempfile.gettempdir()) / f"devguide-port-{port}.lock"


@contextlib.contextmanager
def one_at_a_time(job: dict):
    """Hold the machine-wide lock of each fixed port while the block runs (POSIX)."""
    ports = fixed_ports(job["code"]) if fcntl is not None else []
    with contextlib.ExitStack() as held:
        for port in ports:
            lock = held.enter_context(open(port_lock(port), "a"))
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield
