"""The census: every fence of every page with its result. This module owns its format.

``build/validation.json`` is written by the pytest plugin at the end of a run
that collected every page, read by the site's hooks (validation report, page
badges), by ``bench`` and by the workflows. Its shape is ``census.schema.json``
beside this file; ``validate`` checks a file against it.

Every runnable entry carries ``sha``, a hash of the block as it runs (code after
includes, marks, expected outputs): a result from another run -- the GPU
workflow's artifact, the run recorded in ``.ci/gpu-run/`` -- counts for a block
only while its hash matches, so a page never shows "CUDA ✓" for code that
changed since the GPU saw it.

``load`` is forgiving where a reader is: a missing file is None, a corrupt one is
reported in one line and treated as missing (the next complete run rewrites
it), and entries of pages that no longer exist, or of lines that no longer hold
that fence, are dropped with a warning. Writes are atomic (a temporary file,
then a rename), so a reader never sees half a file and the last of two
concurrent runs wins whole.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import tempfile
import time
import warnings
from pathlib import Path

from devguide import paths
from devguide.census import machine
from devguide.paths import DocsError, rel
from devguide.source.blocks import Block, page_blocks
from devguide.source.comments import without_comments
from devguide.source.fences import (
    EXECUTED,
    classify,
    notebook_code_cells,
    notebooks,
    pages,
)
from devguide.source.marks import DEVICE_MARKS

SCHEMA_PATH = Path(__file__).with_name("census.schema.json")


class CensusWarning(UserWarning):
    """A census file was corrupt or stale; what could be used was used."""


# --------------------------------------------------------------------------- blocks

SNIPPET_PATH = re.compile(r"(?<![\w./-])snippets/[\w./-]*\w")


def snippets_run(code: str) -> list[tuple[str, str]]:
    """The files under snippets/ that a block names (``python snippets/x.py``), each
    with a hash of its contents: what the block runs besides its own code."""
    found = []
    for name in sorted(set(SNIPPET_PATH.findall(code))):
        path = paths.REPO / name
        if path.is_file():
            found.append((name, hashlib.sha256(path.read_bytes()).hexdigest()[:16]))
    return found


def signature(block: Block):
    """What makes two blocks the same test: code without its comments (a Chinese
    block and its English twin comment in their own words; ``devguide.source.comments``),
    language, marks, expected outputs, and the snippet files the code runs (a
    recorded GPU result does not count for a block whose script changed since)."""
    marks = sorted((m.name, repr(m.args), repr(sorted(m.kwargs.items()))) for m in block.marks)
    variants = [(spec, text) for spec, text, _ in block.variants]
    code = without_comments(block.code, block.language)
    return (block.language, code, marks, block.expected_output, block.ignore_whitespace, variants,
            snippets_run(block.code))


def block_sha(block: Block) -> str:
    return hashlib.sha256(repr(signature(block)).encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- results that still hold

# What a block can see besides its own code: the snippets copied beside it, the
# harness that runs it (this package), the installed packages. A change to any of
# them runs every block again.
REUSE_INPUTS = ("snippets", "conftest.py", "pyproject.toml", "tests/requirements/lock.txt")
# Every environment variable counts (PATH, LD_*, torch's, the harness's, a BLAS's…)
# except these, which change from one shell or one pytest worker to the next and
# no block reads.
VOLATILE_ENVIRONMENT = ("PYTEST_", "SSH_", "XDG_SESSION", "XDG_RUNTIME_DIR", "VSCODE_", "TERM_SESSION", "TERM_PROGRAM",
                        "KITTY_", "TMUX", "WINDOWID", "DBUS_", "GPG_", "INVOCATION_ID", "JOURNAL_STREAM", "MAKE",
                        "MFLAGS", "COLUMNS", "LINES", "STY", "DISPLAY", "WAYLAND_DISPLAY", "OLDPWD", "SHLVL")
# NO_MKDOCS_2_WARNING: the Makefile exports it (it hides a banner of mkdocs); without
# it here, pytest run by hand after make test would run every block again
VOLATILE_NAMES = {"_", "PWD", "NO_MKDOCS_2_WARNING"}
# keys of blocks that failed in any run, partial ones too: a file of its own, not pytest's cache,
# because every xdist worker adds to it while the others do (one short line, an atomic append),
# where the cache's set() replaces a whole value and the last writer would win
FAILED_KEYS = paths.BUILD / "reuse-failed-keys.txt"


@functools.lru_cache(maxsize=4)
def environment_fingerprint(limits: tuple) -> str:
    """A hash of everything besides a block's own code that its result depends on:
    torch (version and build), Python, NumPy and every installed distribution, the
    CPU's capability, the devices present and the NVIDIA driver and GPUs, the
    environment variables (all but VOLATILE_ENVIRONMENT), the blocks' thread share
    and memory limit (``limits``: ``sandbox.block_limits()``, which the pytest plugin
    passes), the harness's own files and the contents of REUSE_INPUTS."""
    return hashlib.sha256(f"{_fingerprint_without_limits()} {limits!r}".encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _fingerprint_without_limits() -> str:
    """environment_fingerprint's costly part (about a second), once per process."""
    import importlib.metadata
    import sys

    from devguide.census import torch_facts

    digest = hashlib.sha256()

    def add(*parts) -> None:
        digest.update(repr(parts).encode("utf-8"))

    # what this process reads itself first: meanwhile the facts process imports torch
    add(sorted((k, v) for k, v in os.environ.items() if not k.startswith(VOLATILE_ENVIRONMENT) and k not in VOLATILE_NAMES))
    add(machine.gpu_driver())
    add(sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()))
    # the harness: the whole package, every folder of it
    for root in (Path(__file__).parents[1], *(paths.REPO / name for name in REUSE_INPUTS)):
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        for path in files:
            add(path.relative_to(root).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest())
    torch = torch_facts.facts()  # asked of torch in a process of its own
    add(torch["torch"], torch["git_version"], torch["cuda"], sys.version, platform.machine(),
        torch["cpu_capability"], machine.cpu_model(), paths.torch_mode(),
        [torch["devices"][kind] for kind in DEVICE_MARKS])
    return digest.hexdigest()


def remember_failure(key: str) -> None:
    """A block with this key failed (in any run: a partial one writes no census):
    its earlier pass is not reused any more."""
    FAILED_KEYS.parent.mkdir(parents=True, exist_ok=True)
    with open(FAILED_KEYS, "a", encoding="utf-8") as f:  # one short line: an atomic append
        f.write(key + "\n")


def reuse_key(block: Block, limits: tuple) -> str:
    """Two runs of a block with the same key run the same code, with the same
    expected output, in the same environment and under the same limits
    (``environment_fingerprint``)."""
    return hashlib.sha256(f"{block_sha(block)} {environment_fingerprint(limits)}".encode()).hexdigest()[:24]


def reusable_results(path: Path) -> dict[str, dict]:
    """The passed results of the census at ``path`` by reuse key: what ``make test``
    need not run again (``--reuse-unchanged``); not those whose key failed since
    (FAILED_KEYS). Each carries ``reused_from``: the time and commit of the run that
    executed the block, and ``output_sha``: the hash of what it printed."""
    data = load(path, prune=False)
    if data is None:
        return {}
    failed = set(FAILED_KEYS.read_text(encoding="utf-8").split()) if FAILED_KEYS.exists() else set()
    run = f"{data['generated']} at {(data.get('commit') or 'no commit')[:12]}"
    return {
        f["reuse_key"]: dict(f, reused_from=f.get("reused_from", run))
        for f in data["fences"]
        if f.get("status") == "passed" and f.get("reuse_key") and f.get("output_sha") and f["reuse_key"] not in failed
    }


def output_sha(output: str) -> str:
    return hashlib.sha256(output.encode("utf-8")).hexdigest()[:16]


def output_name(page: str, line: int) -> str:
    """The file a block's printed output is kept in (build/artifacts/outputs/)."""
    return f"{page.replace('/', '__')}__{line}.txt"


def save_output(block: Block, output: str, folder: Path | None = None) -> None:
    """Keep what a block printed (the GPU workflow uploads these, e.g. bandwidths)."""
    folder = folder or paths.outputs_dir()
    path = folder / output_name(rel(block.page), block.line)
    if not output:
        path.unlink(missing_ok=True)
        return
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(output, encoding="utf-8")


def _runnable(page: Path) -> list:
    """The census entries of a page's blocks that a complete run must collect."""
    return [e for e in classify(page) if e.kind in ("python", "bash", *DEVICE_MARKS, "excused") and e.language in EXECUTED]


def runnable_keys() -> set[tuple[str, int]]:
    """(page, line) of every block a complete run must collect."""
    return {(e.page, e.line) for page in pages() for e in _runnable(page)}


def a_page_left_out(collected_pages: set[str]) -> bool:
    """Does a page that this run did not collect from have a runnable block? Pages are
    read one by one and the answer comes at the first such page, so a run of one page
    pair says "partial" after reading one other page instead of all of them
    (runnable_keys reads every page: about 0.3 s). A page with no runnable block is
    never collected from, even in a complete run: those are read and pass."""
    return any(rel(page) not in collected_pages and _runnable(page) for page in pages())


def drop_stale_outputs(folder: Path | None = None) -> None:
    """After a complete run: outputs of blocks that no longer exist go."""
    folder = folder or paths.outputs_dir()
    if not folder.is_dir():
        return
    keep = {output_name(page, line) for page, line in runnable_keys()}
    for path in folder.glob("*.txt"):
        if path.name not in keep:
            path.unlink()


# --------------------------------------------------------------------------- the file


def commit() -> str | None:
    """The commit the run ran at, if this is a git checkout."""
    import subprocess

    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.REPO, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


def build(results: dict | None = None, site_built: bool = False, info: dict | None = None) -> dict:
    """The census of the sources, with a run's ``results`` ((page, line) → result) when given."""
    results = results or {}
    info = info or (machine.machine() if results else {"torch": "", "python": platform.python_version(), "accelerator": "cpu"})
    fences = []
    for page in pages():
        try:
            shas = {b.line: block_sha(b) for b in page_blocks(page)}
        except DocsError:
            shas = {}  # the census test reports it
        for entry in classify(page):
            row = entry.as_dict()
            if entry.line in shas:
                row["sha"] = shas[entry.line]
            result = results.get((row["page"], row["line"]))
            if result:
                row.update(result)
                ran = result["status"] in ("passed", "failed")
                row["executed_on"] = info["accelerator"] if ran else None
            fences.append(row)
    for nb in notebooks():
        for n, _ in enumerate(notebook_code_cells(nb), 1):
            fences.append({
                "page": rel(nb),
                "line": n,
                "language": "python",
                "kind": "notebook",
                "reason": "code cell executed by mkdocs-jupyter during the site build",
                # only a run that built the site executed the notebooks
                "executed_on": info["accelerator"] if site_built else None,
                "status": "build" if site_built else "not run",
            })
    return {
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": commit(),
        "machine": info,
        "fences": fences,
    }


def write(data: dict, path: Path | None = None) -> Path:
    """Write atomically: a temporary file beside the target, then a rename."""
    path = Path(path or paths.VALIDATION_JSON)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1)
    os.replace(tmp, path)
    return path


def load(path: Path | None = None, prune: bool = True) -> dict | None:
    """A census file, or None where there is none (or it cannot be read: one warning)."""
    path = Path(path or paths.VALIDATION_JSON)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        problem = validate(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problem = str(exc)
    if problem:
        warnings.warn(f"{rel(path)} is not a valid census ({problem}); ignored until the next complete run rewrites it", CensusWarning, stacklevel=2)
        return None
    if prune:
        data = drop_stale_entries(data, path)
    return data


def drop_stale_entries(data: dict, path: Path) -> dict:
    """Entries of pages that are gone, or of lines that hold another fence now, go;
    an entry whose block only moved (prose added above it: same code, same hash) moves
    with it to its new line, so a prose edit does not show its page as changed."""
    current = {}
    for page in pages():
        for e in classify(page):
            current[(e.page, e.line)] = e.kind
    for nb in notebooks():
        current.update({(rel(nb), n): "notebook" for n in range(1, len(notebook_code_cells(nb)) + 1)})
    kept = [f for f in data["fences"] if current.get((f["page"], f["line"])) == f["kind"]]
    kept += _moved_entries([f for f in data["fences"] if current.get((f["page"], f["line"])) != f["kind"]],
                           {(f["page"], f["line"]) for f in kept}, current)
    gone = len(data["fences"]) - len(kept)
    if gone:
        pages_gone = sorted({f["page"] for f in data["fences"]} - {p for p, _ in current})
        warnings.warn(
            f"{rel(path)}: {gone} entries no longer match the pages and were dropped"
            + (f" (pages gone: {', '.join(pages_gone)})" if pages_gone else ""),
            CensusWarning,
            stacklevel=3,
        )
    return dict(data, fences=kept)


def _moved_entries(unmatched: list[dict], taken: set, current: dict) -> list[dict]:
    """Unmatched entries whose page still has a fence of the same kind and hash on a
    line no other entry holds: re-keyed to that line (the first such, in page order)."""
    moved = []
    for page in sorted({f["page"] for f in unmatched if f.get("sha")}):
        path = paths.REPO / page
        if path.suffix != ".md" or not path.exists():
            continue
        try:
            free = [(b.line, block_sha(b)) for b in page_blocks(path) if (page, b.line) not in taken]
        except DocsError:
            continue
        for f in (f for f in unmatched if f["page"] == page and f.get("sha")):
            for i, (line, sha) in enumerate(free):
                if sha == f["sha"] and current.get((page, line)) == f["kind"]:
                    moved.append(dict(f, line=line))
                    del free[i]
                    break
    return moved


def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def validate(data) -> str | None:
    """None if ``data`` has the census's shape, else what is wrong (one line)."""
    import jsonschema

    try:
        jsonschema.validate(data, schema())
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "top level"
        return f"{where}: {exc.message}"
    return None
