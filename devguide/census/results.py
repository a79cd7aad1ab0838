"""The runs' results, read from the census files, for each page and block as it is now.

* CPU (``cpu_run``): ``build/validation.json`` (``make test`` writes it) or, when
  that is absent or older, the run recorded in the repository
  (``.ci/cpu-run/summary.json``, ``devguide.census.summary``): a build without a test
  run still shows the last results, never nothing.
* Other torch versions (``cpu_runs``): each ``make test-torch`` run's
  ``build/validation-torch-<version>.json``, the site's own version first.
* CUDA (``gpu_run``): the GPU workflow's census (``build/gpu/``), else the GPU run
  recorded in ``.ci/gpu-run/``, or ``build/validation.json`` written on a CUDA machine.

A result counts for a block only while the block's hash (code, marks, expected
outputs) is the one that ran, on the same page: a block changed since that run
is "not yet run", never "✓" (``page_status``). MPS- and XPU-only blocks are
counted apart: no CI machine has either device. Each file is read once while unchanged.
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from devguide import paths, settings
from devguide.census import file as census
from devguide.census import summary
from devguide.paths import GPU, GPU_RECORDED
from devguide.source.blocks import page_blocks
from devguide.source.fences import classify, notebook_code_cells

RUN_KINDS = ("python", "bash")  # what every CPU run runs
# blocks that need an accelerator: their kind in the census → the accelerator's name
ACCELERATOR_KINDS = {"cuda": "CUDA"}
# Devices no CI machine has: their blocks are counted apart and never "pending"
OTHER_DEVICES = ("mps", "xpu")

# --------------------------------------------------------------------------- runs


@dataclass
class Run:
    """One run's results: (page, block hash) → passed | failed."""

    generated: str
    machine: dict
    source: str  # test | recorded | other | gpu | gpu_recorded
    status: dict[tuple[str, str], str]
    # (page, hash) of the blocks this run skipped (e.g. an output for another torch version)
    skipped: set[tuple[str, str]] = field(default_factory=set)
    # results this run carried over from earlier runs of the same blocks (make test's
    # --reuse-unchanged), and the time of the earliest of those runs
    reused: int = 0
    reused_since: str = ""

    def result(self, page: str, sha: str | None) -> str | None:
        if not sha:
            return None
        return self.status.get((page, sha)) or ("skipped" if (page, sha) in self.skipped else None)

    @property
    def torch(self) -> str:
        """2.15.0+cu132 → 2.15.0: the version a reader installs."""
        return torch_label(self.machine)


def _statuses(fences) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for f in fences:
        if f.get("sha") and f.get("status") in ("passed", "failed"):
            key = (f["page"], f["sha"])
            # the same block twice on a page: one failure is a failure
            found[key] = "failed" if "failed" in (f["status"], found.get(key)) else "passed"
    return found


def _skipped(fences) -> set[tuple[str, str]]:
    return {(f["page"], f["sha"]) for f in fences if f.get("sha") and f.get("status") == "skipped"}


def _mtime(path: Path) -> float | None:
    return path.stat().st_mtime if path.exists() else None


def load() -> tuple[dict, bool]:
    """(census, whether it records a run): build/validation.json, else the sources' census."""
    data = _recorded(_mtime(paths.VALIDATION_JSON))
    if data is not None:
        return data, True
    return _sources(), False


@functools.lru_cache(maxsize=4)
def _recorded(mtime: float | None) -> dict | None:
    return census.load() if mtime is not None else None


@functools.lru_cache(maxsize=1)
def _sources() -> dict:
    return census.build()


@functools.lru_cache(maxsize=4)
def _summary(path: Path, mtime: float | None) -> dict | None:
    return summary.load(path) if mtime is not None else None


def cpu_run() -> Run | None:
    """The newer of this checkout's test run (build/validation.json) and the recorded summary."""
    found = []
    data = _recorded(_mtime(paths.VALIDATION_JSON))
    if data is not None and data["machine"].get("accelerator") == "cpu":
        reused = [f["reused_from"] for f in data["fences"] if f.get("reused_from") and not f.get("ran_with")]
        found.append(Run(data["generated"], data["machine"], "test", _statuses(data["fences"]), _skipped(data["fences"]),
                         reused=len(reused), reused_since=min(reused, default="")))
    recorded = _summary(summary.PATH, _mtime(summary.PATH))
    if recorded is not None:
        by_page = recorded["results"]["pages"].items()
        status = {(page, sha): st for page, by in by_page for st, shas in by.items() if st != "skipped" for sha in shas}
        skipped = {(page, sha) for page, by in by_page for sha in by.get("skipped", [])}
        found.append(Run(recorded["generated"], recorded["machine"], "recorded", status, skipped))
    if not found:
        return None
    newest = max(found, key=lambda run: run.generated)
    for other in found:  # the same run in both files: whatever either knows of the machine
        if other is not newest and other.generated == newest.generated:
            newest.machine = {**other.machine, **newest.machine}
    return newest


def torch_label(machine: dict) -> str:
    """2.15.0+cu132 → 2.15.0: the version a reader installs."""
    return machine["torch"].split("+")[0]


def _version_key(label: str):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(label)
    except InvalidVersion:
        return Version("0")


def other_runs() -> list[dict]:
    """The censuses of the runs with a named torch (``make test-torch``:
    build/validation-torch-<version>.json), oldest version first."""
    found = []
    for path in sorted(paths.BUILD.glob("validation-torch-*.json")):
        data = _other(path, _mtime(path))
        if data is not None:
            found.append(data)
    return sorted(found, key=lambda d: _version_key(torch_label(d["machine"])))


@functools.lru_cache(maxsize=8)
def _other(path: Path, mtime: float | None) -> dict | None:
    return census.load(path, prune=False) if mtime is not None else None


def site_torch() -> str | None:
    """The torch release this build of the site is for (``DEVGUIDE_SITE_TORCH=2.15``,
    set by the deploy job for each of its mike versions): its run comes first."""
    return settings.current().site_torch


def _site_first(items: list, label_of) -> list:
    items = sorted(items, key=lambda x: _version_key(label_of(x)))
    mine = site_torch()
    if mine:
        items.sort(key=lambda x: not (label_of(x) == mine or label_of(x).startswith(mine + ".")))
    return items


def cpu_runs(cpu: Run | None = None, others: list[Run] | None = None) -> list[tuple[str, Run | None]]:
    """(torch version, run) of every CPU run to show, a result column each: the
    pinned run (``cpu_run()``; None while none is recorded: its column says "not
    run") and each ``make test-torch`` run of another version, whose results count,
    like every run's, only for blocks whose hash is still the one that ran.
    The site's own version (``site_torch``) first, then by version."""
    cpu = cpu if cpu is not None else cpu_run()
    others = others if others is not None else other_cpu_runs()
    primary = cpu.torch if cpu is not None else paths.pinned_torch()
    runs: list[tuple[str, Run | None]] = [(primary, cpu)]
    for run in others:
        if run.torch not in {label for label, _ in runs}:
            runs.append((run.torch, run))
    return _site_first(runs, lambda r: r[0])


def other_cpu_runs() -> list[Run]:
    return [
        Run(d["generated"], d["machine"], "other", _statuses(d["fences"]), _skipped(d["fences"]))
        for d in other_runs()
    ]


def run_status(run: dict, shas: dict | None, page: str | None = None) -> Counter:
    """passed / failed / skipped / changed blocks of a census (of one page when named);
    ``shas``: page → line → hash now (None: count every block)."""
    c: Counter = Counter()
    for f in run["fences"]:
        if page is not None and f["page"] != page:
            continue
        status = f.get("status")
        if status not in ("passed", "failed", "skipped", "build"):
            continue
        if shas is not None and f.get("sha") != shas.get(f["page"], {}).get(f["line"]):
            c["changed"] += status in ("passed", "failed")
            continue
        c[status] += 1
    return c


def _census_runs(data: dict, recorded: bool) -> list[tuple[str, dict | None, dict[str, dict[int, str | None]] | None]]:
    """(torch version, census, hashes to match) of every CPU census: ``make test``'s
    (None while none is recorded) and each ``make test-torch`` run."""
    primary = torch_label(data["machine"]) if recorded else paths.pinned_torch()
    runs: list[tuple[str, dict | None, dict[str, dict[int, str | None]] | None]] = [(primary, data if recorded else None, None)]
    by_page: dict[str, dict[int, str | None]] = defaultdict(dict)  # page → line → hash now
    for f in (_sources() if recorded else data)["fences"]:
        by_page[f["page"]][f["line"]] = f.get("sha")
    for other in other_runs():
        label = torch_label(other["machine"])
        if label != primary and label not in {r[0] for r in runs}:
            runs.append((label, other, by_page))
    return _site_first(runs, lambda r: r[0])


def versions_summary() -> list[str]:
    """``python -m devguide census --versions``: each torch version's CPU run (passed,
    failed, skipped), then every block that did not pass on all of them, with its
    result on each."""
    data, recorded = load()
    runs = _census_runs(data, recorded)
    lines: list[str] = []
    per_block: dict = defaultdict(dict)
    for label, run, shas in runs:
        if run is None:
            lines.append(f"torch {label}: no run recorded (make test writes build/validation.json)")
            continue
        c = run_status(run, shas)
        lines.append(
            f"torch {label} ({run['machine']['torch']}, {run['generated']}): {c['passed']} blocks passed, "
            f"{c['failed']} failed, {c['skipped']} skipped" + (f", {c['changed']} changed since" if c["changed"] else "")
        )
        for f in run["fences"]:
            if f["kind"] in ("python", "bash") and f.get("status"):
                changed = shas is not None and shas.get(f["page"], {}).get(f["line"]) != f.get("sha")
                status = "changed since" if changed else f["status"]
                reason = f" ({f['skip_reason']})" if status == "skipped" and f.get("skip_reason") else ""
                per_block[f["page"], f["line"]][label] = status + reason
    labels = [label for label, run, _ in runs if run is not None]
    uneven = [
        (key, found) for key, found in sorted(per_block.items())
        if any(found.get(label, "not run").split(" ")[0] != "passed" for label in labels)
    ]
    if uneven and len(labels) > 1:
        lines.append("blocks that did not pass on every version:")
        for (page, line), found in uneven:
            lines.append(f"  {page}:{line}  " + "; ".join(f"{label} {found.get(label, 'not run')}" for label in labels))
    return lines


def gpu_dir() -> Path:
    return GPU if (GPU / "validation.json").exists() else GPU_RECORDED


def load_gpu(gpu: Path | None = None) -> dict | None:
    """The GPU run's census: the workflow's artifact, or the run recorded in .ci/gpu-run/."""
    path = (gpu or gpu_dir()) / "validation.json"
    return _gpu(path, _mtime(path))


@functools.lru_cache(maxsize=4)
def _gpu(path: Path, mtime: float | None) -> dict | None:
    return census.load(path, prune=False) if mtime is not None else None


def gpu_run() -> Run | None:
    data = _recorded(_mtime(paths.VALIDATION_JSON))
    if data is not None and data["machine"].get("accelerator") == "cuda":
        return Run(data["generated"], data["machine"], "test", _statuses(data["fences"]))
    data = load_gpu()
    if data is None:
        return None
    source = "gpu" if gpu_dir() == GPU else "gpu_recorded"
    return Run(data["generated"], data["machine"], source, _statuses(data["fences"]))


def gpu_label(machine: dict) -> str:
    """torch 2.11.0+cu130 · NVIDIA H100 80GB HBM3: exactly what ran."""
    return f"torch {machine['torch']} · {gpu_names(machine)}"


def gpu_names(machine: dict) -> str:
    return ", ".join(sorted(set(machine.get("gpus", [])))) or "CUDA"


# --------------------------------------------------------------------------- pages as they are now


@dataclass
class Block:
    line: int
    language: str
    kind: str
    sha: str | None
    reason: str = ""


@dataclass
class PageStatus:
    """One page's blocks as they are now, with the runs' results."""

    page: str  # docs/en/async/streams.md
    blocks: list[Block] = field(default_factory=list)
    cells: int = 0  # notebook code cells
    cpu: dict[str, list[Block]] = field(default_factory=dict)  # the pinned run: passed | failed | skipped | unrun
    # every CPU run, a torch version each (the pinned one among them), in the report's order
    versions: list[tuple[str, Run | None, dict[str, list[Block]]]] = field(default_factory=list)
    acc: dict[str, dict[str, list[Block]]] = field(default_factory=dict)  # kind → passed | failed | unrun
    # mps / xpu → passed | failed (by any run) | unrun (no CI machine executed it)
    devices: dict[str, dict[str, list[Block]]] = field(default_factory=dict)

    def of_kind(self, *kinds) -> list[Block]:
        return [b for b in self.blocks if b.kind in kinds]

    @property
    def outputs(self) -> int:
        return len(self.of_kind("output"))

    @property
    def excused(self) -> list[Block]:
        return self.of_kind("excused")


def _sorted_by_result(blocks, run: Run | None, page: str, skipped: bool = True) -> dict[str, list[Block]]:
    out: dict[str, list[Block]] = {"passed": [], "failed": [], "skipped": [], "unrun": []}
    for b in blocks:
        result = (run and run.result(page, b.sha)) or "unrun"
        out["unrun" if result == "skipped" and not skipped else result].append(b)
    return out


def _executed(blocks, runs, page: str) -> dict[str, list[Block]]:
    """Blocks no CI machine can run (mps, xpu): passed or failed wherever a run executed them."""
    out: dict[str, list[Block]] = {"passed": [], "failed": [], "unrun": []}
    for b in blocks:
        results = {run.result(page, b.sha) for run in runs if run is not None}
        out["failed" if "failed" in results else "passed" if "passed" in results else "unrun"].append(b)
    return out


def current_blocks(path: Path) -> list[Block]:
    try:
        shas = {b.line: census.block_sha(b) for b in page_blocks(path)}
    except Exception:  # noqa: BLE001 - a broken page: the census test reports it
        shas = {}
    return [Block(e.line, e.language, e.kind, shas.get(e.line), e.reason) for e in classify(path)]


@functools.lru_cache(maxsize=64)
def _cells(path: Path, mtime_ns: int) -> int:
    return len(notebook_code_cells(path))


def page_status(src: str, cpu: Run | None = None, gpu: Run | None = None, others: list[Run] | None = None) -> PageStatus:
    """``src``: docs/<lang>/<path>. Runs default to cpu_run(), gpu_run() and, when
    ``cpu`` is not given, the ``make test-torch`` runs (``other_cpu_runs()``)."""
    path = paths.REPO / src
    st = PageStatus(src)
    if not path.exists():
        return st
    if path.suffix == ".py":
        st.cells = _cells(path, path.stat().st_mtime_ns)
        return st
    if others is None:
        others = other_cpu_runs() if cpu is None else []
    cpu = cpu if cpu is not None else cpu_run()
    gpu = gpu if gpu is not None else gpu_run()
    st.blocks = current_blocks(path)
    st.cpu = _sorted_by_result(st.of_kind(*RUN_KINDS), cpu, src)
    for label, run in cpu_runs(cpu, others):
        by = st.cpu if run is cpu else _sorted_by_result(st.of_kind(*RUN_KINDS), run, src)
        st.versions.append((label, run, by))
    for kind in ACCELERATOR_KINDS:
        st.acc[kind] = _sorted_by_result(st.of_kind(kind), gpu, src, skipped=False)
    for kind in OTHER_DEVICES:
        blocks = st.of_kind(kind)
        if blocks:
            st.devices[kind] = _executed(blocks, [cpu, *others, gpu], src)
    return st
