"""The navigation: every page is in it, and every title has its English translation.

A title missing from ``nav_translations`` silently shows the Chinese title in
the English navigation; the site tier also checks the built English nav.
"""

import yaml

from devguide import config, pages


class Loader(yaml.SafeLoader):
    """mkdocs.yml with its !ENV and !!python tags read as plain values."""


Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
Loader.add_multi_constructor("tag:yaml.org,2002:python", lambda loader, suffix, node: None)


def mkdocs_yml() -> dict:
    return yaml.load((config.REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)


def nav_entries(nav, found=None):
    """(title or None, path or None) of every nav entry, sections included."""
    found = [] if found is None else found
    for entry in nav:
        if isinstance(entry, str):
            found.append((None, entry))
        else:
            ((title, value),) = entry.items()
            found.append((title, value if isinstance(value, str) else None))
            if isinstance(value, list):
                nav_entries(value, found)
    return found


def test_every_title_is_translated():
    cfg = mkdocs_yml()
    i18n = next(p["i18n"] for p in cfg["plugins"] if isinstance(p, dict) and "i18n" in p)
    missing = []
    for lang in i18n["languages"]:
        if lang.get("default"):
            continue
        translations = lang.get("nav_translations", {})
        for title, _ in nav_entries(cfg["nav"]):
            if title is not None and title not in translations:
                missing.append(f"mkdocs.yml: nav title {title!r} has no {lang['locale']} entry in nav_translations")
    assert not missing, "\n".join(missing)


def test_every_page_is_in_the_nav():
    """Every page is in the nav, but those that mkdocs.yml's not_in_nav names (the
    error reference's family pages, reached from its hub: the build fails when the hub
    does not list one)."""
    import pathspec

    listed = {path for _, path in nav_entries(mkdocs_yml()["nav"]) if path}
    default = config.DOCS / config.DEFAULT_LANGUAGE
    own = {p.relative_to(default).as_posix() for p in [*pages.pages(), *pages.notebooks()] if p.is_relative_to(default)}
    hidden = pathspec.GitIgnoreSpec.from_lines((mkdocs_yml().get("not_in_nav") or "").splitlines())
    own = {p for p in own if not hidden.match_file(f"{config.DEFAULT_LANGUAGE}/{p}")}
    assert not own - listed, f"pages missing from nav in mkdocs.yml: {sorted(own - listed)}"
    assert not listed - own, f"nav entries with no page: {sorted(listed - own)}"
