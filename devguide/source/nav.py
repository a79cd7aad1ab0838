"""The navigation in ``mkdocs.yml``: every page is in ``nav`` (Chinese titles), and
every title has its English entry in ``nav_translations``.

Read by ``tests/content/test_nav.py`` (every page) and by ``python -m devguide page``
(one page pair), so a new page missing from the nav fails the contributor's loop,
not only ``make test``.
"""

from __future__ import annotations

import functools
from pathlib import Path

from devguide import paths
from devguide.paths import mkdocs_yml


def nav_entries(nav, found=None):
    """(title or None, path or None) of every nav entry, sections included."""
    found = [] if found is None else found
    for entry in nav or ():
        if isinstance(entry, str):
            found.append((None, entry))
        else:
            ((title, value),) = entry.items()
            found.append((title, value if isinstance(value, str) else None))
            if isinstance(value, list):
                nav_entries(value, found)
    return found


def untranslated_titles(cfg: dict) -> list[str]:
    """A nav title with no entry in a language's nav_translations shows the Chinese
    title in that language's navigation."""
    i18n = next(p["i18n"] for p in cfg["plugins"] if isinstance(p, dict) and "i18n" in p)
    missing = []
    for lang in i18n["languages"]:
        if lang.get("default"):
            continue
        translations = lang.get("nav_translations") or {}
        for title, _ in nav_entries(cfg["nav"]):
            if title is not None and title not in translations:
                missing.append(f"mkdocs.yml: nav title {title!r} has no {lang['locale']} entry in nav_translations")
    return missing


@functools.lru_cache(maxsize=1)
def _hidden(not_in_nav: str):
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(not_in_nav.splitlines())


def hidden(cfg: dict, page: str) -> bool:
    """Is ``page`` (relative to the language folder) one that ``not_in_nav`` names
    (the error reference's family pages, reached from its hub)?"""
    return _hidden(cfg.get("not_in_nav") or "").match_file(f"{paths.DEFAULT_LANGUAGE}/{page}")


def page_problems(path: Path, cfg: dict | None = None) -> list[str]:
    """Why the page pair of ``path`` (either language) is not in the navigation as it
    should be: missing from ``nav``, or its title without an English translation."""
    cfg = cfg if cfg is not None else mkdocs_yml()
    rel = path.resolve().relative_to(paths.DOCS)
    page = Path(*rel.parts[1:]).as_posix()  # docs/en/devices/moving.md -> devices/moving.md
    if hidden(cfg, page):
        return []
    titles = [title for title, listed in nav_entries(cfg["nav"]) if listed == page]
    if not titles:
        return [f"mkdocs.yml: {page} is not in nav: add it with its Chinese title "
                f"(and the English title under nav_translations; CONTRIBUTING, 'Add a page')"]
    untranslated = untranslated_titles(cfg)
    return [line for line in untranslated if any(repr(t) in line for t in titles if t)]
