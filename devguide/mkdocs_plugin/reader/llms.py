"""Each page as Markdown beside its HTML, and an ``llms.txt`` per language.

The served Markdown of a page is its source, as the tests read it:

* the includes inside fences (``--8<-- "snippets/…"``) expanded with the same
  function the harness uses (``devguide.source.blocks.expand_snippet_line``), so the code
  is the code that ran;
* fence languages, admonitions, tabs and the harness's HTML comments kept: a
  ``<!--pytest-codeblocks:expected-output-->`` says that the ``text`` fence after a
  block is its verified output, ``<!--pytest.mark.cuda-->`` that the block needs
  CUDA, ``<!--pytest.mark.skip(reason="…")-->`` why a block is not run -- what a
  reader (or a model) needs to know about that code, and invisible when rendered;
* the markers the site's hooks fill (validation report, GPU outputs,
  ``{{ repo_url }}``) filled the same way (the hook passes them as ``transform``);
* headings' ``{ #id }`` (attr_list, read only by this site's build) as
  ``<a id="id"></a>``, which Markdown readers understand;
* served where the source layout puts it (``docs/zh/devices/moving.md`` →
  ``/devices/moving.md``, ``docs/en/…`` → ``/en/…``), so the relative links
  between pages resolve as written; a link that leaves the language's folder
  (``../../snippets/…``) is rewritten for the served place.

Notebooks (jupytext ``.py``) are served as Markdown too (jupytext's ``md``), their
code cells as ``python`` fences. ``llms_txt`` follows https://llmstxt.org: a
title, a summary, then sections of links to the Markdown pages.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from devguide import paths
from devguide.mkdocs_plugin.reader.downloads import site_path
from devguide.mkdocs_plugin.reader.notebook_downloads import html_anchors
from devguide.source import fences
from devguide.source.blocks import expand_snippet_line
from devguide.source.fences import Fence
from devguide.source.links import LINK

CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")

TEXT = {
    "zh": {
        "intro": (
            "下面每个链接都是一页的 Markdown 源文件：代码块保留语言标记，`--8<--` 引入的文件已展开，"
            "所以代码就是本站测试运行的代码（torch {torch}，CPU；仅 CUDA 的代码块在 GPU 工作流里运行）。"
            "HTML 注释是测试框架的标记：`<!--pytest-codeblocks:expected-output-->` 之后的 `text` 代码块"
            "是上一个代码块经过校验的输出，`<!--pytest.mark.cuda-->` 表示代码块需要 CUDA，"
            "`<!--pytest.mark.skip(reason=\"…\")-->` 写明代码块为什么不运行。"
        ),
        "optional": "Optional",
        "print": "全站打印版（HTML，一页）",
        "other": "English version",
    },
    "en": {
        "intro": (
            "Each link below is a page's Markdown source: code blocks keep their language, files "
            "included with `--8<--` are expanded, so the code is the code the site's tests ran "
            "(torch {torch}, CPU; CUDA-only blocks run in the GPU workflow). HTML comments are the "
            "test harness's marks: the `text` block after `<!--pytest-codeblocks:expected-output-->` "
            "is the verified output of the block above it, `<!--pytest.mark.cuda-->` means the block "
            "needs CUDA, `<!--pytest.mark.skip(reason=\"…\")-->` says why a block is not run."
        ),
        "optional": "Optional",
        "print": "The whole guide on one page (HTML, printable)",
        "other": "中文版",
    },
}


def text(lang: str) -> dict:
    return TEXT.get(lang, TEXT["en"])


# --------------------------------------------------------------------------- one page


def site_target(page: Path, target: str) -> str | None:
    """Where a relative link of a page's source points in the built site (a path from
    the site's root, fragment kept), or None for links that are not relative."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("/", "#")):
        return None
    path, sep, fragment = target.partition("#")
    docs_path = posixpath.normpath(posixpath.join(PurePosixPath(Path(page).resolve().relative_to(paths.DOCS).as_posix()).parent.as_posix(), path))
    first, _, rest = docs_path.partition("/")
    where = paths.url_prefix(first) + rest if first in paths.LANGUAGES else docs_path
    return where + sep + fragment


def relative(target: str, start_file: str) -> str:
    """``target`` (a site path, fragment allowed) relative to the folder of ``start_file``."""
    path, sep, fragment = target.partition("#")
    rel_path = posixpath.relpath(path, posixpath.dirname(start_file) or ".")
    return rel_path + sep + fragment


def rewrite_links(markdown: str, page: Path, fences: list[Fence], change: Callable[[str], str]) -> str:
    """Apply ``change`` to the target of every Markdown link outside fences and code spans."""
    inside = {n for f in fences for n in range(f.line, f.end + 1)}
    out = []
    for n, line in enumerate(markdown.splitlines(True), 1):
        if n in inside:
            out.append(line)
            continue
        pieces = []
        last = 0
        for code in CODE_SPAN.finditer(line):
            pieces.append(_links_in(line[last : code.start()], change))
            pieces.append(code.group(0))
            last = code.end()
        pieces.append(_links_in(line[last:], change))
        out.append("".join(pieces))
    return "".join(out)


def _links_in(part: str, change: Callable[[str], str]) -> str:
    def one(m: re.Match) -> str:
        target = m.group("target")
        return m.group(0).replace(f"({target}", f"({change(target)}", 1)

    return LINK.sub(one, part)


def rebase_links(markdown: str, page: Path) -> str:
    """Rewrite the links of a page's source for the place its Markdown is served at."""
    served = site_path(page, ".md")

    def change(target: str) -> str:
        where = site_target(page, target)
        return target if where is None else relative(where, served)

    return rewrite_links(markdown, page, fences.scan_fences(page), change)


def served_markdown(page: Path, transform: Callable[[str], str] | None = None) -> str:
    """The Markdown served beside the page's HTML (see the module's docstring)."""
    page = Path(page).resolve()
    rebased = rebase_links(page.read_text(encoding="utf-8"), page)
    # expand after rebasing: expanding changes line numbers, rebasing keeps them
    expanded = _expand_text(page, rebased)
    return html_anchors(transform(expanded) if transform else expanded)


def _expand_text(page: Path, markdown: str) -> str:
    """``markdown`` (the page's source, its lines where the file has them) with its includes expanded."""
    lines = markdown.splitlines()
    for fence in reversed(fences.scan_fences(page)):
        for n in range(fence.end - 1, fence.line, -1):
            if fences.SNIPPET_LINE.match(lines[n - 1]):
                lines[n - 1 : n] = expand_snippet_line(lines[n - 1], paths.Where(paths.rel(page), n))
    return "\n".join(lines) + "\n"


def notebook_markdown(notebook: Path) -> str:
    """A jupytext notebook as Markdown: its text cells, its code cells as ``python``
    fences. Its links point at built pages (``../amp/#recipe``, see devguide.source.links):
    they are rewritten to those pages' Markdown."""
    import jupytext

    notebook = Path(notebook).resolve()
    nb = jupytext.read(notebook)
    nb.metadata = {}
    markdown = jupytext.writes(nb, fmt="md")
    markdown = re.sub(r"\A---\n.*?\n---\n+", "", markdown, flags=re.S)
    served = site_path(notebook, ".md")
    lang = Path(notebook).relative_to(paths.DOCS).parts[0]
    page_url = site_path(notebook, "") + "/"

    def change(target: str) -> str:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("/", "#")):
            return target
        path, sep, fragment = target.partition("#")
        built = posixpath.normpath(posixpath.join(page_url, path))
        source = markdown_for_url(built, lang)
        return relative(source, served) + sep + fragment if source else target

    return html_anchors(rewrite_links(markdown, notebook, fences.fences_in(markdown.splitlines(), notebook), change))


def markdown_for_url(url_path: str, lang: str) -> str | None:
    """The served Markdown of the page built at ``url_path`` (``en/training/amp``)."""
    prefix = paths.url_prefix(lang).rstrip("/")
    rest = url_path.strip("/")
    if prefix:
        if rest != prefix and not rest.startswith(prefix + "/"):
            return None
        rest = rest[len(prefix) :].strip("/")
    base = paths.DOCS / lang
    for candidate in [f"{rest}.md", f"{rest}/index.md", f"{rest}.py"] if rest else ["index.md"]:
        if (base / candidate).is_file():
            return site_path(base / candidate, ".md")
    return None


# --------------------------------------------------------------------------- llms.txt


def first_sentence(page: Path, limit: int = 300) -> str:
    """The first sentence of a page's first paragraph, links reduced to their text."""
    path = Path(page)
    if path.suffix == ".py":
        import jupytext

        cells = [c.source for c in jupytext.read(path).cells if c.cell_type == "markdown"]
        lines = "\n\n".join(cells).splitlines()
    else:
        source = path.read_text(encoding="utf-8")
        lines = re.sub(r"\A---\n.*?\n---\n", "", source, flags=re.S).splitlines()
    paragraph: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if paragraph:
                break
            continue
        if stripped.startswith(("#", "<!--", "!!!", "===", "|", "```", "-", "*", ">")) and not paragraph:
            continue
        paragraph.append(stripped)
    sentence = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", join_lines(paragraph))
    sentence = re.sub(r"\s*\{\s*#[\w-]+\s*\}", "", sentence)
    m = re.search(r"(.+?(?:[.!?](?=\s|$)|[。！？]))", sentence)
    sentence = (m.group(1) if m else sentence).strip().rstrip(":：")
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rsplit(" ", 1)[0] + "…"


CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"


def join_lines(lines: list[str]) -> str:
    """Wrapped lines as one line: a space between words, none between Chinese characters
    (as the site's hook cjk_line_breaks does for the pages)."""
    out = ""
    for line in lines:
        if out and not (re.match(f"[{CJK}]", out[-1]) and re.match(f"[{CJK}]", line[0])):
            out += " "
        out += line
    return out


def title(path: Path) -> str:
    """A page's H1 as written (for a notebook, its first heading cell), without ``{ #anchor }``."""
    heading = re.compile(r"^# # (.+)$" if Path(path).suffix == ".py" else r"^# (.+)$")
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        m = heading.match(line)
        if m:
            return re.sub(r"\s*\{\s*#[\w-]+\s*\}\s*$", "", m.group(1)).strip()
    return Path(path).stem


@dataclass
class Section:
    title: str
    links: list[tuple[str, str, str]] = field(default_factory=list)  # (title, url, note)


def llms_txt(title: str, summary: str, intro: str, sections: list[Section]) -> str:
    """The llms.txt text: ``# title``, ``> summary``, a paragraph, ``## section`` lists."""
    out = [f"# {title}", "", f"> {' '.join(summary.split())}", "", intro, ""]
    for section in sections:
        out += [f"## {section.title}", ""]
        for name, url, note in section.links:
            out.append(f"- [{name}]({url})" + (f": {note}" if note else ""))
        out.append("")
    return "\n".join(out)
