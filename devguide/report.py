"""The test results rendered into the site (run by the MkDocs plugin ``devguide``).

Each page gets one line under its title saying what ran, linking to the page's
row of the "Validation report" page (``<!-- validation-report -->``), which
shows every page, the failed and the excused blocks, and the machines.

Where the results come from:

* CPU: ``build/validation.json`` (``make test`` writes it) or, when that is
  absent or older, the last CPU run recorded in the repository
  (``.ci/cpu-run/summary.json``, ``devguide.summary``), so a build without a test
  run still shows the last results, never nothing.
* Other torch versions: each ``make test-torch`` run found in
  ``build/validation-torch-<version>.json`` (the newest release beside the pinned
  one): the report has a result column per torch version, and each page's line
  names the versions its blocks ran on (the site's own version first, see
  ``site_torch``).
* CUDA: the GPU workflow's census (``build/gpu/validation.json``) when present,
  else the GPU run recorded in ``.ci/gpu-run/``; or ``build/validation.json``
  itself when it was written on a CUDA machine.

A result counts for a block only while the block's hash (code, marks, expected
outputs) is the one that ran, on the same page: a block changed since that run
is "not yet run", never "✓". Blocks for Apple-silicon GPUs (``mps``) and Intel
GPUs (``xpu``) have columns of their own, and the report says in a sentence how
many of them no CI machine executed (none has such a device); a page's line
says so too. Notebook cells run while the site is built (a
raising cell fails the build), so a built notebook page has run them.

``<!-- gpu-output -->`` after a CUDA-only block shows what that block printed in
the GPU run (``artifacts/outputs/`` beside that census), e.g. the measured
bandwidths, or says that no GPU run is recorded yet. When the page was last
changed is shown by mkdocs-git-revision-date-localized-plugin, not here.
"""

from __future__ import annotations

import functools
import html
import os
import re
import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from devguide import census, config, summary
from devguide.config import GPU, GPU_RECORDED
from devguide.pages import (
    classify,
    notebook_code_cells,
    notebooks,
    page_blocks,
    pages,
    scan_fences,
)

MARKER = "<!-- validation-report -->"
GPU_MARKER = "<!-- gpu-output -->"
RUN_KINDS = ("python", "bash")  # what every CPU run runs
# blocks that need an accelerator: their kind in the census → the accelerator's name
ACCELERATOR_KINDS = {"cuda": "CUDA"}
# Devices no CI machine has: their blocks are counted apart and never "pending"
OTHER_DEVICES = ("mps", "xpu")
DEVICE_NAMES = {"mps": "MPS", "xpu": "XPU"}

TEXT = {
    "zh": {
        # the line under each page title
        "cpu_ok": "{n} 个示例已在 CPU 上运行（torch {torch}）",
        "versions_sep": "、",
        "cpu_some": "{n} 个示例中 {p} 个已在 CPU 上运行（torch {torch}）",
        "cpu_changed": "{u} 个改动后尚未运行",
        "cpu_failed": "{n} 个示例中 {f} 个在 CPU 上失败（torch {torch}）",
        "cpu_none": "{n} 个示例尚未运行",
        "cells": "{n} 个代码单元已在构建站点时运行",
        "acc_ok": "{n} 个 {acc} 示例已在 {gpu} 上运行{ran_with}",
        "gpu_torch": "（torch {torch}）",
        "acc_some": "{n} 个 {acc} 示例中 {p} 个已在 {gpu} 上运行{ran_with}",
        "acc_unrun": "{u} 个尚未在 GPU 上运行",
        "acc_none": "{n} 个 {acc} 示例尚未在 GPU 上运行",
        "acc_failed": "{n} 个 {acc} 示例中 {f} 个在 {gpu} 上失败{ran_with}",
        "device_unrun": "{n} 个仅限 {device} 的示例未在任何 CI 机器上执行",
        "device_ok": "{n} 个仅限 {device} 的示例已执行",
        "device_failed": "{n} 个仅限 {device} 的示例中 {f} 个失败",
        "line_label": "本页的验证结果，见验证报告",
        # the report
        "machines": "结果来自哪里",
        "cpu_machine": "**CPU 运行**：{date} · {cpu} · {os} · Python {python} · torch {torch}。{source}",
        "other_run": "**另一次 CPU 运行**（`make test-torch`）：{date} · {cpu} · {os} · Python {python} · torch {torch}：{passed} 个代码块通过，{failed} 个失败，{skipped} 个跳过；另有 {changed} 个代码块在那次运行之后改过，不计入。{source}",
        "src_other": "来自 `build/validation-torch-{torch}.json`。",
        "gpu_machine": "**GPU 运行**：{date} · {gpus} · CUDA {cuda} · {host}Python {python} · torch {torch}。{source}",
        "src_test": "来自本次构建之前的测试运行（`build/validation.json`）。",
        "src_reused": "其中 {n} 个代码块自从更早的运行（最早在 {date}）通过以来没有任何变化（代码、期望输出、torch、依赖、snippets、测试框架、环境变量都相同），这次没有重跑，沿用当时的结果。",
        "src_recorded": "来自仓库中记录的最近一次运行（`.ci/cpu-run/summary.json`，`make test` 在结果变化时更新它）。",
        "src_gpu": "来自 GPU 工作流的最近一次运行（`build/gpu/`）。",
        "src_gpu_recorded": "来自仓库中记录的 GPU 运行（`.ci/gpu-run/`）。",
        "no_cpu": "**CPU 运行**：还没有记录。运行 `make test` 后重新构建即可看到每个代码块的结果。",
        "no_gpu": "**GPU 运行**：还没有记录，CUDA 示例都尚未在 GPU 上运行。",
        "totals": "本语言的页面共有 {n} 个在 CPU 上运行的示例：{p} 个通过，{f} 个失败，{u} 个改动后尚未运行。{acc_n} 个 CUDA 示例：{acc_p} 个已在 GPU 上通过，{acc_f} 个失败，{acc_u} 个尚未在 GPU 上运行。笔记本的 {cells} 个代码单元在构建站点时运行。",
        "shared": "有 {n} 个英文代码块与中文页的对应代码块逐字相同（代码、标记、期望输出），每对只测试一次，两页共用结果。",
        "unexecuted": "**本站有 {mps} 个为苹果芯片的 GPU（MPS）编写的代码块和 {xpu} 个为 Intel 显卡（XPU）编写的代码块没有在任何 CI 机器上执行过**：CI 机器都没有这两种设备。这些代码块在 CPU 上编译，其中的 `torch.…` 名称逐一对照已安装的 torch 检查过；它们展示的行为依据 PyTorch 的源码，所在页面给出了源文件链接。",
        "pages": "各页面",
        "col_page": "页面",
        "col_cpu": "CPU 上的示例",
        "result_head": "torch {torch}（CPU）",
        "col_acc": "CUDA 示例（GPU）",
        "col_device": "仅 {device}",
        "col_outputs": "校验的输出",
        "col_excused": "豁免",
        "cell_ok": "✓ {n}",
        "cell_some": "✓ {p} / {n}",
        "cell_changed": "{u} 个改动后未运行",
        "cell_unrun": "{u} 个未运行",
        "cell_failed": "✗ {f} / {n} 失败",
        "cell_none": "{n} 个未运行",
        "cell_cells": "✓ {n} 个代码单元（构建时）",
        "cell_skipped": "跳过 {n} 个",
        "not_executed": "{n}（未执行）",
        "failed": "失败的代码块",
        "failed_none": "这些运行中没有失败的代码块。",
        "failed_item": "第 {line} 行（{language}），{where}",
        "on_cpu": "CPU",
        "on_cpu_version": "CPU，torch {torch}",
        "excused": "豁免的代码块及理由",
        "excused_none": "没有豁免的代码块。",
        "excused_item": "第 {line} 行（{language}）：{reason}",
        "pending_title": "尚未在 GPU 上运行的 CUDA 代码块",
        "pending_item": "第 {line} 行（{language}）",
        # GPU outputs under CUDA blocks
        "gpu_output": "GPU 实测：{label}，{date}",
        "gpu_none": "还没有 GPU 实测数据",
        "gpu_stale": "代码块在上次 GPU 运行之后改过，实测数据待更新",
        "gpu_none_text": "GPU 工作流运行过这个代码块之后，它打印的结果会显示在这里。",
    },
    "en": {
        "cpu_ok": "{n} {examples} ran on CPU (torch {torch})",
        "versions_sep": ", ",
        "cpu_some": "{p} of {n} examples ran on CPU (torch {torch})",
        "cpu_changed": "{u} changed since, not yet run",
        "cpu_failed": "{f} of {n} examples failed on CPU (torch {torch})",
        "cpu_none": "{n} {examples} not yet run",
        "cells": "{n} code {cells_word} ran when the site was built",
        "acc_ok": "{n} {acc} {examples} ran on {gpu}{ran_with}",
        "gpu_torch": " (torch {torch})",
        "acc_some": "{p} of {n} {acc} examples ran on {gpu}{ran_with}",
        "acc_unrun": "{u} not yet run on a GPU",
        "acc_none": "{n} {acc} {examples} not yet run on a GPU",
        "acc_failed": "{f} of {n} {acc} examples failed on {gpu}{ran_with}",
        "device_unrun": "{n} {device}-only {examples} not executed by any CI machine",
        "device_ok": "{n} {device}-only {examples} executed",
        "device_failed": "{f} of {n} {device}-only examples failed",
        "line_label": "What ran on this page, in the validation report",
        "machines": "Where the results come from",
        "cpu_machine": "**CPU run**: {date} · {cpu} · {os} · Python {python} · torch {torch}. {source}",
        "other_run": "**Another CPU run** (`make test-torch`): {date} · {cpu} · {os} · Python {python} · torch {torch}: {passed} {passed_word} passed, {failed} failed, {skipped} skipped; {changed} more {changed_word} changed since that run and {are} not counted. {source}",
        "src_other": "From `build/validation-torch-{torch}.json`.",
        "gpu_machine": "**GPU run**: {date} · {gpus} · CUDA {cuda} · {host}Python {python} · torch {torch}. {source}",
        "src_test": "From the test run before this build (`build/validation.json`).",
        "src_reused": " {n} of its blocks had not changed since an earlier run (the earliest on {date}) passed them (same code, expected output, torch, packages, snippets, harness and environment variables): that result stands, they were not run again.",
        "src_recorded": "From the last run recorded in the repository (`.ci/cpu-run/summary.json`, which `make test` updates when the results change).",
        "src_gpu": "From the GPU workflow's last run (`build/gpu/`).",
        "src_gpu_recorded": "From the GPU run recorded in the repository (`.ci/gpu-run/`).",
        "no_cpu": "**CPU run**: none recorded yet. Run `make test` and build again to see each block's result.",
        "no_gpu": "**GPU run**: none recorded yet; no CUDA example has run on a GPU.",
        "totals": "This language's pages hold {n} examples that run on CPU: {p} passed, {f} failed, {u} changed since the last run and not yet run. {acc_n} CUDA examples: {acc_p} passed on a GPU, {acc_f} failed, {acc_u} not yet run on a GPU. The notebooks' {cells} code cells ran when the site was built.",
        "shared": "{n} English blocks are identical to their Chinese twins (code, marks, expected output), so each such pair is tested once and both pages share the result.",
        "unexecuted": "**No CI machine has executed {mps} of this site's blocks written for Apple-silicon GPUs (MPS) and {xpu} written for Intel GPUs (XPU)**: none has either device. These blocks are compiled on CPU and every `torch.…` name in them is checked against the installed torch; what they show rests on PyTorch's source, which their pages link.",
        "pages": "Pages",
        "col_page": "Page",
        "col_cpu": "Examples on CPU",
        "result_head": "torch {torch} (CPU)",
        "col_acc": "CUDA examples (GPU)",
        "col_device": "{device}-only",
        "col_outputs": "Outputs checked",
        "col_excused": "Excused",
        "cell_ok": "✓ {n}",
        "cell_some": "✓ {p} of {n}",
        "cell_changed": "{u} changed, not run",
        "cell_unrun": "{u} not run",
        "cell_failed": "✗ {f} of {n} failed",
        "cell_none": "{n} not run",
        "cell_cells": "✓ {n} code cells (build)",
        "cell_skipped": "{n} skipped",
        "not_executed": "{n} (not executed)",
        "failed": "Failed blocks",
        "failed_none": "No block failed in these runs.",
        "failed_item": "line {line} ({language}), {where}",
        "on_cpu": "CPU",
        "on_cpu_version": "CPU, torch {torch}",
        "excused": "Excused blocks and why",
        "excused_none": "No block is excused.",
        "excused_item": "line {line} ({language}): {reason}",
        "pending_title": "CUDA blocks not yet run on a GPU",
        "pending_item": "line {line} ({language})",
        "gpu_output": "Measured on a GPU: {label}, {date}",
        "gpu_none": "No GPU measurement yet",
        "gpu_stale": "This block changed since the last GPU run: measurement pending",
        "gpu_none_text": "Once the GPU workflow has run this block, what it printed appears here.",
    },
}

# The reasons of the harness's own marks and of the excused blocks, in Chinese
# (the marks are the same on both pages of a pair, so they are written in English).
# A reason missing here is shown as written.
REASONS_ZH = {
    "needs a CUDA device: runs in the GPU workflow (REQUIRE_CUDA=1)": "需要 CUDA 设备：在 GPU 工作流中运行（REQUIRE_CUDA=1）",
    "needs a CUDA device: runs in the GPU workflow (REQUIRE_CUDA=1); compiled and API-checked here": "需要 CUDA 设备：在 GPU 工作流中运行（REQUIRE_CUDA=1）；这里只编译并检查 API 名称",
    "needs two GPUs": "需要两块 GPU",
    "needs two machines; the rehearsal below runs the same launch on one, in the static form": "需要两台机器；下方的演练在一台机器上以静态形式运行同样的启动命令",
    "shown for reading: the bash block below runs this file in a subprocess": "仅供阅读：下方的 bash 代码块在子进程中运行这个文件",
    "shown for reading: the block below runs this file in a subprocess": "仅供阅读：下方的代码块在子进程中运行这个文件",
    "shown for reading: the blocks below run this file in a subprocess": "仅供阅读：下方的代码块在子进程中运行这个文件",
    "shown for reading; run by the torchrun block above": "仅供阅读：由上方的 torchrun 代码块运行",
    "installs packages; the test environment is set up by make": "会安装软件包；测试环境由 make 搭建",
    "train.py stands for your program; the CUDA block below runs a real one": "train.py 代表你自己的程序；下方的 CUDA 代码块运行一个真实的程序",
    "triggers a device-side assert, which breaks the CUDA context of the process; the CUDA bash block above runs it in child processes": "会触发设备端断言，使进程的 CUDA 上下文无法再用；上方的 CUDA bash 代码块在子进程中运行它",
    "needs compute-sanitizer from the NVIDIA CUDA Toolkit, which pip does not install; train.py stands for your program": "需要 NVIDIA CUDA Toolkit 中的 compute-sanitizer，pip 不会安装它；train.py 代表你自己的程序",
    "the same program runs as the CUDA block above": "同一个程序已作为上方的 CUDA 代码块运行",
    "runs the whole test suite, i.e. the command that runs this page": "运行整个测试套件，也就是运行本页的那条命令",
    "clones the repository and runs the whole test suite, i.e. the command that runs this page": "克隆仓库并运行整个测试套件，也就是运行本页的那条命令",
    "installs the XPU build of torch from PyTorch's own index; the test machines keep the pinned CPU build": "从 PyTorch 自己的索引安装 torch 的 XPU 构建；测试机器保留固定版本的 CPU 构建",
    "needs an NVIDIA GPU and Nsight Systems (nsys), which the test machines do not have": "需要 NVIDIA GPU 和 Nsight Systems（nsys），测试机器上没有",
    "shows where to set the variable; the CUDA block below runs it": "展示在哪里设置这个变量；下方的 CUDA 代码块运行它",
    "needs an Apple-silicon MPS device: no CI machine runs it": "需要苹果芯片的 MPS 设备：没有 CI 机器能运行它",
    "needs an Intel GPU (XPU device): no CI machine runs it": "需要 Intel 显卡（XPU 设备）：没有 CI 机器能运行它",
    "runs pytest on a page; the full test run already covers it": "对一个页面运行 pytest；完整的测试运行已经覆盖它",
}


def reason(lang: str, text: str) -> str:
    return REASONS_ZH.get(text, text) if lang == "zh" else text


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
    data = _recorded(_mtime(config.VALIDATION_JSON))
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
    data = _recorded(_mtime(config.VALIDATION_JSON))
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
    for path in sorted(config.BUILD.glob("validation-torch-*.json")):
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
    return os.environ.get("DEVGUIDE_SITE_TORCH") or None


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
    primary = cpu.torch if cpu is not None else config.pinned_torch()
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
    c = Counter()
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


def _census_runs(data: dict, recorded: bool) -> list[tuple[str, dict | None, dict | None]]:
    """(torch version, census, hashes to match) of every CPU census: ``make test``'s
    (None while none is recorded) and each ``make test-torch`` run."""
    primary = torch_label(data["machine"]) if recorded else config.pinned_torch()
    runs = [(primary, data if recorded else None, None)]
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
    lines, per_block = [], defaultdict(dict)
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
    data = _recorded(_mtime(config.VALIDATION_JSON))
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


def _current_page(path: Path) -> list[Block]:
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
    path = config.REPO / src
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
    st.blocks = _current_page(path)
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


# --------------------------------------------------------------------------- the line under the title


def _plural(lang: str, n: int, one: str, many: str) -> str:
    return one if lang == "en" and n == 1 else many


def _torch(run: Run) -> str:
    return run.machine["torch"].split("+")[0]


def _mark(ok: bool | None) -> str:
    if ok is None:
        return '<span class="vr-icon vr-pending" aria-hidden="true">○</span> '
    cls, icon = ("vr-ok", "✓") if ok else ("vr-failed", "✗")
    return f'<span class="vr-icon {cls}" aria-hidden="true">{icon}</span> '


def line_parts(lang: str, st: PageStatus, cpu: Run | None, gpu: Run | None) -> list[str]:
    """The parts of a page's line, as HTML (empty: the page has nothing to run)."""
    t = TEXT[lang]
    parts = []
    if st.cells:
        parts.append(_mark(True) + t["cells"].format(n=st.cells, cells_word=_plural(lang, st.cells, "cell", "cells")))
    versions = st.versions or ([(_torch(cpu), cpu, st.cpu)] if cpu is not None else [])
    n = sum(map(len, st.cpu.values()))
    if n:
        # one part per outcome, naming the torch versions it holds for (those that ran
        # nothing of this page, e.g. skipped its only block, are not named)
        examples = _plural(lang, n, "example", "examples")
        outcomes: dict[tuple, list[str]] = {}
        changed = 0
        for label, run, by in versions:
            p, f, u = (len(by.get(k, [])) for k in ("passed", "failed", "unrun"))
            if run is None or p + f == 0:
                continue
            mine = p + f + u  # not those the run skipped (an output shown for another version)
            key = ("failed", f, mine) if f else ("ok", mine, mine) if p == mine else ("some", p, mine)
            outcomes.setdefault(key, []).append(label)
            if not f and u:
                changed = max(changed, u)
        if not outcomes:
            parts.append(_mark(None) + t["cpu_none"].format(n=n, examples=examples))
        for (outcome, k, mine), labels in outcomes.items():
            torch = t["versions_sep"].join(labels)
            if outcome == "failed":
                parts.append(_mark(False) + t["cpu_failed"].format(f=k, n=mine, torch=torch))
            elif outcome == "some":
                parts.append(_mark(True) + t["cpu_some"].format(p=k, n=mine, torch=torch))
            else:
                examples = _plural(lang, mine, "example", "examples")
                parts.append(_mark(True) + t["cpu_ok"].format(n=mine, examples=examples, torch=torch))
        if changed:
            parts.append(_mark(None) + t["cpu_changed"].format(u=changed))
    for kind, name in ACCELERATOR_KINDS.items():
        by = st.acc.get(kind, {})
        n = sum(map(len, by.values()))
        if not n:
            continue
        p, f, u = (len(by[k]) for k in ("passed", "failed", "unrun"))
        examples = _plural(lang, n, "example", "examples")
        # the GPU and the torch that ran there (a GPU machine's own build, often another version)
        where = html.escape(gpu_names(gpu.machine)) if gpu else ""
        ran_with = html.escape(t["gpu_torch"].format(torch=gpu.machine["torch"])) if gpu else ""
        if gpu is None or p + f == 0:
            parts.append(_mark(None) + t["acc_none"].format(n=n, acc=name, examples=examples))
        elif f:
            parts.append(_mark(False) + t["acc_failed"].format(f=f, n=n, acc=name, gpu=where, ran_with=ran_with))
        elif u:
            parts.append(_mark(True) + t["acc_some"].format(p=p, n=n, acc=name, gpu=where, ran_with=ran_with))
            parts.append(_mark(None) + t["acc_unrun"].format(u=u))
        else:
            parts.append(_mark(True) + t["acc_ok"].format(n=n, acc=name, gpu=where, ran_with=ran_with, examples=examples))
    return parts + device_parts(lang, st)


def device_parts(lang: str, st: PageStatus) -> list[str]:
    """MPS- and XPU-only blocks: no CI machine has the device, so most were never executed."""
    t = TEXT[lang]
    parts = []
    for kind in OTHER_DEVICES:
        by = st.devices.get(kind)
        if not by:
            continue
        p, f, u = (len(by[k]) for k in ("passed", "failed", "unrun"))
        n = p + f + u
        examples = _plural(lang, n if not u else u, "example", "examples")
        device = DEVICE_NAMES[kind]
        if f:
            parts.append(_mark(False) + t["device_failed"].format(f=f, n=n, device=device))
        elif u:
            parts.append(_mark(None) + t["device_unrun"].format(n=u, device=device, examples=examples))
        else:
            parts.append(_mark(True) + t["device_ok"].format(n=n, device=device, examples=examples))
    return parts


def row_id(src: str) -> str:
    """The id of a page's row in the report: docs/en/async/streams.md → page-async-streams."""
    path = PurePosixPath(*PurePosixPath(src).parts[2:]).with_suffix("")
    parts = [p for p in path.parts if p != "index"] if path.name == "index" else list(path.parts)
    return "page-" + ("-".join(parts) or "home")


def badge(lang: str, src: str, href: str = "") -> str | None:
    """The line under a page's title, or None when the page has nothing to run."""
    st = page_status(src)
    parts = line_parts(lang, st, cpu_run(), gpu_run())
    if not parts:
        return None
    body = '<span class="vr-sep" aria-hidden="true"> · </span>'.join(f'<span class="vr-part">{p}</span>' for p in parts)
    if href:
        body = f'<a href="{html.escape(href)}" title="{TEXT[lang]["line_label"]}">{body}</a>'
    return f'<p class="validation-line">{body}</p>'


def page_language(page) -> str:
    first = page.file.src_uri.split("/", 1)[0]
    return first if first in config.LANGUAGES else config.DEFAULT_LANGUAGE


def _report_file(lang: str, files):
    return files.get_file_from_path(f"{lang}/validation.md") if files is not None else None


def on_page_content(html_: str, page, config, files) -> str:
    lang = page_language(page)
    report = _report_file(lang, files)
    src = f"docs/{page.file.src_uri}"
    href = f"{report.url_relative_to(page.file)}#{row_id(src)}" if report is not None else ""
    line = badge(lang, src, href)
    if not line:
        return html_
    end = re.search(r"</h1>", html_)
    return html_[: end.end()] + line + html_[end.end() :] if end else line + html_


# --------------------------------------------------------------------------- the report page


def _date(lang: str, iso: str) -> str:
    year, month, day = iso[:10].split("-")
    if lang == "zh":
        return f"{int(year)} 年 {int(month)} 月 {int(day)} 日"
    months = "January February March April May June July August September October November December".split()
    return f"{int(day)} {months[int(month) - 1]} {year}"


def page_title(path: Path) -> str:
    """A page's H1 as written (a notebook's first ``# # Title``), without its { #anchor }."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return path.stem
    pattern = r"^# # (.+)$" if path.suffix == ".py" else r"^# (.+)$"
    m = re.search(pattern, text, re.M)
    return re.sub(r"\s*\{[^}]*\}\s*$", "", m.group(1)).strip() if m else path.stem


def _inline(text: str) -> str:
    """Escape, then `code` → <code>code</code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def nav_order(lang: str, mkdocs_config=None) -> list[tuple[str | None, list[str]]]:
    """(section title, page paths relative to the language folder), in navigation order;
    pages missing from the navigation come last, sorted."""
    groups: list[tuple[str | None, list[str]]] = []
    translate = {}
    if mkdocs_config is not None:
        i18n = mkdocs_config.plugins.get("i18n")
        if i18n is not None:
            for language in i18n.config.languages:
                if language.locale == lang:
                    translate = language.nav_translations or {}

    def walk(items, section):
        for item in items or []:
            if isinstance(item, str):
                section_pages(section).append(item)
            elif isinstance(item, dict):
                for title, value in item.items():
                    if isinstance(value, list):
                        walk(value, translate.get(title, title))
                    elif isinstance(value, str):
                        section_pages(section).append(value)

    def section_pages(section):
        if not groups or groups[-1][0] != section:
            groups.append((section, []))
        return groups[-1][1]

    if mkdocs_config is not None:
        walk(mkdocs_config.get("nav"), None)
    listed = {p for _, ps in groups for p in ps}
    root = config.DOCS / lang
    rest = sorted(
        p.relative_to(root).as_posix() for p in [*pages(), *notebooks()]
        if p.is_relative_to(root) and p.relative_to(root).as_posix() not in listed
    )
    if rest:
        groups.append((None, rest))
    return groups


def _cell_cpu(t, st: PageStatus, by: dict[str, list[Block]] | None = None, first: bool = True) -> str:
    """One torch version's cell (``by``: its results; the pinned run's by default).
    Notebook cells ran when the site was built: shown in the first column."""
    if st.cells:
        return t["cell_cells"].format(n=st.cells) if first else "—"
    by = st.cpu if by is None else by
    p, f, s, u = (len(by.get(k, [])) for k in ("passed", "failed", "skipped", "unrun"))
    n = p + f + u  # the skipped ones show another version's output
    if not n + s:
        return "—"
    if f:
        return f'<span class="vr-failed">{t["cell_failed"].format(f=f, n=n)}</span>'
    if not p and not s:
        return t["cell_none"].format(n=n)
    text = [t["cell_ok"].format(n=n) if p == n else t["cell_some"].format(p=p, n=n)] if p else []
    if s:
        text.append(t["cell_skipped"].format(n=s))
    if u:
        text.append(t["cell_changed"].format(u=u))
    return " · ".join(text)


def _cell_device(t, st: PageStatus, kind: str) -> str:
    by = st.devices.get(kind)
    if not by:
        return "—"
    p, f, u = (len(by[k]) for k in ("passed", "failed", "unrun"))
    n = p + f + u
    if f:
        return f'<span class="vr-failed">{t["cell_failed"].format(f=f, n=n)}</span>'
    if u:
        return t["not_executed"].format(n=n)
    return t["cell_ok"].format(n=n)


def _cell_acc(t, st: PageStatus, kind: str) -> str:
    by = st.acc.get(kind, {})
    p, f, u = (len(by.get(k, [])) for k in ("passed", "failed", "unrun"))
    n = p + f + u
    if not n:
        return "—"
    if f:
        return f'<span class="vr-failed">{t["cell_failed"].format(f=f, n=n)}</span>'
    if p and u:
        return f'{t["cell_some"].format(p=p, n=n)} · {t["cell_unrun"].format(u=u)}'
    if p:
        return t["cell_ok"].format(n=n)
    return t["cell_none"].format(n=n)


def _link(lang: str, rel_path: str, files, report_file) -> str:
    """The URL of a page from the report page (the site's own URL scheme: offline builds differ)."""
    if files is not None and report_file is not None:
        target = files.get_file_from_path(f"{lang}/{rel_path}")
        if target is not None:
            return target.url_relative_to(report_file)
    stem = PurePosixPath(rel_path).with_suffix("")
    url = "" if stem.as_posix() == "index" else (stem.parent if stem.name == "index" else stem).as_posix() + "/"
    return "../" + url


def render(lang: str, mkdocs_config=None, files=None) -> str:
    t = TEXT[lang]
    cpu, gpu = cpu_run(), gpu_run()
    report_file = _report_file(lang, files)
    lines = [f"## {t['machines']} {{ #machines }}", ""]
    if cpu:
        m = cpu.machine
        lines.append("- " + t["cpu_machine"].format(
            date=_date(lang, cpu.generated), cpu=m.get("cpu", "?") + (f" ({m['cpu_capability']})" if m.get("cpu_capability") else ""),
            os=m.get("os", "?"), python=m["python"], torch=m["torch"], source=t["src_" + cpu.source]
            + (t["src_reused"].format(n=cpu.reused, date=_date(lang, cpu.reused_since)) if cpu.reused else ""),
        ))
    else:
        lines.append("- " + t["no_cpu"])
    others = other_cpu_runs()
    versions = [(label, run) for label, run in cpu_runs(cpu, others) if run is not None and run is not cpu]
    groups = nav_order(lang, mkdocs_config)
    statuses = {rel: page_status(f"docs/{lang}/{rel}", cpu, gpu, others) for _, rels in groups for rel in rels}
    for label, run in versions:
        m = run.machine
        by = [b for s in statuses.values() for lb, _, b in s.versions if lb == label]
        count = {k: sum(len(b.get(k, [])) for b in by) for k in ("passed", "failed", "skipped", "unrun")}
        lines.append("- " + t["other_run"].format(
            date=_date(lang, run.generated), cpu=m.get("cpu", "?") + (f" ({m['cpu_capability']})" if m.get("cpu_capability") else ""),
            os=m.get("os", "?"), python=m.get("python", "?"), torch=m["torch"],
            passed=count["passed"], failed=count["failed"], skipped=count["skipped"], changed=count["unrun"],
            passed_word=_plural(lang, count["passed"], "block", "blocks"),
            changed_word=_plural(lang, count["unrun"], "block", "blocks"),
            are="is" if count["unrun"] == 1 else "are",  # English only
            source=t["src_other"].format(torch=label),
        ))
    if gpu:
        m = gpu.machine
        host = " · ".join(x for x in (m.get("cpu"), m.get("os")) if x)
        lines.append("- " + t["gpu_machine"].format(
            date=_date(lang, gpu.generated), gpus=gpu_names(m), cuda=m.get("cuda", "?"),
            host=host + " · " if host else "", python=m["python"], torch=m["torch"], source=t["src_" + gpu.source],
        ))
    else:
        lines.append("- " + t["no_gpu"])
    lines.append("")

    total = {k: sum(len(s.cpu.get(k, [])) for s in statuses.values()) for k in ("passed", "failed", "unrun")}
    acc = {k: sum(len(s.acc.get("cuda", {}).get(k, [])) for s in statuses.values()) for k in ("passed", "failed", "unrun")}
    lines += [t["totals"].format(
        n=sum(total.values()), p=total["passed"], f=total["failed"], u=total["unrun"],
        acc_n=sum(acc.values()), acc_p=acc["passed"], acc_f=acc["failed"], acc_u=acc["unrun"],
        cells=sum(s.cells for s in statuses.values()),
    ), ""]
    data, recorded = load()
    shared = sum(1 for f in data["fences"] if f.get("ran_with")) if recorded else 0
    if shared:
        lines += [t["shared"].format(n=shared), ""]
    unexecuted = {kind: sum(len(s.devices.get(kind, {}).get("unrun", [])) for s in statuses.values()) for kind in OTHER_DEVICES}
    if any(unexecuted.values()):
        lines += [t["unexecuted"].format(**unexecuted), ""]

    # the table: raw HTML (row ids for the pages' links, labels for the phone layout);
    # a result column per torch version (the pinned one and each make test-torch run)
    labels = [label for label, _ in cpu_runs(cpu, others)]
    heads = [
        t["col_page"], *(t["result_head"].format(torch=label) for label in labels), t["col_acc"],
        *(t["col_device"].format(device=DEVICE_NAMES[kind]) for kind in OTHER_DEVICES), t["col_outputs"], t["col_excused"],
    ]
    rows = ['<table class="validation-table">', "<thead><tr>" + "".join(f'<th scope="col">{h}</th>' for h in heads) + "</tr></thead>", "<tbody>"]
    for section, rels in groups:
        if section:
            rows.append(f'<tr class="vt-section"><th colspan="{len(heads)}" scope="rowgroup">{_inline(section)}</th></tr>')
        for rel in rels:
            st = statuses[rel]
            if not (st.blocks or st.cells):
                continue
            title = _inline(page_title(config.DOCS / lang / rel))
            href = html.escape(_link(lang, rel, files, report_file))
            cells = [
                *(_cell_cpu(t, st, by, first=i == 0) for i, (_, _, by) in enumerate(st.versions or [(x, None, st.cpu) for x in labels])),
                _cell_acc(t, st, "cuda"),
                *(_cell_device(t, st, kind) for kind in OTHER_DEVICES),
                str(st.outputs) if st.outputs else "—",
                str(len(st.excused)) if st.excused else "—",
            ]
            rows.append(
                f'<tr id="{row_id(st.page)}"><th scope="row"><a href="{href}">{title}</a></th>'
                + "".join(f'<td data-label="{h}">{c}</td>' for h, c in zip(heads[1:], cells, strict=True))
                + "</tr>"
            )
    rows += ["</tbody>", "</table>"]
    lines += [f"## {t['pages']} {{ #pages }}", "", "\n".join(rows), ""]

    def per_page(title_key, anchor, none_key, items_of):
        out = [f"## {t[title_key]} {{ #{anchor} }}", ""]
        found = False
        for _, rels in groups:
            for rel in rels:
                items = items_of(statuses[rel])
                if not items:
                    continue
                found = True
                title = _inline(page_title(config.DOCS / lang / rel))
                href = html.escape(_link(lang, rel, files, report_file))
                out.append(f'- <a href="{href}">{title}</a>')
                out += [f"    - {item}" for item in items]
        if not found:
            out.append(t[none_key])
        return out + [""]

    gpu_where = gpu_names(gpu.machine) if gpu else "GPU"
    several = len(labels) > 1
    lines += per_page("failed", "failed", "failed_none", lambda s: [
        t["failed_item"].format(
            line=b.line, language=b.language,
            where=t["on_cpu_version"].format(torch=label) if several else t["on_cpu"],
        )
        for label, _, by in s.versions for b in by.get("failed", [])
    ] + [
        t["failed_item"].format(line=b.line, language=b.language, where=html.escape(gpu_where))
        for b in s.acc.get("cuda", {}).get("failed", [])
    ])
    lines += per_page("excused", "excused", "excused_none", lambda s: [
        t["excused_item"].format(line=b.line, language=b.language, reason=html.escape(reason(lang, b.reason)))
        for b in s.excused
    ])
    # CUDA blocks waiting for a GPU run: a folded list (it can be long)
    waiting = []
    for _, rels in groups:
        for rel in rels:
            blocks = statuses[rel].acc.get("cuda", {}).get("unrun", [])
            if blocks:
                title = _inline(page_title(config.DOCS / lang / rel))
                href = html.escape(_link(lang, rel, files, report_file))
                items = "".join(f"<li>{t['pending_item'].format(line=b.line, language=b.language)}</li>" for b in blocks)
                waiting.append(f'<li><a href="{href}">{title}</a><ul>{items}</ul></li>')
    if waiting:
        n = sum(len(s.acc.get("cuda", {}).get("unrun", [])) for s in statuses.values())
        lines += [
            f'<details class="vr-waiting" id="not-yet-on-gpu"><summary>{t["pending_title"]} ({n})</summary>'
            f'<ul>{"".join(waiting)}</ul></details>', "",
        ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- GPU outputs under CUDA blocks


def fence_lines_before_markers(page: Path, source: str) -> list[int]:
    """For each GPU_MARKER outside a fence: the line of the last fence opened before it."""
    fences = scan_fences(page)
    inside = {n for f in fences for n in range(f.line, f.end + 1)}
    found = []
    for n, text in enumerate(source.splitlines(), 1):
        if text.strip() == GPU_MARKER and n not in inside:
            before = [f.line for f in fences if f.end < n]
            found.append(before[-1] if before else None)
    return found


def gpu_outputs(markdown: str, page: Path, src: str, lang: str, gpu: Path | None = None) -> str:
    """Replace each GPU_MARKER with what the block above it printed on the GPU."""
    t = TEXT[lang]
    gpu = gpu or gpu_dir()
    run = load_gpu(gpu)
    local = {b.line: b.sha for b in _current_page(Path(page))}
    source = Path(page).read_text(encoding="utf-8")
    fences = [f for f in (run or {}).get("fences", []) if f["page"] == src]
    outputs = gpu / "artifacts" / "outputs"
    for line in fence_lines_before_markers(page, source):
        sha = local.get(line)
        # the same block (by hash) in that run, wherever it stood on the page then
        same = next((f for f in fences if sha and f.get("sha") == sha), None)
        at_line = next((f for f in fences if f["line"] == line), None)
        output = outputs / census.output_name(src, same["line"] if same else line)
        if same is None and at_line is not None:
            block = f'!!! note "{t["gpu_stale"]}"\n\n    {t["gpu_none_text"]}'
        elif run and output.exists():
            machine = run["machine"]
            title = t["gpu_output"].format(label=gpu_label(machine), date=run["generated"][:10])
            body = "```text\n" + output.read_text(encoding="utf-8").rstrip("\n") + "\n```"
            block = f'!!! info "{title}"\n\n' + textwrap.indent(body, "    ")
        else:
            block = f'!!! note "{t["gpu_none"]}"\n\n    {t["gpu_none_text"]}'
        markdown = markdown.replace(GPU_MARKER, block, 1)
    return markdown


def on_page_markdown(markdown: str, page, config, files) -> str:
    lang = page_language(page)
    if GPU_MARKER in markdown:
        markdown = gpu_outputs(markdown, Path(page.file.abs_src_path), f"docs/{page.file.src_uri}", lang)
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render(lang, config, files))
