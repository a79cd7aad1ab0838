"""Links in a page's source, checked without a build: a relative link to another page
must name a page that exists, and its ``#anchor`` a heading of that page. A link to
``../../snippets/…`` (the site serves the repository's ``snippets/`` at its root)
must name a file of ``snippets/``.

The built site's own check (``devguide.dev.site_check.check_site``, in the site tier) also
covers links written by the theme and notebooks; this one is quick enough for
``python -m devguide page`` (no build).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from devguide.paths import DOCS, REPO, rel
from devguide.source.fences import heading_anchors, scan_fences

LINK = re.compile(r"\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")


def did_you_mean(anchor: str, anchors) -> str:
    """What to say after "no heading with anchor #x": the nearest anchors of that page
    (difflib), or where its anchors are written. mkdocs' own check (mkdocs.yml
    ``validation: anchors``, fatal in the strict build) names neither the line nor these."""
    near = difflib.get_close_matches(anchor, sorted(set(anchors)), n=3, cutoff=0.6)
    if near:
        return f": did you mean {' or '.join('#' + a for a in near)}?"
    return ": no anchor of that page is close; each heading's anchor is its { #anchor }"


def page_problems(page: Path) -> list[str]:
    page = Path(page)
    inside = {n for f in scan_fences(page) for n in range(f.line, f.end + 1)}
    own = {a for _, _, a in heading_anchors(page)}
    problems = []
    for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if n in inside:
            continue
        for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = m.group("target")
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
                continue  # another site, or mailto:
            path, _, anchor = target.partition("#")
            if not path:
                if anchor and anchor not in own:
                    problems.append(f"{rel(page)}:{n}: no heading with anchor #{anchor} on this page"
                                    + did_you_mean(anchor, own))
                continue
            dest = (page.parent / path).resolve()
            if dest.is_relative_to(DOCS / "snippets"):  # the site serves snippets/ at its root
                dest = REPO / "snippets" / dest.relative_to(DOCS / "snippets")
            if dest.suffix not in (".md", ".py") or not dest.exists():
                if not dest.exists():
                    problems.append(f"{rel(page)}:{n}: {target}: no such page {rel(dest)}")
                continue
            theirs = {a for _, _, a in heading_anchors(dest)} if anchor and dest.suffix == ".md" else set()
            if anchor and dest.suffix == ".md" and anchor not in theirs:
                problems.append(f"{rel(page)}:{n}: {target}: no heading with anchor #{anchor} in {rel(dest)}"
                                + did_you_mean(anchor, theirs))
    return problems


def notebook_problems(notebook: Path) -> list[str]:
    """A notebook's Markdown cells must link to the built pages (``../amp/#recipe``):
    mkdocs-jupyter renders them as they are and does not rewrite ``amp.md`` links."""
    notebook = Path(notebook)
    problems = []
    for n, line in enumerate(notebook.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("#"):
            continue
        for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = m.group("target")
            path, _, anchor = target.partition("#")
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or not path.endswith((".md", ".py")):
                continue
            built = "../" + path.rsplit(".", 1)[0] + "/" + (f"#{anchor}" if anchor else "")
            problems.append(
                f"{rel(notebook)}:{n}: {target}: notebooks are not rewritten by mkdocs-jupyter; "
                f"link to the built page instead: {built}"
            )
    return problems
