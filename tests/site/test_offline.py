"""The offline build (`make offline`): the site opened from a folder, no server.

Pages, the language switcher and search must work over file://, and nothing
may be requested from anywhere else.
"""

from urllib.parse import urlsplit

import pytest

from devguide import config, site


@pytest.fixture
def file_page(browser, offline_site):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    yield page
    context.close()
    outside = [u for u in requests if urlsplit(u).scheme not in ("file", "data", "blob", "about")]
    assert not outside, "the offline site requested:\n" + "\n".join(outside)


def test_offline_pages_and_language_switcher(file_page, offline_site):
    file_page.goto((offline_site / "getting-started" / "index.html").as_uri() + "#verify")
    assert "快速开始" in file_page.locator("article h1").inner_text()
    file_page.locator("a.md-select__link[hreflang=en]").first.evaluate("a => a.click()")
    file_page.wait_for_url((offline_site / "en" / "getting-started" / "index.html").as_uri() + "#verify")
    assert "Getting started" in file_page.locator("article h1").inner_text()


@pytest.mark.parametrize("lang,query,expected", [("zh", "锁页内存", "async/pinned-memory.html"), ("en", "pinned memory", "async/pinned-memory.html")])
def test_offline_search(file_page, offline_site, lang, query, expected):
    root = offline_site / config.url_prefix(lang)
    file_page.goto((root / "index.html").as_uri())
    hrefs, _ = site.search(file_page, query)
    top = [h.split("#")[0].split("?")[0].removeprefix(root.as_uri() + "/") for h in hrefs[:3]]
    assert expected in top, f"offline {lang} search for {query!r}: top three were {top}"


def test_offline_links_resolve_and_downloads_are_there(offline_site):
    """Links and anchors work from the folder (pages are ….html files there, notebook
    links included), and the readers' files come along: each page's code and
    Markdown, llms.txt, the print page."""
    broken, external = site.check_site(offline_site)
    assert not broken, "broken links in the offline copy:\n" + "\n".join(broken)
    assert not external
    for lang in config.LANGUAGES:
        root = offline_site / config.url_prefix(lang)
        for name in ("print.html", "llms.txt", "devices/devices-moving.py", "devices/moving.md",
                     "getting-started/getting-started-device-tour.ipynb"):
            assert (root / name).is_file(), root / name
