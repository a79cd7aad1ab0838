"""A jupytext notebook's downloads: ``.ipynb`` with the outputs the build's run
printed, and its jupytext ``.py`` source; the "Open in Colab" address of the
published ``.ipynb``; headings' ``{ #id }`` as HTML anchors for Markdown that leaves
the site (notebook cells, the ``.md`` copies of devguide.mkdocs_plugin.reader.llms).

The build (mkdocs-jupyter, executing every notebook; a raising cell fails it)
keeps no executed notebook, only the HTML it rendered from that run, cached or
fresh. ``outputs_from_html`` reads each code cell's text outputs back from that
HTML (devguide.mkdocs_plugin.hooks.notebooks_with_i18n hands it over), so the downloaded
notebook shows what the build ran, as its first cell promises.
"""

from __future__ import annotations

import re
from pathlib import Path

from devguide import paths, settings

HEADING_ANCHOR = re.compile(r"^(?P<head>(?:# )?#{1,6} .*?)\s*\{\s*#(?P<id>[\w-]+)\s*\}\s*$")
FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")


def html_anchors(markdown: str) -> str:
    """Headings' ``{ #id }`` (attr_list, which only this site's build reads) as an HTML
    anchor that Jupyter, Colab, GitHub and Markdown readers understand:
    ``## Pick a device { #pick-a-device }`` → ``## Pick a device <a id="pick-a-device"></a>``.
    Lines inside fences are left alone."""
    out, fence = [], None
    for line in markdown.split("\n"):
        m = FENCE_LINE.match(line)
        if m and (fence is None or m.group(1).startswith(fence)):
            fence = m.group(1) if fence is None else None
        elif fence is None:
            line = HEADING_ANCHOR.sub(r'\g<head> <a id="\g<id>"></a>', line)
        out.append(line)
    return "\n".join(out)


def notebook_files(notebook: Path, outputs: list[list[dict]] | None = None) -> dict[str, str]:
    """A jupytext notebook's downloads: ``.ipynb`` and its ``.py`` source. ``outputs``:
    each code cell's outputs (nbformat dicts) from the build's run, in order (see
    ``outputs_from_html``); the notebook then carries them, with execution counts."""
    import jupytext
    import nbformat

    source = Path(notebook).read_text(encoding="utf-8")
    nb = jupytext.reads(source, fmt="py:percent")
    nb.metadata.pop("jupytext", None)
    code = [c for c in nb.cells if c.cell_type == "code"]
    if outputs is not None and len(outputs) != len(code):
        raise ValueError(f"{paths.rel(notebook)}: {len(code)} code cells, the build's run has {len(outputs)}")
    for n, cell in enumerate(code, 1):
        if outputs is not None:
            cell.execution_count = n
            cell.outputs = [nbformat.from_dict(dict(o, execution_count=n) if o["output_type"] == "execute_result" else o)
                            for o in outputs[n - 1]]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = html_anchors(cell.source)
    # the torch that printed the outputs, for a reader in Jupyter or Colab (the .py
    # downloads of the pages say it and check it; review 2026-12-06, problem 20)
    torch = paths.pinned_torch()
    nb.metadata["devguide"] = {"validated_torch": torch}
    if outputs is not None:
        from devguide.mkdocs_plugin.reader.downloads import page_language

        note = VALIDATED_NOTE.get(page_language(notebook), VALIDATED_NOTE["en"]).format(torch=torch)
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(note))
    return {".ipynb": jupytext.writes(nb, fmt="ipynb"), ".py": source}


VALIDATED_NOTE = {
    "zh": "> 本笔记本里的输出是构建站点时运行它得到的，所用的是 torch **{torch}**。"
          "你的 torch 版本不同（`torch.__version__`）时，输出可能不一样。",
    "en": "> The outputs in this notebook were printed when the site was built, by torch **{torch}**. "
          "With another torch version (`torch.__version__`) they may differ.",
}


_HTML_CELL = re.compile(r'<div\b[^>]*\bclass="jp-Cell (jp-CodeCell|jp-MarkdownCell)\b')
_HTML_OUTPUT = re.compile(
    r'<div class="jp-RenderedText jp-OutputArea-output( jp-OutputArea-executeResult)?\s*"'
    r'(?: data-mime-type="([^"]*)")?[^>]*>\s*<pre>(.*?)</pre>', re.S
)


def outputs_from_html(html: str) -> list[list[dict]]:
    """Each code cell's text outputs as nbformat dicts, read from the HTML that
    mkdocs-jupyter rendered from its executed run (cached or fresh): the build keeps
    no executed notebook, only that HTML, so this is what the build ran."""
    from html import unescape

    found: list[list[dict]] = []
    pieces = _HTML_CELL.split(html)
    # split gives [before, kind, chunk, kind, chunk, …]
    for kind, chunk in zip(pieces[1::2], pieces[2::2], strict=True):
        if kind != "jp-CodeCell" or "jp-InputArea" not in chunk:
            continue  # mkdocs-jupyter wraps each code cell in a second "jp-Cell jp-CodeCell" div
        outs: list[dict] = []
        for result, mime, text in _HTML_OUTPUT.findall(chunk):
            text = unescape(re.sub(r"<[^>]+>", "", text))
            if not result:  # nbconvert shows stdout as text/plain, stderr as its own type
                name = "stderr" if mime == "application/vnd.jupyter.stderr" else "stdout"
                if outs and outs[-1]["output_type"] == "stream" and outs[-1]["name"] == name:
                    outs[-1]["text"] += text  # one stream, printed in several goes
                else:
                    outs.append({"output_type": "stream", "name": name, "text": text})
            else:
                outs.append({"output_type": "execute_result", "data": {"text/plain": text.rstrip("\n")},
                             "metadata": {}})
        found.append(outs)
    return found


# --------------------------------------------------------------------------- Open in Colab

PAGES_BRANCH = "gh-pages"  # where .ci/deploy (mike) publishes the site, one folder per version
COLAB = "https://colab.research.google.com/github/"


def site_version() -> str:
    """The folder of the deployed version this build is for: the torch minor release
    that .ci/deploy passes as DEVGUIDE_SITE_TORCH, else the pinned torch's (what
    ``mike deploy`` names it: ``2.13``)."""
    version = settings.current().site_torch or paths.pinned_torch()
    return ".".join(version.split(".")[:2])


def colab_url(repo_url: str, site_path: str, version: str | None = None) -> str:
    """Colab's address for a notebook in a GitHub repository, pointing at the
    ``.ipynb`` this version's deploy publishes on the pages branch (a real
    folder: mike's "latest" alias may be a link, which GitHub does not serve)."""
    repo = repo_url.rstrip("/").removeprefix("https://github.com/")
    return f"{COLAB}{repo}/blob/{PAGES_BRANCH}/{version or site_version()}/{site_path}"
