"""What CUDA blocks printed on a GPU, shown under them (``<!-- gpu-output -->``).

The marker after a CUDA-only block is replaced with what that block printed in
the GPU run (``artifacts/outputs/`` beside that run's census, ``results.gpu_dir``),
e.g. the measured bandwidths, in an admonition that names the GPU, torch and
date; or with a note saying that the block has not run on a GPU yet, or not since
it changed (naming the run that ran its earlier version). The report module's ``on_page_markdown`` calls ``gpu_outputs``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from devguide.census import file as census
from devguide.census.results import current_blocks, gpu_dir, gpu_label, load_gpu
from devguide.mkdocs_plugin.words import TEXT, date
from devguide.source.fences import scan_fences

GPU_MARKER = "<!-- gpu-output -->"


def fence_lines_before_markers(page: Path, source: str) -> list[int | None]:
    """For each GPU_MARKER outside a fence: the line of the last fence opened before it."""
    fences = scan_fences(page)
    inside = {n for f in fences for n in range(f.line, f.end + 1)}
    found: list[int | None] = []
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
    local = {b.line: b.sha for b in current_blocks(Path(page))}
    source = Path(page).read_text(encoding="utf-8")
    fences = [f for f in (run or {}).get("fences", []) if f["page"] == src]
    outputs = gpu / "artifacts" / "outputs"
    none = f'!!! note "{t["gpu_none"]}"\n\n    {t["gpu_none_text"]}'
    for line in fence_lines_before_markers(page, source):
        if line is None:  # a marker before any fence: no block printed anything for it
            markdown = markdown.replace(GPU_MARKER, none, 1)
            continue
        sha = local.get(line)
        # the same block (by hash) in that run, wherever it stood on the page then
        same = next((f for f in fences if sha and f.get("sha") == sha), None)
        at_line = next((f for f in fences if f["line"] == line), None)
        output = outputs / census.output_name(src, same["line"] if same else line)
        if same is None and at_line is not None and run is not None:
            stale = t["gpu_stale_text"].format(label=gpu_label(run["machine"]), date=date(lang, run["generated"]))
            block = f'!!! note "{t["gpu_stale"]}"\n\n    {stale}'
        elif run and output.exists():
            machine = run["machine"]
            title = t["gpu_output"].format(label=gpu_label(machine), date=run["generated"][:10])
            body = "```text\n" + output.read_text(encoding="utf-8").rstrip("\n") + "\n```"
            block = f'!!! info "{title}"\n\n' + textwrap.indent(body, "    ")
        else:
            block = none
        markdown = markdown.replace(GPU_MARKER, block, 1)
    return markdown
