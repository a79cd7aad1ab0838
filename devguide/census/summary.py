"""The last CPU run recorded in the repository: ``.ci/cpu-run/summary.json``.

``build/validation.json`` is not committed, so a fresh clone's ``make build`` or
``make serve`` would show no results at all. ``make test`` therefore also keeps
a small summary of its census in the repository: which blocks (by the hash of
their code, marks and outputs, per page) passed, failed or were skipped (an
output shown for another torch version), with the
torch, and the machine that ran them. The site shows it when there is no newer
``build/validation.json``, counted only for blocks whose hash still matches.

The file changes only when the results do: a run with the same results (same
blocks passed and failed, same torch) leaves it alone, even on another machine
or another day, so it does not churn git. When it is rewritten, everything in
it, the machine too, comes from that one run.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from devguide import paths

PATH = paths.REPO / ".ci" / "cpu-run" / "summary.json"
ABOUT = (
    "The last CPU run's results, by page and block hash (devguide/census/summary.py). "
    "make test rewrites this file when the results change; the site shows it "
    "when build/validation.json is absent or older."
)


def from_census(data: dict) -> dict:
    """The summary of a census: its machine and each page's passed and failed block hashes."""
    pages: dict[str, dict[str, set[str]]] = {}
    for f in data["fences"]:
        status = f.get("status")
        # skipped: a block this torch does not run (an output shown for another version)
        if status == "skipped" and f.get("kind") not in ("python", "bash"):
            continue
        if f.get("sha") and status in ("passed", "failed", "skipped"):
            pages.setdefault(f["page"], {}).setdefault(status, set()).add(f["sha"])
    machine = data["machine"]
    return {
        "about": ABOUT,
        "generated": data["generated"],
        "machine": machine,
        "results": {
            "torch": machine["torch"],
            "pages": {
                page: {status: sorted(shas) for status, shas in sorted(by.items())}
                for page, by in sorted(pages.items())
            },
        },
    }


def dumps(summary: dict) -> str:
    """Stable JSON, one page per line (small diffs when a page changes)."""
    text = json.dumps(summary, ensure_ascii=False, indent=1, sort_keys=True)
    # a page's hash lists on one line each
    return re.sub(r'\[\n\s+("[0-9a-f]{16}"(?:,\n\s+"[0-9a-f]{16}")*)\n\s+\]',
                  lambda m: "[" + re.sub(r",\n\s+", ", ", m.group(1)) + "]", text) + "\n"


def load(path: Path | None = None) -> dict | None:
    """The recorded summary, or None where there is none or it cannot be read."""
    path = Path(path or PATH)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not {"generated", "machine", "results"} <= data.keys():
        return None
    return data


def write_if_changed(data: dict, path: Path | None = None) -> bool:
    """Record a complete CPU run's census; True if the file changed."""
    path = Path(path or PATH)
    summary = from_census(data)
    old = load(path)
    if old is not None and old.get("results") == summary["results"]:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(dumps(summary))
    # mkstemp makes the file 0600: give it the mode a checked-out file has (0644 under the usual umask)
    os.chmod(tmp, 0o666 & ~_umask())
    os.replace(tmp, path)
    return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def records(data: dict) -> bool:
    """Whether a run that wrote this census is one the summary records: the
    pinned torch on a CPU machine (make test), not make test-cuda or a GPU run."""
    machine = data["machine"]
    return machine.get("accelerator") == "cpu" and machine.get("torch_mode", "pinned") == "pinned"
