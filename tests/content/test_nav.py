"""The navigation: every page is in it, and every title has its English translation.

A title missing from ``nav_translations`` silently shows the Chinese title in
the English navigation; the site tier also checks the built English nav. The
rules live in ``devguide.source.nav``, which ``python -m devguide page`` applies to one
page pair.
"""

from devguide import paths
from devguide.source import fences, nav


def test_every_title_is_translated():
    missing = nav.untranslated_titles(nav.mkdocs_yml())
    assert not missing, "\n".join(missing)


def test_every_page_is_in_the_nav():
    """Every page is in the nav, but those that mkdocs.yml's not_in_nav names (the
    error reference's family pages, reached from its hub: the build fails when the hub
    does not list one)."""
    cfg = nav.mkdocs_yml()
    listed = {path for _, path in nav.nav_entries(cfg["nav"]) if path}
    default = paths.DOCS / paths.DEFAULT_LANGUAGE
    own = {p.relative_to(default).as_posix() for p in [*fences.pages(), *fences.notebooks()] if p.is_relative_to(default)}
    own = {p for p in own if not nav.hidden(cfg, p)}
    assert not own - listed, f"pages missing from nav in mkdocs.yml: {sorted(own - listed)}"
    assert not listed - own, f"nav entries with no page: {sorted(listed - own)}"


def test_one_page_pair_is_checked_against_the_nav():
    """What `devguide page` says of a page pair: planted in a copy of mkdocs.yml's nav."""
    cfg = nav.mkdocs_yml()
    page = paths.DOCS / "en" / "getting-started" / "index.md"
    assert nav.page_problems(page, cfg) == []
    missing = dict(cfg, nav=[e for e in cfg["nav"] if "index.md" != e and not (isinstance(e, dict) and "入门" in e)])
    (problem,) = nav.page_problems(page, missing)
    assert problem.startswith("mkdocs.yml: getting-started/index.md is not in nav")
    i18n = next(p["i18n"] for p in cfg["plugins"] if isinstance(p, dict) and "i18n" in p)
    languages = [dict(lang, nav_translations={}) if not lang.get("default") else lang for lang in i18n["languages"]]
    untranslated = dict(cfg, plugins=[{"i18n": dict(i18n, languages=languages)}])
    assert any("'快速开始' has no en entry in nav_translations" in p for p in nav.page_problems(page, untranslated))
