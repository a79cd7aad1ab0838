"""Render the census (``build/validation.json``) into the "Validation report" page.

``make test`` writes the census with each block's result. Without it (a fresh
``make serve``) the page shows the census of the sources alone and says that no
test run has been recorded yet.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[3]
MARKER = "<!-- validation-report -->"

TEXT = {
    "zh": {
        "none": "还没有记录到测试运行：下表只是源文件的统计。运行 `make test` 后重新构建即可看到每个代码块的结果。",
        "run": "最近一次测试运行：{generated}，torch {torch}，Python {python}，设备 **{accelerator}**。",
        "head": "| 页面 | CPU 上执行 | 仅 CUDA | 豁免 | 输出校验 | 笔记本单元 | 结果 |",
        "total": "**合计**",
        "excused": "豁免的代码块及理由",
        "cuda_pending": "待 GPU 工作流验证",
        "ok": "✓ 全部通过",
        "failed": "✗ {n} 个失败",
        "not_run": "未运行",
        "gpu": "GPU 工作流",
    },
    "en": {
        "none": "No test run has been recorded yet: the table counts the sources only. Run `make test` and build again to see each block's result.",
        "run": "Last test run: {generated}, torch {torch}, Python {python}, device **{accelerator}**.",
        "head": "| Page | Run on CPU | CUDA-only | Excused | Outputs checked | Notebook cells | Result |",
        "total": "**Total**",
        "excused": "Excused blocks and why",
        "cuda_pending": "pending the GPU workflow",
        "ok": "✓ all passed",
        "failed": "✗ {n} failed",
        "not_run": "not run",
        "gpu": "GPU workflow",
    },
}


def load() -> tuple[dict, bool]:
    path = REPO / "build" / "validation.json"
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8")), True
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.docs_plugin import validation_data

    return validation_data(), False


def render(lang: str) -> str:
    t = TEXT[lang]
    data, recorded = load()
    info = data["machine"]
    lines = [t["run"].format(generated=data["generated"], **info) if recorded else t["none"], ""]
    lines += [t["head"], "|---|---:|---:|---:|---:|---:|---|"]
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
        if not recorded or not c["ran"]:
            result = t["not_run"]
        elif c["failed"]:
            result = t["failed"].format(n=c["failed"])
        else:
            result = t["ok"]
        if c["cuda"] and info.get("accelerator") != "cuda":
            result += f" · CUDA: {t['cuda_pending']}"
        lines.append(
            f"| [{page}]({page}) | {c['cpu']} | {c['cuda']} | {c['excused']} "
            f"| {c['output']} | {c['notebook']} | {result} |"
        )
    lines.append(
        f"| {t['total']} | {total['cpu']} | {total['cuda']} | {total['excused']} "
        f"| {total['output']} | {total['notebook']} | |"
    )
    if excused:
        lines += ["", f"### {t['excused']} {{ #excused }}", ""]
        for f in excused:
            page = PurePosixPath(f["page"])
            lines.append(f"- `{PurePosixPath(*page.parts[2:])}:{f['line']}` ({f['language']}): {f['reason']}")
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER not in markdown:
        return markdown
    lang = "en" if page.file.src_uri.startswith("en/") else "zh"
    return markdown.replace(MARKER, render(lang))
