"""The census rendered into the site (the mkdocs hook ``docs/overrides/hooks/validation_report.py``).

``make test`` writes the census with each block's result. The "Validation
report" page shows it (``<!-- validation-report -->``) and each page gets a line
under its title: which torch versions validated how many of its blocks on CPU
(the pinned one, and each ``make test-torch`` run found in
``build/validation-torch-<version>.json``, counted only for blocks whose hash
still matches; the report has a column per version), and whether CUDA did -- the GPU workflow's census (``build/gpu/validation.json``)
when present, else the GPU run recorded in ``.ci/gpu-run/``, counted only for
blocks whose hash still matches, naming the torch and GPU it ran on. Blocks for
Apple-silicon GPUs (``mps``) and Intel GPUs (``xpu``) have columns of their own,
and the report says in a sentence how many of them no CI machine executed (none
has such a device). Without a
recorded run (a fresh ``make serve``) the report shows the census of the
sources alone, computed once per build.

``<!-- gpu-output -->`` after a CUDA-only block shows what that block printed in
the GPU run (``artifacts/outputs/`` beside that census), e.g. the measured
bandwidths, or says that no GPU run is recorded yet. When the page was last
changed is shown by mkdocs-git-revision-date-localized-plugin, not here.
"""

from __future__ import annotations

import functools
import os
import re
import textwrap
from collections import Counter, defaultdict
from pathlib import Path, PurePosixPath

from devguide import census, config
from devguide.config import GPU, GPU_RECORDED
from devguide.pages import scan_fences

MARKER = "<!-- validation-report -->"
# Devices no CI machine has: their blocks are counted apart and never "pending"
OTHER_DEVICES = ("mps", "xpu")
DEVICE_NAMES = {"mps": "MPS", "xpu": "XPU"}
GPU_MARKER = "<!-- gpu-output -->"

TEXT = {
    "zh": {
        "none": "还没有记录到测试运行：下表只是源文件的统计。运行 `make test` 后重新构建即可看到每个代码块的结果。",
        "run": "最近一次测试运行：{generated}，torch {torch}，Python {python}，设备 **{accelerator}**。",
        "gpu_run": "最近一次 GPU 运行：{generated}，{label}，CUDA {cuda}：{passed} 个代码块通过，{failed} 个失败；另有 {changed} 个代码块在那次运行之后改过，等待下一次 GPU 运行。",
        "shared": "有 {n} 个英文代码块与中文页的对应代码块逐字相同（代码、标记、期望输出），每对只测试一次，两页共用结果。",
        "head": "| 页面 | CPU 上执行 | 仅 CUDA | 仅 MPS | 仅 XPU | 豁免 | 输出校验 | 笔记本单元 |",
        "unexecuted": "**本站有 {mps} 个为苹果芯片的 GPU（MPS）编写的代码块和 {xpu} 个为 Intel 显卡（XPU）编写的代码块没有在任何 CI 机器上执行过**：CI 机器都没有这两种设备。这些代码块在 CPU 上编译，其中的 `torch.…` 名称逐一对照已安装的 torch 检查过；它们展示的行为依据 PyTorch 的源码，所在页面给出了源文件链接。",
        "not_executed": "未执行",
        "badge_device": "{n} 个仅限 {device} 的代码块未在任何 CI 机器上执行",
        "result_head": "torch {torch}（CPU）",
        "other_run": "另一次测试运行（`make test-torch`）：{generated}，torch {torch}，Python {python}，设备 **{accelerator}**：{passed} 个代码块通过，{failed} 个失败，{skipped} 个跳过；另有 {changed} 个代码块在那次运行之后改过。",
        "total": "**合计**",
        "excused": "豁免的代码块及理由",
        "ok": "✓",
        "failed": "✗ {n}",
        "not_run": "未运行",
        "skipped": "跳过 {n} 个",
        "badge": "本页 {n} 个代码块已在 CPU 上验证：{versions}",
        "badge_version": "torch {torch} {mark}",
        "badge_some": "（其中 {n} 个）",
        "versions_sep": "，",
        "badge_cuda": "CUDA {cuda}",
        "pending": "待验证",
        "partly": "（其中 {n} 个代码块与那次运行时一致）",
        "gpu_output": "GPU 实测：{label}，{date}",
        "gpu_none": '还没有 GPU 实测数据',
        "gpu_stale": "代码块在上次 GPU 运行之后改过，实测数据待更新",
        "gpu_none_text": "GPU 工作流运行过这个代码块之后，它打印的结果会显示在这里。",
    },
    "en": {
        "none": "No test run has been recorded yet: the table counts the sources only. Run `make test` and build again to see each block's result.",
        "run": "Last test run: {generated}, torch {torch}, Python {python}, device **{accelerator}**.",
        "gpu_run": "Last GPU run: {generated}, {label}, CUDA {cuda}: {passed} blocks passed, {failed} failed; {changed} more blocks changed since that run and wait for the next one.",
        "shared": "{n} English blocks are identical to their Chinese twins (code, marks, expected output), so each such pair is tested once and both pages share the result.",
        "head": "| Page | Run on CPU | CUDA-only | MPS-only | XPU-only | Excused | Outputs checked | Notebook cells |",
        "unexecuted": "**No CI machine has executed {mps} of this site's blocks written for Apple-silicon GPUs (MPS) and {xpu} written for Intel GPUs (XPU)**: none has either device. These blocks are compiled on CPU and every `torch.…` name in them is checked against the installed torch; what they show rests on PyTorch's source, which their pages link.",
        "not_executed": "not executed",
        "badge_device": "{device}-only blocks not executed by any CI machine: {n}",
        "result_head": "torch {torch} (CPU)",
        "other_run": "Another test run (`make test-torch`): {generated}, torch {torch}, Python {python}, device **{accelerator}**: {passed} blocks passed, {failed} failed, {skipped} skipped; {changed} more blocks changed since that run.",
        "total": "**Total**",
        "excused": "Excused blocks and why",
        "ok": "✓",
        "failed": "✗ {n}",
        "not_run": "not run",
        "skipped": "{n} skipped",
        "badge": "{n} blocks on this page validated on CPU with {versions}",
        "badge_version": "torch {torch} {mark}",
        "badge_some": "({n} of them)",
        "versions_sep": ", ",
        "badge_cuda": "CUDA {cuda}",
        "pending": "pending",
        "partly": "({n} blocks unchanged since that run)",
        "gpu_output": "Measured on a GPU: {label}, {date}",
        "gpu_none": "No GPU measurement yet",
        "gpu_stale": "This block changed since the last GPU run: measurement pending",
        "gpu_none_text": "Once the GPU workflow has run this block, what it printed appears here.",
    },
}


def load() -> tuple[dict, bool]:
    """(census, whether it records a run): build/validation.json, else the sources' census."""
    data = _recorded(_mtime(config.VALIDATION_JSON))
    if data is not None:
        return data, True
    return _sources(), False


def _mtime(path: Path) -> float | None:
    return path.stat().st_mtime if path.exists() else None


@functools.lru_cache(maxsize=4)
def _recorded(mtime: float | None) -> dict | None:
    return census.load() if mtime is not None else None


@functools.lru_cache(maxsize=1)
def _sources() -> dict:
    return census.build()


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


def cpu_runs(data: dict, recorded: bool) -> list[tuple[str, dict | None, dict | None]]:
    """(torch version, census, hashes to match) of every CPU run to show: the
    census of ``make test`` (None while none is recorded: its column says "not
    run") and each ``make test-torch`` run of another version, whose results count
    only for blocks whose hash (code, marks, outputs) in the pages as they are now
    is still the one that ran.
    The site's own version (``site_torch``) first, then by version."""
    primary = torch_label(data["machine"]) if recorded else config.pinned_torch()
    runs = [(primary, data if recorded else None, None)]
    by_page: dict[str, dict[int, str | None]] = defaultdict(dict)  # page → line → hash now
    for f in (_sources() if recorded else data)["fences"]:
        by_page[f["page"]][f["line"]] = f.get("sha")
    for other in other_runs():
        label = torch_label(other["machine"])
        if label != primary and label not in {r[0] for r in runs}:
            runs.append((label, other, by_page))
    runs.sort(key=lambda r: _version_key(r[0]))
    mine = site_torch()
    if mine:
        runs.sort(key=lambda r: not (r[0] == mine or r[0].startswith(mine + ".")))
    return runs


def run_status(run: dict, shas: dict | None, page: str | None = None) -> Counter:
    """passed / failed / skipped / changed blocks of a run (of one page when named)."""
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


def render(lang: str) -> str:
    t = TEXT[lang]
    data, recorded = load()
    info = data["machine"]
    runs = cpu_runs(data, recorded)
    lines = [t["run"].format(generated=data["generated"], **info) if recorded else t["none"], ""]
    for _, run, shas in runs:
        if shas is None:
            continue
        c = run_status(run, shas)
        lines[-1:] = [
            t["other_run"].format(
                generated=run["generated"], torch=run["machine"]["torch"],
                python=run["machine"].get("python", "?"), accelerator=run["machine"]["accelerator"],
                passed=c["passed"], failed=c["failed"], skipped=c["skipped"], changed=c["changed"],
            ),
            "",
        ]
    gpu = load_gpu() if info.get("accelerator") != "cuda" else None
    if gpu:
        shas = {(f["page"], f["line"]): f.get("sha") for f in data["fences"]}
        ran = [f for f in gpu["fences"] if f.get("status") in ("passed", "failed")]
        same = [f for f in ran if f.get("sha") == shas.get((f["page"], f["line"]))]
        lines[-1:] = [
            t["gpu_run"].format(
                generated=gpu["generated"], label=gpu_label(gpu["machine"]),
                cuda=gpu["machine"].get("cuda", "?"),
                passed=sum(f["status"] == "passed" for f in same),
                failed=sum(f["status"] == "failed" for f in same),
                changed=len(ran) - len(same),
            ),
            "",
        ]
    shared = sum(1 for f in data["fences"] if f.get("ran_with"))
    if shared:
        lines[-1:] = [t["shared"].format(n=shared), ""]
    unexecuted = Counter(
        f["kind"] for f in data["fences"]
        if f["kind"] in OTHER_DEVICES and f.get("status") not in ("passed", "failed")
        and PurePosixPath(f["page"]).parts[1] == lang
    )
    if unexecuted:
        lines += [t["unexecuted"].format(mps=unexecuted["mps"], xpu=unexecuted["xpu"]), ""]
    head = t["head"] + "".join(f" {t['result_head'].format(torch=label)} |" for label, _, _ in runs)
    lines += [head, "|---|---:|---:|---:|---:|---:|---:|---:|" + "---|" * len(runs)]
    rows: dict[str, Counter] = defaultdict(Counter)
    excused = []
    for f in data["fences"]:
        page = PurePosixPath(f["page"])
        if page.parts[1] != lang:
            continue
        c = rows[str(PurePosixPath(*page.parts[2:]))]
        kind = f["kind"]
        if kind in ("python", "bash"):
            c["cpu"] += 1
        elif kind == "cuda":
            c["cuda"] += 1
        elif kind in OTHER_DEVICES:
            c[kind] += 1
            if f.get("status") not in ("passed", "failed"):
                c[f"{kind}_unexecuted"] += 1
        elif kind == "excused":
            c["excused"] += 1
            excused.append(f)
        elif kind == "output":
            c["output"] += 1
        elif kind == "notebook":
            c["notebook"] += 1
        status = f.get("status")
        if status == "failed":
            c["failed"] += 1
        if status in ("passed", "failed", "build"):
            c["ran"] += 1
    total = Counter()
    for page, c in sorted(rows.items()):
        total.update(c)
        results = []
        for _, run, shas in runs:
            if run is None:
                results.append(t["not_run"])
                continue
            r = c if shas is None else run_status(run, shas, f"docs/{lang}/{page}")
            ran = c["ran"] if shas is None else r["passed"] + r["failed"] + r["build"]
            if not ran:
                # e.g. a page whose only block shows the pinned version (skipped on another torch)
                results.append(t["skipped"].format(n=r["skipped"]) if r["skipped"] else t["not_run"])
            elif r["failed"]:
                results.append(t["failed"].format(n=r["failed"]))
            else:
                results.append(t["ok"])
        cuda = str(c["cuda"])
        if c["cuda"] and info.get("accelerator") != "cuda":
            cuda += f" ({t['pending']})"
        other = [
            f"{c[kind]} ({t['not_executed']})" if c[f"{kind}_unexecuted"] else str(c[kind])
            for kind in OTHER_DEVICES
        ]
        lines.append(
            f"| [{page}]({page}) | {c['cpu']} | {cuda} | {' | '.join(other)} | {c['excused']} "
            f"| {c['output']} | {c['notebook']} | " + " | ".join(results) + " |"
        )
    lines.append(
        f"| {t['total']} | {total['cpu']} | {total['cuda']} "
        f"| {' | '.join(str(total[kind]) for kind in OTHER_DEVICES)} | {total['excused']} "
        f"| {total['output']} | {total['notebook']} |" + " |" * len(runs)
    )
    if excused:
        lines += ["", f"### {t['excused']} {{ #excused }}", ""]
        for f in excused:
            page = PurePosixPath(f["page"])
            lines.append(f"- `{PurePosixPath(*page.parts[2:])}:{f['line']}` ({f['language']}): {f['reason']}")
    return "\n".join(lines)


def versions_summary() -> list[str]:
    """``python -m devguide census --versions``: each torch version's CPU run (passed,
    failed, skipped), then every block that did not pass on all of them, with its
    result on each."""
    data, recorded = load()
    runs = cpu_runs(data, recorded)
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


def page_status(data: dict, src: str, shas: dict | None = None) -> tuple[int, int, int]:
    """(blocks that ran, blocks that failed, CUDA-only blocks) of one page. With
    ``shas`` (line → hash of the block as it is now), a result counts only for a
    block whose code, marks and outputs are still the ones that ran."""
    ran = failed = cuda = 0
    for f in data["fences"]:
        if f["page"] != src:
            continue
        cuda += f["kind"] == "cuda"
        if shas is not None and f.get("sha") != shas.get(f["line"]):
            continue
        ran += f.get("status") in ("passed", "failed", "build")
        failed += f.get("status") == "failed"
    return ran, failed, cuda


def unexecuted_on_page(data: dict, src: str) -> dict[str, int]:
    """MPS- and XPU-only blocks of one page that the census records as not executed."""
    found = Counter(
        f["kind"] for f in data["fences"]
        if f["page"] == src and f["kind"] in OTHER_DEVICES
        and f.get("status") not in ("passed", "failed")
    )
    return {kind: found[kind] for kind in OTHER_DEVICES if found[kind]}


def gpu_label(machine: dict) -> str:
    """torch 2.11.0+cu130 · NVIDIA H100 80GB HBM3: exactly what ran."""
    gpus = ", ".join(sorted(set(machine.get("gpus", [])))) or "CUDA"
    return f"torch {machine['torch']} · {gpus}"


def badge(lang: str, src: str) -> str | None:
    t = TEXT[lang]
    data, recorded = load()
    if not recorded:
        return None
    ran, failed, cuda = page_status(data, src)
    if not ran:
        return None
    versions = []
    for label, run, shas in cpu_runs(data, recorded):
        if shas is None:
            v_ran, v_failed = ran, failed
        else:
            v_ran, v_failed, _ = page_status(run, src, shas.get(src, {}))
        if not v_ran:
            continue
        mark = '<span class="failed">✗</span>' if v_failed else '<span class="ok">✓</span>'
        part = t["badge_version"].format(torch=label, mark=mark)
        if v_ran < ran:
            part += " " + t["badge_some"].format(n=v_ran)
        versions.append(part)
    parts = [t["badge"].format(n=ran, versions=t["versions_sep"].join(versions))]
    if cuda:
        gpu = load_gpu()
        if data["machine"]["accelerator"] == "cuda":
            mark = '<span class="ok">✓</span>' if not failed else '<span class="failed">✗</span>'
            mark += " " + gpu_label(data["machine"])
        elif gpu:
            shas = {f["line"]: f.get("sha") for f in data["fences"] if f["page"] == src}
            g_ran, g_failed, _ = page_status(gpu, src, shas)
            if not g_ran:
                mark = t["pending"]
            else:
                mark = '<span class="failed">✗</span>' if g_failed else '<span class="ok">✓</span>'
                mark += " " + gpu_label(gpu["machine"])
                if g_ran < ran:
                    mark += " " + t["partly"].format(n=g_ran)
        else:
            mark = t["pending"]
        parts.append(t["badge_cuda"].format(cuda=mark))
    for kind, n in unexecuted_on_page(data, src).items():
        parts.append(t["badge_device"].format(device=DEVICE_NAMES[kind], n=n))
    return '<p class="validation-badge">' + " · ".join(parts) + "</p>"


def page_language(page) -> str:
    first = page.file.src_uri.split("/", 1)[0]
    return first if first in config.LANGUAGES else config.DEFAULT_LANGUAGE


def on_page_content(html: str, page, config, files) -> str:
    lang = page_language(page)
    line = badge(lang, f"docs/{page.file.src_uri}")
    if not line:
        return html
    end = re.search(r"</h1>", html)
    return html[: end.end()] + line + html[end.end() :] if end else line + html


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
    local = {f["line"]: f.get("sha") for f in load()[0]["fences"] if f["page"] == src}
    source = Path(page).read_text(encoding="utf-8")
    for line in fence_lines_before_markers(page, source):
        output = gpu / "artifacts" / "outputs" / census.output_name(src, line)
        ran = next((f for f in (run or {}).get("fences", []) if f["page"] == src and f["line"] == line), None)
        if ran and ran.get("sha") != local.get(line):
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
    return markdown.replace(MARKER, render(lang))
