"""The offline build (`make offline`): the site opened from a folder, no server.

Pages, the language switcher and search must work over file://, and nothing
may be requested from anywhere else.
"""

from urllib.parse import urlsplit

import pytest

from devguide import paths
from devguide.dev import site_check

# a second build of every page (make offline) and its PDF: after an edit of pages that these
# tests do not name, make test stands on their last pass (devguide.pytest_plugin.reuse)
pytestmark = pytest.mark.named_pages


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
    root = offline_site / paths.url_prefix(lang)
    file_page.goto((root / "index.html").as_uri())
    hrefs, _ = site_check.search(file_page, query)
    top = [h.split("#")[0].split("?")[0].removeprefix(root.as_uri() + "/") for h in hrefs[:3]]
    assert expected in top, f"offline {lang} search for {query!r}: top three were {top}"


def test_offline_links_resolve_and_downloads_are_there(offline_site):
    """Links and anchors work from the folder (pages are ….html files there, notebook
    links included), and the readers' files come along: each page's code and
    Markdown, llms.txt, the print page."""
    broken, external = site_check.check_site(offline_site)
    assert not broken, "broken links in the offline copy:\n" + "\n".join(broken)
    assert not external
    for lang in paths.LANGUAGES:
        root = offline_site / paths.url_prefix(lang)
        for name in ("print.html", "llms.txt", "devices/devices-moving.py", "devices/moving.md",
                     "getting-started/getting-started-device-tour.ipynb"):
            assert (root / name).is_file(), root / name


def test_offline_links_open_pages_not_folders(offline_site):
    """From a folder (file://) a link to a folder shows a file listing, not the page:
    every link between pages of the offline copy names its file (….html)."""
    folders = []
    for path in offline_site.rglob("*.html"):
        for _, tag, _attr, url in site_check.parse(path).links:
            parts = urlsplit(url)
            if tag != "a" or parts.scheme or url.startswith(("//", "#", "mailto:", "javascript:", "data:")) or not parts.path:
                continue
            if parts.path.endswith("/") or (path.parent / parts.path).is_dir():
                folders.append(f"{path.relative_to(offline_site).as_posix()}: {url}")
    assert not folders, f"{len(folders)} links to folders in the offline copy, e.g.:\n" + "\n".join(folders[:10])


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_offline_navigation_opens_pages(file_page, offline_site, lang):
    """A click in the navigation of the offline copy opens the page (its title), from the home page."""
    root = offline_site / paths.url_prefix(lang)
    file_page.goto((root / "index.html").as_uri())
    link = file_page.locator(".md-nav--primary a.md-nav__link[href$='devices/moving.html']").first
    link.evaluate("a => a.click()")
    file_page.wait_for_url((root / "devices" / "moving.html").as_uri())
    assert file_page.locator("article h1").inner_text().strip() in ("搬运张量与模块", "Moving tensors and modules")


@pytest.fixture(scope="session")
def pdfs(offline_site, browser, tmp_path_factory):
    """The PDF of each language, made as `make pdf` makes them (from the offline copy)."""
    from devguide.mkdocs_plugin.reader import pdf

    return pdf.make(offline_site, tmp_path_factory.mktemp("pdf"), browser=browser)


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_pdf_holds_every_page_with_its_links_on_the_site(pdfs, lang):
    """Each language's PDF: a PDF, a sheet at least per page of the guide (each page
    starts on a new one), and no link into the folder it was printed from."""
    from devguide.mkdocs_plugin.reader import pdf
    from devguide.source import fences

    path = pdfs[lang]
    data = path.read_bytes()
    assert data.startswith(b"%PDF-"), path
    own = [p for p in [*fences.pages(), *fences.notebooks()] if p.relative_to(paths.DOCS).parts[0] == lang]
    assert pdf.page_count(path) > len(own), (pdf.page_count(path), len(own))
    assert b"file://" not in data, "a link in the PDF points into the folder it was printed from"
    assert pdf.site_url().encode() in data  # links that leave the print page go to the site


@pytest.fixture(scope="session")
def published_site(pdfs, offline_site, tmp_path_factory):
    """The site as the deploy builds it (.ci/deploy): with the offline copy and the PDFs."""
    import os
    import subprocess
    import sys

    from devguide.mkdocs_plugin.reader import pdf, takeaways

    out = tmp_path_factory.mktemp("published")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", **{
        takeaways.OFFLINE_ZIP_ENV: str(paths.BUILD / "artifacts" / "pytorch-device-guide-offline.zip"),
        pdf.PDFS_ENV: str(pdfs[paths.DEFAULT_LANGUAGE].parent)})
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=paths.REPO,
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_published_site_links_its_offline_copy_and_pdf(published_site, pdfs, lang):
    """The home page, the getting-started page and the print page link the PDF of their
    language (and the home pages the offline copy), and the links reach those files."""
    from devguide.mkdocs_plugin.reader import downloads

    root = published_site / paths.url_prefix(lang)
    for page in (root / "index.html", root / "getting-started" / "index.html", root / "print" / "index.html"):
        targets = {(page.parent / url).resolve() for _, tag, _attr, url in site_check.parse(page).links
                   if tag == "a" and url.endswith((".pdf", ".zip"))}
        pdf_file = (published_site / "downloads" / pdfs[lang].name).resolve()
        assert pdf_file in targets, f"{page.relative_to(published_site)} does not link {pdfs[lang].name}: {targets}"
        assert pdf_file.read_bytes() == pdfs[lang].read_bytes()
        if page == root / "index.html":
            assert (published_site / "downloads" / downloads.OFFLINE_ZIP).resolve() in targets
    broken, _ = site_check.check_site(published_site)
    assert not broken, broken[:5]
