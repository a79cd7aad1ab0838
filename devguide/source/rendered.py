"""What the site renders as code: a page through mkdocs.yml's own Markdown extensions.

The census (``devguide.source.fences``) decides which fences run; the site decides
which are shown as code. They must agree: a fence in a quote (``> ```python``) was
shown as Python and never run, a tab-indented fence was shown as plain text and run.
``rendered_languages`` renders a page's Markdown with the extensions and settings
listed under ``markdown_extensions`` in mkdocs.yml (highlighting off: only the
language classes are read) and gives the language of each code block, in page
order; ``census_languages``, what the census says the site shows as Python or bash.
Compared for every page by ``tests/content/test_rendered_fences.py``.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from devguide import paths
from devguide.source.fences import EXECUTED, classify, read_page

# a code block (not inline code): <pre class="highlight"><code class="language-python">
BLOCK = re.compile(r'<pre[^>]*><code(?: class="language-(?P<language>[\w+-]+)[^"]*")?>')


@functools.lru_cache(maxsize=1)
def _extensions() -> tuple[list[str], dict]:
    from devguide.source.nav import mkdocs_yml

    names, configs = [], {}
    for entry in mkdocs_yml()["markdown_extensions"]:
        (name, config), = entry.items() if isinstance(entry, dict) else ((entry, {}),)
        names.append(name)
        configs[name] = dict(config or {})
    if "pymdownx.highlight" in configs:
        configs["pymdownx.highlight"]["use_pygments"] = False  # the language classes stay
    if "pymdownx.snippets" in configs:  # its base path is relative to the repository
        configs["pymdownx.snippets"]["base_path"] = [str(paths.REPO / p) for p in configs["pymdownx.snippets"].get("base_path", ["."])]
    return names, configs


def rendered_languages(text: str) -> list[str]:
    """The language of each code block the site renders from this Markdown ("" for none)."""
    import markdown

    names, configs = _extensions()
    html = markdown.Markdown(extensions=names, extension_configs=configs).convert(text)
    return [m.group("language") or "" for m in BLOCK.finditer(html)]


def census_languages(page: Path) -> tuple[list[str], list[str]]:
    """(the languages of the fences the census runs or excuses as Python or bash, in
    page order; the census's problems, which fail the page)."""
    entries = classify(page)
    problems = [e.problem for e in entries if e.problem]
    shown = sorted((e.line, e.language) for e in entries
                   if e.language in EXECUTED and e.kind not in ("ignored", "output", "display"))
    return [language for _, language in shown], problems


def disagreement(page: Path) -> str:
    """Empty when the site shows as Python or bash exactly the fences the census runs
    or excuses (or the census refuses the page, loudly); else what differs."""
    census, problems = census_languages(page)
    if problems:
        return ""
    site = [x for x in rendered_languages(read_page(page)) if x in EXECUTED]
    if site == census:
        return ""
    return (f"{paths.rel(page)}: the site renders {len(site)} python/bash blocks {site}, the census "
            f"runs or excuses {len(census)} {census}")
