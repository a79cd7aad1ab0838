"""The built site: strict build, links and anchors, notebooks, no external requests."""

import json
import re
import urllib.request

import pytest

from devguide import config, pages, site


def test_both_languages_are_built(built_site):
    zh, en = built_site / "index.html", built_site / "en" / "index.html"
    assert '<html lang="zh"' in zh.read_text(encoding="utf-8")
    assert '<html lang="en"' in en.read_text(encoding="utf-8")


def test_internal_links_and_anchors_resolve(site_check):
    broken, _ = site_check
    assert not broken, "broken links in the built site:\n" + "\n".join(broken)


def test_no_external_requests(site_check):
    _, external = site_check
    assert not external, "the site would load from other hosts:\n" + "\n".join(external)


@pytest.mark.parametrize("notebook", pages.notebooks(), ids=config.rel)
def test_notebook_pages_are_html_with_outputs(built_site, notebook):
    lang, *parts = notebook.relative_to(config.REPO / "docs").parts
    url_dir = "/".join(parts)[: -len(".py")]
    page = built_site / config.url_prefix(lang) / url_dir / "index.html"
    html = page.read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html>"), f"{page} is not HTML (raw notebook?)"
    assert "jp-OutputArea-output" in html, f"{page} shows no executed cell output"


def search_docs(site, lang):
    root = site / config.url_prefix(lang)
    return json.loads((root / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]


@pytest.mark.parametrize("lang", config.LANGUAGES)
def test_each_language_has_its_own_search_index(built_site, lang):
    """English readers search English pages only, Chinese readers Chinese pages."""
    docs = search_docs(built_site, lang)
    locations = {d["location"] for d in docs}
    prefix = config.url_prefix(lang)
    foreign = [loc for loc in locations if not loc.startswith(prefix) or lang == config.DEFAULT_LANGUAGE and any(loc.startswith(config.url_prefix(x)) for x in config.LANGUAGES[1:])]
    assert not foreign, f"{lang} index lists pages of another language: {sorted(foreign)[:5]}"
    own_pages = [p for p in pages.pages() if p.relative_to(config.DOCS).parts[0] == lang]
    assert len({loc.split("#")[0] for loc in locations}) >= len(own_pages)
    for notebook in pages.notebooks():
        nb_lang, *parts = notebook.relative_to(config.REPO / "docs").parts
        if nb_lang == lang:
            loc = prefix + "/".join(parts)[: -len(".py")] + "/"
            assert loc in locations, f"notebook {config.rel(notebook)} is missing from search"
    if lang == "zh":  # jieba cuts Chinese text into words (U+200B), kept apart by spaces in the index
        assert sum(len(re.findall(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", d["text"])) for d in docs) > 1000
        assert not any("\u200b" in d["text"] for d in docs)


def test_served_site_answers_both_languages(built_site):
    with site.serve(built_site) as url:
        for path in ("/", "/en/", "/getting-started/", "/en/getting-started/"):
            with urllib.request.urlopen(url + path, timeout=10) as response:
                assert response.status == 200, url + path


def test_the_english_navigation_is_english(built_site):
    """A nav title without a translation would show Chinese in the English site."""
    import re

    html = (built_site / "en" / "index.html").read_text(encoding="utf-8")
    nav = re.search(r'<nav class="md-nav md-nav--primary".*?</nav>', html, re.S).group(0)
    titles = re.findall(r'<span class="md-ellipsis">\s*(.*?)\s*</span>', nav, re.S)
    chinese = [t for t in titles if re.search(r"[\u4e00-\u9fff]", t)]
    assert titles and not chinese, f"Chinese titles in the English navigation: {chinese}"
